"""MACHE01's workload as pure logic: file view, volfiles, points, claims on scaled results."""
import importlib.util
import sys
import types

import pytest

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.netlab.pfs import brick_volfile, client_volfile, timeouts
from beowulf_netlab.run.results import real_rate
from beowulf_netlab.run.sweep import Sweep
from beowulf_netlab.topologies.presets import build_spec


def agent_module():
    """pfs_agent.py without mpi4py (only its pure functions are used here)."""
    sys.modules.setdefault("mpi4py", types.SimpleNamespace(MPI=None))
    spec = importlib.util.spec_from_file_location("pfs_agent", "beowulf_netlab/workloads/pfs_agent.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("nodes", [3, 4, 5, 8, 32])
@pytest.mark.parametrize("fraction", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_the_file_view_puts_the_asked_share_of_blocks_in_the_ranks_own_stripe(fraction, nodes):
    target = agent_module().target
    blocks = 64
    for rank in range(nodes):
        plan = [target(rank, j, nodes, fraction) for j in range(blocks)]
        assert plan.count(rank) == round(fraction * blocks)
        others = [s for s in plan if s != rank]
        if others:   # the rest spread evenly over every other node
            counts = {s: others.count(s) for s in set(others)}
            assert max(counts.values()) - min(counts.values()) <= 1
            assert len(counts) == min(nodes - 1, len(others))


def test_blocks_are_stamped_with_rank_and_index():
    stamp = agent_module().stamp
    assert stamp(0, 0, 4096) != stamp(0, 1, 4096) != stamp(1, 0, 4096)
    assert len(stamp(3, 7, 65536)) == 65536


def test_volfiles_place_new_files_on_the_local_brick_and_scale_timeouts():
    brick = brick_volfile("b1", "/d/b1/brick", "10.0.0.2")
    assert "option directory /d/b1/brick" in brick and "bind-address 10.0.0.2" in brick
    client = client_volfile("b1", [("b0", "10.0.0.1"), ("b1", "10.0.0.2")], time_scale=10)
    assert "type cluster/nufa" in client and "option local-volume-name b1-client" in client
    assert client.count("type protocol/client") == 2
    assert "option ping-timeout 420" in client and "option frame-timeout 18000" in client
    assert timeouts(1000) == (1013, 86400)     # GlusterFS's own upper bounds


def test_baseline_points_carry_no_file_view():
    sweep = Sweep.make("pfs", {"topology": ["switched-cluster"], "nodes": 4, "rate_mbit": [1000.0],
                               "local_fraction": [1.0, 0.0], "stripe_size": [65536, 1 << 20]})
    spec = build_spec("switched-cluster", nodes=4, rate_mbit=1000)
    points = sweep.points_per_network(spec)
    tests = [p["test"] for p in points]
    assert tests.count("ttcp") == tests.count("bonnie") == 1 and tests.count("pfs") == 4
    assert all(p["local_fraction"] is None and p["stripe_size"] is None
               for p in points if p["test"] != "pfs")


@pytest.mark.parametrize("given, message", [
    ({"stripe_size": [5000]}, "multiple of 4K"),
    ({"stripe_size": [3 << 20], "volume": 16 << 20}, "whole number of stripes"),
    ({"topology": ["routed-mesh"]}, "switched-cluster"),
])
def test_impossible_points_are_refused_before_anything_is_built(given, message):
    values = {"topology": ["switched-cluster"], "nodes": 4, "rate_mbit": [1000.0], **given}
    with pytest.raises(BadInput, match=message):
        Sweep.make("pfs", values).check()


def test_claims_read_the_real_networks_rate_on_a_time_scaled_point():
    """One meaning per name (v6): the name holds the real network's figure, its measured twin what
    the slowed network carried; a v5 point (the real one in `scaled`) reads the same after upgrade."""
    from beowulf_netlab.run.upgrade import real_rates
    point = {"workload": "pfs", "throughput_mbyte_s": 100.0, "read_mbyte_s": 100.0, "time_scale": 50,
             "measured_throughput_mbyte_s": 2.0, "measured_read_mbyte_s": 2.0}
    assert real_rate(point) == 100.0 and real_rate(point, "read_mbyte_s") == 100.0
    v5 = {"workload": "pfs", "throughput_mbyte_s": 2.0, "read_mbyte_s": 2.0, "time_scale": 50,
          "scaled": {"throughput_mbyte_s": 100.0, "read_mbyte_s": 100.0}}
    assert real_rates(v5, "pfs") == point
    assert real_rate({"throughput_mbyte_s": 3.0}) == 3.0


def test_the_local_share_counts_bytes_on_the_movers_own_brick_and_never_guesses():
    from beowulf_netlab.workloads.pfs import _aggregate, local_share
    nodes = ["b0", "b1"]
    ranks = [{"rank": 0, "per_stripe": [300, 100], "bytes": 400, "write_s": 2.0, "read_s": 1.0},
             {"rank": 1, "per_stripe": [0, 400], "bytes": 400, "write_s": 4.0, "read_s": 1.0}]
    assert local_share(ranks, {0: "b0", 1: "b1"}, nodes) == pytest.approx(700 / 800)
    assert local_share(ranks, {0: "b1", 1: "b0"}, nodes) == pytest.approx(100 / 800)
    assert local_share(ranks, {0: "b0", 1: None}, nodes) is None
    agg = _aggregate(ranks)      # total bytes / the slowest rank's time, per phase
    assert agg["write_mbyte_s"] == pytest.approx(800 / 4.0 / 1e6)
    assert agg["read_mbyte_s"] == pytest.approx(800 / 1.0 / 1e6)


def test_an_unthrottled_disk_cannot_be_time_scaled():
    with pytest.raises(BadInput, match="cannot be time-scaled"):
        Sweep.make("pfs", {"topology": ["switched-cluster"], "nodes": 4, "rate_mbit": [1000.0],
                           "time_scale": [10.0], "disk": "none"}).check()
