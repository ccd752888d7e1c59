"""The fitted view (judge.fitted) on the judge's fixture: a real full run with its 28 range ends.

The interpolation is each point's measurement at low, headline and high; the fit is
deterministic and reads only its training claims; a claim no end measured is 'not predicted';
the leave-one-figure-out table has a row per figure the constants move; the report shows it
after the era view, a fit at an end marked, and says what a run without range ends lacks.
"""
from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path

import pytest

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.judge import claims as C
from beowulf_netlab.judge import fitted as F
from beowulf_netlab.judge import report as R
from beowulf_netlab.judge import sensitivity as S
from beowulf_netlab.run.calibration import load_calibrations
from beowulf_netlab.run.results import load
from tests.unit.test_full_run import FIXTURE, documents

pytestmark = pytest.mark.skipif(not (FIXTURE / "results").is_dir(), reason="no full-run fixture stored")
QUICK = sorted((Path(__file__).resolve().parent.parent / "fixtures" / "reproduction").glob("*.json"))


@pytest.fixture(scope="module")
def run():
    main, ends = documents()
    claims = C.load_claims()
    variants = [v for v in S.range_variants_of(list(main)) if v["id"] in ends]
    return {"docs": main, "ends": ends, "variants": variants, "claims": claims,
            "fitting": F.load_fitting(claims=claims), "cals": load_calibrations()}


def figures_of(run, docs=None, ends=None) -> F.Figures:
    return F.Figures(docs or run["docs"], ends or run["ends"], run["variants"], run["fitting"]["free"],
                     run["claims"], run["cals"])


@pytest.fixture(scope="module")
def figures(run):
    return figures_of(run)


@pytest.fixture(scope="module")
def view(run):
    return F.fitted_view(run["claims"], run["docs"], run["ends"], run["variants"], run["fitting"],
                         cals=run["cals"])


def training(run) -> list[int]:
    return [e["claim"] for e in run["fitting"]["training"]]


def test_schema_file_is_the_schema_in_code():
    assert json.loads(F.SCHEMA_FILE.read_text()) == F.SCHEMA, \
        "beowulf_netlab/claims/fitting.schema.json is stale: run python3 -m beowulf_netlab.judge.fitted"


@pytest.mark.parametrize("edit, says", [
    (lambda d: d["training"].append({"claim": 9, "why": "x"}), "cannot train"),
    (lambda d: d["eligible"].append({"claim": 7, "why": "a calibration"}), "cannot train"),
    (lambda d: d["training"].append({"claim": 8, "why": "x"}), "must be eligible"),
    (lambda d: d["free"][0]["constants"].append("host_cost.per_packet_us"), "not a ranged constant"),
    (lambda d: d["eligible"].append({"claim": 99, "why": "x"}), "no claim 99"),
])
def test_the_declaration_is_refused_where_it_cannot_be_what_it_says(run, tmp_path, edit, says):
    data = json.loads(F.FITTING_FILE.read_text())
    edit(data)
    path = tmp_path / "fitting.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BadInput, match=says):
        F.load_fitting(path, run["claims"])


def test_every_claim_the_constants_move_is_declared_eligible_or_not(run, figures):
    declared = {e["claim"] for k in ("eligible", "not_eligible") for e in run["fitting"].get(k, [])}
    moved = {c["id"] for c in F.evidence(run["claims"]) if figures.coverage(c)[0]}
    assert moved and moved <= declared, sorted(moved - declared)


def _end_medians(run, exp: str, param: str) -> dict[str, dict[tuple, float]]:
    """Each end's (and the headline's) median throughput per point, straight from the documents."""
    profile, constant = param.split(" ", 1)
    out = {F.HEADLINE: {}}
    for v in run["variants"]:
        r = v["range"]
        if v["experiment"] == exp and r["profile"] == profile and r["constant"] == constant:
            pts: dict[tuple, list[float]] = {}
            for p in run["ends"][v["id"]]["points"]:
                if not p.get("calibration_of"):
                    pts.setdefault(F._identity(p), []).append(p["throughput_mbyte_s"])
            out[r["end"]] = {k: statistics.median(vs) for k, vs in pts.items()}
    pts = {}
    for p in C.view(run["docs"], C.PAPER)[exp]["points"]:
        if not p.get("calibration_of"):
            pts.setdefault(F._identity(p), []).append(p["throughput_mbyte_s"])
    out[F.HEADLINE] = {k: statistics.median(vs) for k, vs in pts.items()}
    return out


def test_the_interpolation_is_the_measurement_at_low_headline_and_high(run, figures):
    checked = 0
    for exp, params in figures.moving.items():
        for param in params:
            p = figures.params[param]
            measured = _end_medians(run, exp, param)
            for end, x in ((F.LOW, p.low), (F.HEADLINE, p.headline), (F.HIGH, p.high)):
                docs = figures.documents({param: x}, {exp})
                fitted: dict[tuple, list[float]] = {}
                for q in docs[exp]["points"]:
                    if not q.get("calibration_of"):
                        fitted.setdefault(F._identity(q), []).append(q["throughput_mbyte_s"])
                for ident in figures.groups[exp]:
                    want = measured[end][ident]
                    assert figures.value(exp, ident, "throughput_mbyte_s", {param: x}) == pytest.approx(want, rel=1e-12)
                    # the documents the judge reads: the median of the moved repeats
                    assert statistics.median(fitted[ident]) == pytest.approx(want, rel=1e-12)
                    checked += 1
    assert checked > 100


def test_between_the_knots_the_figure_is_on_the_lines_and_the_constants_add(figures):
    exp = "ipps96-fig2-channels-10"
    gap, lat = (figures.params[f"prototype-1995 card.{c}"] for c in ("tx_gap_us", "latency_us"))
    for ident in figures.groups[exp]:
        def at(**theta):
            return figures.value(exp, ident, "throughput_mbyte_s",
                                 {f"prototype-1995 card.{k}": v for k, v in theta.items()})
        head = at()
        mid = at(tx_gap_us=(gap.low + gap.headline) / 2)
        assert mid == pytest.approx((at(tx_gap_us=gap.low) + head) / 2, rel=1e-12)
        both = at(tx_gap_us=gap.high, latency_us=lat.low)
        assert both == pytest.approx(head + (at(tx_gap_us=gap.high) - head) + (at(latency_us=lat.low) - head),
                                     rel=1e-12)


def test_no_constant_is_read_outside_the_interval_its_ends_measured(figures):
    p = figures.params["prototype-1995 card.tx_gap_us"]
    with pytest.raises(BadInput, match="does not extrapolate"):
        figures.documents({p.name: p.high + 1})


def test_the_fit_is_deterministic_and_inside_the_ranges(run, figures):
    grid = run["fitting"]["grid"]
    first = F.fit(figures, run["claims"], training(run), grid)
    again = F.fit(figures_of(run), run["claims"], training(run), grid)
    assert first.theta == again.theta and first.cost == again.cost
    assert first.cost <= first.cost_headline
    for k, v in first.theta.items():
        p = figures.params[k]
        assert p.low <= v <= p.high
    assert set(first.trained_by) == set(figures.params)      # every free constant is read by one


def _scaled(doc: dict, factor: float, where: dict) -> dict:
    out = copy.deepcopy(doc)
    for p in out["points"]:
        if all(p.get(k) == v for k, v in where.items()):
            p["throughput_mbyte_s"] *= factor
    return out


def test_the_fit_reads_only_its_training_claims(run):
    """Moving a held-out claim's points everywhere (headline and ends, differently at each end)
    leaves the fit where it was; moving a training claim's points moves it."""
    grid = run["fitting"]["grid"]
    base = F.fit(figures_of(run), run["claims"], training(run), grid).theta
    held = "ipps96-fig3-prototype"          # claim 9 alone reads it, never a training claim
    assert not any(held in c["experiments"] for c in run["claims"] if c["id"] in training(run))
    docs = {**run["docs"], held: _scaled(run["docs"][held], 0.5, {})}
    ends = {vid: _scaled(d, 0.3 if "low" in vid else 1.7, {}) if vid.endswith(held) else d
            for vid, d in run["ends"].items()}
    moved = figures_of(run, docs, ends)
    assert moved.value(held, next(iter(moved.groups[held])), "throughput_mbyte_s", {}) != \
        figures_of(run).value(held, next(iter(moved.groups[held])), "throughput_mbyte_s", {})
    assert F.fit(moved, run["claims"], training(run), grid).theta == base
    # the same perturbation on claim 1's figure (a training claim) does move it
    train = "ipps96-fig2-channels-10"
    ends = {vid: _scaled(d, 0.3 if "low" in vid else 1.7, {"topology": "bonded-dual-net"})
            if vid.endswith(train) else d for vid, d in run["ends"].items()}
    assert F.fit(figures_of(run, ends=ends), run["claims"], training(run), grid).theta != base


def test_the_objective_reads_what_the_judge_reads(run, figures):
    f = F.fit(figures, run["claims"], training(run), run["fitting"]["grid"])
    chosen = [c for c in run["claims"] if c["id"] in f.training]
    judged = C.judge_all(chosen, figures.documents(f.theta), C.PAPER, run["cals"])
    for c, r in zip(chosen, judged):
        quick = F.measured(figures, c, f.theta)
        assert r["measured"] == pytest.approx(quick, rel=1e-9), c["id"]


def test_a_claim_no_end_measured_is_not_predicted_and_counted_apart(view):
    held = {r["id"]: r for r in view["held_out"]}
    for cid in (11, 22):                   # the balance figure (two profiles) and the 2001 cluster
        assert held[cid]["verdict"] == F.NOT_PREDICTED and held[cid]["points"].startswith("0 of"), held[cid]
        assert "no end" in held[cid]["reason"]
    assert view["counts"].get(F.NOT_PREDICTED, 0) >= 1
    training_ids = {t["id"] for t in view["training"]}
    assert not training_ids & set(held)    # the training claims are never judged as held out
    # a predicted claim was judged on the points its ends measured, and says how many
    assert all(r["points"].split(" of ")[0] != "0" for r in held.values() if r["verdict"] != F.NOT_PREDICTED)


def test_a_claim_whose_selection_no_end_ran_is_not_predicted(run, figures):
    """A claim reading a point of a moved figure that the ends never ran cannot move."""
    claim = {"id": 900, "source": "t", "statement": "t", "paper": {"value": 1, "status": "seed"},
             "experiments": ["ipps96-fig2-channels-10"], "calibration": False, "why_tolerance": "t",
             "check": {"kind": "value", "select": {"where": {"topology": "single-net", "pairs": 8, "token_size": 1024}},
                       "target": 1.0, "tolerance": 0.1}}
    got = F.judged(figures, [claim], {}, run["cals"])[900]
    assert got["verdict"] == F.NOT_PREDICTED and "none of the points" in got["reason"]


def test_leave_one_figure_out_has_a_row_per_figure_the_constants_move(run, view):
    free = {e["profile"] for e in run["fitting"]["free"]}
    ran = {v["experiment"] for v in run["variants"] if v["range"]["profile"] in free}
    read = {e for c in F.evidence(run["claims"]) for e in c["experiments"]}
    rows = {r["figure"]: r for r in view["lofo"]}
    assert set(rows) == ran & read and len(rows) == 7
    by_id = {c["id"]: c for c in run["claims"]}
    eligible = {e["claim"] for e in run["fitting"]["eligible"]}
    for fig, r in rows.items():
        assert r["training"] and all(fig not in by_id[cid]["experiments"] for cid in r["training"])
        assert set(r["training"]) <= eligible
        assert {c["id"] for c in r["claims"]} == {c["id"] for c in F.evidence(run["claims"])
                                                  if fig in c["experiments"]}
        assert r["params"] and all(p["name"] in {f"{e['profile']} {k}" for e in run["fitting"]["free"]
                                                 for k in e["constants"]} for p in r["params"])


def test_a_fit_at_an_end_of_its_range_is_a_finding(view):
    for p in view["params"]:
        if p["fitted"] is not None and p["fitted"] in (p["low"], p["high"]):
            assert p["at_end"] and "a finding" in p["text"], p
        else:
            assert not p["at_end"], p


def test_the_report_shows_the_fitted_view_after_the_era_view(run, view, tmp_path, monkeypatch):
    monkeypatch.setattr(R, "_figures", lambda docs, figdir: [])      # the drawing is not what is tested
    page = R.build(run["docs"], tmp_path, False, sensitivity=run["ends"], ranges=run["variants"])
    md, html = (tmp_path / "report.md").read_text(), page.read_text()
    order = [md.index(h) for h in ("## Claims", "## Decided by the sources?", "## Fitted view (judged out of sample)",
                                   "### Leave one figure out", "## Era validation")]
    assert order == sorted(order)
    section = md[order[2]:order[4]]
    assert "not predicted" in section and "| hpdc96-fig3-topologies |" in section
    assert "(at the high end" in section or "(at the low end" in section
    assert '<section id="fitted">' in html
    assert not any(p["at_end"] for p in view["params"]) or 'class="fit-end"' in html
    # the era view stays the headline: the summary counts the era verdicts, not the fitted ones
    summary = md.split("\n\n")[1]
    assert summary.startswith("Claims") and "fitted" not in summary and F.NOT_PREDICTED not in summary


@pytest.mark.skipif(not QUICK, reason="no stored quick-run documents")
def test_a_run_without_range_ends_says_the_fitted_view_needs_them(tmp_path, monkeypatch):
    monkeypatch.setattr(R, "_figures", lambda docs, figdir: [])
    docs = {load(p)["name"]: load(p) for p in QUICK}
    R.build(docs, tmp_path, True)
    md = (tmp_path / "report.md").read_text()
    section = md.split("## Fitted view (judged out of sample)")[1].split("\n## ")[0]
    assert "needs the range ends" in section and "--ranges" in section


def test_a_point_read_through_an_end_that_failed_a_gate_is_not_checkable(run):
    exp = "ipps96-fig3-prototype"
    low = next(v["id"] for v in run["variants"] if v["experiment"] == exp
               and v["range"]["constant"] == "card.tx_gap_us" and v["range"]["end"] == F.LOW)
    broken = copy.deepcopy(run["ends"][low])
    for p in broken["points"]:
        if p.get("remote") == 7:
            p["gates"] = {**(p.get("gates") or {}), "ok": False, "failed": ["a planted failure"]}
    figures = figures_of(run, ends={**run["ends"], low: broken})
    claim9 = [c for c in run["claims"] if c["id"] == 9]
    gap = figures.params["prototype-1995 card.tx_gap_us"]
    at_low = F.judged(figures, claim9, {gap.name: gap.low / 2 + gap.headline / 2}, run["cals"])[9]
    assert at_low["verdict"] == C.NOT_CHECKABLE and "a planted failure" in at_low["reason"]
    at_high = F.judged(figures, claim9, {gap.name: gap.high}, run["cals"])[9]
    assert "a planted failure" not in at_high["reason"]
