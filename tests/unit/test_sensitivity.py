"""Sensitivity variants: data that names real experiments and settings, and a table that only reports."""
import json

import pytest

pytest.importorskip("jsonschema")

from judge import sensitivity  # noqa: E402
from judge.claims import load_claims  # noqa: E402
from run.experiment import experiment_files, load as load_experiment  # noqa: E402
from tests.unit.test_reproduction import STORED, build, load  # noqa: E402


def test_schema_file_is_the_schema_in_code():
    assert json.loads(sensitivity.SCHEMA_FILE.read_text()) == sensitivity.SCHEMA, \
        "claims/sensitivity.schema.json is stale: run python3 -m judge.sensitivity"


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
    """queue_packets (100 frames as built: no era source) is swept: the variant's networks give
    every card's transmit queue and every node's CPU backlog its value, and record it."""
    from netlab.hostcost import cpu_cmds
    from topologies.point import network_fields
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
    from topologies.spec import SpecError
    from topologies.presets import build_spec
    with pytest.raises(SpecError, match="--queue-packets takes 0"):
        build_spec("single-net", nodes=2, hardware="prototype-1995", queue_packets=1)
    assert build_spec("single-net", nodes=2, queue_packets=2).wires[0].queue_packets == 2
