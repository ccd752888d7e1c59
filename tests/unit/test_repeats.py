"""Repeats decided per claim (judge.repeats): a third repeat only where two leave a verdict in
doubt, and the rule loses no verdict of a stored full run with three repeats everywhere
(tests/fixtures/repeats-run: the 9e952c7 run, the last with a fixed third repeat; it tests the
rule on real spreads, so it is kept whatever the model has become since; the judge's own fixture,
tests/fixtures/full-run, is the newest full run, whose third repeats the rule already chose)."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from beowulf_netlab.judge import claims as C
from beowulf_netlab.judge import repeats as R
from tests.unit.test_full_run import _read

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "repeats-run"


@functools.lru_cache(maxsize=1)
def _main() -> dict[str, dict]:
    return {d["name"]: d for d in map(_read, sorted((FIXTURE / "results").glob("*.json.gz")))}


def documents() -> tuple[dict[str, dict], dict]:
    import copy
    return copy.deepcopy(_main()), {}


def first_two(docs: dict[str, dict]) -> dict[str, dict]:
    return {n: {**d, "points": [p for p in d["points"] if p.get("calibration_of") or p.get("repeat", 0) < 2]}
            for n, d in docs.items()}


@pytest.mark.skipif(not (FIXTURE / "results").is_dir(), reason="no full-run fixture stored")
def test_on_the_full_run_every_claim_not_in_doubt_keeps_its_three_repeat_verdict():
    """Judged on its first two repeats, each claim the rule leaves alone reads what three gave;
    the rule asks for a third on far fewer points than a fixed third repeat measures."""
    main, _ = documents()
    claims, two = C.load_claims(), first_two(main)
    kept = 0
    for which in C.views_present(main):
        full = {r["id"]: r for r in C.judge_all(claims, main, which)}
        for claim, r in zip(claims, C.judge_all(claims, two, which)):
            if not R.in_doubt(claim, r):
                kept += 1
                assert r["verdict"] == full[claim["id"]]["verdict"], (which, claim["id"], r["reason"],
                                                                      full[claim["id"]]["reason"])
    assert kept >= 30
    fixed = wanted = 0
    for name, doc in main.items():
        want = R.wanted(claims, two, name)
        later = [p for p in doc["points"] if p.get("repeat", 0) >= 2 and not p.get("calibration_of")]
        fixed += len(later)
        wanted += sum(map(want, later))
    assert 0 < wanted < fixed / 2, (wanted, fixed)


def result(verdict, measured, spread, repeats=2):
    return {"verdict": verdict, "measured": measured, "spread": spread, "repeats": repeats}


def test_a_verdict_near_its_boundary_is_in_doubt_and_one_far_from_it_is_not():
    ratio = {"id": 1, "check": {"kind": "ratio", "target": 1.7, "tolerance": 0.05}}
    assert not R.in_doubt(ratio, result(C.NOT_REPRODUCED, 2.15, 0.01))      # far outside
    assert R.in_doubt(ratio, result(C.REPRODUCED, 1.78, 0.005))             # 0.8 % inside the edge
    assert R.in_doubt(ratio, result(C.NOT_REPRODUCED, 1.91, 0.02))          # 4.3 % out, spread 2 %
    assert R.in_doubt(ratio, result(C.REPRODUCED, 1.70, 0.002))             # a 5 % band: the floor's
    wide = {"id": 1, "check": {"kind": "ratio", "target": 1.7, "tolerance": 0.15}}
    assert not R.in_doubt(wide, result(C.REPRODUCED, 1.70, 0.002))          # at the target of a 15 % one
    order = {"id": 2, "check": {"kind": "order", "items": [{}, {}]}}
    assert not R.in_doubt(order, result(C.REPRODUCED, [9.0, 4.5], 0.01))
    assert R.in_doubt(order, result(C.REPRODUCED, [9.0, 8.4], 0.01))
    both = {"id": 3, "check": {"kind": "all", "checks": [wide["check"], order["check"]]}}
    assert R.in_doubt(both, result(C.REPRODUCED, [1.70, [9.0, 8.4]], 0.01))
    assert not R.in_doubt(both, result(C.REPRODUCED, [1.70, [9.0, 4.5]], 0.01))
    peak = {"id": 4, "check": {"kind": "peak", "over": "x", "at": 4}}
    assert R.in_doubt(peak, result(C.REPRODUCED, {"1": 1.0}, 0.01))          # no boundary known: measured


def test_what_a_repeat_cannot_change_is_never_in_doubt():
    ratio = {"id": 1, "check": {"kind": "ratio", "target": 1.7, "tolerance": 0.05}}
    for verdict in (C.FORCED, C.CONSEQUENCE, C.CALIBRATION, C.NOT_CHECKABLE):
        assert not R.in_doubt(ratio, result(verdict, 1.78, 0.005))
    assert not R.in_doubt({"id": 9, "check": {"kind": "tested"}}, result(C.TESTED, None, 0.0))


def test_a_claim_judges_the_repeats_all_its_points_have():
    """A point with a third repeat beside one without: the claim judges each of the two common
    repeats alone (not a third that would miss a point), the medians use every repeat."""
    def pt(topology, rep, value):
        return {"topology": topology, "repeat": rep, "throughput_mbyte_s": value, "point_index": rep,
                "gates": {"ok": True, "failed": []}}
    doc = {"points": [pt("a", 0, 2.0), pt("a", 1, 2.0), pt("a", 2, 2.3), pt("b", 0, 1.0), pt("b", 1, 1.0)]}
    claim = {"id": 99, "source": "x", "statement": "", "paper": "", "experiments": ["e"],
             "check": {"kind": "ratio", "a": {"where": {"topology": "a"}}, "b": {"where": {"topology": "b"}},
                       "target": 2.0, "tolerance": 0.05}}
    r = C.judge(claim, {"e": doc})
    assert r["verdict"] == C.REPRODUCED and r["repeats"] == 2, r
