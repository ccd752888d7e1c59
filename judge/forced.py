"""Can a claim fail? Its verdict over every measurement the run's own limits admit.

A verdict is evidence only if another measurement could have changed it. Each point a
check reads may read anything from 0 up to what the model allows it, except where a
calibration pins it:
- a point that measures a calibration (claims/calibrations.json) reads its target within
  its tolerance: outside it, the calibration is missed and the claim not checkable;
- any other point reads at most what its throttled disks allow (the workload's `bounds`,
  as the fidelity gates use them) and what its wires carry (the Ethernet payload limit of
  every wire its flows cross, summed, and per flow of its path's narrowest segment; the
  gates' 2 % slack included), and at least 0;
- the check's own physical `bound`, beyond which the claim is not checkable, clips the range.
Selections reduce their points' ranges as they reduce values (max, min and mean are
monotone), ratios and drops divide ranges, orders compare them. A claim every admissible
reading passes is "forced by construction": its verdict is counted apart, never as
reproduced (judge.claims). Shape checks (peak, converge, sublinear) are not analysed:
they read whole curves, and any curve can fail them.

Why 0 and not a closer floor: a slower host, a charged CPU or a stalled transport can always
make a point read less, and the gates would not all catch it; so only what the model caps
or the calibrations pin can force a verdict. The analysis is of what the configuration
makes possible, not of what this run read.
"""
from __future__ import annotations

import math
import statistics
from netlab.shaping import payload_capacity_bytes_s
from run import calibration as cal
from run.gates import SLACK
from topologies.timescale import time_scale_of
from workloads import WORKLOADS

INF = math.inf
Range = tuple[float, float]


def matches(point: dict, where: dict) -> bool:
    """A selection's `where` (key -> value, or a list of values) holds for the point (the judge's
    rule, judge.claims, which reads it from here)."""
    for key, want in where.items():
        have = point.get(key)
        if isinstance(want, list) and have not in want or not isinstance(want, list) and have != want:
            return False
    return True


def wire_limit(point: dict) -> float | None:
    """The most the point's transfers could carry together, MB/s of the real network: every wire
    its flows cross at its payload limit, summed, no flow beyond its path's narrowest segment,
    plus each transfer that crossed no wire (a local copy, not a flow) at its disk's rate; None
    when that cannot be bounded."""
    flows = point.get("flows") or []
    if not flows or any(not f.get("path") for f in flows):
        return None
    cap = payload_capacity_bytes_s(point["rate_mbit"]) / 1e6      # real time: rate_mbit is real
    wires = {w for f in flows for seg in f["path"] for w in seg}
    per_flow = sum(min(len(seg) * cap for seg in f["path"]) for f in flows)
    local = (point.get("copies") or 0) - len(flows)
    disk = point.get("disk") if isinstance(point.get("disk"), dict) else {}
    rates = [r for r in (disk.get("read_mbyte_s"), disk.get("write_mbyte_s")) if r]
    if local > 0 and not rates:
        return None
    own = local * min(rates) * time_scale_of(point) if local > 0 else 0.0
    return (min(len(wires) * cap, per_flow) + own) * (1 + SLACK)


def disk_limit(point: dict, metric: str) -> float | None:
    """What the point's throttled disks allow the metric (the workload's bounds, x D), or None."""
    wl = WORKLOADS.get(point.get("workload") or "")
    if wl is None or wl.bounds is None or not isinstance(point.get(metric), (int, float)):
        return None
    own = point[metric]
    found = [most for _, measured, most in wl.bounds(point) if most and measured == own]
    return min(found) * time_scale_of(point) * (1 + SLACK) if found else None


def point_range(point: dict, metric: str, cals: list[dict]) -> tuple[Range, str]:
    """(lo, hi) this point may read, and what set it."""
    for c in cals:
        if cal.measures(c, point) and c["metric"] == metric:
            t, tol = c["target"], c["tolerance"]
            return (t * (1 - tol), t * (1 + tol)), f"calibration {c['id']}"
    limits = [(v, why) for v, why in ((disk_limit(point, metric), "its disks"),
                                      (wire_limit(point) if metric == "throughput_mbyte_s" else None,
                                       "its wires' payload limit")) if v is not None]
    if not limits:
        return (0.0, INF), "unbounded"
    hi, why = min(limits)
    return (0.0, hi), why


def selection_range(docs: dict[str, dict], sel: dict, first: str, cals: list[dict]) -> tuple[Range, str] | None:
    """The range of a selection's reduced number, or None when it reads no point."""
    doc = docs.get(sel.get("experiment", first))
    if doc is None:
        return None
    metric = sel.get("metric", "throughput_mbyte_s")
    points = [p for p in doc["points"] if matches(p, sel["where"]) and not p.get("calibration_of")]
    if not points:
        return None
    ranges = [point_range(p, metric, cals) for p in points]
    how = sel.get("reduce", "max")
    reduce = max if how == "max" else min if how == "min" else statistics.fmean
    lo = reduce([r[0] for r, _ in ranges])
    hi = reduce([r[1] for r, _ in ranges]) if all(r[1] < INF for r, _ in ranges) or how != "mean" \
        else INF
    whys = sorted({w for _, w in ranges})
    scale = sel.get("scale", 1.0)
    return (lo * scale, hi * scale), ", ".join(whys)


def _divide(a: Range, b: Range) -> Range:
    lo = a[0] / b[1] if b[1] not in (0, INF) else 0.0
    hi = a[1] / b[0] if b[0] > 0 else INF
    return lo, hi


def _passing(check: dict, bias: dict | None) -> list[Range]:
    """The readings a numeric check passes (reproduced, or in shape when no bias explains it)."""
    out: list[Range] = []
    target, tol, shape = check.get("target"), check.get("tolerance", 0.1), check.get("shape")
    if target is not None:
        out.append((target - tol * abs(target), target + tol * abs(target)))
    if shape:
        biased = bool(bias) and {">": "up", "<": "down"}[shape["op"]] == bias["direction"]
        if not biased:
            out.append((shape["value"], INF) if shape["op"] == ">" else (-INF, shape["value"]))
    return out


def _inside(r: Range, allowed: list[Range]) -> bool:
    """Is every reading of r (closed) inside the union of allowed (open at a shape's edge:
    close enough)?"""
    merged: list[list[float]] = []
    for lo, hi in sorted(allowed):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return any(lo <= r[0] and r[1] <= hi for lo, hi in merged)


def _show(r: Range) -> str:
    return f"[{r[0]:.3g}, {'inf' if r[1] == INF else format(r[1], '.3g')}]"


def analyse(check: dict, docs: dict[str, dict], first: str, cals: list[dict],
            bias: dict | None = None) -> tuple[bool | None, str]:
    """(forced, why): True when no admissible reading fails the check, False when one does,
    None when the check is not analysed or reads no point."""
    kind = check["kind"]
    if kind == "all":
        parts = [analyse(c, docs, first, cals, bias) for c in check["checks"]]
        if any(f is None for f, _ in parts):
            return None, next(w for f, w in parts if f is None)
        forced = all(f for f, _ in parts)
        return forced, "; ".join(w for f, w in parts if f == forced)
    if kind in ("value", "ratio", "drop"):
        if kind == "value":
            got = selection_range(docs, check["select"], first, cals)
            if got is None:
                return None, "reads no point"
            r, why = got
        else:
            a, b = (selection_range(docs, check[k], first, cals) for k in ("a", "b"))
            if a is None or b is None:
                return None, "reads no point"
            r = _divide(a[0], b[0]) if kind == "ratio" else (1 - _divide(b[0], a[0])[1], 1 - _divide(b[0], a[0])[0])
            why = f"a in {_show(a[0])} ({a[1]}), b in {_show(b[0])} ({b[1]})"
        bound = check.get("bound") or {}
        lo, hi = bound.get("min", -INF), bound.get("max", INF)   # widened away from zero either sign
        r = (max(r[0], lo - abs(lo) * SLACK), min(r[1], hi + abs(hi) * SLACK))
        forced = r[0] <= r[1] and _inside(r, _passing(check, bias))
        return forced, f"it can read {_show(r)} ({why})" + (", and passes anywhere there" if forced else "")
    if kind in ("order", "ratio_order"):
        if kind == "order":
            got = [selection_range(docs, s, first, cals) for s in check["items"]]
        else:
            got = []
            for part in (check["first"], check["second"]):
                a, b = (selection_range(docs, part[k], first, cals) for k in ("a", "b"))
                got.append(None if a is None or b is None else (_divide(a[0], b[0]), f"{a[1]} / {b[1]}"))
        if any(g is None for g in got):
            return None, "reads no point"
        margin = check.get("margin", 0.0)
        forced = all(x[0][0] > y[0][1] * (1 + margin) for x, y in zip(got, got[1:]))
        return forced, " vs ".join(f"{_show(r)} ({w})" for r, w in got) + \
            (": always in the paper's order" if forced else "")
    return None, f"a {kind} check reads a whole curve: not analysed"


def forced(claim: dict, docs: dict[str, dict], cals: list[dict]) -> tuple[bool | None, str]:
    """Can this claim fail on these documents (one view)? See the module doc."""
    if claim["check"]["kind"] == "tested" or claim.get("calibration"):
        return None, "not judged by a measurement"
    first = claim["experiments"][0] if claim["experiments"] else ""
    return analyse(claim["check"], docs, first, cals, claim.get("bias"))

