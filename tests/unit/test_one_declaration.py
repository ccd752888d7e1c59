"""Issue 46, one declaration per setting, as a test: the AST scans that counted the drift before
(29 names declared both as an Axis and a Field, 55 `.get(<setting>, <literal>)` / `or <literal>`
restatements of a default, 12 hand lists of a setting group) find none now, and what the
declarations promise holds: every flag, experiment key and point field of a setting is made from
its one `Setting` (core.settings), and the loader hands readers every declared default."""
from __future__ import annotations

import ast
from pathlib import Path

from beowulf_netlab.core.fields import NO_DEFAULT
from beowulf_netlab.core.settings import Setting
from beowulf_netlab.run import point as P
from beowulf_netlab.run.results import load
from beowulf_netlab.run.sweep import NETWORK_AXES, SETTINGS
from beowulf_netlab.topologies import files
from beowulf_netlab.topologies.settings import SIZES
from beowulf_netlab.workloads import WORKLOADS

ROOT = Path(__file__).resolve().parent.parent.parent
PKG = ROOT / "beowulf_netlab"
PACKAGES = ("core", "topologies", "netlab", "workloads", "run", "judge", "commands")
FIXTURES = ROOT / "tests" / "fixtures"

# keys a setting shares its name with in another record, read there with that record's own
# default (not a point's nor a sweep's): (module, key) -> what the record is
OTHER_RECORDS = {
    ("beowulf_netlab/topologies/presets.py", "channels"): "a topology file's wires per node (beowulf_netlab/topologies/schema.json)",
    ("beowulf_netlab/netlab/manifest.py", "topology"): "a running network's manifest",
    ("beowulf_netlab/judge/report.py", "hardware"): "the paper's description of its machine (an experiment's paper block)",
    ("beowulf_netlab/judge/report.py", "repeats"): "a claim's result: how many repeats it read",
    ("beowulf_netlab/judge/repeats.py", "repeats"): "a claim's result: how many repeats it read",
    ("beowulf_netlab/topologies/files.py", "rate_mbit"): "a topology file's wire's own rate (else the file's)",
    ("beowulf_netlab/topologies/hardware.py", "queue_packets"): "a hardware profile's host_cost block (its dataclass default)",
    ("beowulf_netlab/netlab/manifest.py", "disks"): "a running network's manifest",
    ("beowulf_netlab/run/calibration.py", "today_disk"): "a disk workload without the setting (pfs) gets the filecopy default",
}
# names still declared both as a setting and as a point field of another meaning (not done yet)
TWO_MEANINGS_LEFT: dict[str, str] = {}


def trees():
    for pkg in PACKAGES:
        for path in sorted((PKG / pkg).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text())


def _calls(name: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for rel, tree in trees():
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name and n.args \
                    and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
                out.setdefault(n.args[0].value, []).append(f"{rel}:{n.lineno}")
    return out


def setting_names() -> set[str]:
    return {s.name for s in SETTINGS} | {s.name for w in WORKLOADS.values() for s in _settings_of(w)}


def _settings_of(wl) -> list[Setting]:
    import importlib
    mod = importlib.import_module(wl.run_point.__module__)
    return list(getattr(mod, "SETTINGS", ()))


def test_no_axis_is_declared_by_hand():
    """Every Axis is made from a Setting: no Axis("name", ...) call is left."""
    assert _calls("Axis") == {}


def test_no_setting_is_also_declared_as_a_field():
    fields, settings = _calls("Field"), _calls("Setting")
    both = {n: (settings[n], fields[n]) for n in set(fields) & set(settings) if n not in TWO_MEANINGS_LEFT}
    assert not both, f"declared as a Setting and again as a Field: {both}"


def test_every_axis_is_a_settings():
    assert list(NETWORK_AXES) == [s.axis for s in SETTINGS]
    for wl in WORKLOADS.values():
        assert list(wl.axes) == [s.axis for s in _settings_of(wl)], wl.name


def _restatements(names: set[str]) -> list[str]:
    """`.get("<name>", <default>)` (a literal or a constant's name), `.get("<name>") or <literal>`
    and `{"<name>": <literal>, **x}` (a value the spread may override: a default) on a declared name."""
    def literal(x) -> bool:
        return isinstance(x, ast.Constant) and x.value is not None or isinstance(x, ast.UnaryOp)

    def given(x) -> bool:   # .get's default: any but None (a constant's name restates it as well)
        return not (isinstance(x, ast.Constant) and x.value is None)
    found = []
    for rel, tree in trees():
        for n in ast.walk(tree):
            hits = []
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("get", "setdefault") \
                    and len(n.args) == 2 and isinstance(n.args[0], ast.Constant) and given(n.args[1]):
                hits.append(n.args[0].value)
            if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or) and len(n.values) == 2:
                a, b = n.values
                if isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr == "get" \
                        and len(a.args) == 1 and isinstance(a.args[0], ast.Constant) and literal(b):
                    hits.append(a.args[0].value)
            if isinstance(n, ast.Dict):
                spread = [i for i, k in enumerate(n.keys) if k is None]
                for i, (k, v) in enumerate(zip(n.keys, n.values)):
                    if isinstance(k, ast.Constant) and literal(v) and any(j > i for j in spread):
                        hits.append(k.value)
            found += [f"{rel}:{n.lineno} {h}" for h in hits
                      if h in names and (rel, h) not in OTHER_RECORDS]
    return found


def test_no_reader_restates_a_default():
    """Settings, and every point field with a declared default or always present, are read as
    declared: the loader (run.point.filled) gives every reader the default."""
    names = setting_names() | {f.name for f in P.all_fields() if f.default is not NO_DEFAULT or f.required}
    found = _restatements(names)
    assert not found, "defaults restated by readers:\n" + "\n".join(found)


def test_no_hand_list_of_a_setting_group():
    names = setting_names()
    lists = [f"{rel}:{n.lineno}" for rel, tree in trees() for n in ast.walk(tree)
             if isinstance(n, (ast.Tuple, ast.List, ast.Set)) and len(n.elts) >= 3
             and all(isinstance(e, ast.Constant) and e.value in names for e in n.elts)]
    assert not lists, f"hand lists of settings (use core.settings.in_group): {lists}"


def test_the_topology_files_options_are_the_size_group():
    assert set(SIZES) == set(files.OPTIONS)


def test_the_loader_fills_every_declared_default():
    for path in sorted(FIXTURES.glob("v*-*.json")):
        doc = load(path)
        declared = P.point_fields(doc["workload"])
        for p in doc["points"]:
            missing = [k for k, f in declared.items() if f.default is not NO_DEFAULT and k not in p]
            assert not missing, (path.name, missing)
            assert p["time_scale"] == 1 and p["tx_gap_us"] == 0 and p["queue_packets"] == 0


def test_one_description_of_pairs():
    """Three descriptions of `pairs` drifted apart; one declaration gives one."""
    described = {f.description for w in WORKLOADS for f in P.workload_fields(w) if f.name == "pairs"}
    assert len(described) == 1


def test_results_readme_is_made_from_the_declarations():
    """beowulf_netlab/results/README.md is what run.readme makes now (python3 -m beowulf_netlab.run.readme writes it)."""
    from beowulf_netlab.run.readme import README_FILE, readme
    assert README_FILE.read_text() == readme(), "beowulf_netlab/results/README.md is stale: python3 -m beowulf_netlab.run.readme"


def test_one_name_one_quantity_on_a_time_scaled_point():
    """The stored MACHE01 run (D = 50): the JSON's throughput_mbyte_s is the real network's, as the
    CSV's column of the same name, and the slowed figure is the measured twin."""
    import gzip
    import json
    from beowulf_netlab.run.csvfile import csv_columns
    from beowulf_netlab.run.results import load_data
    data = gzip.decompress((FIXTURES / "repeats-run" / "results" / "mache01-pvfs.json.gz").read_bytes())
    raw = json.loads(data)
    doc = load_data(data, "mache01")
    for old, new in zip(raw["points"], doc["points"]):
        d = new["time_scale"]
        assert d == 50 and "scaled" not in new
        assert new["throughput_mbyte_s"] == old["scaled"]["throughput_mbyte_s"] == old["throughput_mbyte_s"] * d
        assert new["measured_throughput_mbyte_s"] == old["throughput_mbyte_s"]
    assert {"throughput_mbyte_s", "measured_throughput_mbyte_s"} <= set(csv_columns("pfs"))


def test_rooms_ask_rather_than_know():
    """Ethernet's arithmetic is topologies.ethernet's: the judge, the workloads and the run never
    import netlab's tc command builder for it; the judge parses no network's naming."""
    for rel, tree in trees():
        if rel.split("/")[1] not in ("judge", "workloads", "run"):
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module == "beowulf_netlab.netlab.shaping":
                raise AssertionError(f"{rel}:{n.lineno} imports netlab.shaping")
            if rel.startswith("beowulf_netlab/judge/") and isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and n.func.attr == "startswith" and n.args and isinstance(n.args[0], ast.Constant) \
                    and n.args[0].value == "bnl":
                raise AssertionError(f"{rel}:{n.lineno} parses netlab's naming (bnl...)")


def test_records_are_declared_beside_what_produces_them():
    """fidelity beside the monitor's report, tcp beside what reads the nodes' TCP (and the
    profile's tcp block it reads back), the environment beside environment(): each key the
    producer writes is a property of its declaration."""
    from beowulf_netlab.netlab.tcpstat import TCP_COUNTERS, TCP_RECORD
    from beowulf_netlab.run.environment import ENVIRONMENT_FIELDS
    from beowulf_netlab.run.monitor import FIDELITY
    from beowulf_netlab.topologies.hardware import TCP_KEYS
    tree = ast.parse((PKG / "run" / "monitor.py").read_text())
    report = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "report")
    keys = {k.value for n in ast.walk(report) if isinstance(n, ast.Dict) for k in n.keys
            if isinstance(k, ast.Constant)}
    assert keys and keys <= set(FIDELITY.schema["properties"]), keys - set(FIDELITY.schema["properties"])
    assert {*TCP_KEYS, *TCP_COUNTERS.values()} == set(TCP_RECORD.schema["properties"])
    tree = ast.parse((PKG / "run" / "environment.py").read_text())
    env = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "environment")
    written = {k.value for n in ast.walk(env) if isinstance(n, ast.Return) and isinstance(n.value, ast.Dict)
               for k in n.value.keys if isinstance(k, ast.Constant)}
    assert written <= {f.name for f in ENVIRONMENT_FIELDS}, written - {f.name for f in ENVIRONMENT_FIELDS}

    from beowulf_netlab.netlab.record import NETWORK_RECORD
    tree = ast.parse((PKG / "netlab" / "testbed.py").read_text())
    env = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "environment")
    written = {k.value for n in ast.walk(env) if isinstance(n, ast.Return) and isinstance(n.value, ast.Dict)
               for k in n.value.keys if isinstance(k, ast.Constant)} - {"capabilities"}   # the document's, once
    assert written <= {f.name for f in NETWORK_RECORD}, written - {f.name for f in NETWORK_RECORD}


def test_no_name_has_two_meanings_in_a_stored_document():
    """Read through the loader, no network record of a stored document keeps the controller's
    record under `contention` (the setting's name) and no point's disk is an object."""
    from tests.unit.test_stored_values import stored_documents
    from beowulf_netlab.run.results import load_data
    for name, data in stored_documents().items():
        doc = load_data(data, name)
        for net in doc["environment"]["topologies"].values():
            assert "contention" not in net, name
        assert all(not isinstance(p.get("disk"), dict) for p in doc["points"]), name


def test_the_runner_records_a_point_through_the_declarations():
    """run.point.recorded: each MB/s result real under its name, as carried under its twin, every
    declared default filled; the runner calls it on every point it measures."""
    pt = {"workload": "pfs", "repeat": 0, "throughput_mbyte_s": 2.0, "read_mbyte_s": 1.5, "elapsed_s": 3.0}
    slow = P.recorded(pt, "pfs", 50.0)
    assert (slow["throughput_mbyte_s"], slow["measured_throughput_mbyte_s"]) == (100.0, 2.0)
    assert (slow["read_mbyte_s"], slow["measured_read_mbyte_s"]) == (75.0, 1.5) and slow["elapsed_s"] == 3.0
    real = P.recorded(pt, "pfs", 1.0)
    assert real["throughput_mbyte_s"] == real["measured_throughput_mbyte_s"] == 2.0
    assert real["tx_gap_us"] == 0 and real["queue_packets"] == 0 and real["contention"] == "off"
    assert "recorded(" in (PKG / "run" / "runner.py").read_text()
