"""docs/extending.md's four recipes, each example run as far as a unit test can (load, validate,
plan; never measure): a topology file, a toy workload, a claim, a hardware profile."""
from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from beowulf_netlab.core.jsonfile import check_schema
from beowulf_netlab.judge import claims as C
from beowulf_netlab.run import point as P
from beowulf_netlab.run.results import SCHEMA as RESULTS_SCHEMA, load
from beowulf_netlab.run.sweep import Sweep
from beowulf_netlab.topologies import files
from beowulf_netlab.topologies import hardware as H
from beowulf_netlab.topologies.presets import build_spec
from beowulf_netlab.topologies.render import wiring_text
from beowulf_netlab.workloads import WORKLOADS

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLES = ROOT / "examples" / "extending"
DOC = ROOT / "docs" / "extending.md"


def test_the_page_names_every_example_and_every_example_is_on_the_page():
    text = DOC.read_text()
    for path in EXAMPLES.iterdir():
        if path.suffix in (".json", ".py"):
            assert f"examples/extending/{path.name}" in text, path.name


def test_recipe_1_a_topology_file():
    path = EXAMPLES / "quad-bonded.json"
    topo = files.load(path)
    spec = build_spec(str(path), channels=3)        # its own option, as `run --channels` takes it
    assert topo.defaults["channels"] == 4 and spec.params["channels"] == 3
    assert all(n.bonded and len(n.wires) == 3 for n in spec.nodes)
    assert "quad-bonded" in wiring_text(spec)


def _echo():
    spec = importlib.util.spec_from_file_location("echo_workload", EXAMPLES / "echo_workload.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.WORKLOAD


def test_recipe_2_a_toy_workload(monkeypatch):
    echo = _echo()
    monkeypatch.setitem(WORKLOADS, echo.name, echo)
    sweep = Sweep.make("echo", {"topology": ["single-net"], "nodes": 4, "echo_count": [3, 6]})
    sweep.check()
    points = [pt for _, pts in sweep.schedule() for pt in pts]
    assert [pt["echo_count"] for pt in points] == [3, 6]
    declared = P.point_fields("echo")       # its own fields beside every point's
    assert {"echo_count", "echo_bytes", "rtt_ms_median", "throughput_mbyte_s"} <= set(declared)
    assert declared["echo_bytes"].default == 56
    assert "echo" not in RESULTS_SCHEMA["properties"]["workload"]["enum"]   # registered for this test only


def test_recipe_3_a_claim():
    claim = json.loads((EXAMPLES / "claim.json").read_text())
    check_schema({"claims": [claim]}, C.SCHEMA, "examples/extending/claim.json")
    stored = ROOT / "tests" / "fixtures" / "reproduction"
    docs = {d["name"]: d for d in map(load, sorted(stored.glob("*.json")))}
    result = C.judge(claim, C.view(docs, C.TODAY))
    assert result["verdict"] in (C.REPRODUCED, C.NOT_REPRODUCED, C.IN_SHAPE, C.NOT_CHECKABLE), result


def test_recipe_4_a_hardware_profile(tmp_path, monkeypatch):
    for p in H.HARDWARE_DIR.glob("*.json"):
        shutil.copy(p, tmp_path / p.name)
    shutil.copy(EXAMPLES / "lab-pc-1998.json", tmp_path / "lab-pc-1998.json")
    monkeypatch.setattr(H, "HARDWARE_DIR", tmp_path)
    H.load.cache_clear()
    try:
        profile = H.load("lab-pc-1998")
        spec = build_spec("single-net", nodes=4, rate_mbit=100, hardware="lab-pc-1998")
        assert profile.host_cost.per_byte_ns == pytest.approx(40.0)
        assert spec.machine.hardware == "lab-pc-1998" and all(n.host_cost for n in spec.nodes)
    finally:
        H.load.cache_clear()
