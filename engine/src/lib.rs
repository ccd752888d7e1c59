//! Beowulf Netlab's medium engine as a library: `model` (the pure, virtual-time medium: segments,
//! ports, CSMA/CD) and `config` (the engine's configuration file, parsed without any I/O). The
//! binary (main.rs) is the thin I/O shell: AF_PACKET sockets, one timerfd, statistics.
pub mod config;
pub mod model;
