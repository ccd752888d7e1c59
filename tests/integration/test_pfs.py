"""MACHE01 on a small cluster: GlusterFS bricks per node, MPI over TCP, time scaling, cleanup.

Four nodes of pc-2001 on a switched cluster, time-scaled: every node's disk runs
at 68.23 / D MB/s and its TCP at 42 / D. Bounds hold with margin on a busy
2-core host; each would fail a wrong implementation (a page cache instead of
the throttled disk, placement by hash instead of by creator, a time scale that
only slows the wires).
"""
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.netlab.impls import BuildOptions  # noqa: E402
from beowulf_netlab.netlab.pfs import missing_tools  # noqa: E402
from beowulf_netlab.run.runner import run_sweep  # noqa: E402
from beowulf_netlab.run.sweep import Sweep  # noqa: E402
from beowulf_netlab.run.results import new_document, real_rate  # noqa: E402
from tests.integration.hostsnap import diff, kill_then_clean, our_mounts, snapshot  # noqa: E402

if missing_tools():
    pytest.skip(f"the parallel file system needs {', '.join(missing_tools())} (./setup.sh)",
                allow_module_level=True)

EMULATE = [sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "emulate.py")]
DISK = 68.23
TTCP = 42.0


def sweep_points(tmp_path, name: str, **values) -> list[dict]:
    given = {"topology": ["switched-cluster"], "rate_mbit": [1000.0], "hardware": ["pc-2001"],
             "nodes": 4, "volume": 4 << 20, "duration": 3, "stripe_size": [256 << 10], **values}
    sweep = Sweep.make("pfs", given)
    sweep.check()
    doc = new_document("pfs", sweep.parameters())
    return run_sweep(sweep, doc, tmp_path / f"{name}.json", BuildOptions(), progress=False)["points"]


@pytest.fixture(scope="module")
def d20(tmp_path_factory):
    return sweep_points(tmp_path_factory.mktemp("pfs"), "d20", time_scale=[20.0],
                        test=["ttcp", "bonnie", "pfs"], local_fraction=[1.0, 0.0])


def pick(points, test, fraction=None):
    return next(p for p in points if p["test"] == test and p.get("local_fraction") == fraction)


def test_baselines_give_the_profiles_disk_and_network(d20):
    bonnie, ttcp = pick(d20, "bonnie"), pick(d20, "ttcp")
    assert real_rate(bonnie, "read_mbyte_s") == pytest.approx(DISK, rel=0.10)
    assert real_rate(bonnie, "write_mbyte_s") == pytest.approx(DISK, rel=0.10)
    assert real_rate(ttcp) == pytest.approx(TTCP, rel=0.10)   # host-limited, not the 1 Gbit/s port
    assert ttcp["throughput_mbyte_s"] == pytest.approx(ttcp["measured_throughput_mbyte_s"] * 20)   # one name, one quantity


def test_local_placement_runs_at_the_disks_and_remote_at_the_network(d20):
    local, remote = pick(d20, "pfs", 1.0), pick(d20, "pfs", 0.0)
    assert local["local_fraction_measured"] == 1.0 and remote["local_fraction_measured"] == 0.0
    assert local["stripes_misplaced"] == []
    # all local: every node at its own disk's rate, nothing on the network
    assert real_rate(local, "read_mbyte_s") == pytest.approx(4 * DISK, rel=0.15)
    assert real_rate(local, "write_mbyte_s") == pytest.approx(4 * DISK, rel=0.15)
    # all remote: every byte is sent by one node and received by another, both charged to the
    # nodes' one CPU budget, so 4 nodes move at most 4 x 42 / 2 = 84 MB/s
    for metric in ("read_mbyte_s", "write_mbyte_s"):
        assert real_rate(remote, metric) <= 4 * TTCP / 2 * 1.1, remote
        assert real_rate(remote, metric) < 0.5 * real_rate(local, metric)


def test_two_time_scales_give_the_same_scaled_result(tmp_path, d20):
    d40 = sweep_points(tmp_path, "d40", time_scale=[40.0], test=["ttcp", "pfs"], local_fraction=[1.0])
    for test, fraction, metric in (("ttcp", None, "throughput_mbyte_s"), ("pfs", 1.0, "read_mbyte_s"),
                                   ("pfs", 1.0, "write_mbyte_s")):
        a, b = pick(d20, test, fraction), pick(d40, test, fraction)
        assert b["measured_throughput_mbyte_s"] < 0.6 * a["measured_throughput_mbyte_s"]   # it really ran slower
        assert real_rate(b, metric) == pytest.approx(real_rate(a, metric), rel=0.10), (test, metric)


@pytest.mark.parametrize("how", ["sigint", "sigkill"])
def test_nothing_is_left_after_an_interrupted_run(tmp_path, how):
    before = snapshot()
    proc = subprocess.Popen([*EMULATE, "run", "pfs", "--topo", "switched-cluster", "--nodes", "4",
                             "--rate", "1000", "--hardware", "pc-2001", "--time-scale", "40",
                             "--test", "pfs", "--volume", "8M", "--no-progress",
                             "--out", str(tmp_path / "pfs.json")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not any(m.endswith(".pfs") for m in our_mounts()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert any(m.endswith(".pfs") for m in our_mounts()), "the file system never came up"
    time.sleep(3)   # the MPI test is running
    if how == "sigint":
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err
    else:
        kill_then_clean(proc, before, EMULATE, ("mounts", "labelled"))
    assert diff(before, snapshot()) == {}
    assert not subprocess.run(["pgrep", "-f", "beowulf-netlab/bnl.*pfs"], capture_output=True).stdout
