//! A load generator that is not the engine's limit: pre-built minimum frames sent in batches
//! (sendmmsg) on an AF_PACKET socket, straight to the interface (PACKET_QDISC_BYPASS), paced to
//! a rate, pinned to a core of its own; it reports what it offered, so a reader of the engine's
//! ceiling sees the generator kept its rate. Run it in the sending node's namespace on its card
//! (bench/engine.py does), as root:
//!
//!   blast --ifname b0-eth0[,b0-eth1...] --rate 200000 --seconds 5 [--len 60] [--dst MAC] [--src MAC] [--cpu 1] [--batch 32]
//!
//! Several interfaces share the rate, a batch each in turn (one station's cards on several wires).
//! Frames: `len` bytes as a host sees them (60: a minimum frame, 64 B on the wire with its FCS),
//! EtherType 0x88B5 (IEEE 802 local experimental), so a receiving kernel drops them on sight,
//! with a sequence number in the payload. Pacing: a batch goes once it is wholly due (bursts of
//! `batch` frames, as a switch flushing its queue sends them), spinning the last 100 us.
//! Prints one JSON line: target and offered rate, frames sent, refused by the kernel (ENOBUFS:
//! a full queue on the way), its CPU time.
use std::ffi::CString;
use std::mem;

fn die(msg: &str) -> ! {
    eprintln!("blast: {}", msg);
    std::process::exit(2)
}

fn mono() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn mac(text: &str) -> [u8; 6] {
    let parts: Vec<u8> = text.split(':').map(|h| u8::from_str_radix(h, 16).unwrap_or_else(|_| die(&format!("bad MAC {}", text)))).collect();
    parts.try_into().unwrap_or_else(|_| die(&format!("bad MAC {}", text)))
}

/// An AF_PACKET socket that sends on `ifname`, past its qdisc.
fn open_socket(ifname: &str) -> i32 {
    let cname = CString::new(ifname).unwrap();
    let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) };
    if ifindex == 0 {
        die(&format!("{}: no such interface", ifname));
    }
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        die(&format!("AF_PACKET socket: {} (root needed)", std::io::Error::last_os_error()));
    }
    let one: i32 = 1;
    unsafe { libc::setsockopt(fd, libc::SOL_PACKET, 20, &one as *const i32 as *const libc::c_void, 4) }; // PACKET_QDISC_BYPASS
    let mut sll: libc::sockaddr_ll = unsafe { mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_protocol = 0; // send only
    sll.sll_ifindex = ifindex as i32;
    if unsafe { libc::bind(fd, &sll as *const _ as *const libc::sockaddr, mem::size_of::<libc::sockaddr_ll>() as u32) } != 0 {
        die(&format!("bind {}: {}", ifname, std::io::Error::last_os_error()));
    }
    fd
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str| args.iter().position(|a| a == flag).map(|i| args.get(i + 1).cloned().unwrap_or_else(|| die(&format!("{} needs a value", flag))));
    let num = |flag: &str, default: f64| get(flag).map(|v| v.parse::<f64>().unwrap_or_else(|_| die(&format!("{} takes a number", flag)))).unwrap_or(default);
    let ifname = get("--ifname").unwrap_or_else(|| die("--ifname IF is required"));
    let rate = num("--rate", 100_000.0);
    let seconds = num("--seconds", 5.0);
    let len = (num("--len", 60.0) as usize).clamp(60, 1514);
    let batch = (num("--batch", 32.0) as usize).clamp(1, 1024);
    let dst = mac(&get("--dst").unwrap_or_else(|| "ff:ff:ff:ff:ff:ff".into()));
    let src = mac(&get("--src").unwrap_or_else(|| "02:00:00:00:00:fe".into()));
    if let Some(cpu) = get("--cpu") {
        let cpu: usize = cpu.parse().unwrap_or_else(|_| die("--cpu takes a core number"));
        unsafe {
            let mut set: libc::cpu_set_t = mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            if libc::sched_setaffinity(0, mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                die(&format!("--cpu {}: {}", cpu, std::io::Error::last_os_error()));
            }
        }
    }

    let fds: Vec<i32> = ifname.split(',').map(open_socket).collect();

    let mut frames: Vec<Vec<u8>> = (0..batch)
        .map(|_| {
            let mut f = vec![0u8; len];
            f[0..6].copy_from_slice(&dst);
            f[6..12].copy_from_slice(&src);
            f[12] = 0x88;
            f[13] = 0xB5;
            f
        })
        .collect();
    let mut iovs: Vec<libc::iovec> = frames.iter_mut().map(|f| libc::iovec { iov_base: f.as_mut_ptr() as *mut libc::c_void, iov_len: f.len() }).collect();
    let mut hdrs: Vec<libc::mmsghdr> = iovs
        .iter_mut()
        .map(|iov| {
            let mut h: libc::mmsghdr = unsafe { mem::zeroed() };
            h.msg_hdr.msg_iov = iov;
            h.msg_hdr.msg_iovlen = 1;
            h
        })
        .collect();

    let total = (rate * seconds) as u64;
    let ns_per_frame = 1e9 / rate;
    let (mut sent, mut refused, mut seq, mut turn) = (0u64, 0u64, 0u64, 0usize);
    let t0 = mono();
    while sent + refused < total {
        let done = sent + refused;
        let k = (batch as u64).min(total - done);
        // the batch's last frame is due at t0 + (done + k) / rate
        let due = t0 + ((done + k) as f64 * ns_per_frame) as u64;
        loop {
            let now = mono();
            if now >= due {
                break;
            }
            if due - now > 200_000 {
                let ts = libc::timespec { tv_sec: 0, tv_nsec: (due - now - 100_000) as i64 };
                unsafe { libc::nanosleep(&ts, std::ptr::null_mut()) };
            } else {
                std::hint::spin_loop();
            }
        }
        for f in frames.iter_mut().take(k as usize) {
            seq += 1;
            f[14..22].copy_from_slice(&seq.to_be_bytes());
        }
        let fd = fds[turn % fds.len()];
        turn += 1;
        let mut i = 0usize;
        while i < k as usize {
            let rc = unsafe { libc::sendmmsg(fd, hdrs[i..].as_mut_ptr(), (k as usize - i) as u32, 0) };
            if rc <= 0 {
                refused += 1; // this frame went nowhere (ENOBUFS); the rest still try
                i += 1;
            } else {
                sent += rc as u64;
                i += rc as usize;
            }
        }
    }
    let elapsed = (mono() - t0) as f64 / 1e9;
    let mut ru: libc::rusage = unsafe { mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let cpu = ru.ru_utime.tv_sec as f64 + ru.ru_utime.tv_usec as f64 / 1e6 + ru.ru_stime.tv_sec as f64 + ru.ru_stime.tv_usec as f64 / 1e6;
    println!(
        "{{\"ifname\": {:?}, \"len\": {}, \"batch\": {}, \"target_fps\": {:.0}, \"seconds\": {:.6}, \"sent\": {}, \"refused\": {}, \
         \"offered_fps\": {:.0}, \"cpu_s\": {:.6}}}",
        ifname, len, batch, rate, elapsed, sent, refused, sent as f64 / elapsed, cpu
    );
}
