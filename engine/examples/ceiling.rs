//! The engine's pure part alone (shell.rs's Core: refusals, hints, the slab; model.rs: the
//! medium), fed as the shell feeds it, without sockets: its own ceiling in frames per second of
//! one core, to read beside the whole engine's (bench/engine.py's ceiling, whose difference is
//! the I/O). Stations always have a minimum frame ready, arriving in bursts of 32 as from the
//! generator (examples/blast.rs); the shell's loop is walked at each next deadline.
//! `cargo run --release --example ceiling [SECONDS]` prints one JSON line per case.
use medium::model::{default_repeater_ns, Model, Ns, Output, PortConfig, SegmentConfig};
use medium::shell::Core;
use std::time::Instant;

fn case(stations: usize, rate: u64, horizon: Ns) -> (u64, u64, f64) {
    let seg = SegmentConfig { rate_bps: rate, full_duplex: false, csma: true, prop_ns: 1140, repeater_ns: default_repeater_ns(rate, false) };
    let ports = (0..stations).map(|_| PortConfig { segment: 0, queue_frames: 100, ..Default::default() }).collect();
    let mut core = Core::new(Model::new(vec![seg], ports, 1).unwrap());
    let frame = |dst: u8, src: u8| {
        let mut f = vec![0u8; 60];
        f[5] = dst;
        f[11] = src;
        f[0] = 2;
        f[6] = 2;
        f[12] = 0x88;
        f[13] = 0xB5;
        f
    };
    let mut outs: Vec<Output> = Vec::new();
    let (mut copies, mut now) = (0u64, 0);
    let start = Instant::now();
    while now < horizon {
        // every station tops its queue up in a burst once it runs low (senders offer more than the wire)
        for p in 0..stations {
            if core.model.queued(p) < 8 {
                for _ in 0..32 {
                    let _ = core.ingest(now, p, 60, frame(((p + 1) % stations) as u8, p as u8));
                }
            }
        }
        now = core.model.next_deadline().unwrap_or(now + 1_000).max(now + 1);
        core.model.advance(now, &mut outs);
        for o in outs.drain(..) {
            if matches!(o, Output::Deliver { .. }) {
                copies += 1;
            }
            core.settle(&o);
        }
    }
    let cpu = start.elapsed().as_secs_f64();
    (core.model.segment_stats(0).frames, copies, cpu)
}

fn main() {
    let seconds: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    for &(stations, rate) in &[(2usize, 100_000_000u64), (16, 100_000_000), (2, 1_000_000_000)] {
        let horizon = (seconds * 1e9) as Ns;
        let (frames, copies, cpu) = case(stations, rate, horizon);
        println!(
            "{{\"stations\": {}, \"rate_mbit\": {}, \"frame\": 64, \"virtual_s\": {}, \"frames\": {}, \"copies\": {}, \"cpu_s\": {:.4}, \
             \"frames_per_core_s\": {:.0}}}",
            stations, rate / 1_000_000, seconds, frames, copies, cpu, frames as f64 / cpu
        );
    }
}
