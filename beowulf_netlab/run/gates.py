"""Fidelity gates, in the spirit of Mininet-HiFi's network invariants.

Each point is checked against what a real network would allow, from the
flows the workload says it moved (bytes, the wires each crossed, when), on
the time base of the figure the workload reports:
- no free bandwidth: the wires of every path segment counted at least the
  payload that crossed it (framing makes on-wire bytes larger still);
- within capacity: no segment carried payload faster than its wires' Ethernet
  payload limit. The time base is the reported figure's: a flow that reports
  its own rate (iperf, ttcp: `seconds`) is checked at bytes / its own seconds,
  the others at bytes / the point's elapsed time (the throughput's
  denominator); a starved pair that stopped overlapping makes "bytes /
  longest time" exceed the limit, which is how an impossible 1.21 MB/s on one
  1.18 MB/s wire is caught;
- within the model's own limits: a workload's `bounds` (disk-bound figures:
  copies, bonnie, the parallel file system) never above what its throttled
  disks and ports allow;
- no saturated emulator: no thread of a single-threaded emulator part (OVS's
  userspace datapath) near saturation, and, while no wire was near full, no
  core's softirq (the kernel moving frames) nor a process of the run's own
  (run.monitor) near a whole core (the monitor's verdict, derived again from
  the record's figures). These gates judge the run, never the host's load: a
  core kept busy by another tenant is recorded, and fails a point only where
  it measurably harmed it (a flow's path idle, a lone round trip off the
  model, frames released late: the gates below);
- no stalled transport: when every flow had demand queued (`backlogged`: an
  iperf stream, tokens other than the one turning around filling at least two
  frames per wire: a lone token's turnaround idles its path by design) yet some flow's
  whole path idled, and neither a host core, an emulator thread nor a node's
  modelled CPU budget was busy, nor did loss recovery explain it (retransmitted
  segments over 1 % of those moved: drops, or reordering over bonded paths,
  which TCP answers by backing off; or time-outs whose minimum RTO alone covers
  5 % of the point: a collision drop the 1995 prototype's TCP, without fast
  retransmit, waits out), the transport held the data back (as the
  host's bbr did under ping-pong traffic): the point is suspect, with the
  TCP's counters as the reason. With a card's gap between frames
  (tx_gap_us) each wire's busy share here and in the two gates below counts
  against what one card can use (card_share), so the gap the model adds is
  taken neither for a stall nor for the emulator holding a flow back;
- no saturated emulator for any flow: with a part of the emulation near
  saturation (emulator_busy), every backlogged flow's path was at least 90 % busy (one full
  wire elsewhere, which spares the point the monitor's verdict, explains
  nothing for a flow whose own path idled: 8 mesh flows at 141 Mbit/s carried
  0.86 of their limit with a core 99 % busy);
- no crowded host: the same demand, on a host so crowded that softirq (where
  the kernel moves every emulated frame) took half a core (the run's own
  processes' wait for a CPU is said beside it, never judged alone), and some flow's
  path under 90 % busy or over 3 % of the segments sent again: a crowded host
  delivers frames late, TCP takes late frames for lost ones, retransmits and
  backs off, so loss recovery excuses nothing there. One 100 Mbit/s flow fell
  to 0.35-0.85 of its limit beside another network's traffic with no core
  pegged (busy user processes alone, which softirq preempts, cost it nothing);
  the emulator, not the model, held it back;
- concurrency: the token pairs ran at once (their span at most 1.2 x the
  longest pair's time), since "bytes / longest time" overstates otherwise;
- lone round trips on the model's time: where a token pair's round trip is the model's alone
  (one token in flight, one frame each way, no wire shared with another pair), its median may
  leave the model's time (netlab.hostcost.round_trip_us) by no more than the round-trip
  calibration's tolerance, and its quickest may not fall below it by more: beyond, the host's
  own time (its cores crowded by the run's or another's work, a wait cut short) set the round
  trip, whatever the CPU and lag figures say (8 prototype pairs on 8 wires read 2.03 ms against
  1.70 with every other gate green);
- every frame on the model's time (engine_late, the medium engine's record): its releases'
  median lag within 10 us, the 99th percentile within a full frame's wire time at the point's
  rate (200 us at most), its longest lag within a quarter of the minimum RTO (lag_bounds_us); frames
  it read after the model had passed their arrival (late arrivals, re-timed and so delayed)
  no more than 1 % over the p99 bound, nor one over the longest; no frames lost outside the
  model (the kernel's socket drops, failed sends); the engine's own work under a core;
- every charge paid: a charge-channel datagram (a TCP message's or a disk
  transfer's CPU cost, netlab.hostcost) that a full budget queue dropped left
  its work uncharged and its payer waiting out a time-out.
Utilisation is of what a wire could carry: with the collision model on, the
rate its controller held over the point (`contended_rate_mbit`).
A point failing a gate makes every claim that reads it "not checkable".
"""
from __future__ import annotations

from functools import lru_cache

from beowulf_netlab.netlab.hostcost import RELAY, SWITCH, round_trip_us
from beowulf_netlab.netlab.medium import LAG_P50_BOUND_US, LAG_P99_BOUND_US
from beowulf_netlab.topologies.ethernet import MAX_FRAME_ON_WIRE, MSS, gap_bytes, payload_capacity_bytes_s   # noqa: F401 (MSS re-exported)
from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.run.monitor import suspect
from beowulf_netlab.topologies.hardware import load as load_profile
from beowulf_netlab.topologies.timescale import shaped_rate, time_scale_of

SLACK = 0.02                              # counter timing and rounding
BOUND_SLACK = 0.05                        # a disk throttle's slice accounting overshoots a little
MAX_SPAN_OVER_LONGEST = 1.20
STALLED_UTILISATION = 0.75                # a backlogged flow's busiest segment below this: stalled
LOSS_EXPLAINS = 0.01                      # retransmitted segments per segment moved that explain a backoff
CPU_BUDGET_BUSY = 0.70                    # a node's modelled CPU this busy may be the limit
CORE_BUSY = 0.90
CROWDED_SOFTIRQ = 0.50                    # a core's softirq share: the host moved frames late
HELD_BACK_UTILISATION = 0.90              # with the emulator busy or the host crowded, a backlogged
                                          # path under this was held back (the model fills it: 0.97+)
CROWDED_RETRANS = 0.03                    # segments sent again per segment moved, there (quiet: <= 1.2 %)
TIMEOUTS_EXPLAIN = 0.05                   # time-outs x the minimum RTO over this share of the point: idle
MAX_LAG_OF_RTO = 0.25                     # the longest lag, of the point's minimum RTO
DEFAULT_RTO_MIN_MS = 200                  # Linux's TCP_RTO_MIN, where a point did not record its own
LATE_SHARE = 0.01                         # late arrivals this share of the frames, half over the p99
                                          # bound: more than 1 % of the frames delayed past it
P99_MIN_FRAMES = 100                      # a p99 of fewer frames is their maximum (the max gate's)
LOST_SHARE = 1e-4                         # frames lost outside the model, of the frames carried
LONE_RTT_TOLERANCE = 0.05                 # the round-trip calibrations' (beowulf_netlab/claims/calibrations.json; a test)
LONE_FRAME_BYTES = 1460                   # a token this small crosses in one frame each way (1996 MSS)


def trusted(p: dict) -> bool:
    """The point passed its fidelity gates (older documents: the monitor's verdict)."""
    gates = p.get("gates")
    return gates["ok"] if gates else not (p.get("fidelity") or {}).get("suspect")


def span_over_longest(flows: list[dict]) -> float | None:
    """(last end - first start) / the longest flow's own time: 1.0 when all ran at once."""
    spans = [(f["start"], f["end"]) for f in flows if f.get("start") is not None and f.get("end") is not None]
    if len(spans) < 2:
        return None
    longest = max(e - s for s, e in spans)
    whole = max(e for _, e in spans) - min(s for s, _ in spans)
    return whole / longest if longest > 0 else 1.0


def _capacity(point: dict, flows: list[dict], carried: dict, rates: dict) -> list[str]:
    failed = []
    elapsed = point.get("elapsed_s") or 0.0
    need: dict[tuple[str, ...], int] = {}
    rate: dict[tuple[str, ...], float] = {}
    for f in flows:
        own = f.get("seconds")
        for seg in f["path"]:
            key = tuple(seg)
            need[key] = need.get(key, 0) + int(f["bytes"])
            base = own if own else elapsed
            rate[key] = rate.get(key, 0.0) + (int(f["bytes"]) / base if base > 0 else 0.0)
    for seg, nbytes in need.items():
        if carried and all(w in carried for w in seg):
            have = sum(carried[w] for w in seg)
            if have < (1 - SLACK) * nbytes:
                failed.append(f"free bandwidth: {'+'.join(seg)} counted {have} bytes on the wire but "
                              f"{nbytes} bytes of payload crossed it")
        if all(w in rates for w in seg):
            cap = sum(payload_capacity_bytes_s(rates[w]) for w in seg)
            if rate[seg] > (1 + SLACK) * cap:
                failed.append(f"over capacity: {'+'.join(seg)} would have carried "
                              f"{rate[seg] / 1e6:.3f} MB/s of payload, its limit is {cap / 1e6:.3f}")
    return failed


def _bounds(point: dict, bounds) -> list[str]:
    failed = []
    for what, measured, most in (bounds(point) if bounds else []):
        if most and measured > most * (1 + BOUND_SLACK):
            failed.append(f"over capacity: {what} {measured:.3g} MB/s, the model allows at most "
                          f"{most:.3g} (its throttled disks and ports)")
    return failed


def crowded(fidelity: dict) -> str | None:
    """Why the host was too crowded to move frames on time, or None (see module doc): the kernel
    moving frames took half a core; the run's own processes' wait for a CPU is said beside it.
    That wait alone is no verdict: 8 pairs' agents on 2 cores wait most of the time they want
    one on a quiet host (84-95 % in the full run), while the engine, under SCHED_FIFO, keeps
    the frames' time; a first rule that failed such points on it lost three claims' points
    whose flows only TCP's loss recovery held back."""
    softirq = max(fidelity.get("softirq_busy_mean") or [0.0])
    if softirq < CROWDED_SOFTIRQ:
        return None
    run = fidelity.get("run_cpu") or {}
    wanted = (run.get("busy") or 0.0) + (run.get("waited") or 0.0)
    waited = (run.get("waited") or 0.0) / wanted if wanted > 0 else None
    return f"softirq took {softirq:.0%} of a core" + (
        f" and the run's processes waited for a CPU {waited:.0%} of the time they wanted one"
        if waited is not None else "")


def emulator_busy(point: dict, fidelity: dict) -> float:
    """The busiest part of the run's own emulation, as a share of a core: an emulator thread
    (OVS's datapath), the medium engine's work (its CPU less its spin), the kernel moving
    frames (a core's softirq), or one of the run's processes. Never a core's whole busy time,
    which another tenant's work fills without harming the point."""
    medium = point.get("medium") or {}
    run = fidelity.get("run_cpu") or {}
    return max([*(fidelity.get("emulator_thread_busy") or {}).values(),
                (medium.get("engine_cpu") or 0.0) - (medium.get("engine_spin") or 0.0),
                *(fidelity.get("softirq_busy_mean") or []), run.get("busiest_share") or 0.0, 0.0])


def card_share(point: dict) -> float:
    """The most of its wire one sending card can use: with a gap between frames (tx_gap_us,
    netlab.nic) a full frame's wire time over its wire time and the gap; else 1. The busy
    shares below are of this, so a card's own gap is never taken for a stalled transport."""
    gap = point["tx_gap_us"]
    if not gap or not point.get("rate_mbit"):
        return 1.0
    return MAX_FRAME_ON_WIRE / (MAX_FRAME_ON_WIRE + gap_bytes(gap, point["rate_mbit"]))


def _stalled(point: dict, flows: list[dict], fidelity: dict) -> str | None:
    util = fidelity.get("wire_utilisation") or {}
    if not flows or not util or not all(f.get("backlogged") for f in flows):
        return None
    if max((point.get("cpu_busy") or {}).values(), default=0.0) >= CPU_BUDGET_BUSY:
        return None      # the modelled CPU may be the limit
    reach = card_share(point)
    of = "its rate" if reach == 1 else f"what one card could send on it ({reach:.0%} of its rate)"
    paths = []
    for f in flows:
        segs = [seg for seg in f["path"] if all(w in util for w in seg)]
        if segs:   # round-robin alternates strictly: one full wire of a bonded segment holds the flow back
            paths.append(("/".join("+".join(s) for s in f["path"]),
                          max(util[w] for seg in segs for w in seg) / reach))
    busy = emulator_busy(point, fidelity)
    if busy >= CORE_BUSY:
        if monitor_verdict(fidelity):
            return None  # the monitor has said so
        path, busiest = min(paths, key=lambda p: p[1], default=("", 1.0))
        if busiest < HELD_BACK_UTILISATION:   # a full wire elsewhere explains nothing for this flow
            return (f"saturated emulator: a part of the emulation was {busy:.0%} busy while the busiest "
                    f"wire of the path {path} carried only {busiest:.0%} of {of}, though every flow had "
                    "data queued: the emulator, not the model, held it back")
        return None
    tcp = point.get("tcp") or {}
    segments = sum(int(f["bytes"]) for f in flows) / MSS
    host = crowded(fidelity)
    again = (tcp.get("retrans_segs", 0) + tcp.get("timeouts", 0)) / segments if segments else 0.0
    said = (f"TCP {tcp.get('congestion_control', 'unrecorded')}: {tcp.get('retrans_segs', '?')} "
            f"retransmitted segments, {tcp.get('timeouts', '?')} time-outs")
    if host and again > CROWDED_RETRANS:
        return (f"crowded host: every flow had data queued and {again:.0%} of the segments were sent again "
                f"while {host}: the kernel delivered frames late, TCP took them for lost, so the "
                f"emulator, not the model, held the flows back ({said})")
    if not host and again > LOSS_EXPLAINS:
        return None      # loss recovery (drops, or reordering over bonded paths) held it back: TCP's job
    rto_s = (tcp.get("rto_min_ms") or 0) / 1e3   # as the routes carried it: x D already (netlab.node)
    if not host and tcp.get("timeouts", 0) * rto_s >= TIMEOUTS_EXPLAIN * (point.get("elapsed_s") or float("inf")):
        return None      # time-outs (a modelled collision drop, on a TCP without fast retransmit) idled it
    for path, busiest in paths:
        if host and busiest < HELD_BACK_UTILISATION:
            return (f"crowded host: every flow had data queued, yet the busiest wire of the path {path} "
                    f"carried only {busiest:.0%} of {of} while {host}: the kernel delivered frames "
                    f"late, so the emulator, not the model, held the flow back ({said})")
        if busiest < STALLED_UTILISATION:
            return (f"stalled transport: every flow had data queued, yet the busiest wire of the path "
                    f"{path} carried only {busiest:.0%} of {of} while "
                    f"no part of the emulation nor a node budget was busy ({said})")
    return None


def model_round_trip_us(point: dict, via: tuple[str, ...] = (),
                        full_duplex: bool | tuple[bool, ...] = False) -> float | None:
    """What the point's hardware profile charges a lone round trip of its token, in real time
    (netlab.hostcost.round_trip_us, the cards' latency as the point ran it, over a path whose
    segments `via` joins, each a full-duplex port or not as `full_duplex` says: flow_duplex);
    None without a host cost, or when the profile it names is gone (an old document)."""
    hardware = point.get("hardware")
    if not hardware or hardware == "none" or not point.get("token_size"):
        return None
    try:
        cost = load_profile(hardware).host_cost
    except BadInput:
        return None
    return None if cost is None else round_trip_us(cost, point["rate_mbit"], point["token_size"],
                                                   point["card_latency_us"], via, full_duplex)


def flow_via(point: dict, index: int) -> tuple[str, ...]:
    """What joins the segments of a point's flow `index` (its record's `via`; a document from
    before it was recorded: a relay where its pair was placed "via" one, else a switch)."""
    flows = point.get("flows") or []
    flow = flows[index] if index < len(flows) else {}
    if "via" in flow:
        return tuple(flow["via"])
    placed = (point.get("pairs_placed") or [])
    hops = max(len(flow.get("path") or []) - 1, 0)
    relayed = index < len(placed) and " via " in placed[index]
    return (RELAY if relayed else SWITCH,) * hops


@lru_cache(maxsize=None)
def full_duplex_wires(topology: str | None, nodes: int | None, rate: float | None,
                      channels: int | None) -> frozenset[str] | None:
    """A point's full-duplex wires (switched ports), from its topology as built; None when it
    cannot be rebuilt (a topology file gone or changed since the run)."""
    from beowulf_netlab.topologies.presets import preset
    try:
        p = preset(topology)
        given = {"nodes": nodes, "rate_mbit": rate, "channels": channels}
        spec = p.build(**{k: v for k, v in given.items() if k in p.options and v is not None})
    except Exception:        # a topology file gone or changed since the run: no duplex known
        return None
    return frozenset(w.name for w in spec.wires if w.full_duplex)


def flow_duplex(point: dict, index: int) -> tuple[bool, ...]:
    """Whether each segment of a point's flow `index` is a full-duplex port (every wire of it:
    no hub's repeater on its path, topologies.ethernet.path_ns), in path order, from its topology
    as built and the flow's recorded path. A topology that cannot be rebuilt: hubs, a wire's
    default (topologies.spec.Wire; a full-duplex port's path is 1 us shorter at 10 Mbit/s); no
    path recorded: every segment as the network's wires are, full duplex if any is."""
    segments = len(flow_via(point, index)) + 1
    duplex = full_duplex_wires(point.get("topology"), point.get("nodes"), point.get("rate_mbit"),
                               point.get("channels"))
    flows = point.get("flows") or []
    path = (flows[index].get("path") if index < len(flows) else None) or []
    if duplex is not None and len(path) == segments:
        return tuple(all(w in duplex for w in seg) for seg in path)
    return (bool(duplex),) * segments


SLOW_HOST = "slow host:"                      # the beginnings of the failures host_stalled tells apart
LOST = "frames lost outside the model:"
ENGINE_BUSY = "the medium engine was"


def lone_round_trip(point: dict) -> str | None:
    """A lone token round trip that left the model's time (see module doc), or None where the
    point's round trips are not the model's alone or it has no host cost. Each pair is held to
    its own path's model: a switch or a relay between its segments adds what the model charges
    for it (netlab.hostcost.round_trip_us), so a pair that crosses one checks this host's path
    there too, which the round-trip probe (run.hostpath, one wire) never timed."""
    if (point.get("workload") != "token" or point.get("tokens_in_flight") != 1
            or point["transport"] != "tcp" or point.get("wire_impl") != "engine"
            or not 0 < point["token_size"] <= LONE_FRAME_BYTES):
        return None
    wires = [w for f in point.get("flows") or [] for seg in f.get("path") or [] for w in seg]
    if len(wires) != len(set(wires)) or not point.get("per_pair"):
        return None
    scale = time_scale_of(point)
    for i, pair in enumerate(point["per_pair"]):
        model_us = model_round_trip_us(point, flow_via(point, i), flow_duplex(point, i))
        if model_us is None:
            return None
        model_ms = model_us / 1e3 * scale
        median, quickest = pair.get("rtt_ms_median"), pair.get("rtt_ms_min")
        if median and median > model_ms * (1 + LONE_RTT_TOLERANCE):
            return (f"{SLOW_HOST} {pair.get('src')}->{pair.get('dst')}'s lone round trips took {median:.3f} ms "
                    f"(median) against the model's {model_ms:.3f} (+{median / model_ms - 1:.0%}, tolerance "
                    f"{LONE_RTT_TOLERANCE:.0%}): the host's own time, not the model's, set them")
        if quickest and quickest < model_ms * (1 - LONE_RTT_TOLERANCE):
            return (f"short round trip: {pair.get('src')}->{pair.get('dst')} completed one in {quickest:.3f} ms, "
                    f"under the model's {model_ms:.3f} by more than {LONE_RTT_TOLERANCE:.0%}: a wait was cut short")
    return None


def lag_bounds_us(point: dict | None = None) -> dict[str, float]:
    """The lag bounds a point's frames are held to (us). The median at most LAG_P50_BOUND_US
    whatever the rate: it adds to every round trip, whose time is not the frame's (a twentieth
    of a 100 Mbit/s frame, 6.2 us, failed points whose round trips it moved by 0.5 %); the 99th
    percentile at most LAG_P99_BOUND_US and one full frame's wire time at the point's rate, so a
    100 Mbit/s wire is held ten times closer than a 10 Mbit/s one (beyond it 1 % of the frames
    reach their receivers after the next frame on the wire would have ended); the
    maximum at most a quarter of the point's minimum RTO (TCP's, x D as its routes carry it;
    200 ms where unrecorded): a stall near it fires a time-out the model never caused. Without
    a rate (an old caller), the absolute bounds."""
    point = point or {}
    rate = point.get("rate_mbit")
    frame_us = (MAX_FRAME_ON_WIRE * 8 / shaped_rate(rate, time_scale_of(point)) if rate else float("inf"))
    rto_ms = (point.get("tcp") or {}).get("rto_min_ms") or DEFAULT_RTO_MIN_MS * time_scale_of(point)
    return {"p50": LAG_P50_BOUND_US, "p99": min(LAG_P99_BOUND_US, frame_us), "max": rto_ms * 1e3 * MAX_LAG_OF_RTO}


def _frames(medium: dict) -> int:
    return sum(int(w.get("frames") or 0) for w in (medium.get("wires") or {}).values())


def uses_wires(point: dict) -> bool:
    """Whether the point's workload put its traffic on the wires: False only for a point that
    records its flows per wire (wire_load) and has none (all-local copies), whose measurement the
    wires' timing cannot touch: the few frames the hosts' own chatter puts on an idle network
    then leave late while the copies keep the cores in the kernel (0-remote calibration points:
    24 frames, half over 150 us late), and failed the point for nothing it measured."""
    load = point.get("wire_load")
    return load is None or any(load.values())


def engine_late(medium: dict | None, bounds: dict[str, float] | None = None) -> str | None:
    """The medium engine released frames later than their bounds (lag_bounds_us), read frames
    so late that the model had passed their arrival (late arrivals: re-timed to the model's
    now, so each was delayed by that much), lost frames outside the model (the kernel's
    socket drops or failed sends), or its work (its CPU less the time it spun waiting for a
    release) filled a core: round trips then carry this host's timing, not the model's."""
    if not medium:
        return None
    b = bounds or lag_bounds_us()
    lag = medium.get("lag") or {}
    if lag.get("count") and lag.get("p50_us", 0) > b["p50"]:
        return (f"the medium engine released half the frames more than {lag['p50_us']:.0f} us late "
                f"(bound {b['p50']:.3g} us): every round trip carried the host's timing")
    if (lag.get("count") or 0) >= P99_MIN_FRAMES and lag.get("p99_us", 0) > b["p99"]:
        return (f"the medium engine released 1 % of frames more than {lag['p99_us']:.0f} us late "
                f"(bound {b['p99']:.3g} us): the host could not keep the wires' time")
    if lag.get("count") and (lag.get("max_us") or 0) > b["max"]:
        return (f"the medium engine released a frame {lag['max_us'] / 1e3:.1f} ms late (bound "
                f"{b['max'] / 1e3:.3g} ms, a quarter of the minimum RTO): the host stalled the wires")
    frames = max(_frames(medium), int(lag.get("count") or 0))
    late = medium.get("late_arrival_lag") or {}
    if late.get("count") and frames and (late["count"] / frames >= LATE_SHARE
                                         and (late.get("p50_us") or 0) > b["p99"]):
        return (f"the medium engine read {late['count'] / frames:.1%} of the frames after the model had "
                f"passed their arrival, half of them more than {late['p50_us']:.0f} us (bound "
                f"{b['p99']:.3g} us): the host, not the model, delayed them")
    if late.get("count") and (late.get("max_us") or 0) > b["max"]:
        return (f"the medium engine read a frame {late['max_us'] / 1e3:.1f} ms after its arrival (bound "
                f"{b['max'] / 1e3:.3g} ms, a quarter of the minimum RTO): the host stalled the wires")
    lost = {k: medium[k] if isinstance(medium.get(k), int) else
            sum(int(w.get(k) or 0) for w in (medium.get("wires") or {}).values())
            for k in ("socket_drops", "send_errors")}
    if frames and sum(lost.values()) > LOST_SHARE * frames:
        return (f"{LOST} {lost['socket_drops']} dropped by the kernel before the "
                f"engine read them, {lost['send_errors']} failed sends, of {frames} frames")
    work = (medium.get("engine_cpu") or 0) - (medium.get("engine_spin") or 0)
    if work >= CORE_BUSY:
        return f"{ENGINE_BUSY} {work:.0%} busy: it may have been the bottleneck"
    return None


def host_stalled(point: dict) -> bool:
    """The point failed one gate, and only as a passing stall of the host (writeback, another
    tenant of the cores, a halted CPU's slow wake-up) fails it: frames released or read late
    while half left on time (1 % past the p99 bound, one frame past the longest, or late
    arrivals), or lone round trips slower than the model ("slow host", lone_round_trip). Not
    the model nor the emulator's load, which would also fail the median, lose frames or fill the
    engine's core. The runner measures such a point once more and records why (`remeasured`)."""
    gates = point.get("gates") or {}
    failed = gates.get("failed") or []
    if gates.get("ok", True) or len(failed) != 1:
        return False
    if failed[0].startswith(SLOW_HOST):
        return True
    medium = point.get("medium")
    lag = (medium or {}).get("lag") or {}
    bounds = lag_bounds_us(point)
    why = engine_late(medium, bounds)
    return (why is not None and failed == [why] and lag.get("p50_us", 0) <= bounds["p50"]
            and not why.startswith((LOST, ENGINE_BUSY)))


def monitor_verdict(fidelity: dict) -> str | None:
    """The monitor's verdict (run.monitor.suspect) derived again from the record's figures, so a
    verdict of an older rule (a whole core busy) does not survive; a record without them keeps
    the verdict it stored."""
    return suspect(fidelity) if "wire_utilisation" in fidelity else fidelity.get("suspect")


def evaluate(point: dict, fidelity: dict, rates: dict[str, float], bounds=None,
             concurrent_pairs: bool = False) -> dict:
    """{"ok", "failed": [reasons], "span_over_longest"} for one measured point.
    `bounds` is the workload's (workloads.base.Workload.bounds)."""
    flows = point.get("flows") or []
    failed = _capacity(point, flows, fidelity.get("wire_bytes") or {}, rates)
    failed += _bounds(point, bounds)
    said = monitor_verdict(fidelity)
    if said:
        failed.append(said)
    stalled = _stalled(point, flows, fidelity)
    if stalled:
        failed.append(stalled)
    lost = sum(int(part.get("charges_lost") or 0) for key in ("per_pair", "per_copy")
               for part in point.get(key) or [])
    if lost:
        failed.append(f"charges lost: {lost} charge-channel datagrams were dropped by a full CPU budget "
                      "queue, so their work went uncharged and their payers waited out a time-out")
    late = engine_late(point.get("medium"), lag_bounds_us(point)) if uses_wires(point) else None
    if late:
        failed.append(late)
    lone = lone_round_trip(point)
    if lone:
        failed.append(lone)
    ratio = span_over_longest(flows) if concurrent_pairs else None
    if ratio is not None and ratio > MAX_SPAN_OVER_LONGEST:
        failed.append(f"pairs did not run concurrently: together they spanned {ratio:.2f} x the longest "
                      "pair's time, so bytes / longest time overstates the rate")
    return {"ok": not failed, "failed": failed,
            "span_over_longest": None if ratio is None else round(ratio, 3)}


def recompute(point: dict, bounds=None, concurrent_pairs: bool = False) -> dict:
    """The point's gates evaluated again from its stored measurements (as a reader of a document
    sees them): a verdict edited by hand in a results file, or one from an older rule, does not
    survive. The wires' rates are the point's (scaled by its D, as the runner judged them) and
    the rates its collision model held."""
    fidelity = point.get("fidelity") or {}
    d = time_scale_of(point)
    rates = {w: shaped_rate(point["rate_mbit"], d) for w in (fidelity.get("wire_bytes") or {})}
    rates.update(point.get("contended_rate_mbit") or {})
    return evaluate(point, fidelity, rates, bounds, concurrent_pairs)
