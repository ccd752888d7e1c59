"""A network card's transmit path: one frame in flight, then a gap (`--tx-gap-us`).

Division of labor: topologies.presets records the gap in the machine (spec.machine.tx_gap_us),
netlab.topo gives each node its NICs' wire rates, and this module builds the tc argv a node
applies to each NIC's root qdisc (after its CPU budget, netlab.hostcost, which runs on clsact).

Why. Linux 1.3.89's tulip.c (v0.10, the DEC 21140 driver the demonstration system most probably
ran; era-machines.md M6) sets tx_full on every frame it hands the card, so a NIC holds one frame
until the Tx-done interrupt and the driver's bottom half give it the next: back-to-back frames
leave T apart, a sender gets frame / (frame + T) of its wire (a full frame at 100 Mbit/s takes
123 us). The gap is the card's and its interrupt's, not the wire's: other stations' frames fill
it on a shared segment, so the shaper sits on the NIC, never on the wire. T was never measured
(era-machines.md estimates 40-70 us), so no profile sets it: 0 (the default) leaves the NIC
unshaped, and claims/sensitivity.json runs 40 and 70 beside the profile, reported, never picked.

How. An HTB root at the wire's rate, charging on-wire bytes (the wire's size table: preamble,
FCS, inter-frame gap), whose class adds the gap to every frame as bytes at that rate
(T x rate / 8, HTB's per-class `overhead`): a frame occupies the NIC for its wire time plus T, and a lone frame after idle time leaves at once
(HTB charges after sending; a Tx-done wait happens only behind a frame in flight).
"""
from __future__ import annotations

from netlab.shaping import MAX_FRAME_ON_WIRE, burst_bytes, rate_arg, stab_args

def gap_bytes(gap_us: float, real_rate_mbit: float) -> int:
    """The gap as bytes at the wire's real (unscaled) rate: on a time-scaled network the shaper
    runs D times slower, so the same bytes take D x T, as every other time there does."""
    return round(gap_us * real_rate_mbit / 8)


def tx_gap_cmds(dev: str, rate_mbit: float, extra_bytes: int, queue_packets: int) -> list[list[str]]:
    """tc argv for one NIC (see module doc): rate_mbit is the wire's shaped rate, extra_bytes
    the gap (gap_bytes)."""
    burst = str(burst_bytes(rate_mbit) + extra_bytes)
    r2q = str(max(1, int(rate_mbit * 1e6 / 8 / MAX_FRAME_ON_WIRE)))
    return [
        ["tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", *stab_args(),
         "htb", "default", "1", "r2q", r2q],
        ["tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb",
         "rate", rate_arg(rate_mbit), "ceil", rate_arg(rate_mbit), "burst", burst, "cburst", burst,
         "overhead", str(extra_bytes)],
        ["tc", "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "pfifo",
         "limit", str(queue_packets)],
    ]
