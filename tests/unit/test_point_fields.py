"""A measured point's keys, declared once by what produces them (core.fields): every key a
point carries is declared, each once, and the lists made from the declarations (the keys
that tell repeats apart, the network's settings, the CSV, the schema) read the stored
documents as the hand-written lists did."""
import ast
import copy
import json
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")

from beowulf_netlab.core.fields import Field, by_name, schema_property  # noqa: E402
from beowulf_netlab.judge import claims
from beowulf_netlab.run import csvfile, derive, point, results  # noqa: E402
from beowulf_netlab.run.sweep import Sweep, network_fields  # noqa: E402
from beowulf_netlab.topologies.point import NETWORK_FIELDS  # noqa: E402
from beowulf_netlab.workloads import WORKLOADS  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DOCUMENTS = sorted([*FIXTURES.glob("v*-*.json"), *FIXTURES.glob("reproduction/*.json")])
# keys of version-1 documents that no point carries since (read as they are, never written)
LEGACY = {("filecopy", "pairs")}


def test_every_point_field_is_declared_once_per_workload():
    for name, wl in WORKLOADS.items():
        fields = point.point_fields(name)          # raises on a name declared twice
        assert len(fields) == len(point.COMMON_FIELDS) + len(point.workload_fields(name)), name
    with pytest.raises(ValueError, match="declared twice"):
        by_name(point.COMMON_FIELDS, (Field("repeat", "integer", "again"),))


def test_a_name_several_workloads_declare_means_one_thing():
    """RESULT_KEYS and the table read one role and unit per name, whatever the workload."""
    seen: dict[str, Field] = {}
    for f in point.all_fields():
        first = seen.setdefault(f.name, f)
        assert (f.role, f.unit, f.short) == (first.role, first.unit, first.short), f.name


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_key_of_a_stored_point_is_declared(path):
    doc = results.load(path)
    declared = point.point_fields(doc["workload"])
    for p in doc["points"]:
        extra = {k for k in p if k not in declared and (doc["workload"], k) not in LEGACY}
        assert not extra, f"{path.name}: point keys {sorted(extra)} are declared nowhere (core.fields)"


@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("topology", ["single-net", "routed-mesh"])
def test_every_key_a_sweep_puts_in_a_point_is_declared(workload, topology):
    """The settings part of a point (network, placement, the workload's axes) for every workload."""
    if workload == "pfs" and topology == "routed-mesh":
        pytest.skip("pfs runs on the switched cluster")
    topology = "switched-cluster" if workload == "pfs" else topology
    sweep = Sweep.make(workload, {"topology": [topology], "nodes": 4})
    declared = point.point_fields(workload)
    for spec, pts in sweep.schedule():
        assert set(network_fields(spec)) <= {f.name for f in NETWORK_FIELDS}
        for pt in pts:
            keys = {*network_fields(spec), "workload", *pt}
            assert keys <= set(declared), sorted(keys - set(declared))


def test_every_key_the_runner_writes_into_a_point_is_declared():
    """beowulf_netlab/run/runner.py's point literal and its point[...] = assignments, read from the source."""
    tree = ast.parse((Path(point.__file__).parent / "runner.py").read_text())
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "point" for t in node.targets) \
                and isinstance(node.value, ast.Dict):
            keys |= {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
        for t in getattr(node, "targets", []):
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "point" \
                    and isinstance(t.slice, ast.Constant):
                keys.add(t.slice.value)
    assert {"workload", "fidelity", "host", "medium", "gates"} <= keys
    assert keys <= {f.name for f in point.COMMON_FIELDS}, sorted(keys - {f.name for f in point.COMMON_FIELDS})


def test_every_key_a_figure_reads_is_declared():
    for name, wl in WORKLOADS.items():
        fig, declared = wl.figure, point.point_fields(name)
        keys = {fig.x, *fig.series, *fig.split_if_varying, *fig.context,
                *(m for m, _ in fig.metrics), *(m for m, _ in fig.table_extra), *(k for k, _ in fig.on_curve)}
        for level in fig.levels:
            keys |= {level.metric, *(k for k, _ in level.where), *([level.times] if level.times else [])}
        assert keys <= set(declared), (name, sorted(keys - set(declared)))
        assert {a.name for a in wl.axes} <= set(declared), name


def test_the_lists_are_made_from_the_declarations():
    identity = {f.name for f in point.all_fields() if f.identity}
    assert claims.RESULT_KEYS == {f.name for f in point.all_fields()} - identity
    assert "medium" in claims.RESULT_KEYS and "repeat" in claims.RESULT_KEYS
    assert derive.NETWORK_KEYS == ("topology", "rate_mbit", "channels", "nodes", "hardware", "contention",
                                   "time_scale", "tx_gap_us", "card_latency_us", "queue_packets")
    assert WORKLOADS["pfs"].rate_keys == ("throughput_mbyte_s", "write_mbyte_s", "read_mbyte_s")
    for name, wl in WORKLOADS.items():    # the columns and their order of the hand-written lists
        own = [c for k in wl.csv_columns for c in ((k, "measured_" + k) if k in wl.rate_keys else (k,))]
        assert csvfile.csv_columns(name) == [
            "point_index", "calibration_of", "topology", "rate_mbit", "channels", "nodes", "hardware",
            "contention", "time_scale", "tx_gap_us", "card_latency_us", "queue_packets", "placement", "repeat", *own,
            "throughput_mbyte_s", "measured_throughput_mbyte_s", "suspect", "host",
            "wire_impl", "kernel", "project_commit", "netlab_version"]
    assert WORKLOADS["token"].csv_columns == ("pairs", "token_size", "tokens_in_flight", "transport",
                                              "rtt_ms_median")
    assert results.COMMON_POINT["rate_mbit"] == schema_property(NETWORK_FIELDS[1]) == {
        "type": "number", "exclusiveMinimum": 0, "description": "wire rate in Mbit/s (10 = Ethernet, 100 = Fast "
        "Ethernet); unset: each topology's own (its file's: switched-cluster 1000)"}


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_identity_fields_group_the_repeats_of_a_stored_document(path):
    """Grouped by the declared identity fields, every point's repeats fall in one group:
    each group holds repeats 0, 1, ... once (a result key taken for a setting splits them)."""
    doc = results.load(path)
    pts = [p for p in doc["points"] if not p.get("calibration_of")]
    groups = claims._groups(pts)
    for group in groups.values():
        assert sorted(p["repeat"] for p in group) == list(range(len(group))), path.name
    repeats = doc["parameters"].get("repeats", 1)
    if repeats > 1 and "reproduction" in str(path):
        assert max(len(g) for g in groups.values()) == repeats
    # the same groups as keeping every key declared identity (undeclared keys count as identity)
    declared = point.point_fields(doc["workload"])
    by_identity: dict = {}
    for p in pts:
        key = tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in p.items()
                           if k not in declared or declared[k].identity))
        by_identity.setdefault(key, []).append(id(p))
    assert sorted(map(sorted, by_identity.values())) == sorted(sorted(map(id, g)) for g in groups.values())


def test_engine_repeats_are_one_point():
    """The medium engine's counters differ between repeats: before they were declared a result,
    every repeat of a point measured on the engine wire was a point of its own."""
    doc = results.load(FIXTURES / "v5-iperf-series.json")
    first = doc["points"][0]
    assert first["wire_impl"] == "engine" and "medium" in first
    again = copy.deepcopy(first)
    again.update(repeat=1, point_index=first["point_index"] + 1, throughput_mbyte_s=first["throughput_mbyte_s"] * 0.9)
    again["medium"]["late_arrivals"] = first["medium"]["late_arrivals"] + 7
    assert len(claims._groups([first, again])) == 1
