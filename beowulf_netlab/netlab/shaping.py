"""tc command builders for Ethernet wires (what a wire can carry is topologies.ethernet's).

Pure functions returning argument lists, so they are unit-tested without root
and the runner records exactly what was applied.

How a wire is charged. The qdisc sees each frame as 14 B header + IP packet.
A real 802.3 frame also costs 8 B preamble/SFD, 4 B FCS and a 12 B inter-frame
gap on the wire, and is padded to a 60 B minimum (64 with FCS). A size table
(`stab ... overhead 24 mpu 84`) on the root qdisc makes HTB charge every frame
exactly those on-wire bytes, so TCP goodput tops out at the physical limit
instead of above it.

Burst. HTB lets a class send while its bucket is non-negative; a large burst
lets idle time be banked and spent as back-to-back frames at no wire cost,
which breaks ping-pong timing. We keep the bucket at about one full frame, so
at most one frame per idle period goes out before being charged.
"""
from __future__ import annotations

from beowulf_netlab.topologies.spec import Impairment, QUEUE_PACKETS

# the Ethernet arithmetic is the model's, below netlab (topologies.ethernet): re-exported for the
# tc builders here and the benchmarks
from beowulf_netlab.topologies.ethernet import (ETH_HEADER, FCS, IFG, MAX_FRAME_ON_WIRE, MIN_FRAME, MSS, MTU,  # noqa: F401
                                                PREAMBLE_SFD, WIRE_OVERHEAD, frame_time_s, payload_capacity_bytes_s,
                                                tcp_goodput_limit_mbit, wire_bytes)


def burst_bytes(rate_mbit: float) -> int:
    """About one full frame, more only at rates where the kernel's timers need it."""
    return max(MAX_FRAME_ON_WIRE + 62, int(rate_mbit * 1e6 / 8 * 100e-6))


def rate_arg(rate_mbit: float) -> str:
    return f"{rate_mbit * 1000:.0f}kbit"


def stab_args() -> list[str]:
    return ["stab", "mtu", "2048", "tsize", "2048", "mpu", str(MIN_FRAME + WIRE_OVERHEAD),
            "overhead", str(WIRE_OVERHEAD), "linklayer", "ethernet"]


def us_arg(value_ms: float) -> str:
    return f"{value_ms * 1000:.0f}us"


def netem_args(imp: Impairment, queue_packets: int) -> list[str]:
    """A netem leaf in place of the FIFO: it queues (limit) and impairs.
    Loss and delay only; rate stays with HTB, which charges on-wire bytes."""
    args = ["netem", "limit", str(queue_packets)]
    if imp.delay_ms or imp.jitter_ms:
        args += ["delay", us_arg(imp.delay_ms)]
        if imp.jitter_ms:
            args += [us_arg(imp.jitter_ms)]
    if imp.loss_pct:
        args += ["loss", f"{imp.loss_pct:g}%"]
    return args


def leaf_qdisc(queue_packets: int, imp: Impairment | None = None) -> list[str]:
    if imp is not None and imp.active:
        return netem_args(imp, queue_packets)
    return ["pfifo", "limit", str(queue_packets)]


def htb_root_cmds(dev: str, rate_mbit: float, default: str, burst: int | None = None,
                  overhead: int = 0) -> list[list[str]]:
    """Root HTB charging on-wire bytes, with class 1:1 capped at `rate_mbit`; `burst` (default about
    one frame) and `overhead` (bytes the class adds to every frame: a card's gap, netlab.nic)."""
    burst = str(burst_bytes(rate_mbit) if burst is None else burst)
    # r2q keeps HTB's quantum near one frame at any rate (silences its warnings).
    r2q = str(max(1, int(rate_mbit * 1e6 / 8 / MAX_FRAME_ON_WIRE)))
    return [
        ["tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", *stab_args(),
         "htb", "default", default, "r2q", r2q],
        ["tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb",
         "rate", rate_arg(rate_mbit), "ceil", rate_arg(rate_mbit), "burst", burst, "cburst", burst,
         *(["overhead", str(overhead)] if overhead else [])],
    ]


DEFAULT_STATION = 0xfff


def shared_wire_cmds(ifb: str, rate_mbit: float, station_macs: list[str],
                     queue_packets: int = QUEUE_PACKETS,
                     impairment: Impairment | None = None,
                     full_duplex: bool = False) -> list[list[str]]:
    """One HTB tree on the wire's IFB: the wire (1:1) caps everything at the
    rate; under it one leaf per station, found by source MAC, with its own
    FIFO (its NIC's transmit queue) and a 1/n assured share. Backlogged stations
    borrow the rest round-robin, a frame at a time, as stations with a frame
    ready take turns on a real segment. Frames from unknown sources (a switch
    joining this wire forwards other wires' stations) share a default leaf,
    which acts as the switch port's station. An impaired wire has netem leaves:
    every frame entering the wire passes exactly one leaf, so it is delayed
    (and may be lost) once per crossing.
    A full-duplex wire (a switched port: one station and the switch) gives
    each direction the whole rate: the wire class allows twice the rate and
    each leaf (the station's sending, the switch's sending) is capped at it.
    """
    burst = str(burst_bytes(rate_mbit))
    n = len(station_macs) + 1
    share = rate_arg(rate_mbit if full_duplex else rate_mbit / n)
    quantum = str(MAX_FRAME_ON_WIRE)
    cmds = htb_root_cmds(ifb, rate_mbit * (2 if full_duplex else 1), f"{DEFAULT_STATION:x}")
    leaves = [(0x100 + i, mac) for i, mac in enumerate(station_macs)] + [(DEFAULT_STATION, None)]
    for minor, mac in leaves:
        cls = f"1:{minor:x}"
        cmds.append(["tc", "class", "add", "dev", ifb, "parent", "1:1", "classid", cls, "htb",
                     "rate", share, "ceil", rate_arg(rate_mbit), "burst", burst, "cburst", burst,
                     "quantum", quantum])
        cmds.append(["tc", "qdisc", "add", "dev", ifb, "parent", cls, "handle", f"{minor:x}:",
                     *leaf_qdisc(queue_packets, impairment)])
        if mac:
            cmds.append(["tc", "filter", "add", "dev", ifb, "parent", "1:", "protocol", "all",
                         "prio", "1", "u32", "match", "ether", "src", mac, "flowid", cls])
    return cmds


def redirect_ingress_cmds(port: str, ifb: str) -> list[list[str]]:
    """Send everything entering the bridge through `port` via `ifb` first.

    A u32 match on zero bits matches every frame; matchall would be clearer but
    is not built into every kernel (it is absent on the project's CI host).
    """
    return [
        ["tc", "qdisc", "add", "dev", port, "handle", "ffff:", "ingress"],
        ["tc", "filter", "add", "dev", port, "parent", "ffff:", "protocol", "all", "prio", "1",
         "u32", "match", "u32", "0", "0", "action", "mirred", "egress", "redirect", "dev", ifb],
    ]


def offload_off_cmd(dev: str) -> list[str]:
    """Per-frame shaping needs real frames (no TSO/GSO/GRO super-packets), and
    userspace switching needs real checksums (TX checksum offload off)."""
    return ["ethtool", "-K", dev, "tx", "off", "sg", "off", "tso", "off", "gso", "off", "gro", "off"]


def one_frame_per_skb_cmd(dev: str) -> list[str]:
    """TCP builds multi-segment (GSO) packets even when the device has GSO off
    (Linux >= 4.19 segments them in software just before the device). Anything
    that acts per packet above the device, such as the nftables bonding
    fallback's round-robin mark, would then stripe whole bursts, not frames.
    One segment per packet makes every packet a frame."""
    return ["ip", "link", "set", "dev", dev, "gso_max_segs", "1"]


def class_stats(text: str) -> dict[str, dict]:
    """`tc -s class show` output -> classid -> {bytes, packets, backlog (packets), leaf}.
    The one reader of HTB counters: wires, node CPU budgets and the contention
    controller all read their classes through it. Bytes are as the root's size
    table counted them (framing or per-packet cost included)."""
    stats: dict[str, dict] = {}
    current = None
    for line in text.splitlines():
        words = line.split()
        if words[:2] == ["class", "htb"]:
            current = words[2]
            stats[current] = {"bytes": 0, "packets": 0, "backlog": 0, "leaf": "leaf" in words}
        elif current and words[:1] == ["Sent"]:
            stats[current].update(bytes=int(words[1]), packets=int(words[3]))
        elif current and words[:1] == ["backlog"]:
            stats[current]["backlog"] = int(words[2].rstrip("p"))
    return stats
