"""iperf3's interval data (issue 32): each flow's throughput over time is parsed from real
iperf3 --json output, kept in the point within a bound, typed by the results schema (old
documents still read, hostile series refused in one line), written to the -intervals.csv
sibling (never the point CSV) and drawn by `plot --series`."""
import copy
import csv
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
pytest.importorskip("jsonschema")

from beowulf_netlab import commands  # noqa: E402
from beowulf_netlab.core.errors import BadInput  # noqa: E402
from beowulf_netlab.run import csvfile, results  # noqa: E402
from beowulf_netlab.run.csvfile import intervals_csv_path, write_csv  # noqa: E402
from beowulf_netlab.run.results import load, load_data, real_intervals, validate  # noqa: E402
from beowulf_netlab.workloads.iperf import MAX_SAMPLES, interval_for, series  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CAPTURE = json.loads((FIXTURES / "iperf3-two-flows.json").read_text())   # a real run: 2 flows, 10 Mbit/s
DOC = FIXTURES / "v5-iperf-series.json"                                  # a real run's document


def flows():
    return [(f["server"], f["client"]) for f in CAPTURE["flows"]]


# -- the parser ---------------------------------------------------------------------------------

def test_the_interval_gives_a_run_about_25_samples_within_iperf3s_bounds():
    assert interval_for(10) == 0.4 and interval_for(5) == 0.2
    assert interval_for(1) == 0.1 and interval_for(0.5) == 0.1      # iperf3's smallest -i
    assert interval_for(3600) == 60.0                                # and its largest


def test_a_real_flow_gives_its_receivers_intervals_after_slow_start():
    for server, client in flows():
        s = series(server, client, 0.2)
        assert 20 <= len(s) <= 30                    # 5 s at 0.2 s
        ts = [x[0] for x in s]
        assert ts == sorted(ts) and 0.3 < ts[0] <= 0.45 and 4.8 <= ts[-1] <= 5.1
        # the end summary is the receiver's totals over the same time: the samples add up to its
        # bytes, but for the first interval and the short tail left out (0.2 s and under 0.1 s
        # of a 10 Mbit/s wire)
        end_mbit = client["end"]["sum_received"]["bytes"] * 8 / 1e6
        summed = sum(x[1] * (x[0] - t0) for x, t0 in zip(s, [ts[0] - 0.2] + ts))
        assert end_mbit - 10 * 0.3 <= summed <= end_mbit * 1.001, (summed, end_mbit)
        # the sender's retransmits, interval by interval, add up to its total (but the first's)
        sent = [iv["sum"] for iv in client["intervals"] if not iv["sum"]["omitted"]]
        assert sum(x[2] for x in s if len(x) > 2) == client["end"]["sum_sent"]["retransmits"] - sent[0]["retransmits"]


def test_two_real_flows_on_a_10mbit_wire_sum_to_at_most_about_10_in_every_interval():
    (s1, c1), (s2, c2) = flows()
    a, b = series(s1, c1, 0.2), series(s2, c2, 0.2)
    sums = [x[1] + y[1] for x, y in zip(a, b)][:-1]      # the last: one flow ended before the other
    assert all(s <= 10.5 for s in sums), sums
    assert sorted(sums)[len(sums) // 2] >= 8, sums


def test_omitted_intervals_and_a_short_tail_are_left_out():
    server, client = flows()[0]
    raw = [iv["sum"] for iv in server["intervals"]]
    assert any(r["omitted"] for r in raw) and raw[-1]["seconds"] < 0.1   # the capture has both
    s = series(server, client, 0.2)
    measured = [r for r in raw if not r["omitted"]]
    assert len(s) == len(measured) - 2
    assert s[0][0] == round(measured[1]["end"], 3) and s[-1][0] == round(measured[-2]["end"], 3)


def test_the_first_interval_after_slow_start_is_left_out_for_its_wrong_duration():
    """iperf3 3.12's server resets its counters inside the first interval after -O and reports
    it with a wrong duration: in the capture, 0.4 s for a 0.2 s interval (end - start: 0.0001 s)."""
    server, client = flows()[0]
    first = next(iv["sum"] for iv in server["intervals"] if not iv["sum"]["omitted"])
    assert abs(first["seconds"] - (first["end"] - first["start"])) > 0.1     # the capture shows it
    assert all(x[0] > first["end"] for x in series(server, client, 0.2))


def test_a_long_series_is_merged_to_the_cap_keeping_its_mean():
    server, client = flows()[0]
    full, capped = series(server, client, 0.2), series(server, client, 0.2, cap=7)
    assert len(capped) <= 7 and capped[-1][0] == full[-1][0]

    def megabits(s):
        return sum(x[1] * (x[0] - t0) for x, t0 in zip(s, [0.2] + [x[0] for x in s]))
    assert megabits(capped) == pytest.approx(megabits(full), rel=0.01)
    assert sum(x[2] for x in capped) == sum(x[2] for x in full)


@pytest.mark.parametrize("bad", [None, {}, {"intervals": "x"}, {"intervals": [1, None, {"sum": 3}]},
                                 {"intervals": [{"sum": {"end": float("nan"), "bytes": 1, "seconds": 1}}]},
                                 {"intervals": [{"sum": {"end": 1, "bytes": "1", "seconds": 1}}]},
                                 {"intervals": [{"sum": {"end": 1, "bytes": 10, "seconds": 0}}]}])
def test_unreadable_server_output_gives_no_series(bad):
    assert series(bad, None, 0.2) == []


def test_a_sender_without_retransmits_gives_pairs():
    server, client = flows()[0]
    s = series(server, {"intervals": []}, 0.2)
    assert s and all(len(x) == 2 for x in s)


# -- the schema ---------------------------------------------------------------------------------

def test_documents_without_series_still_read():
    for name in ("v1-iperf.json", "v1-token.json", "v2-token.json"):
        doc = load(FIXTURES / name)
        assert not any(real_intervals(p) for p in doc["points"])


def test_the_stored_document_keeps_every_flows_series():
    doc = load(DOC)
    for p in doc["points"]:
        assert len(real_intervals(p)) == p["pairs"]
        for part in p["per_pair"]:
            assert part["interval_s"] == 0.4 and 20 <= len(part["intervals"]) <= MAX_SAMPLES


def hostile(mutate) -> bytes:
    doc = json.loads(DOC.read_text())
    mutate(doc["points"][1]["per_pair"][0])
    return json.dumps(doc).encode()


@pytest.mark.parametrize("mutate, words", [
    (lambda f: f.update(intervals=[[0.1, 1.0]] * (MAX_SAMPLES + 1)), "is too long"),
    (lambda f: f.update(intervals=[[0.1, 1.0]] * 1_000_000), "is too long"),
    (lambda f: f.update(intervals=[[0.1, "9"]]), "is not of type 'number'"),
    (lambda f: f.update(intervals=[[0.1]]), "too short"),
    (lambda f: f.update(intervals=[[0.1, 1, 2, 3]]), "too long"),
    (lambda f: f.update(intervals=[[0.1, -1]]), "minimum"),
    (lambda f: f.update(intervals={"0.1": 1}), "is not of type 'array'"),
    (lambda f: f.update(interval_s=0), "less than or equal to the minimum"),
])
def test_a_hostile_series_is_refused_in_one_line_naming_its_key_path(mutate, words):
    with pytest.raises(BadInput) as e:
        load_data(hostile(mutate), "results document x.json")
    msg = str(e.value)
    assert "\n" not in msg and len(msg) < 400, msg
    assert "points.1.per_pair.0.interval" in msg and words in msg, msg


def test_a_nan_in_a_series_is_refused_naming_its_key_path():
    text = DOC.read_text().replace('"intervals": [\n', '"intervals": [\n[NaN, 1.0],\n', 1)
    assert "NaN" in text
    with pytest.raises(BadInput, match=r"at points\.\d\.per_pair\.0\.intervals\.0\.0: NaN"):
        load_data(text.encode(), "results document x.json")


def test_the_schema_describes_the_series_and_names_its_scale():
    pair = results.WORKLOAD_POINT["iperf"]["per_pair"]["items"]["properties"]
    assert pair["intervals"]["maxItems"] == MAX_SAMPLES
    assert "x D" in pair["intervals"]["description"] and "scaled time" in pair["interval_s"]["description"]


# -- the CSV ------------------------------------------------------------------------------------

def test_the_series_go_to_a_sibling_csv_not_the_point_csv(tmp_path):
    doc = load(DOC)
    write_csv(doc, tmp_path / "r.csv")
    points = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert len(points) == len(doc["points"]) and not any("interval" in c for c in points[0])
    assert intervals_csv_path(tmp_path / "r.csv") == tmp_path / "r-intervals.csv"
    rows = list(csv.DictReader(open(tmp_path / "r-intervals.csv")))
    assert list(rows[0]) == list(csvfile.INTERVALS_CSV)
    want = sum(len(f["intervals"]) for p in doc["points"] for f in p["per_pair"])
    assert len(rows) == want
    assert {r["flow"] for r in rows if r["point_index"] == "1"} == {"b0->b1", "b2->b3"}
    first = doc["points"][0]["per_pair"][0]["intervals"][0]
    assert float(rows[0]["t_s"]) == first[0] and float(rows[0]["mbit_s"]) == first[1]


def test_a_time_scaled_series_is_written_as_the_real_networks(tmp_path):
    doc = load(DOC)
    p = doc["points"][0]
    p["time_scale"] = 4.0
    sample = p["per_pair"][0]["intervals"][3]
    write_csv(doc, tmp_path / "r.csv")
    row = list(csv.DictReader(open(tmp_path / "r-intervals.csv")))[3]
    assert float(row["time_scale"]) == 4.0
    assert float(row["t_s"]) == pytest.approx(sample[0] / 4) and float(row["mbit_s"]) == pytest.approx(sample[1] * 4)


def test_no_series_no_sibling(tmp_path):
    write_csv(load(FIXTURES / "v1-iperf.json"), tmp_path / "r.csv")
    assert (tmp_path / "r.csv").exists() and not (tmp_path / "r-intervals.csv").exists()


def test_flow_names_cannot_inject_formulas(tmp_path):
    doc = load(DOC)
    doc["points"][0]["per_pair"][0]["src"] = "=cmd|' /c calc'!A1"
    write_csv(doc, tmp_path / "r.csv")
    assert "\n0,,'=cmd" in (tmp_path / "r-intervals.csv").read_text()


# -- the plot -----------------------------------------------------------------------------------

@pytest.fixture
def drawn(monkeypatch):
    """The figures plot_series saves, with their axes' labels, captured before they close."""
    pytest.importorskip("matplotlib")
    import beowulf_netlab.judge.plot as plot
    seen = []
    save = plot.save

    def capture(fig, path, dpi):
        seen.append([(ax.get_xlabel(), ax.get_ylabel(), ax.get_title(), len(ax.get_lines()))
                     for ax in fig.axes if ax.axison])
        save(fig, path, dpi)
    monkeypatch.setattr(plot, "save", capture)
    return seen


def test_plot_series_draws_a_png_with_labelled_axes(tmp_path, capsys, drawn):
    png = tmp_path / "s.png"
    assert commands.main(["plot", str(DOC), "--series", "--png", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20000
    [axes] = drawn
    assert len(axes) == 2                                   # one per point
    for xlabel, ylabel, title, lines in axes:
        assert "s since slow start" in xlabel and title.startswith("point ")
    assert "Mbit/s" in axes[0][1]
    # point 1: 2 flows, their sum, the wire's rate and the TCP payload bound
    assert axes[1][3] >= 5
    assert str(png) in capsys.readouterr().out


def test_plot_series_of_chosen_points_and_overlaid_runs(tmp_path, drawn):
    for run in ("before", "after"):
        (tmp_path / run).mkdir()
        (tmp_path / run / "x.json").write_bytes(DOC.read_bytes())
    assert commands.main(["plot", str(tmp_path / "before" / "x.json"), str(tmp_path / "after" / "x.json"),
                          "--series", "--point", "1"]) == 0
    assert (tmp_path / "before" / "x-overlay-series.png").exists()
    [axes] = drawn
    assert len(axes) == 1 and axes[0][2].startswith("point 1:")


def test_the_default_name_sits_beside_the_document(tmp_path, drawn):
    (tmp_path / "r.json").write_bytes(DOC.read_bytes())
    assert commands.main(["plot", str(tmp_path / "r.json"), "--series", "--point", "0"]) == 0
    assert (tmp_path / "r-series.png").exists() and not (tmp_path / "r.png").exists()


def test_many_points_are_capped_with_a_note(tmp_path, capsys, drawn):
    doc = json.loads(DOC.read_text())
    doc["points"] = [{**copy.deepcopy(doc["points"][0]), "point_index": i} for i in range(15)]
    (tmp_path / "many.json").write_text(json.dumps(doc))
    assert commands.main(["plot", str(tmp_path / "many.json"), "--series"]) == 0
    assert len(drawn[0]) == 12 and "first 12 of 15" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["{fixtures}/v1-token.json", "--series"], "no point"),
    (["{doc}", "--series", "--point", "9"], "--point 9"),
    (["{doc}", "--point", "0"], "add --series"),
    (["{doc}", "--series", "--point", "-1"], "--point"),
    (["{doc}", "--series", "--point", "²"], "--point"),
])
def test_bad_series_requests_are_one_line(argv, words, tmp_path, capsys):
    argv = [a.format(fixtures=FIXTURES, doc=DOC) for a in argv]
    try:
        rc = commands.main(["plot", *argv, "--png", str(tmp_path / "x.png")])
    except SystemExit as e:   # argparse's refusal (core.parser: one line, exit 2)
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "x.png").exists()


def test_validate_accepts_a_point_as_the_runner_makes_it():
    doc = load(DOC)
    server, client = flows()[0]
    doc["points"][0]["per_pair"][0]["intervals"] = series(server, client, 0.2)
    validate(doc)
