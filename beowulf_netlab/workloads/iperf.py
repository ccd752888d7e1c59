"""iperf3 between node pairs, concurrently: each topology's raw TCP capacity.

iperf3 serves one test per server by design (esnet/iperf#140 and friends), so
every pair gets its own one-shot server on its own port. Each flow also keeps
its throughput over time (`series`): the receiving server's per-interval
figures, read from the server's own JSON output (never sent over the emulated
wire), with the sender's retransmits per interval beside them.
"""
from __future__ import annotations

import math
import subprocess
import time
from dataclasses import dataclass

from beowulf_netlab.core.fields import Field, prop
from beowulf_netlab.core.settings import Setting, axes, fields
from beowulf_netlab.netlab.medium import point_record
from beowulf_netlab.workloads.agent import Agents, WorkloadFailed, wait_listening
from beowulf_netlab.workloads.base import PART, Figure, PAIRS, Workload
from beowulf_netlab.workloads.placement import place, wire_load

BASE_PORT = 5201
OMIT_S = 1.0
SAMPLES_PER_FLOW = 25           # -i is chosen so a flow's run gives about this many samples
MIN_INTERVAL_S, MAX_INTERVAL_S = 0.1, 60.0   # iperf3's own bounds on -i
MAX_SAMPLES = 200               # the most samples a flow's series keeps (the results schema's bound)

SETTINGS = (
    PAIRS,
    Setting("duration", "int", 5, "whole seconds each flow is measured (after 1 s of slow start)",
            many=False, minimum=1, maximum=3600, unit="s", record_type="number"),
)
AXES = axes(SETTINGS)


# an iperf flow's throughput over time (series): typed and bounded, since a plot and a CSV read
# every sample
PAIR = {**PART, "properties": {
    **PART["properties"],
    "interval_s": prop("number", "iperf3's reporting interval (-i), s, in the time the network ran "
                       "(scaled time on a time-scaled point)", exclusiveMinimum=0),
    "intervals": prop("array", "the flow's throughput over time, as measured, at most "
                      f"{MAX_SAMPLES} samples: per interval [t_end_s, mbit_s] or [t_end_s, mbit_s, "
                      "retransmits]: the receiver's goodput in the interval ending t_end_s seconds after "
                      "the omitted slow start, and the sender's retransmitted segments in it. On a "
                      "time-scaled point these are in scaled time: t / D and Mbit/s x D are the real "
                      "network's (plot --series and the -intervals.csv show those). Absent in documents "
                      "before it and where the server's report could not be read",
                      maxItems=MAX_SAMPLES,
                      items={"type": "array", "minItems": 2, "maxItems": 3,
                             "items": {"type": "number", "minimum": 0}})}}

FIELDS = (
    *fields(SETTINGS),
    Field("goodput_mbit", "number", "sum of the flows' receiver-side goodput, Mbit/s", unit="Mbit/s", csv=True),
    Field("elapsed_s", "number", "longest flow's time, s", unit="s"),
    Field("window_s", "number", "the flows' time including slow start, s (wire utilisation's base)", unit="s"),
    Field("per_pair", "array", "each flow's figures (src, dst, port, goodput_mbit, bytes_received, "
          "seconds, retransmits) and its throughput over time", schema={"items": PAIR}),
    Field("pairs_placed", "array", "src->dst of each flow"),
)


@dataclass
class FlowResult:
    src: str
    dst: str
    port: int
    goodput_mbit: float        # TCP payload received per second (receiver side)
    bytes_received: int
    seconds: float
    retransmits: int
    interval_s: float | None = None        # iperf3's -i; None: no series was read
    intervals: list[list[float]] | None = None   # series(): [t_end_s, mbit_s(, retransmits)]


def interval_for(seconds: float) -> float:
    """iperf3's -i for a flow measured `seconds`: about SAMPLES_PER_FLOW samples (a 10 s run:
    0.4 s, 25 samples), within iperf3's bounds. Only the reports change; the end summary is
    iperf3's totals over the whole measured time either way."""
    return min(MAX_INTERVAL_S, max(MIN_INTERVAL_S, round(seconds / SAMPLES_PER_FLOW, 1)))


def _measured(data: dict | None) -> list[dict]:
    """The `sum` of each interval iperf3 reported after its omitted slow start."""
    if not isinstance(data, dict) or not isinstance(data.get("intervals"), list):
        return []
    sums = [iv.get("sum") for iv in data["intervals"] if isinstance(iv, dict)]
    return [s for s in sums if isinstance(s, dict) and not s.get("omitted")]


def series(receiver: dict | None, sender: dict | None, interval_s: float,
           cap: int = MAX_SAMPLES) -> list[list[float]]:
    """A flow's throughput over time from iperf3 --json output: per interval the receiver's
    [t_end_s, mbit_s] (t from the end of the omitted slow start, as the end summary counts),
    with the sender's retransmits in that interval as a third element where it reports them
    (Linux: it does). Left out: the first interval after slow start (the server resets its
    counters inside it, and iperf3 3.12 then reports it with a wrong duration: 0.4 s for a
    0.2 s interval, which halves its rate) and a last one shorter than half of interval_s (the
    few packets after the sender stopped: noise). Over `cap` samples, neighbours are merged
    (bytes over seconds) so the series stays bounded."""
    recv = [s for s in _measured(receiver)
            if all(isinstance(s.get(k), (int, float)) and math.isfinite(s[k]) for k in ("end", "bytes", "seconds"))]
    sent = _measured(sender)
    rows = [(float(s["end"]), float(s["bytes"]), float(s["seconds"]),
             sent[i].get("retransmits") if i < len(sent) else None) for i, s in enumerate(recv)][1:]
    if rows and rows[-1][2] < interval_s / 2:
        rows = rows[:-1]
    k = -(-len(rows) // cap) if rows else 1
    out = []
    for g in range(0, len(rows), k):
        group = rows[g:g + k]
        secs = sum(r[2] for r in group)
        if secs <= 0:
            continue
        sample = [round(group[-1][0], 3), round(sum(r[1] for r in group) * 8 / secs / 1e6, 4)]
        retrans = [r[3] for r in group]
        if all(isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in retrans):
            sample.append(sum(retrans))
        out.append(sample)
    return out


def run_pairs(pairs, seconds: float = 5.0, omit: float = OMIT_S,
              base_port: int = BASE_PORT, mss: int | None = None) -> list[FlowResult]:
    """One TCP flow per (src_host, dst_host) pair, all at once; `omit` seconds
    of slow start are left out of the figures (iperf3 -O); `mss` sets the
    segment size (iperf3 -M) for tests that need small frames. Each flow's series is its
    server's per-interval report (the server prints it on its own stdout); a server whose
    report cannot be read leaves the flow without one, never the point without its figures."""
    every = ["-i", f"{interval_for(seconds):g}"]
    with Agents() as agents:
        servers = [agents.start(dst, ["iperf3", "-s", "-1", "-p", str(base_port + i), "-J", *every],
                                f"iperf3 server on {dst.name}")
                   for i, (_src, dst) in enumerate(pairs)]
        for i, (_src, dst) in enumerate(pairs):
            wait_listening(dst, base_port + i, "iperf3 server")
        clients = [agents.start(src, ["iperf3", "-c", dst.address, "-p", str(base_port + i),
                                      "-t", f"{seconds:g}", "-O", f"{omit:g}", "-J", *every,
                                      *(["-M", str(mss)] if mss else [])],
                                f"iperf3 {src.name}->{dst.name}")
                   for i, (src, dst) in enumerate(pairs)]
        results = []
        for i, ((src, dst), client, server) in enumerate(zip(pairs, clients, servers)):
            data = client.result(timeout=seconds + omit + 30)
            recv, sent = data["end"]["sum_received"], data["end"]["sum_sent"]
            try:
                served = server.result(timeout=10)
            except WorkloadFailed:
                served = None
            samples = series(served, data, interval_for(seconds))
            results.append(FlowResult(src.name, dst.name, base_port + i,
                                      recv["bits_per_second"] / 1e6, int(recv["bytes"]),
                                      float(recv["seconds"]), int(sent.get("retransmits", 0)),
                                      *((interval_for(seconds), samples) if samples else ())))
    return results


def check(spec, point: dict, _settings: dict) -> None:
    place(spec, point["pairs"], point["placement"])


def run_point(tb, _context, point: dict, settings: dict) -> dict:
    pairs = place(tb.spec, point["pairs"], point["placement"])
    flows = run_pairs([(tb.host(p.src), tb.host(p.dst)) for p in pairs], seconds=settings["duration"])
    total = sum(f.goodput_mbit for f in flows)
    return {"throughput_mbyte_s": total / 8, "goodput_mbit": total,
            "elapsed_s": max(f.seconds for f in flows),
            "window_s": max(f.seconds for f in flows) + OMIT_S,   # the wires also carried slow start
            "flows": [{"path": p.path, "bytes": f.bytes_received, "seconds": f.seconds, "backlogged": True}
                      for p, f in zip(pairs, flows)],
            "per_pair": [{k: v for k, v in f.__dict__.items() if v is not None} for f in flows],
            "pairs_placed": [p.describe() for p in pairs],
            "wire_load": wire_load(pairs)}


SETUP_S = 0.1   # servers up, clients' JSON read back: 0.05-0.07 s measured on this host (2026-11-27)


def cost(_spec, _point: dict, settings: dict) -> float:
    """Seconds a point takes: slow start left out, the measured duration, the setup."""
    return OMIT_S + settings["duration"] + SETUP_S


WORKLOAD = Workload(
    name="iperf", summary="iperf3 TCP flows (capacity baseline)", axes=AXES,
    fields=FIELDS, check=check, run_point=run_point, cost=cost,
    label=lambda pt: f"{pt['pairs']} pairs",
    figure=Figure("iperf3 TCP goodput", x="pairs", x_label="pairs", x_step="one"))


def udp_flood(hosts, frames_each: float, payload: int, seconds: float) -> list:
    """Every host sends `frames_each` UDP datagrams of `payload` bytes a second to the next one
    (in a ring) for `seconds`: saturating stations for a medium's tests and benchmarks. Returns
    the client processes (wait for them); the one-shot servers end with their client."""
    for h in hosts:
        h.run(["iperf3", "-s", "-D", "-1"], check=False)
    for h in hosts:
        wait_listening(h, BASE_PORT, "iperf3 server")
    return [h.popen(["iperf3", "-u", "-c", hosts[(i + 1) % len(hosts)].address,
                     "-b", str(int(frames_each * payload * 8)), "-l", str(payload), "-t", str(seconds)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for i, h in enumerate(hosts)]


def medium_under_flood(tb, n: int, frames_each: float, payload: int, seconds: float) -> dict:
    """What the medium engine did (netlab.medium.point_record) over `seconds` in the middle of a
    udp_flood of b0..b(n-1): a second after it starts, before it ends."""
    procs = udp_flood([tb.host(f"b{i:x}") for i in range(n)], frames_each, payload, seconds + 2)
    time.sleep(1)
    before = tb.medium.snapshot(max_age_s=0)
    time.sleep(seconds)
    rec = point_record(before, tb.medium.snapshot(max_age_s=0))
    for p in procs:
        p.wait()
    return rec
