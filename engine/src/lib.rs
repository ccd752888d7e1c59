//! Beowulf Netlab's medium engine as a library: `model` (the pure, virtual-time medium: segments,
//! ports, CSMA/CD), `config` (the engine's configuration file, parsed without any I/O), `shell`
//! (what the I/O shell does with a frame before the model times it: refusals, where it goes, the
//! frames held, histograms) and `pcapng` (a wire's capture, encoded without I/O). The binary
//! (main.rs) is the thin I/O shell: AF_PACKET sockets, one timerfd, statistics, capture files.
pub mod config;
pub mod model;
pub mod pcapng;
pub mod shell;
