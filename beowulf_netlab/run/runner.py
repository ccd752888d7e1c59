"""Run a sweep: build each network once, run every point on it, tear it down.

Data flows one way: sweep -> spec -> Testbed -> workload -> measurements ->
results document. The document is validated and rewritten (atomically) after
every point, so an interrupted sweep keeps what it finished.
"""
from __future__ import annotations

import os
import platform
import time
from pathlib import Path

from beowulf_netlab.core.fields import MEASURED_PREFIX
from beowulf_netlab.netlab.hostcost import busy_fraction
from beowulf_netlab.netlab.medium import point_record
from beowulf_netlab.netlab.node import cpu_counters
from beowulf_netlab.netlab.testbed import BuildOptions, Testbed
from beowulf_netlab.run import calibration
from beowulf_netlab.run.derive import shared_calibrations, take_networks
from beowulf_netlab.run.gates import evaluate, host_stalled
from beowulf_netlab.run.hostpath import subtract_host_path
from beowulf_netlab.run.estimate import point_seconds
from beowulf_netlab.run.monitor import Monitor
from beowulf_netlab.run.point import recorded
from beowulf_netlab.run.progress import Progress
from beowulf_netlab.run.store import write_atomic
from beowulf_netlab.run.csvfile import write_csv
from beowulf_netlab.run.sweep import Sweep, network_key
from beowulf_netlab.topologies.point import network_fields
from beowulf_netlab.topologies.timescale import time_scale_of, wire_rate

# second goes at stalled points (run.gates.host_stalled) that may fail on one network before its
# later stalled points are kept as measured: stalls that outlast two second goes are the
# network's own (a 100 Mbit/s wire on a kernel that wakes the engine late), not a passing one
SECOND_GOES = 2


def cpu_busy(hosts, before: dict, seconds: float) -> dict[str, float]:
    """node -> share of its CPU budget its packets and charges used over the point (the
    point's whole time, setup included: a lower bound on the busiest phase)."""
    out, now = {}, cpu_counters(hosts)
    for h in hosts:
        after, start = now.get(h.name), before.get(h.name)
        if after and start:
            out[h.name] = round(busy_fraction(after[0] - start[0], seconds, h.host_cost), 3)
    return out


def wire_capacities(spec) -> dict[str, float]:
    """wire -> the rate its shaper runs at (Mbit/s, scaled time): what the gates judge a point's
    wire bytes against."""
    return {w.name: wire_rate(spec, w) for w in spec.wires}


def tcp_counters(hosts) -> dict[str, int]:
    """Retransmissions, time-outs and loss probes summed over the nodes, so far."""
    total: dict[str, int] = {}
    for h in hosts:
        for k, v in h.tcp_counters().items():
            total[k] = total.get(k, 0) + v
    return total


def run_sweep(sweep: Sweep, doc: dict, out: Path, opts: BuildOptions, progress: bool = True,
              caps=None, have: set[int] | None = None, sources: dict[str, dict] | None = None,
              only=None) -> dict:
    """have: point indexes the document already holds (taken from another experiment's
    document, run.derive, or measured by an earlier pass): not measured again; nor is a
    calibration measurement one of `sources` (name -> document) holds. only: a predicate on a
    point as it will be recorded (run.calibration.as_recorded): the others are left for another
    pass (reproduce measures a third repeat only where two leave a verdict in doubt)."""
    schedule, cannot = calibration.with_calibrations(sweep, sweep.schedule())
    if cannot:
        doc["calibration_not_measured"] = cannot
    schedule, taken = shared_calibrations(sweep, schedule, sources or {})
    for spec, p in taken:
        doc["points"].append(p)
        doc["same_points_as"] = sorted({*doc.get("same_points_as", []), p["measured_in"]})
        take_networks(doc, sources[p["measured_in"]], {network_key(spec)})
    if have:
        schedule = [(spec, kept) for spec, pts in schedule
                    if (kept := [pt for pt in pts if pt.get("point_index") not in have])]
    if only:
        schedule = [(spec, kept) for spec, pts in schedule
                    if (kept := [pt for pt in pts if only(calibration.as_recorded(sweep, spec, pt))])]
    csv_path = out.with_suffix(".csv")
    host = os.environ.get("NETLAB_HOST_LABEL") or platform.node()
    workload = sweep.spec_workload
    settings = sweep.settings()
    # the bar advances by each point's estimated cost, so its time left weighs points fairly
    weights = {id(pt): point_seconds(workload, spec, pt, settings) for spec, pts in schedule for pt in pts}
    with Progress(sum(len(pts) for _, pts in schedule), progress, total_weight=sum(weights.values())) as bar:
        _measure(sweep, doc, out, opts, caps, schedule, bar, weights, csv_path, host)
    doc["calibrations"] = calibration.verdicts(doc["points"])
    doc["complete"] = True
    write_atomic(doc, out)
    return doc


def _measure(sweep: Sweep, doc: dict, out: Path, opts: BuildOptions, caps, schedule: list, bar: Progress,
             weights: dict[int, float], csv_path: Path, host: str) -> None:
    """Each network of the schedule built once, its points run into doc, then taken down."""
    workload = sweep.spec_workload
    settings = sweep.settings()
    for spec, points in schedule:
        t_build = time.monotonic()
        # a later pass (reproduce's third repeats) builds the network again: its time adds to the
        # earlier passes' rather than replacing them
        earlier = (doc["environment"]["topologies"].get(network_key(spec)) or {}).get("timing")
        with Testbed(spec, opts, caps) as tb:
            subtract_host_path(tb)
            t_built = time.monotonic()
            env = tb.environment()
            doc["environment"]["topologies"][network_key(spec)] = {
                k: v for k, v in env.items() if k != "capabilities"}
            doc["environment"].setdefault("capabilities", env["capabilities"])
            context = workload.prepare(tb, points, settings) if workload.prepare else None
            t_prepared = time.monotonic()
            wires = {w.name: tb.wire(w.name) for w in spec.wires}
            rates = wire_capacities(spec)
            shown = None
            costed = [tb.host(n.name) for n in spec.nodes if n.host_cost is not None]
            hosts = [tb.host(n.name) for n in spec.nodes]
            def measure(pt: dict) -> dict:
                """One go at the point: the workload run under the monitors, its record and gates."""
                cpu_before = cpu_counters(costed)
                tcp_before = tcp_counters(hosts)
                t_point = time.monotonic()
                engine_before = tb.medium.snapshot(max_age_s=0) if tb.medium else None
                with Monitor(wires, pids=[h.pid for h in hosts]) as mon:
                    result = workload.run_point(tb, context, pt, settings)
                t_done = time.monotonic()
                engine = point_record(engine_before, tb.medium.snapshot(max_age_s=0)) if tb.medium else None
                cpu = cpu_busy(costed, cpu_before, t_done - t_point)
                tcp_after = tcp_counters(hosts)
                # a contended wire carried at most the rate its controller held: gates judge against it
                held = {} if tb.contention is None else {
                    n: round(r, 3) for n in rates if (r := tb.contention.mean_rate_mbit(n, t_point, t_done))}
                if engine:   # contention (collisions, and idle slots while colliders backed off) took this share
                    held = {n: round(rates[n] * (1 - w["collision_time"] - w["backoff_idle"]), 3)
                            for n, w in engine["wires"].items() if w["collision_time"] > 0}
                point = {**network_fields(spec), "workload": sweep.workload, **pt, **result,
                         "fidelity": mon.report(result.get("window_s", result.get("elapsed_s")), held),
                         "bonding_impl": env["bonding_impl"], "switch_impl": env["switch_impl"],
                         "wire_impl": env["wire_impl"],
                         "tcp": {**(env["tcp"] or {}),
                                 **{k: v - tcp_before.get(k, 0) for k, v in tcp_after.items()}},
                         "host": host}
                if cpu:
                    point["cpu_busy"] = cpu
                if held:
                    point["contended_rate_mbit"] = held
                if engine:
                    point["medium"] = engine
                point = recorded(point, sweep.workload, time_scale_of(spec))   # through the declarations
                point["gates"] = evaluate(point, point["fidelity"], {**rates, **held}, workload.bounds,
                                          workload.concurrent_pairs)
                return point

            second_goes_failed = 0
            for pt in points:
                bar.running(f"{network_key(spec)} {pt['placement']} {workload.label(pt)}")
                point = measure(pt)
                if host_stalled(point) and second_goes_failed >= SECOND_GOES:
                    point["not_remeasured"] = (f"{second_goes_failed} second goes on this network failed "
                                               "again: its stalls are the network's, not passing")
                elif host_stalled(point):   # a passing stall of the host, not the model: once more
                    stalled = point["gates"]["failed"]
                    bar.note(f"  {network_key(spec)} {pt['placement']} {workload.label(pt)}: "
                             f"measured again: {stalled[0]}")
                    first = {k: point[k] for k in (*workload.rate_keys, *(MEASURED_PREFIX + r for r in workload.rate_keys),
                                                   "elapsed_s", "rtt_ms_median") if k in point}
                    point = {**measure(pt), "remeasured": stalled,
                             "first_go": {**first, "gates": point["gates"],
                                          "lag": (point.get("medium") or {}).get("lag")}}
                    second_goes_failed += not point["gates"]["ok"]
                plan = point.get("pairs_placed") or point.get("copies_placed")
                if plan and plan != shown:
                    load = " ".join(f"{w}:{n}" for w, n in sorted(point.get("wire_load", {}).items()))
                    bar.note(f"  plan ({spec.topology} {pt['placement']}): {', '.join(plan)}"
                             f"; wire load {load or '-'}")
                    shown = plan
                doc["points"].append(point)
                write_atomic(doc, out, new_point=point)
                write_csv(doc, csv_path)
                bar.step(f"{network_key(spec)} {pt['placement']} {workload.label(pt)}: "
                         f"{point['throughput_mbyte_s']:.2f} MB/s", weights.get(id(pt), 1.0))
            if tb.contention is not None:
                doc["environment"]["topologies"][network_key(spec)]["collision_controller"] = tb.contention.record()
            doc["calibrations"] = calibration.verdicts(doc["points"])
            t_measured = time.monotonic()
        # where the time went (the report sums it): build includes the namespaces, links and
        # shaping; prepare the workload's disks or daemons; teardown the whole cleanup
        doc["environment"]["topologies"][network_key(spec)]["timing"] = {
            "build_s": round(t_built - t_build, 2), "prepare_s": round(t_prepared - t_built, 2),
            "points_s": round(t_measured - t_prepared, 2), "teardown_s": round(time.monotonic() - t_measured, 2),
            "points": len(points)}
        if tb.medium_final:   # the medium engine's own CPU over the network's life
            doc["environment"]["topologies"][network_key(spec)]["timing"]["engine_cpu_s"] = \
                round(tb.medium_final["cpu_s"], 2)
        if earlier:
            timing = doc["environment"]["topologies"][network_key(spec)]["timing"]
            for k, v in earlier.items():
                if k != "passes" and isinstance(v, (int, float)):
                    timing[k] = round(timing.get(k, 0) + v, 2)
            timing["passes"] = earlier.get("passes", 1) + 1
