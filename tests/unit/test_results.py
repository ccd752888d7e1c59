"""The results document: schema (file and code agree), readers against stored
documents of every version, upgrade, refusal of newer ones, CSV, table, plot."""
import copy
import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")

from beowulf_netlab.core.errors import BadInput  # noqa: E402
from beowulf_netlab.run import csvfile, results, upgrade  # noqa: E402
from beowulf_netlab.judge.plot import plot  # noqa: E402
from beowulf_netlab.judge.table import table
from beowulf_netlab.run.results import load, new_document, validate  # noqa: E402
from beowulf_netlab.run.store import write_atomic  # noqa: E402
from beowulf_netlab.run.csvfile import write_csv  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
STORED = sorted(FIXTURES.glob("v*-*.json"))


def test_schema_file_is_the_schema_in_code():
    assert json.loads(results.SCHEMA_FILE.read_text()) == results.SCHEMA, \
        "beowulf_netlab/results/schema.json is stale: run python3 -m beowulf_netlab.run.results"


def described(node, path="$"):
    """Every property in the schema has a description."""
    missing = []
    if isinstance(node, dict):
        for key, sub in node.get("properties", {}).items():
            if "description" not in sub:
                missing.append(f"{path}.{key}")
            missing += described(sub, f"{path}.{key}")
        if "items" in node:
            missing += described(node["items"], f"{path}[]")
    return missing


def test_every_key_is_described():
    missing = described({"properties": results.SCHEMA["properties"]})
    for workload, props in results.WORKLOAD_POINT.items():
        missing += described({"properties": props}, f"$.points[{workload}]")
    assert missing == []


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.name)
def test_stored_documents_read_upgrade_and_redraw(path, tmp_path):
    pytest.importorskip("matplotlib")
    doc = load(path)
    assert doc["schema_version"] == results.SCHEMA_VERSION
    assert doc["points"], path
    text = table(doc)
    assert doc["points"][0]["topology"] in text
    pngs = plot(doc, str(tmp_path / "p.png"))
    assert all(Path(p).stat().st_size > 5000 for p in pngs)
    write_csv(doc, tmp_path / "p.csv")
    rows = list(csv.DictReader(open(tmp_path / "p.csv")))
    assert len(rows) == len(doc["points"])
    for column in csvfile.csv_columns(doc["workload"]):
        assert column in rows[0]


def test_v1_parameters_get_their_one_names():
    doc = load(FIXTURES / "v1-token.json")
    assert "token_size" in doc["parameters"] and "token_sizes" not in doc["parameters"]
    assert "topology" in doc["parameters"] and "rate_mbit" in doc["parameters"]


def test_round_trip_is_exact(tmp_path):
    doc = load(FIXTURES / "v1-filecopy.json")
    write_atomic(doc, tmp_path / "r.json")
    assert load(tmp_path / "r.json") == doc


def test_newer_versions_are_refused(tmp_path):
    doc = json.loads((FIXTURES / "v1-token.json").read_text())
    doc["schema_version"] = results.SCHEMA_VERSION + 1
    (tmp_path / "new.json").write_text(json.dumps(doc))
    with pytest.raises(BadInput, match="newer than this tool"):
        load(tmp_path / "new.json")


@pytest.mark.parametrize("fixture, mutate, where", [
    ("v1-token.json", lambda d: d["points"][0].pop("throughput_mbyte_s"), "points.0"),
    ("v1-token.json", lambda d: d["points"][0].pop("token_size"), "points.0"),
    ("v1-filecopy.json", lambda d: d["points"][0].pop("file_size"), "points.0"),
    ("v1-filecopy.json", lambda d: d["points"][1].pop("remote"), "points.1"),
    ("v1-iperf.json", lambda d: d["points"][0].__setitem__("pairs", "four"), "points.0.pairs"),
    ("v1-token.json", lambda d: d.__setitem__("workload", "bogus"), "workload"),
    ("v1-token.json", lambda d: d.pop("environment"), "top level"),
])
def test_schema_requires_what_readers_use(fixture, mutate, where):
    doc = upgrade.upgrade(json.loads((FIXTURES / fixture).read_text()), "x")
    mutate(doc)
    with pytest.raises(BadInput, match=where.replace(".", r"\.")):
        validate(doc)


def test_new_document_validates_and_csv_tells_filecopy_points_apart(tmp_path):
    doc = new_document("filecopy", {"file_size": [1 << 20]})
    validate(doc)
    stored = load(FIXTURES / "v1-filecopy.json")
    doc["points"] = copy.deepcopy(stored["points"])
    write_csv(doc, tmp_path / "fc.csv")
    rows = list(csv.DictReader(open(tmp_path / "fc.csv")))
    assert {(r["remote"], r["file_size"], r["copies"]) for r in rows} == \
        {(str(p["remote"]), str(p["file_size"]), str(p["copies"])) for p in doc["points"]}
    assert len({(r["remote"], r["file_size"]) for r in rows}) == len(rows)


def test_v2_documents_read_as_hardware_none_without_contention():
    """A stored v2 document (tests/fixtures/v2-token.json, a real quick reproduction's) gains
    hardware/contention (v3), an unrecorded TCP (v4), the collisions default then, off (v5) and its
    MB/s results' measured twins (v6), on read."""
    stored = FIXTURES / "v2-token.json"
    raw = json.loads(stored.read_text())
    assert raw["schema_version"] == 2 and "hardware" not in raw["points"][0]
    doc = load(stored)
    assert doc["schema_version"] == results.SCHEMA_VERSION == 6
    assert all(p["measured_throughput_mbyte_s"] == p["throughput_mbyte_s"] for p in doc["points"])   # real time
    assert all(p["hardware"] == "none" and p["contention"] == "off" for p in doc["points"])
    assert all(p["tcp"] is None and p["contention_default"] == "off" for p in doc["points"])


def test_a_write_with_a_new_point_checks_that_point_and_the_last_write_checks_all(tmp_path):
    doc = load(FIXTURES / "v1-token.json")
    bad = copy.deepcopy(doc["points"][0])
    bad.pop("throughput_mbyte_s")
    with pytest.raises(BadInput, match=r"points\.0"):
        write_atomic({**doc, "points": [*doc["points"], bad]}, tmp_path / "r.json", new_point=bad)
    # a network's record is checked once, by the last write (not at every point)
    broken = copy.deepcopy(doc)
    broken["environment"]["topologies"]["single-net@10"] = {"applied_commands": {"w0": [{"rc": 0}]}}
    write_atomic(broken, tmp_path / "r.json", new_point=broken["points"][-1])
    with pytest.raises(BadInput, match="topologies"):
        write_atomic(broken, tmp_path / "r.json")


def test_a_hand_edited_gate_verdict_does_not_survive_reading(tmp_path):
    """Gates are evaluated again from a point's stored measurements whenever a document is read:
    a results file edited to call a failed point good, or a good one failed, reads as its
    measurements say (issue 31)."""
    src = FIXTURES / "reproduction" / "hpdc96-fig3-topologies.json"
    doc = json.loads(src.read_text())
    bad, good = doc["points"][0], doc["points"][1]
    bad["fidelity"]["emulator_thread_busy"] = {"ovs-vswitchd/7": 0.99}               # measured
    bad["fidelity"]["suspect"] = None            # an edited verdict: derived again from the figures
    bad["gates"] = {"ok": True, "failed": [], "span_over_longest": None}              # hand-edited
    good["gates"] = {"ok": False, "failed": ["made up"], "span_over_longest": None}
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc))
    read = {p["point_index"]: p for p in load(edited)["points"]}
    assert read[bad["point_index"]]["gates"]["ok"] is False
    assert "ovs-vswitchd/7 was 99% busy" in read[bad["point_index"]]["gates"]["failed"][0]
    assert read[good["point_index"]]["gates"]["ok"] is True


def test_deleting_a_points_gates_does_not_make_it_trusted(tmp_path):
    src = FIXTURES / "reproduction" / "hpdc96-fig3-topologies.json"
    doc = json.loads(src.read_text())
    doc["points"][0]["fidelity"]["emulator_thread_busy"] = {"ovs-vswitchd/7": 0.99}
    del doc["points"][0]["gates"]
    (tmp_path / "d.json").write_text(json.dumps(doc))
    assert load(tmp_path / "d.json")["points"][0]["gates"]["ok"] is False


def test_a_measurement_of_the_wrong_kind_is_one_bad_input(tmp_path):
    src = FIXTURES / "reproduction" / "hpdc96-fig3-topologies.json"
    for mutate in (lambda p: p.update(workload="x"), lambda p: p.update(scaled={"throughput_mbyte_s": "x"}),
                   lambda p: p["fidelity"].update(core_busy_mean=["x"])):
        doc = json.loads(src.read_text())
        mutate(doc["points"][0])
        (tmp_path / "m.json").write_text(json.dumps(doc))
        try:
            load(tmp_path / "m.json")
        except BadInput:
            pass


def test_a_document_in_memory_may_hold_tuples_where_its_file_holds_arrays():
    """The runner records a flow's path as tuples; the typed schema must take them as arrays
    (a campaign's shards failed to write before this)."""
    doc = load(FIXTURES / "reproduction" / "hpdc96-fig3-topologies.json")
    p = next(p for p in doc["points"] if p.get("flows"))
    p["flows"][0]["path"] = tuple(tuple(seg) for seg in p["flows"][0]["path"])
    validate(doc)
    p["flows"][0]["path"] = 5
    with pytest.raises(BadInput, match="path"):
        validate(doc)
