"""A full `reproduce` measures only what decides something (issue 43 item 5): the points no claim
reads are left out unless --curves asks for the whole curves, as full runs measured them before.

Every test plans the run (commands.reproduce.plan, the sweeps' schedule(), run.estimate) and runs
nothing; the last ones judge the stored full run (tests/fixtures/full-run) cut to what the new
schedule measures, and build a report from documents that say their curves are partial.
"""
from __future__ import annotations

import argparse
import re

import pytest

pytest.importorskip("jsonschema")

from beowulf_netlab.commands.reproduce import capped, plan, with_hardware  # noqa: E402
from beowulf_netlab.judge.claims import load_claims, read_by_claims  # noqa: E402
from beowulf_netlab.run import calibration, estimate  # noqa: E402
from beowulf_netlab.run.derive import configuration  # noqa: E402
from beowulf_netlab.run.experiment import experiment_files, load  # noqa: E402
from beowulf_netlab.run.sweep import UNREAD_LEFT_OUT, UNREAD_ONCE, Sweep, network_key  # noqa: E402
from beowulf_netlab.topologies.hardware import hardware_of  # noqa: E402
from beowulf_netlab.topologies.point import network_fields  # noqa: E402


def args(**kw) -> argparse.Namespace:
    """reproduce's arguments, as its parser gives them (a full run on both views by default)."""
    given = dict(quick=False, curves=False, only=None, hardware="both", contention=None, shard=None,
                 ranges=None, sensitivity=False)
    return argparse.Namespace(**{**given, **kw})


def planned_points(sweep: Sweep) -> list[dict]:
    """Every scheduled point with its network's fields, as a claim's selection reads it."""
    return [{**network_fields(spec), **pt} for spec, pts in sweep.schedule() for pt in pts]


def runs(sweep: Sweep) -> dict[tuple, int]:
    """Configuration -> how many runs of it the schedule holds."""
    axes = [a.name for a in sweep.spec_workload.axes if a.many]
    out: dict[tuple, int] = {}
    for p in planned_points(sweep):
        key = configuration(p, axes)
        out[key] = out.get(key, 0) + 1
    return out


def measured(p) -> dict[str, list[tuple]]:
    """experiment -> the points its first pass measures itself: its schedule with the calibrations
    it adds, less what it takes from the experiments before it (the runner's and the estimate's
    plan: run.estimate.planned)."""
    docs, out = {}, {}
    for name, (sweep, _) in p.sweeps.items():
        first = capped(sweep) if name in p.staged else sweep
        sources = {n: docs[n] for n in p.shares.get(name, []) if n in docs}
        out[name] = [(spec, pt) for spec, pts in estimate.planned(first, sources) for pt in pts]
        docs[name] = estimate.as_document(first)
    return out


@pytest.fixture(scope="module")
def claims():
    return load_claims()


@pytest.fixture(scope="module")
def before():
    return plan(args(curves=True))


@pytest.fixture(scope="module")
def after():
    return plan(args())


def test_with_curves_every_schedule_is_as_before(before, claims):
    """--curves: each experiment's own claims' points repeated, the rest of each curve once, as a
    full run scheduled them before the option (its planning, restated)."""
    for name, (sweep, _) in before.sweeps.items():
        old, _, _ = load(experiment_files()[name])
        era_only = name in before.era_only
        old = with_hardware(old, "paper" if era_only else "both", None)
        old.claimed = None if era_only else read_by_claims(claims, name)
        old.unread_runs = 1
        assert [(network_key(s), pts) for s, pts in sweep.schedule()] == \
            [(network_key(s), pts) for s, pts in old.schedule()], name
        assert sweep.unread_points() == (None if era_only else UNREAD_ONCE)


def test_without_curves_no_point_runs_once_and_every_claimed_point_keeps_its_repeats(before, after, claims):
    assert list(after.sweeps) == list(before.sweeps)
    for name, (sweep, _) in after.sweeps.items():
        new, old = runs(sweep), runs(before.sweeps[name][0])
        assert set(new.values()) == {sweep["repeats"]}, name      # nothing measured once
        own = read_by_claims(claims, name)
        axes = [a.name for a in sweep.spec_workload.axes if a.many]
        read = {configuration(p, axes) for p in planned_points(before.sweeps[name][0])
                if name in after.era_only or own(p)}
        assert read and read <= set(new), name                    # every claimed point kept ...
        assert all(old[k] == new[k] for k in read), name          # ... with its repeats
    assert sum(map(len, map(planned_points, (s for s, _ in after.sweeps.values())))) < \
        sum(map(len, map(planned_points, (s for s, _ in before.sweeps.values()))))


def test_what_a_full_run_measures_is_what_a_claim_or_a_calibration_reads(after, claims):
    """Of the points an experiment measures itself, each is a calibration's measurement or read by
    a claim: its own, or one of an experiment that takes its points (same_points_as) and holds
    that configuration. The other points it schedules beyond its claims' are taken from a source's
    document: free."""
    takers = {n: [t for t in after.sweeps if n in after.shares.get(t, [])] for n in after.sweeps}
    for name, points in measured(after).items():
        if name in after.era_only:
            continue
        sweep = after.sweeps[name][0]
        axes = [a.name for a in sweep.spec_workload.axes if a.many]
        readers = [(read_by_claims(claims, name), None)] + [
            (read_by_claims(claims, t), set(runs(after.sweeps[t][0]))) for t in takers[name]]
        for spec, pt in points:
            if pt.get("calibration_of"):
                continue
            p = {**network_fields(spec), **pt}
            assert any(r(p) and (held is None or configuration(p, axes) in held) for r, held in readers), \
                (name, network_key(spec), pt)


def test_a_point_another_experiment_reads_is_measured_where_it_takes_it_from(after, claims):
    """IPPS'96 Figure 3 measures, with its repeats, the bonded-dual-net points HPDC'96 Figure 4
    reads and takes from it (remote 1, 4-6 at 2 MB; its own claims read remote 0 and 7); Figure 4
    then measures none of them itself. Figure 6 takes all it schedules."""
    src, taker = "ipps96-fig3-prototype", "hpdc96-fig4-disknet"
    fig3 = after.sweeps[src][0]
    reads = read_by_claims(claims, taker)
    own = read_by_claims(claims, src)
    theirs = [p for p in planned_points(fig3) if reads(p) and not own(p)]
    assert theirs and {p["remote"] for p in theirs} == {1, 4, 5, 6}
    axes = [a.name for a in fig3.spec_workload.axes if a.many]
    assert all(runs(fig3)[configuration(p, axes)] == fig3["repeats"] for p in theirs)
    got = measured(after)
    shared = {configuration(p, axes) for p in theirs}
    assert not [pt for spec, pt in got[taker] if not pt.get("calibration_of")
                and configuration({**network_fields(spec), **pt}, axes) in shared]
    assert got["ipps96-fig6-balance"] == []
    # Figure 6's 10 Mbit/s curve is Figure 3's: scheduled, taken, never measured for it
    fig6 = planned_points(after.sweeps["ipps96-fig6-balance"][0])
    assert {p["remote"] for p in fig6 if p["rate_mbit"] == 10} == {0, 1, 4, 5, 6, 7}


def test_every_calibration_a_claimed_point_rests_on_is_measured_on_its_view(before, after, claims):
    """Each calibration a point some claim reads rests on is measured at least twice on that
    point's view, in every experiment, as before."""
    cals = calibration.load_calibrations()

    def measurements(sweep: Sweep) -> dict[tuple[str, str], int]:
        schedule, cannot = calibration.with_calibrations(sweep, sweep.schedule())
        assert not cannot
        pts = [calibration.as_recorded(sweep, spec, pt) for spec, ps in schedule for pt in ps]
        return {(c["id"], hardware_of(p)): sum(1 for q in pts if hardware_of(q) == hardware_of(p)
                                               and calibration.measures(c, q))
                for c in cals for p in pts if calibration.applies(c, p)}

    for name, (sweep, _) in after.sweeps.items():
        old = before.sweeps[name][0]
        own = (lambda p: True) if name in after.era_only else read_by_claims(claims, name)
        resting = {(c["id"], hardware_of(p)) for p in (calibration.as_recorded(old, s, pt)
                                                       for s, pts in old.schedule() for pt in pts)
                   if own(p) for c in cals if calibration.applies(c, p)}
        new = measurements(sweep)
        assert all(new.get(k, 0) >= calibration.MIN_MEASUREMENTS for k in resting), (name, resting, new)
        assert set(new) == set(measurements(old)), name     # no calibration row appears or goes


def test_the_full_schedule_drops_the_unread_points(before, after, capsys):
    """How many points the full run's schedule drops, per experiment: its schedule before and after
    (the sweeps' schedule()), what its first pass measures itself (run.estimate.planned: less
    what it takes from another experiment), the configurations left out, the estimated minutes."""
    was, now = measured(before), measured(after)
    lines, dropped = [], 0
    for name, (sweep, _) in before.sweeps.items():
        new = after.sweeps[name][0]
        a, b = len(planned_points(sweep)), len(planned_points(new))
        left = new.left_out()
        dropped += left
        if name in after.era_only:
            assert (a, left) == (b, 0)
        lines.append(f"{name:28s} schedule {a:4d} -> {b:4d}, measured {len(was[name]):4d} -> {len(now[name]):4d}, "
                     f"{left:3d} configurations left out")
    minutes = [sum(estimate.point_seconds(p.sweeps[n][0].spec_workload, spec, pt, p.sweeps[n][0].settings())
                   for n, pts in m.items() for spec, pt in pts) / 60 for p, m in ((before, was), (after, now))]
    with capsys.disabled():
        print("\n" + "\n".join(lines) + f"\npoints measured (first pass): {sum(map(len, was.values()))} -> "
              f"{sum(map(len, now.values()))}, about {minutes[0]:.1f} -> {minutes[1]:.1f} minutes of points; "
              f"{dropped} configurations left out")
    assert dropped > 100 and sum(map(len, now.values())) < sum(map(len, was.values())) - 100
    assert minutes[1] < minutes[0] - 10
    assert all(len(now[n]) <= len(was[n]) for n in was)      # no experiment measures more itself


def test_quick_measures_what_it_did():
    """--quick already measured only what the claims read: it measures the same number of points
    as before (a point another experiment reads is measured where that one takes it from, and
    taken: no more), and still nothing once."""
    quick = plan(args(quick=True))
    old = plan(args(quick=True, curves=True))
    for sweep, _ in old.sweeps.values():
        sweep.unread_runs = 0                  # --quick before: its own claims' points alone
    assert sum(map(len, measured(quick).values())) == sum(map(len, measured(old).values()))
    for name, (sweep, _) in quick.sweeps.items():
        assert set(runs(sweep).values()) == {sweep["repeats"]}, name


def test_a_range_end_takes_the_points_the_same_end_of_its_source_measured(after):
    """HPDC'96 Figures 4 and 5 take points of IPPS'96 Figure 3 and HPDC'96 Figure 3: their range
    ends take them from the same end of those experiments, never from another end."""
    assert after.variant_shares
    by_id = {v["id"]: v for v in after.ranges}
    shared = {v: ws for v, ws in after.variant_shares.items() if ws}
    assert {by_id[v]["experiment"] for v in shared} == {"hpdc96-fig4-disknet", "hpdc96-fig5-demand"}
    docs, saved = {}, 0
    for vid, (vsweep, _) in after.variants.items():
        for w in after.variant_shares.get(vid, []):
            assert by_id[w]["range"] == by_id[vid]["range"]
        sources = {w: docs[w] for w in after.variant_shares.get(vid, [])}
        alone = sum(len(p) for _, p in estimate.planned(vsweep, {}))
        saved += alone - sum(len(p) for _, p in estimate.planned(vsweep, sources))
        docs[vid] = estimate.as_document(vsweep)
    assert saved > 0


def test_a_sweep_says_whether_it_left_points_out():
    sweep = load(experiment_files()["ipps96-fig2-channels-10"])[0]
    assert sweep.unread_points() is None and sweep.left_out() == 0     # every point repeated
    sweep.claimed = read_by_claims(load_claims(), "ipps96-fig2-channels-10")
    assert sweep.unread_points() == UNREAD_ONCE and sweep.left_out() == 0
    sweep.unread_runs = 0
    assert sweep.unread_points() == UNREAD_LEFT_OUT and sweep.left_out() > 0
    sweep.claimed = lambda p: True                                     # every point read: none left out
    assert sweep.unread_points() is None


# -- the stored full run, cut to what the new schedule measures -----------------------------------

def cut(docs: dict[str, dict], p) -> dict[str, dict]:
    """The stored documents as the new schedule would have measured them: the points it leaves out
    dropped; one of them that measured a calibration some kept point rests on stays, as the
    calibration measurement the run then adds (run.calibration.with_calibrations); a calibration
    no kept point rests on is not measured."""
    cals = calibration.load_calibrations()
    by_id = {c["id"]: c for c in cals}
    out = {}
    for name, doc in docs.items():
        if name in p.era_only:
            out[name] = doc
            continue
        keep = p.sweeps[name][0].claimed
        regular = [q for q in doc["points"] if not q.get("calibration_of") and keep(q)]
        pts = []
        for q in doc["points"]:
            if q.get("calibration_of"):
                rests = any(calibration.applies(by_id[q["calibration_of"]], r) for r in regular
                            if hardware_of(r) == hardware_of(q))
                pts += [q] if rests else []
            elif keep(q):
                pts.append(q)
            else:
                used = [c for c in cals if calibration.measures(c, q)
                        and any(calibration.applies(c, r) for r in regular if hardware_of(r) == hardware_of(q))]
                if used:
                    pts.append({**{k: v for k, v in q.items() if k != "point_index"},
                                "calibration_of": used[0]["id"]})
        out[name] = {**doc, "points": pts}
    return out


def test_on_the_stored_full_run_no_verdict_moves(after, claims):
    """The stored full run judged whole and judged on what the new schedule measures: every
    claim's verdict, measurement and 'can it fail?' on both views, every calibration verdict, the
    ranges' decisions and the fitted view are the same."""
    from tests.unit.test_full_run import FIXTURE, documents
    if not (FIXTURE / "results").is_dir():
        pytest.skip("no full-run fixture stored")
    from beowulf_netlab.judge import claims as C
    from beowulf_netlab.judge import fitted
    from beowulf_netlab.judge import sensitivity as S
    main, ends = documents()
    new = cut(main, after)
    assert sum(len(d["points"]) for d in new.values()) < sum(len(d["points"]) for d in main.values()) - 100
    cals = calibration.load_calibrations()
    for which in C.views_present(main):
        was = C.judge_all(claims, main, which, cals)
        now = C.judge_all(claims, new, which, cals)
        assert [(r["id"], r["verdict"], r["measured"], r["can_fail"]) for r in now] == \
            [(r["id"], r["verdict"], r["measured"], r["can_fail"]) for r in was], which
        was_cal, now_cal = C.calibrations(C.view(main, which), cals), C.calibrations(C.view(new, which), cals)
        for name in main:
            old = {v["id"]: (v["verdict"], v["measured"]) for v in was_cal[name]}
            got = {v["id"]: (v["verdict"], v["measured"]) for v in now_cal[name]}
            assert got.items() <= old.items(), (which, name, old, got)
    variants = [v for v in S.range_variants_of(list(main)) if v["id"] in ends]
    assert S.decided(claims, new, ends, variants, quick=False) == S.decided(claims, main, ends, variants, quick=False)
    assert fitted.fitted_view(claims, new, ends, variants, era=C.judge_all(claims, new, C.PAPER, cals)) == \
        fitted.fitted_view(claims, main, ends, variants, era=C.judge_all(claims, main, C.PAPER, cals))


def test_the_report_says_its_curves_are_partial(tmp_path):
    """Documents that left out the points no claim reads: the report says so beside the claims,
    above the figures and under each figure of theirs; documents that did not: not a word."""
    pytest.importorskip("matplotlib")
    from beowulf_netlab.judge.report import PARTIAL_TEXT, build
    from tests.unit.test_reproduction import STORED
    from beowulf_netlab.run.results import load as load_doc
    if not STORED:
        pytest.skip("no stored reproduction documents")
    docs = {load_doc(p)["name"]: load_doc(p) for p in STORED}
    page = build(docs, tmp_path / "whole", quick=True)
    assert "Partial curves" not in (tmp_path / "whole" / "report.md").read_text()
    assert "Partial curves" not in page.read_text()
    name = sorted(docs)[0]
    docs[name]["unread_points"] = UNREAD_LEFT_OUT
    page = build(docs, tmp_path / "cut", quick=False)
    md, html = (tmp_path / "cut" / "report.md").read_text(), page.read_text()
    said = PARTIAL_TEXT.format(names=name)
    assert md.count(said) == 2 and html.count(said) == 2
    assert md.count("partial: only the points the claims read") == 1      # its figure's caption
    assert "reproduce --curves" in md and "not at all" in md               # the glossary's repeats
    head = md.split("\nVerdicts:")[0]
    from beowulf_netlab.judge.report import headline
    assert "Partial" not in headline(md) and said in head


def test_a_session_records_in_each_document_how_its_unread_points_ran(monkeypatch, tmp_path):
    """The document says it (results unread_points), so `report` and `merge` rebuilding a report
    from documents say the curves are partial too, and an older document says nothing."""
    from beowulf_netlab.netlab.impls import BuildOptions
    from beowulf_netlab.run import runner, session
    monkeypatch.setattr(session, "require_root", lambda verb: None)
    monkeypatch.setattr(session, "check_buildable_here", lambda sweeps, opts: None)
    monkeypatch.setattr(runner, "run_sweep", lambda sweep, doc, *a, **k: doc)   # nothing measured
    sweep = load(experiment_files()["ipps96-fig2-channels-10"])[0]
    s = session.Session("reproduce", BuildOptions(), [sweep], [tmp_path / "report.html"], checked=True)
    assert "unread_points" not in s.run(sweep, tmp_path / "a.json", name="a")
    sweep.claimed = read_by_claims(load_claims(), "ipps96-fig2-channels-10")
    assert s.run(sweep, tmp_path / "b.json", name="b")["unread_points"] == UNREAD_ONCE
    sweep.unread_runs = 0
    doc = s.run(sweep, tmp_path / "c.json", name="c")
    assert doc["unread_points"] == UNREAD_LEFT_OUT
    from beowulf_netlab.run.results import validate
    validate({**doc, "complete": True})


def test_the_plan_says_what_the_run_measures_and_what_its_time_is_made_of(after):
    """reproduce --plan: a row per experiment, the range ends per experiment and the later repeats
    at most; its total is the estimate reproduce prints when it starts (the same sweeps), and it
    says what the time is made of (the points' workloads against the networks' builds)."""
    from beowulf_netlab.commands.reproduce import estimated, plan_lines
    lines = plan_lines(after, quick=False)
    total = next(line for line in lines if line.lstrip().startswith("total"))
    ahead = estimate.of_sweeps(estimated(after))
    assert f"{ahead.points:>7}" in total and f"{ahead.seconds / 60:>9.1f}" in total, (total, ahead.line())
    for name in after.sweeps:
        assert any(line.lstrip().startswith(name + " ") for line in lines), name
    assert any(line.lstrip().startswith("range ends of ") for line in lines)
    assert any(line.lstrip().startswith("later repeats, at most") for line in lines)
    made = next(line for line in lines if line.startswith("Of the total"))
    workloads, networks = (float(x) for x in re.findall(r"take ([\d.]+) min, building and tearing "
                                                        r"down networks ([\d.]+)", made)[0])
    assert workloads > 10 * networks     # what a network reused across experiments could save is small
    quick = plan_lines(plan(args(quick=True)), quick=True)
    assert not any("range ends" in line or "later repeats" in line for line in quick)


def test_the_plan_runs_nothing_and_needs_no_root(capsys, monkeypatch):
    """--plan prints and returns before a session (which asks for root and builds networks) exists."""
    from beowulf_netlab.commands import reproduce

    def refuse(*a, **kw):
        raise AssertionError("--plan built a session")
    monkeypatch.setattr(reproduce, "Session", refuse)
    assert reproduce.run(args(quick=True, plan=True, json=False)) == 0
    out = capsys.readouterr().out
    assert out.startswith("reproduce --quick --plan:") and "total" in out
    from beowulf_netlab.core.errors import BadInput
    with pytest.raises(BadInput, match="drop --json"):
        reproduce.run(args(quick=True, plan=True, json=True))
