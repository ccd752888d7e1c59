"""The papers' checkable claims, judged against measured results documents.

claims/claims.json holds one entry per claim (numbered as in docs/papers.md):
the statement, the paper's value and its status, the check, its tolerance and
why, the experiments whose points it reads, and whether it is a calibration
point (a value the emulation was set from: shown, never judged). Its schema is
claims/schema.json, generated from SCHEMA below.

A selection picks points of one experiment (`where`: key -> value or list);
each distinct point is the mean of its repeats; `reduce` (max | min | mean)
turns a selection into one number. Checks:
- value: reduce(select) against target;            - ratio: reduce(a) / reduce(b);
- drop: 1 - reduce(to) / reduce(from);             - order: reduce of each item, descending;
- peak: argmax of select over `over` is `at`, and it falls after;
- converge: a ahead of b before `from`, within `tolerance` from it on;
- sublinear: over `over`, grows but less than in proportion;
- wiring: a fact of a topology's wiring (direct and relayed peers);
- ratio_order: ratio first.a/first.b exceeds second.a/second.b;
- all: every sub-check holds;     - tested: checked by a test, not an experiment.
Numeric checks compare with `target` within a relative `tolerance`; when they
miss, a `shape` (a relation the number must satisfy) can still hold:
"reproduced in shape". A claim whose points failed a fidelity gate, or that
has no points, is "not checkable"; every gap carries its reason.
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from core.jsonfile import check_schema, write_schema
from pipeline.results import read_json, real_rate
from topologies.mesh import shares_wire
from topologies.presets import build_spec

ROOT = Path(__file__).resolve().parent.parent
CLAIMS_FILE = ROOT / "claims" / "claims.json"
SCHEMA_FILE = ROOT / "claims" / "schema.json"

REPRODUCED = "reproduced"
IN_SHAPE = "reproduced in shape"
NOT_REPRODUCED = "not reproduced"
NOT_CHECKABLE = "not checkable"
CALIBRATION = "calibration point"
SPREAD_LIMIT = 0.10      # coefficient of variation over repeats above which a point is not trusted

_SEL = {"type": "object", "additionalProperties": False, "required": ["where"],
        "description": "points of one experiment",
        "properties": {"experiment": {"type": "string", "description": "experiment name (default: the claim's first)"},
                       "where": {"type": "object", "description": "point key -> value or list of values"},
                       "reduce": {"enum": ["max", "min", "mean"], "description": "how the points become one number (default max)"},
                       "scale": {"type": "number", "description": "multiply the number by this (e.g. 1/line rate)"},
                       "metric": {"type": "string", "description": "the point's MB/s key to read (default "
                                  "throughput_mbyte_s); a time-scaled point gives it x D"}}}
SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Beowulf Netlab claims file",
    "description": "The papers' checkable claims, each with its check (see pipeline/claims.py).",
    "type": "object", "additionalProperties": False, "required": ["claims"],
    "properties": {"$schema": {"type": "string", "description": "path of this schema"},
                   "claims": {"type": "array", "description": "one entry per claim", "items": {
        "type": "object", "additionalProperties": False,
        "required": ["id", "source", "statement", "paper", "experiments", "check", "calibration"],
        "properties": {
            "id": {"type": "integer", "description": "the claim's number in docs/papers.md"},
            "source": {"type": "string", "description": "paper key and figure"},
            "statement": {"type": "string", "description": "the claim, in our words"},
            "paper": {"type": "object", "required": ["value", "status"], "additionalProperties": False,
                      "description": "the paper's value: a number, or text for a qualitative claim",
                      "properties": {"value": {"type": ["number", "string"]},
                                     "status": {"enum": ["verified", "seed", "derived"]},
                                     "unit": {"type": "string"}}},
            "experiments": {"type": "array", "items": {"type": "string"}, "description": "experiments it reads"},
            "check": {"type": "object", "required": ["kind"], "description": "how it is judged",
                      "properties": {"kind": {"enum": ["value", "ratio", "drop", "order", "peak", "converge",
                                                        "sublinear", "wiring", "all", "ratio_order", "tested"]},
                                     "checks": {"type": "array", "description": "kind all: every check must hold"},
                                     "first": {"type": "object", "description": "ratio_order: {a, b}, must exceed second"},
                                     "second": {"type": "object", "description": "ratio_order: {a, b}"},
                                     "topology": {"type": "string", "description": "kind wiring: the preset"},
                                     "note": {"type": "string", "description": "kind tested: where it is checked"},
                                     "select": _SEL, "a": _SEL, "b": _SEL, "items": {"type": "array", "items": _SEL},
                                     "target": {"type": "number"},
                                     "tolerance": {"type": "number", "minimum": 0},
                                     "shape": {"type": "object", "description": "relation that still holds "
                                               "in shape: {op: > | <, value}"},
                                     "over": {"type": "string"}, "at": {"type": "number"},
                                     "margin": {"type": "number", "minimum": 0,
                                                "description": "order, ratio_order: how much larger each must be"},
                                     "from": {"type": "number"}}},
            "why_tolerance": {"type": "string", "description": "why the tolerance is what it is"},
            "calibration": {"type": "boolean", "description": "a value the emulation was set from: never judged"},
            "gap": {"type": "string", "description": "what explains a difference from the paper, if any"},
        }}}},
}


def load_claims(path: Path = CLAIMS_FILE) -> list[dict]:
    data = read_json(path, "claims file")
    check_schema(data, SCHEMA, f"claims file {path}")
    return data["claims"]


def _matches(point: dict, where: dict) -> bool:
    for key, want in where.items():
        have = point.get(key)
        if isinstance(want, list) and have not in want or not isinstance(want, list) and have != want:
            return False
    return True


def _groups(points: list[dict]) -> dict[tuple, list[dict]]:
    """Points that differ only by repeat, grouped."""
    out: dict[tuple, list[dict]] = {}
    skip = {"repeat", "point_index", "throughput_mbyte_s", "fidelity", "gates", "flows", "per_pair",
            "per_copy", "host", "pairs_placed", "copies_placed", "wire_load", "elapsed_s", "payload_bytes",
            "round_trips", "rtt_ms_median", "goodput_mbit", "total_bytes", "disk", "verified", "scaled",
            "write_mbyte_s", "read_mbyte_s", "per_rank", "per_node_mbyte_s", "local_fraction_measured",
            "stripes_misplaced", "pfs", "cpu_busy", "mpi_attempts", "window_s"}
    for p in points:
        key = tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in p.items() if k not in skip))
        out.setdefault(key, []).append(p)
    return out


class Evidence:
    """What a claim read: the points, whether all passed their gates, and why not."""

    def __init__(self):
        self.problems: list[str] = []
        self.points = 0
        self.spread = 0.0

    def series(self, docs: dict[str, dict], sel: dict, default_exp: str) -> list[tuple[dict, float]]:
        name = sel.get("experiment", default_exp)
        doc = docs.get(name)
        if doc is None:
            exists = (ROOT / "experiments" / f"{name}.json").exists()
            self.problems.append(f"experiment {name} was not run" if exists else
                                 f"there is no experiment {name} yet (experiments/{name}.json)")
            return []
        if doc.get("complete") is False:
            self.problems.append(f"experiment {name} did not finish (interrupted, or one shard: "
                                 "merge the shards first)")
        chosen = [p for p in doc["points"] if _matches(p, sel["where"])]
        if not chosen:
            self.problems.append(f"no point of {name} matches {sel['where']}")
        out = []
        metric = sel.get("metric", "throughput_mbyte_s")
        for group in _groups(chosen).values():
            vals = [real_rate(p, metric) for p in group]
            for p in group:
                gates = p.get("gates")
                if gates is not None and not gates.get("ok", True):
                    why = (gates.get("failed") or ["(no reason recorded)"])[0]
                    self.problems.append(f"{name} point {p.get('point_index')} failed a fidelity gate: {why}")
                elif gates is None and p.get("fidelity", {}).get("suspect"):
                    self.problems.append(f"{name} point {p.get('point_index')}: {p['fidelity']['suspect']}")
            mean = statistics.fmean(vals)
            if len(vals) > 1 and mean > 0:
                cv = statistics.stdev(vals) / mean
                self.spread = max(self.spread, cv)
                if cv > SPREAD_LIMIT:
                    self.problems.append(f"{name}: repeats spread {cv:.0%} (> {SPREAD_LIMIT:.0%})")
            self.points += len(group)
            out.append((group[0], mean))
        return out

    def reduce(self, docs, sel, default_exp) -> float | None:
        values = [v for _, v in self.series(docs, sel, default_exp)]
        if not values:
            return None
        how = sel.get("reduce", "max")
        value = max(values) if how == "max" else min(values) if how == "min" else statistics.fmean(values)
        return value * sel.get("scale", 1.0)


def _numeric(check: dict, measured: float) -> tuple[str, str]:
    target, tol, shape = check.get("target"), check.get("tolerance", 0.1), check.get("shape")
    holds = bool(shape) and (measured > shape["value"] if shape["op"] == ">" else measured < shape["value"])
    if target is None:   # a qualitative claim: only the relation is judged
        if not shape:
            return NOT_CHECKABLE, "the check has neither a target nor a shape"
        return (REPRODUCED if holds else NOT_REPRODUCED), f"{measured:.3g} {'' if holds else 'not '}{shape['op']} {shape['value']:g}"
    if abs(measured - target) <= tol * abs(target):
        return REPRODUCED, f"within {tol:.0%} of {target:g}"
    if holds:
        return IN_SHAPE, (f"{measured:.3g} is outside {tol:.0%} of {target:g} but {shape['op']} "
                          f"{shape['value']:g} as the claim needs")
    return NOT_REPRODUCED, f"{measured:.3g} is outside {tol:.0%} of {target:g}"


def _wiring(check: dict) -> tuple[float, str]:
    spec = build_spec(check.get("topology", "routed-mesh"))
    k = spec.params["grid"]
    direct = sum(1 for j in range(len(spec.nodes)) if shares_wire(0, j, k))
    return float(direct), f"{direct} direct, {len(spec.nodes) - 1 - direct} through a relay"


def _check(check: dict, docs: dict, first: str, ev: "Evidence") -> tuple[str, Any, str]:
    """(verdict, measured, reason) of one check; problems with the points go to ev."""
    kind = check["kind"]
    if kind == "tested":
        return NOT_CHECKABLE, None, check.get("note", "checked by a test, not an experiment")
    if kind == "wiring":
        measured, reason = _wiring(check)
        return (REPRODUCED if measured == check.get("target") else NOT_REPRODUCED), measured, reason
    if kind == "all":
        parts = [_check(c, docs, first, ev) for c in check["checks"]]
        measured = [m for _, m, _ in parts]
        verdicts = [v for v, _, _ in parts]
        reason = "; ".join(r for _, _, r in parts)
        if NOT_CHECKABLE in verdicts:
            return NOT_CHECKABLE, measured, reason
        if all(v == REPRODUCED for v in verdicts):
            return REPRODUCED, measured, reason
        if all(v in (REPRODUCED, IN_SHAPE) for v in verdicts):
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
        ratios = []
        for part in (check["first"], check["second"]):
            a, b = ev.reduce(docs, part["a"], first), ev.reduce(docs, part["b"], first)
            ratios.append(None if a is None or b is None or b == 0 else a / b)
        if None in ratios:
            return NOT_CHECKABLE, None, "missing points"
        ok = ratios[0] > ratios[1] * (1 + check.get("margin", 0.0))
        return (REPRODUCED if ok else NOT_REPRODUCED), [round(r, 3) for r in ratios], \
            f"first ratio {ratios[0]:.3g} {'>' if ok else 'not >'} second {ratios[1]:.3g}" + \
            (f" by more than {check['margin']:.0%}" if check.get("margin") else "")
    elif kind == "order":
        values = [ev.reduce(docs, s, first) for s in check["items"]]
        if None in values:
            return NOT_CHECKABLE, None, "missing points"
        margin = check.get("margin", 0.0)
        ok = all(x > y * (1 + margin) for x, y in zip(values, values[1:]))
        return (REPRODUCED if ok else NOT_REPRODUCED), [round(v, 3) for v in values], \
            ("in the paper's order" if ok else "not in the paper's order") + \
            (f" (by more than {margin:.0%})" if margin else "")
    else:
        return _shape(check, ev, docs, first)
    if measured is None:
        return NOT_CHECKABLE, None, "missing points"
    verdict, reason = _numeric(check, measured)
    return verdict, measured, reason


def judge(claim: dict, docs: dict[str, dict]) -> dict:
    """The verdict on one claim from the documents (experiment name -> document)."""
    ev = Evidence()
    first = claim["experiments"][0] if claim["experiments"] else ""
    verdict, measured, reason = _check(claim["check"], docs, first, ev)
    if claim.get("calibration") and measured is not None and not ev.problems:
        return _result(claim, CALIBRATION, measured, "the emulation was set from this value: shown, "
                       "never judged", ev)
    if ev.problems:
        return _result(claim, NOT_CHECKABLE, measured, ev.problems[0], ev)
    return _result(claim, verdict, measured, reason, ev)


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


def _result(claim: dict, verdict: str, measured: Any, reason: str, ev: Evidence) -> dict:
    return {"id": claim["id"], "source": claim["source"], "statement": claim["statement"],
            "paper": claim["paper"], "verdict": verdict, "measured": measured, "reason": reason,
            "gap": claim.get("gap", "") if verdict in (NOT_REPRODUCED, IN_SHAPE) else "",
            "points": ev.points, "spread": round(ev.spread, 3), "calibration": claim.get("calibration", False),
            "experiments": claim["experiments"]}


TODAY = "none"          # view: today's hosts (hardware none, no contention model)
PAPER = "paper"         # view: the paper's hardware (a profile, no contention model)
CONTENDED = "paper+contention"   # view: a profile with the contention model
VIEWS = {TODAY: "today's hosts (--hardware none)", PAPER: "the paper's hardware (its profile)",
         CONTENDED: "the paper's hardware with CSMA/CD contention"}


def view(docs: dict[str, dict], which: str) -> dict[str, dict]:
    """The documents with only the points of one view (results v3 name every
    point's hardware; older documents read as none)."""
    def keep(p: dict) -> bool:
        hw, on = p.get("hardware", "none"), p.get("contention", "off") == "on"
        if which == TODAY:
            return hw == "none" and not on
        return hw != "none" and on == (which == CONTENDED)
    return {name: {**doc, "points": [p for p in doc["points"] if keep(p)]} for name, doc in docs.items()}


def views_present(docs: dict[str, dict]) -> list[str]:
    """Which views have any point, today's first."""
    return [w for w in VIEWS if any(view(docs, w)[n]["points"] for n in docs)]


def judge_all(claims: list[dict], docs: dict[str, dict], which: str | None = None) -> list[dict]:
    """Every claim's verdict, on one view of the documents (None: all points)."""
    chosen = view(docs, which) if which else docs
    out = [judge(c, chosen) for c in claims]
    if which:
        for r in out:
            r["hardware"] = which
    return out


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    print(f"wrote {SCHEMA_FILE}")
