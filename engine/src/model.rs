//! The medium model: shared Ethernet segments and full-duplex links, timed per frame in virtual
//! time. Pure: no clock, no sockets, no allocation per event beyond the frame's own; the I/O shell
//! (main.rs) feeds it frames with their kernel arrival times and releases what it says is due.
//!
//! Division of labor: a *port* is one station's attachment to one segment (a node's card, or a
//! switch's port): it owns the card's transmit queue, its gap between frames and the latency a
//! frame pays before it queues (the sender's CPU and card path) and after it arrives (the
//! receiver's). A *segment* is the medium: half duplex (a hub or coax: one carrier at a time,
//! CSMA/CD when `csma`, a perfect round-robin arbiter otherwise) or full duplex (a switched port:
//! each port has a channel of its own, no contention).
//!
//! Wire time (IEEE 802.3): a frame of L bytes as the host sees it (header + payload, no FCS) is
//! padded to 60, gains 4 B FCS and 8 B preamble/SFD, and is followed by a 96-bit gap: it occupies
//! the medium for (max(L, 60) + 12) x 8 / C and the next carrier may start 96 bit times after it.
//! A frame reaches its receivers when its last bit does (plus the path delay below).
//!
//! Path delay: between any two stations of a half-duplex segment a signal takes the cable's
//! propagation delay (`prop_ns`) plus the hub's repeater delay (`repeater_ns`, REPEATER_BITS_*
//! below): a frame reaches its receivers that long after its last bit leaves, and a station
//! hears another's carrier that long after it starts. A full-duplex segment has no repeater.
//!
//! CSMA/CD (1-persistent, truncated binary exponential backoff): a station with a frame senses
//! the medium; busy -> it defers; idle (and the gap over) -> it contends at once. Every station
//! whose turn falls on one instant contends together, whatever order their events were queued
//! in: the deferrers when the gap after a carrier ends, any station whose own event falls on that
//! very nanosecond, and stations that find the wire idle at the same nanosecond (the segment's
//! Idle event, which runs after every other event of its instant, starts them all); two or more
//! collide (a perfect arbiter picks one, round robin). A station that starts within the path
//! delay of another's start has not heard it: they collide too. Colliders keep sending until the
//! preamble is out (64 bits), jam 32 bits, and after the n-th collision of a frame wait r slots
//! (512 bit times), r uniform in 0..2^min(n,10)-1, drawn in port order; after the 16th collision
//! the frame is dropped (excessive collisions).
//! A collision is decided retroactively: a frame's delivery is scheduled at its end, so a second
//! start inside the first's collision window turns the first into a collision before any of it
//! was released. The shell needs no lookahead as long as it reads a frame before the end of any
//! frame it could collide with (a minimum frame: 57.6 us at 10 Mbit/s).
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Virtual time, nanoseconds (the shell uses CLOCK_MONOTONIC).
pub type Ns = u64;

pub const MIN_FRAME: u64 = 60; // bytes without FCS, as a host sees a frame
pub const FCS: u64 = 4;
pub const PREAMBLE: u64 = 8; // preamble + SFD
pub const IFG_BITS: u64 = 96;
pub const SLOT_BITS: u64 = 512;
pub const JAM_BITS: u64 = 32;
pub const ATTEMPT_LIMIT: u32 = 16; // IEEE 802.3 attemptLimit
pub const BACKOFF_LIMIT: u32 = 10; // IEEE 802.3 backoffLimit

/// A hub's repeater delay (start of packet, one port in to another out), in bit times of its
/// segment; a path between two stations crosses the hub once. 10 Mbit/s (10BASE-T): 1.0 us, the
/// twisted-pair-to-twisted-pair start-of-packet delay a 1990s 10BASE-T hub's data sheet gives
/// (Cabletron SEH; its EMM-E6 repeater: 1.45 us at most); what IEEE 802.3 clause 9 allows a
/// repeater set is a budget maximum, not read here. Above 10 Mbit/s (100BASE-TX): a Class II
/// repeater, 92 bit times round trip in IEEE 802.3 clause 29's delay budget (Table 29-3), 46 each
/// way (460 ns); a Class I repeater is allowed 140. The configuration's `repeater_ns=` overrides it.
pub const REPEATER_BITS_10: u64 = 10;
pub const REPEATER_BITS_100: u64 = 46;

/// The repeater delay a segment has unless its configuration says otherwise: a hub's
/// (REPEATER_BITS_*), none on a full-duplex (point-to-point) segment.
pub fn default_repeater_ns(rate_bps: u64, full_duplex: bool) -> Ns {
    if full_duplex {
        0
    } else if rate_bps <= 10_000_000 {
        bits_ns(REPEATER_BITS_10, rate_bps)
    } else {
        bits_ns(REPEATER_BITS_100, rate_bps)
    }
}

#[derive(Clone, Debug)]
pub struct SegmentConfig {
    pub rate_bps: u64,
    pub full_duplex: bool,
    /// CSMA/CD on a half-duplex segment; false: a perfect arbiter (round robin, no collisions).
    pub csma: bool,
    /// The cable's propagation delay between any two stations.
    pub prop_ns: Ns,
    /// The hub's repeater delay (default_repeater_ns); with prop_ns, the path delay: a frame's
    /// last bit reaches the other stations this late, and a start this close after another's is
    /// not yet heard.
    pub repeater_ns: Ns,
}

impl SegmentConfig {
    /// Propagation plus repeater: the delay between any two stations.
    pub fn path_ns(&self) -> Ns {
        self.prop_ns + self.repeater_ns
    }
}

/// A host's time for `len` bytes at `ps_per_byte` picoseconds each, in ns.
pub fn bytes_time(len: u64, ps_per_byte: u64) -> Ns {
    len * ps_per_byte / 1000
}

#[derive(Clone, Debug, Default)]
pub struct PortConfig {
    pub segment: usize,
    /// The card's transmit queue, frames; a frame arriving to a full queue is dropped.
    pub queue_frames: usize,
    /// Latency before the frame reaches the card's queue (the sender's per-packet path).
    pub tx_delay_ns: Ns,
    /// Latency after the frame's last bit arrives, before the receiving host gets it.
    pub rx_delay_ns: Ns,
    /// Each byte of the frame adds this to either latency (the host's copies: a packet occupies
    /// its CPU for per_packet + bytes x per_byte, and leaves or arrives when that is done).
    pub ps_per_byte: u64,
    /// The card's gap: after a frame ends, its next frame cannot start for this long (the
    /// Tx-done interrupt's path before the driver hands the card its next frame).
    pub tx_gap_ns: Ns,
    /// The card's transmit buffers (frames in flight; 0 is taken as 1): a frame is loaded into
    /// a buffer (by the CPU's PIO on an ISA card, by DMA on a bus master) only once the frame
    /// that held it has left and its Tx-done interrupt has run (tx_gap), at load_ps_per_byte per
    /// byte; so frame i starts no earlier than end(i-1) + tx_gap, nor than end(i-buffers) +
    /// tx_gap + its load. A frame reaching an idle card was loaded during its sender's CPU time
    /// (tx_delay). Linux 1.2's 8390 drivers keep 2 (ping-pong), 1.3's tulip.c 1.
    pub buffers: usize,
    pub load_ps_per_byte: u64,
    /// A relay's forwarding copy (Linux 1.2's ip_forward copies every packet it forwards), per
    /// byte, added to the sender's latency of a frame the port's host forwards: one whose IPv4
    /// source is not `own_ip` (the shell decides; the model is told `forwarded`).
    pub fwd_ps_per_byte: u64,
    /// Added to a forwarded frame's latency beside the copy: what the per-packet delays of its
    /// two passes through this host had taken off for the endpoints' measured host path.
    pub fwd_delay_ns: Ns,
    /// The host's own IPv4 address, if the port belongs to a host that forwards.
    pub own_ip: Option<[u8; 4]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropWhy {
    QueueFull,
    ExcessCollisions,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Release `handle` on `port` (towards that port's host) at `due`.
    Deliver { handle: u64, port: usize, due: Ns },
    /// The frame will never be delivered: the shell frees it.
    Dropped { handle: u64, port: usize, why: DropWhy, at: Ns },
}

/// What a traced segment's wire did, in time order, for a capture (pcapng.rs): kept only for the
/// segments `trace` names, so an untraced model does no more work than before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireEvent {
    /// A frame's last bit left `port` at `end`, after `collisions` collisions of its own.
    Carried { seg: usize, port: usize, handle: u64, len: u64, end: Ns, collisions: u32 },
    /// A collision among `ports` (port order) ended at `end`, the jam and its path included.
    Collision { seg: usize, ports: Vec<usize>, end: Ns },
    /// A frame of `port` that will never be carried (its queue full, or 16 collisions).
    Dropped { seg: usize, port: usize, handle: u64, why: DropWhy, at: Ns },
}

#[derive(Clone, Debug, Default)]
pub struct PortStats {
    pub frames_in: u64,
    pub bytes_in: u64,
    pub frames_sent: u64,
    pub bytes_sent: u64,
    /// On-wire bytes of the frames sent (padding, FCS, preamble and gap included).
    pub wire_bytes_sent: u64,
    pub frames_delivered: u64,
    pub collisions: u64,
    pub deferrals: u64,
    pub drops_queue: u64,
    pub drops_collisions: u64,
    pub max_queue: u64,
}

#[derive(Clone, Debug, Default)]
pub struct SegmentStats {
    /// Time carriers of frames that got through occupied the medium (preamble to FCS), summed
    /// over both directions on a full-duplex segment.
    pub busy_ns: u64,
    /// Time collisions occupied the medium.
    pub collision_ns: u64,
    /// Time the medium lay idle (past the gap) while a station that had collided waited out its
    /// backoff: contention's other cost, beside the collisions themselves (what Metcalfe and
    /// Boggs count as the contention interval's idle slots).
    pub backoff_idle_ns: u64,
    pub frames: u64,
    /// On-wire bytes of frames that got through (padding, FCS, preamble and gap included).
    pub wire_bytes: u64,
    pub collisions: u64,
}

#[derive(Clone, Debug)]
struct Frame {
    handle: u64,
    len: u64,
    dsts: Vec<u16>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    /// No frame being handled: a new frame may attempt at once.
    Idle,
    /// An Attempt event is pending (backoff, the card's gap, a full-duplex channel busy).
    Waiting,
    /// Sensed the medium busy: starts when it goes idle.
    Deferring,
    Sending,
}

struct Port {
    cfg: PortConfig,
    queue: VecDeque<Frame>,
    state: St,
    gen: u64,
    attempts: u32,
    /// When the card's last frames left the wire, newest last (at most `buffers` of them).
    ends: VecDeque<Ns>,
    /// Waiting out a backoff after a collision (counted by its segment's `backing_off`).
    in_backoff: bool,
    /// Full duplex: when this port's own channel is free again (its gap after the last frame).
    chan_idle_at: Ns,
    stats: PortStats,
}

struct Tx {
    ports: Vec<usize>,
    last_start: Ns,
    end: Ns,
    collided: bool,
}

struct Segment {
    cfg: SegmentConfig,
    busy: Option<Tx>,
    /// Earliest time a carrier may start (the end of the last carrier plus the gap).
    idle_at: Ns,
    /// The Idle event of `idle_at` has run (or none is due): a station finding the wire idle
    /// now schedules one for its own instant, so every station of that instant contends.
    settled: bool,
    gen: u64,
    deferring: Vec<usize>,
    rr: usize,
    ports: Vec<usize>,
    /// Stations waiting out a backoff, and when the idle time they cost was last counted.
    backing_off: usize,
    mark: Ns,
    stats: SegmentStats,
    /// Its wire's events go to `Model::wire_log` (a capture of it is on).
    traced: bool,
}

#[derive(Debug)]
enum Ev {
    Enqueue { port: usize, frame: Frame },
    Attempt { port: usize, gen: u64 },
    TxEnd { seg: usize, gen: u64 },
    CollEnd { seg: usize, gen: u64 },
    Idle { seg: usize, gen: u64 },
    FdEnd { port: usize },
    Deliver { handle: u64, port: usize },
}

/// xorshift64*: deterministic per seed, so a virtual-time run repeats exactly.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next() >> 11) as u128 * n as u128 >> 53) as u64
    }
}

pub struct Model {
    now: Ns,
    seq: u64,
    /// (time, Idle events last within an instant, queue order, slot)
    heap: BinaryHeap<Reverse<(Ns, u8, u64, usize)>>,
    slots: Vec<Option<Ev>>,
    free: Vec<usize>,
    ports: Vec<Port>,
    segs: Vec<Segment>,
    rng: Rng,
    /// Frames whose arrival time was already in the model's past (taken at the model's now;
    /// `arrive` returns how late each was).
    pub late_arrivals: u64,
    /// The traced segments' wire events since the shell last took them (`trace`).
    pub wire_log: Vec<WireEvent>,
}

/// Time `bits` take at `rate_bps`, rounded to the nearest ns.
pub fn bits_ns(bits: u64, rate_bps: u64) -> Ns {
    ((bits as u128 * 1_000_000_000u128 + rate_bps as u128 / 2) / rate_bps as u128) as Ns
}

/// Bytes a frame of `len` (as a host sees it) occupies on the wire, gap included.
pub fn wire_bytes(len: u64) -> u64 {
    len.max(MIN_FRAME) + FCS + PREAMBLE + IFG_BITS / 8
}

/// The carrier of a frame: preamble to FCS, without the gap after it.
pub fn carrier_ns(len: u64, rate_bps: u64) -> Ns {
    bits_ns((len.max(MIN_FRAME) + FCS + PREAMBLE) * 8, rate_bps)
}

impl Model {
    pub fn new(segs: Vec<SegmentConfig>, ports: Vec<PortConfig>, seed: u64) -> Result<Model, String> {
        let mut segments: Vec<Segment> = segs
            .into_iter()
            .map(|cfg| Segment {
                cfg,
                busy: None,
                idle_at: 0,
                settled: true,
                gen: 0,
                deferring: Vec::new(),
                rr: 0,
                ports: Vec::new(),
                backing_off: 0,
                mark: 0,
                stats: SegmentStats::default(),
                traced: false,
            })
            .collect();
        for (i, p) in ports.iter().enumerate() {
            let seg = segments.get_mut(p.segment).ok_or(format!("port {} names segment {} of {}", i, p.segment, 0))?;
            if seg.cfg.rate_bps == 0 {
                return Err(format!("segment {} has rate 0", p.segment));
            }
            if p.queue_frames == 0 {
                return Err(format!("port {} has a queue of 0 frames", i));
            }
            seg.ports.push(i);
        }
        if ports.len() > u16::MAX as usize {
            return Err("too many ports".into());
        }
        let ports = ports
            .into_iter()
            .map(|cfg| Port {
                cfg,
                queue: VecDeque::new(),
                state: St::Idle,
                gen: 0,
                attempts: 0,
                ends: VecDeque::new(),
                in_backoff: false,
                chan_idle_at: 0,
                stats: PortStats::default(),
            })
            .collect();
        Ok(Model {
            now: 0,
            seq: 0,
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            ports,
            segs: segments,
            rng: Rng::new(seed),
            late_arrivals: 0,
            wire_log: Vec::new(),
        })
    }

    /// Record segment `s`'s wire events in `wire_log` from now on (a capture of its wire).
    pub fn trace(&mut self, s: usize) {
        self.segs[s].traced = true;
    }

    pub fn now(&self) -> Ns {
        self.now
    }

    pub fn ports(&self) -> usize {
        self.ports.len()
    }

    pub fn segments(&self) -> usize {
        self.segs.len()
    }

    pub fn port_stats(&self, p: usize) -> &PortStats {
        &self.ports[p].stats
    }

    pub fn segment_stats(&self, s: usize) -> &SegmentStats {
        &self.segs[s].stats
    }

    pub fn segment_config(&self, s: usize) -> &SegmentConfig {
        &self.segs[s].cfg
    }

    /// The forwarding host's own address behind port `p`, if it forwards (see PortConfig).
    pub fn own_ip(&self, p: usize) -> Option<[u8; 4]> {
        self.ports[p].cfg.own_ip
    }

    pub fn segment_of(&self, p: usize) -> usize {
        self.ports[p].cfg.segment
    }

    pub fn segment_ports(&self, s: usize) -> &[usize] {
        &self.segs[s].ports
    }

    /// Frames queued at `p` (the one being sent included).
    pub fn queued(&self, p: usize) -> usize {
        self.ports[p].queue.len()
    }

    /// A frame of `len` bytes entered at `port` (from its host) at time `t`, for `dsts`. A frame
    /// whose `t` the model has already passed is taken at the model's now: returns how late it
    /// was (0 when on time), for the shell's histogram.
    pub fn arrive(&mut self, t: Ns, port: usize, handle: u64, len: u64, dsts: Vec<u16>) -> Ns {
        self.arrive_from(t, port, handle, len, dsts, false)
    }

    /// As `arrive`, for a frame its host `forwarded` (a relay's): its latency includes the
    /// forwarding copy (fwd_ps_per_byte) and the per-packet time the host-path subtraction took
    /// off (fwd_delay_ns), so a lone relayed packet is not quicker than its model.
    pub fn arrive_from(&mut self, t: Ns, port: usize, handle: u64, len: u64, dsts: Vec<u16>, forwarded: bool) -> Ns {
        let late = self.now.saturating_sub(t);
        if late > 0 {
            self.late_arrivals += 1;
        }
        let t = t.max(self.now);
        let cfg = &self.ports[port].cfg;
        let copy = if forwarded { cfg.fwd_delay_ns + bytes_time(len, cfg.fwd_ps_per_byte) } else { 0 };
        let delay = cfg.tx_delay_ns + bytes_time(len, cfg.ps_per_byte) + copy;
        self.push(t + delay, Ev::Enqueue { port, frame: Frame { handle, len, dsts } });
        late
    }

    /// When the model next has something to do, if anything.
    pub fn next_deadline(&self) -> Option<Ns> {
        self.heap.peek().map(|Reverse((t, _, _, _))| *t)
    }

    /// The earliest time a frame could next be due for release: a pending delivery; a carrier's
    /// end plus the propagation delay and the quickest receiver's latency; any other event plus
    /// the shortest carrier it could start (its own frame's, or a minimum frame's) and the same.
    /// Events run before then keep their virtual times however late the shell runs them, so the
    /// shell keeps real time (spins) only towards this.
    pub fn next_output(&self) -> Option<Ns> {
        let mut best: Option<Ns> = None;
        for Reverse((t, _, _, slot)) in self.heap.iter() {
            let (seg, carrier) = match &self.slots[*slot] {
                Some(Ev::Deliver { .. }) => {
                    best = Some(best.map_or(*t, |b: Ns| b.min(*t)));
                    continue;
                }
                Some(Ev::TxEnd { seg, .. }) => (*seg, 0),
                Some(Ev::FdEnd { port }) => (self.ports[*port].cfg.segment, 0),
                Some(Ev::Enqueue { port, frame }) => {
                    let seg = self.ports[*port].cfg.segment;
                    (seg, carrier_ns(frame.len, self.segs[seg].cfg.rate_bps))
                }
                Some(Ev::Attempt { port, .. }) => {
                    let seg = self.ports[*port].cfg.segment;
                    (seg, carrier_ns(MIN_FRAME, self.segs[seg].cfg.rate_bps))
                }
                Some(Ev::CollEnd { seg, .. }) | Some(Ev::Idle { seg, .. }) => {
                    (*seg, carrier_ns(MIN_FRAME, self.segs[*seg].cfg.rate_bps))
                }
                None => continue,
            };
            let due = *t + carrier + self.segs[seg].cfg.path_ns() + self.min_rx_delay(seg);
            best = Some(best.map_or(due, |b: Ns| b.min(due)));
        }
        best
    }

    fn min_rx_delay(&self, seg: usize) -> Ns {
        self.segs[seg].ports.iter().map(|&p| self.ports[p].cfg.rx_delay_ns).min().unwrap_or(0)
    }

    /// Run every event up to and including `until`; outputs are appended in time order.
    pub fn advance(&mut self, until: Ns, out: &mut Vec<Output>) {
        while let Some(&Reverse((t, _, _, slot))) = self.heap.peek() {
            if t > until {
                break;
            }
            self.heap.pop();
            let ev = self.slots[slot].take().expect("event slot");
            self.free.push(slot);
            if t > self.now {
                self.now = t;
            }
            self.handle(ev, out);
        }
        if until > self.now {
            self.now = until;
        }
    }

    fn push(&mut self, t: Ns, ev: Ev) {
        // a segment's Idle event runs after every other event of its instant, so the stations
        // whose turn is that instant have all joined the contention it starts
        let class = if matches!(ev, Ev::Idle { .. }) { 1 } else { 0 };
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s] = Some(ev);
                s
            }
            None => {
                self.slots.push(Some(ev));
                self.slots.len() - 1
            }
        };
        self.seq += 1;
        self.heap.push(Reverse((t, class, self.seq, slot)));
    }

    fn handle(&mut self, ev: Ev, out: &mut Vec<Output>) {
        let t = self.now;
        match ev {
            Ev::Enqueue { port, frame } => self.enqueue(t, port, frame, out),
            Ev::Attempt { port, gen } => {
                if self.ports[port].gen == gen && self.ports[port].state == St::Waiting {
                    if self.ports[port].in_backoff {
                        let s = self.ports[port].cfg.segment;
                        self.account_backoff(t, s);
                        self.segs[s].backing_off -= 1;
                        self.ports[port].in_backoff = false;
                    }
                    self.ports[port].state = St::Idle;
                    self.try_send(t, port);
                }
            }
            Ev::TxEnd { seg, gen } => {
                if self.segs[seg].gen == gen {
                    self.tx_end(t, seg, out);
                }
            }
            Ev::CollEnd { seg, gen } => {
                if self.segs[seg].gen == gen {
                    self.coll_end(t, seg, out);
                }
            }
            Ev::Idle { seg, gen } => {
                if self.segs[seg].gen == gen {
                    self.medium_idle(t, seg);
                }
            }
            Ev::FdEnd { port } => self.fd_end(t, port, out),
            Ev::Deliver { handle, port } => {
                self.ports[port].stats.frames_delivered += 1;
                out.push(Output::Deliver { handle, port, due: t });
            }
        }
    }

    fn enqueue(&mut self, t: Ns, port: usize, frame: Frame, out: &mut Vec<Output>) {
        let p = &mut self.ports[port];
        p.stats.frames_in += 1;
        p.stats.bytes_in += frame.len;
        if p.queue.len() >= p.cfg.queue_frames {
            p.stats.drops_queue += 1;
            out.push(Output::Dropped { handle: frame.handle, port, why: DropWhy::QueueFull, at: t });
            let seg = p.cfg.segment;
            if self.segs[seg].traced {
                self.wire_log.push(WireEvent::Dropped { seg, port, handle: frame.handle, why: DropWhy::QueueFull, at: t });
            }
            return;
        }
        p.queue.push_back(frame);
        p.stats.max_queue = p.stats.max_queue.max(p.queue.len() as u64);
        if p.state == St::Idle && p.queue.len() == 1 {
            self.try_send(t, port);
        }
    }

    fn wait_until(&mut self, port: usize, at: Ns) {
        let p = &mut self.ports[port];
        p.gen += 1;
        p.state = St::Waiting;
        let gen = p.gen;
        self.push(at, Ev::Attempt { port, gen });
    }

    /// The head frame of an idle station tries to go (state Idle, queue not empty).
    fn try_send(&mut self, t: Ns, port: usize) {
        if self.ports[port].queue.is_empty() {
            return;
        }
        let ready = self.ready_at(port);
        if t < ready {
            self.wait_until(port, ready);
            return;
        }
        let s = self.ports[port].cfg.segment;
        if self.segs[s].cfg.full_duplex {
            let free = self.ports[port].chan_idle_at;
            if t < free {
                self.wait_until(port, free);
                return;
            }
            let rate = self.segs[s].cfg.rate_bps;
            let len = self.ports[port].queue[0].len;
            let end = t + carrier_ns(len, rate);
            let p = &mut self.ports[port];
            p.state = St::Sending;
            p.chan_idle_at = end + bits_ns(IFG_BITS, rate);
            self.push(end, Ev::FdEnd { port });
            return;
        }
        let path = self.segs[s].cfg.path_ns();
        let csma = self.segs[s].cfg.csma;
        let joins = match &self.segs[s].busy {
            Some(tx) => csma && t <= tx.last_start + path && t < tx.end,
            None => false,
        };
        if joins {
            self.collide(t, s, vec![port]);
            return;
        }
        let seg = &mut self.segs[s];
        self.ports[port].state = St::Deferring;
        seg.deferring.push(port);
        if t < seg.idle_at {
            self.ports[port].stats.deferrals += 1;
        } else if seg.settled {
            // the wire is idle: contend at the end of this instant, with whoever else's turn it is
            // (busy is None here: a carrier keeps it until its end, before idle_at)
            seg.settled = false;
            let gen = seg.gen;
            self.push(t, Ev::Idle { seg: s, gen });
        }
        // else the wire goes idle at this very instant and its Idle event, still to run, starts
        // this station with the ones that deferred
    }

    /// The earliest time the card's head frame can start: the last frame's end and its gap,
    /// and the head frame's load into the buffer it waits for (see PortConfig).
    fn ready_at(&self, port: usize) -> Ns {
        let p = &self.ports[port];
        let (last, f) = match (p.ends.back(), p.queue.front()) {
            (Some(&last), Some(f)) => (last, f),
            _ => return 0,
        };
        let mut ready = last + p.cfg.tx_gap_ns;
        if p.ends.len() >= p.cfg.buffers.max(1) {
            let freed = p.ends[p.ends.len() - p.cfg.buffers.max(1)];
            ready = ready.max(freed + p.cfg.tx_gap_ns + bytes_time(f.len, p.cfg.load_ps_per_byte));
        }
        ready
    }

    /// `starters` begin a carrier at `t` on an idle half-duplex segment.
    fn start(&mut self, t: Ns, s: usize, starters: Vec<usize>) {
        if starters.len() > 1 {
            // they all waited for the same idle medium: none hears the others in time
            let first = starters[0];
            self.begin_tx(t, s, vec![first]);
            self.collide(t, s, starters[1..].to_vec());
            return;
        }
        self.begin_tx(t, s, starters);
    }

    /// Count the idle time since the last count while some station waited out a backoff (the
    /// medium's gap after a carrier is the carrier's, not contention's). Called before anything
    /// changes the number of stations backing off or when the medium is next free.
    fn account_backoff(&mut self, t: Ns, s: usize) {
        let seg = &mut self.segs[s];
        if seg.backing_off > 0 {
            let from = seg.mark.max(seg.idle_at);
            seg.stats.backoff_idle_ns += t.saturating_sub(from);
        }
        seg.mark = t;
    }

    fn begin_tx(&mut self, t: Ns, s: usize, ports: Vec<usize>) {
        self.account_backoff(t, s);
        let rate = self.segs[s].cfg.rate_bps;
        let port = ports[0];
        self.ports[port].state = St::Sending;
        let end = t + carrier_ns(self.ports[port].queue[0].len, rate);
        let seg = &mut self.segs[s];
        seg.gen += 1;
        seg.busy = Some(Tx { ports, last_start: t, end, collided: false });
        seg.idle_at = end + bits_ns(IFG_BITS, rate);
        seg.settled = false;
        let gen = seg.gen;
        let idle = seg.idle_at;
        self.push(end, Ev::TxEnd { seg: s, gen });
        self.push(idle, Ev::Idle { seg: s, gen });
    }

    /// `joiners` start at `t` inside the collision window of the segment's current carrier.
    fn collide(&mut self, t: Ns, s: usize, joiners: Vec<usize>) {
        self.account_backoff(t, s);
        let rate = self.segs[s].cfg.rate_bps;
        let path = self.segs[s].cfg.path_ns();
        for &p in &joiners {
            self.ports[p].state = St::Sending;
        }
        let seg = &mut self.segs[s];
        let tx = seg.busy.as_mut().expect("a carrier to collide with");
        tx.ports.extend(joiners);
        tx.last_start = tx.last_start.max(t);
        if !tx.collided {
            tx.collided = true;
            seg.stats.collisions += 1;
        }
        // every collider sends at least the preamble, then jams; the last carrier reaches all
        // stations one propagation delay later
        let end = tx.last_start + path.max(bits_ns(PREAMBLE * 8, rate)) + bits_ns(JAM_BITS, rate) + path;
        tx.end = end;
        seg.gen += 1;
        seg.idle_at = end + bits_ns(IFG_BITS, rate);
        seg.settled = false;
        let gen = seg.gen;
        let idle = seg.idle_at;
        self.push(end, Ev::CollEnd { seg: s, gen });
        self.push(idle, Ev::Idle { seg: s, gen });
    }

    fn tx_end(&mut self, t: Ns, s: usize, out: &mut Vec<Output>) {
        let tx = self.segs[s].busy.take().expect("a carrier ending");
        let port = tx.ports[0];
        let rate = self.segs[s].cfg.rate_bps;
        let frame = self.ports[port].queue.pop_front().expect("the frame sent");
        let seg = &mut self.segs[s];
        seg.stats.frames += 1;
        seg.stats.busy_ns += carrier_ns(frame.len, rate);
        seg.stats.wire_bytes += wire_bytes(frame.len);
        self.sent(t, port, frame, out);
    }

    fn fd_end(&mut self, t: Ns, port: usize, out: &mut Vec<Output>) {
        let s = self.ports[port].cfg.segment;
        let rate = self.segs[s].cfg.rate_bps;
        let frame = self.ports[port].queue.pop_front().expect("the frame sent");
        let seg = &mut self.segs[s];
        seg.stats.frames += 1;
        seg.stats.busy_ns += carrier_ns(frame.len, rate);
        seg.stats.wire_bytes += wire_bytes(frame.len);
        self.sent(t, port, frame, out);
    }

    /// The frame's last bit left `port` at `t`: schedule its deliveries, free the station.
    fn sent(&mut self, t: Ns, port: usize, frame: Frame, _out: &mut Vec<Output>) {
        let s = self.ports[port].cfg.segment;
        let path = self.segs[s].cfg.path_ns();
        if self.segs[s].traced {
            let collisions = self.ports[port].attempts;
            self.wire_log.push(WireEvent::Carried { seg: s, port, handle: frame.handle, len: frame.len, end: t, collisions });
        }
        {
            let p = &mut self.ports[port];
            p.stats.frames_sent += 1;
            p.stats.bytes_sent += frame.len;
            p.stats.wire_bytes_sent += wire_bytes(frame.len);
            p.attempts = 0;
            p.state = St::Idle;
            if p.ends.len() >= p.cfg.buffers.max(1) {
                p.ends.pop_front();
            }
            p.ends.push_back(t);
        }
        for &d in &frame.dsts {
            let d = d as usize;
            let at = t + path + self.ports[d].cfg.rx_delay_ns + bytes_time(frame.len, self.ports[d].cfg.ps_per_byte);
            self.push(at, Ev::Deliver { handle: frame.handle, port: d });
        }
        if !self.ports[port].queue.is_empty() {
            self.try_send(t, port);
        }
    }

    fn coll_end(&mut self, t: Ns, s: usize, out: &mut Vec<Output>) {
        let tx = self.segs[s].busy.take().expect("a collision ending");
        let rate = self.segs[s].cfg.rate_bps;
        self.segs[s].stats.collision_ns += t.saturating_sub(tx.last_start.min(t));
        // in port order, so the backoffs drawn do not depend on the order the colliders joined
        let mut colliders = tx.ports;
        colliders.sort_unstable();
        if self.segs[s].traced {
            self.wire_log.push(WireEvent::Collision { seg: s, ports: colliders.clone(), end: t });
        }
        for port in colliders {
            let p = &mut self.ports[port];
            p.stats.collisions += 1;
            p.attempts += 1;
            p.state = St::Idle;
            if p.attempts >= ATTEMPT_LIMIT {
                let frame = p.queue.pop_front().expect("the frame that collided");
                p.attempts = 0;
                p.stats.drops_collisions += 1;
                out.push(Output::Dropped { handle: frame.handle, port, why: DropWhy::ExcessCollisions, at: t });
                if self.segs[s].traced {
                    self.wire_log.push(WireEvent::Dropped { seg: s, port, handle: frame.handle, why: DropWhy::ExcessCollisions, at: t });
                }
                self.try_send(t, port);
                continue;
            }
            let k = p.attempts.min(BACKOFF_LIMIT);
            let r = self.rng.below(1u64 << k);
            let at = t + r * bits_ns(SLOT_BITS, rate);
            self.account_backoff(t, s);
            self.segs[s].backing_off += 1;
            self.ports[port].in_backoff = true;
            self.wait_until(port, at);
        }
    }

    /// The wire is idle (the gap after the last carrier over, or a station found it idle at
    /// `t`): every station whose turn this instant is has deferred by now (Idle events run last
    /// within an instant), and no carrier can have started since the event was queued (a carrier
    /// changes the segment's gen, which makes the event stale).
    fn medium_idle(&mut self, t: Ns, s: usize) {
        debug_assert!(self.segs[s].busy.is_none());
        self.segs[s].settled = true;
        if self.segs[s].deferring.is_empty() {
            return;
        }
        if self.segs[s].cfg.csma {
            let starters = std::mem::take(&mut self.segs[s].deferring);
            self.start(t, s, starters);
        } else {
            // a perfect arbiter: the next deferrer after the last one served, by port order
            let seg = &mut self.segs[s];
            let rr = seg.rr;
            let pick = seg
                .deferring
                .iter()
                .enumerate()
                .min_by_key(|(_, &p)| (p < rr, p))
                .map(|(i, _)| i)
                .unwrap();
            let port = seg.deferring.remove(pick);
            seg.rr = port + 1;
            self.start(t, s, vec![port]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Ns = 1_000_000;
    const US: Ns = 1_000;

    fn hub(n: usize, rate: u64, csma: bool) -> Model {
        let seg = SegmentConfig { rate_bps: rate, full_duplex: false, csma, prop_ns: 0, repeater_ns: 0 };
        let ports = (0..n).map(|_| PortConfig { segment: 0, queue_frames: 100, ..Default::default() }).collect();
        Model::new(vec![seg], ports, 7).unwrap()
    }

    fn run(m: &mut Model, until: Ns) -> Vec<Output> {
        let mut out = Vec::new();
        m.advance(until, &mut out);
        out
    }

    fn last_due(out: &[Output]) -> Ns {
        out.iter().filter_map(|o| match o { Output::Deliver { due, .. } => Some(*due), _ => None }).max().unwrap()
    }

    fn others(n: usize, p: usize) -> Vec<u16> {
        (0..n).filter(|&q| q != p).map(|q| q as u16).collect()
    }

    #[test]
    fn wire_time_follows_802_3() {
        // csma.md: 67.2 us for 64 B (60 + FCS) and 1230.4 us for 1518 B at 10 Mbit/s, gap included
        assert_eq!(bits_ns(wire_bytes(60) * 8, 10_000_000), 67_200);
        assert_eq!(bits_ns(wire_bytes(1514) * 8, 10_000_000), 1_230_400);
        assert_eq!(bits_ns(wire_bytes(1514) * 8, 100_000_000), 123_040);
        assert_eq!(carrier_ns(1514, 10_000_000), 1_220_800);
        assert_eq!(carrier_ns(10, 10_000_000), carrier_ns(60, 10_000_000)); // padding
    }

    #[test]
    fn a_lone_frame_arrives_when_its_last_bit_does() {
        let mut m = hub(2, 10_000_000, true);
        m.arrive(5 * MS, 0, 1, 1514, vec![1]);
        let out = run(&mut m, 10 * MS);
        assert_eq!(out, vec![Output::Deliver { handle: 1, port: 1, due: 5 * MS + 1_220_800 }]);
    }

    #[test]
    fn a_ping_pays_two_wire_times_and_both_hosts_latencies() {
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 500, repeater_ns: 0 };
        let port = PortConfig { segment: 0, queue_frames: 10, tx_delay_ns: 90 * US, rx_delay_ns: 90 * US, tx_gap_ns: 0, ps_per_byte: 0, ..Default::default() };
        let mut m = Model::new(vec![seg], vec![port.clone(), port], 1).unwrap();
        m.arrive(0, 0, 1, 1442, vec![1]);
        let out = run(&mut m, 10 * MS);
        let due = match out[0] { Output::Deliver { due, .. } => due, _ => panic!() };
        assert_eq!(due, 90 * US + carrier_ns(1442, 10_000_000) + 500 + 90 * US);
        m.arrive(due, 1, 2, 1442, vec![0]);
        let out = run(&mut m, 20 * MS);
        let back = match out[0] { Output::Deliver { due, .. } => due, _ => panic!() };
        assert!(back >= 2 * carrier_ns(1442, 10_000_000) + 4 * 90 * US);
    }

    #[test]
    fn each_host_also_pays_its_per_byte_time_for_the_frame() {
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 500, repeater_ns: 0 };
        let tx = PortConfig { segment: 0, queue_frames: 10, tx_delay_ns: 90 * US, rx_delay_ns: 90 * US,
                              tx_gap_ns: 0, ps_per_byte: 248_000, ..Default::default() };
        let rx = PortConfig { ps_per_byte: 38_000, ..tx.clone() };
        let mut m = Model::new(vec![seg], vec![tx, rx], 1).unwrap();
        m.arrive(0, 0, 1, 69, vec![1]);
        let out = run(&mut m, 10 * MS);
        let due = match out[0] { Output::Deliver { due, .. } => due, _ => panic!() };
        // the sender's 69 B at 248 ns, the receiver's at 38 ns: each port's own host
        assert_eq!(due, 90 * US + 69 * 248 + carrier_ns(69, 10_000_000) + 500 + 90 * US + 69 * 38);
    }

    #[test]
    fn a_frame_its_host_forwards_also_pays_the_forwarding_copy() {
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 500, repeater_ns: 0 };
        let relay = PortConfig { segment: 0, queue_frames: 10, tx_delay_ns: 90 * US, rx_delay_ns: 90 * US,
                                 ps_per_byte: 248_000, fwd_ps_per_byte: 59_000, fwd_delay_ns: 7 * US,
                                 own_ip: Some([10, 0, 0, 4]), ..Default::default() };
        let mut m = Model::new(vec![seg], vec![relay.clone(), relay], 1).unwrap();
        let due = |out: Vec<Output>| match out[0] { Output::Deliver { due, .. } => due, _ => panic!() };
        m.arrive_from(0, 0, 1, 69, vec![1], false);
        let own = due(run(&mut m, 10 * MS));
        m.arrive_from(20 * MS, 0, 2, 69, vec![1], true);
        let fwd = due(run(&mut m, 30 * MS)) - 20 * MS;
        // Linux 1.2's ip_forward copies the packet once between its receive and its send
        assert_eq!(fwd - own, 69 * 59 + 7 * US);
    }

    #[test]
    fn back_to_back_frames_leave_a_gap_and_fill_the_wire() {
        let mut m = hub(2, 10_000_000, true);
        for h in 0..100 {
            m.arrive(0, 0, h, 1514, vec![1]);
        }
        let out = run(&mut m, 1_000 * MS);
        let last = last_due(&out);
        // 100 frames: 100 carriers and 99 gaps
        assert_eq!(last, 100 * 1_220_800 + 99 * 9_600);
        assert_eq!(m.port_stats(0).collisions, 0);
    }

    #[test]
    fn queue_overflow_drops_and_counts() {
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 0, repeater_ns: 0 };
        let port = PortConfig { segment: 0, queue_frames: 4, ..Default::default() };
        let mut m = Model::new(vec![seg], vec![port.clone(), port], 1).unwrap();
        for h in 0..10 {
            m.arrive(0, 0, h, 1514, vec![1]);
        }
        let out = run(&mut m, 1_000 * MS);
        let drops = out.iter().filter(|o| matches!(o, Output::Dropped { why: DropWhy::QueueFull, .. })).count();
        assert_eq!(drops, 6);
        assert_eq!(m.port_stats(0).drops_queue, 6);
        assert_eq!(m.port_stats(1).frames_delivered, 4);
    }

    #[test]
    fn two_stations_that_deferred_to_the_same_carrier_collide() {
        let mut m = hub(3, 10_000_000, true);
        m.arrive(0, 0, 1, 1514, vec![2]);
        m.arrive(100 * US, 1, 2, 1514, vec![2]);
        m.arrive(200 * US, 2, 3, 1514, vec![0]);
        let out = run(&mut m, 100 * MS);
        assert_eq!(m.segment_stats(0).collisions >= 1, true);
        assert_eq!(m.port_stats(1).collisions >= 1 && m.port_stats(2).collisions >= 1, true);
        assert_eq!(out.iter().filter(|o| matches!(o, Output::Deliver { .. })).count(), 3);
    }

    #[test]
    fn a_start_within_the_propagation_delay_collides_retroactively() {
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 2 * US, repeater_ns: 0 };
        let ports = (0..2).map(|_| PortConfig { segment: 0, queue_frames: 10, ..Default::default() }).collect();
        let mut m = Model::new(vec![seg], ports, 3).unwrap();
        m.arrive(0, 0, 1, 1514, vec![1]);
        let mut out = Vec::new();
        m.advance(1 * US, &mut out); // station 0 is on the wire
        m.arrive(1 * US, 1, 2, 1514, vec![0]); // station 1 has not heard it yet
        m.advance(100 * MS, &mut out);
        assert_eq!(m.segment_stats(0).collisions >= 1, true);
        assert_eq!(out.iter().filter(|o| matches!(o, Output::Deliver { .. })).count(), 2);
        // without the propagation delay window (arriving later) it defers instead
        let mut m = hub(2, 10_000_000, true);
        m.arrive(0, 0, 1, 1514, vec![1]);
        m.advance(10 * US, &mut out);
        m.arrive(10 * US, 1, 2, 1514, vec![0]);
        m.advance(100 * MS, &mut out);
        assert_eq!(m.segment_stats(0).collisions, 0);
        assert_eq!(m.port_stats(1).deferrals, 1);
    }

    #[test]
    fn deferrers_collide_with_a_station_that_took_the_medium_at_the_same_instant() {
        let mut m = hub(3, 10_000_000, true);
        m.arrive(0, 0, 1, 1514, vec![2]);
        m.arrive(10 * US, 1, 2, 1514, vec![2]); // defers behind station 0
        let idle = carrier_ns(1514, 10_000_000) + bits_ns(IFG_BITS, 10_000_000);
        let mut out = Vec::new();
        m.advance(idle - 1, &mut out);
        m.arrive(idle, 2, 3, 1514, vec![0]); // queued before the Idle event of the same instant
        m.advance(idle, &mut out);
        assert_eq!(m.segment_stats(0).collisions, 1);
        m.advance(idle + 100 * US, &mut out); // the jam is over: both count it
        assert!(m.port_stats(1).collisions >= 1 && m.port_stats(2).collisions >= 1);
    }

    /// The tie at the idle instant (issue 43): station 0 sends, station 1 defers behind it, and
    /// station 2's frame reaches its card on the very nanosecond the gap after station 0's carrier
    /// ends. `station_first`: station 2's event is queued before the segment's Idle event of that
    /// instant (its frame was handed over before station 0 started), else after. Returns the
    /// segment's collisions and the stations' up to 100 us after the idle instant, and the
    /// frames (their senders) in the order they were delivered over the whole run.
    fn tie_probe(station_first: bool, csma: bool) -> (u64, u64, Vec<u64>) {
        let idle = carrier_ns(1514, 10_000_000) + bits_ns(IFG_BITS, 10_000_000);
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma, prop_ns: 0, repeater_ns: 0 };
        let port = PortConfig { segment: 0, queue_frames: 10, ..Default::default() };
        let late = PortConfig { tx_delay_ns: if station_first { idle } else { 0 }, ..port.clone() };
        let mut m = Model::new(vec![seg], vec![port.clone(), port.clone(), late, port], 7).unwrap();
        let mut out = Vec::new();
        m.arrive(0, 0, 0, 1514, vec![3]);
        if station_first {
            m.arrive(0, 2, 2, 1514, vec![3]); // reaches its card at `idle`, queued before station 0 starts
        }
        m.advance(10 * US, &mut out);
        m.arrive(10 * US, 1, 1, 1514, vec![3]); // defers behind station 0
        m.advance(idle - 1, &mut out);
        if !station_first {
            m.arrive(idle, 2, 2, 1514, vec![3]); // queued after the Idle event of the same instant
        }
        m.advance(idle + 100 * US, &mut out);
        let seg_c = m.segment_stats(0).collisions;
        let port_c: u64 = (0..4).map(|p| m.port_stats(p).collisions).sum();
        m.advance(1_000 * MS, &mut out);
        let order = out.iter().filter_map(|o| match o { Output::Deliver { handle, .. } => Some(*handle), _ => None }).collect();
        (seg_c, port_c, order)
    }

    #[test]
    fn a_station_whose_turn_is_the_idle_instant_contends_with_the_deferrers_whatever_the_queue_order() {
        // before the fix: CSMA/CD 0 collisions (station 2 alone, station 1 skipped for a frame) or
        // 2 (4 station collisions) by queue order; the arbiter served 2 or 1 first
        let (a, b) = (tie_probe(true, true), tie_probe(false, true));
        assert_eq!(a, b, "CSMA/CD: the same outcome whatever the queue order");
        assert!(a.0 >= 1 && a.1 >= 2, "the deferrer and the station of the idle instant collide: {:?}", a);
        let (a, b) = (tie_probe(true, false), tie_probe(false, false));
        assert_eq!(a, b, "the arbiter: the same outcome whatever the queue order");
        assert_eq!((a.0, a.1), (0, 0));
        assert_eq!(a.2, vec![0, 1, 2], "round robin after station 0: station 1, then 2");
    }

    /// Stations 1 and 2 defer behind station 0; stations 3 and 4 get their frames at the idle
    /// instant, handed over in `order` (port, queued before station 0 started). Everything the
    /// model output and counted.
    fn idle_instant(order: &[(usize, bool)], csma: bool) -> (Vec<Output>, Vec<(u64, u64, u64)>, u64) {
        let idle = carrier_ns(1514, 10_000_000) + bits_ns(IFG_BITS, 10_000_000);
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma, prop_ns: 1140, repeater_ns: 1000 };
        let mut ports: Vec<PortConfig> = (0..6).map(|_| PortConfig { segment: 0, queue_frames: 10, ..Default::default() }).collect();
        for &(p, early) in order {
            if early {
                ports[p].tx_delay_ns = idle;
            }
        }
        let mut m = Model::new(vec![seg], ports, 11).unwrap();
        let mut out = Vec::new();
        m.arrive(0, 0, 0, 1514, vec![5]);
        for &(p, early) in order {
            if early {
                m.arrive(0, p, p as u64, 1514, vec![5]);
            }
        }
        m.advance(10 * US, &mut out);
        m.arrive(10 * US, 1, 1, 1514, vec![5]);
        m.arrive(20 * US, 2, 2, 60, vec![5]);
        m.advance(idle - 1, &mut out);
        for &(p, early) in order {
            if !early {
                m.arrive(idle, p, p as u64, 1514, vec![5]);
            }
        }
        m.advance(10_000 * MS, &mut out);
        out.sort_by_key(|o| match o { Output::Deliver { handle, due, .. } => (*due, *handle), Output::Dropped { handle, at, .. } => (*at, *handle) });
        let per_port = (0..6).map(|p| { let s = m.port_stats(p); (s.collisions, s.deferrals, s.frames_sent) }).collect();
        (out, per_port, m.segment_stats(0).collisions)
    }

    #[test]
    fn every_station_of_the_idle_instant_contends_together_in_any_queue_order() {
        for &csma in &[true, false] {
            let mut outcomes = Vec::new();
            for &(a, b) in &[(3, 4), (4, 3)] {
                for &(ea, eb) in &[(false, false), (true, false), (false, true), (true, true)] {
                    outcomes.push(idle_instant(&[(a, ea), (b, eb)], csma));
                }
            }
            for o in &outcomes[1..] {
                assert_eq!(o, &outcomes[0], "csma {}: the queue order changed the outcome", csma);
            }
            let (out, per_port, collisions) = &outcomes[0];
            assert_eq!(out.iter().filter(|o| matches!(o, Output::Deliver { .. })).count(), 5);
            if csma {
                assert!(*collisions >= 1);
                assert!((1..5).all(|p| per_port[p].0 >= 1), "all four collided at the idle instant: {:?}", per_port);
            } else {
                assert_eq!(*collisions, 0);
            }
        }
    }

    #[test]
    fn the_collision_window_is_the_cables_propagation_and_the_repeaters_delay() {
        // 10 Mbit/s hub: 1140 ns of cable and the 10BASE-T repeater's 10 bit times
        let repeater = default_repeater_ns(10_000_000, false);
        assert_eq!(repeater, 1_000);
        let run_pair = |second: Ns, repeater_ns: Ns| {
            let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 1140, repeater_ns };
            let ports = (0..3).map(|_| PortConfig { segment: 0, queue_frames: 10, ..Default::default() }).collect();
            let mut m = Model::new(vec![seg], ports, 5).unwrap();
            let mut out = Vec::new();
            m.arrive(0, 0, 0, 1514, vec![2]);
            m.advance(second, &mut out);
            m.arrive(second, 1, 1, 1514, vec![2]);
            m.advance(100 * MS, &mut out);
            assert_eq!(out.iter().filter(|o| matches!(o, Output::Deliver { .. })).count(), 2);
            (m.segment_stats(0).collisions, m.port_stats(1).deferrals, out)
        };
        let window = 1140 + repeater;
        let (c, _, _) = run_pair(window, repeater);
        assert!(c >= 1, "a start within the window has not heard the first: they collide");
        let (c, d, _) = run_pair(window + 1, repeater);
        assert_eq!((c, d), (0, 1), "a start after the window hears the carrier and defers");
        // the cable alone would have let it defer
        let (c, d, _) = run_pair(1500, 0);
        assert_eq!((c, d), (0, 1));
        let (c, _, _) = run_pair(1500, repeater);
        assert!(c >= 1);
        // and a lone frame reaches its receiver through the repeater too
        let (_, _, out) = run_pair(window + 1, repeater);
        assert_eq!(out[0], Output::Deliver { handle: 0, port: 2, due: carrier_ns(1514, 10_000_000) + window });
        assert_eq!(default_repeater_ns(100_000_000, false), 460);
        assert_eq!(default_repeater_ns(100_000_000, true), 0);
    }

    #[test]
    fn a_late_arrival_says_how_late_it_was() {
        let mut m = hub(2, 10_000_000, true);
        run(&mut m, 10 * MS);
        assert_eq!(m.arrive(10 * MS, 0, 1, 60, vec![1]), 0);
        assert_eq!(m.arrive(7 * MS, 0, 2, 60, vec![1]), 3 * MS);
        assert_eq!(m.late_arrivals, 1);
    }
    #[test]
    fn sixteen_collisions_drop_a_frame() {
        // two stations with a perfect collision partner: force it by a tiny slot? use many
        // saturated stations and count that drops happen and are all excess-collision drops
        let n = 16;
        let mut m = hub(n, 10_000_000, true);
        for p in 0..n {
            for h in 0..100 {
                m.arrive(0, p, (p * 1000 + h) as u64, 1514, others(n, p));
            }
        }
        let out = run(&mut m, 10_000 * MS);
        let drops: u64 = (0..n).map(|p| m.port_stats(p).drops_collisions).sum();
        let dropped = out.iter().filter(|o| matches!(o, Output::Dropped { why: DropWhy::ExcessCollisions, .. })).count();
        assert_eq!(drops as usize, dropped);
        assert!(drops > 0, "16 saturated stations drop some frames after 16 attempts");
        let sent: u64 = (0..n).map(|p| m.port_stats(p).frames_sent).sum();
        assert_eq!(sent + drops, (n * 100) as u64);
    }

    /// A 10 Mbit/s hub of `n` stations whose queues are topped up to 20 frames of `len` every
    /// 100 us of virtual time until `horizon`: every station always has a frame to send.
    fn saturated(n: usize, len: u64, csma: bool, horizon: Ns) -> Model {
        let mut m = hub(n, 10_000_000, csma);
        let mut handle = 0u64;
        let mut t = 0;
        while t < horizon {
            for p in 0..n {
                for _ in m.queued(p)..20 {
                    handle += 1;
                    m.arrive(t, p, handle, len, others(n, p));
                }
            }
            t += 100 * US;
            run(&mut m, t);
        }
        m
    }

    /// Saturated stations' efficiency: delivered carrier time / elapsed, against a perfect
    /// arbiter that already charges preamble and gap (csma.md: 1518 B 0.994 / 0.977 / 0.965,
    /// 64 B 0.960 / 0.936 / 0.896 for N = 2 / 8 / 16) and never below Metcalfe-Boggs.
    fn efficiency(n: usize, len: u64, csma: bool) -> f64 {
        let horizon = 400 * MS;
        let m = saturated(n, len, csma, horizon);
        let st = m.segment_stats(0);
        let wire = st.frames * bits_ns(wire_bytes(len) * 8, 10_000_000);
        wire as f64 / horizon as f64
    }

    #[test]
    fn a_perfect_arbiter_fills_the_wire() {
        let e = efficiency(8, 1514, false);
        assert!(e > 0.999, "{}", e);
    }

    #[test]
    fn csma_cd_efficiency_lies_between_metcalfe_boggs_and_perfect() {
        for &(n, len, mb) in &[(2, 1514, 0.96), (8, 1514, 0.94), (16, 1514, 0.936), (2, 60, 0.50), (8, 60, 0.39), (16, 60, 0.38)] {
            let e = efficiency(n, len, true);
            assert!(e >= mb - 0.02 && e < 1.0, "n {} len {}: {} (Metcalfe-Boggs {})", n, len, e, mb);
        }
    }

    #[test]
    fn saturated_hub_time_is_frames_collisions_and_backoff() {
        // every station always has a frame: the medium is never idle but for the gaps and the
        // slots colliders back off, so delivered wire time + contention's time is the elapsed time
        for &(n, len) in &[(2, 60), (8, 60), (16, 1514)] {
            let horizon = 200 * MS;
            let m = saturated(n, len, true, horizon);
            let st = m.segment_stats(0);
            let gap = bits_ns(IFG_BITS, 10_000_000);
            let used = st.frames * bits_ns(wire_bytes(len) * 8, 10_000_000) + st.collision_ns + st.collisions * gap;
            let whole = (used + st.backoff_idle_ns) as f64 / horizon as f64;
            assert!(st.backoff_idle_ns > 0, "n {}: colliders backed off", n);
            assert!(whole > 0.97 && whole < 1.01, "n {} len {}: {}", n, len, whole);
        }
        let mut m = hub(8, 10_000_000, false);
        for p in 0..8 {
            for i in 0..20 {
                m.arrive(0, p, (p * 100 + i) as u64, 60, others(8, p));
            }
        }
        run(&mut m, 100 * MS);
        assert_eq!(m.segment_stats(0).backoff_idle_ns, 0, "a perfect arbiter never backs off");
    }

    #[test]
    fn full_duplex_directions_do_not_share() {
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: true, csma: true, prop_ns: 0, repeater_ns: 0 };
        let ports = (0..2).map(|_| PortConfig { segment: 0, queue_frames: 100, ..Default::default() }).collect();
        let mut m = Model::new(vec![seg], ports, 1).unwrap();
        for h in 0..50 {
            m.arrive(0, 0, h, 1514, vec![1]);
            m.arrive(0, 1, 100 + h, 1514, vec![0]);
        }
        let out = run(&mut m, 1_000 * MS);
        let last = last_due(&out);
        assert_eq!(last, 50 * 1_220_800 + 49 * 9_600);
        assert_eq!(m.segment_stats(0).collisions, 0);
    }

    #[test]
    fn a_card_gap_spaces_one_station_and_others_fill_it() {
        let seg = SegmentConfig { rate_bps: 100_000_000, full_duplex: false, csma: false, prop_ns: 0, repeater_ns: 0 };
        let port = PortConfig { segment: 0, queue_frames: 100, tx_gap_ns: 70 * US, ..Default::default() };
        let mut m = Model::new(vec![seg.clone()], vec![port.clone(), port.clone()], 1).unwrap();
        for h in 0..100 {
            m.arrive(0, 0, h, 1514, vec![1]);
        }
        let out = run(&mut m, 1_000 * MS);
        let last = last_due(&out);
        assert_eq!(last, 100 * 122_080 + 99 * 70_000);
        let mut m = Model::new(vec![seg], vec![port.clone(), port.clone(), port], 1).unwrap();
        for h in 0..100 {
            m.arrive(0, 0, h, 1514, vec![2]);
            m.arrive(0, 1, 1000 + h, 1514, vec![2]);
        }
        let out = run(&mut m, 1_000 * MS);
        let last = last_due(&out);
        // 200 frames back to back (each card's 70 us gap is shorter than the other's frame)
        assert!(last <= 200 * 123_040, "two cards fill each other's gaps: {}", last);
    }

    #[test]
    fn a_card_with_one_frame_in_flight_loads_the_next_only_after_the_last_has_left() {
        // an ISA card loaded by PIO at 189 ns/B (the ISA bus's 5.3 MB/s): back to back, every
        // frame after the first waits for its own load once its predecessor has left
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 0, repeater_ns: 0 };
        let port = PortConfig { segment: 0, queue_frames: 100, load_ps_per_byte: 189_000, buffers: 1, ..Default::default() };
        let mut m = Model::new(vec![seg.clone()], vec![port.clone(), port.clone()], 1).unwrap();
        for h in 0..100 {
            m.arrive(0, 0, h, 1514, vec![1]);
        }
        let out = run(&mut m, 1_000 * MS);
        let load = bytes_time(1514, 189_000);
        assert_eq!(load, 286_146);
        assert_eq!(last_due(&out), 100 * carrier_ns(1514, 10_000_000) + 99 * load);
        // a lone frame reaching an idle card pays no load here: its sender's CPU time did
        let mut m = Model::new(vec![seg.clone()], vec![port.clone(), port.clone()], 1).unwrap();
        m.arrive(5 * MS, 0, 1, 1514, vec![1]);
        let out = run(&mut m, 10 * MS);
        assert_eq!(last_due(&out), 5 * MS + carrier_ns(1514, 10_000_000));
        // two buffers (8390 ping-pong): the next frame loads while the last is on the wire, so
        // only the Tx-done interrupt's gap separates them (the load is shorter than a frame)
        let two = PortConfig { buffers: 2, tx_gap_ns: 20 * US, ..port };
        let mut m = Model::new(vec![seg], vec![two.clone(), two], 1).unwrap();
        for h in 0..100 {
            m.arrive(0, 0, h, 1514, vec![1]);
        }
        let out = run(&mut m, 1_000 * MS);
        assert_eq!(last_due(&out), 100 * carrier_ns(1514, 10_000_000) + 99 * 20 * US);
    }

    #[test]
    fn a_load_gap_between_a_cards_frames_ends_capture_between_two_saturated_stations() {
        // without a gap the station that wins a collision sends again at once and its rival
        // backs off further (the capture effect); with each card's next frame loaded after the
        // last has left, the other station takes the idle wire instead of colliding
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 1140, repeater_ns: 0 };
        let count = |load: u64| {
            let port = PortConfig { segment: 0, queue_frames: 1000, load_ps_per_byte: load, buffers: 1, ..Default::default() };
            let mut m = Model::new(vec![seg.clone()], vec![port.clone(), port.clone(), port], 3).unwrap();
            for h in 0..400 {
                m.arrive(0, 0, h, 1514, vec![2]);
                m.arrive(0, 1, 1000 + h, 1514, vec![2]);
            }
            run(&mut m, 10_000 * MS);
            let sent = (m.port_stats(0).frames_sent, m.port_stats(1).frames_sent);
            (m.segment_stats(0).collisions, sent)
        };
        let (without, _) = count(0);
        let (with, sent) = count(189_000);
        assert!(without > 20, "saturated stations collide without a gap: {}", without);
        assert!(with * 10 <= without, "a load gap takes most collisions away: {} against {}", with, without);
        assert_eq!(sent, (400, 400));
    }

    #[test]
    fn the_next_output_is_a_carriers_end_plus_the_receivers_latency() {
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 1000, repeater_ns: 0 };
        let port = PortConfig { segment: 0, queue_frames: 10, tx_delay_ns: 90 * US, rx_delay_ns: 90 * US, tx_gap_ns: 0, ps_per_byte: 0, ..Default::default() };
        let mut m = Model::new(vec![seg], vec![port.clone(), port], 1).unwrap();
        m.arrive(0, 0, 1, 1514, vec![1]);
        let end = 90 * US + carrier_ns(1514, 10_000_000);
        // on its way to its card, the frame can be due no sooner than its carrier allows
        assert_eq!(m.next_output(), Some(end + 1000 + 90 * US));
        run(&mut m, 90 * US);
        assert_eq!(m.next_output(), Some(end + 1000 + 90 * US));
        run(&mut m, end);
        assert_eq!(m.next_output(), Some(end + 1000 + 90 * US));
    }

    #[test]
    fn late_arrivals_are_taken_at_the_models_now() {
        let mut m = hub(2, 10_000_000, true);
        run(&mut m, 10 * MS);
        m.arrive(5 * MS, 0, 1, 60, vec![1]);
        assert_eq!(m.late_arrivals, 1);
        let out = run(&mut m, 20 * MS);
        assert_eq!(out, vec![Output::Deliver { handle: 1, port: 1, due: 10 * MS + carrier_ns(60, 10_000_000) }]);
    }

    #[test]
    fn runs_repeat_exactly_per_seed() {
        let a = efficiency(8, 60, true);
        let b = efficiency(8, 60, true);
        assert_eq!(a, b);
    }

    #[test]
    fn a_traced_wire_logs_each_frame_at_its_last_bit_and_its_collisions_and_drops() {
        let seg = SegmentConfig { rate_bps: 10_000_000, full_duplex: false, csma: true, prop_ns: 0, repeater_ns: 0 };
        let mk = |q| PortConfig { segment: 0, queue_frames: q, ..Default::default() };
        let mut m = Model::new(vec![seg.clone(), seg], vec![mk(10), mk(1), mk(10), PortConfig { segment: 1, ..mk(10) }], 5).unwrap();
        m.trace(0);
        // two stations ready at the same instant collide; a third frame finds station 1's queue full
        m.arrive(0, 0, 1, 1514, vec![1, 2]);
        m.arrive(0, 1, 2, 1514, vec![0, 2]);
        m.arrive(0, 1, 3, 60, vec![0]);
        m.arrive(0, 3, 4, 60, vec![]); // the untraced segment logs nothing
        let mut out = Vec::new();
        m.advance(100 * MS, &mut out);
        let log = std::mem::take(&mut m.wire_log);
        assert!(matches!(log[0], WireEvent::Dropped { seg: 0, port: 1, handle: 3, why: DropWhy::QueueFull, at: 0 }));
        assert!(matches!(&log[1], WireEvent::Collision { seg: 0, ports, .. } if ports == &vec![0, 1]));
        let carried: Vec<(usize, u64, Ns, u32)> = log.iter().filter_map(|e| match *e {
            WireEvent::Carried { port, handle, end, collisions, .. } => Some((port, handle, end, collisions)),
            _ => None,
        }).collect();
        assert_eq!(carried.len(), 2);
        // each ends when its carrier does: a full carrier after the previous end's gap at least,
        // and each says it collided (once or more)
        assert!(carried[1].2 >= carried[0].2 + bits_ns(IFG_BITS, 10_000_000) + carrier_ns(1514, 10_000_000));
        assert!(carried.iter().all(|c| c.3 >= 1));
        // what was delivered went at the logged end (no path, no latency here)
        for o in &out {
            if let Output::Deliver { handle, due, .. } = *o {
                assert_eq!(due, carried.iter().find(|c| c.1 == handle).unwrap().2);
            }
        }
        let collisions = log.iter().filter(|e| matches!(e, WireEvent::Collision { .. })).count() as u64;
        assert_eq!(collisions, m.segment_stats(0).collisions);
        assert!(log.iter().all(|e| !matches!(e, WireEvent::Carried { seg: 1, .. })));
        m.arrive(m.now(), 0, 5, 60, vec![1]);
        m.advance(200 * MS, &mut out);
        assert!(matches!(m.wire_log[..], [WireEvent::Carried { handle: 5, collisions: 0, .. }]));
    }
}
