"""Repeats decided per claim: a third repeat only where two leave the verdict in doubt.

A claim's verdict reads the median of each point's repeats and requires every repeat, judged
alone, to agree (judge.claims). A third repeat can only confirm a verdict or upset it: its own
reading may fall across the verdict's boundary (the repeats then disagree: not checkable), or
move a median across it. It is worth its time only where the boundary is near: within
DOUBT_SPREADS x the repeats' spread (half their range, relative) plus DOUBT_FLOOR of the
measured figure. Two readings' half range is about 0.56 sigma of their noise, so 4 spreads is
about 2.3 sigma: a third reading falls beyond that about once in a hundred; the floor covers
the drift two close readings do not show.

What is never in doubt: a verdict that cannot fail (forced), one the calibrations set
(consequence), a tested claim, and one that is not checkable for a reason a repeat cannot
change (a failed gate, a missed calibration). Repeats that already disagree stay noisy
whatever a third says (every repeat must agree), and a spread already wider than the tolerance
only widens: neither is in doubt. A check whose boundary this module cannot place is in doubt
(measured again: never a verdict lost to an unknown).

The rule is checked on the judge's fixture (a full run with three repeats): judged on its first
two repeats, every claim not in doubt has the verdict the three gave (tests/unit/test_repeats.py).
"""
from __future__ import annotations

from typing import Any

from beowulf_netlab.judge import claims as C

DOUBT_SPREADS = 4.0     # the boundary within this many spreads (half ranges) of the figure: in doubt
DOUBT_FLOOR = 0.05      # ... or within this share of it, however close the repeats were: the
                        # repeats run minutes apart on a host whose speed drifts, and two of them
                        # underrate it (the fixture's claim 4, paper view: two read 8.69 within
                        # 0.2 %, the third 2.2 % lower; the floor is over twice that)
SETTLED = (C.FORCED, C.CONSEQUENCE, C.TESTED, C.CALIBRATION)


def _rel(x: float, y: float) -> float:
    return abs(x - y) / abs(x) if x else float("inf")


def _margins(check: dict, measured: Any, spread: float) -> list[float] | None:
    """Each boundary's distance from the measured figure, relative; None where unknown."""
    kind = check["kind"]
    if kind == "all":
        if not isinstance(measured, list) or len(measured) != len(check["checks"]):
            return None
        out: list[float] = []
        for sub, m in zip(check["checks"], measured):
            part = _margins(sub, m, spread)
            if part is None:
                return None
            out += part
        return out
    if kind in ("value", "ratio", "drop"):
        if not isinstance(measured, (int, float)):
            return None
        target, tol, shape = check.get("target"), check.get("tolerance", 0.1), check.get("shape")
        out = []
        if target is not None:
            edge = abs(abs(measured - target) - tol * abs(target))
            out.append(edge / abs(measured) if measured else float("inf"))
        if shape:
            out.append(_rel(measured, shape["value"]))
        return out or None
    if kind in ("order", "ratio_order"):
        if not isinstance(measured, list) or len(measured) < 2 or not all(
                isinstance(v, (int, float)) for v in measured):
            return None
        margin = check.get("margin", 0.0)
        # the judge's edge: x over y by the two spreads and SYSTEMATIC (judge.claims._ordered)
        return [abs(x / (y * (1 + margin)) - 1 - (2 * spread + C.SYSTEMATIC)) if y else float("inf")
                for x, y in zip(measured, measured[1:])]
    if kind == "converge":
        if not isinstance(measured, dict):
            return None
        tol, start = check.get("tolerance", 0.1), check["from"]
        out = []
        for x, (a, b) in ((float(k), v) for k, v in measured.items()):
            if not (a and b):
                return None
            out.append(abs(a / b - 1 - tol) if 0 < x < start else abs(abs(a - b) / max(a, b) - tol))
        return out
    return None     # a shape (peak, grows): its boundary is a curve's; measured again


def in_doubt(claim: dict, result: dict) -> bool:
    """Would a third repeat be worth its time for this verdict (module doc)?"""
    verdict = result["verdict"]
    if verdict in SETTLED or claim["check"]["kind"] == "tested":
        return False
    if verdict == C.NOT_CHECKABLE:
        return False    # noisy stays noisy; a gate or a calibration is not a repeat's to mend
    if result.get("repeats", 0) < 2:
        return False    # a sweep without repeats: nothing to decide here
    margins = _margins(claim["check"], result.get("measured"), result.get("spread") or 0.0)
    if margins is None:
        return True
    room = DOUBT_SPREADS * (result.get("spread") or 0.0) + DOUBT_FLOOR
    return min(margins, default=0.0) < room


def doubtful(claims: list[dict], docs: dict[str, dict]) -> dict[str, list[dict]]:
    """View -> the claims whose verdict on it is in doubt after the repeats the documents hold."""
    out: dict[str, list[dict]] = {}
    for which in C.views_present(docs):
        results = C.judge_all(claims, docs, which)
        out[which] = [c for c, r in zip(claims, results) if in_doubt(c, r)]
    return out


def wanted(claims: list[dict], docs: dict[str, dict], experiment: str):
    """A predicate: does a claim in doubt on the point's view read this point of `experiment`?
    (reproduce measures its third repeat; the others keep two)."""
    per_view = doubtful(claims, docs)

    def pred(point: dict) -> bool:
        for which, chosen in per_view.items():
            if not C.view({"x": {"points": [point]}}, which)["x"]["points"]:
                continue
            if C.read_by_claims(chosen, experiment, checks_only=True)(point):
                return True
        return False
    return pred
