//! The engine's configuration: a text file, one item a line, written by the Python side
//! (beowulf_netlab/netlab/medium.py), so the engine needs no parser crate and a person can read it:
//!
//! ```text
//! seed 42
//! segment w0 rate_bps=10000000 duplex=half csma=1 prop_ns=1000 [repeater_ns=1000]
//! port bnl00w0-eth1 segment=w0 queue=100 tx_delay_ns=0 rx_delay_ns=0 ps_per_byte=0 tx_gap_ns=0 load_ps_per_byte=0 buffers=1
//! port bnl00b0-eth1 segment=c0 ... fwd_ps_per_byte=59000 fwd_delay_ns=0 own=10.0.0.1
//! ```
//!
//! Unknown keys, missing values and out-of-range numbers are errors: a typo must not run a
//! different medium than the one asked for. A segment without `repeater_ns` has the model's
//! default (model::default_repeater_ns: a hub's repeater, none on a full-duplex segment).
use crate::model::{default_repeater_ns, PortConfig, SegmentConfig};

#[derive(Debug, Default)]
pub struct Config {
    pub seed: u64,
    pub segments: Vec<(String, SegmentConfig)>,
    pub ports: Vec<(String, PortConfig)>,
}

const MAX_RATE_BPS: u64 = 10_000_000_000;
const MAX_DELAY_NS: u64 = 10_000_000_000;

/// A dotted IPv4 address, four numbers 0-255 and nothing else.
fn ipv4(value: &str) -> Result<[u8; 4], String> {
    let parts: Vec<&str> = value.split('.').collect();
    let bad = || format!("own={}: not an IPv4 address (a.b.c.d)", value);
    if parts.len() != 4 {
        return Err(bad());
    }
    let mut ip = [0u8; 4];
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        ip[i] = p.parse().map_err(|_| bad())?;
    }
    Ok(ip)
}

fn number(key: &str, value: &str, max: u64) -> Result<u64, String> {
    let n: u64 = value.parse().map_err(|_| format!("{}={}: not a whole number", key, value))?;
    if n > max {
        return Err(format!("{}={}: more than {}", key, value, max));
    }
    Ok(n)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 15 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
}

pub fn parse(text: &str) -> Result<Config, String> {
    let mut cfg = Config::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |e: String| format!("line {}: {}", i + 1, e);
        let mut words = line.split_whitespace();
        let kind = words.next().unwrap_or("");
        match kind {
            "seed" => {
                let v = words.next().ok_or_else(|| at("seed needs a value".into()))?;
                cfg.seed = number("seed", v, u64::MAX).map_err(at)?;
            }
            "segment" | "port" => {
                let name = words.next().ok_or_else(|| at(format!("{} needs a name", kind)))?;
                if !valid_name(name) {
                    return Err(at(format!("bad name {:?}", name)));
                }
                let mut seg = SegmentConfig { rate_bps: 0, full_duplex: false, csma: true, prop_ns: 0, repeater_ns: 0 };
                let mut repeater: Option<u64> = None;
                let mut port = PortConfig { segment: usize::MAX, queue_frames: 100, ..Default::default() };
                for kv in words {
                    let (k, v) = match kv.split_once('=') {
                        Some(p) => p,
                        None => return Err(at(format!("{:?} is not key=value", kv))),
                    };
                    match (kind, k) {
                        ("segment", "rate_bps") => seg.rate_bps = number(k, v, MAX_RATE_BPS).map_err(at)?,
                        ("segment", "duplex") => {
                            seg.full_duplex = match v {
                                "full" => true,
                                "half" => false,
                                _ => return Err(at(format!("duplex={}: full or half", v))),
                            }
                        }
                        ("segment", "csma") => seg.csma = number(k, v, 1).map_err(at)? == 1,
                        ("segment", "prop_ns") => seg.prop_ns = number(k, v, 1_000_000).map_err(at)?,
                        ("segment", "repeater_ns") => repeater = Some(number(k, v, 1_000_000).map_err(at)?),
                        ("port", "segment") => {
                            port.segment = cfg
                                .segments
                                .iter()
                                .position(|(n, _)| n == v)
                                .ok_or_else(|| at(format!("segment={}: no such segment (segments come first)", v)))?
                        }
                        ("port", "queue") => port.queue_frames = number(k, v, 100_000).map_err(at)? as usize,
                        ("port", "tx_delay_ns") => port.tx_delay_ns = number(k, v, MAX_DELAY_NS).map_err(at)?,
                        ("port", "rx_delay_ns") => port.rx_delay_ns = number(k, v, MAX_DELAY_NS).map_err(at)?,
                        ("port", "ps_per_byte") => port.ps_per_byte = number(k, v, 1_000_000_000).map_err(at)?,
                        ("port", "tx_gap_ns") => port.tx_gap_ns = number(k, v, MAX_DELAY_NS).map_err(at)?,
                        ("port", "load_ps_per_byte") => port.load_ps_per_byte = number(k, v, 1_000_000_000).map_err(at)?,
                        ("port", "buffers") => port.buffers = number(k, v, 64).map_err(at)? as usize,
                        ("port", "fwd_ps_per_byte") => port.fwd_ps_per_byte = number(k, v, 1_000_000_000).map_err(at)?,
                        ("port", "fwd_delay_ns") => port.fwd_delay_ns = number(k, v, MAX_DELAY_NS).map_err(at)?,
                        ("port", "own") => port.own_ip = Some(ipv4(v).map_err(at)?),
                        _ => return Err(at(format!("{} has no key {:?}", kind, k))),
                    }
                }
                if kind == "segment" {
                    if seg.rate_bps == 0 {
                        return Err(at(format!("segment {} needs rate_bps > 0", name)));
                    }
                    seg.repeater_ns = repeater.unwrap_or_else(|| default_repeater_ns(seg.rate_bps, seg.full_duplex));
                    if cfg.segments.iter().any(|(n, _)| n == name) {
                        return Err(at(format!("segment {} twice", name)));
                    }
                    cfg.segments.push((name.to_string(), seg));
                } else {
                    if port.segment == usize::MAX {
                        return Err(at(format!("port {} needs segment=", name)));
                    }
                    if port.queue_frames == 0 {
                        return Err(at(format!("port {}: queue must be at least 1", name)));
                    }
                    if cfg.ports.iter().any(|(n, _)| n == name) {
                        return Err(at(format!("port {} twice", name)));
                    }
                    cfg.ports.push((name.to_string(), port));
                }
            }
            _ => return Err(at(format!("unknown item {:?}", kind))),
        }
    }
    if cfg.ports.is_empty() {
        return Err("no ports".into());
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relays_port_names_its_copy_and_its_address() {
        let c = parse("segment w0 rate_bps=10000000\nport a segment=w0 fwd_ps_per_byte=59000 own=10.0.0.1\n").unwrap();
        assert_eq!(c.ports[0].1.fwd_ps_per_byte, 59_000);
        assert_eq!(c.ports[0].1.own_ip, Some([10, 0, 0, 1]));
        for bad in ["10.0.0", "10.0.0.256", "10.0.0.1.2", "10.0.0.x", "10.0.0.1\n", "+1.0.0.1", ""] {
            assert!(ipv4(bad).is_err(), "{:?}", bad);
        }
    }

    #[test]
    fn parses_a_network() {
        let c = parse("seed 5\nsegment w0 rate_bps=10000000 duplex=half csma=1 prop_ns=1000 # hub\n\
                       port a-eth0 segment=w0 tx_delay_ns=90000 ps_per_byte=248000\nport b-eth0 segment=w0 queue=7\n")
            .unwrap();
        assert_eq!(c.seed, 5);
        assert_eq!(c.segments[0].1.rate_bps, 10_000_000);
        assert!(!c.segments[0].1.full_duplex);
        assert_eq!(c.ports[0].1.tx_delay_ns, 90_000);
        assert_eq!(c.ports[0].1.ps_per_byte, 248_000);
        assert_eq!(c.ports[1].1.queue_frames, 7);
        // no repeater_ns: a 10 Mbit/s hub's repeater, 10 bit times
        assert_eq!(c.segments[0].1.repeater_ns, 1_000);
    }

    #[test]
    fn a_hub_has_its_repeaters_delay_unless_told_and_a_full_duplex_port_none() {
        let c = parse("segment h10 rate_bps=10000000\nsegment h100 rate_bps=100000000\n\
                       segment fd rate_bps=100000000 duplex=full\nsegment coax rate_bps=10000000 repeater_ns=0\n\
                       port a segment=h10\n")
            .unwrap();
        let rep: Vec<u64> = c.segments.iter().map(|(_, s)| s.repeater_ns).collect();
        assert_eq!(rep, vec![1_000, 460, 0, 0]);
        assert_eq!(c.segments[1].1.path_ns(), 460);
    }

    #[test]
    fn refuses_what_it_does_not_know() {
        for bad in [
            "segment w0 rate_bps=10 speed=3\nport a segment=w0",
            "port a segment=w9",
            "segment w0 rate_bps=0\nport a segment=w0",
            "segment w0 rate_bps=10 duplex=quarter\nport a segment=w0",
            "segment w0 rate_bps=-1\nport a segment=w0",
            "segment w0 rate_bps=10\nport a segment=w0 queue=0",
            "segment w0 rate_bps=10\nport ../etc segment=w0",
            "segment w0 rate_bps=10\nport a segment=w0\nport a segment=w0",
            "frob",
            "",
        ] {
            assert!(parse(bad).is_err(), "{:?}", bad);
        }
    }
}
