"""Sensitivity variants: data that names real experiments and settings, and a table that only reports."""
import json

import pytest

pytest.importorskip("jsonschema")

from beowulf_netlab.judge import sensitivity  # noqa: E402
from beowulf_netlab.judge.claims import load_claims  # noqa: E402
from beowulf_netlab.run.experiment import experiment_files, load as load_experiment  # noqa: E402
from tests.unit.test_reproduction import STORED, build, load  # noqa: E402


def test_schema_file_is_the_schema_in_code():
    assert json.loads(sensitivity.SCHEMA_FILE.read_text()) == sensitivity.SCHEMA, \
        "beowulf_netlab/claims/sensitivity.schema.json is stale: run python3 -m beowulf_netlab.judge.sensitivity"


@pytest.mark.parametrize("quick", [False, True])
def test_every_variant_changes_a_setting_of_an_experiment_the_claims_read(quick):
    claims = load_claims()
    for v in sensitivity.load_variants():
        assert any(v["experiment"] in c["experiments"] for c in claims), v["id"]
        sweep = sensitivity.variant_sweep(v, quick)[0]
        plain = load_experiment(experiment_files()[v["experiment"]], quick=quick)[0]
        for key, value in v["set"].items():
            assert sweep[key] == value, (v["id"], key)
        assert any(plain[k] != sweep[k] for k in v["set"]), f"{v['id']} changes nothing"
        assert sweep.total_points() > 0


@pytest.mark.skipif(not STORED, reason="no stored reproduction documents")
def test_the_table_reports_moves_and_the_verdicts_stay_the_runs(tmp_path):
    docs = {load(p)["name"]: load(p) for p in STORED}
    claims = load_claims()
    # a variant whose document is the experiment's own moves nothing (a file-copy one: the stored
    # token documents predate the host-cost calibrations, so their claims are not checkable already)
    v = next(v for v in sensitivity.load_variants() if v["experiment"] == "hpdc96-fig4-disknet")
    rows = sensitivity.rows(claims, docs, {v["id"]: docs[v["experiment"]]})
    assert rows and all(not r["moved"] for r in rows)
    assert {r["claim"] for r in rows} == {c["id"] for c in claims if v["experiment"] in c["experiments"]}
    # an empty variant document makes its claims not checkable there, and the report says so
    empty = {**docs[v["experiment"]], "points": []}
    page = build(docs, tmp_path, quick=True, sensitivity={v["id"]: empty})
    md = (tmp_path / "report.md").read_text()
    section = md.split("## Sensitivity")[1].split("## Era validation")[0]
    assert v["id"] in section and "**not checkable**" in section and 'id="sensitivity"' in page.read_text()
    # the claims' own verdicts are the run's, whatever the variants read
    plain = tmp_path / "plain"
    build(docs, plain, quick=True)
    assert json.loads((plain / "claims.json").read_text()) == json.loads((tmp_path / "claims.json").read_text())


def test_the_queue_variants_set_every_queue_a_packet_waits_in():
    """queue_packets (as built: the profile's kernel's queues) is swept: the variant's networks give
    every card's transmit queue and every node's CPU backlog its value, and record it."""
    from beowulf_netlab.netlab.hostcost import cpu_cmds
    from beowulf_netlab.topologies.point import network_fields
    for v in (v for v in sensitivity.load_variants() if v["id"].startswith("queues-")):
        sweep = sensitivity.variant_sweep(v, True)[0]
        for spec in sweep.specs():
            q = v["set"]["queue_packets"]
            assert {w.queue_packets for w in spec.wires} == {q}
            assert network_fields(spec)["queue_packets"] == q
            cost = spec.nodes[0].host_cost
            argv = [" ".join(c) for c in cpu_cmds(["b0-eth0"], cost, False)]
            assert cost.queue_packets == q and any(f"pfifo limit {q}" in a for a in argv), argv


def test_a_queue_of_one_frame_is_refused_before_anything_runs():
    from beowulf_netlab.topologies.spec import SpecError
    from beowulf_netlab.topologies.presets import build_spec
    with pytest.raises(SpecError, match="--queue-packets takes 0"):
        build_spec("single-net", nodes=2, hardware="prototype-1995", queue_packets=1)
    assert build_spec("single-net", nodes=2, queue_packets=2).wires[0].queue_packets == 2


def test_every_ranged_constant_runs_at_both_ends_of_every_experiment_on_its_profile():
    """A profile's range is declared once (beowulf_netlab/hardware/*.json) and its ends are derived: each
    single-profile experiment the claims read gets a low and a high variant that set the
    constant's setting to the profile's ends, and nothing else."""
    from beowulf_netlab.topologies.hardware import load as load_profile, ranged_constants
    claims = load_claims()
    names = sorted({n for c in claims for n in c["experiments"]})
    variants = sensitivity.range_variants_of(names)
    assert variants, "no ranged constant reaches a claim's experiment"
    for v in variants:
        r = v["range"]
        value, low, high = ranged_constants(load_profile(r["profile"]).data)[r["constant"]]
        assert low <= value <= high and r["value"] == {"low": low, "high": high}[r["end"]]
        assert v["set"] == {sensitivity.RANGE_AXES[r["constant"]]: r["value"]}
        sweep = sensitivity.variant_sweep(v, True)[0]
        assert sweep[sensitivity.RANGE_AXES[r["constant"]]] == r["value"] and sweep["hardware"] == [r["profile"]]
    by_experiment = {}
    for v in variants:
        by_experiment.setdefault(v["experiment"], set()).add(v["range"]["end"])
    assert all(ends == {"low", "high"} for ends in by_experiment.values())
    # an experiment on two profiles (era across rates) cannot move both ranges with one setting
    assert "ipps96-fig6-balance" not in by_experiment


def test_a_ranged_constant_outside_its_range_or_without_a_setting_is_refused(monkeypatch, tmp_path):
    from beowulf_netlab.core.errors import BadInput
    from beowulf_netlab.topologies import hardware
    data = json.loads((hardware.HARDWARE_DIR / "prototype-1995.json").read_text())
    data["card"]["tx_gap_us"]["value"] = 91
    with pytest.raises(BadInput, match="outside its range"):
        hardware._validate(data, hardware.HARDWARE_DIR / "prototype-1995.json")
    monkeypatch.setattr(sensitivity, "RANGE_AXES", {})
    with pytest.raises(BadInput, match="no setting runs it"):
        sensitivity.range_variants({"ipps96-fig2-channels-10": ["prototype-1995"]})


def test_a_verdict_that_moves_inside_a_range_is_undetermined_and_one_that_holds_is_decided(monkeypatch):
    """decided() judges each (profile constant, end) with that end's documents in place of the
    run's: here the judge reads a document's 'gap' and passes only below 60 us."""
    claims = [{"id": 1, "experiments": ["a"]}, {"id": 2, "experiments": ["b"]},
              {"id": 3, "experiments": ["c"]}]

    def judge_all(cs, docs, view):
        return [{"id": c["id"], "verdict": "reproduced" if docs[c["experiments"][0]]["gap"] < 60
                 or c["id"] == 2 else "not reproduced"} for c in cs]
    monkeypatch.setattr(sensitivity, "judge_all", judge_all)
    docs = {"a": {"gap": 55}, "b": {"gap": 55}, "c": {"gap": 55}}
    variants = [{"id": f"{e}-{x}", "experiment": x, "range": {"profile": "p", "constant": "card.tx_gap_us",
                                                               "end": e, "value": g}}
                for x in ("a", "b") for e, g in (("low", 40), ("high", 70))]
    varied = {f"{e}-{x}": {"gap": g} for x in ("a", "b") for e, g in (("low", 40), ("high", 70))}
    states = sensitivity.decided(claims, docs, varied, variants)
    assert states[1]["state"] == sensitivity.UNDETERMINED and states[1]["constant"] == "p card.tx_gap_us"
    assert "70 -> not reproduced" in states[1]["text"]
    assert states[2]["state"] == sensitivity.DECIDED
    assert 3 not in states                         # no ranged constant reaches it
    out = sensitivity.apply_decided(judge_all(claims, docs, None), states)
    assert [r["verdict"] for r in out] == [sensitivity.UNDETERMINED, "reproduced", "reproduced"]
    assert out[0]["as_run"] == "reproduced"
    # an end that did not run leaves the claim open, never decided
    del varied["high-b"]
    assert sensitivity.decided(claims, docs, varied, variants)[2]["state"] == sensitivity.NOT_RUN


def test_a_full_run_compares_the_ends_with_each_other_not_with_its_other_sweep(monkeypatch):
    """In a full run the ends ran on the quick sweep, the run on its own: only the ends'
    verdicts are compared (the run's may differ by its sweep alone)."""
    claims = [{"id": 1, "experiments": ["a"]}]
    monkeypatch.setattr(sensitivity, "judge_all", lambda cs, docs, view: [
        {"id": 1, "verdict": docs["a"]["says"]}])
    variants = [{"id": e, "experiment": "a", "range": {"profile": "p", "constant": "card.latency_us",
                                                       "end": e, "value": v}} for e, v in (("low", 0), ("high", 355))]
    same = {"low": {"says": "not reproduced"}, "high": {"says": "not reproduced"}}
    run = {"a": {"says": "reproduced"}}
    assert sensitivity.decided(claims, run, same, variants, quick=False)[1]["state"] == sensitivity.DECIDED
    assert sensitivity.decided(claims, run, same, variants, quick=True)[1]["state"] == sensitivity.UNDETERMINED
    split = {"low": {"says": "reproduced"}, "high": {"says": "not reproduced"}}
    st = sensitivity.decided(claims, run, split, variants, quick=False)[1]
    assert st["state"] == sensitivity.UNDETERMINED and "0 -> reproduced, 355 -> not reproduced" in st["text"]


def test_an_end_that_is_not_checkable_moves_nothing_and_leaves_the_claim_open(monkeypatch):
    """A gate failure or noise at one end says nothing about the range: the claim is neither
    decided nor undetermined by it; a calibration point is not judged at all."""
    claims = [{"id": 1, "experiments": ["a"]}, {"id": 7, "experiments": ["a"]}]
    monkeypatch.setattr(sensitivity, "judge_all", lambda cs, docs, view: [
        {"id": c["id"], "verdict": "calibration point" if c["id"] == 7 else docs["a"]["says"]} for c in cs])
    variants = [{"id": e, "experiment": "a", "range": {"profile": "p", "constant": "card.tx_gap_us",
                                                       "end": e, "value": v}} for e, v in (("low", 40), ("high", 70))]
    run = {"a": {"says": "reproduced"}}
    ends = {"low": {"says": "not checkable"}, "high": {"says": "reproduced"}}
    st = sensitivity.decided(claims, run, ends, variants, quick=True)
    assert st[1]["state"] == sensitivity.OPEN and 7 not in st
    # forced by construction passes as reproduced does: no move
    ends = {"low": {"says": "forced by construction"}, "high": {"says": "reproduced"}}
    assert sensitivity.decided(claims, run, ends, variants, quick=True)[1]["state"] == sensitivity.DECIDED


def test_the_other_experiments_are_cut_to_the_ends_repeats():
    """A claim reading two experiments, one replaced by an end run twice: the other's third
    repeat would make its repeats look noisy."""
    docs = {"a": {"points": [{"repeat": r} for r in range(3)]}, "b": {"points": [{"repeat": r} for r in range(3)]}}
    out = sensitivity._with_ends(docs, {"b": {"points": [{"repeat": 0}, {"repeat": 1}]}})
    assert [p["repeat"] for p in out["a"]["points"]] == [0, 1] and len(out["b"]["points"]) == 2
