"""Can a claim fail? Its verdict over every reading the model admits, and a reading that flips it.

A verdict is evidence only if another reading could have changed it. judge.bounds gives each
point the readings its configuration admits (its wires, its calibrations, its disks, CPU and
round trips); here selections reduce their points' ranges as they reduce values (max, min and
mean are monotone), ratios and drops divide ranges, orders compare them, and shape checks
(peak, converge, sublinear) read their curves point by point. A claim that passes everywhere
in those ranges, its own physical `bound` applied, cannot fail: "forced by construction",
counted apart, never reproduced (judge.claims). Which sources it needed names its kind
(core.verdicts.Forced), tried in order, the first that suffices:
- the wiring alone;
- a calibration: a point that measures one, or that the claim's own text ties to one (`pin`);
- the model's construction: its disks, CPU costs and lone round trips too, and the equalities
  a claim declares (`model_equal`: two selections the model makes the same wherever a
  calibration of that quantity applies, e.g. a lone round trip on one wire or two: their ratio
  is 1, and only an emulator defect of the size named can part them).
A claim that can fail gets a flip: one reading of every point it reads, each inside its range,
that the judge's own check (judge.claims) does not pass, found among a few candidates (the
failing numbers nearest the paper's band, equal readings, each range's ends) and checked by
running the check on them. tests/unit/test_forced.py judges such readings, claim by claim.
The analysis is of what the configuration makes possible, not of what this run read.
"""
from __future__ import annotations

import itertools
import json
import math
import statistics
from dataclasses import dataclass, field
from typing import Callable

from beowulf_netlab.core.verdicts import PASSES, Forced, Verdict
from beowulf_netlab.judge import bounds as B
from beowulf_netlab.run.gates import SLACK
from beowulf_netlab.run.point import RESULT_KEYS

INF = math.inf
Range = tuple[float, float]
Key = tuple[str, int]           # (experiment, index of the point in its document)
Reading = dict[Key, float]      # a value for each point read


def matches(point: dict, where: dict) -> bool:
    """A selection's `where` (key -> value, or a list of values) holds for the point (the judge's
    rule, judge.claims, which reads it from here)."""
    for key, want in where.items():
        have = point.get(key)
        if isinstance(want, list) and have not in want or not isinstance(want, list) and have != want:
            return False
    return True


def groups(points: list) -> dict[tuple, list]:
    """Points (or (key, point) pairs) that differ only by repeat and their results, grouped: one
    measured point each (the judge takes the median of a group)."""
    out: dict[tuple, list] = {}
    for item in points:
        p = item[1] if isinstance(item, tuple) else item
        key = tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in p.items() if k not in RESULT_KEYS))
        out.setdefault(key, []).append(item)
    return out


@dataclass
class Sel:
    """A selection's admissible number: [lo, hi] after reducing and scaling, and its points."""
    lo: float
    hi: float
    why: str
    label: str
    metric: str
    how: str
    scale: float
    parts: list[tuple[list[Key], B.Bound]] = field(default_factory=list)   # a measured point's repeats

    def reading(self, value: float) -> Reading:
        """Every point at the same fraction t of its range, t chosen so the selection reads value
        (clamped to its range)."""
        want = value / self.scale
        his = [b.hi if b.hi < INF else max(b.lo, want, 1.0) * 2 for _, b in self.parts]
        los = [b.lo for _, b in self.parts]
        def at(t: float) -> list[float]:
            return [lo + t * (hi - lo) for lo, hi in zip(los, his)]
        lo_t, hi_t = 0.0, 1.0
        for _ in range(60):
            mid = (lo_t + hi_t) / 2
            lo_t, hi_t = (mid, hi_t) if _reduce(self.how, at(mid)) < want else (lo_t, mid)
        return {k: v for (keys, _), v in zip(self.parts, at(hi_t)) for k in keys}


def _reduce(how: str, values: list[float]) -> float:
    return max(values) if how == "max" else min(values) if how == "min" else statistics.fmean(values)


def label(sel: dict) -> str:
    """A selection in words: its reduction and its `where`."""
    where = ", ".join(f"{k} {'/'.join(map(str, v)) if isinstance(v, list) else v}" for k, v in sel["where"].items())
    return (f"{sel.get('reduce', 'max')} of " if sel.get("reduce") else "") + (where or "every point")


def selection(docs: dict[str, dict], sel: dict, first: str, cals: list[dict],
              level: Forced = Forced.MODEL) -> Sel | None:
    """The range of a selection's reduced number at one level (judge.bounds), or None when it reads
    no point."""
    name = sel.get("experiment", first)
    doc = docs.get(name)
    if doc is None:
        return None
    metric = sel.get("metric", B.THROUGHPUT)
    chosen = [((name, i), p) for i, p in enumerate(doc["points"])
              if matches(p, sel["where"]) and not p.get("calibration_of")]
    if not chosen:
        return None
    parts = []
    for group in groups(chosen).values():
        parts.append(([k for k, _ in group], B.point_bound(group[0][1], metric, cals, level, sel.get("pin"))))
    how, scale = sel.get("reduce", "max"), sel.get("scale", 1.0)
    lo = _reduce(how, [b.lo for _, b in parts])
    hi = INF if any(b.hi == INF for _, b in parts) else _reduce(how, [b.hi for _, b in parts])
    if how != "mean" and hi == INF:
        hi = max(b.hi for _, b in parts) if how == "max" else min(b.hi for _, b in parts)
    distinct = list(dict.fromkeys(b.why() for _, b in parts))
    whys = "; ".join(distinct[:2]) + (f"; and {len(distinct) - 2} more" if len(distinct) > 2 else "")
    return Sel(lo * scale, hi * scale, whys, label(sel), metric, how, scale, parts)


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


def _merged(allowed: list[Range]) -> list[list[float]]:
    merged: list[list[float]] = []
    for lo, hi in sorted(allowed):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged


def _inside(r: Range, allowed: list[Range]) -> bool:
    """Is every reading of r (closed) inside the union of allowed (open at a shape's edge:
    close enough)?"""
    return any(lo <= r[0] and r[1] <= hi for lo, hi in _merged(allowed))


def _show(r: Range) -> str:
    return f"[{r[0]:.3g}, {'inf' if r[1] == INF else format(r[1], '.3g')}]"


def _failing(r: Range, allowed: list[Range], edges: tuple[float, ...] = ()) -> list[float]:
    """Numbers in r that no passing band holds: just outside each band's edge and the check's
    other edges (a shape's value, where a bias keeps it from passing) first, then r's ends."""
    ok = _merged(allowed)
    near = [e + s * max(abs(e), 1.0) * 1e-3 for e in (*(x for band in ok for x in band), *edges)
            if abs(e) < INF for s in (-1, 1)]
    ends = [r[0], r[1] if r[1] < INF else max(r[0], 1.0) * 10]
    return [v for v in [*near, *ends] if r[0] <= v <= r[1] and not any(lo <= v <= hi for lo, hi in ok)]


@dataclass
class Outcome:
    """One check's analysis at one level: forced (None: not analysed), why, and candidate flips."""
    forced: bool | None
    why: str
    flips: list[Reading] = field(default_factory=list)
    sels: list[Sel] = field(default_factory=list)


def _bound_of(check: dict, docs: dict, sels: list[Sel]) -> Range:
    """The check's physical bound (clipped readings beyond it are not checkable), widened by the
    judge's slack; none where it is line-rate arithmetic and a point ran with collisions."""
    bound = check.get("bound") or {}
    if bound.get("collision_free") and any(docs[k[0]]["points"][k[1]].get("contention") == "on"
                                           for s in sels for keys, _ in s.parts for k in keys):
        bound = {}
    lo, hi = bound.get("min", -INF), bound.get("max", INF)
    return lo - abs(lo) * SLACK, hi + abs(hi) * SLACK


def _solve(kind: str, a: Sel, b: Sel, v: float) -> Reading | None:
    """Readings of a and b whose ratio (a / b) or drop (1 - b / a) is v, inside both ranges."""
    q = v if kind == "ratio" else 1 - v          # a / b, or b / a
    first, second = (a, b) if kind == "ratio" else (b, a)   # first = q x second
    his = [s for s in (second.hi if second.hi < INF else None, second.lo, (second.lo + second.hi) / 2
                       if second.hi < INF else None) if s is not None and s > 0]
    for s in his:
        f = q * s
        if first.lo <= f <= first.hi:
            return {**first.reading(f), **second.reading(s)}
    if q > 0:
        for f in (first.lo, first.hi if first.hi < INF else None):
            if f is not None and f > 0 and second.lo <= f / q <= second.hi:
                return {**first.reading(f), **second.reading(f / q)}
    return None


def _numeric(check: dict, docs: dict, first: str, cals: list[dict], level: Forced,
             bias: dict | None) -> Outcome:
    kind = check["kind"]
    if kind == "value":
        s = selection(docs, check["select"], first, cals, level)
        if s is None:
            return Outcome(None, "reads no point")
        sels, r, why = [s], (s.lo, s.hi), s.why
    else:
        a, b = (selection(docs, check[k], first, cals, level) for k in ("a", "b"))
        if a is None or b is None:
            return Outcome(None, "reads no point")
        sels = [a, b]
        q = _divide((b.lo, b.hi), (a.lo, a.hi))
        r = _divide((a.lo, a.hi), (b.lo, b.hi)) if kind == "ratio" else (1 - q[1], 1 - q[0])
        why = f"a in {_show((a.lo, a.hi))} ({a.why}), b in {_show((b.lo, b.hi))} ({b.why})"
        equal = check.get("model_equal")
        if equal and level == Forced.MODEL and _equal_by_model(equal, docs, a, b, cals):
            return _model_equal(check, docs, a, b, equal, cals, bias)
    lo, hi = _bound_of(check, docs, sels)
    r = (max(r[0], lo), min(r[1], hi))
    passing = _passing(check, bias)
    forced = r[0] <= r[1] and _inside(r, passing)
    out = Outcome(forced, f"it can read {_show(r)} ({why})" + (", and passes anywhere there" if forced else ""),
                  sels=sels)
    if not forced:
        shape = check.get("shape")
        for v in _failing(r, passing, (shape["value"],) if shape else ()):
            flip = sels[0].reading(v) if kind == "value" else _solve(kind, sels[0], sels[1], v)
            if flip:
                out.flips.append(flip)
    return out


def _equal_by_model(equal: dict, docs: dict, a: Sel, b: Sel, cals: list[dict]) -> bool:
    """Does the calibration of the quantity the model makes equal apply to every point of a and b?"""
    from beowulf_netlab.run import calibration as cal
    c = next((c for c in cals if c["id"] == equal["calibration"]), None)
    return c is not None and all(cal.applies(c, docs[k[0]]["points"][k[1]])
                                 for s in (a, b) for keys, _ in s.parts for k in keys)


def _model_equal(check: dict, docs: dict, a: Sel, b: Sel, equal: dict, cals: list[dict],
                 bias: dict | None) -> Outcome:
    """a and b read one quantity of the model (judge.bounds' module doc): a ratio of 1 (a drop of
    0) by construction; how far apart an emulator defect must put them to flip the check."""
    model = 1.0 if check["kind"] == "ratio" else 0.0
    passing = _passing(check, bias)
    if not _inside((model, model), passing):
        return Outcome(False, f"the model makes a and b equal ({equal['why']}), and the check fails there",
                       sels=[a, b])
    ratios = [v if check["kind"] == "ratio" else 1 - v for v in _failing((-INF, INF), passing) if abs(v) < INF]
    parts = [abs(1 - 1 / q) for q in ratios if q > 0]        # a round trip's relative difference
    apart = min(parts) if parts else INF
    point = docs[a.parts[0][0][0][0]]["points"][a.parts[0][0][0][1]]
    rtt = B.lone_round_trip_us(point)
    size = f" (about {apart * rtt[0]:.0f} us of its {rtt[0]:.0f} us round trip)" if rtt and apart < INF else ""
    return Outcome(True, f"the model makes a and b equal ({equal['why']}): their ratio is 1, which passes; "
                         f"only an emulator defect that puts them more than {apart:.1%} apart{size} flips it",
                   sels=[a, b])


def _orders(check: dict, docs: dict, first: str, cals: list[dict], level: Forced) -> Outcome:
    margin = check.get("margin", 0.0)
    if check["kind"] == "order":
        items = [selection(docs, s, first, cals, level) for s in check["items"]]
        if any(s is None for s in items):
            return Outcome(None, "reads no point")
        ranges = [((s.lo, s.hi), s.why) for s in items]
        sels = items
    else:
        sels, ranges = [], []
        for part in (check["first"], check["second"]):
            a, b = (selection(docs, part[k], first, cals, level) for k in ("a", "b"))
            if a is None or b is None:
                return Outcome(None, "reads no point")
            sels += [a, b]
            ranges.append((_divide((a.lo, a.hi), (b.lo, b.hi)), f"{a.why} / {b.why}"))
    forced = all(x[0][0] > y[0][1] * (1 + margin) for x, y in zip(ranges, ranges[1:]))
    why = " vs ".join(f"{_show(r)} ({w})" for r, w in ranges) + (": always in the paper's order" if forced else "")
    out = Outcome(forced, why, sels=sels)
    if not forced and check["kind"] == "order":
        for x, y in zip(sels, sels[1:]):
            if x.lo <= y.hi * (1 + margin):
                y_val = y.hi if y.hi < INF else max(y.lo, x.lo, 1.0)
                x_val = max(x.lo, min(x.hi, y_val * 0.999))
                out.flips.append({**y.reading(y_val), **x.reading(x_val)})
    return out


def _curve(docs: dict, sel: dict, first: str, cals: list[dict], level: Forced, over: str) \
        -> tuple[Sel, dict] | None:
    """A shape check's curve: x -> the bound of the one point there, or None (several points at
    one x are the judge's 'not checkable', no point at all: not analysed)."""
    s = selection(docs, sel, first, cals, level)
    if s is None:
        return None
    out: dict = {}
    for keys, b in s.parts:
        x = docs[keys[0][0]]["points"][keys[0][1]].get(over)
        if x in out:
            return None
        out[x] = b
    return s, out


def _shape(check: dict, docs: dict, first: str, cals: list[dict], level: Forced) -> Outcome:
    """peak, converge, sublinear: forced only if every admissible curve has the shape."""
    over = check["over"]
    if check["kind"] == "converge":
        got = [_curve(docs, check[k], first, cals, level, over) for k in ("a", "b")]
        if any(g is None for g in got):
            return Outcome(None, "reads no single curve")
        (sa, a), (sb, b) = got
        tol, start = check.get("tolerance", 0.1), check["from"]
        xs = sorted(set(a) & set(b))
        before = [x for x in xs if 0 < x < start]
        after = [x for x in xs if x >= start]
        ahead = all(a[x].lo > b[x].hi * (1 + tol) for x in before)
        close = all(a[x].hi - b[x].lo <= tol * a[x].hi and b[x].hi - a[x].lo <= tol * b[x].hi
                    and a[x].hi < INF and b[x].hi < INF for x in after)
        forced = bool(before and after) and ahead and close
        return Outcome(forced, f"{sa.label} vs {sb.label}: ahead before {start:g} "
                               f"{'always' if ahead else 'not always'}, within {tol:.0%} from {start:g} on "
                               f"{'always' if close else 'not always'}", sels=[sa, sb])
    got = _curve(docs, check["select"], first, cals, level, over)
    if got is None:
        return Outcome(None, "reads no single curve")
    s, curve = got
    xs = sorted(curve)
    if len(xs) < 3:
        return Outcome(None, "too few points for a shape")
    if check["kind"] == "peak":
        at = check["at"]
        if at not in curve or xs[-1] == at:
            return Outcome(False, f"{s.label}: no admissible peak at {at:g} that then falls", sels=[s])
        top = curve[at].lo
        after = xs[xs.index(at):]
        forced = all(top > curve[x].hi for x in xs if x != at) and \
            all(curve[x].lo >= curve[y].hi * 0.98 for x, y in zip(after, after[1:]))
        return Outcome(forced, f"{s.label}: at {at:g} {_show((curve[at].lo, curve[at].hi))}, elsewhere at most "
                               f"{max(curve[x].hi for x in xs if x != at):.3g}", sels=[s])
    y0 = curve[xs[0]]
    grows = y0.lo > 0 and curve[xs[-1]].lo > y0.hi * 1.05
    sub = y0.lo > 0 and all(curve[x].hi / y0.lo < x / xs[0] * 0.95 for x in xs[1:])
    return Outcome(grows and sub, f"{s.label}: from {_show((y0.lo, y0.hi))} to "
                                  f"{_show((curve[xs[-1]].lo, curve[xs[-1]].hi))}", sels=[s])


def analyse(check: dict, docs: dict[str, dict], first: str, cals: list[dict],
            bias: dict | None = None, level: Forced = Forced.MODEL) -> Outcome:
    """A check at one level (judge.bounds.LEVELS): forced, why, and candidate flips."""
    kind = check["kind"]
    if kind == "all":
        parts = [analyse(c, docs, first, cals, bias, level) for c in check["checks"]]
        if any(p.forced is None for p in parts):
            return next(p for p in parts if p.forced is None)
        forced = all(p.forced for p in parts)
        return Outcome(forced, "; ".join(p.why for p in parts if p.forced == forced),
                       [f for p in parts for f in p.flips], [s for p in parts for s in p.sels])
    if kind in ("value", "ratio", "drop"):
        return _numeric(check, docs, first, cals, level, bias)
    if kind in ("order", "ratio_order"):
        return _orders(check, docs, first, cals, level)
    if kind in ("peak", "converge", "sublinear"):
        return _shape(check, docs, first, cals, level)
    return Outcome(None, f"a {kind} check is not analysed")


# -- flips: readings the judge's own check does not pass -------------------------------------------

def _candidates(out: Outcome) -> list[Reading]:
    """The analysis' own flips first, then readings that often fail any check: every point at one
    common value, every point at its range's top or bottom, and each selection at its top or bottom."""
    sels = out.sels
    cands = list(out.flips)
    los = [b.lo for s in sels for _, b in s.parts]
    his = [b.hi for s in sels for _, b in s.parts]
    top = min((h for h in his if h < INF), default=max(max(los, default=0.0), 1.0))
    for v in (top, max(los, default=0.0), (top + max(los, default=0.0)) / 2):
        if v > 0 and all(lo <= v <= hi for lo, hi in zip(los, his)):
            cands.append({k: v for s in sels for keys, _ in s.parts for k in keys})
    def at(s: Sel, end: str) -> Reading:
        return {k: (b.hi if b.hi < INF else max(b.lo, 1.0) * 10) if end == "hi" else
                (b.lo if b.lo > 0 else 1e-3 * (b.hi if b.hi < INF else 1.0))
                for keys, b in s.parts for k in keys}
    for ends in itertools.product(("hi", "lo"), repeat=min(len(sels), 4)):
        reading: Reading = {}
        for s, end in zip(sels, ends):
            reading.update(at(s, end))
        cands.append(reading)
    return cands


Judge = Callable[[dict, dict, str, "dict | None"], str]   # (check, docs, first, bias) -> the judge's verdict


def _judged(check: dict, docs: dict[str, dict], first: str, bias: dict | None, flip: Reading,
            sels: list[Sel], verdict_of: Judge) -> str:
    """The judge's own verdict on a check whose points read `flip` (the rest of the points it
    reads at the middle of their ranges), each point once (no noise)."""
    wanted: dict[str, dict[int, tuple[float, set[str]]]] = {}
    for s in sels:
        for keys, b in s.parts:
            mid = (b.lo + b.hi) / 2 if b.hi < INF else max(b.lo, 1.0)
            for k in keys:
                _, metrics = wanted.setdefault(k[0], {}).get(k[1], (0.0, set()))
                wanted[k[0]][k[1]] = (flip.get(k, mid), metrics | {s.metric})
    out = {}
    for name, values in wanted.items():
        points = []
        for i, (v, metrics) in values.items():
            p = {k: x for k, x in docs[name]["points"][i].items() if k not in ("gates", "fidelity")}
            points.append({**p, **{m: v for m in metrics}, "repeat": 0})
        out[name] = {**docs[name], "points": points, "complete": True}
    return verdict_of(check, out, first, bias)


@dataclass
class Forcing:
    """Could the claim's verdict have failed on this view? (None: not analysed.)"""
    can_fail: bool | None
    kind: Forced | None          # what forced it, when it cannot fail
    why: str
    flip: dict[Key, float] | None = None    # a reading of every point it reads that the judge fails
    flip_verdict: str = ""
    flip_text: str = ""

    @property
    def forced(self) -> bool:
        return self.can_fail is False


def _flip_text(sels: list[Sel], flip: Reading) -> str:
    seen, out = set(), []
    for s in sels:
        if s.label in seen:
            continue
        seen.add(s.label)
        values = [flip.get(keys[0]) for keys, _ in s.parts]
        if all(v is not None for v in values):
            out.append(f"{s.label}: {_reduce(s.how, values) * s.scale:.3g}")
    return "; ".join(out)


def forced(claim: dict, docs: dict[str, dict], cals: list[dict], verdict_of: Judge | None = None) -> Forcing:
    """Can this claim fail on these documents (one view)? See the module doc. verdict_of: the
    judge's check (judge.claims.can_fail passes it), which each candidate flip is put to; without
    it no flip is sought."""
    if claim["check"]["kind"] == "tested" or claim.get("calibration"):
        return Forcing(None, None, "not judged by a measurement")
    first = claim["experiments"][0] if claim["experiments"] else ""
    bias = claim.get("bias")
    out = None
    for level in B.LEVELS:
        out = analyse(claim["check"], docs, first, cals, bias, level)
        if out.forced is None:
            return Forcing(None, None, out.why)
        if out.forced:
            return Forcing(False, level, out.why)
    if verdict_of is None:
        return Forcing(True, None, out.why)
    best: tuple[Reading, str] | None = None
    for flip in _candidates(out):
        verdict = _judged(claim["check"], docs, first, bias, flip, out.sels, verdict_of)
        if verdict == Verdict.NOT_REPRODUCED:
            best = (flip, verdict)
            break
        if verdict not in PASSES and best is None:
            best = (flip, verdict)
    if best is None:
        return Forcing(True, None, out.why + "; no reading tried flips it")
    return Forcing(True, None, out.why, best[0], best[1], _flip_text(out.sels, best[0]))

