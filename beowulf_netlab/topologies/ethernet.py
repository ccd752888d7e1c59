"""Ethernet's arithmetic: what a frame costs on the wire and what a wire can carry.

802.3 framing as the model charges it (netlab's shapers apply it; the gates, the judge's bounds,
the workloads' estimates and the benchmarks read it): a qdisc sees each frame as a 14 B header +
the IP packet; the wire also carries 8 B of preamble and SFD, a 4 B FCS and a 12 B inter-frame
gap, and pads a frame to 60 B (64 with the FCS). Pure numbers, below netlab, so the readers
above it need no tc command builder to know a frame's size.
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


def wire_bytes(l2_len: int) -> int:
    """Bytes a frame occupies on the wire, given its length as a qdisc sees it."""
    return max(l2_len, MIN_FRAME) + WIRE_OVERHEAD


def frame_time_s(l2_len: int, rate_mbit: float) -> float:
    return wire_bytes(l2_len) * 8 / (rate_mbit * 1e6)


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
