//! The model alone, in virtual time: N always-ready stations on one hub, frames of one size;
//! prints the share of the wire's time that delivered frames used (preamble and gap counted, as
//! csma.md's perfect arbiter does), collisions and excessive-collision drops per station, and the
//! spread of the stations' shares, beside Metcalfe-Boggs. `cargo run --release --example hub`.
use medium::model::{bits_ns, default_repeater_ns, wire_bytes, Model, PortConfig, SegmentConfig};

fn metcalfe_boggs(q: f64, wire: f64) -> f64 {
    let a = if q <= 1.0 { 1.0 } else { (1.0 - 1.0 / q).powf(q - 1.0) };
    let w = (1.0 - a) / a;
    wire / (wire + 64.0 * w)
}

fn main() {
    let rate = 10_000_000u64;
    let horizon: u64 = 20_000_000_000; // 20 s of virtual time
    println!("stations  frame  efficiency  Metcalfe-Boggs  collisions/frame  dropped(16)  share max/min");
    for &len in &[60u64, 1514] {
        for &n in &[2usize, 8, 16] {
            let seg = SegmentConfig { rate_bps: rate, full_duplex: false, csma: true, prop_ns: 1140,
                                      repeater_ns: default_repeater_ns(rate, false) };
            let ports = (0..n).map(|_| PortConfig { segment: 0, queue_frames: 100, ..Default::default() }).collect();
            let mut m = Model::new(vec![seg], ports, 42).unwrap();
            let mut out = Vec::new();
            let mut t = 0;
            let mut h = 0u64;
            while t < horizon {
                for p in 0..n {
                    for _ in m.queued(p)..20 {
                        h += 1;
                        let dst = ((p + 1) % n) as u16;
                        m.arrive(t, p, h, len, vec![dst]);
                    }
                }
                t += 200_000;
                m.advance(t, &mut out);
                out.clear();
            }
            let st = m.segment_stats(0);
            let eff = (st.frames * bits_ns(wire_bytes(len) * 8, rate)) as f64 / horizon as f64;
            let sent: Vec<u64> = (0..n).map(|p| m.port_stats(p).frames_sent).collect();
            let drops: u64 = (0..n).map(|p| m.port_stats(p).drops_collisions).sum();
            let coll: u64 = (0..n).map(|p| m.port_stats(p).collisions).sum();
            let (mx, mn) = (*sent.iter().max().unwrap() as f64, *sent.iter().min().unwrap().max(&1) as f64);
            println!("{:8}  {:5}  {:10.3}  {:14.3}  {:16.3}  {:10.2}%  {:.2}",
                     n, len + 4, eff, metcalfe_boggs(n as f64, wire_bytes(len) as f64), coll as f64 / st.frames as f64,
                     100.0 * drops as f64 / (drops + st.frames) as f64, mx / mn);
        }
    }
}
