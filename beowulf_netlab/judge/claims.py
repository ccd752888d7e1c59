"""The papers' checkable claims, judged against measured results as a referee would.

beowulf_netlab/claims/claims.json holds one entry per claim (numbered as in docs/papers.md):
the statement, the paper's value and how precisely the paper gives it, the
check with a tolerance declared from that precision (two-sided, never past a
physical bound), the emulator's known bias on the number, the experiments it
reads, and a gap text filled from this run's numbers. Schema: SCHEMA below,
written to beowulf_netlab/claims/schema.json.

How a claim is judged:
- every point is the MEDIAN of its repeats; the check runs on those medians,
  and again on each repeat alone. A claim whose repeats disagree on the
  verdict, or that would pass while its repeats spread wider than its
  tolerance, is "not checkable: noisy"; one read from a single run is "not
  checkable" too (its noise is unknown).
- numeric checks (value, ratio, drop) compare with `target` within the relative
  `tolerance`: reproduced. Outside it, a `shape` (a relation the claim itself
  states, e.g. "more than one") may still hold: "reproduced in shape", its own
  verdict, counted apart. If the emulator's known `bias` pushes the number the
  way the shape asks, the relation is no evidence: not reproduced (a numeric
  claim) or not checkable (a relation alone).
- a measurement beyond the claim's physical `bound` is an emulator artefact:
  not checkable.
- points that failed a fidelity gate, or rest on a calibration that was not met
  (run.calibration), make the claim not checkable.
- `tested` claims (wiring facts, bonding's invisibility) are checked by a named
  test, not an experiment: verdict "tested". `calibration` claims are the
  calibration points themselves: met or missed, never evidence.
- claims that read one measurement name each other in `shares` and count once.
- a claim whose number the calibrations fix (`consequence`: which, and why) is judged and
  shown, but its verdict is "calibration consequence", counted apart: it says how the model
  was set, not how the machine behaves.
- a claim that would pass whatever its points read within what the run's calibrations pin
  and its disks and wires allow (judge.forced) cannot fail on that view: verdict
  "forced by construction", counted apart, never reproduced.

Selections pick points of one experiment (`where`: key -> value or list);
`reduce` (max | min | mean) turns a selection into one number. Check kinds:
value, ratio (a / b), drop (1 - b / a), order (each item larger than the next,
by `margin`), ratio_order, peak, converge, sublinear, all, tested.
"""
from __future__ import annotations

import re
import statistics
from pathlib import Path
from typing import Any

from beowulf_netlab.core.jsonfile import check_schema, write_schema
from beowulf_netlab.run import calibration as cal
from beowulf_netlab.judge import forced as forcing
from beowulf_netlab.judge import tested
# keys that are results, not parameters: points differing only in these are repeats of one point
# (every declared field that is not identity: run.point; judge.forced.groups groups by them)
from beowulf_netlab.run.point import RESULT_KEYS  # noqa: F401
from beowulf_netlab.run.results import read_json, real_rate
from beowulf_netlab.core.verdicts import PASSES, Verdict
from beowulf_netlab.topologies.hardware import hardware_of

PACKAGE = Path(__file__).resolve().parent.parent   # beowulf_netlab/, beside its data folders
CLAIMS_FILE = PACKAGE / "claims" / "claims.json"
SCHEMA_FILE = PACKAGE / "claims" / "schema.json"

REPRODUCED, IN_SHAPE, NOT_REPRODUCED, NOT_CHECKABLE = (Verdict.REPRODUCED, Verdict.IN_SHAPE,
                                                      Verdict.NOT_REPRODUCED, Verdict.NOT_CHECKABLE)
CALIBRATION, TESTED, FORCED, CONSEQUENCE = (Verdict.CALIBRATION, Verdict.TESTED, Verdict.FORCED,
                                            Verdict.CONSEQUENCE)
BOUND_SLACK = 0.02       # counter timing and rounding before a bound counts as broken
SYSTEMATIC = 0.02
"""How far apart two points must be, beyond their repeats' spread, before an order between them
counts. Repeats show a point's noise, not its systematic error, which differs between networks
and disks: a disk throttle's slice accounting (a copy under a 1.67 MB/s throttle reads
1.67-1.72, beowulf_netlab/netlab/disk_profiles.py), the counters' timing (the gates' 2 % slack, run.gates). Two
near-deterministic disk-bound points 1-2 % apart show nothing the model made differ."""
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")

_SEL = {"type": "object", "additionalProperties": False, "required": ["where"],
        "description": "points of one experiment",
        "properties": {"experiment": {"type": "string", "description": "experiment name (default: the claim's first)"},
                       "where": {"type": "object", "description": "point key -> value or list of values"},
                       "reduce": {"enum": ["max", "min", "mean"], "description": "how the points become one number (default max)"},
                       "scale": {"type": "number", "description": "multiply the number by this (e.g. 1/line rate)"},
                       "metric": {"type": "string", "description": "the point's MB/s key to read (default "
                                  "throughput_mbyte_s); a time-scaled point gives it x D; a node -> share "
                                  "map (cpu_busy) gives its busiest node's"},
                       "pin": {"type": "object", "additionalProperties": False, "required": ["calibration", "why"],
                               "description": "the claim's own text ties these points to a calibrated "
                                              "quantity: where that calibration applies to a point, it "
                                              "reads the calibration's band (judge.bounds), and a reading "
                                              "outside it makes the claim not checkable (the tie failed)",
                               "properties": {"calibration": {"type": "string", "description": "its id "
                                                              "(beowulf_netlab/claims/calibrations.json)"},
                                              "why": {"type": "string", "minLength": 1}}}}}
_CHECK = {"type": "object", "required": ["kind"], "description": "how it is judged",
          "properties": {"kind": {"enum": ["value", "ratio", "drop", "order", "peak", "converge",
                                           "sublinear", "all", "ratio_order", "tested"]},
                         "checks": {"type": "array", "description": "kind all: every check must hold"},
                         "first": {"type": "object", "description": "ratio_order: {a, b}, must exceed second"},
                         "second": {"type": "object", "description": "ratio_order: {a, b}"},
                         "note": {"type": "string", "description": "kind tested: the test that checks it"},
                         "tests": {"type": "array", "items": {"type": "string", "pattern": "^tests/[^ ]+$"},
                                   "description": "kind tested: the pytest node ids that check it "
                                                  "(reproduce runs the unit ones: beowulf_netlab/judge/tested.py)"},
                         "select": _SEL, "a": _SEL, "b": _SEL, "items": {"type": "array", "items": _SEL},
                         "target": {"type": "number"},
                         "tolerance": {"type": "number", "minimum": 0,
                                       "description": "relative, two-sided: |measured - target| <= "
                                                      "tolerance x target"},
                         "shape": {"type": "object", "additionalProperties": False,
                                   "required": ["op", "value"],
                                   "description": "a relation the claim itself states, which still holds "
                                                  "'in shape': {op: > | <, value}",
                                   "properties": {"op": {"enum": [">", "<"]}, "value": {"type": "number"}}},
                         "bound": {"type": "object", "additionalProperties": False, "required": ["why"],
                                   "description": "the physical limits of the measured number: beyond "
                                                  "them it is an artefact",
                                   "properties": {"min": {"type": "number"}, "max": {"type": "number"},
                                                  "why": {"type": "string", "minLength": 1},
                                                  "collision_free": {
                                                      "type": "boolean",
                                                      "description": "the bound is line-rate arithmetic, "
                                                      "which holds only on wires that do not collide: not "
                                                      "applied when a point read ran with the collision "
                                                      "model (the wires then lose different shares to it)"}}},
                         "over": {"type": "string"}, "at": {"type": "number"},
                         "model_equal": {"type": "object", "additionalProperties": False,
                                         "required": ["calibration", "why"],
                                         "description": "ratio, drop: a and b read one quantity of the "
                                                        "model wherever this calibration of it applies to "
                                                        "their points, so the model's ratio is 1 (judge.forced: "
                                                        "forced by the model's construction, only an emulator "
                                                        "defect parts them)",
                                         "properties": {"calibration": {"type": "string"},
                                                        "why": {"type": "string", "minLength": 1}}},
                         "margin": {"type": "number", "minimum": 0,
                                    "description": "order, ratio_order: how much larger each must be"},
                         "from": {"type": "number"}}}
SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Beowulf Netlab claims file",
    "description": "The papers' checkable claims, each with its check (see beowulf_netlab/judge/claims.py).",
    "type": "object", "additionalProperties": False, "required": ["claims"],
    "properties": {"$schema": {"type": "string", "description": "path of this schema"},
                   "claims": {"type": "array", "description": "one entry per claim", "items": {
        "type": "object", "additionalProperties": False,
        "required": ["id", "source", "statement", "paper", "experiments", "check", "calibration",
                     "why_tolerance"],
        "properties": {
            "id": {"type": "integer", "description": "the claim's number in docs/papers.md"},
            "source": {"type": "string", "description": "paper key and figure"},
            "statement": {"type": "string", "description": "the claim, in our words"},
            "paper": {"type": "object", "required": ["value", "status"], "additionalProperties": False,
                      "description": "the paper's value: a number, or text for a qualitative claim",
                      "properties": {"value": {"type": ["number", "string"]},
                                     "status": {"enum": ["verified", "seed", "derived"]},
                                     "unit": {"type": "string"},
                                     "precision": {"type": "string", "description": "how exactly the "
                                                   "paper gives the number (text, figure, rounding)"}}},
            "experiments": {"type": "array", "items": {"type": "string"}, "description": "experiments it reads"},
            "check": _CHECK,
            "why_tolerance": {"type": "string", "minLength": 1,
                              "description": "the tolerance from the paper's own precision"},
            "bias": {"type": "object", "additionalProperties": False, "required": ["direction", "why"],
                     "description": "which way the emulator's known shortcomings push the measured "
                                    "number: a relation in the same direction is no evidence",
                     "properties": {"direction": {"enum": ["up", "down"]},
                                    "why": {"type": "string", "minLength": 1},
                                    "views": {"type": "array", "minItems": 1, "uniqueItems": True,
                                              "items": {"enum": ["none", "paper", "paper+contention"]},
                                              "description": "the views it holds on (none: today's "
                                                             "hosts, paper: the paper's hardware, "
                                                             "paper+contention: it with the collision "
                                                             "model switched); absent: every view"}}},
            "consequence": {"type": "object", "additionalProperties": False, "required": ["of", "why"],
                            "description": "what the calibrations fix: a claim whose number follows from "
                                           "calibration points is judged and shown, but counted as their "
                                           "consequence, never as evidence",
                            "properties": {"of": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                                                  "description": "the calibrations' ids"},
                                           "why": {"type": "string", "minLength": 1}}},
            "shares": {"type": "array", "items": {"type": "integer"},
                       "description": "claims that read the same measurement: counted once"},
            "calibration": {"type": "boolean", "description": "a calibration point "
                            "(beowulf_netlab/claims/calibrations.json): met or missed, never evidence"},
            "figures": {"type": "object", "additionalProperties": _SEL,
                        "description": "name -> selection: numbers of this run the gap text quotes"},
            "gap": {"type": "string", "description": "what explains a difference from the paper: a template "
                    "whose {measured}, {target} and {figure names} are this run's numbers"},
        }}}},
}


def load_claims(path: Path = CLAIMS_FILE) -> list[dict]:
    data = read_json(path, "claims file")
    check_schema(data, SCHEMA, f"claims file {path}")
    return data["claims"]


_matches = forcing.matches


_groups = forcing.groups


def _value(p: dict, metric: str) -> float | None:
    """The point's reading of a metric as the judge reads it: MB/s of the real network (x D), a
    node -> share map (cpu_busy) its busiest node's; None when the point has none."""
    have = p.get(metric)
    if isinstance(have, dict):
        return max(have.values(), default=None)
    return None if have is None else real_rate(p, metric)


class Evidence:
    """What a claim read: its points (the median of each point's repeats), the
    repeats seen, the widest point spread, and every reason not to trust them."""

    def __init__(self, bad_calibrations: dict[str, dict[str, dict]] | None = None, cals: list[dict] | None = None):
        self.problems: list[str] = []
        self.points = 0
        self.repeats: set = set()    # the repeats every point read has (judge.repeats measures a
        self._seen = False            # third one only where two leave a verdict in doubt)
        self.spread = 0.0
        self.bad = bad_calibrations or {}
        self.cals = cals or []
        self.collided = False        # some point read ran with the collision model

    def series(self, docs: dict[str, dict], sel: dict, default_exp: str) -> list[tuple[dict, float]]:
        name = sel.get("experiment", default_exp)
        doc = docs.get(name)
        if doc is None:
            exists = (PACKAGE / "experiments" / f"{name}.json").exists()
            self.problems.append(f"experiment {name} was not run" if exists else
                                 f"there is no experiment {name} yet (beowulf_netlab/experiments/{name}.json)")
            return []
        if doc.get("complete") is False:
            self.problems.append(f"experiment {name} did not finish (interrupted, or one shard: "
                                 "merge the shards first)")
        chosen = [p for p in doc["points"] if _matches(p, sel["where"]) and not p.get("calibration_of")]
        if not chosen:
            self.problems.append(f"no point of {name} matches {sel['where']}")
        out = []
        metric = sel.get("metric", "throughput_mbyte_s")
        for group in _groups(chosen).values():
            vals = [v for v in (_value(p, metric) for p in group) if v is not None]
            for p in group:
                self._trust(name, p)
                self.collided |= p.get("contention") == "on"
            if not vals:
                self.problems.append(f"{name} point {group[0].get('point_index')} has no {metric}")
                continue
            median = statistics.median(vals)
            if len(vals) > 1 and median > 0:
                self.spread = max(self.spread, (max(vals) - min(vals)) / 2 / median)
            self.points += len(group)
            self.meet({p["repeat"] for p in group})
            self._tied(name, sel, group[0], metric, median)
            out.append((group[0], median))
        return out

    def meet(self, repeats: set) -> None:
        """Keep the repeats every point so far has: a repeat some point lacks cannot be judged
        alone (its check would miss that point), though the point's median uses all it has."""
        self.repeats = set(repeats) if not self._seen else self.repeats & repeats
        self._seen = True

    def _tied(self, name: str, sel: dict, p: dict, metric: str, median: float) -> None:
        """A point the claim ties to a calibration (`pin`) reads inside its band, or the tie, not
        the claim, failed: not checkable (judge.forced counts on the band)."""
        band = forcing.B.calibration_band(p, metric, self.cals, sel.get("pin")) if sel.get("pin") else None
        if band and not band[0] <= median <= band[1]:
            self.problems.append(f"{name} point {p.get('point_index')} ({forcing.label(sel)}) read "
                                 f"{median:.3g}, outside the {band[0]:.3g}-{band[1]:.3g} of {band[2]}: the tie "
                                 "failed, not the claim")

    def _trust(self, name: str, p: dict) -> None:
        gates = p.get("gates")
        if gates is not None and not gates.get("ok", True):
            why = (gates.get("failed") or ["(no reason recorded)"])[0]
            self.problems.append(f"{name} point {p.get('point_index')} failed a fidelity gate: {why}")
        elif gates is None and (p.get("fidelity") or {}).get("suspect"):
            self.problems.append(f"{name} point {p.get('point_index')}: {p['fidelity']['suspect']}")
        # the calibration of the experiment the point was measured in, judged there alone
        where = p.get("measured_in") if p.get("measured_in") in self.bad else name
        for miss in cal.resting_on(p, self.bad.get(where, {}), self.cals):
            self.problems.append(f"calibration {miss['verdict']}: {miss['id']} ({miss['reason']}), "
                                 f"which {name}'s points rest on")

    def reduce(self, docs, sel, default_exp) -> float | None:
        values = [v for _, v in self.series(docs, sel, default_exp)]
        if not values:
            return None
        how = sel.get("reduce", "max")
        value = max(values) if how == "max" else min(values) if how == "min" else statistics.fmean(values)
        return value * sel.get("scale", 1.0)


def _numeric(check: dict, measured: float, bias: dict | None) -> tuple[str, str]:
    target, tol, shape = check.get("target"), check.get("tolerance", 0.1), check.get("shape")
    holds = bool(shape) and (measured > shape["value"] if shape["op"] == ">" else measured < shape["value"])
    biased = bool(shape and bias) and {">": "up", "<": "down"}[shape["op"]] == bias["direction"]
    if target is None:   # a qualitative claim: only the relation is judged
        if not shape:
            return NOT_CHECKABLE, "the check has neither a target nor a shape"
        said = f"{measured:.3g} {'' if holds else 'not '}{shape['op']} {shape['value']:g}"
        if holds and biased:
            return NOT_CHECKABLE, (f"{said}, but the emulator's known bias ({bias['why']}) gives that "
                                   "anyway: no evidence either way")
        return (REPRODUCED if holds else NOT_REPRODUCED), said
    band = f"{target:g} +- {tol:.1%}".replace(".0%", "%")
    if abs(measured - target) <= tol * abs(target):
        return REPRODUCED, f"{measured:.3g} within {band}"
    if holds and biased:
        return NOT_REPRODUCED, (f"{measured:.3g} is outside {band}; it is {shape['op']} {shape['value']:g} "
                                f"as the claim says, but the emulator's known bias ({bias['why']}) gives "
                                "that anyway")
    if holds:
        return IN_SHAPE, (f"{measured:.3g} is outside {band} but {shape['op']} {shape['value']:g} "
                          "as the claim says")
    return NOT_REPRODUCED, f"{measured:.3g} is outside {band}"


def _own(ev: Evidence, docs: dict, sel: dict, first: str) -> tuple[float | None, float]:
    """A selection's number with its own spread over its repeats, its evidence added to ev's."""
    e = Evidence(ev.bad, ev.cals)
    value = e.reduce(docs, sel, first)
    ev.problems += e.problems
    ev.points += e.points
    if e._seen:
        ev.meet(e.repeats)
    ev.spread = max(ev.spread, e.spread)
    ev.collided |= e.collided
    return value, e.spread


def _ordered(ok: bool, measured: list, said: str, got: list[tuple[float, float]]) -> tuple[str, Any, str]:
    """An order's verdict: in the paper's order by more than the two numbers' spreads together
    and SYSTEMATIC, or not checkable: an order the noise or a systematic error could reverse."""
    for (x, sx), (y, sy) in zip(got, got[1:]):
        room = sx + sy + SYSTEMATIC
        if ok and x <= y * (1 + room):
            return NOT_CHECKABLE, measured, (
                f"{said}, but {x:.3g} over {y:.3g} is {x / y - 1:+.1%}, within the repeats' spread "
                f"(+-{sx + sy:.1%} together) and a systematic {SYSTEMATIC:.0%}: an order the noise could "
                "reverse")
    return (REPRODUCED if ok else NOT_REPRODUCED), measured, said


def _check(check: dict, docs: dict, first: str, ev: Evidence, bias: dict | None = None) -> tuple[str, Any, str]:
    """(verdict, measured, reason) of one check; problems with the points go to ev."""
    kind = check["kind"]
    if kind == "all":
        parts = [_check(c, docs, first, ev, bias) for c in check["checks"]]
        measured = [m for _, m, _ in parts]
        verdicts = [v for v, _, _ in parts]
        reason = "; ".join(r for _, _, r in parts)
        if NOT_CHECKABLE in verdicts:
            return NOT_CHECKABLE, measured, reason
        if all(v == REPRODUCED for v in verdicts):
            return REPRODUCED, measured, reason
        if all(v in PASSES for v in verdicts):
            return IN_SHAPE, measured, reason
        return NOT_REPRODUCED, measured, reason
    if kind == "value":
        measured = ev.reduce(docs, check["select"], first)
    elif kind in ("ratio", "drop"):
        a, b = ev.reduce(docs, check["a"], first), ev.reduce(docs, check["b"], first)
        if a is None or b is None:
            return NOT_CHECKABLE, None, "missing points"
        divisor = b if kind == "ratio" else a
        if divisor == 0:
            return NOT_CHECKABLE, [a, b], f"the {'denominator' if kind == 'ratio' else 'reference'} measured 0 MB/s"
        measured = a / b if kind == "ratio" else 1 - b / a
    elif kind == "ratio_order":
        # each ratio's spread is its two numbers' together: an order inside it is no order
        ratios, spreads = [], []
        for part in (check["first"], check["second"]):
            pair = [_own(ev, docs, part[k], first) for k in ("a", "b")]
            (a, sa), (b, sb) = pair
            ratios.append(None if a is None or b is None or b == 0 else a / b)
            spreads.append(sa + sb)
        if None in ratios:
            return NOT_CHECKABLE, None, "missing points"
        margin = check.get("margin", 0.0)
        ok = ratios[0] > ratios[1] * (1 + margin)
        said = f"first ratio {ratios[0]:.3g} {'>' if ok else 'not >'} second {ratios[1]:.3g}" + \
            (f" by more than {margin:.0%}" if margin else "")
        return _ordered(ok, [round(r, 3) for r in ratios], said, list(zip(ratios, spreads)))
    elif kind == "order":
        # each item's own spread over its repeats: an order inside the noise is no order
        got = [_own(ev, docs, s, first) for s in check["items"]]
        values = [v for v, _ in got]
        if None in values:
            return NOT_CHECKABLE, None, "missing points"
        margin = check.get("margin", 0.0)
        ok = all(x > y * (1 + margin) for x, y in zip(values, values[1:]))
        said = (" > " if ok else " vs ").join(f"{v:.3g}" for v in values) + \
            (" (in the paper's order" if ok else " (not in the paper's order") + \
            (f", by more than {margin:.0%})" if margin else ")")
        return _ordered(ok, [round(v, 3) for v in values], said, got)
    else:
        return _shape(check, ev, docs, first)
    if measured is None:
        return NOT_CHECKABLE, None, "missing points"
    bound = check.get("bound")
    if bound and bound.get("collision_free") and ev.collided:
        bound = None     # line-rate arithmetic: collisions take different shares of different wires
    if bound and (("max" in bound and measured > bound["max"] + abs(bound["max"]) * BOUND_SLACK)
                  or ("min" in bound and measured < bound["min"] - abs(bound["min"]) * BOUND_SLACK)):
        return NOT_CHECKABLE, measured, (f"{measured:.3g} lies beyond the physical bound "
                                         f"({bound['why']}): an emulator artefact")
    verdict, reason = _numeric(check, measured, bias)
    return verdict, measured, reason


def beside_paper(doc: dict, name: str) -> list[dict]:
    """The paper values of a document's experiment that say how a run reads them (`measure`),
    each with what this run measured: set side by side, never judged (the main job runs once)."""
    out = []
    for key, v in ((doc.get("paper") or {}).get("values") or {}).items():
        m = v.get("measure")
        if not m:
            continue
        ev = Evidence()
        # the judge's own reading of a check; its verdict is dropped (a measure has no target)
        _, measured, _ = _check(m, {name: doc}, name, ev)
        if isinstance(measured, list):     # a ratio whose denominator read 0: nothing to set beside
            measured = None
        out.append({"key": key, "paper": v["value"], "status": v["status"], "where": v.get("where", key),
                    "unit": v.get("unit", ""), "measured": measured, "problems": ev.problems})
    return out


def _by_x(pairs: list[tuple[dict, float]], over: str) -> dict | None:
    """x -> value, or None when several points share an x (the selection is too wide)."""
    out: dict = {}
    for p, v in pairs:
        if p.get(over) in out:
            return None
        out[p.get(over)] = v
    return out


def _shape(check, ev: Evidence, docs, first) -> tuple[str, Any, str]:
    over = check["over"]
    wide = f"several points per {over}: the check's 'where' must pick one curve"
    if check["kind"] == "converge":
        a = _by_x(ev.series(docs, check["a"], first), over)
        b = _by_x(ev.series(docs, check["b"], first), over)
        if a is None or b is None:
            return NOT_CHECKABLE, None, wide
        xs = sorted(set(a) & set(b))
        if not xs:
            return NOT_CHECKABLE, None, "no common points"
        tol, start = check.get("tolerance", 0.1), check["from"]
        before = [a[x] > b[x] * (1 + tol) for x in xs if 0 < x < start]
        after = [abs(a[x] - b[x]) <= tol * max(a[x], b[x]) for x in xs if x >= start]
        measured = {str(x): [round(a[x], 3), round(b[x], 3)] for x in xs}
        if before and after and all(before) and all(after):
            return REPRODUCED, measured, f"ahead before {start:g}, within {tol:.0%} from {start:g} on"
        return NOT_REPRODUCED, measured, (f"ahead before {start:g}: {sum(before)}/{len(before)}; "
                                          f"converged from {start:g}: {sum(after)}/{len(after)}")
    by_x = _by_x(ev.series(docs, check["select"], first), over)
    if by_x is None:
        return NOT_CHECKABLE, None, wide
    series = sorted(by_x.items())
    if len(series) < 3:
        return NOT_CHECKABLE, None, "too few points for a shape"
    xs, ys = [x for x, _ in series], [y for _, y in series]
    measured = {str(x): round(y, 3) for x, y in series}
    if check["kind"] == "peak":
        at = xs[ys.index(max(ys))]
        falls = all(y1 >= y2 * 0.98 for y1, y2 in zip(ys[xs.index(at):], ys[xs.index(at) + 1:]))
        ok = at == check["at"] and falls and ys[-1] < max(ys)
        return (REPRODUCED if ok else NOT_REPRODUCED), measured, \
            f"peak at {at:g}{', then falls' if falls else ', does not fall after'}"
    if xs[0] <= 0 or ys[0] <= 0:
        return NOT_CHECKABLE, measured, f"the first point ({over} {xs[0]:g}) is zero"
    grows = ys[-1] > ys[0] * 1.05
    sub = all(y / ys[0] < x / xs[0] * 0.95 for x, y in zip(xs[1:], ys[1:]))
    ok = grows and sub
    return (REPRODUCED if ok else NOT_REPRODUCED), measured, \
        ("grows, less than in proportion" if ok else "grows in proportion" if grows else "does not grow")


def _selections(check: dict):
    """Every selection a check reads (nested checks and ratio_order parts included)."""
    for key in ("select", "a", "b"):
        if key in check:
            yield check[key]
    yield from check.get("items", [])
    for part in (check.get("first"), check.get("second")):
        if part:
            yield from _selections(part)
    for sub in check.get("checks", []):
        yield from _selections(sub)


def read_by_claims(claims: list[dict], experiment: str, checks_only: bool = False):
    """A predicate: does some claim read this point of `experiment`, for its check or (unless
    checks_only) for the figures its gap names? (reproduce spends its repeats on those points;
    the others run once with --curves, else not at all; the range ends run the checks' alone)."""
    wheres = [sel["where"] for c in claims
              for sel in (*_selections(c["check"]), *(() if checks_only else c.get("figures", {}).values()))
              if sel.get("experiment", (c["experiments"] or [""])[0]) == experiment]
    return lambda point: any(_matches(point, w) for w in wheres)


def _only_repeat(docs: dict[str, dict], r) -> dict[str, dict]:
    return {n: {**d, "points": [p for p in d["points"] if p["repeat"] == r]} for n, d in docs.items()}


def _spread(measured: Any, per_repeat: list[Any]) -> float | None:
    """Half the range of the per-repeat numbers, relative to the median's; for a list (an `all`
    or `order` check) the widest of its members' spreads, so several numbers are guarded too."""
    if isinstance(measured, list):
        parts = [_spread(m, [r[i] if isinstance(r, list) and len(r) == len(measured) else None
                             for r in per_repeat]) for i, m in enumerate(measured)]
        return max((p for p in parts if p is not None), default=None)
    nums = [m for m in per_repeat if isinstance(m, (int, float))]
    if not isinstance(measured, (int, float)) or len(nums) < 2 or measured == 0:
        return None
    return (max(nums) - min(nums)) / 2 / abs(measured)


def _tolerance(check: dict) -> float | None:
    if check["kind"] == "all":
        tols = [_tolerance(c) for c in check["checks"]]
        return min((t for t in tols if t is not None), default=None)
    return check.get("tolerance") if check["kind"] in ("value", "ratio", "drop") else None


def figures(claim: dict, docs: dict[str, dict]) -> dict[str, float | None]:
    """The numbers of this run the claim's gap text quotes (medians of repeats)."""
    first = claim["experiments"][0] if claim["experiments"] else ""
    return {name: Evidence().reduce(docs, sel, first) for name, sel in claim.get("figures", {}).items()}


def show(value: Any, missing: str = "-") -> str:
    """A measured value as reports print it: 3 significant digits, lists and x -> value maps."""
    if value is None:
        return missing
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, list):
        return ", ".join(show(v, missing) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {show(v, missing)}" for k, v in value.items())
    return str(value)


def fill_gap(claim: dict, measured: Any, values: dict[str, float | None]) -> str:
    """The gap text with this run's numbers in place of its placeholders."""
    known = {"measured": measured, "target": claim["check"].get("target"), **values}
    return PLACEHOLDER.sub(lambda m: show(known.get(m.group(1)), "(not measured)"), claim.get("gap", ""))


def _tested(claim: dict, docs: dict, tests: dict[str, str] | None) -> dict:
    """A tested claim's verdict: what its tests did in this run (judge.tested)."""
    check = claim["check"]
    note = check.get("note", "checked by a test")
    names = check.get("tests", [])
    if tests is None or not names:
        return _result(claim, TESTED, None, f"{note} (its tests did not run with this report: "
                       "'reproduce' runs them)", Evidence(), docs)
    failed = [n for n in names if tests.get(n) == tested.FAILED]
    if failed:
        return _result(claim, NOT_REPRODUCED, None, f"{note}; FAILED in this run: {', '.join(failed)}",
                       Evidence(), docs)
    ran = [n for n in names if tests.get(n) == tested.PASSED]
    suite = [n for n in names if tests.get(n) == tested.SUITE_ONLY]
    idle = [n for n in names if tests.get(n) not in (tested.PASSED, tested.SUITE_ONLY)]
    said = [f"{len(ran)} passed in this run" if ran else "",
            f"{', '.join(suite)}: run by the test suite, not by reproduce" if suite else "",
            f"{', '.join(idle)}: {tests.get(idle[0]) or 'not run'}" if idle else ""]
    return _result(claim, TESTED, None, f"{note} ({'; '.join(s for s in said if s)})", Evidence(), docs)


def bias_on(claim: dict, which: str | None) -> dict | None:
    """The claim's declared bias on this view (None: no bias there; which None: every view)."""
    bias = claim.get("bias")
    return bias if bias and (which is None or which in bias.get("views", [which])) else None


def judge(claim: dict, docs: dict[str, dict], bad: dict[str, dict[str, dict]] | None = None,
          cals: list[dict] | None = None, tests: dict[str, str] | None = None,
          which: str | None = None) -> dict:
    """The verdict on one claim from the documents (experiment name -> document) of one view
    (which; None: all points); tests: what the tested claims' tests did in this run (None: not run)."""
    check = claim["check"]
    if check["kind"] == "tested":
        return _tested(claim, docs, tests)
    # a calibration claim is the calibration itself: its own miss is its verdict, not a reason
    ev = Evidence(None if claim.get("calibration") else bad, cals)
    first = claim["experiments"][0] if claim["experiments"] else ""
    bias = bias_on(claim, which)
    verdict, measured, reason = _check(check, docs, first, ev, bias)
    if ev.problems:
        return _result(claim, NOT_CHECKABLE, measured, ev.problems[0], ev, docs)
    repeats = sorted(ev.repeats)
    per = [_check(check, _only_repeat(docs, r), first, Evidence(), bias) for r in repeats]
    spread = _spread(measured, [m for _, m, _ in per])
    ev.spread = spread if spread is not None else ev.spread
    if claim.get("calibration"):
        met = verdict == REPRODUCED and len(repeats) >= 2 and len({v for v, _, _ in per}) == 1
        return _result(claim, CALIBRATION, measured, ("met: " if met else "MISSED: ") + reason
                       + ("" if len(repeats) >= 2 else " (one run: its noise is unknown)"), ev, docs)
    if len(repeats) < 2:
        return _result(claim, NOT_CHECKABLE, measured, f"one run only: its noise is unknown (run with "
                       f"--repeats 2 or more); it read: {reason}", ev, docs)
    seen = [v for v, _, _ in per]
    if len(set(seen)) > 1:
        tally = ", ".join(f"{seen.count(v)} {v}" for v in dict.fromkeys(seen))
        return _result(claim, NOT_CHECKABLE, measured, f"noisy: the {len(repeats)} repeats disagree "
                       f"({tally}); the median read: {reason}", ev, docs)
    tol = _tolerance(check)
    if verdict in PASSES and spread is not None and tol is not None and spread > tol:
        return _result(claim, NOT_CHECKABLE, measured, f"noisy: the repeats spread +-{spread:.1%}, wider "
                       f"than the tolerance (+-{tol:.1%}); the median read: {reason}", ev, docs)
    return _result(claim, verdict, measured, reason, ev, docs)


def _result(claim: dict, verdict: str, measured: Any, reason: str, ev: Evidence, docs: dict) -> dict:
    explain = verdict not in (REPRODUCED, TESTED) and claim.get("gap")
    return {"id": claim["id"], "source": claim["source"], "statement": claim["statement"],
            "paper": claim["paper"], "verdict": verdict, "measured": measured, "reason": reason,
            "gap": fill_gap(claim, measured, figures(claim, docs)) if explain else "",
            "points": ev.points, "repeats": len(ev.repeats), "spread": round(ev.spread, 4),
            "calibration": claim.get("calibration", False), "shares": claim.get("shares", []),
            "counted": not any(s < claim["id"] for s in claim.get("shares", [])),
            "experiments": claim["experiments"]}


TODAY = "none"          # view: today's hosts (hardware none; collisions as its profile says: on)
PAPER = "paper"         # view: the paper's hardware (a profile, collisions as the profile says)
CONTENDED = "paper+contention"   # view: a profile with the collision model switched by --contention
VIEWS = {TODAY: "today's hosts (--hardware none)", PAPER: "the paper's hardware (its profile)",
         CONTENDED: "the paper's hardware with the collision model switched (--contention on|off "
                    "against the profile's default)"}


def view(docs: dict[str, dict], which: str) -> dict[str, dict]:
    """The documents with only the points of one view (results v3 name every
    point's hardware; older documents read as none)."""
    def keep(p: dict) -> bool:
        hw, as_built = hardware_of(p), p["contention"] == p["contention_default"]
        if which == TODAY:
            # today's hosts as their profile says: collisions on (off in documents before the
            # medium's collisions were every profile's default; their points record that default)
            return hw == "none" and as_built
        # the paper's view: the collision model as the profile says (points record its default)
        return hw != "none" and as_built == (which == PAPER)
    return {name: {**doc, "points": [p for p in doc["points"] if keep(p)]} for name, doc in docs.items()}


def views_present(docs: dict[str, dict]) -> list[str]:
    """Which views have any point, today's first."""
    return [w for w in VIEWS if any(view(docs, w)[n]["points"] for n in docs)]


def calibrations(docs: dict[str, dict], cals: list[dict] | None = None) -> dict[str, list[dict]]:
    """Per experiment, every calibration its points rest on, judged from its own measurements
    (a calibration is checked where it is used: another experiment's good runs do not cover a
    miss in this one)."""
    cals = cal.load_calibrations() if cals is None else cals
    return {name: cal.verdicts(d["points"], cals) for name, d in docs.items()}


def bad_calibrations(docs: dict[str, dict], cals: list[dict]) -> dict[str, dict[str, dict]]:
    """experiment -> calibration id -> its verdict, for the calibrations not met there."""
    return {name: {v["id"]: v for v in vs if v["verdict"] != cal.MET}
            for name, vs in calibrations(docs, cals).items()}


def rests_on(claim: dict, docs: dict[str, dict], ids: list[str], cals: list[dict]) -> bool:
    """Do the points the claim reads rest on one of these calibrations (on this view)?"""
    first = claim["experiments"][0] if claim["experiments"] else ""
    named = [c for c in cals if c["id"] in ids]
    for sel in _selections(claim["check"]):
        doc = docs.get(sel.get("experiment", first)) or {"points": []}
        if any(cal.applies(c, p) for p in doc["points"] if _matches(p, sel["where"]) for c in named):
            return True
    return False


def can_fail(claim: dict, docs: dict[str, dict], cals: list[dict]) -> forcing.Forcing:
    """Could the claim's verdict on these documents (one view) have come out otherwise? The
    analysis of judge.forced, its candidate flips put to this module's own check."""
    def verdict_of(check: dict, flipped: dict, first: str, bias: dict | None) -> str:
        return _check(check, flipped, first, Evidence(), bias)[0]
    return forcing.forced(claim, docs, cals, verdict_of)


def judge_all(claims: list[dict], docs: dict[str, dict], which: str | None = None,
              cals: list[dict] | None = None, tests: dict[str, str] | None = None) -> list[dict]:
    """Every claim's verdict, on one view of the documents (None: all points)."""
    chosen = view(docs, which) if which else docs
    cals = cal.load_calibrations() if cals is None else cals
    bad = bad_calibrations(chosen, cals)
    out = [judge(c, chosen, bad, cals, tests, which) for c in claims]
    for claim, r in zip(claims, out):
        f = can_fail({**claim, "bias": bias_on(claim, which)}, chosen, cals)
        r["can_fail"] = {"analysed": f.can_fail is not None, "forced": f.forced, "kind": f.kind,
                         "why": f.why, "flip": f.flip_text, "flip_verdict": f.flip_verdict}
        if f.forced and r["verdict"] in PASSES:
            r["reason"] = f"it cannot fail here, forced by {f.kind}: {f.why}. It read: {r['reason']}"
            r["verdict"] = FORCED
        elif claim.get("consequence") and r["verdict"] in (*PASSES, NOT_REPRODUCED) \
                and rests_on(claim, chosen, claim["consequence"]["of"], cals):
            r["reason"] = (f"{r['verdict']} ({r['reason']}), but set by calibrations "
                           f"{', '.join(claim['consequence']['of'])}: {claim['consequence']['why']}")
            r["verdict"] = CONSEQUENCE
    if which:
        for r in out:
            r["hardware"] = which
    return out


def summary(results: list[dict]) -> dict[str, int]:
    """Verdict -> claims, each measurement counted once (see `shares`)."""
    counts: dict[str, int] = {}
    for r in results:
        if r["counted"]:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return counts


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    print(f"wrote {SCHEMA_FILE}")
