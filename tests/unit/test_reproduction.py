"""The reproduction report, built from stored results documents of real quick runs
(tests/fixtures/reproduction/), without rerunning anything."""
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")
pytest.importorskip("matplotlib")

from beowulf_netlab import commands  # noqa: E402
from beowulf_netlab.judge.claims import CALIBRATION, NOT_CHECKABLE, TESTED  # noqa: E402
from beowulf_netlab.judge.report import build  # noqa: E402
from beowulf_netlab.run.results import load  # noqa: E402

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
    views = sorted({v["hardware"] for v in verdicts})
    assert views == ["none", "paper"]                  # the stored run measured both machines
    for w in views:
        assert [v["id"] for v in verdicts if v["hardware"] == w] == list(range(1, 25))
    judged = [v for v in verdicts if set(v["experiments"]) <= set(docs) and v["experiments"]]
    assert judged and all(v["verdict"] for v in judged)
    evidence = [v for v in judged if v["verdict"] not in (NOT_CHECKABLE, CALIBRATION, TESTED)]
    assert evidence and all(v["repeats"] >= 2 for v in evidence)    # judged from repeats
    assert {v["verdict"] for v in verdicts if v["id"] in (12, 13, 23)} == {TESTED}
    for v in verdicts:
        assert v["reason"], v                         # every verdict says why
        assert "{" not in v["gap"], v                 # every gap template filled in
    assert "## Calibration" in md and "demonstration-1996-disk" in md
    assert "TCP on hardware none: cubic" in md
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
    build(docs, tmp_path, quick=True)
    md = (tmp_path / "report.md").read_text()
    verdicts = json.loads((tmp_path / "claims.json").read_text())
    assert "today's hosts" in md and "the paper's hardware" in md
    today = {v["id"]: v for v in verdicts if v["hardware"] == "none"}
    paper = {v["id"]: v for v in verdicts if v["hardware"] == "paper"}
    assert len(today) == len(paper) == 24
    # claim 9 reads the prototype's all-local copies on the paper's hardware (its disks are
    # 1.03 MB/s) and ide-1995's on today's hosts (1.67 MB/s): the views really differ
    fig3 = docs["ipps96-fig3-prototype"]["points"]
    for view, hw in ((today, "none"), (paper, "prototype-1995")):
        local = sorted(p["throughput_mbyte_s"] for p in fig3 if p["hardware"] == hw and p["remote"] == 0
                       and p["file_size"] == 2 << 20 and not p.get("calibration_of"))
        remote = sorted(p["throughput_mbyte_s"] for p in fig3 if p["hardware"] == hw and p["remote"] == 7)
        median = lambda v: (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2  # noqa: E731
        assert view[9]["measured"] == pytest.approx(median(local) / median(remote), rel=1e-6)
    assert today[9]["measured"] > paper[9]["measured"] * 1.3


def test_the_tally_leaves_out_what_could_not_fail_and_lists_it_per_view(docs, tmp_path):
    """Issue 42: 'reproduced' counts only verdicts that could have come out otherwise; the
    summary names, per view, the claims that could not fail and what forced each, and the
    'Could each verdict fail?' table a reading that flips every other."""
    from beowulf_netlab.judge.claims import FORCED, REPRODUCED
    from beowulf_netlab.judge.report import model
    m = model(docs, tmp_path, quick=True)
    results = {(r["hardware"], r["id"]): r for r in m["results"]}
    for s in m["summaries"]:
        counted = [r for (w, _), r in results.items() if w == s["view"] and r["counted"]]
        forced = [r for r in counted if r["can_fail"]["forced"]]
        assert dict((v, n) for v, n, _ in s["main"])[REPRODUCED] == \
            sum(r["verdict"] == REPRODUCED for r in counted)
        assert not any(r["verdict"] == REPRODUCED for r in forced)
        assert [f["id"] for f in s["forced"]] == [r["id"] for r in forced]
        assert all(f["kind"] in s["text"] for f in s["forced"]) and (s["forced"] or "no claim" in s["text"])
        by_kind = {v: n for v, n, _ in s["apart"] if v.startswith(FORCED)}       # counted by what forced them
        assert sum(by_kind.values()) == sum(r["verdict"] == FORCED for r in counted)
        assert all(f"{FORCED} ({r['can_fail']['kind']})" in by_kind for r in counted if r["verdict"] == FORCED)
    # the stored run: claim 15 on the paper's hardware is forced by its pinned calibration
    assert results[("paper", 15)]["can_fail"]["kind"] == "a calibration"
    assert results[("paper", 15)]["verdict"] in (FORCED, "not checkable")
    flips = [r for r in m["forcing"] if r["can"] == "can fail"]
    assert flips and all(r["by"].startswith("flips to") for r in flips)
    assert all(r["by"].startswith("forced by") for r in m["forcing"] if r["can"] == "cannot fail")


def test_report_reads_without_a_key(docs, tmp_path):
    """Every measured number carries its unit and names what it is; verdicts are coloured with
    their text; the environment is labelled; the terms are explained; one heading per figure."""
    from beowulf_netlab.judge.report import measured_parts
    from beowulf_netlab.judge.claims import load_claims
    page = build(docs, tmp_path, quick=True)
    md = (tmp_path / "report.md").read_text()
    html = page.read_text()
    claims = {c["id"]: c for c in load_claims()}
    verdicts = json.loads((tmp_path / "claims.json").read_text())
    for v in verdicts:
        for label, text in measured_parts(claims[v["id"]], v["measured"]):
            if label.startswith("per "):               # a series' key: which curve is which
                continue
            assert re.search(r"(MB/s|x|fraction lost|\))$", text) or text in ("not measured",
                                                                          "a test, not a measurement"), (v["id"], text)
    today = {v["id"]: v for v in verdicts if v["hardware"] == "none"}
    parts = measured_parts(claims[18], today[18]["measured"])     # per remote count: a keyed series
    assert parts[0] == ("per remote copies", "switched-mesh / routed-mesh")
    assert parts[1][0] == "remote copies 1" and parts[1][1].endswith(" MB/s") and " / " in parts[1][1]
    assert measured_parts(claims[9], today[9]["measured"])[0][0] == "remote copies 0 / 7"
    assert measured_parts(claims[10], today[10]["measured"])[0][1].endswith("fraction lost")
    # the Markdown record: a why per view, units in the measured cells, a glossary, labelled environment
    row = next(line for line in md.splitlines() if line.startswith("| 14 |"))
    assert "| 7.99 MB/s (+-0.0%, 2 runs) | **not reproduced** | 7.99 is outside 6 +- 8.3% |" in row
    assert "| 7.01 MB/s (+-0.1%, 2 runs) | **not reproduced** |" in row
    for term in ("seed", "verified", "derived", "fidelity gate", "calibration point", "D (time scale)",
                 "local-wire", "remote-wire", "reproduced in shape", "noisy", "forced by construction", "met", "in band", "repeats", "spread", "today's hosts",
                 "the paper's hardware"):
        assert f"- **{term}**:" in md, term
    for label in ("kernel", "CPUs", "bonding implementation", "switch implementation", "host load",
                  "TCP on hardware none", "this host's own TCP"):
        assert f"\n- {label}: " in md, label
    assert "- bonding implementation: nft-numgen-rr" in md and "- switch implementation: lxbr" in md
    for name in docs:
        assert md.count(f"### {name}\n") == 1          # its figures and table under one heading
    # the page: made for phones too, verdicts coloured and named, no script, every claim once
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "<script" not in html.lower()
    for cls, verdict in (("ok", "reproduced"), ("bad", "not reproduced"), ("na", "not checkable"),
                         ("cal", "calibration point"), ("tested", "tested")):
        assert f'<span class="v v-{cls}">{verdict}</span>' in html
    assert len(re.findall(r'<tr id="claim-\d+">', html)) == 24
    assert html.count('id="g-seed"') == 1 and 'href="#g-seed"' in html
    assert "<dt>host load</dt>" in html and "<dt>bonding implementation</dt>" in html


def test_the_report_shows_the_era_validation_table(docs, tmp_path):
    """Every era check has a row in both files, read (in/below/above band, or not measured with why),
    beside the claims and never among them."""
    from beowulf_netlab.judge.validation import load_checks
    page = build(docs, tmp_path, quick=True)
    md, html = (tmp_path / "report.md").read_text(), page.read_text()
    section = md.split("## Era validation")[1].split("## Figures")[0]
    for check in load_checks():
        assert check["id"] in section and check["id"] in html
    assert "not measured:" in section and 'id="era"' in html
    assert all(c["id"] not in {r["id"] for r in json.loads((tmp_path / "claims.json").read_text())}
               for c in load_checks())


def test_an_experiment_runs_after_those_it_takes_points_from():
    from beowulf_netlab.commands.reproduce import sources_first
    shares = {"fig6": ["fig3", "fig5"], "fig5d": ["fig3t"], "loop": ["loop"]}
    order = sources_first(["fig6", "fig2", "fig5d", "fig3", "fig3t", "fig5", "loop"], shares)
    assert sorted(order) == sorted(["fig6", "fig2", "fig5d", "fig3", "fig3t", "fig5", "loop"])
    assert order.index("fig6") > max(order.index("fig3"), order.index("fig5"))
    assert order.index("fig5d") > order.index("fig3t")
    assert sources_first(["fig6", "fig2"], shares) == ["fig6", "fig2"]    # absent sources: order kept


def _net(wire_impl, medium=None, commands=None):
    return {"wire_impl": wire_impl, "medium": medium, "applied_commands": commands or {}}


def test_the_collision_row_and_wire_example_follow_the_wire_that_ran():
    """An engine-only run is not told its hubs charge an average cost, and its wire example shows
    the engine's configuration (a tc wire's argv is empty there)."""
    from beowulf_netlab.judge.report import not_modelled, wire_example
    config = ["seed 1", "segment w0 rate_bps=10000000 duplex=half csma=1 prop_ns=1140",
              *(f"port bnl0aww0-eth{i} segment=w0 queue=100 tx_delay_ns=0 rx_delay_ns=0 tx_gap_ns=0"
                for i in range(1, 6))]
    engine = {"a": {"environment": {"topologies": {"single-net@10": _net(
        "engine", {"config": config}, {"b0": [], "bnl0aww0": []})}}}}
    rows = [a for a, _ in not_modelled(engine)]
    assert any("frame by frame" in r for r in rows) and not any("Metcalfe-Boggs" in r for r in rows)
    example = wire_example(engine)
    assert example[0] == "single-net@10, wire w0 (medium engine configuration):"
    assert example[1].startswith("segment w0 ") and example[-1] == "... 2 more ports"
    tc = {"b": {"environment": {"topologies": {"single-net@10": _net(
        "tc", None, {"bnl0aww0": [{"argv": ["tc", "qdisc", "add", "dev", "x"]}]})}}}}
    assert [a for a, _ in not_modelled(tc) if "Metcalfe-Boggs" in a]
    assert wire_example(tc) == ["single-net@10, wire bnl0aww0:", "tc qdisc add dev x"]
    both = [a for a, _ in not_modelled({**engine, **tc}) if "CSMA/CD" in a]
    assert len(both) == 2
