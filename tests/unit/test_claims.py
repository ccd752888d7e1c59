"""Every check kind passes and fails on crafted data; gate failures and missing
points make a claim not checkable; calibration points are never judged; the
claims file and its schema agree with the code."""
import json

import pytest

pytest.importorskip("jsonschema")

from pipeline import claims as C  # noqa: E402


def pt(throughput, gates_ok=True, repeat=0, **axes):
    return {"topology": "single-net", "placement": "any", "rate_mbit": 10, "repeat": repeat,
            "throughput_mbyte_s": throughput, "fidelity": {"suspect": None},
            "gates": {"ok": gates_ok, "failed": [] if gates_ok else ["over capacity: w0"]}, **axes}


def docs(*points, name="exp"):
    return {name: {"name": name, "points": list(points)}}


def claim(check, calibration=False, experiments=("exp",)):
    return {"id": 99, "source": "test", "statement": "test", "paper": {"value": 1, "status": "verified"},
            "experiments": list(experiments), "check": check, "calibration": calibration, "gap": "why"}


def sel(**where):
    return {"where": where}


RATIO = {"kind": "ratio", "a": sel(topology="bonded-dual-net"), "b": sel(topology="single-net"),
         "target": 1.7, "tolerance": 0.15, "shape": {"op": ">", "value": 1.0}}


@pytest.mark.parametrize("bonded, verdict", [(1.9, C.REPRODUCED), (2.3, C.IN_SHAPE), (1.0, C.NOT_REPRODUCED)])
def test_ratio_reproduced_in_shape_or_not(bonded, verdict):
    d = docs(pt(1.1), pt(bonded * 1.1, topology="bonded-dual-net"))
    r = C.judge(claim(RATIO), d)
    assert r["verdict"] == verdict and r["measured"] == pytest.approx(bonded)
    assert (r["gap"] == "why") == (verdict != C.REPRODUCED)


def test_a_failed_gate_makes_a_claim_not_checkable():
    d = docs(pt(1.1), pt(1.9, gates_ok=False, topology="bonded-dual-net"))
    r = C.judge(claim(RATIO), d)
    assert r["verdict"] == C.NOT_CHECKABLE and "fidelity gate" in r["reason"]


def test_missing_experiment_or_points_is_not_checkable():
    assert C.judge(claim(RATIO), {})["verdict"] == C.NOT_CHECKABLE
    assert C.judge(claim(RATIO), docs(pt(1.1)))["verdict"] == C.NOT_CHECKABLE


def test_repeats_are_averaged_and_a_wide_spread_is_not_trusted():
    tight = docs(pt(1.0), pt(1.02, repeat=1), pt(1.9, topology="bonded-dual-net"),
                 pt(1.92, topology="bonded-dual-net", repeat=1))
    r = C.judge(claim(RATIO), tight)
    assert r["verdict"] == C.REPRODUCED and r["points"] == 4 and 0 < r["spread"] < 0.05
    wide = docs(pt(1.0), pt(1.5, repeat=1), pt(2.0, topology="bonded-dual-net"))
    assert "spread" in C.judge(claim(RATIO), wide)["reason"]


@pytest.mark.parametrize("value, verdict", [(11.5, C.CALIBRATION), (5.0, C.CALIBRATION)])
def test_calibration_points_are_shown_never_judged(value, verdict):
    check = {"kind": "value", "select": sel(remote=0), "target": 11.7, "tolerance": 0.05}
    r = C.judge(claim(check, calibration=True), docs(pt(value, remote=0)))
    assert r["verdict"] == verdict and r["measured"] == value


def test_value_and_drop():
    check = {"kind": "value", "select": {"where": {}, "reduce": "min"}, "target": 6.6, "tolerance": 0.15,
             "shape": {"op": ">", "value": 5.85}}
    assert C.judge(claim(check), docs(pt(11.0, remote=0), pt(6.8, remote=7)))["verdict"] == C.REPRODUCED
    assert C.judge(claim(check), docs(pt(11.0, remote=0), pt(10.0, remote=7)))["verdict"] == C.IN_SHAPE
    assert C.judge(claim(check), docs(pt(11.0, remote=0), pt(3.0, remote=7)))["verdict"] == C.NOT_REPRODUCED
    drop = {"kind": "drop", "a": sel(remote=0), "b": sel(remote=7), "shape": {"op": "<", "value": 0.25}}
    assert C.judge(claim(drop), docs(pt(11.8, remote=0), pt(11.6, remote=7)))["verdict"] == C.REPRODUCED
    assert C.judge(claim(drop), docs(pt(11.8, remote=0), pt(2.0, remote=7)))["verdict"] == C.NOT_REPRODUCED


def test_order_and_ratio_order():
    order = {"kind": "order", "items": [sel(placement="local-wire"), sel(placement="remote-wire")]}
    assert C.judge(claim(order), docs(pt(4.0, placement="local-wire"), pt(3.0, placement="remote-wire")))[
        "verdict"] == C.REPRODUCED
    assert C.judge(claim(order), docs(pt(2.0, placement="local-wire"), pt(3.0, placement="remote-wire")))[
        "verdict"] == C.NOT_REPRODUCED
    ro = {"kind": "ratio_order", "first": {"a": sel(pairs=8, token_size=8192), "b": sel(pairs=8, token_size=1024)},
          "second": {"a": sel(pairs=8, token_size=8192), "b": sel(pairs=4, token_size=8192)}}
    size_matters = docs(pt(4.0, pairs=8, token_size=8192), pt(2.0, pairs=8, token_size=1024),
                        pt(3.5, pairs=4, token_size=8192))
    count_matters = docs(pt(4.0, pairs=8, token_size=8192), pt(3.8, pairs=8, token_size=1024),
                         pt(2.0, pairs=4, token_size=8192))
    assert C.judge(claim(ro), size_matters)["verdict"] == C.REPRODUCED
    assert C.judge(claim(ro), count_matters)["verdict"] == C.NOT_REPRODUCED


def series(values, over="remote", **axes):
    return [pt(v, **{over: x}, **axes) for x, v in enumerate(values)]


def test_peak_converge_and_sublinear_shapes():
    peak = {"kind": "peak", "select": sel(), "over": "remote", "at": 1}
    assert C.judge(claim(peak), docs(*series([6.0, 7.2, 5.0, 4.0])))["verdict"] == C.REPRODUCED
    assert C.judge(claim(peak), docs(*series([11.8, 11.4, 7.8, 5.0])))["verdict"] == C.NOT_REPRODUCED
    conv = {"kind": "converge", "a": sel(topology="switched-mesh"), "b": sel(topology="routed-mesh"),
            "over": "remote", "from": 5, "tolerance": 0.1}
    good = series([0, 6, 6, 6, 6, 3, 3, 3], topology="switched-mesh") + \
        series([0, 4, 4, 4, 4, 3, 3, 3], topology="routed-mesh")
    assert C.judge(claim(conv), docs(*good))["verdict"] == C.REPRODUCED
    same = series([0, 4, 4, 4, 4, 3, 3, 3], topology="switched-mesh") + \
        series([0, 4, 4, 4, 4, 3, 3, 3], topology="routed-mesh")
    assert C.judge(claim(conv), docs(*same))["verdict"] == C.NOT_REPRODUCED
    sub = {"kind": "sublinear", "select": sel(), "over": "pairs"}
    grows_less = [pt(v, pairs=p) for p, v in ((1, 1.0), (2, 1.8), (4, 3.0), (8, 4.0))]
    linear = [pt(v, pairs=p) for p, v in ((1, 1.0), (2, 2.0), (4, 4.0), (8, 8.0))]
    assert C.judge(claim(sub), docs(*grows_less))["verdict"] == C.REPRODUCED
    assert C.judge(claim(sub), docs(*linear))["verdict"] == C.NOT_REPRODUCED


def test_all_wiring_and_tested():
    both = {"kind": "all", "checks": [RATIO, {"kind": "order", "items": [sel(topology="bonded-dual-net"),
                                                                         sel(topology="single-net")]}]}
    assert C.judge(claim(both), docs(pt(1.1), pt(1.9, topology="bonded-dual-net")))["verdict"] == C.REPRODUCED
    assert C.judge(claim(both), docs(pt(1.1), pt(1.0, topology="bonded-dual-net")))["verdict"] == \
        C.NOT_REPRODUCED
    wiring = {"kind": "wiring", "topology": "routed-mesh", "target": 6}
    assert C.judge(claim(wiring, experiments=()), {})["verdict"] == C.REPRODUCED
    assert C.judge(claim({"kind": "tested", "note": "a test"}, experiments=()), {})["verdict"] == C.NOT_CHECKABLE


def test_the_claims_file_is_valid_and_numbered_as_the_papers():
    assert json.loads(C.SCHEMA_FILE.read_text()) == C.SCHEMA
    claims = C.load_claims()
    assert [c["id"] for c in claims] == list(range(1, 25))
    for c in claims:
        assert c["why_tolerance"] and c["statement"]
        for name in c["experiments"]:
            assert name == "mache01-pvfs" or (C.ROOT / "experiments" / f"{name}.json").exists(), name
