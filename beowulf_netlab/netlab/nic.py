"""A network card's transmit path: one frame in flight, then a gap (`--tx-gap-us`).

Division of labor: topologies.presets records the gap in the machine (spec.machine.tx_gap_us);
this module works out each NIC's shaped rate and gap (nic_gaps, which netlab.topo hands each
node) and the tc argv the node applies to each NIC's root qdisc, after its CPU budget
(netlab.hostcost, on clsact).

Why. Linux 1.3.89's tulip.c v0.10+0.68 (the DEC 21140 driver the demonstration system most
probably ran; era-machines.md M6) sets tx_full on every frame it hands the card, so a NIC holds
one frame until the Tx-done interrupt and the driver's bottom half give it the next: back-to-back
frames leave T apart, a sender gets frame / (frame + T) of its wire (a full frame at 100 Mbit/s
takes 123 us). The gap is the card's and its interrupt's, not the wire's: other stations' frames
fill it on a shared segment, so the shaper sits on the NIC, never on the wire. T was never
measured (era-machines.md estimates 40-70 us), so no profile sets it: 0 (the default) leaves the
NIC unshaped, and beowulf_netlab/claims/sensitivity.json runs 40 and 70 beside the profile, reported, never
picked.

How. An HTB root at the wire's rate, charging on-wire bytes (the wire's size table: preamble,
FCS, inter-frame gap), whose class adds the gap to every frame as bytes at that rate
(T x rate / 8, HTB's per-class `overhead`): back to back, a card releases a frame every wire
time plus T. Its bucket holds half a gap (HTB sends while its tokens are not negative and
charges after sending): a lone frame after idle time leaves at once, the next waits its frame
and at least half its gap, and a timer that fires late by up to half a gap is made up. Measured
(one iperf3 flow, today's host, 6 s): T = 70 us at 100 Mbit/s carried 59.98 Mbit/s against
60.01 predicted with half a gap, 55.9 with no bucket (the kernel's timers about 14 us late a
frame); a bucket of one frame, as the wires have, carries 60.00 but lets a second frame leave
after idle time without its gap. What it does not do: the card's clock runs from its own
releases, not from when a frame has left the wire, so a frame that waits for a busy shared
segment (other stations, the collision model) waits in part during its predecessor's gap: under
load the gap costs a card less than frame + wait + T. The NIC's FIFO (queue_packets) comes in front of the
wire's own per-station queue, so a station may hold twice as many frames as without a gap.
"""
from __future__ import annotations

from beowulf_netlab.netlab.shaping import htb_root_cmds
from beowulf_netlab.topologies.ethernet import gap_bytes   # noqa: F401 (the card's gap as wire bytes; re-exported)
from beowulf_netlab.topologies.spec import NetworkSpec, Node
from beowulf_netlab.topologies.timescale import wire_rate


def nic_gaps(spec: NetworkSpec, node: Node) -> list[tuple[float, int]]:
    """(shaped rate, gap bytes) per NIC of the node, in NIC order, when the machine's cards leave
    a gap; [] otherwise. The rate is the wire's as shaped (time-scaled: / D), the bytes are the
    gap at the real rate (so the gap lasts D x T, as every other time on such a network)."""
    gap = spec.machine.tx_gap_us
    if not gap:
        return []
    return [(wire_rate(spec, spec.wire(w)), gap_bytes(gap, spec.wire(w).rate_mbit)) for w in node.wires]


def tx_gap_cmds(dev: str, rate_mbit: float, extra_bytes: int, queue_packets: int) -> list[list[str]]:
    """tc argv for one NIC (see module doc): rate_mbit is the wire's shaped rate, extra_bytes
    the gap (gap_bytes)."""
    # a bucket of half a gap: see the module doc
    return htb_root_cmds(dev, rate_mbit, "1", burst=max(1, extra_bytes // 2), overhead=extra_bytes) + [
        ["tc", "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "pfifo",
         "limit", str(queue_packets)],
    ]
