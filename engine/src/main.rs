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
//! What the shell does with a frame before the model times it is shell.rs (pure, tested): it
//! refuses runts and frames over 802.3's maximum (counted per port: `runts`, `oversize`), and
//! sends every frame to every other port of its segment (a hub repeats all; each card keeps its
//! own). Where an address was last heard (bounded, aged hints) only orders the copies: a unicast
//! frame's copy to its addressee's port goes with the batch's kept copies, first, and counts in
//! the release `lag`; the copies its card would drop follow the batch (`repeated_copies`). No
//! source address, however spoofed, decides who gets a frame. A frame read after the model has passed its
//! arrival time is taken at the model's now and its lateness recorded (`late_arrival_lag`,
//! beside the release `lag`); the kernel's own drops on each port's socket (PACKET_STATISTICS,
//! which resets on read, summed here) are `socket_drops`, beside `send_errors`.
//!
//! Usage: beowulf-medium --config FILE --stats FILE [--fifo PRIORITY] [--max-early-us N] [--cpu-latency-us N]
//! SIGUSR1 writes the statistics (FILE, replaced atomically, with an increasing `seq`); SIGTERM,
//! SIGINT and SIGHUP write them and exit.
use medium::config;
use medium::model::{Model, Ns, Output};
use medium::shell::{Core, Hist, MAX_TAGGED_FRAME};
use std::ffi::CString;
use std::io::Write;
use std::mem;
use std::process::exit;

// a read buffer longer than any frame the shell accepts: a longer one is read truncated and
// its real length (MSG_TRUNC) refuses it
const READ_BUFFER: usize = MAX_TAGGED_FRAME + 512;

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
    // rest being the host's own path (run/hostpath.py reads it)
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

/// One received frame into `buf` (what fits of it): its real length and its kernel timestamp
/// (realtime ns), or None when drained.
fn recv_frame(fd: i32, buf: &mut [u8]) -> Option<(usize, Option<Ns>)> {
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
    let mut cbuf = [0u64; 16];
    let mut msg: libc::msghdr = unsafe { mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = mem::size_of_val(&cbuf) as _;
    let n = unsafe { libc::recvmsg(fd, &mut msg, libc::MSG_TRUNC) };
    if n < 0 {
        return None;
    }
    let mut ts = None;
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let t = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                ts = Some(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64);
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Some((n as usize, ts))
}

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

    /// Send what the model says is due: the copies cards keep first, then the ones a hub merely
    /// repeats (their lateness harms nobody, so they wait behind every kept copy of the batch).
    fn release(&mut self, outs: &mut Vec<Output>) {
        for kept in [true, false] {
            for o in outs.iter() {
                if let Output::Deliver { handle, port, due } = *o {
                    let held = self.core.slab.get(handle);
                    if held.counts(port) != kept {
                        continue;
                    }
                    let now = mono();
                    let rc = unsafe {
                        libc::send(self.ports[port].fd, held.bytes.as_ptr() as *const libc::c_void, held.bytes.len(), libc::MSG_DONTWAIT)
                    };
                    if rc < 0 {
                        self.ports[port].send_errors += 1;
                    }
                    if kept {
                        self.lag.record(now.saturating_sub(due));
                    } else {
                        self.repeated += 1;
                    }
                    self.ports[port].held_ns += now.saturating_sub(held.arrival) as u128;
                    self.ports[port].held += 1;
                }
            }
        }
        for o in outs.drain(..) {
            self.core.settle(&o);
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
        s.push_str(&format!(" \"lag\": {},\n \"late_arrival_lag\": {},\n \"segments\": {{", self.lag.json(), self.core.late_lag.json()));
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

    fn write_stats(&mut self) {
        self.read_socket_drops();
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

/// Whether a frame or signal is waiting (a zero-timeout poll of the epoll set, which the spin
/// asks between its clock reads).
fn readable(ep: i32) -> bool {
    let mut p = libc::pollfd { fd: ep, events: libc::POLLIN, revents: 0 };
    unsafe { libc::poll(&mut p, 1, 0) > 0 }
}

fn arg_value(args: &[String], flag: &str) -> Option<String> {
    args.iter().position(|a| a == flag).map(|i| args.get(i + 1).cloned().unwrap_or_else(|| die(&format!("{} needs a value", flag))))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("usage: beowulf-medium --config FILE --stats FILE [--fifo PRIORITY] [--max-early-us N] [--cpu-latency-us N]\n\
                  Runs the segments and ports FILE names (see engine/src/config.rs); SIGUSR1 writes statistics.");
        return;
    }
    let config_path = arg_value(&args, "--config").unwrap_or_else(|| die("--config FILE is required"));
    let stats_path = arg_value(&args, "--stats").unwrap_or_else(|| die("--stats FILE is required"));
    let fifo: i32 = arg_value(&args, "--fifo").map(|v| v.parse().unwrap_or_else(|_| die("--fifo takes a priority 1..99"))).unwrap_or(0);
    let max_early_ns: Ns = arg_value(&args, "--max-early-us")
        .map(|v| v.parse::<u64>().unwrap_or_else(|_| die("--max-early-us takes whole us")) * 1000)
        .unwrap_or(100_000);
    let text = std::fs::read_to_string(&config_path).unwrap_or_else(|e| die(&format!("{}: {}", config_path, e)));
    let cfg = config::parse(&text).unwrap_or_else(|e| die(&format!("{}: {}", config_path, e)));

    // the engine never outlives the run that started it (a SIGKILLed run leaves no engine)
    let parent = unsafe { libc::getppid() };
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0) };
    if unsafe { libc::getppid() } != parent || parent == 1 {
        die("its parent has already gone");
    }
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
    // keep idle cores out of their deep idle states while the engine runs (the kernel's PM QoS
    // request, what cyclictest does): a halted core, and a halted virtual CPU above all, wakes tens
    // of us late; the request ends with this process, so a killed engine leaves nothing behind
    let cpu_latency = arg_value(&args, "--cpu-latency-us")
        .map(|v| v.parse::<i32>().unwrap_or_else(|_| die("--cpu-latency-us takes whole us")))
        .and_then(|us| {
            let path = CString::new("/dev/cpu_dma_latency").unwrap();
            let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW) };
            let ok = fd >= 0 && unsafe { libc::write(fd, &us as *const i32 as *const libc::c_void, 4) } == 4;
            if !ok && fd >= 0 {
                unsafe { libc::close(fd) };
            }
            if ok { Some(us) } else { None } // the fd stays open (and the request held) until exit
        });
    let mut sched = "other".to_string();
    if fifo > 0 {
        let p = libc::sched_param { sched_priority: fifo.min(99) };
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } == 0 {
            sched = format!("fifo:{}", fifo.min(99));
        }
    }

    let segments: Vec<String> = cfg.segments.iter().map(|(n, _)| n.clone()).collect();
    let ports: Vec<Port> = cfg.ports.iter().map(|(n, p)| open_port(n, p.segment)).collect();
    let model = Model::new(
        cfg.segments.iter().map(|(_, s)| s.clone()).collect(),
        cfg.ports.iter().map(|(_, p)| p.clone()).collect(),
        cfg.seed,
    )
    .unwrap_or_else(|e| die(&e));
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
        stats_path,
    };

    // signals through a signalfd, so they are events of the loop like any other
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
    let n = eng.ports.len() as u64;
    let add = |fd: i32, data: u64| unsafe {
        let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: data };
        libc::epoll_ctl(ep, libc::EPOLL_CTL_ADD, fd, &mut ev);
    };
    for (i, p) in eng.ports.iter().enumerate() {
        add(p.fd, i as u64);
    }
    add(tfd, n);
    add(sfd, n + 1);
    eng.write_stats(); // seq 1: the engine is up and every port is open

    let mut buf = vec![0u8; READ_BUFFER];
    let mut events: Vec<libc::epoll_event> = vec![libc::epoll_event { events: 0, u64: 0 }; 64];
    let mut arrivals: Vec<(Ns, usize, usize, Vec<u8>)> = Vec::new();
    let mut outs: Vec<Output> = Vec::new();
    let mut armed: Ns = 0;
    let mut timeout: i32 = -1;
    let mut lateness_ewma: f64 = 20_000.0; // ns; the timer's wake-up lateness, running mean
    loop {
        let k = unsafe { libc::epoll_wait(ep, events.as_mut_ptr(), events.len() as i32, timeout) };
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
            if d < n && e.events & (libc::EPOLLERR | libc::EPOLLHUP) as u32 != 0 {
                // its interface went away (the run's teardown): nothing left to carry
                eng.write_stats();
                die(&format!("port {} went away", eng.ports[d as usize].name));
            }
            if d < n {
                let port = d as usize;
                while let Some((len, ts)) = recv_frame(eng.ports[port].fd, &mut buf) {
                    let t = match ts {
                        Some(r) => (r as i128 + offset).max(0) as Ns,
                        None => {
                            eng.frames_no_timestamp += 1;
                            mono()
                        }
                    };
                    arrivals.push((t, port, len, buf[..len.min(buf.len())].to_vec()));
                }
            } else if d == n {
                let mut x = [0u8; 8];
                unsafe { libc::read(tfd, x.as_mut_ptr() as *mut libc::c_void, 8) };
                let late = mono().saturating_sub(armed) as f64;
                lateness_ewma += (late.min(1e6) - lateness_ewma) / 16.0;
                eng.timer_wakeups += 1;
                armed = 0;
            } else {
                let mut si: libc::signalfd_siginfo = unsafe { mem::zeroed() };
                while unsafe { libc::read(sfd, &mut si as *mut _ as *mut libc::c_void, mem::size_of::<libc::signalfd_siginfo>()) } > 0 {
                    eng.write_stats();
                    if si.ssi_signo != libc::SIGUSR1 as u32 {
                        eng.close_ports();
                        exit(0);
                    }
                }
            }
        }
        let now = mono();
        arrivals.sort_by_key(|a| a.0);
        for (t, port, len, bytes) in arrivals.drain(..) {
            let _ = eng.core.ingest(t.min(now), port, len, bytes); // a refused frame is counted there
        }
        eng.core.model.advance(now, &mut outs);
        eng.release(&mut outs);
        // what is due next: spin for it if it is that close, else sleep on the timer
        timeout = -1;
        let early = ((2.0 * lateness_ewma) as Ns).min(max_early_ns);
        eng.early_ns = early;
        if let Some(next) = eng.core.model.next_deadline() {
            // the model's bookkeeping may run late (it keeps virtual time); only a release is
            // worth a spin, so the timer is armed early only for the next possible output
            let out = eng.core.model.next_output().unwrap_or(Ns::MAX);
            let now = mono();
            let wake = next.min(out.saturating_sub(early));
            if next <= now {
                timeout = 0;
            } else if out > now && out - now <= early {
                // near enough: spin, unless a frame arrives meanwhile (it may change what is next)
                let t0 = now;
                let until = out.min(next); // an earlier bookkeeping event may bring a release forward
                while mono() < until && !readable(ep) {
                    std::hint::spin_loop();
                }
                eng.spin_ns += mono() - t0;
                timeout = 0;
            } else if wake != armed {
                let next = wake;
                let its = libc::itimerspec {
                    it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
                    it_value: libc::timespec { tv_sec: (next / 1_000_000_000) as i64, tv_nsec: (next % 1_000_000_000) as i64 },
                };
                unsafe { libc::timerfd_settime(tfd, libc::TFD_TIMER_ABSTIME, &its, std::ptr::null_mut()) };
                armed = next;
            }
        }
    }
}
