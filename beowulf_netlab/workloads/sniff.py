"""A third station sniffs a pair's pings: what a hub repeats to everyone and a switch does not.

A hub repeats every frame to every station, and each card keeps what is addressed to it
(its own address, broadcast, its multicast groups) unless it is in promiscuous mode, when it
passes up everything its wire brought. A switch learns on which port each address sits and
sends a unicast frame to that port alone; only what it floods (broadcast, such as an ARP
request, and unicast to an address it has not learned) reaches every port. So a station in
promiscuous mode sees all of a pair's frames on a hub and almost none of them on a switch.

For each point every pair (b0 -> b1 unless --pairs or --pairs-list say otherwise) sends
--pings pings, one every PING_INTERVAL_S, while the listener (--listener, else the first node
that is neither an end nor a relay of a pair) counts, in promiscuous mode on each of its
cards (sniff_agent.py, run inside it), the frames it sees: all of them, those one of the
pairs' cards sent (by source address: `pair_frames_seen`), and those addressed to another card
(`foreign_frames_seen`: what a card out of promiscuous mode drops). What the pairs' cards sent
(`pair_frames_sent`) is read from their own counters, so ARP counts on both sides, and
`seen_share` is the one over the other. Each point starts from cold ARP caches on the pairs'
nodes, as on a fresh network: the first frame is ARP's broadcast request, and repeats on one
network count alike.

On the tc wire (wire_impl tc) a shared wire is a Linux bridge that learns addresses, a switch
in all but name, so a listener on one is refused: the medium engine repeats every frame.
"""
from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import time

from beowulf_netlab.core.command import python
from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.fields import RESOLVED, Field
from beowulf_netlab.core.settings import Setting, axes, fields
from beowulf_netlab.workloads.agent import Agents, WorkloadFailed
from beowulf_netlab.workloads.base import PAIRS, PAIRS_LIST, Figure, Workload
from beowulf_netlab.workloads.placement import Pair, place, wire_load

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sniff_agent.py")
PING_INTERVAL_S = 0.1   # 20 pings end in 2 s, before Linux's first ARP re-probe (delay_first_probe_time, 5 s)
SETTLE_S = 0.3          # after the last reply: its copies reach the listener before it stops counting
SETUP_S = 0.5           # ARP caches flushed, the listener's interpreter started, counters read
TOPOLOGIES = ("single-net", "switched-cluster")   # a hub and a switch: `run sniff` alone compares them

_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")


def check_name(text: str) -> str:
    """A node's name as --listener takes it (whether the node exists is the network's to say)."""
    if not _NAME.fullmatch(str(text)):
        raise BadInput(f"--listener takes a node's name (e.g. b2), got {text!r}")
    return str(text)


SETTINGS = (
    dataclasses.replace(PAIRS, default=[1]),
    PAIRS_LIST,
    Setting("pings", "int", 20, "ping exchanges (an echo request and its reply) per pair",
            many=False, minimum=1, maximum=10_000),
    Setting("listener", "text", None, "the node that counts the frames it sees, in promiscuous mode; unset: "
            "the first node that is neither an end nor a relay of a pair", many=False, optional=True,
            validator=check_name, record_type=("string", "null"), record_note="null: the first free node"),
)
AXES = axes(SETTINGS)

FIELDS = (
    *fields(SETTINGS),
    Field("listened_on", "string", "the node that listened: --listener, else the first node neither an end "
          "nor a relay of a pair", RESOLVED, csv=True),
    Field("frames_seen", "integer", "frames the listener's cards passed up in promiscuous mode", csv=True,
          schema={"minimum": 0}),
    Field("pair_frames_seen", "integer", "of those, frames one of the pairs' cards sent (by source address)",
          csv=True, schema={"minimum": 0}),
    Field("foreign_frames_seen", "integer", "of those, frames addressed to another card: what a card out of "
          "promiscuous mode drops", csv=True, schema={"minimum": 0}),
    Field("pair_frames_sent", "integer", "frames the pairs' cards sent over the point (their own counters: "
          "ARP, echo requests and replies)", csv=True, schema={"minimum": 0}),
    Field("seen_share", ("number", "null"), "pair_frames_seen / pair_frames_sent: the share of the pairs' "
          "frames the listener saw (null when they sent none)", csv=True, schema={"minimum": 0}),
    Field("ping_replies", "integer", "echo replies the pairs received, of pings x pairs", schema={"minimum": 0}),
    Field("rtt_ms_median", ("number", "null"), "median round trip of the pings after each pair's first "
          "(which waits for ARP), ms", unit="ms"),
    Field("elapsed_s", "number", "the pings' time, s", unit="s"),
    Field("socket_drops", "integer", "frames the listener's sockets dropped (a full queue; 0 or the counts "
          "are short)", schema={"minimum": 0}),
    Field("pairs_placed", "array", "src->dst of each pair, with its wire or relay"),
)

def listener_of(spec, pairs: list[Pair], asked: str | None) -> str:
    """The node that listens: `asked`, or the first node no pair uses (end or relay)."""
    busy = {n for p in pairs for n in (p.src, p.dst, p.relay) if n}
    names = [n.name for n in spec.nodes]
    if asked is not None:
        if asked not in names:
            raise BadInput(f"--listener {asked}: {spec.topology} has no node {asked} (emulate.py topo show "
                           f"{spec.topology})")
        if asked in busy:
            raise BadInput(f"--listener {asked} is an end or the relay of a pair, so its frames reach it by "
                           "address: name a third station")
        return asked
    free = [n for n in names if n not in busy]
    if not free:
        raise BadInput(f"sniff needs a station besides the pairs' ({len(busy)} of {spec.topology}'s "
                       f"{len(names)} nodes): use fewer --pairs or more --nodes")
    return free[0]


def share(seen: int, sent: int) -> float | None:
    """The share of the pairs' frames the listener saw; None when they sent none."""
    return seen / sent if sent > 0 else None


def ping_summary(out: str) -> tuple[int, list[float]]:
    """(echo replies received, round trips in ms after the first) from ping's output."""
    m = re.search(r"(\d+) packets transmitted, (\d+) (?:packets )?received", out)
    replies = int(m.group(2)) if m else 0
    return replies, [float(t) for t in re.findall(r"time=([0-9.]+) ms", out)][1:]


def learning_wires(spec, listener: str, wire_impl: str | None) -> list[str]:
    """The shared wires the listener sits on that a learning bridge carries (wire_impl tc): a
    switch in all but name, so what the listener sees there is not a hub's."""
    if wire_impl == "engine":
        return []
    node = next(n for n in spec.nodes if n.name == listener)
    return [w for w in node.wires if not spec.wire(w).full_duplex]


def check(spec, point: dict, settings: dict) -> None:
    pairs = place(spec, point["pairs"], point["placement"], point.get("pairs_list"))
    listener_of(spec, pairs, settings.get("listener"))


def sent_frames(hosts) -> tuple[int, int]:
    """(frames, bytes) the hosts' cards have sent so far."""
    frames = size = 0
    for h in hosts:
        for nic in h.nics():
            frames += int(h.read_file(f"/sys/class/net/{nic}/statistics/tx_packets"))
            size += int(h.read_file(f"/sys/class/net/{nic}/statistics/tx_bytes"))
    return frames, size


def run_point(tb, _context, point: dict, settings: dict) -> dict:
    spec = tb.spec
    pairs = place(spec, point["pairs"], point["placement"], point.get("pairs_list"))
    name = listener_of(spec, pairs, settings.get("listener"))
    learning = learning_wires(spec, name, tb.impls.get("wire"))
    if learning:
        raise WorkloadFailed(f"sniff: {name}'s wire {learning[0]} is a Linux bridge here (wire_impl tc), which "
                             "learns addresses and so sends a unicast frame to its addressee only, as a switch "
                             "does: a hub needs the medium engine (drop --wire tc; emulate.py doctor says "
                             "whether it is built)")
    ends = [tb.host(n) for p in pairs for n in (p.src, p.dst)]
    for h in {*ends, *(tb.host(p.relay) for p in pairs if p.relay)}:   # cold ARP caches: see module doc
        h.run(["ip", "neigh", "flush", "all"])
    macs = sorted({h.read_file(f"/sys/class/net/{nic}/address") for h in ends for nic in h.nics()})
    listener = tb.host(name)
    count = settings["pings"]
    with Agents() as agents:
        sniffer = agents.start(listener, python(AGENT, *[a for nic in listener.nics() for a in ("--nic", nic)],
                                                *[a for m in macs for a in ("--pair-mac", m)]),
                               f"sniff agent on {name}", stdin=True)
        sniffer.wait_ready()
        frames0, bytes0 = sent_frames(ends)
        t0 = time.monotonic()
        pings = [agents.start(tb.host(p.src), ["ping", "-n", "-c", str(count), "-i", f"{PING_INTERVAL_S:g}",
                                               "-W", "2", tb.host(p.dst).address], f"ping {p.src}->{p.dst}")
                 for p in pairs]
        outs = []
        for p, ping in zip(pairs, pings):
            try:
                out, _ = ping.proc.communicate(timeout=count * PING_INTERVAL_S + 30)
            except subprocess.TimeoutExpired:
                raise WorkloadFailed(f"ping {p.src}->{p.dst} did not end within {count * PING_INTERVAL_S + 30:g} s")
            outs.append(out.decode(errors="replace"))
        elapsed = time.monotonic() - t0
        time.sleep(SETTLE_S)
        frames1, bytes1 = sent_frames(ends)
        seen = sniffer.result(timeout=10)
    summaries = [ping_summary(o) for o in outs]
    rtts = sorted(t for _, ts in summaries for t in ts)
    sent = frames1 - frames0
    return {"throughput_mbyte_s": (bytes1 - bytes0) / elapsed / 1e6, "listened_on": name,
            "frames_seen": seen["frames_seen"], "pair_frames_seen": seen["pair_frames_seen"],
            "foreign_frames_seen": seen["foreign_frames_seen"], "pair_frames_sent": sent,
            "seen_share": share(seen["pair_frames_seen"], sent),
            "ping_replies": sum(r for r, _ in summaries),
            "rtt_ms_median": rtts[len(rtts) // 2] if rtts else None,
            "elapsed_s": elapsed, "socket_drops": seen["socket_drops"],
            "pairs_placed": [p.describe() for p in pairs], "wire_load": wire_load(pairs)}


def cost(_spec, _point: dict, settings: dict) -> float:
    """Seconds a point takes: its pings, the settling, the setup."""
    return settings["pings"] * PING_INTERVAL_S + SETTLE_S + SETUP_S


WORKLOAD = Workload(
    name="sniff", summary="a third station counts a pair's frames in promiscuous mode (hub against switch)",
    axes=AXES, fields=FIELDS, check=check, run_point=run_point, cost=cost, topologies=TOPOLOGIES,
    label=lambda pt: f"{pt['pairs']} pair{'s' if pt['pairs'] > 1 else ''}",
    figure=Figure("share of the pairs' frames a third station saw", x="pairs", x_label="pairs", x_step="one",
                  metrics=(("seen_share", "share seen"),),
                  table_extra=(("pair_frames_seen", "frames seen"), ("pair_frames_sent", "frames sent")),
                  y_label="share of the pairs' frames seen (pair_frames_seen / pair_frames_sent)",
                  unit="the median share and frame counts", digits=3,
                  counts=("pair_frames_seen", "pair_frames_sent")))
