"""What the model lets one point read: the range of each reading, and what set its ends.

judge.forced asks whether a verdict could have failed, so it needs every reading the run's own
configuration admits for each point a check reads. Each end of that range comes from one kind
of source (core.verdicts.Forced), so that a verdict that cannot fail says which it rests on:
- the wiring: every wire a point's flows cross carries at most its Ethernet payload limit,
  shared by all the flows that cross it; a shared (half-duplex) wire carries both directions in
  that one limit (a token's echo and a copy's ACKs ride the same medium), a full-duplex port
  each direction apart. No frame carries more payload than min(a full segment, a token's bytes x
  tokens in flight), so small tokens are capped by their framing. A token exchange's aggregate is
  at most the largest sum of pair rates those shares admit (a small linear program, _most); a copy
  mix's, copies x the rate every remote copy can hold at once, since its slowest copy sets the
  time (all copies move one file size: the papers' metric, beowulf_netlab/workloads/filecopy.py).
- the model's construction (the workload and the hardware profile): every copy reads and writes
  its throttled disks; where the profile puts disk transfers on the CPU (PIO), a local copy moves
  each byte over its node's CPU twice, a remote copy once at each end plus the profile's per-byte
  and per-packet cost of the network; a token pair's nodes each pay per message, per packet and
  per byte; a lone pair with one token in flight on the medium engine cannot beat the round trip
  the profile's constants charge (netlab.hostcost.round_trip_us; today's hosts: its frames'
  delivery times, each frame's last bit and the path's delay, not the gap after it), the model's
  own floor on a round trip, so a ceiling on such a pair's throughput.
- a calibration: a point that measures one reads its target within its tolerance (outside it
  the calibration is missed and the claim not checkable), and so does a point a claim ties to one
  (a selection's `pin` in beowulf_netlab/claims/claims.json: the claim's own text says that point *is* the
  calibrated quantity); the judge holds a pinned point to the same band (judge.claims).
Every other floor is 0: a slower host, a charged CPU or a stalled transport can always make a
point read less, and the gates would not all catch it. The gates' own slack is included
(run.gates: SLACK on wires and CPUs, BOUND_SLACK on disks): a point beyond it fails a gate.
What a cap leaves out (ACK frames, relays' forwarding, a card's gaps) only makes it higher, so
every range here holds; it may be wider than the model's true one, never narrower.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from beowulf_netlab.core.verdicts import Forced
from beowulf_netlab.netlab.hostcost import TCP_IP_ETH_HEADERS, round_trip_us
from beowulf_netlab.topologies.ethernet import MAX_FRAME_ON_WIRE, MSS, MTU, wire_bytes
from beowulf_netlab.run import calibration as cal
from beowulf_netlab.run.gates import (BOUND_SLACK, LONE_FRAME_BYTES, LONE_RTT_TOLERANCE, SLACK, flow_duplex, flow_via,
                                      full_duplex_wires, model_round_trip_us)
from beowulf_netlab.topologies.hardware import NONE, HostCost, hardware_of, load
from beowulf_netlab.core.fields import MEASURED_PREFIX
from beowulf_netlab.topologies.timescale import time_scale_of
from beowulf_netlab.workloads import WORKLOADS

INF = math.inf
THROUGHPUT = "throughput_mbyte_s"
ROUND_TRIP = "rtt_ms_median"
LEVELS = (Forced.WIRING, Forced.CALIBRATION, Forced.MODEL)   # each level adds its sources to the last's
MOST_PAYLOAD = MTU - 40      # TCP payload of a frame without options (the 1996 TCP's 1460): the most any carries
FREE = HostCost(0.0, 0.0)    # today's hosts: the model charges nothing, a round trip is its wire times


@dataclass(frozen=True)
class Bound:
    """The readings one point admits, [lo, hi], and what set each end (words for the report)."""
    lo: float
    hi: float
    lo_by: str = ""
    hi_by: str = ""

    def why(self) -> str:
        return ", ".join(w for w in dict.fromkeys((self.lo_by, self.hi_by)) if w) or "nothing bounds it"


def uses(level: Forced) -> set[Forced]:
    """The sources a level of the analysis may use (LEVELS: each adds to the last)."""
    return set(LEVELS[:LEVELS.index(level) + 1])


# -- the wiring -----------------------------------------------------------------------------------

def _payload_share(point: dict) -> float:
    """The most payload per byte on the wire a frame of this point carries: a full segment's, or
    less where a token and those in flight with it fill less than one (the gates' full-frame figure
    otherwise, MSS / MAX_FRAME_ON_WIRE)."""
    full = MSS / MAX_FRAME_ON_WIRE
    size = point.get("token_size")   # a token point's only
    if not size:
        return full
    payload = min(MOST_PAYLOAD, size * point["tokens_in_flight"])
    return min(full, payload / wire_bytes(payload + TCP_IP_ETH_HEADERS))


def _wire_rows(point: dict) -> tuple[list[list[float]], list[float], str] | None:
    """The wires' constraints on the point's flow rates (MB/s of payload, real time): for each wire,
    each flow's share of it (a bonded segment stripes a flow evenly over its wires) and the
    wire's payload limit, both directions in one on a shared wire, each apart on a full-duplex
    one (a token's payload goes half each way, a copy's one way). None without flow paths."""
    flows = point.get("flows") or []
    if not flows or any(not f.get("path") for f in flows):
        return None
    cap = point["rate_mbit"] / 8 * _payload_share(point) * (1 + SLACK)       # MB/s: rate_mbit is real
    # None: every wire counts as full duplex (the looser cap)
    duplex = full_duplex_wires(point["topology"], point["nodes"], point["rate_mbit"], point["channels"])
    one_way = 1.0 if "copies" in point else 0.5      # the share of a flow's payload in its busier direction
    wires = sorted({w for f in flows for seg in f["path"] for w in seg})
    rows, caps = [], []
    for w in wires:
        share = [next((1 / len(seg) for seg in f["path"] if w in seg), 0.0) for f in flows]
        if duplex is not None and w not in duplex:
            rows.append(share)
            caps.append(cap)
            continue
        rows.append(share)                      # both directions of a full-duplex wire together
        caps.append(2 * cap)
        for k, s in enumerate(share):           # and each flow alone in its busier direction
            if s:
                rows.append([s * one_way if j == k else 0.0 for j in range(len(flows))])
                caps.append(cap)
    kind = "full-duplex " if duplex is None or duplex & set(wires) else ""
    return rows, caps, f"its {len(wires)} {kind}wire(s)' payload limits, shared by its {len(flows)} flow(s)"


def _most(rows: list[list[float]], caps: list[float], each: list[float]) -> float:
    """The largest sum of x subject to rows . x <= caps, 0 <= x <= each (caps and each >= 0): a
    textbook simplex with Bland's rule (a point has at most a few dozen flows and wires)."""
    n = len(each)
    rows = [*rows, *([1.0 if j == k else 0.0 for j in range(n)] for k, c in enumerate(each) if c < INF)]
    caps = [*caps, *(c for c in each if c < INF)]
    if any(all(r[j] <= 0 for r in rows) for j in range(n)):
        return INF                              # a flow nothing bounds
    m = len(rows)
    table = [[*r, *(1.0 if i == k else 0.0 for k in range(m)), c] for i, (r, c) in enumerate(zip(rows, caps))]
    cost = [-1.0] * n + [0.0] * (m + 1)
    basis = [n + i for i in range(m)]
    for _ in range(10_000):
        enter = next((j for j in range(n + m) if cost[j] < -1e-12), None)
        if enter is None:
            return cost[-1]
        ratios = [(table[i][-1] / table[i][enter], basis[i], i) for i in range(m) if table[i][enter] > 1e-12]
        if not ratios:
            return INF
        _, _, row = min(ratios)
        pivot = table[row][enter]
        table[row] = [v / pivot for v in table[row]]
        for i in range(m):
            if i != row and table[i][enter]:
                f = table[i][enter]
                table[i] = [a - f * b for a, b in zip(table[i], table[row])]
        f = cost[enter]
        cost = [a - f * b for a, b in zip(cost, table[row])]
        basis[row] = enter
    raise RuntimeError("simplex did not converge")


# -- the model's construction ---------------------------------------------------------------------

def _host_cost(point: dict) -> HostCost | None:
    """The hardware profile's CPU budget the point's nodes had (None: today's hosts, or unknown)."""
    hw = hardware_of(point)
    if hw == NONE:
        return None
    try:
        return load(hw).host_cost
    except Exception:        # a profile gone since the run: its CPU caps are unknown, so none
        return None


def _disk(point: dict) -> dict:
    return point["disks"]


def _copy_rate(point: dict, sources: set[Forced]) -> tuple[float, str]:
    """The most every copy of a mix can move at once, MB/s real (see the module doc), and why."""
    copies, remote = point["copies"], point["remote"]
    limits: list[tuple[float, str]] = []
    if Forced.WIRING in sources and remote:
        wired = _wire_rows(point)
        if wired:
            rows, caps, said = wired
            common = min(c / sum(r) for r, c in zip(rows, caps) if sum(r) > 0)
            limits.append((common, f"{said}, so each remote copy at most {common:.3g}"))
    if Forced.MODEL in sources:
        d = time_scale_of(point)
        disk = _disk(point)
        rates = [r for r in (disk.get("read_mbyte_s"), disk.get("write_mbyte_s")) if r]
        if rates:
            limits.append((min(rates) * d * (1 + BOUND_SLACK), f"its disks' {min(rates) * d:.3g} MB/s a copy"))
        cpu_ns = (disk.get("cpu_ns_per_byte") or 0.0) / d
        if cpu_ns:
            if copies > remote:
                limits.append((1e3 / (2 * cpu_ns) * (1 + SLACK),
                               f"a local copy's two disk transfers on its CPU ({cpu_ns:.3g} ns/B each)"))
            cost = _host_cost(point)
            if remote and cost:
                net = cost.per_byte_ns + cost.per_packet_us * 1e3 / MOST_PAYLOAD
                limits.append((1e3 / (cpu_ns + net) * (1 + SLACK),
                               f"a remote copy's disk transfer and network bytes on each CPU "
                               f"({cpu_ns + net:.3g} ns/B)"))
    if not limits:
        return INF, ""
    rate, why = min(limits)
    return rate, why


def _token_caps(point: dict, cost: HostCost | None) -> tuple[float, str]:
    """The most one token pair can move (MB/s real, both directions), from its nodes' CPU budget:
    each node sends and receives the pair's payload, paying per byte, per packet and per
    message (the agents' charge per send and completed receive)."""
    size = point.get("token_size")
    if not size or cost is None or time_scale_of(point) != 1:
        return INF, ""
    payload = min(MOST_PAYLOAD, size * point["tokens_in_flight"])
    ns = cost.per_byte_ns + cost.per_packet_us * 1e3 / payload + cost.per_message_us * 1e3 / size
    return 1e3 / ns * (1 + SLACK), f"each pair's CPU budget ({ns:.3g} ns a payload byte)"


def lone_round_trip_us(point: dict) -> tuple[float, float] | None:
    """(the model's round trip of a lone pair's token, us; how far below it a reading may fall), or
    None where the model has no floor: only one pair with one token in flight, one frame each way,
    on the medium engine in real time (the tc wire charges a lone frame no wire time). On a profile
    the floor is its constants' round trip, the card's latency included, less the gates' tolerance
    (run.gates: a quicker lone round trip fails its point); on today's hosts, their frames' wire
    times, which nothing takes off."""
    size = point.get("token_size")   # a token point's only
    if not size or not (point["pairs"] == 1 and point["tokens_in_flight"] == 1 and point["transport"] == "tcp") \
            or size > LONE_FRAME_BYTES or point.get("wire_impl") != "engine" \
            or time_scale_of(point) != 1:
        return None
    if hardware_of(point) == NONE:
        return round_trip_us(FREE, point["rate_mbit"], size, via=flow_via(point, 0),
                             full_duplex=flow_duplex(point, 0)), SLACK
    model = model_round_trip_us(point, flow_via(point, 0), flow_duplex(point, 0))
    return None if model is None else (model, LONE_RTT_TOLERANCE)


def _model_caps(point: dict, metric: str, cals: list[dict]) -> list[tuple[float, str]]:
    """Caps on a point's reading from its workload and hardware profile (not from its wires)."""
    out = []
    if metric == THROUGHPUT and "token_size" in point:
        cpu, why = _token_caps(point, _host_cost(point))
        if cpu < INF:
            out.append((cpu * point["pairs"], why + f", x {point['pairs']} pair(s)"))
        floor = lone_round_trip_us(point)
        if floor:
            rtt, below = floor
            out.append((2 * point["token_size"] / (rtt * (1 - below)),
                        f"a lone round trip of at least {rtt * (1 - below):.0f} us (the model's {rtt:.0f})"))
    wl = WORKLOADS.get(point["workload"])
    if wl is not None and wl.bounds is not None and "copies" not in point \
            and isinstance(point.get(MEASURED_PREFIX + metric), (int, float)):   # the bounds are as carried
        found = [most for _, measured, most in wl.bounds(point)
                 if most and measured == point[MEASURED_PREFIX + metric]]
        if found:
            out.append((min(found) * time_scale_of(point) * (1 + BOUND_SLACK), "its disks"))
    return out


# -- a calibration --------------------------------------------------------------------------------

def calibration_band(point: dict, metric: str, cals: list[dict], pin: dict | None = None) \
        -> tuple[float, float, str] | None:
    """(lo, hi, why) when a calibration pins the point: it measures one, or the selection's `pin`
    names one that applies to it (the same metric); None otherwise."""
    for c in cals:
        if c["metric"] == metric and cal.measures(c, point):
            return (*_band(c), f"calibration {c['id']}")
    if pin:
        c = next((c for c in cals if c["id"] == pin["calibration"]), None)
        if c is not None and c["metric"] == metric and cal.applies(c, point):
            return (*_band(c), f"calibration {c['id']} (pinned: {pin['why']})")
    return None


def _band(c: dict) -> tuple[float, float]:
    """A calibration's band, a hair inside its edges (a reading exactly at one is met or missed
    by rounding)."""
    inside = c["tolerance"] * (1 - 1e-9)
    return c["target"] * (1 - inside), c["target"] * (1 + inside)


# -- a point --------------------------------------------------------------------------------------

def point_bound(point: dict, metric: str, cals: list[dict], level: Forced = Forced.MODEL,
                pin: dict | None = None) -> Bound:
    """The readings a point admits at one level of the analysis (LEVELS), and why."""
    sources = uses(level)
    lo, hi, lo_by, hi_by = 0.0, INF, "", ""
    if Forced.CALIBRATION in sources:
        band = calibration_band(point, metric, cals, pin)
        if band:
            lo, hi, lo_by = band
            hi_by = lo_by
    caps: list[tuple[float, str]] = []
    if metric == THROUGHPUT and "copies" in point:
        rate, why = _copy_rate(point, sources)
        if rate < INF:
            caps.append((point["copies"] * rate, f"{point['copies']} copies at the slowest one's rate: {why}"))
    elif metric == THROUGHPUT and Forced.WIRING in sources:
        wired = _wire_rows(point)
        if wired:
            rows, wcaps, said = wired
            each = [INF] * len(rows[0])
            if Forced.MODEL in sources and "token_size" in point:
                each = [_token_caps(point, _host_cost(point))[0]] * len(each)
            most = _most(rows, wcaps, each)
            if most < INF:
                caps.append((most, said + (" and each pair's CPU budget" if min(each) < INF else "")))
    if Forced.MODEL in sources:
        caps += _model_caps(point, metric, cals)
        floor = lone_round_trip_us(point) if metric == ROUND_TRIP else None
        if floor and floor[0] * (1 - floor[1]) / 1e3 > lo:
            lo, lo_by = floor[0] * (1 - floor[1]) / 1e3, f"the model's round trip ({floor[0]:.0f} us)"
    for cap, why in caps:
        if cap < hi:
            hi, hi_by = max(cap, lo), why
    return Bound(lo, hi, lo_by, hi_by)

