"""Ethernet's arithmetic: what a frame costs on the wire and what a wire can carry.

802.3 framing as the model charges it (netlab's shapers apply it; the gates, the judge's bounds,
the workloads' estimates and the benchmarks read it): a qdisc sees each frame as a 14 B header +
the IP packet; the wire also carries 8 B of preamble and SFD, a 4 B FCS and a 12 B inter-frame
gap, and pads a frame to 60 B (64 with the FCS). Pure numbers, below netlab, so the readers
above it need no tc command builder to know a frame's size.
What a wire costs a frame and what it costs the frame's receiver differ by the gap: the wire is
busy for the frame and its gap (wire_bytes, frame_time_s: what a wire can carry), but the frame
reaches its receivers when its last bit does, the path's delay later (delivery_time_s: what a lone
frame adds to a round trip), as the medium engine delivers it (engine/src/model.rs).
"""
from __future__ import annotations

PREAMBLE_SFD = 8
FCS = 4
IFG = 12
WIRE_OVERHEAD = PREAMBLE_SFD + FCS + IFG   # bytes a qdisc never sees
MIN_FRAME = 60                             # without FCS, as the qdisc sees it
ETH_HEADER = 14
MTU = 1500
MAX_FRAME_ON_WIRE = MTU + ETH_HEADER + WIRE_OVERHEAD  # 1538
MSS = 1448                                 # TCP payload of a full frame (with timestamps: 1436)

# Propagation between two stations of a segment: two 100 m runs of Cat 3 UTP (10BASE-T's longest)
# at 0.585 c (the cable's nominal velocity of propagation): 2 x 100 / (0.585 x 3e8) s. The medium
# engine is configured with it on every segment (netlab.medium) and adds a hub's repeater delay.
PROP_NS = 1140
# A hub's repeater delay in bit times of its segment, as the engine's default declares it
# (engine/src/model.rs REPEATER_BITS_10, REPEATER_BITS_100: 10BASE-T's 1.0 us, a Class II
# 100BASE-TX repeater's 46 bit times); a full-duplex (point-to-point) segment has none.
REPEATER_BITS_10 = 10
REPEATER_BITS_100 = 46


def wire_bytes(l2_len: int) -> int:
    """Bytes a frame occupies on the wire, given its length as a qdisc sees it."""
    return max(l2_len, MIN_FRAME) + WIRE_OVERHEAD


def frame_time_s(l2_len: int, rate_mbit: float) -> float:
    """How long a frame keeps its wire from the next frame: its bytes on the wire, gap included."""
    return wire_bytes(l2_len) * 8 / (rate_mbit * 1e6)


def carrier_bytes(l2_len: int) -> int:
    """Bytes a frame's carrier lasts: preamble and SFD to FCS, without the gap after it."""
    return max(l2_len, MIN_FRAME) + FCS + PREAMBLE_SFD


def path_ns(rate_mbit: float, full_duplex: bool = False) -> float:
    """The delay between two stations of one segment, as the engine models it (its path_ns and
    default_repeater_ns): the cable's PROP_NS, and on a hub (half duplex) the repeater's
    REPEATER_BITS_10 bit times at up to 10 Mbit/s, REPEATER_BITS_100 above."""
    if full_duplex:
        return float(PROP_NS)
    bits = REPEATER_BITS_10 if rate_mbit <= 10 else REPEATER_BITS_100
    return PROP_NS + bits * 1e3 / rate_mbit


def delivery_time_s(l2_len: int, rate_mbit: float, full_duplex: bool = False) -> float:
    """How long a lone frame takes to reach its receivers from its first bit on the wire: its
    carrier (carrier_bytes: 72 B for a minimum frame, 57.6 us at 10 Mbit/s) and the segment's
    path delay (path_ns: 2.14 us on a 10 Mbit/s hub), which is when the medium engine delivers it
    (engine/src/model.rs: at its last bit, plus the path delay). Not frame_time_s: the 12-byte gap
    after a frame belongs to the next frame (it delays only the next carrier on the wire), so a
    lone frame's receiver never waits for it (a minimum frame at 10 Mbit/s: 59.74 us, not 67.2).
    In real time at the wire's real rate, as frame_time_s: a time-scaled caller multiplies by D."""
    return carrier_bytes(l2_len) * 8 / (rate_mbit * 1e6) + path_ns(rate_mbit, full_duplex) / 1e9


def payload_capacity_bytes_s(rate_mbit: float) -> float:
    """Most TCP payload one wire can carry per second (full frames, no ACKs)."""
    return rate_mbit * 1e6 / 8 * MSS / MAX_FRAME_ON_WIRE


def tcp_goodput_limit_mbit(rate_mbit: float, mss: int = MSS, acks_per_segment: float = 0.0) -> float:
    """Most TCP payload a wire can carry.

    With acks_per_segment=0 this is the full-duplex figure (10 Mbit/s, MSS 1448:
    9.41). On a shared half-duplex wire the ACKs travel on the same medium, so
    pass the measured ACK ratio (Linux ACKs about every segment at 10 Mbit/s).
    """
    data = wire_bytes(mss + 52 + ETH_HEADER)  # 20 B IP + 32 B TCP with timestamps
    ack = wire_bytes(52 + ETH_HEADER)
    return rate_mbit * mss / (data + acks_per_segment * ack)


def gap_bytes(gap_us: float, real_rate_mbit: float) -> int:
    """A card's gap between frames as bytes at the wire's real (unscaled) rate: on a time-scaled
    network the shaper runs D times slower, so the same bytes take D x T, as every other time there does."""
    return round(gap_us * real_rate_mbit / 8)
