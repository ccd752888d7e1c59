"""Points shared between experiments: taken only when the configuration is the same."""
import pytest

pytest.importorskip("jsonschema")

from beowulf_netlab.run.derive import shared_points  # noqa: E402
from beowulf_netlab.run.experiment import experiment_files, load  # noqa: E402
from beowulf_netlab.run.sweep import network_fields  # noqa: E402


def fig6(quick=True):
    sweep, _paper, meta = load(experiment_files()["ipps96-fig6-balance"], quick=quick)
    return sweep, meta


def source(sweep_name: str, quick=True, **change):
    """A document as the runner writes it for that experiment: every scheduled point, measured."""
    sweep = load(experiment_files()[sweep_name], quick=quick)[0]
    pts = []
    for spec, points in sweep.schedule():
        for pt in points:
            pts.append({**network_fields(spec), **pt, "disks": {"profile": "x"}, "disk_profile": "x",
                        "throughput_mbyte_s": 1.0 + pt["point_index"]})
    return {"workload": sweep.workload, "parameters": {**sweep.parameters(), **change}, "points": pts}


def test_fig6_takes_its_points_from_figs_3_and_5():
    sweep, meta = fig6()
    assert meta["same_points_as"] == ["ipps96-fig3-prototype", "ipps96-fig5-demonstration"]
    docs = {n: source(n) for n in meta["same_points_as"]}
    got = shared_points(sweep, docs)
    scheduled = [pt for _, pts in sweep.schedule() for pt in pts]
    assert sorted(p["point_index"] for p in got) == sorted(p["point_index"] for p in scheduled)
    assert {p["measured_in"] for p in got} == set(meta["same_points_as"])
    for p in got:      # each is the source's measurement of the same configuration
        src = docs[p["measured_in"]]["points"]
        twin = [s for s in src if s["throughput_mbyte_s"] == p["throughput_mbyte_s"]]
        assert len(twin) == 1 and all(twin[0][k] == p[k] for k in ("rate_mbit", "hardware", "remote",
                                                                   "file_size", "repeat", "placement"))
        assert (p["rate_mbit"], p["hardware"]) in {(10, "prototype-1995"), (100, "demonstration-1996")}


def test_another_setting_or_workload_shares_nothing():
    sweep, meta = fig6()
    other_chunk = {n: source(n, chunk=4096) for n in meta["same_points_as"]}
    assert shared_points(sweep, other_chunk) == []
    token = {n: {**source(n), "workload": "token"} for n in meta["same_points_as"]}
    assert shared_points(sweep, token) == []
    # a repeat the source did not run is measured, not invented
    one_run = {n: {**d, "points": [p for p in d["points"] if p["repeat"] == 0]}
               for n, d in ((n, source(n)) for n in meta["same_points_as"])}
    got = shared_points(sweep, one_run)
    assert got and all(p["repeat"] == 0 for p in got)


@pytest.mark.parametrize("name, source_name, where", [
    ("hpdc96-fig5-demand", "hpdc96-fig3-topologies", {"pairs": 8}),
    ("hpdc96-fig4-disknet", "ipps96-fig3-prototype", {"topology": "bonded-dual-net"}),
])
def test_a_curve_another_figure_measures_is_taken_from_it(name, source_name, where):
    """HPDC'96 Fig 5's 8-pair demand is Fig 3's routed remote-wire curve; Disk/Net's bonded
    curve is IPPS'96 Fig 3's 2 MB curve: the same configurations, measured once."""
    sweep, _paper, meta = load(experiment_files()[name], quick=False)
    assert meta["same_points_as"] == [source_name]
    got = shared_points(sweep, {source_name: source(source_name, quick=False)})
    scheduled = [(spec, pt) for spec, pts in sweep.schedule() for pt in pts]
    expect = [pt["point_index"] for spec, pt in scheduled
              if all({**network_fields(spec), **pt}.get(k) == v for k, v in where.items())]
    assert expect and sorted(p["point_index"] for p in got) == sorted(expect)


def test_a_calibration_measurement_a_source_holds_is_taken_not_measured():
    """Quick Disk/Net runs remote 1 and 5 only, so it adds IPPS'96 Fig 3's disk calibration (seven
    all-local 2 MB copies on the bonded prototype): Fig 3's quick sweep measured exactly those."""
    from beowulf_netlab.run.calibration import with_calibrations
    from beowulf_netlab.run.derive import shared_calibrations
    sweep = load(experiment_files()["hpdc96-fig4-disknet"], quick=True)[0]
    schedule, _ = with_calibrations(sweep, sweep.schedule())
    added = [pt for _, pts in schedule for pt in pts if pt.get("calibration_of")]
    assert added and all(pt["remote"] == 0 for pt in added)
    fig3 = source("ipps96-fig3-prototype")
    kept, taken = shared_calibrations(sweep, schedule, {"ipps96-fig3-prototype": fig3})
    assert not [pt for _, pts in kept for pt in pts if pt.get("calibration_of")]
    assert len(taken) == len(added)
    for spec, p in taken:
        assert p["measured_in"] == "ipps96-fig3-prototype" and "point_index" not in p
        assert p["calibration_of"] and p["remote"] == 0 and p["hardware"] == network_fields(spec)["hardware"]
    # the sweep's own points stay, and a source with other settings gives nothing
    assert sum(len(p) for _, p in kept) == sum(len(p) for _, p in schedule) - len(added)
    assert shared_calibrations(sweep, schedule, {"x": source("ipps96-fig3-prototype", chunk=4096)})[1] == []
