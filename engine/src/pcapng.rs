//! A wire's capture as pcapng (the format Wireshark and tcpdump read), written by the shell for
//! each wire asked for (--capture WIRE=FILE). Pure: blocks are built in memory and written to any
//! `Write`, so the bytes are tested here without a file.
//!
//! What a capture holds: one Section Header Block, one Interface Description Block (Ethernet,
//! if_tsresol 9: nanosecond timestamps, named after the wire), and an Enhanced Packet Block per
//! frame the wire carried, stamped when its last bit left the wire (the model's virtual time,
//! which is CLOCK_MONOTONIC, mapped to CLOCK_REALTIME once when the capture opened, so the
//! spacing of the stamps is exactly the model's). What happened on the wire between two frames
//! (collisions, frames dropped after 16 collisions or at a full queue) and a frame's own
//! collisions are that frame's comment (opt_comment: Wireshark shows "Packet comments" and
//! `frame.comment`). Counts go in Interface Statistics Blocks (isb_ifrecv: frames the wire
//! carried; isb_ifdrop: frames not written), with any notes still pending as their comment.
//!
//! Bounded: once the frames' blocks would pass `limit` bytes, no more are written; an ISB says so
//! at once and one more closes the file, so the file is at most the limit plus its header and two
//! statistics blocks. A write error (a full disk) stops the capture the same way.
use std::io::Write;

pub const SHB: u32 = 0x0A0D_0D0A;
pub const IDB: u32 = 0x0000_0001;
pub const ISB: u32 = 0x0000_0005;
pub const EPB: u32 = 0x0000_0006;
pub const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
pub const LINKTYPE_ETHERNET: u16 = 1;
const OPT_END: u16 = 0;
const OPT_COMMENT: u16 = 1;
const SHB_USERAPPL: u16 = 4;
const IF_NAME: u16 = 2;
const IF_TSRESOL: u16 = 9;
const ISB_IFRECV: u16 = 4;
const ISB_IFDROP: u16 = 5;
/// A comment longer than this is cut (an option's length is 16 bits; Wireshark shows less).
const MAX_COMMENT: usize = 4000;
/// Notes pending for one frame beyond this are counted, not listed.
const MAX_NOTES: usize = 8;

fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

fn option(out: &mut Vec<u8>, code: u16, value: &[u8]) {
    out.extend_from_slice(&code.to_le_bytes());
    out.extend_from_slice(&(value.len() as u16).to_le_bytes());
    out.extend_from_slice(value);
    out.resize(pad4(out.len()), 0);
}

/// A block: type, total length, `body` (already a multiple of 4), total length again.
fn block(kind: u32, body: &[u8]) -> Vec<u8> {
    debug_assert_eq!(body.len() % 4, 0);
    let total = (12 + body.len()) as u32;
    let mut b = Vec::with_capacity(total as usize);
    b.extend_from_slice(&kind.to_le_bytes());
    b.extend_from_slice(&total.to_le_bytes());
    b.extend_from_slice(body);
    b.extend_from_slice(&total.to_le_bytes());
    b
}

/// Options, then opt_endofopt (none at all when there are none).
fn with_options(mut body: Vec<u8>, opts: &[(u16, &[u8])]) -> Vec<u8> {
    if !opts.is_empty() {
        for (code, value) in opts {
            option(&mut body, *code, value);
        }
        option(&mut body, OPT_END, &[]);
    }
    body
}

fn cut(comment: &str) -> &[u8] {
    let mut end = comment.len().min(MAX_COMMENT);
    while !comment.is_char_boundary(end) {
        end -= 1;
    }
    &comment.as_bytes()[..end]
}

pub fn section_header(app: &str) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
    body.extend_from_slice(&1u16.to_le_bytes()); // version 1.0
    body.extend_from_slice(&0u16.to_le_bytes());
    body.extend_from_slice(&(-1i64).to_le_bytes()); // section length: not given
    block(SHB, &with_options(body, &[(SHB_USERAPPL, app.as_bytes())]))
}

pub fn interface(name: &str, snaplen: u32) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
    body.extend_from_slice(&0u16.to_le_bytes());
    body.extend_from_slice(&snaplen.to_le_bytes());
    block(IDB, &with_options(body, &[(IF_NAME, name.as_bytes()), (IF_TSRESOL, &[9])]))
}

fn stamp(body: &mut Vec<u8>, ts_ns: u64) {
    body.extend_from_slice(&0u32.to_le_bytes()); // interface 0
    body.extend_from_slice(&((ts_ns >> 32) as u32).to_le_bytes());
    body.extend_from_slice(&(ts_ns as u32).to_le_bytes());
}

/// A frame of `orig_len` bytes (`data`: what is written of it) at `ts_ns` (realtime ns).
pub fn packet(ts_ns: u64, data: &[u8], orig_len: u32, comment: Option<&str>) -> Vec<u8> {
    let mut body = Vec::with_capacity(20 + pad4(data.len()) + 16);
    stamp(&mut body, ts_ns);
    body.extend_from_slice(&(data.len() as u32).to_le_bytes());
    body.extend_from_slice(&orig_len.to_le_bytes());
    body.extend_from_slice(data);
    body.resize(pad4(body.len()), 0);
    let opts: Vec<(u16, &[u8])> = comment.map(|c| vec![(OPT_COMMENT, cut(c))]).unwrap_or_default();
    block(EPB, &with_options(body, &opts))
}

pub fn statistics(ts_ns: u64, received: u64, dropped: u64, comment: Option<&str>) -> Vec<u8> {
    let mut body = Vec::new();
    stamp(&mut body, ts_ns);
    let (r, d) = (received.to_le_bytes(), dropped.to_le_bytes());
    let mut opts: Vec<(u16, &[u8])> = vec![(ISB_IFRECV, &r), (ISB_IFDROP, &d)];
    if let Some(c) = comment {
        opts.push((OPT_COMMENT, cut(c)));
    }
    block(ISB, &with_options(body, &opts))
}

/// One wire's capture (see module doc). Times given to it are the engine's (monotonic) ns;
/// `offset` is realtime minus monotonic when it opened.
pub struct Capture<W: Write> {
    out: W,
    offset: i128,
    limit: u64,
    /// Bytes of frames' blocks written.
    pub written: u64,
    /// Frames written, and frames the wire carried after the capture stopped (not written).
    pub frames: u64,
    pub skipped: u64,
    notes: Vec<String>,
    more_notes: u64,
    /// Why it stopped writing frames (its limit, a write error), once it has.
    pub stopped: Option<String>,
}

impl<W: Write> Capture<W> {
    pub fn new(mut out: W, wire: &str, limit: u64, offset: i128) -> std::io::Result<Capture<W>> {
        out.write_all(&section_header(concat!("beowulf-medium ", env!("CARGO_PKG_VERSION"))))?;
        out.write_all(&interface(wire, 65535))?;
        Ok(Capture { out, offset, limit, written: 0, frames: 0, skipped: 0, notes: Vec::new(), more_notes: 0, stopped: None })
    }

    fn real(&self, t: u64) -> u64 {
        (t as i128 + self.offset).max(0) as u64
    }

    /// Engine time `t` as the capture's clock reads it (realtime seconds.nanoseconds, as
    /// Wireshark's epoch time column shows a frame's), for a note.
    pub fn at(&self, t: u64) -> String {
        let r = self.real(t);
        format!("{}.{:09}", r / 1_000_000_000, r % 1_000_000_000)
    }

    /// Something that happened on the wire: said in the next frame's comment.
    pub fn note(&mut self, text: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(text);
        } else {
            self.more_notes += 1;
        }
    }

    fn pending(&mut self, own: Option<String>) -> Option<String> {
        let mut parts: Vec<String> = own.into_iter().collect();
        if !self.notes.is_empty() {
            let mut before = format!("before it: {}", self.notes.join("; "));
            if self.more_notes > 0 {
                before.push_str(&format!("; and {} more", self.more_notes));
            }
            parts.push(before);
        }
        self.notes.clear();
        self.more_notes = 0;
        if parts.is_empty() { None } else { Some(parts.join("; ")) }
    }

    /// A frame whose last bit left the wire at `end` (engine ns); `own`: its own comment.
    pub fn frame(&mut self, end: u64, data: &[u8], own: Option<String>) {
        if self.stopped.is_some() {
            self.skipped += 1;
            return;
        }
        let comment = self.pending(own);
        let b = packet(self.real(end), data, data.len() as u32, comment.as_deref());
        if self.written + b.len() as u64 > self.limit {
            self.stop(end, format!("capture limit of {} bytes reached", self.limit));
            self.skipped += 1;
            return;
        }
        match self.out.write_all(&b) {
            Ok(()) => {
                self.written += b.len() as u64;
                self.frames += 1;
            }
            Err(e) => {
                self.stop(end, format!("write failed: {}", e));
                self.skipped += 1;
            }
        }
    }

    /// Stop writing frames, saying why at once.
    fn stop(&mut self, t: u64, why: String) {
        let text = format!("{}: the frames after this are counted (isb_ifdrop), not written", why);
        let isb = statistics(self.real(t), self.frames, self.skipped, Some(&text));
        let _ = self.out.write_all(&isb);
        self.stopped = Some(why);
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }

    /// The closing statistics at `t` (engine ns): frames carried, frames not written, and any
    /// notes no later frame took.
    pub fn finish(&mut self, t: u64) {
        let comment = self.pending(None).map(|c| format!("at the end, {}", c.trim_start_matches("before it: ")));
        let isb = statistics(self.real(t), self.frames + self.skipped, self.skipped, comment.as_deref());
        let _ = self.out.write_all(&isb);
        self.flush();
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks a pcapng byte string as a reader would: every block's total length is a multiple of
    /// 4, repeated at its end, and covers exactly its bytes. Returns (type, body) per block.
    fn blocks(bytes: &[u8]) -> Vec<(u32, Vec<u8>)> {
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let (kind, total) = (u32_at(i), u32_at(i + 4) as usize);
            assert!(total >= 12 && total % 4 == 0, "block at {} of length {}", i, total);
            assert!(i + total <= bytes.len(), "block at {} runs past the end", i);
            assert_eq!(u32_at(i + total - 4) as usize, total, "the trailing length of the block at {}", i);
            out.push((kind, bytes[i + 8..i + total - 4].to_vec()));
            i += total;
        }
        assert_eq!(i, bytes.len());
        out
    }

    /// The options from `at` in a block's body: (code, value), up to opt_endofopt.
    fn options(body: &[u8], mut at: usize) -> Vec<(u16, Vec<u8>)> {
        let mut out = Vec::new();
        while at + 4 <= body.len() {
            let code = u16::from_le_bytes([body[at], body[at + 1]]);
            let len = u16::from_le_bytes([body[at + 2], body[at + 3]]) as usize;
            if code == 0 {
                assert_eq!(len, 0);
                assert_eq!(at + 4, body.len(), "opt_endofopt ends the block");
                return out;
            }
            out.push((code, body[at + 4..at + 4 + len].to_vec()));
            at += 4 + pad4(len);
        }
        assert_eq!(at, body.len());
        out
    }

    fn u32le(b: &[u8], i: usize) -> u32 {
        u32::from_le_bytes(b[i..i + 4].try_into().unwrap())
    }

    #[test]
    fn a_capture_is_a_section_an_ethernet_interface_in_ns_and_its_frames() {
        let frame: Vec<u8> = (0..61u8).collect(); // 61 B: padded to 64 in its block
        let mut cap = Capture::new(Vec::new(), "w0", 1 << 20, 1_000_000_000_000).unwrap();
        cap.frame(5_000, &frame, None);
        assert_eq!(cap.at(5_000), "1000.000005000");
        cap.note("collision of ports a, b".into());
        cap.frame(80_000, &frame[..60], Some("after 1 collision".into()));
        cap.finish(90_000);
        let bytes = cap.into_inner();
        let b = blocks(&bytes);
        let kinds: Vec<u32> = b.iter().map(|x| x.0).collect();
        assert_eq!(kinds, vec![SHB, IDB, EPB, EPB, ISB]);
        // the section: its byte-order magic as the first bytes of its body, version 1.0
        assert_eq!(&bytes[8..12], &[0x4D, 0x3C, 0x2B, 0x1A]);
        assert_eq!(u32le(&b[0].1, 0), BYTE_ORDER_MAGIC);
        assert_eq!(&b[0].1[4..8], &[1, 0, 0, 0]);
        assert_eq!(i64::from_le_bytes(b[0].1[8..16].try_into().unwrap()), -1);
        assert!(options(&b[0].1, 16)[0].1.starts_with(b"beowulf-medium"));
        // the interface: Ethernet, named after the wire, nanosecond stamps
        assert_eq!(u16::from_le_bytes([b[1].1[0], b[1].1[1]]), LINKTYPE_ETHERNET);
        assert_eq!(options(&b[1].1, 8), vec![(IF_NAME, b"w0".to_vec()), (IF_TSRESOL, vec![9])]);
        // a frame: interface 0, its stamp (realtime ns), its lengths, its bytes, no options
        let e = &b[2].1;
        let ts = ((u32le(e, 4) as u64) << 32) | u32le(e, 8) as u64;
        assert_eq!((u32le(e, 0), ts), (0, 1_000_000_005_000));
        assert_eq!((u32le(e, 12), u32le(e, 16)), (61, 61));
        assert_eq!(&e[20..81], &frame[..]);
        assert_eq!(e.len(), 20 + 64, "no options, the data padded to 4");
        // the next: its own comment and what happened before it
        let e = &b[3].1;
        assert_eq!(((u32le(e, 4) as u64) << 32) | u32le(e, 8) as u64, 1_000_000_080_000);
        let opts = options(e, 20 + 60);
        assert_eq!(opts.len(), 1);
        assert_eq!(opts[0].0, OPT_COMMENT);
        assert_eq!(String::from_utf8(opts[0].1.clone()).unwrap(), "after 1 collision; before it: collision of ports a, b");
        // the closing statistics: 2 carried, none left out
        let opts = options(&b[4].1, 12);
        assert_eq!(opts[0], (ISB_IFRECV, 2u64.to_le_bytes().to_vec()));
        assert_eq!(opts[1], (ISB_IFDROP, 0u64.to_le_bytes().to_vec()));
    }

    #[test]
    fn a_capture_stops_at_its_limit_and_counts_the_rest() {
        let frame = vec![0u8; 1514];
        let one = packet(0, &frame, 1514, None).len() as u64;
        let mut cap = Capture::new(Vec::new(), "w1", 3 * one + 10, 0).unwrap();
        for i in 0..10 {
            cap.frame(i * 1000, &frame, None);
        }
        cap.note("port x dropped a frame (16 collisions)".into());
        cap.finish(20_000);
        assert_eq!((cap.frames, cap.skipped, cap.written), (3, 7, 3 * one));
        assert!(cap.stopped.as_deref().unwrap().contains("limit"));
        let bytes = cap.into_inner();
        let b = blocks(&bytes);
        let kinds: Vec<u32> = b.iter().map(|x| x.0).collect();
        assert_eq!(kinds, vec![SHB, IDB, EPB, EPB, EPB, ISB, ISB]);
        let said = options(&b[5].1, 12);
        assert!(String::from_utf8_lossy(&said[2].1).contains("capture limit of"));
        let last = options(&b[6].1, 12);
        assert_eq!(last[0], (ISB_IFRECV, 10u64.to_le_bytes().to_vec()));
        assert_eq!(last[1], (ISB_IFDROP, 7u64.to_le_bytes().to_vec()));
        assert!(String::from_utf8_lossy(&last[2].1).contains("at the end, port x dropped"));
        assert!(bytes.len() as u64 <= 3 * one + 10 + 512);
    }

    #[test]
    fn notes_are_bounded_and_comments_cut_on_a_character() {
        let mut cap = Capture::new(Vec::new(), "w0", 1 << 20, 0).unwrap();
        for i in 0..100 {
            cap.note(format!("collision {}", i));
        }
        cap.frame(1, &[0u8; 60], None);
        let bytes = cap.into_inner();
        let b = blocks(&bytes);
        let c = String::from_utf8(options(&b[2].1, 80)[0].1.clone()).unwrap();
        assert!(c.contains("collision 7") && !c.contains("collision 8;") && c.ends_with("and 92 more"));
        let long = "é".repeat(3000);
        let p = packet(0, &[], 0, Some(&long));
        let got = options(&blocks(&p)[0].1, 20)[0].1.clone();
        assert!(got.len() <= MAX_COMMENT && String::from_utf8(got).is_ok());
    }
}
