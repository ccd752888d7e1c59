"""Tables and figures of one results document, as the workloads declare them
(judge.table, judge.plot), and the main job's reading of a run."""
import json
from pathlib import Path

import pytest

from beowulf_netlab.commands.quick import paper_lines
from beowulf_netlab.run.point import filled
from beowulf_netlab.judge.plot import runs
from beowulf_netlab.run.results import load
from beowulf_netlab.judge.table import config_key, limit, readings, series, table

ROOT = Path(__file__).resolve().parent.parent.parent
STORED = ROOT / "tests" / "fixtures" / "reproduction"


def test_lines_join_only_measured_neighbours():
    assert runs([0, 1, 5], "one") == [[0, 1], [5]]              # 2..4 copies never measured
    assert runs([1024, 8192], "double") == [[1024], [8192]]    # 2 and 4 KB never measured
    assert runs([512, 1024, 2048, 8192], "double") == [[512, 1024, 2048], [8192]]
    assert runs([0.0, 0.5, 1.0], None) == [[0.0, 0.5, 1.0]]
    assert runs([7], "one") == [[7]]                            # a one-point series: a marker


def test_a_configuration_is_one_colour_on_every_hardware_view():
    doc = load(STORED / "hpdc96-fig4-disknet.json")
    curves = series(doc)
    views = {s.view for s in curves}
    assert views == {"none", "prototype-1995"}
    by_view = {v: {s.config for s in curves if s.view == v} for v in views}
    assert by_view["none"] == by_view["prototype-1995"]        # same keys -> same colours
    assert not any("prototype" in s.config for s in curves)


def test_mache01_read_and_write_are_separate_series_and_baselines_are_levels():
    doc = load(STORED / "mache01-pvfs.json")
    labels = {s.metric_label for s in series(doc)}
    assert labels == {"read", "write"}
    text = table(doc)
    assert "network alone: nodes x ttcp" in text and "disks alone: nodes x bonnie read" in text
    assert "measured local share" in text


def test_a_gate_failed_point_is_starred_in_the_table():
    doc = load(STORED / "hpdc96-fig3-topologies.json")
    bad = [p for p in doc["points"] if not (p.get("gates") or {}).get("ok", True)]
    if not bad:
        pytest.skip("the stored run has no gate-failed point")
    assert "*" in table(doc) and "failed a fidelity gate" in table(doc)
    assert any(s.suspect for s in series(doc))


def _pt(**kw):
    p = {"topology": "switched-mesh", "rate_mbit": 10, "placement": "local-wire", "repeat": 0, "token_size": 8192,
         "pairs": 8, "tokens_in_flight": 2, "throughput_mbyte_s": 1.0, "hardware": "none",
         "flows": [{"path": [["c0"]], "bytes": 1}], "gates": {"ok": True},
         "fidelity": {"wire_utilisation": {"c0": 0.3}, "core_busy_mean": [0.2, 0.2]}}
    p.update(kw)
    return filled(p, "token")


def test_the_reading_names_what_limited_a_point():
    assert limit(_pt(fidelity={"wire_utilisation": {"c0": 0.99}})).startswith("the wire: c0 99% busy")
    two = _pt(flows=[{"path": [["c0"], ["c1"]], "bytes": 1}],
              fidelity={"wire_utilisation": {"c0": 0.99, "c1": 0.98}})
    assert "each pair crossing 2 wires" in limit(two)
    assert limit(_pt(cpu_busy={"b0": 0.97, "b1": 0.2})).startswith("node CPU: b0")
    assert limit(_pt(fidelity={"wire_utilisation": {"c0": 0.3}, "core_busy_mean": [0.95, 0.3]})
                 ).startswith("the emulator")
    assert limit(_pt(rtt_ms_median=3.0)).startswith("round trips, not the wires (busiest 30%, 3.0 ms")


def test_the_main_job_sets_the_papers_values_beside_its_own():
    paper = json.loads((ROOT / "beowulf_netlab" / "experiments" / "quick-comparison.json").read_text())["paper"]
    pts = [_pt(throughput_mbyte_s=9.0),
           _pt(topology="bonded-dual-net", placement="any", throughput_mbyte_s=2.0),
           _pt(topology="single-net", placement="any", throughput_mbyte_s=1.1)]
    doc = {"workload": "token", "paper": paper, "points": pts}
    text = "\n".join(paper_lines(doc))
    assert "6.3 MB/s (seed)" in text and "9 MB/s" in text         # local-wire peak beside the paper's
    assert "4.5 x" in text                                        # 9.0 / 2.0 beside 3.7
    assert "1.82 x" in text                                       # 2.0 / 1.1 beside 1.7 (verified)
    assert "not measured" in text                                 # no bonded switched mesh in this run
    lines = readings(doc)
    assert len(lines) == 3 and all("MB/s at 8K" in line for line in lines)
    assert config_key(pts[0]) == "switched-mesh (local-wire) @10Mb"
