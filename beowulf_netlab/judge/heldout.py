"""The host path, held out: lone round trips on exchanges the round-trip probe never timed.

Why. run.hostpath times this host's own path on one pair of one wire and takes it off every
node's delays; the round-trip calibration then runs that same exchange (the same agent, 1-byte
tokens, one in flight, one wire), so it checks the charges, never the subtraction. Experiment
hostpath-heldout (beowulf_netlab/experiments/hostpath-heldout.json) runs the same lone exchange where the probe
did not: pairs on separate wires of the meshes, a pair through a switch, through a software relay,
bonded pairs through a switch (the file-copy networks), and 4 and 8 pairs at once. Each pair's
round trip is set beside its own path's model (netlab.hostcost.round_trip_us: a switch adds a
frame's delivery time on the next wire, a relay that and its CPU's and card's passes) and read
against the round-trip calibration's tolerance: "on the model", "over" or "under". Pairs that
share a wire wait for each other's frames, and a bonded pair's frames take two paths (one on a
wire both share, the next through a switch), so those points are shown and not held to the model.
Read, never judged as a claim: the gate run.gates.lone_round_trip fails such a point in any
experiment.
"""
from __future__ import annotations

import statistics

from beowulf_netlab.run.gates import LONE_RTT_TOLERANCE, flow_duplex, flow_via, model_round_trip_us, trusted
from beowulf_netlab.topologies.timescale import time_scale_of

EXPERIMENT = "hostpath-heldout"
ON_MODEL, OVER, UNDER = "on the model", "over", "under"
SHARED = "not held: shared wires"
MIXED = "not held: two paths"
PATH_NAMES = {(): "one wire", ("switch",): "through a switch", ("relay",): "through a relay"}


def _path(via: tuple[str, ...]) -> str:
    return PATH_NAMES.get(via) or " + ".join(via)


def rows(docs: dict[str, dict]) -> list[dict]:
    """One row per (network, placement, pairs) of the held-out experiment in `docs` (experiment
    name -> results document), repeats together: the model's round trip, the pairs' medians
    (their median and range), the quickest, and how the median reads against the tolerance."""
    doc = docs.get(EXPERIMENT)
    groups: dict[tuple, list[dict]] = {}
    for p in (doc or {}).get("points", []):
        if p.get("calibration_of") or not p.get("per_pair"):
            continue
        groups.setdefault((p["topology"], p["placement"], p["pairs"], p.get("hardware")), []).append(p)
    out = []
    for (topology, placement, pairs, hardware), points in groups.items():
        first = points[0]
        vias = {flow_via(first, i) for i in range(len(first["per_pair"]))}
        model = model_round_trip_us(first, next(iter(vias)), flow_duplex(first, 0)) if len(vias) == 1 else None
        if model is None:
            continue
        scale = time_scale_of(first)
        medians = [pp["rtt_ms_median"] / scale for p in points for pp in p["per_pair"] if pp.get("rtt_ms_median")]
        quickest = min((pp["rtt_ms_min"] / scale for p in points for pp in p["per_pair"] if pp.get("rtt_ms_min")),
                       default=None)
        if not medians:
            continue
        own = [{w for seg in f.get("path") or [] for w in seg} for f in first.get("flows") or []]
        mixed = any(sum(len(seg) for seg in f.get("path") or []) != len(w)
                    for f, w in zip(first.get("flows") or [], own))
        median = statistics.median(medians)
        model_ms = model / 1e3
        off = median / model_ms - 1
        reads = MIXED if mixed else SHARED if sum(map(len, own)) != len(set().union(*own)) else \
            ON_MODEL if abs(off) <= LONE_RTT_TOLERANCE else OVER if off > 0 else UNDER
        failed = sorted({f for p in points if not trusted(p) for f in (p.get("gates") or {}).get("failed", [])})
        out.append({"network": topology, "placement": placement, "pairs": pairs, "hardware": hardware,
                    "path": _path(next(iter(vias))), "model_ms": round(model_ms, 3),
                    "median_ms": round(median, 3), "low_ms": round(min(medians), 3), "high_ms": round(max(medians), 3),
                    "quickest_ms": None if quickest is None else round(quickest, 3), "off": round(off, 4),
                    "runs": len(points), "reads": reads,
                    "class": {ON_MODEL: "ok", SHARED: "na", MIXED: "na"}.get(reads, "shape"),
                    "gates": "; ".join(failed) if failed else "passed"})
    return sorted(out, key=lambda r: (r["pairs"], r["path"], r["network"], r["placement"]))


def table(rs: list[dict]) -> list[str]:
    """Plain-text lines."""
    out = [f"host path, held out ({EXPERIMENT}): lone 1-byte round trips against their path's model, "
           f"tolerance {LONE_RTT_TOLERANCE:.0%}"]
    for r in rs:
        out.append(f"  {r['network']:22s} {r['placement']:11s} {r['pairs']} pair(s), {r['path']:17s} model "
                   f"{r['model_ms']:.3f} ms, median {r['median_ms']:.3f} ({r['off']:+.1%}; pairs "
                   f"{r['low_ms']:.3f}-{r['high_ms']:.3f}, quickest {r['quickest_ms']}): {r['reads']}")
    return out
