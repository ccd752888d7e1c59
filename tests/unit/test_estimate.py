"""The up-front estimate (run.estimate) and the progress display (run.progress): no network."""
import io
import json
from pathlib import Path

import pytest

from beowulf_netlab.run import estimate
from beowulf_netlab.run.experiment import EXPERIMENTS_DIR, load
from beowulf_netlab.run.progress import Progress, plain_line
from beowulf_netlab.run.sweep import Sweep
from beowulf_netlab.topologies.presets import build_spec
from beowulf_netlab.workloads import WORKLOADS


def test_token_point_costs_its_duration_and_setup():
    sweep = Sweep.make("token", {"topology": ["single-net"], "token_size": [1024, 8192], "duration": 2.0,
                                 "repeats": 3})
    est = estimate.of_sweep(sweep)
    assert est.points == 6 and est.repeats == {3} and est.networks == 1
    wl = WORKLOADS["token"]
    per_point = estimate.POINT_S + wl.cost(build_spec("single-net"), {"pairs": 4}, {"duration": 2.0})
    network = estimate.NETWORK_S + estimate.NETWORK_S_PER_NODE * 16
    assert est.seconds == pytest.approx(6 * per_point + network + estimate.COMMAND_S)
    assert est.line() == "6 points (3 repeats each), about 15 seconds"


def test_token_exchanges_cost_the_wire_time_of_their_tokens():
    spec = build_spec("single-net", rate_mbit=10)
    pt = {"pairs": 1, "placement": "any", "token_size": 16384, "tokens_in_flight": 1}
    few = WORKLOADS["token"].cost(spec, pt, {"exchanges": 10, "duration": 2.0})
    many = WORKLOADS["token"].cost(spec, pt, {"exchanges": 1000, "duration": 2.0})
    # 1000 round trips of 2 x 16 KB over one 10 Mbit/s wire: at least 26 s
    assert many > 26 and few < many / 50


def test_iperf_point_is_slow_start_plus_duration():
    assert WORKLOADS["iperf"].cost(build_spec("single-net"), {}, {"duration": 5}) == pytest.approx(6.1)


def test_filecopy_cost_follows_file_size_and_remote_copies():
    spec = build_spec("bonded-dual-net", channels=2, rate_mbit=10)
    settings = {"copies": 7, "disk": "ide-1995", "disk_transfer": "hardware", "today_disk": "ide-1995"}   # a sweep gives all
    cost = WORKLOADS["filecopy"].cost
    local = cost(spec, {"remote": 0, "file_size": 4 << 20, "placement": "any"}, settings)
    small = cost(spec, {"remote": 0, "file_size": 1 << 20, "placement": "any"}, settings)
    remote = cost(spec, {"remote": 7, "file_size": 4 << 20, "placement": "any"}, settings)
    assert 2.5 < local < 3.5 and small < local / 2      # 4 MB at 1.67 MB/s per copy
    assert 10 < remote < 16          # 7 x 4 MB share two 10 Mbit/s wires: about 2.3 MB/s


def test_pfs_remote_view_costs_more_than_local():
    spec = build_spec("switched-cluster", nodes=4, time_scale=20)
    settings = {"volume": 4 << 20, "duration": 2, "disk": "68.23"}
    cost = WORKLOADS["pfs"].cost
    bonnie = cost(spec, {"test": "bonnie"}, settings)
    assert bonnie == pytest.approx(2 * (4 << 20) / (68.23 / 20 * 1e6) + 4 * 0.14, rel=0.01)
    assert cost(spec, {"test": "pfs", "local_fraction": 0.0}, settings) > \
        cost(spec, {"test": "pfs", "local_fraction": 1.0}, settings)
    assert cost(spec, {"test": "ttcp"}, settings) == pytest.approx(3 + 4 * 0.14)


def test_every_workload_declares_its_cost():
    assert all(wl.cost is not None for wl in WORKLOADS.values())


def test_the_main_job_is_about_its_measured_time():
    """The quick comparison took 2 min 18 s on this 2-core host (README)."""
    sweep, _, _ = load(EXPERIMENTS_DIR / "quick-comparison.json")
    est = estimate.of_sweep(sweep)
    assert est.points == 48 and 0.75 * 138 <= est.seconds <= 1.25 * 138


def test_points_taken_from_an_earlier_experiment_are_not_counted():
    """IPPS'96 Figure 6 measures nothing of its own after Figures 3 and 5 (same_points_as)."""
    names = ["ipps96-fig3-prototype", "ipps96-fig5-demonstration", "ipps96-fig6-balance"]
    sweeps = []
    for name in names:
        sweep, _, meta = load(EXPERIMENTS_DIR / f"{name}.json", quick=True)
        sweeps.append((name, sweep, meta.get("same_points_as") or []))
    alone = estimate.of_sweep(sweeps[-1][1])
    together = estimate.of_sweeps(sweeps, extra_s=0)
    first_two = estimate.of_sweeps(sweeps[:2], extra_s=0)
    assert alone.points > 0 and together.points == first_two.points
    assert together.seconds == pytest.approx(first_two.seconds)


def test_calibration_measurements_are_counted():
    sweep = Sweep.make("filecopy", {"topology": ["bonded-dual-net"], "hardware": ["prototype-1995"],
                                    "remote": [7], "file_size": [1 << 20]})
    assert estimate.of_sweep(sweep).points > sweep.total_points()


@pytest.mark.parametrize("seconds, text", [(3, "5 seconds"), (42, "40 seconds"), (89, "90 seconds"),
                                           (95, "2 minutes"), (60 * 58.4, "58 minutes"),
                                           (3 * 3600, "3.0 hours")])
def test_minutes_read_as_a_person_says_them(seconds, text):
    assert estimate.minutes(seconds) == text


def test_estimate_line_with_mixed_repeats():
    e = estimate.Estimate(points=1013, seconds=3500, repeats={1, 3})
    assert e.line() == "1013 points (1 to 3 repeats each), about 58 minutes"
    assert estimate.Estimate(points=1, seconds=5, repeats={1}).line() == "1 point (1 repeat each), about 5 seconds"


class Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_progress_off_a_terminal_is_one_plain_line_per_point():
    out = Stream(False)
    with Progress(3, stream=out) as bar:
        bar.running("never shown off a terminal")
        bar.note("  plan (single-net any): b0->b1")
        for k in range(3):
            bar.step(f"point {k}: 1.00 MB/s", weight=2.0)
    lines = out.getvalue().splitlines()
    assert lines == ["  plan (single-net any): b0->b1", plain_line(1, 3, "point 0: 1.00 MB/s"),
                     plain_line(2, 3, "point 1: 1.00 MB/s"), plain_line(3, 3, "point 2: 1.00 MB/s")]
    assert lines[-1].startswith("[" + "#" * 30 + "] 3/3 ")


def test_progress_on_a_terminal_shows_points_time_and_label(monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    out = Stream(True)
    with Progress(2, stream=out, total_weight=10.0) as bar:
        bar.running("single-net@10 any 4 pairs 1KB")
        bar.note("  plan (single-net any): b0->b1")
        bar.step("single-net@10 any 4 pairs 1KB: 1.12 MB/s", weight=5.0)
        bar.step("single-net@10 any 4 pairs 8KB: 1.14 MB/s", weight=5.0)
    text = out.getvalue()
    assert "2/2 points" in text and "8KB: 1.14 MB/s" in text and "plan (single-net any)" in text
    assert "0:00:00" in text           # elapsed and time left


def test_no_progress_prints_nothing():
    for tty in (True, False):
        out = Stream(tty)
        with Progress(2, enabled=False, stream=out) as bar:
            bar.note("plan")
            bar.step("x")
        assert out.getvalue() == ""


def test_a_narrow_terminal_cuts_the_label_not_the_count_or_times(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = Stream(True)
    with Progress(120, stream=out) as bar:
        bar.step("bonded-dual-net@10x2+demonstration-1996+contention any 16MB remote=7: 1.23 MB/s")
    last = out.getvalue().split("\r")[-1]
    assert "1/120 points" in last and "left" in last and "0:00:00" in last and "MB/s" not in last
