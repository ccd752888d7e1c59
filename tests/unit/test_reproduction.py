"""The reproduction report, built from stored results documents of real quick runs
(tests/fixtures/reproduction/), without rerunning anything."""
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")
pytest.importorskip("matplotlib")

import commands  # noqa: E402
from pipeline.claims import NOT_CHECKABLE  # noqa: E402
from pipeline.reproduction import build  # noqa: E402
from pipeline.results import load  # noqa: E402

STORED = sorted((Path(__file__).resolve().parent.parent / "fixtures" / "reproduction").glob("*.json"))


@pytest.fixture
def docs():
    if not STORED:
        pytest.skip("no stored reproduction documents")
    return {load(p)["name"]: load(p) for p in STORED}


def test_report_from_stored_documents(docs, tmp_path):
    page = build(docs, tmp_path, quick=True)
    md = (tmp_path / "report.md").read_text()
    html = page.read_text()
    verdicts = json.loads((tmp_path / "claims.json").read_text())
    assert [v["id"] for v in verdicts] == list(range(1, 25))
    judged = [v for v in verdicts if set(v["experiments"]) <= set(docs) and v["experiments"]]
    assert judged and all(v["verdict"] for v in judged)
    assert any(v["verdict"] != NOT_CHECKABLE for v in judged)
    for v in verdicts:
        assert v["reason"], v                         # every verdict says why
    for name in docs:
        assert (tmp_path / "figures" / f"{name}.png").stat().st_size > 5000
        assert f"### {name}" in md
    assert "## What the emulation does not model" in md and "## Fidelity gates" in md
    # self-contained: every image embedded, nothing fetched from elsewhere
    assert "data:image/png;base64," in html and not re.search(r'src="(?!data:)', html)
    assert html.count("<img") == len(list((tmp_path / "figures").glob("*.png")))


def test_report_command_rebuilds_without_running(docs, tmp_path, capsys):
    out = tmp_path / "again"
    assert commands.main(["report", *map(str, STORED), "--out", str(out)]) == 0
    assert (out / "report.html").exists() and "Claims" in capsys.readouterr().out


def test_report_refuses_a_document_of_no_experiment(tmp_path, capsys):
    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "v1-token.json"
    assert commands.main(["report", str(fixture), "--out", str(tmp_path)]) == 2
    assert "not made from an experiment file" in capsys.readouterr().err


def test_report_judges_both_hardware_views(docs, tmp_path):
    """Points on a profile and on today's hosts are judged apart, side by side."""
    both = {}
    for name, doc in docs.items():
        paper = [{**p, "hardware": "prototype-1995", "throughput_mbyte_s": p["throughput_mbyte_s"] / 2}
                 for p in doc["points"]]
        both[name] = {**doc, "points": doc["points"] + paper}
    build(both, tmp_path, quick=True)
    md = (tmp_path / "report.md").read_text()
    verdicts = json.loads((tmp_path / "claims.json").read_text())
    assert "today's hosts" in md and "the paper's hardware" in md
    assert sorted({v["hardware"] for v in verdicts}) == ["none", "paper"]
    today = {v["id"]: v for v in verdicts if v["hardware"] == "none"}
    paper = {v["id"]: v for v in verdicts if v["hardware"] == "paper"}
    assert len(today) == len(paper) == 24
    # claim 7 reads one value: halved on the profile's points, so the views really differ
    assert paper[7]["measured"] == pytest.approx(today[7]["measured"] / 2, rel=0.01)
