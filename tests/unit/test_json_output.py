"""--json on the commands that print results (issue 44 item 4e): one JSON document on stdout and
nothing else there, with its version key and the keys docs/json.md lists."""
import copy
import json
import os
import shutil
from pathlib import Path

import pytest

from beowulf_netlab import commands

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
DOCS = (ROOT / "docs" / "json.md").read_text()


def _json(argv, capsys) -> dict:
    assert commands.main(argv) == 0
    out = capsys.readouterr().out
    data = json.loads(out)           # the whole of stdout is the one document
    version = next(k for k in data if k.endswith("_version"))
    assert data[version] == 1 and f"`{version}`" in DOCS, version
    return data


def test_topo_show(capsys):
    data = _json(["topo", "show", str(ROOT / "examples" / "topologies" / "two-hubs-gateway.json"), "--json"], capsys)
    assert set(data) == {"topo_version", "topology", "rate_mbit", "grid", "notes", "wires", "switches", "nodes"}
    assert [(w["name"], w["nodes"]) for w in data["wires"]] == [("h1", ["a0", "a1", "a2", "gw"]),
                                                                ("h2", ["gw", "b0", "b1", "b2"])]
    gw = next(n for n in data["nodes"] if n["name"] == "gw")
    assert gw == {"name": "gw", "address": "10.0.0.4", "wires": ["h1", "h2"], "bonded": False, "forwarding": True}


def test_inspect_reads_the_run_records(tmp_path, monkeypatch, capsys):
    import beowulf_netlab.netlab.running as running
    monkeypatch.setattr(running, "STATE_DIR", tmp_path)
    monkeypatch.setattr(running.runs, "__defaults__", (tmp_path,))
    assert _json(["inspect", "--json"], capsys) == {"inspect_version": 1, "runs": []}


def test_report_prints_its_headline(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    for f in (FIXTURES / "reproduction").glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    data = _json(["report", *map(str, sorted(tmp_path.glob("*.json"))), "--out", str(tmp_path / "r"), "--json"],
                 capsys)
    assert set(data) == {"headline_version", "title", "run", "when", "elapsed", "views", "calibrations_not_met",
                         "report", "markdown"}
    assert data["report"] == str(tmp_path / "r" / "report.html") and data["run"] == "quick"
    today = next(v for v in data["views"] if v["view"] == "none")
    assert set(today["counts"]) == {"reproduced", "not reproduced", "not checkable"}
    # the same numbers the text headline prints
    md = (tmp_path / "r" / "report.md").read_text()
    assert f"{today['counts']['reproduced']} reproduced, {today['counts']['not reproduced']} not reproduced" in md
    assert json.loads((tmp_path / "r" / "headline.json").read_text())["views"] == data["views"]


def test_merge_of_shards(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    whole = json.loads((FIXTURES / "reproduction" / "hpdc96-fig5-demand.json").read_text())
    paths = []
    for i in (1, 2):
        part = copy.deepcopy(whole)
        part["shard"] = f"{i}/2"
        part["points"] = [p for p in whole["points"] if p.get("calibration_of") and i == 1
                          or not p.get("calibration_of") and p["point_index"] % 2 == i - 1]
        paths.append(tmp_path / f"s{i}.json")
        paths[-1].write_text(json.dumps(part))
    data = _json(["merge", *map(str, paths), "--out", str(tmp_path / "m.json"), "--json"], capsys)
    assert data["results"] == str(tmp_path / "m.json") and data["shards"] == 2
    assert data["points"] == len(whole["points"]) and data["complete"] is True


def test_exercise_grade(tmp_path, monkeypatch, capsys):
    import beowulf_netlab.commands.exercise as verb
    from examples import synthetic_class
    made = synthetic_class.make(tmp_path / "c", all_checked=True)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(verb, "measure", lambda *a: pytest.fail("measured with every own check present"))
    data = _json(["exercise", "grade", "shared-hub", str(made["class"]), "--codes", str(made["codes"]), "--json"],
                 capsys)
    assert data["exercise"] == "shared-hub" and data["csv"] == str(made["class"] / "grades.csv")
    assert [q["id"] for q in data["questions"]] == [q for q in data["students"][0]["answers"]]
    assert {"passed", "total", "wrong", "blank", "unreadable", "not_judged", "common_wrong"} <= set(data["questions"][0])
    assert len(data["students"]) >= 30 and all({"file", "student", "score", "problem"} <= set(s) for s in data["students"])
