//! What a hub repeating every frame to every port costs the engine, against the learning table it
//! replaced (one copy per unicast frame to a learned address). Two parts, neither builds a network:
//! - the model and the shell's own work per frame, in virtual time (no I/O): N stations of one
//!   hub, 64 B frames, each delivered to all N - 1 others or to one;
//! - with `--send IFACE` (root), the kernel's work per copy: AF_PACKET sends of frames no card on
//!   IFACE accepts (PACKET_OTHERHOST, dropped where the receiving stack starts), as the engine's
//!   extra copies are. On `lo` this builds nothing and disturbs nobody's network.
//!
//! `cargo run --release --example repeat_cost [-- --send lo]`
use medium::model::{Model, Ns, Output, PortConfig, SegmentConfig};
use medium::shell::Core;
use std::time::Instant;

fn hub(n: usize) -> Model {
    let seg = SegmentConfig { rate_bps: 100_000_000, full_duplex: false, csma: true, prop_ns: 1140, repeater_ns: 460 };
    let ports = (0..n).map(|_| PortConfig { segment: 0, queue_frames: 100, ..Default::default() }).collect();
    Model::new(vec![seg], ports, 1).unwrap()
}

fn frame(dst: u8, src: u8, len: usize) -> Vec<u8> {
    let mut f = vec![0u8; len];
    f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, dst]);
    f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, src]);
    f[12] = 0x08;
    f
}

/// ns of CPU per frame put through the model, every frame to all others or to one (station
/// i sends to i + 1), frames 10 us apart (the wire never saturates: no drops to flatter either).
fn model_ns_per_frame(n: usize, to_all: bool, frames: u64) -> f64 {
    let mut core = Core::new(hub(n));
    let mut out: Vec<Output> = Vec::new();
    let start = Instant::now();
    let mut t: Ns = 0;
    for i in 0..frames {
        t += 10_000;
        let src = (i as usize) % n;
        let dst = (src + 1) % n;
        let bytes = frame(dst as u8, src as u8, 64);
        if to_all {
            let _ = core.ingest(t, src, 64, bytes);
        } else {
            let h = core.slab.put(bytes, 1, t, Some(dst as u16));
            core.model.arrive(t, src, h, 64, vec![dst as u16]);
        }
        core.model.advance(t, &mut out);
        for o in out.drain(..) {
            core.settle(&o);
        }
    }
    core.model.advance(t + 1_000_000_000, &mut out);
    start.elapsed().as_nanos() as f64 / frames as f64
}

/// ns per AF_PACKET send of a `len`-byte frame addressed to nobody on `iface`.
fn send_ns(iface: &str, len: usize, count: u32) -> f64 {
    let name = std::ffi::CString::new(iface).unwrap();
    let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
    assert!(ifindex != 0, "no interface {}", iface);
    let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
    assert!(fd >= 0, "AF_PACKET socket: {} (root needed)", std::io::Error::last_os_error());
    let one: i32 = 1;
    unsafe { libc::setsockopt(fd, libc::SOL_PACKET, 20, &one as *const i32 as *const libc::c_void, 4) }; // QDISC_BYPASS, as the engine
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_ifindex = ifindex as i32;
    let rc = unsafe { libc::bind(fd, &sll as *const libc::sockaddr_ll as *const libc::sockaddr, std::mem::size_of::<libc::sockaddr_ll>() as u32) };
    assert!(rc == 0, "bind: {}", std::io::Error::last_os_error());
    let f = frame(0xfe, 0xfd, len);
    let start = Instant::now();
    let mut errors = 0;
    for _ in 0..count {
        if unsafe { libc::send(fd, f.as_ptr() as *const libc::c_void, f.len(), 0) } < 0 {
            errors += 1;
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / count as f64;
    unsafe { libc::close(fd) };
    assert!(errors == 0, "{} sends failed", errors);
    ns
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iface = args.iter().position(|a| a == "--send").map(|i| args[i + 1].clone());
    println!("model + shell, ns of CPU per 64 B frame (best of 3):");
    println!("stations  to one  to all  extra per extra copy");
    for &n in &[2usize, 4, 8, 16] {
        let best = |all: bool| (0..3).map(|_| model_ns_per_frame(n, all, 200_000)).fold(f64::MAX, f64::min);
        let (one, all) = (best(false), best(true));
        let per = if n > 2 { (all - one) / (n - 2) as f64 } else { 0.0 };
        println!("{:8}  {:6.0}  {:6.0}  {:.0}", n, one, all, per);
    }
    if let Some(iface) = iface {
        for &len in &[64usize, 1514] {
            let best = (0..3).map(|_| send_ns(&iface, len, 100_000)).fold(f64::MAX, f64::min);
            println!("AF_PACKET send of a {} B frame nobody on {} accepts: {:.0} ns (best of 3 x 100,000)", len, iface, best);
        }
    }
}
