//! beowulf-medium: the I/O shell around the medium model (model.rs), one process per network.
//!
//! One AF_PACKET socket per port (the root-namespace end of a veth whose other end is a node's
//! card or a switch's port), one absolute CLOCK_MONOTONIC timerfd, one signalfd, one epoll loop
//! (wmediumd's shape). A frame's arrival time is the kernel's receive timestamp, so it does not
//! depend on when the engine wakes; the model computes every departure in virtual time, and the
//! shell releases each frame as close to its due time as it can, recording how late (the lag).
//! Throughput is exact whatever the lag; a late release only delays that frame, and the lag
//! distribution goes to the statistics so a gate can refuse a point the engine could not keep.
//!
//! Waking on time: a timer wake-up is late by the host's scheduling latency (tens of us here), so
//! the shell arms its timer `early` ahead of the next release and spins the rest. `early` follows
//! the wake-ups' own lateness (twice its running mean, at most --max-early-us): the spin costs
//! about what the lateness would have, and only when a release is near. The model's bookkeeping
//! events (a frame reaching its card, a backoff ending, the medium going idle) wake the shell
//! without a spin: they keep their virtual times however late they run.
//!
//! Repeated copies: a hub sends each frame to every other port, and a 16-node hub's 14 copies
//! that their cards drop took 20-30 us of sends after each frame (the receiving namespaces' stacks
//! run inside the send), in which the next kept copy fell due: at 100 Mbit/s half the frames left
//! 11-20 us late. A repeated copy now waits until no kept copy is due within REPEAT_SLACK_NS and
//! goes a few at a time (at once past REPEAT_MAX waiting); only a promiscuous card sees it later.
//!
//! Batched I/O: a port's frames are read with recvmmsg (up to RX_BATCH a call, each with its own
//! kernel timestamp), and the copies of one release pass due to the same port in a row go in one
//! sendmmsg. Not a PACKET_MMAP ring: TPACKET_V3 hands a block over only when it fills or its
//! retire timer (whole ms) fires, which would delay a lone frame's arrival by up to that timer,
//! far past the lag bound; a TPACKET_V2 frame ring would save the copy into user space, but a
//! minimum frame's copy costs less than the syscall it shares, and 32 ports x a ring each is
//! memory and setup for every network. At a saturated wire every frame has its own due time, so
//! a release is usually one frame: the batches pay off on the receiving side (frames arriving
//! together) and when the shell catches up after a stall.
//!
//! What the shell does with a frame before the model times it is shell.rs (pure, tested): it
//! refuses runts and frames over 802.3's maximum (counted per port: `runts`, `oversize`), and
//! sends every frame to every other port of its segment (a hub repeats all; each card keeps its
//! own). Where an address was last heard (bounded, aged hints) only orders the copies: a unicast
//! frame's copy to its addressee's port goes with the batch's kept copies, first, and counts in
//! the release `lag`; the copies its card would drop wait for a quiet moment (`repeated_copies`;
//! Repeated copies, below). No
//! source address, however spoofed, decides who gets a frame. A frame read after the model has passed its
//! arrival time is taken at the model's now and its lateness recorded (`late_arrival_lag`,
//! beside the release `lag`); the kernel's own drops on each port's socket (PACKET_STATISTICS,
//! which resets on read, summed here) are `socket_drops`, beside `send_errors`.
//!
//! Captures (--capture WIRE=FILE, repeatable): the model traces that wire, and each frame it
//! carried goes to FILE as pcapng (pcapng.rs) stamped when its last bit left the wire, its
//! collisions and the wire's drops as comments; at most --capture-limit bytes of frames a file.
//! The engine runs as root, so FILE is created new (O_EXCL) and never through a link
//! (O_NOFOLLOW), mode 0644, in a directory the caller made.
//!
//! Usage: beowulf-medium --config FILE --stats FILE [--fifo PRIORITY] [--max-early-us N] [--cpu-latency-us N]
//!                       [--capture WIRE=FILE ...] [--capture-limit BYTES]
//! SIGUSR1 writes the statistics (FILE, replaced atomically, with an increasing `seq`) and
//! flushes the captures; SIGTERM, SIGINT and SIGHUP write them, close the captures and exit.
use medium::config;
use medium::model::{DropWhy, Model, Ns, Output, WireEvent};
use medium::pcapng::Capture;
use medium::shell::{Core, Hist, MAX_TAGGED_FRAME};
use std::ffi::CString;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::collections::VecDeque;
use std::mem;
use std::os::unix::fs::OpenOptionsExt;
use std::process::exit;

// a read buffer longer than any frame the shell accepts: a longer one is read truncated and
// its real length (MSG_TRUNC) refuses it
const READ_BUFFER: usize = MAX_TAGGED_FRAME + 512;
/// Frames one recvmmsg reads at most: a burst of minimum frames (a generator's batch, a switch
/// flushing its queue) in one call, 50 KB of buffers.
const RX_BATCH: usize = 32;
/// Copies to one port one sendmmsg sends at most.
const TX_BATCH: usize = 32;
/// Repeated copies (a hub's copies to ports whose card drops them) wait until no kept copy is
/// due within this long, then go a few at a time (module doc: Repeated copies).
const REPEAT_SLACK_NS: Ns = 20_000;
const REPEAT_BATCH: usize = 4;
/// Past this many waiting, repeated copies go at once whatever is due (memory stays bounded).
const REPEAT_MAX: usize = 8192;
/// A capture's default bound on its frames' bytes.
const CAPTURE_LIMIT: u64 = 64 << 20;

fn die(msg: &str) -> ! {
    eprintln!("beowulf-medium: {}", msg);
    exit(2)
}

fn errno() -> std::io::Error {
    std::io::Error::last_os_error()
}

fn clock(id: libc::clockid_t) -> Ns {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn mono() -> Ns {
    clock(libc::CLOCK_MONOTONIC)
}

/// CLOCK_MONOTONIC minus CLOCK_REALTIME (signed, ns): kernel timestamps are realtime.
fn mono_minus_real() -> i128 {
    let r1 = clock(libc::CLOCK_REALTIME) as i128;
    let m = clock(libc::CLOCK_MONOTONIC) as i128;
    let r2 = clock(libc::CLOCK_REALTIME) as i128;
    m - (r1 + r2) / 2
}

fn setsockopt_int(fd: i32, level: i32, name: i32, value: i32) -> bool {
    unsafe {
        libc::setsockopt(fd, level, name, &value as *const i32 as *const libc::c_void, mem::size_of::<i32>() as u32) == 0
    }
}

// ---- the command line ----

struct Options {
    config_path: String,
    stats_path: String,
    fifo: i32,
    max_early_ns: Ns,
    cpu_latency_us: Option<i32>,
    /// (wire, file) per capture.
    captures: Vec<(String, String)>,
    capture_limit: u64,
}

const USAGE: &str = "usage: beowulf-medium --config FILE --stats FILE [--fifo PRIORITY] [--max-early-us N] \
                     [--cpu-latency-us N] [--capture WIRE=FILE ...] [--capture-limit BYTES]\n\
                     Runs the segments and ports FILE names (see engine/src/config.rs); SIGUSR1 writes statistics.\n\
                     --capture writes the frames WIRE carried to FILE (pcapng, created new), at most BYTES of \
                     frames (default 64 MiB).";

fn arg_value(args: &[String], flag: &str) -> Option<String> {
    args.iter().position(|a| a == flag).map(|i| args.get(i + 1).cloned().unwrap_or_else(|| die(&format!("{} needs a value", flag))))
}

fn parse_args(args: &[String]) -> Options {
    let number = |flag: &str, what: &str| {
        arg_value(args, flag).map(|v| v.parse::<u64>().unwrap_or_else(|_| die(&format!("{} takes {}", flag, what))))
    };
    let mut captures = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if a == "--capture" {
            let v = args.get(i + 1).unwrap_or_else(|| die("--capture needs WIRE=FILE"));
            match v.split_once('=') {
                Some((wire, file)) if !wire.is_empty() && !file.is_empty() => captures.push((wire.to_string(), file.to_string())),
                _ => die(&format!("--capture {}: give WIRE=FILE", v)),
            }
        }
    }
    Options {
        config_path: arg_value(args, "--config").unwrap_or_else(|| die("--config FILE is required")),
        stats_path: arg_value(args, "--stats").unwrap_or_else(|| die("--stats FILE is required")),
        fifo: number("--fifo", "a priority 1..99").unwrap_or(0).min(99) as i32,
        max_early_ns: number("--max-early-us", "whole us").unwrap_or(100) * 1000,
        cpu_latency_us: arg_value(args, "--cpu-latency-us")
            .map(|v| v.parse::<i32>().unwrap_or_else(|_| die("--cpu-latency-us takes whole us"))),
        captures,
        capture_limit: number("--capture-limit", "whole bytes").unwrap_or(CAPTURE_LIMIT),
    }
}

// ---- the process ----

/// The engine never outlives the run that started it (a SIGKILLed run leaves no engine), and
/// its timers fire without slack.
fn tie_to_parent() {
    let parent = unsafe { libc::getppid() };
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0) };
    if unsafe { libc::getppid() } != parent || parent == 1 {
        die("its parent has already gone");
    }
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Keep idle cores out of their deep idle states while the engine runs (the kernel's PM QoS
/// request, what cyclictest does): a halted core, and a halted virtual CPU above all, wakes tens
/// of us late; the request ends with this process, so a killed engine leaves nothing behind.
fn hold_cpu_latency(us: Option<i32>) -> Option<i32> {
    let us = us?;
    let path = CString::new("/dev/cpu_dma_latency").unwrap();
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW) };
    let ok = fd >= 0 && unsafe { libc::write(fd, &us as *const i32 as *const libc::c_void, 4) } == 4;
    if !ok && fd >= 0 {
        unsafe { libc::close(fd) };
    }
    if ok { Some(us) } else { None } // the fd stays open (and the request held) until exit
}

/// SCHED_FIFO at `fifo` where the kernel allows it; the policy it runs under, for the statistics.
fn realtime(fifo: i32) -> String {
    if fifo > 0 {
        let p = libc::sched_param { sched_priority: fifo };
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } == 0 {
            return format!("fifo:{}", fifo);
        }
    }
    "other".to_string()
}

// ---- the ports ----

struct Port {
    name: String,
    fd: i32,
    segment: usize,
    send_errors: u64,
    /// Frames the kernel dropped on this port's socket before the engine read them
    /// (PACKET_STATISTICS' tp_drops, summed: each read resets it).
    socket_drops: u64,
    // the frames delivered to this port and their time inside the engine, from each frame's
    // arrival (its kernel timestamp) to its release here: what a trip spent in the engine, the
    // rest being the host's own path (beowulf_netlab/run/hostpath.py reads it)
    held: u64,
    held_ns: u128,
}

fn open_port(name: &str, segment: usize) -> Port {
    let cname = CString::new(name).unwrap();
    let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) };
    if ifindex == 0 {
        die(&format!("port {}: no such interface", name));
    }
    // protocol 0: the socket receives nothing until it is bound to its interface
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        die(&format!("port {}: AF_PACKET socket: {}", name, errno()));
    }
    // PACKET_IGNORE_OUTGOING (23): not our own sends; PACKET_QDISC_BYPASS (20): straight to the veth
    if !setsockopt_int(fd, libc::SOL_PACKET, 23, 1) {
        die(&format!("port {}: PACKET_IGNORE_OUTGOING: {} (Linux 4.20 or later needed)", name, errno()));
    }
    setsockopt_int(fd, libc::SOL_PACKET, 20, 1);
    if !setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1) {
        die(&format!("port {}: SO_TIMESTAMPNS: {}", name, errno()));
    }
    setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, 4 << 20);
    setsockopt_int(fd, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, 4 << 20);
    let mut sll: libc::sockaddr_ll = unsafe { mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
    sll.sll_ifindex = ifindex as i32;
    let rc = unsafe {
        libc::bind(fd, &sll as *const libc::sockaddr_ll as *const libc::sockaddr, mem::size_of::<libc::sockaddr_ll>() as u32)
    };
    if rc != 0 {
        die(&format!("port {}: bind: {}", name, errno()));
    }
    Port { name: name.to_string(), fd, segment, send_errors: 0, socket_drops: 0, held: 0, held_ns: 0 }
}

/// The socket's drops since the last read (the kernel resets its counters on each read).
fn socket_drops(fd: i32) -> u64 {
    let mut st = libc::tpacket_stats { tp_packets: 0, tp_drops: 0 };
    let mut len = mem::size_of::<libc::tpacket_stats>() as libc::socklen_t;
    let rc = unsafe {
        libc::getsockopt(fd, libc::SOL_PACKET, libc::PACKET_STATISTICS, &mut st as *mut _ as *mut libc::c_void, &mut len)
    };
    if rc == 0 { st.tp_drops as u64 } else { 0 }
}

/// recvmmsg's buffers, set up once: RX_BATCH frames of READ_BUFFER bytes, each with room for
/// its timestamp. The vectors never grow, so the pointers between them stay valid.
struct RxBatch {
    bufs: Vec<u8>,
    iovs: Vec<libc::iovec>,
    cmsgs: Vec<[u64; 8]>,
    hdrs: Vec<libc::mmsghdr>,
}

impl RxBatch {
    fn new() -> RxBatch {
        let mut b = RxBatch {
            bufs: vec![0u8; RX_BATCH * READ_BUFFER],
            iovs: Vec::with_capacity(RX_BATCH),
            cmsgs: vec![[0u64; 8]; RX_BATCH],
            hdrs: Vec::with_capacity(RX_BATCH),
        };
        for i in 0..RX_BATCH {
            let base = unsafe { b.bufs.as_mut_ptr().add(i * READ_BUFFER) };
            b.iovs.push(libc::iovec { iov_base: base as *mut libc::c_void, iov_len: READ_BUFFER });
        }
        for i in 0..RX_BATCH {
            let mut h: libc::mmsghdr = unsafe { mem::zeroed() };
            h.msg_hdr.msg_iov = &mut b.iovs[i];
            h.msg_hdr.msg_iovlen = 1;
            h.msg_hdr.msg_control = b.cmsgs[i].as_mut_ptr() as *mut libc::c_void;
            b.hdrs.push(h);
        }
        b
    }

    /// Up to RX_BATCH frames from `fd`: how many (0 when drained).
    fn recv(&mut self, fd: i32) -> usize {
        for (h, c) in self.hdrs.iter_mut().zip(self.cmsgs.iter()) {
            h.msg_hdr.msg_controllen = mem::size_of_val(c) as _; // the kernel shrinks it to what it wrote
            h.msg_hdr.msg_flags = 0;
            h.msg_len = 0;
        }
        let n = unsafe {
            libc::recvmmsg(fd, self.hdrs.as_mut_ptr(), RX_BATCH as u32, libc::MSG_TRUNC | libc::MSG_DONTWAIT, std::ptr::null_mut())
        };
        if n < 0 { 0 } else { n as usize }
    }

    /// Frame `i` of the last recv: its real length (MSG_TRUNC), what fitted of it, and its
    /// kernel timestamp (realtime ns).
    fn frame(&self, i: usize) -> (usize, &[u8], Option<Ns>) {
        let len = self.hdrs[i].msg_len as usize;
        let bytes = &self.bufs[i * READ_BUFFER..i * READ_BUFFER + len.min(READ_BUFFER)];
        let mut ts = None;
        unsafe {
            let msg = &self.hdrs[i].msg_hdr;
            let mut c = libc::CMSG_FIRSTHDR(msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                    let t = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                    ts = Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64);
                }
                c = libc::CMSG_NXTHDR(msg, c);
            }
        }
        (len, bytes, ts)
    }
}

// ---- captures ----

type CaptureFile = Capture<BufWriter<File>>;

/// Each capture's file, created new (never through a link, never over a file), and its wire
/// traced; per segment, None where there is none.
fn open_captures(opts: &Options, segments: &[String], model: &mut Model) -> (Vec<Option<CaptureFile>>, Vec<String>) {
    let mut caps: Vec<Option<CaptureFile>> = (0..segments.len()).map(|_| None).collect();
    let mut paths = vec![String::new(); segments.len()];
    let offset = -mono_minus_real(); // realtime minus monotonic, taken once: the stamps keep the model's spacing
    for (wire, path) in &opts.captures {
        let s = segments.iter().position(|n| n == wire).unwrap_or_else(|| die(&format!("--capture {}: no such wire", wire)));
        if caps[s].is_some() {
            die(&format!("--capture {}: given twice", wire));
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)
            .unwrap_or_else(|e| die(&format!("--capture {}: {}: {}", wire, path, e)));
        let cap = Capture::new(BufWriter::with_capacity(1 << 16, file), wire, opts.capture_limit, offset)
            .unwrap_or_else(|e| die(&format!("--capture {}: {}: {}", wire, path, e)));
        model.trace(s);
        caps[s] = Some(cap);
        paths[s] = path.clone();
    }
    (caps, paths)
}

// ---- the engine ----

struct Engine {
    core: Core,
    ports: Vec<Port>,
    segments: Vec<String>,
    lag: Hist,
    seq: u64,
    wakeups: u64,
    frames_no_timestamp: u64,
    /// Copies a hub repeated to a port other than their frame's remembered addressee's (its card
    /// drops them): sent, held, but not in `lag` (shell.rs, Hints).
    repeated: u64,
    timer_wakeups: u64,
    early_ns: Ns,
    spin_ns: Ns,
    cpu_latency: Option<i32>,
    sched: String,
    started: Ns,
    stats_path: String,
    captures: Vec<Option<CaptureFile>>,
    capture_paths: Vec<String>,
    /// recvmmsg's and sendmmsg's buffers, and the frames read in one wake-up, reused.
    rx: RxBatch,
    arrivals: Vec<(Ns, usize, usize, Vec<u8>)>,
    run: Vec<(u64, usize, Ns)>,
    tx_iovs: Vec<libc::iovec>,
    tx_hdrs: Vec<libc::mmsghdr>,
    wire_log: Vec<WireEvent>,
    /// Repeated copies not yet sent, (frame, port), oldest first; their frames stay in the slab.
    repeats: VecDeque<(u64, usize)>,
}

impl Engine {
    /// Close every port's socket at once. The kernel waits out an RCU grace period for each
    /// packet socket it releases (packet_release -> synchronize_net), one after the other when
    /// the process exits: 0.4-0.6 s for a 32-port network. Closed from one thread each, the
    /// waits overlap, and the network's teardown does not wait for them in turn.
    fn close_ports(&mut self) {
        let fds: Vec<i32> = self.ports.iter().map(|p| p.fd).collect();
        let threads: Vec<_> = fds
            .into_iter()
            .map(|fd| std::thread::spawn(move || unsafe { libc::close(fd) }))
            .collect();
        for t in threads {
            let _ = t.join();
        }
    }

    /// The statistics, the captures closed, the ports closed: the end of the process.
    fn shut_down(&mut self) {
        self.write_stats();
        let now = mono();
        for c in self.captures.iter_mut().flatten() {
            c.finish(now);
        }
        self.close_ports();
    }

    /// Every frame waiting on `port`, with its arrival time (`offset`: monotonic minus realtime).
    fn read_port(&mut self, port: usize, offset: i128) {
        loop {
            let n = self.rx.recv(self.ports[port].fd);
            for i in 0..n {
                let (len, bytes, ts) = self.rx.frame(i);
                let t = match ts {
                    Some(r) => (r as i128 + offset).max(0) as Ns,
                    None => {
                        self.frames_no_timestamp += 1;
                        mono()
                    }
                };
                self.arrivals.push((t, port, len, bytes.to_vec()));
            }
            if n < RX_BATCH {
                return; // a short batch: drained (level-triggered epoll wakes for later ones)
            }
        }
    }

    /// The frames read this wake-up, in arrival order, to the model (none after `now`).
    fn ingest(&mut self, now: Ns) {
        self.arrivals.sort_by_key(|a| a.0);
        for (t, port, len, bytes) in self.arrivals.drain(..) {
            let _ = self.core.ingest(t.min(now), port, len, bytes); // a refused frame is counted there
        }
    }

    /// Send what the model says is due: the copies cards keep first, then the ones a hub merely
    /// repeats (their lateness harms nobody, so they wait behind every kept copy of the batch).
    /// Copies in a row to one port go in one sendmmsg.
    fn release(&mut self, outs: &mut Vec<Output>) {
        let mut run = mem::take(&mut self.run);
        for o in outs.iter() {
            if let Output::Deliver { handle, port, due } = *o {
                if !self.core.slab.get(handle).counts(port) {
                    self.repeats.push_back((handle, port)); // sent when nothing kept is near
                    continue;
                }
                if run.last().map_or(false, |r| r.1 != port) || run.len() == TX_BATCH {
                    self.send_run(&run, true);
                    run.clear();
                }
                run.push((handle, port, due));
            }
        }
        if !run.is_empty() {
            self.send_run(&run, true);
            run.clear();
        }
        self.run = run;
        for o in outs.drain(..) {
            match o {
                Output::Deliver { handle, port, .. } if !self.core.slab.get(handle).counts(port) => {}
                _ => self.core.settle(&o),
            }
        }
        if self.repeats.len() > REPEAT_MAX {
            self.send_repeats(usize::MAX);
        }
    }

    /// Up to `most` of the oldest repeated copies, in runs to one port, each frame's slot let go
    /// once its copy left.
    fn send_repeats(&mut self, most: usize) {
        let mut run = mem::take(&mut self.run);
        for _ in 0..most.min(self.repeats.len()) {
            let (handle, port) = self.repeats.pop_front().expect("counted");
            if run.last().map_or(false, |r| r.1 != port) || run.len() == TX_BATCH {
                self.send_repeat_run(&mut run);
            }
            run.push((handle, port, 0));
        }
        self.send_repeat_run(&mut run);
        self.run = run;
    }

    /// One run of repeated copies to a port, sent, their frames' slots let go, the run emptied.
    fn send_repeat_run(&mut self, run: &mut Vec<(u64, usize, Ns)>) {
        if run.is_empty() {
            return;
        }
        self.send_run(run, false);
        for &(h, _, _) in run.iter() {
            self.core.slab.release(h);
        }
        run.clear();
    }

    /// Copies (handle, port, due) to one port in one sendmmsg. The lag of the first is taken when
    /// the call starts, as a lone send's; the others' when it returns (the kernel had each of
    /// them by then: an upper bound, never less than their real lag).
    fn send_run(&mut self, run: &[(u64, usize, Ns)], kept: bool) {
        let port = run[0].1;
        self.tx_iovs.clear();
        self.tx_hdrs.clear();
        for &(handle, _, _) in run {
            let b = &self.core.slab.get(handle).bytes;
            self.tx_iovs.push(libc::iovec { iov_base: b.as_ptr() as *mut libc::c_void, iov_len: b.len() });
        }
        for iov in self.tx_iovs.iter_mut() {
            let mut h: libc::mmsghdr = unsafe { mem::zeroed() };
            h.msg_hdr.msg_iov = iov;
            h.msg_hdr.msg_iovlen = 1;
            self.tx_hdrs.push(h);
        }
        let fd = self.ports[port].fd;
        let t0 = mono();
        let mut i = 0;
        while i < run.len() {
            let rc = unsafe { libc::sendmmsg(fd, self.tx_hdrs[i..].as_mut_ptr(), (run.len() - i) as u32, libc::MSG_DONTWAIT) };
            if rc <= 0 {
                self.ports[port].send_errors += 1; // this copy is lost; the rest still go
                i += 1;
            } else {
                i += rc as usize;
            }
        }
        let t1 = if run.len() > 1 { mono() } else { t0 };
        for (k, &(handle, _, due)) in run.iter().enumerate() {
            let at = if k == 0 { t0 } else { t1 };
            if kept {
                self.lag.record(at.saturating_sub(due));
            } else {
                self.repeated += 1;
            }
            let p = &mut self.ports[port];
            p.held_ns += at.saturating_sub(self.core.slab.get(handle).arrival) as u128;
            p.held += 1;
        }
    }

    /// The traced wires' events to their captures (before the release settles the frames they
    /// name).
    fn capture(&mut self) {
        mem::swap(&mut self.wire_log, &mut self.core.model.wire_log);
        for ev in self.wire_log.drain(..) {
            match ev {
                WireEvent::Carried { seg, port, handle, end, collisions, .. } => {
                    let own = (collisions > 0).then(|| {
                        format!("{} sent it after {} collision{}", self.ports[port].name, collisions, if collisions == 1 { "" } else { "s" })
                    });
                    if let Some(c) = self.captures[seg].as_mut() {
                        c.frame(end, &self.core.slab.get(handle).bytes, own);
                    }
                }
                WireEvent::Collision { seg, ports, end } => {
                    let names: Vec<&str> = ports.iter().map(|&p| self.ports[p].name.as_str()).collect();
                    if let Some(c) = self.captures[seg].as_mut() {
                        let text = format!("collision of {} ended at {}", names.join(", "), c.at(end));
                        c.note(text);
                    }
                }
                WireEvent::Dropped { seg, port, why, at, .. } => {
                    let why = match why {
                        DropWhy::QueueFull => "its queue full",
                        DropWhy::ExcessCollisions => "16 collisions",
                    };
                    let name = &self.ports[port].name;
                    if let Some(c) = self.captures[seg].as_mut() {
                        let text = format!("{} dropped a frame ({}) at {}", name, why, c.at(at));
                        c.note(text);
                    }
                }
            }
        }
    }

    /// Add each socket's drops since the last read (before the statistics are written).
    fn read_socket_drops(&mut self) {
        for p in self.ports.iter_mut() {
            p.socket_drops += socket_drops(p.fd);
        }
    }

    fn stats_json(&self) -> String {
        let mut s = String::with_capacity(8192);
        let mut ru: libc::rusage = unsafe { mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        let cpu = ru.ru_utime.tv_sec as f64 + ru.ru_utime.tv_usec as f64 / 1e6 + ru.ru_stime.tv_sec as f64 + ru.ru_stime.tv_usec as f64 / 1e6;
        let now = mono();
        s.push_str(&format!(
            "{{\"engine\": \"beowulf-medium\", \"version\": \"{}\", \"seq\": {}, \"pid\": {}, \"time_ns\": {}, \"uptime_s\": {:.6}, \
             \"cpu_s\": {:.6}, \"wakeups\": {}, \"late_arrivals\": {}, \"frames_no_timestamp\": {}, \"repeated_copies\": {}, \"sched\": \"{}\", \
             \"timer_wakeups\": {}, \"early_ns\": {}, \"spin_s\": {:.6}, \"cpu_latency_us\": {},\n",
            env!("CARGO_PKG_VERSION"),
            self.seq,
            std::process::id(),
            now,
            (now - self.started) as f64 / 1e9,
            cpu,
            self.wakeups,
            self.core.model.late_arrivals,
            self.frames_no_timestamp,
            self.repeated,
            self.sched,
            self.timer_wakeups,
            self.early_ns,
            self.spin_ns as f64 / 1e9,
            self.cpu_latency.map(|v| v.to_string()).unwrap_or_else(|| "null".to_string())
        ));
        s.push_str(&format!(" \"lag\": {},\n \"late_arrival_lag\": {},\n \"captures\": {{", self.lag.json(), self.core.late_lag.json()));
        let mut first = true;
        for (i, c) in self.captures.iter().enumerate() {
            if let Some(c) = c {
                s.push_str(&format!(
                    "{}\n  \"{}\": {{\"path\": {:?}, \"frames\": {}, \"bytes\": {}, \"skipped\": {}, \"stopped\": {}}}",
                    if first { "" } else { "," },
                    self.segments[i],
                    self.capture_paths[i],
                    c.frames,
                    c.written,
                    c.skipped,
                    c.stopped.as_ref().map(|w| format!("{:?}", w)).unwrap_or_else(|| "null".to_string())
                ));
                first = false;
            }
        }
        s.push_str("},\n \"segments\": {");
        for (i, name) in self.segments.iter().enumerate() {
            let st = self.core.model.segment_stats(i);
            let cfg = self.core.model.segment_config(i);
            s.push_str(&format!(
                "{}\n  \"{}\": {{\"prop_ns\": {}, \"repeater_ns\": {}, \"frames\": {}, \"wire_bytes\": {}, \"busy_ns\": {}, \"collision_ns\": {}, \"backoff_idle_ns\": {}, \"collisions\": {}}}",
                if i > 0 { "," } else { "" },
                name,
                cfg.prop_ns,
                cfg.repeater_ns,
                st.frames,
                st.wire_bytes,
                st.busy_ns,
                st.collision_ns,
                st.backoff_idle_ns,
                st.collisions
            ));
        }
        s.push_str("},\n \"ports\": {");
        for (i, p) in self.ports.iter().enumerate() {
            let st = self.core.model.port_stats(i);
            let refused = &self.core.refused[i];
            s.push_str(&format!(
                "{}\n  \"{}\": {{\"segment\": \"{}\", \"frames_in\": {}, \"bytes_in\": {}, \"frames_sent\": {}, \"bytes_sent\": {}, \"wire_bytes_sent\": {}, \
                 \"frames_delivered\": {}, \"collisions\": {}, \"deferrals\": {}, \"drops_queue\": {}, \"drops_collisions\": {}, \
                 \"max_queue\": {}, \"send_errors\": {}, \"socket_drops\": {}, \"oversize\": {}, \"runts\": {}, \"held_frames\": {}, \"held_ns\": {}}}",
                if i > 0 { "," } else { "" },
                p.name,
                self.segments[p.segment],
                st.frames_in,
                st.bytes_in,
                st.frames_sent,
                st.bytes_sent,
                st.wire_bytes_sent,
                st.frames_delivered,
                st.collisions,
                st.deferrals,
                st.drops_queue,
                st.drops_collisions,
                st.max_queue,
                p.send_errors,
                p.socket_drops,
                refused.oversize,
                refused.runts,
                p.held,
                p.held_ns
            ));
        }
        s.push_str("}}\n");
        s
    }

    /// The statistics to their file, replaced atomically; the captures flushed, so what they
    /// hold so far can be read.
    fn write_stats(&mut self) {
        self.read_socket_drops();
        for c in self.captures.iter_mut().flatten() {
            c.flush();
        }
        self.seq += 1;
        let tmp = format!("{}.tmp", self.stats_path);
        let text = self.stats_json();
        let ok = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .and_then(|_| std::fs::rename(&tmp, &self.stats_path));
        if let Err(e) = ok {
            eprintln!("beowulf-medium: cannot write statistics to {}: {}", self.stats_path, e);
        }
    }
}

// ---- the loop ----

/// The loop's descriptors: epoll over every port (data: its index), the timer (n), the
/// signals (n + 1).
struct Fds {
    ep: i32,
    tfd: i32,
    sfd: i32,
    n: u64,
}

/// Signals through a signalfd, so they are events of the loop like any other.
fn open_loop(ports: &[Port]) -> Fds {
    let sfd = unsafe {
        let mut set: libc::sigset_t = mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGUSR1] {
            libc::sigaddset(&mut set, s);
        }
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        libc::signalfd(-1, &set, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC)
    };
    let tfd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if sfd < 0 || tfd < 0 || ep < 0 {
        die(&format!("signalfd/timerfd/epoll: {}", errno()));
    }
    let n = ports.len() as u64;
    let add = |fd: i32, data: u64| unsafe {
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: data };
        libc::epoll_ctl(ep, libc::EPOLL_CTL_ADD, fd, &mut ev);
    };
    for (i, p) in ports.iter().enumerate() {
        add(p.fd, i as u64);
    }
    add(tfd, n);
    add(sfd, n + 1);
    Fds { ep, tfd, sfd, n }
}

/// Whether a frame or signal is waiting (a zero-timeout poll of the epoll set, which the spin
/// asks between its clock reads).
fn readable(ep: i32) -> bool {
    let mut p = libc::pollfd { fd: ep, events: libc::POLLIN, revents: 0 };
    unsafe { libc::poll(&mut p, 1, 0) > 0 }
}

/// The timer's wake-up lateness, which sets how early it is armed before a release.
struct Waking {
    armed: Ns,
    lateness_ewma: f64, // ns, running mean
    max_early_ns: Ns,
}

impl Waking {
    fn fired(&mut self, tfd: i32) {
        let mut x = [0u8; 8];
        unsafe { libc::read(tfd, x.as_mut_ptr() as *mut libc::c_void, 8) };
        let late = mono().saturating_sub(self.armed) as f64;
        self.lateness_ewma += (late.min(1e6) - self.lateness_ewma) / 16.0;
        self.armed = 0;
    }

    fn early(&self) -> Ns {
        ((2.0 * self.lateness_ewma) as Ns).min(self.max_early_ns)
    }
}

/// The signals waiting: SIGUSR1 writes the statistics; any other ends the engine.
fn on_signals(eng: &mut Engine, sfd: i32) {
    let mut si: libc::signalfd_siginfo = unsafe { mem::zeroed() };
    while unsafe { libc::read(sfd, &mut si as *mut _ as *mut libc::c_void, mem::size_of::<libc::signalfd_siginfo>()) } > 0 {
        if si.ssi_signo != libc::SIGUSR1 as u32 {
            eng.shut_down();
            exit(0);
        }
        eng.write_stats();
    }
}

/// How the loop goes on: at once without asking epoll (a spin just found nothing to read: a
/// syscall saved per release at a saturated wire), asking epoll without waiting, or waiting.
#[derive(Clone, Copy)]
enum Next {
    Go,
    Poll,
    Sleep,
}

/// What is due next: spin for it if it is that close, else sleep on the timer.
fn schedule_next(eng: &mut Engine, fds: &Fds, waking: &mut Waking) -> Next {
    let early = waking.early();
    eng.early_ns = early;
    let next = match eng.core.model.next_deadline() {
        Some(next) => next,
        None if !eng.repeats.is_empty() => {
            eng.send_repeats(REPEAT_BATCH);
            return Next::Poll;
        }
        None => return Next::Sleep,
    };
    // the model's bookkeeping may run late (it keeps virtual time); only a release is worth a
    // spin, so the timer is armed early only for the next possible output
    let out = eng.core.model.next_output().unwrap_or(Ns::MAX);
    let now = mono();
    let wake = next.min(out.saturating_sub(early));
    if next <= now {
        return Next::Poll;
    }
    if !eng.repeats.is_empty() && out.saturating_sub(now) > REPEAT_SLACK_NS {
        eng.send_repeats(REPEAT_BATCH);
        return Next::Poll;
    }
    if out > now && out - now <= early {
        // near enough: spin, unless a frame arrives meanwhile (it may change what is next)
        let until = out.min(next); // an earlier bookkeeping event may bring a release forward
        let mut arrived = false;
        while mono() < until {
            if readable(fds.ep) {
                arrived = true;
                break;
            }
            std::hint::spin_loop();
        }
        eng.spin_ns += mono() - now;
        return if arrived { Next::Poll } else { Next::Go };
    }
    if wake != waking.armed {
        let its = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec { tv_sec: (wake / 1_000_000_000) as i64, tv_nsec: (wake % 1_000_000_000) as i64 },
        };
        unsafe { libc::timerfd_settime(fds.tfd, libc::TFD_TIMER_ABSTIME, &its, std::ptr::null_mut()) };
        waking.armed = wake;
    }
    Next::Sleep
}

fn run(mut eng: Engine, fds: Fds, max_early_ns: Ns) -> ! {
    let mut events: Vec<libc::epoll_event> = vec![libc::epoll_event { events: 0, u64: 0 }; 64];
    let mut outs: Vec<Output> = Vec::new();
    let mut waking = Waking { armed: 0, lateness_ewma: 20_000.0, max_early_ns };
    let mut next = Next::Sleep;
    let capturing = eng.captures.iter().any(|c| c.is_some());
    loop {
        let k = match next {
            Next::Go => 0,
            Next::Poll => unsafe { libc::epoll_wait(fds.ep, events.as_mut_ptr(), events.len() as i32, 0) },
            Next::Sleep => unsafe { libc::epoll_wait(fds.ep, events.as_mut_ptr(), events.len() as i32, -1) },
        };
        if k < 0 {
            if errno().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            die(&format!("epoll_wait: {}", errno()));
        }
        eng.wakeups += 1;
        let offset = mono_minus_real();
        for e in &events[..k as usize] {
            let d = e.u64;
            if d < fds.n && e.events & (libc::EPOLLERR | libc::EPOLLHUP) as u32 != 0 {
                // its interface went away (the run's teardown): nothing left to carry
                eng.shut_down();
                die(&format!("port {} went away", eng.ports[d as usize].name));
            } else if d < fds.n {
                eng.read_port(d as usize, offset);
            } else if d == fds.n {
                waking.fired(fds.tfd);
                eng.timer_wakeups += 1;
            } else {
                on_signals(&mut eng, fds.sfd);
            }
        }
        let now = mono();
        eng.ingest(now);
        eng.core.model.advance(now, &mut outs);
        if capturing {
            eng.capture();
        }
        eng.release(&mut outs);
        next = schedule_next(&mut eng, &fds, &mut waking);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{}", USAGE);
        return;
    }
    let opts = parse_args(&args);
    let text = std::fs::read_to_string(&opts.config_path).unwrap_or_else(|e| die(&format!("{}: {}", opts.config_path, e)));
    let cfg = config::parse(&text).unwrap_or_else(|e| die(&format!("{}: {}", opts.config_path, e)));
    tie_to_parent();
    let cpu_latency = hold_cpu_latency(opts.cpu_latency_us);
    let sched = realtime(opts.fifo);

    let segments: Vec<String> = cfg.segments.iter().map(|(n, _)| n.clone()).collect();
    let ports: Vec<Port> = cfg.ports.iter().map(|(n, p)| open_port(n, p.segment)).collect();
    let mut model = Model::new(
        cfg.segments.iter().map(|(_, s)| s.clone()).collect(),
        cfg.ports.iter().map(|(_, p)| p.clone()).collect(),
        cfg.seed,
    )
    .unwrap_or_else(|e| die(&e));
    let (captures, capture_paths) = open_captures(&opts, &segments, &mut model);
    let fds = open_loop(&ports);
    let mut eng = Engine {
        core: Core::new(model),
        ports,
        segments,
        lag: Hist::default(),
        seq: 0,
        wakeups: 0,
        frames_no_timestamp: 0,
        repeated: 0,
        timer_wakeups: 0,
        early_ns: 0,
        spin_ns: 0,
        sched,
        cpu_latency,
        started: mono(),
        stats_path: opts.stats_path.clone(),
        captures,
        capture_paths,
        rx: RxBatch::new(),
        arrivals: Vec::new(),
        run: Vec::with_capacity(TX_BATCH),
        tx_iovs: Vec::with_capacity(TX_BATCH),
        tx_hdrs: Vec::with_capacity(TX_BATCH),
        wire_log: Vec::new(),
        repeats: VecDeque::new(),
    };
    eng.write_stats(); // seq 1: the engine is up and every port is open
    run(eng, fds, opts.max_early_ns)
}
