"""Can a claim fail? The judge's own analysis (judge/forced.py), on synthetic points and on the
real claims file over the stored reproduction (no root).

A verdict that no admissible measurement could change is no evidence: it must come out
"forced by construction", never "reproduced". The admissible readings are what calibrations pin
and what disks and wires allow, so these tests build points whose limits are known by hand.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from judge import claims as C
from judge import forced as F
from run.calibration import load_calibrations
from run.results import read_json
from netlab.shaping import payload_capacity_bytes_s

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "reproduction"
CAP10 = payload_capacity_bytes_s(10) / 1e6       # one 10 Mbit/s wire's payload limit, MB/s
CAL = {"id": "disk", "what": "7 local copies", "applies": {"workload": "filecopy"},
       "where": {"copies": 7, "remote": 0}, "metric": "throughput_mbyte_s", "target": 11.7,
       "tolerance": 0.05}


def copies(remote: int, value: float, wires=("w0",), rate: float = 10.0) -> dict:
    """A file-copy point: 7 copies, `remote` of them over the given wires (one segment)."""
    return {"workload": "filecopy", "copies": 7, "remote": remote, "rate_mbit": rate,
            "topology": "single-net", "throughput_mbyte_s": value, "repeat": 0,
            "disk": {"read_mbyte_s": 1.67, "write_mbyte_s": 1.67},
            "flows": [{"path": [list(wires)], "bytes": 1, "start": 0, "end": 1} for _ in range(remote)]}


def docs(*points) -> dict:
    return {"fig": {"name": "fig", "workload": "filecopy", "points": list(points)}}


def test_a_calibrated_point_is_pinned_and_a_remote_one_capped_by_its_wires():
    (lo, hi), why = F.point_range(copies(0, 11.5), "throughput_mbyte_s", [CAL])
    assert (lo, hi) == pytest.approx((11.7 * 0.95, 11.7 * 1.05)) and "calibration disk" in why
    (lo, hi), why = F.point_range(copies(7, 1.0), "throughput_mbyte_s", [CAL])
    assert lo == 0 and hi == pytest.approx(CAP10 * 1.02) and "wires" in why
    # two bonded wires carry twice one; six local copies add their disks (and all 7 disks cap it)
    assert F.wire_limit(copies(1, 9.0, ("w0", "w1"))) == pytest.approx((2 * CAP10 + 6 * 1.67) * 1.02)
    (_, hi), why = F.point_range(copies(1, 9.0, ("w0", "w1")), "throughput_mbyte_s", [])
    assert hi == pytest.approx(7 * 1.67 * 1.02) and why == "its disks"


def test_local_over_remote_at_ten_megabits_cannot_fail_but_a_tight_target_can():
    """IPPS'96 claim 9 on today's disk: all-local is pinned at 11.7 +- 5 %, all-remote is at most one
    wire (1.2 MB/s), so local / remote > 4 whatever is measured. A target the range straddles
    can fail."""
    d = docs(copies(0, 11.6), copies(7, 1.1))
    check = {"kind": "ratio", "a": {"where": {"remote": 0}}, "b": {"where": {"remote": 7}},
             "shape": {"op": ">", "value": 4}}
    forced, why = F.analyse(check, d, "fig", [CAL])
    assert forced and "calibration disk" in why
    assert F.analyse({**check, "shape": {"op": ">", "value": 12}}, d, "fig", [CAL])[0] is False
    assert F.analyse({**check, "shape": None, "target": 10, "tolerance": 0.05}, d, "fig", [CAL])[0] is False
    # a bias that gives the relation anyway: the relation is no pass, so nothing is forced
    assert F.analyse(check, d, "fig", [CAL], {"direction": "up", "why": "x"})[0] is False


def test_an_unpinned_value_can_always_read_low():
    d = docs(copies(3, 5.0))
    assert F.analyse({"kind": "value", "select": {"where": {"remote": 3}}, "target": 5, "tolerance": 0.5},
                     d, "fig", [CAL])[0] is False
    assert F.analyse({"kind": "peak", "select": {"where": {}}, "over": "remote", "at": 1}, d, "fig",
                     [CAL])[0] is None


def test_an_order_of_a_pinned_point_over_a_capped_one_cannot_fail():
    d = docs(copies(0, 11.6), copies(7, 1.1))
    order = {"kind": "order", "items": [{"where": {"remote": 0}}, {"where": {"remote": 7}}]}
    assert F.analyse(order, d, "fig", [CAL])[0] is True
    assert F.analyse({**order, "items": order["items"][::-1]}, d, "fig", [CAL])[0] is False


def test_the_judge_shows_a_claim_that_cannot_fail_as_forced_never_reproduced():
    """The real claims file over the stored reproduction (made before the declared today_disk,
    with ide-1995 disks on today's view): the claims the analysis finds unable to
    fail, per view, and why. Today's view of IPPS'96 Figure 3 (claim 9) is forced by its disk
    calibration and its wire; no forced claim is counted as reproduced."""
    found = {}
    stored = {}
    for path in sorted(FIXTURES.glob("*.json")):
        doc = read_json(path, "results document")
        stored[doc["name"]] = doc
    claims, cals = C.load_claims(), load_calibrations()
    for which in C.views_present(stored):
        for r in C.judge_all(claims, stored, which, cals):
            assert r["verdict"] != C.REPRODUCED or not r["can_fail"]["forced"], r
            if r["can_fail"]["forced"]:
                found[(which, r["id"])] = r["can_fail"]["why"]
                assert r["verdict"] in (C.FORCED, C.NOT_REPRODUCED, C.NOT_CHECKABLE), r
    assert (C.TODAY, 9) in found, found
    assert "calibration ide-1995-disk" in found[(C.TODAY, 9)]
    assert sorted(found) == [(C.TODAY, 9)], found     # the list a change to the claims must update


def _today_points(name: str, values: dict[int, float]) -> dict:
    """The experiment's today's-view network (hardware none) as reproduce builds it, every point
    measured at values[remote], with the disk and wires that network really gets."""
    from netlab.disk_profiles import for_spec
    from run.experiment import experiment_files, load
    from run.sweep import Sweep, network_fields
    sweep = load(experiment_files()[name], quick=True)[0]
    sweep = Sweep(sweep.workload, {**sweep.values, "hardware": ["none"]}, None)
    settings = sweep.settings()
    points = []
    for spec, pts in sweep.schedule():
        disk = for_spec(settings["disk"], spec, settings.get("disk_transfer"), settings["today_disk"])
        wires = [w.name for w in spec.wires]
        for pt in pts:
            r = pt["remote"]
            points.append({**network_fields(spec), **pt, "workload": "filecopy", "repeat": 0,
                           "throughput_mbyte_s": values[r], "disk": disk.record(),
                           "flows": [{"path": [wires], "bytes": 1, "start": 0, "end": 1} for _ in range(r)]})
    return {name: {"name": name, "workload": "filecopy", "points": points}}


def test_todays_view_of_the_prototypes_figure_gets_its_own_disk_so_claim_9_can_fail():
    """The declared disk choice (experiments' today_disk era): today's hosts of IPPS'96 Figure 3
    get the prototype's calibrated 1.03 MB/s a copy, pinned by prototype-1995-disk at 7.22 +- 5 %,
    so all-local / all-remote can fall under 4 when the network carries 2.4 MB/s: claim 9 can fail
    there (with the demonstration system's 1.67 it could not)."""
    claim9 = next(c for c in C.load_claims() if c["id"] == 9)
    stored = _today_points("ipps96-fig3-prototype", {0: 7.2, 7: 1.6})
    disk = stored["ipps96-fig3-prototype"]["points"][0]["disk"]
    assert disk["profile"] == "prototype-1995-throttle" and disk["read_mbyte_s"] == 1.03
    can, why = F.forced(claim9, stored, load_calibrations())
    assert can is False and "calibration prototype-1995-disk" in why, why
    # the demonstration system's figure keeps its own (1.67 a copy, the ide-1995 calibration's rate)
    fig5 = _today_points("ipps96-fig5-demonstration", {r: 10.0 for r in range(8)})
    disk5 = fig5["ipps96-fig5-demonstration"]["points"][0]["disk"]
    assert disk5["profile"] == "demonstration-1996-throttle" and disk5["read_mbyte_s"] == 1.67
