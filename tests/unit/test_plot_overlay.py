"""Several runs of one workload in one figure (`plot A B`): each curve named by its run, one
colour per configuration across runs, one marker per run; different workloads refused."""
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
pytest.importorskip("matplotlib")
pytest.importorskip("jsonschema")

from beowulf_netlab import commands  # noqa: E402
from beowulf_netlab.commands.plot import run_labels  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_two_runs_overlay_in_one_figure(tmp_path, capsys):
    for run in ("before", "after"):
        (tmp_path / run).mkdir()
        shutil.copy(FIXTURES / "v2-token.json", tmp_path / run / "token.json")
    png = tmp_path / "both.png"
    assert commands.main(["plot", str(tmp_path / "before" / "token.json"), str(tmp_path / "after" / "token.json"),
                          "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "[before] " in out and "[after] " in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_runs_are_named_by_what_tells_them_apart():
    assert run_labels(["a/x.json", "b/x.json"]) == ["a", "b"]
    assert run_labels(["r/one.json", "r/two.json"]) == ["one", "two"]


def test_different_workloads_are_not_overlaid(tmp_path, capsys):
    rc = commands.main(["plot", str(FIXTURES / "v1-token.json"), str(FIXTURES / "v1-iperf.json"),
                        "--png", str(tmp_path / "x.png")])
    assert rc == 2 and "different workloads" in capsys.readouterr().err


def test_curves_with_the_same_values_are_both_drawn_and_named():
    """switched-mesh and routed-mesh carry the same local-wire numbers: the second is drawn on top
    in alternate dashes and the legend says it lies on the first, instead of hiding it."""
    from beowulf_netlab.judge.plot import COINCIDE, coincides
    from beowulf_netlab.judge.table import Series
    a = Series("switched-mesh (local-wire)", "none", "throughput_mbyte_s", "MB/s")
    b = Series("routed-mesh (local-wire)", "none", "throughput_mbyte_s", "MB/s")
    for x, v in ((512, 8.44), (1024, 9.16)):
        a.values[x].append(v)
        b.values[x].append(v * (1 + COINCIDE / 2))
    assert coincides(a, b)
    b.values[1024][0] = 9.16 * (1 + 2 * COINCIDE)
    assert not coincides(a, b)
    b.values[2048].append(9.0)
    assert not coincides(a, b)


def test_overlaid_runs_carry_their_environment_in_the_legend():
    """As flent's: when each ran and what differs (commit, version, kernel, CPUs)."""
    from beowulf_netlab.commands.plot import environment_notes, overlay
    a = {"workload": "token", "points": [], "created": "2026-11-27T10:07:42+0000",
         "environment": {"project_commit": "4a59724", "kernel": "6.1"}}
    b = {**a, "created": "2026-11-27T15:31:41+0000", "environment": {"project_commit": "ad66217", "kernel": "6.1"}}
    assert environment_notes([a, b]) == ["2026-11-27 10:07, commit 4a59724", "2026-11-27 15:31, commit ad66217"]
    c = {**b, "environment": {"project_commit": "4a59724", "kernel": "6.18"}}
    assert environment_notes([a, c])[1] == "2026-11-27 15:31, kernel 6.18"
    assert overlay([("before", a), ("after", b)])["run_notes"] == {"before": "2026-11-27 10:07, commit 4a59724",
                                                                 "after": "2026-11-27 15:31, commit ad66217"}


def test_a_reference_line_of_this_run_is_drawn_per_view_from_its_own_points():
    """IPPS'96 Figure 3's "all-local / 4" is the view's own all-local rate / 4 (the prototype's
    7.2 MB/s on its hardware, the ide-1995 disk's 11.7 on today's), never one constant."""
    from beowulf_netlab.judge.plot import line_level
    doc = {"points": [{"hardware": "prototype-1995", "remote": 0, "throughput_mbyte_s": 7.2},
                      {"hardware": "none", "remote": 0, "throughput_mbyte_s": 11.6},
                      {"hardware": "none", "remote": 0, "throughput_mbyte_s": 11.8},
                      {"hardware": "none", "remote": 7, "throughput_mbyte_s": 2.0}]}
    ref = {"of": {"where": {"remote": 0}, "scale": 0.25}, "label": "all-local / 4"}
    assert line_level(doc, ref, "prototype-1995") == pytest.approx(1.8)
    assert line_level(doc, ref, "none") == pytest.approx(11.7 / 4)
    assert line_level(doc, ref, "pc-2001") is None
    assert line_level(doc, {"y": 6.0, "label": "paper"}, "none") == 6.0


def test_a_plots_format_is_its_names_extension(tmp_path):
    """x.svg holds SVG, x.pdf PDF; another extension is refused before any work."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from beowulf_netlab.core.errors import BadInput
    from beowulf_netlab.judge.plot import image_format, save
    for name, magic in (("a.png", b"\x89PNG"), ("a.svg", b"<?xml"), ("a.pdf", b"%PDF"), ("a", b"\x89PNG")):
        fig = plt.figure()
        save(fig, str(tmp_path / name), 50)
        assert (tmp_path / name).read_bytes().startswith(magic), name
    with pytest.raises(BadInput, match=".png, .svg or .pdf"):
        image_format(str(tmp_path / "a.gif"))
