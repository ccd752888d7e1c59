"""A fitted view, judged out of sample: the card's ranged constants fitted on declared claims, the
rest of the claims judged with the fitted figures (issue 41, item 3). The era view stays the
headline; this one says what the sources' ranges could buy, and where a fit needs an end.

No new measurement: `reproduce` measures the points the claims' checks read at both ends of every
ranged constant (judge.sensitivity range_variants). Through a point's three measurements (low,
headline, high) its figure is a piecewise-linear function of each constant; several constants'
moves from the headline add (each end varied one constant: the additive assumption, declared in
beowulf_netlab/claims/fitting.json, schema SCHEMA written to beowulf_netlab/claims/fitting.schema.json). A fitted document is the
headline's, cut to the points measured at every end (those alone can move: the quick sweep's points
the checks read) and with every repeat's figure moved by the same amount, so the median moves as
the interpolation says and the repeats keep the headline's spread. The real judge (judge.claims
judge_all) judges those documents: same rules, tolerances, gates and "can it fail?".

The free constants are fitted on the declared training claims only (a grid, `grid`), minimising
the squared log ratios of measured to paper numbers, inside the interval their ends measured; a
fit at an end is a finding. The held-out claims are judged at the fit; a claim that reads a point
never measured at the ends of a constant of its profile (another experiment, another profile, or
no selection left after the cut) is NOT_PREDICTED, counted apart, never judged at the headline as
if fitted. The leave-one-figure-out table fits, for each figure the constants move, on every
other figure's eligible claims and judges that figure's claims.
"""
from __future__ import annotations

import itertools
import json
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.jsonfile import TEXT, check_schema, read_json, write_schema
from beowulf_netlab.judge import claims as C
from beowulf_netlab.judge.forced import groups, label, matches
from beowulf_netlab.judge.sensitivity import RANGE_AXES
from beowulf_netlab.run.calibration import load_calibrations, measures, resting_on
from beowulf_netlab.run.point import RESULT_KEYS
from beowulf_netlab.run.results import real_rate
from beowulf_netlab.topologies.hardware import hardware_of, load as load_profile, ranged_constants

PACKAGE = Path(__file__).resolve().parent.parent   # beowulf_netlab/, beside its data folders
FITTING_FILE = PACKAGE / "claims" / "fitting.json"
SCHEMA_FILE = PACKAGE / "claims" / "fitting.schema.json"

NOT_PREDICTED = "not predicted"
NOT_FITTED = "not fitted"
LOW, HEADLINE, HIGH = "low", "headline", "high"

_CLAIM_REASON = {"type": "object", "additionalProperties": False, "required": ["claim", "why"],
                 "properties": {"claim": {"type": "integer", "description": "its id in beowulf_netlab/claims/claims.json"},
                                "why": TEXT}}
SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Beowulf Netlab fitted view",
    "description": "Which constants are free, which claims train them and how (beowulf_netlab/judge/fitted.py): the fitted "
                   "view judges the other claims with the figures the fit gives.",
    "type": "object", "additionalProperties": False,
    "required": ["model", "objective", "grid", "free", "training", "eligible"],
    "properties": {
        "$schema": {"type": "string"},
        "model": {"type": "object", "additionalProperties": False,
                  "required": ["interpolation", "combination", "why"],
                  "description": "how a point's figure follows the free constants",
                  "properties": {"interpolation": {"enum": ["piecewise-linear"],
                                                   "description": "through the low, headline and high measurements"},
                                 "combination": {"enum": ["additive"],
                                                 "description": "several constants' moves from the headline add"},
                                 "why": TEXT}},
        "objective": {"type": "object", "additionalProperties": False, "required": ["kind", "why"],
                      "properties": {"kind": {"enum": ["squared-log-ratio"]}, "why": TEXT}},
        "grid": {"type": "object", "additionalProperties": False, "required": ["per_segment", "halvings", "why"],
                 "properties": {"per_segment": {"type": "integer", "minimum": 1, "maximum": 4,
                                                "description": "steps between an end and the headline"},
                                "halvings": {"type": "integer", "minimum": 0, "maximum": 8,
                                             "description": "refinements around the best, each at half the step"},
                                "why": TEXT}},
        "free": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False, "required": ["profile", "constants", "why"],
            "properties": {"profile": {"type": "string", "description": "beowulf_netlab/hardware/<profile>.json"},
                           "constants": {"type": "array", "minItems": 1, "uniqueItems": True,
                                         "items": {"type": "string"},
                                         "description": "ranged constants of the profile (section.key)"},
                           "why": TEXT}}},
        "training": {"type": "array", "minItems": 1, "items": _CLAIM_REASON,
                     "description": "the claims the fitted view is fitted on (each also eligible)"},
        "eligible": {"type": "array", "minItems": 1, "items": _CLAIM_REASON,
                     "description": "the claims the leave-one-figure-out table may train on"},
        "not_eligible": {"type": "array", "items": _CLAIM_REASON,
                         "description": "claims the constants move that never train, and why"},
    },
}


def _targets(check: dict) -> bool:
    """Does the check compare a number with a paper value (what the objective reads)?"""
    if check["kind"] == "all":
        return any(_targets(c) for c in check["checks"])
    return check["kind"] in ("value", "ratio", "drop") and check.get("target") is not None


def load_fitting(path: Path = FITTING_FILE, claims: list[dict] | None = None) -> dict:
    """The declaration, checked against its schema, the profiles and the claims file."""
    data = read_json(path, "fitting file")
    where = f"fitting file {path}"
    check_schema(data, SCHEMA, where)
    by_id = {c["id"]: c for c in (C.load_claims() if claims is None else claims)}
    for entry in data["free"]:
        try:
            ranged = ranged_constants(load_profile(entry["profile"]).data)
        except Exception as e:   # noqa: BLE001 - a missing or broken profile, named
            raise BadInput(f"{where}: profile {entry['profile']}: {e}")
        for constant in entry["constants"]:
            if constant not in ranged or constant not in RANGE_AXES:
                raise BadInput(f"{where}: {entry['profile']} {constant} is not a ranged constant whose ends "
                               "reproduce runs (beowulf_netlab/hardware/*.json, beowulf_netlab/judge/sensitivity.py RANGE_AXES)")
    lists = {k: [e["claim"] for e in data.get(k, [])] for k in ("training", "eligible", "not_eligible")}
    for key, ids in lists.items():
        if len(set(ids)) != len(ids):
            raise BadInput(f"{where}: {key} names a claim twice")
        for cid in ids:
            claim = by_id.get(cid)
            if claim is None:
                raise BadInput(f"{where}: {key}: there is no claim {cid}")
            if key != "not_eligible" and (claim.get("calibration") or claim.get("consequence")
                                          or claim["check"]["kind"] == "tested"
                                          or "model_equal" in claim["check"]
                                          or not _targets(claim["check"])):
                raise BadInput(f"{where}: {key}: claim {cid} cannot train (a calibration point, a consequence, "
                               "a tested fact, two readings the model makes equal, or no paper number)")
    if set(lists["training"]) - set(lists["eligible"]):
        raise BadInput(f"{where}: every training claim must be eligible too")
    if set(lists["eligible"]) & set(lists["not_eligible"]):
        raise BadInput(f"{where}: a claim is both eligible and not")
    return data


@dataclass(frozen=True)
class Param:
    """One free constant of one profile, with the interval its ends measured."""
    profile: str
    constant: str
    low: float
    headline: float
    high: float
    unit: str = "us"

    @property
    def name(self) -> str:
        return f"{self.profile} {self.constant}"

    def at_end(self, value: float) -> str | None:
        """Which end of its measured interval the value sits at (a finding), None inside."""
        span = (self.high - self.low) or 1.0
        return LOW if value - self.low <= 1e-9 * span else HIGH if self.high - value <= 1e-9 * span else None

    def grid(self, per_segment: int) -> list[float]:
        """The ends, the headline and per_segment - 1 values between each end and it."""
        out = [self.low + (self.headline - self.low) * i / per_segment for i in range(per_segment)]
        out += [self.headline + (self.high - self.headline) * i / per_segment for i in range(per_segment + 1)]
        return sorted(set(out))


def _identity(p: dict) -> tuple:
    """A point's identity without its results and the ranged settings: the same point at another
    end of a range (judge.forced groups repeats the same way)."""
    skip = RESULT_KEYS | set(RANGE_AXES.values())
    return tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in p.items() if k not in skip))


def _untrusted(p: dict, bad: dict[str, dict], cals: list[dict]) -> str | None:
    """Why a measurement is not to be trusted (a failed gate, a calibration its document missed)."""
    gates = p.get("gates")
    if gates is not None and not gates.get("ok", True):
        return f"failed a fidelity gate: {(gates.get('failed') or ['(no reason recorded)'])[0]}"
    if gates is None and (p.get("fidelity") or {}).get("suspect"):
        return str(p["fidelity"]["suspect"])
    missed = resting_on(p, bad, cals)
    return f"calibration {missed[0]['id']} {missed[0]['verdict']}" if missed else None


@dataclass
class _Group:
    """One measured point of the paper view: its headline repeats, and per free constant its
    figures' medians at the ends (and what made an end untrustworthy)."""
    experiment: str
    profile: str
    head: dict[str, float | None] = field(default_factory=dict)                   # metric -> median
    knots: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)  # param -> metric -> (low, high)
    trouble: dict[tuple[str, str], str] = field(default_factory=dict)             # (param, end) -> why
    rep: dict = field(default_factory=dict)                                         # its first repeat


class Figures:
    """The measured figures of the points the claims read, as functions of the free constants."""

    def __init__(self, docs: dict[str, dict], variant_docs: dict[str, dict], variants: list[dict],
                 free: list[dict], claims: list[dict], cals: list[dict] | None = None):
        self.cals = load_calibrations() if cals is None else cals
        self.paper = C.view(docs, C.PAPER)
        self.metrics = self._metrics(claims)
        wanted = {(e["profile"], c) for e in free for c in e["constants"]}
        ends: dict[tuple[str, str, str], dict] = {}    # (experiment, param, end) -> its document
        for v in variants:
            r = v.get("range")
            # an end that measured nothing (an interrupted run) did not run
            if r and (r["profile"], r["constant"]) in wanted and (variant_docs.get(v["id"]) or {}).get("points"):
                ends[(v["experiment"], f"{r['profile']} {r['constant']}", r["end"])] = variant_docs[v["id"]]
        self.params: dict[str, Param] = {}
        self.groups: dict[str, dict[tuple, _Group]] = {}
        self.moving: dict[str, list[str]] = {}          # experiment -> the params measured at both its ends
        self.layout: dict[str, list[tuple[dict, _Group | None]]] = {}
        for exp, doc in self.paper.items():
            profiles = {hardware_of(p) for p in doc["points"] if not p.get("calibration_of")}
            params = sorted(f"{pr} {c}" for pr, c in wanted if pr in profiles
                            and (exp, f"{pr} {c}", LOW) in ends and (exp, f"{pr} {c}", HIGH) in ends)
            if len(profiles) != 1 or not params:
                continue        # nothing moves it (no end ran, or one setting cannot move two profiles)
            self.moving[exp] = params
            self._measure(exp, doc, params, {k: ends[(exp, *k)] for k in itertools.product(params, (LOW, HIGH))})

    def _metrics(self, claims: list[dict]) -> dict[str, set[str]]:
        """experiment -> the metrics the claims read there (checks and gap figures)."""
        out: dict[str, set[str]] = {}
        for c in claims:
            first = (c["experiments"] or [""])[0]
            for sel in (*C._selections(c["check"]), *c.get("figures", {}).values()):
                out.setdefault(sel.get("experiment", first), set()).add(sel.get("metric", "throughput_mbyte_s"))
        return out

    def _measure(self, exp: str, doc: dict, params: list[str], ends: dict[tuple[str, str], dict]) -> None:
        """The experiment's points measured at every end of its constants, as groups; and what its
        fitted documents hold (self.layout)."""
        metrics = sorted(self.metrics.get(exp, {"throughput_mbyte_s"}))
        bad = {k: C.bad_calibrations({exp: e}, self.cals)[exp] for k, e in ends.items()}
        for param in params:
            pr, constant = param.split(" ", 1)
            axis = RANGE_AXES[constant]
            xs = {e: {float(p.get(axis) or 0.0) for p in ends[(param, e)]["points"]} for e in (LOW, HIGH)}
            xs[HEADLINE] = {float(p.get(axis) or 0.0) for p in doc["points"]}
            if any(len(v) != 1 for v in xs.values()):
                raise BadInput(f"{exp}: the {param} points ran at several values ({xs}): one headline and "
                               "one value per end expected")
            p = Param(pr, constant, xs[LOW].pop(), xs[HEADLINE].pop(), xs[HIGH].pop())
            old = self.params.setdefault(param, p)
            if (old.low, old.headline, old.high) != (p.low, p.headline, p.high):
                raise BadInput(f"{exp}: {param} ran at {p.low:g}/{p.headline:g}/{p.high:g}, another "
                               f"experiment at {old.low:g}/{old.headline:g}/{old.high:g}")

        def regular(p: dict) -> bool:
            return not p.get("calibration_of")

        def grouped(head: dict[tuple, list[dict]], at: dict[tuple[str, str], dict[tuple, list[dict]]]) \
                -> dict[tuple, _Group]:
            out = {}
            for ident, pts in head.items():
                if not all(ident in at[k] for k in at):
                    continue        # not measured at every end: it cannot move
                g = _Group(exp, hardware_of(pts[0]), {m: _median(pts, m) for m in metrics}, rep=pts[0])
                for param in params:
                    g.knots[param] = {m: (_median(at[(param, LOW)][ident], m), _median(at[(param, HIGH)][ident], m))
                                      for m in metrics}
                for k, e in at.items():
                    why = next((w for w in (_untrusted(p, bad[k], self.cals) for p in e[ident]) if w), None)
                    if why:
                        g.trouble[k] = why
                out[ident] = g
            return out

        # the points claims read: measured points at the headline and at the ends (the judge's)
        claimed = grouped(_by_identity(p for p in doc["points"] if regular(p)),
                          {k: _by_identity(p for p in e["points"] if regular(p)) for k, e in ends.items()})
        # a calibration's measurements, wherever the run took them (a point or a calibration_of one)
        measuring = [p for p in doc["points"] if not regular(p) or any(measures(c, p) for c in self.cals)]
        kept = {id(p) for p in measuring}
        calibrating = grouped(_by_identity(measuring), {k: _by_identity(e["points"]) for k, e in ends.items()})
        self.groups[exp] = claimed
        # the fitted document: the claimed points measured at every end, moved; every calibration
        # measurement, moved where the ends measured it too, else as it ran; nothing else (cut)
        layout: list[tuple[dict, _Group | None]] = []
        for p in doc["points"]:
            ident = _identity(p)
            if regular(p) and ident in claimed:
                layout.append((p, claimed[ident]))
            elif id(p) in kept:
                layout.append((p, calibrating.get(ident)))
        self.layout[exp] = layout

    def delta(self, g: _Group, metric: str, theta: dict[str, float]) -> float:
        """How far the point's median moves from the headline at theta: the sum over its
        constants of the piecewise-linear move through (low, headline, high)."""
        out = 0.0
        for param in self.moving[g.experiment]:
            p = self.params[param]
            x = theta.get(param, p.headline)
            if not p.low <= x <= p.high:
                raise BadInput(f"{param} = {x:g} is outside the interval its ends measured "
                               f"({p.low:g}..{p.high:g}): the fitted view does not extrapolate")
            h, (lo, hi) = g.head[metric], g.knots[param][metric]
            if h is None or lo is None or hi is None:
                continue
            if x < p.headline:
                out += (lo - h) * (p.headline - x) / (p.headline - p.low)
            elif x > p.headline:
                out += (hi - h) * (x - p.headline) / (p.high - p.headline)
        return out

    def value(self, exp: str, ident: tuple, metric: str, theta: dict[str, float]) -> float:
        """The point's figure (the median of its repeats) at theta."""
        g = self.groups[exp][ident]
        return g.head[metric] + self.delta(g, metric, theta)

    def documents(self, theta: dict[str, float], only: set[str] | None = None) -> dict[str, dict]:
        """The paper view's documents at theta: each experiment the constants move cut to its points
        measured at every end, every repeat's figures moved alike, and its calibration measurements
        (moved where the ends measured them too, else as they ran); a point read through an untrusted
        end carries that end's reason as a failed gate. Experiments nothing moves are left out (a
        claim reading one is not predicted)."""
        out = {}
        for exp, layout in self.layout.items():
            if only is not None and exp not in only:
                continue
            pts = [p if g is None else self._moved(p, g, theta) for p, g in layout]
            out[exp] = {**self.paper[exp], "points": pts,
                        "fitted": {k: theta.get(k, self.params[k].headline) for k in self.moving[exp]}}
        return out

    def medians(self, theta: dict[str, float], only: set[str]) -> dict[str, dict]:
        """Documents of one point per measured point the claims read, its figures the medians at
        theta: what the objective reads (the judge's check on medians, without the repeats)."""
        out = {}
        for exp in only & set(self.groups):
            pts = []
            for i, g in enumerate(self.groups[exp].values()):
                # what a check reads of a point (its settings, its figures), no record of how it
                # ran: the judge groups points by every other key, and this keeps that quick
                q = {k: v for k, v in g.rep.items() if not isinstance(v, (dict, list))}
                q.update(repeat=0, fit_point=i)
                for metric, h in g.head.items():
                    if h is not None:
                        q[metric] = h + self.delta(g, metric, theta)
                pts.append(q)
            out[exp] = {**self.paper[exp], "points": pts}
        return out

    def _moved(self, p: dict, g: _Group, theta: dict[str, float]) -> dict:
        q = dict(p)
        for metric in g.head:
            d = self.delta(g, metric, theta)
            if not d:
                continue
            if isinstance(p.get(metric), (int, float)):
                q[metric] = p[metric] + d
        used = [(param, LOW if theta.get(param, self.params[param].headline) < self.params[param].headline
                 else HIGH) for param in self.moving[g.experiment]
                if theta.get(param, self.params[param].headline) != self.params[param].headline]
        why = [f"read through {param} {end} ({getattr(self.params[param], end):g}): {g.trouble[(param, end)]}"
               for param, end in used if (param, end) in g.trouble]
        if why:
            gates = p.get("gates") or {}
            q["gates"] = {**gates, "ok": False, "failed": why + list(gates.get("failed") or [])}
        return q

    def coverage(self, claim: dict) -> tuple[int, int, str]:
        """(points of the claim's check measured at every end, points it reads on the era view,
        why it cannot be predicted: '' when it can)."""
        first = (claim["experiments"] or [""])[0]
        read = moved = 0
        why = ""
        for sel in C._selections(claim["check"]):
            exp = sel.get("experiment", first)
            doc = self.paper.get(exp) or {"points": []}
            pts = groups([p for p in doc["points"] if matches(p, sel["where"]) and not p.get("calibration_of")])
            got = sum(1 for pts_ in pts.values() if _identity(pts_[0]) in self.groups.get(exp, {}))
            read += len(pts)
            moved += got
            if exp not in self.moving:
                why = why or f"{exp}: no end of a free constant ran for it"
            elif pts and not got:
                why = why or f"none of the points {label(sel)} of {exp} ran at the ends"
        if claim["check"]["kind"] == "tested" or not claim["experiments"]:
            why = "a tested fact, no measurement"
        return moved, read, why

    def touches(self, claim: dict) -> list[str]:
        """The free constants that move the claim's points."""
        first = (claim["experiments"] or [""])[0]
        exps = {sel.get("experiment", first) for sel in C._selections(claim["check"])}
        return sorted({p for e in exps for p in self.moving.get(e, [])})


def _by_identity(points) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for p in points:
        out.setdefault(_identity(p), []).append(p)
    return out


def _median(pts: list[dict], metric: str) -> float | None:
    vals = [real_rate(p, metric) for p in pts if isinstance(p.get(metric), (int, float))]
    return statistics.median(vals) if vals else None


# -- the fit ---------------------------------------------------------------------------------------

def _pairs(check: dict, measured: Any) -> list[tuple[float, float]] | None:
    """(measured, paper) of every number the check compares with a paper value; None when one
    is missing (the claim read nothing)."""
    kind = check["kind"]
    if kind == "all":
        if not isinstance(measured, list) or len(measured) != len(check["checks"]):
            return None
        out = []
        for sub, m in zip(check["checks"], measured):
            got = _pairs(sub, m)
            if got is None:
                return None
            out += got
        return out
    if kind not in ("value", "ratio", "drop") or check.get("target") is None:
        return []
    if not isinstance(measured, (int, float)):
        return None
    if kind == "drop":
        return [(1 - measured, 1 - check["target"])]
    return [(measured, check["target"])]


def _cost(pairs: list[tuple[float, float]] | None) -> float:
    if pairs is None:
        return math.inf
    return sum(math.log(m / t) ** 2 if m > 0 and t > 0 else math.inf for m, t in pairs)


def measured(figures: Figures, claim: dict, theta: dict[str, float]) -> Any:
    """The claim's measured number(s) at theta, read by the judge's own check (judge.claims)."""
    first = (claim["experiments"] or [""])[0]
    docs = figures.medians(theta, {sel.get("experiment", first) for sel in C._selections(claim["check"])})
    # the judge's reading of the check, without its repeats and trust (the objective reads medians)
    return C._check(claim["check"], docs, first, C.Evidence(), None)[1]


@dataclass
class Fit:
    """The constants fitted on some claims: values, which claims trained which constant."""
    theta: dict[str, float]
    training: list[int]
    trained_by: dict[str, list[int]]
    cost: float
    cost_headline: float
    unused: dict[int, str]                # a declared training claim that could not train, and why
    flat: dict[str, tuple[float, float]]  # param -> the values whose best cost is the minimum's


def fit(figures: Figures, claims: list[dict], training: list[int], grid: dict) -> Fit:
    """The free constants that minimise the objective over the training claims (a grid: every
    combination of the ends, headline and midpoints, then `halvings` refinements of a half-step
    around the best; ties to the point nearest the headline). Constants no training claim reads
    stay at their headline, NOT_FITTED."""
    by_id = {c["id"]: c for c in claims}
    head = {k: p.headline for k, p in figures.params.items()}
    used, unused = [], {}
    for cid in training:
        c = by_id[cid]
        moved, read, why = figures.coverage(c)
        if why or not moved:
            unused[cid] = f"{NOT_PREDICTED}: {why or 'no point measured at the ends'}"
        elif _pairs(c["check"], measured(figures, c, head)) is None:
            unused[cid] = "it reads nothing at the headline"
        else:
            used.append(c)
    trained_by: dict[str, list[int]] = {}
    for c in used:
        for k in figures.touches(c):
            trained_by.setdefault(k, []).append(c["id"])
    # constants that share a training claim are fitted together; the others apart (the sum splits)
    comps: list[tuple[list[str], list[dict]]] = []
    for c in used:
        ks = set(figures.touches(c))
        joined = [i for i, (kk, _) in enumerate(comps) if ks & set(kk)]
        merged_k, merged_c = sorted(ks), [c]
        for i in reversed(joined):
            merged_k = sorted(set(merged_k) | set(comps[i][0]))
            merged_c = comps[i][1] + merged_c
            del comps[i]
        comps.append((merged_k, merged_c))
    theta = dict(head)
    flat: dict[str, tuple[float, float]] = {}
    total = total_head = 0.0
    for keys, cs in comps:
        best, tried = _search(figures, cs, keys, grid)
        theta.update(zip(keys, best))
        total += tried[best]
        total_head += tried[tuple(head[k] for k in keys)]
        low = min(tried.values())
        for i, k in enumerate(keys):
            near = [t[i] for t, v in tried.items() if v <= low * (1 + 1e-9) + 1e-15]
            flat[k] = (min(near), max(near))
    return Fit(theta, [c["id"] for c in used], trained_by, total, total_head, unused, flat)


def _search(figures: Figures, cs: list[dict], keys: list[str], grid: dict) -> tuple[tuple, dict]:
    params = [figures.params[k] for k in keys]
    tried: dict[tuple, float] = {}
    reads = {c["id"]: figures.touches(c) for c in cs}
    terms: dict[tuple, float] = {}      # (claim, the values of the constants it reads) -> its cost

    def term(c: dict, theta: dict[str, float]) -> float:
        key = (c["id"], *(theta[k] for k in reads[c["id"]]))
        if key not in terms:
            terms[key] = _cost(_pairs(c["check"], measured(figures, c, theta)))
        return terms[key]

    def cost(t: tuple) -> float:
        if t not in tried:
            theta = dict(zip(keys, t))
            tried[t] = sum(term(c, theta) for c in cs)
        return tried[t]

    def rank(t: tuple) -> tuple:
        far = sum(abs(x - p.headline) / ((p.high - p.low) or 1.0) for x, p in zip(t, params))
        return (round(cost(t), 12), round(far, 12), t)

    axes = [p.grid(grid["per_segment"]) for p in params]
    best = min(itertools.product(*axes), key=rank)
    steps = [((p.high - p.headline) or (p.headline - p.low)) / grid["per_segment"] for p in params]
    for _ in range(grid["halvings"]):
        steps = [s / 2 for s in steps]
        around = [sorted({min(max(b + d * s, p.low), p.high) for d in (-1, 0, 1)})
                  for b, s, p in zip(best, steps, params)]
        best = min(itertools.product(*around), key=rank)
    return best, tried


# -- judging at a fit ------------------------------------------------------------------------------

def evidence(claims: list[dict]) -> list[dict]:
    """The claims a view counts: no calibration point, no tested fact."""
    return [c for c in claims if not c.get("calibration") and c["check"]["kind"] != "tested"]


def judged(figures: Figures, claims: list[dict], theta: dict[str, float], cals: list[dict]) -> dict[int, dict]:
    """Each claim's verdict at theta by the real judge (judge_all on the fitted documents), or
    NOT_PREDICTED with why; `points` says how many of its era points it was judged on."""
    out = {}
    can = []
    for c in claims:
        moved, read, why = figures.coverage(c)
        if why:
            out[c["id"]] = {"id": c["id"], "verdict": NOT_PREDICTED, "reason": why, "points": f"0 of {read}",
                            "measured": None, "counted": True}
        else:
            can.append((c, f"{moved} of {read}"))
    if can:
        docs = figures.documents(theta)
        for (c, pts), r in zip(can, C.judge_all([c for c, _ in can], docs, C.PAPER, cals)):
            out[c["id"]] = {**r, "points": pts}
    for c in claims:      # claims that read one measurement count once, as in the era view
        out[c["id"]]["counted"] = not any(s < c["id"] and s in out for s in c.get("shares", []))
    return out


def _param_rows(figures: Figures, f: Fit) -> list[dict]:
    """Each free constant: its measured interval, the fit (or NOT_FITTED), which end it sits at."""
    rows = []
    for k, p in sorted(figures.params.items()):
        v, on = f.theta[k], k in f.trained_by
        end = p.at_end(v) if on else None
        lo, hi = f.flat.get(k, (v, v))
        value = f"{v:.3g} {p.unit}" if on else NOT_FITTED
        rows.append({"name": k, "profile": p.profile, "constant": p.constant, "low": p.low, "headline": p.headline,
                     "high": p.high, "fitted": v if on else None, "at_end": end,
                     "trained_by": f.trained_by.get(k, []), "identified": on and lo == hi, "flat": [lo, hi],
                     "value": value + (f" (at the {end} end)" if end else ""),
                     "text": value + (" (no training claim reads it)" if not on else "")
                             + (f" (at the {end} end: a finding)" if end else "")
                             + (f" (as good from {lo:.3g} to {hi:.3g})" if on and lo != hi else ""),
                     "range": f"{p.low:g}-{p.high:g} {p.unit}, headline {p.headline:g}"})
    return rows


def summary(rows: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        if r["counted"]:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return counts


def fitted_view(claims: list[dict], docs: dict[str, dict], variant_docs: dict[str, dict], variants: list[dict],
                fitting: dict | None = None, era: list[dict] | None = None,
                cals: list[dict] | None = None) -> dict:
    """The fitted view of a run with its range ends: the fit on the declared training claims, the
    held-out claims judged at it (beside their era verdict and the era's on the same points, the
    fitted documents at the headline), and the leave-one-figure-out table."""
    fitting = load_fitting(claims=claims) if fitting is None else fitting
    cals = load_calibrations() if cals is None else cals
    figures = Figures(docs, variant_docs, variants, fitting["free"], claims, cals)
    era_by = {r["id"]: r for r in (C.judge_all(claims, docs, C.PAPER, cals) if era is None else era)}
    head = {k: p.headline for k, p in figures.params.items()}
    training = [e["claim"] for e in fitting["training"]]
    main = fit(figures, claims, training, fitting["grid"])
    held = [c for c in evidence(claims) if c["id"] not in main.training]
    at_fit = judged(figures, held, main.theta, cals)
    at_head = judged(figures, held, head, cals)
    train_rows = []
    by_id = {c["id"]: c for c in claims}
    for cid in training:
        c = by_id[cid]
        got = {"id": cid, "used": cid in main.training, "why": main.unused.get(cid, ""),
               "points": "{} of {}".format(*figures.coverage(c)[:2]),
               "paper": [t for _, t in _pairs(c["check"], measured(figures, c, head)) or []]}
        if cid in main.training:
            got["headline"] = [m for m, _ in _pairs(c["check"], measured(figures, c, head)) or []]
            got["fitted"] = [m for m, _ in _pairs(c["check"], measured(figures, c, main.theta)) or []]
        train_rows.append(got)
    held_rows = []
    for c in held:
        r, h, e = at_fit[c["id"]], at_head[c["id"]], era_by.get(c["id"], {})
        held_rows.append({"id": c["id"], "source": c["source"], "era": e.get("verdict", "-"),
                          "era_here": h["verdict"], "verdict": r["verdict"], "reason": r.get("reason", ""),
                          "measured": r.get("measured"), "points": r["points"], "counted": r["counted"],
                          "moved": r["verdict"] != h["verdict"]})
    return {"params": _param_rows(figures, main), "training": train_rows,
            "cost": main.cost, "cost_headline": main.cost_headline,
            "held_out": held_rows, "counts": summary(held_rows),
            "lofo": leave_one_figure_out(figures, claims, fitting, era_by, cals),
            "model": fitting["model"], "objective": fitting["objective"]}


def leave_one_figure_out(figures: Figures, claims: list[dict], fitting: dict, era_by: dict[int, dict],
                         cals: list[dict]) -> list[dict]:
    """Per figure (experiment) the free constants move that some counted claim reads: the fit on
    every other figure's eligible claims, and that figure's claims judged at it."""
    eligible = [e["claim"] for e in fitting["eligible"]]
    by_id = {c["id"]: c for c in claims}
    rows = []
    for exp in sorted(figures.moving):
        reading = [c for c in evidence(claims) if exp in c["experiments"]]
        if not reading:
            continue
        train = [cid for cid in eligible if exp not in by_id[cid]["experiments"]]
        f = fit(figures, claims, train, fitting["grid"])
        got = judged(figures, reading, f.theta, cals)
        rows.append({"figure": exp, "training": f.training, "unused": f.unused,
                     "params": [r for r in _param_rows(figures, f) if r["name"] in figures.moving[exp]],
                     "claims": [{"id": c["id"], "era": era_by.get(c["id"], {}).get("verdict", "-"),
                                 "verdict": got[c["id"]]["verdict"], "points": got[c["id"]]["points"],
                                 "measured": got[c["id"]].get("measured"),
                                 "reason": got[c["id"]].get("reason", "")} for c in reading]})
    return rows


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    print(f"wrote {SCHEMA_FILE}")
