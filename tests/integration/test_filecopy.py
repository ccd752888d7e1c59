"""The Disk/Net balance test on real loop-device disks, real TCP, real files."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.core.errors import DataCorrupted
from beowulf_netlab.netlab.disk import DiskSet
from beowulf_netlab.netlab.disk_profiles import PROFILES, parse_disk
from beowulf_netlab.netlab.testbed import Testbed
from beowulf_netlab.topologies.presets import build_spec
from beowulf_netlab.workloads import filecopy

MB = 1 << 20
IDE = PROFILES["ide-1995"].read_mbyte_s


def make_disks(tb, nodes, disk="ide-1995", max_file=4 * MB) -> DiskSet:
    return DiskSet(tb.manifest, parse_disk(disk), nodes, max_file).create()


def agent_rate(tb, disks, node, *args) -> float:
    """Run one agent probe in the node's cgroup; MB/s it achieved."""
    disks.fresh_throttles()
    cg = disks.disk(node).cgroup
    proc = tb.host(node).popen_netns([sys.executable, filecopy.AGENT, *args, "--cgroup", cg],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(b"go\n", timeout=60)
    data = json.loads(out.decode().strip().splitlines()[-1])
    assert "error" not in data, data
    return data["bytes"] / (data["end"] - data["start"]) / 1e6


def resident_pages(path: str) -> int:
    out = subprocess.run(["fincore", "-n", "-b", "-o", "PAGES", path], capture_output=True, text=True,
                         check=True).stdout
    return int(out.split()[0])


def test_disk_throttle_holds_and_reads_skip_the_page_cache(testbed):
    tb = testbed("single-net", nodes=2, rate_mbit=100)
    disks = make_disks(tb, ["b0"])
    path = disks.disk("b0").path("probe")
    write = agent_rate(tb, disks, "b0", "write", "--dst", path, "--size", str(4 * MB))
    first = agent_rate(tb, disks, "b0", "read", "--src", path)
    assert resident_pages(path) == 0, "an O_DIRECT read must leave nothing in the page cache"
    second = agent_rate(tb, disks, "b0", "read", "--src", path)
    for rate in (write, first, second):
        assert abs(rate / IDE - 1) <= 0.10, (write, first, second)
    assert second <= first * 1.10, "a second read came from a cache"
    # Control: a buffered read fills the cache, so the O_DIRECT path above really avoided it.
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
    assert resident_pages(path) > 0


def test_corrupted_byte_fails_the_run(testbed):
    tb = testbed("single-net", nodes=4, rate_mbit=100)
    plan = filecopy.plan(tb.spec, 2, 1)
    disks = make_disks(tb, filecopy.nodes_used(plan), disk="none")
    with pytest.raises(DataCorrupted, match="checksum mismatch.*copy 0"):
        filecopy.run_copies(tb, disks, plan, MB, corrupt_copy=0)
    res = filecopy.run_copies(tb, disks, plan, MB)  # the same point, untouched, verifies
    assert res["verified"] == "sha256" and len(res["per_copy"]) == 2


def run(topo: str, rate: float, remote: list[int], size: int, copies: int = 7, **opts) -> dict[int, float]:
    """Aggregate MB/s per remote count, one network built at a time."""
    out = {}
    with Testbed(build_spec(topo, rate_mbit=rate, **opts)) as tb:
        plans = {k: filecopy.plan(tb.spec, copies, k) for k in remote}
        nodes = sorted({n for p in plans.values() for n in filecopy.nodes_used(p)})
        disks = make_disks(tb, nodes, max_file=size)
        for k, plan in plans.items():
            out[k] = filecopy.run_copies(tb, disks, plan, size)["throughput_mbyte_s"]
    return out


def test_all_local_is_the_same_on_every_topology():
    rates = {topo: run(topo, 10, [0], 2 * MB)[0]
             for topo in ("single-net", "bonded-dual-net", "switched-mesh", "routed-mesh")}
    lo, hi = min(rates.values()), max(rates.values())
    assert hi / lo <= 1.10, rates
    # and it is the disks' rate: 7 copies at min(read, write) each
    assert all(abs(r / (7 * IDE) - 1) <= 0.12 for r in rates.values()), rates


def test_network_bounds_remote_copies_at_10_not_at_100_mbit():
    single10 = run("single-net", 10, [7], MB)[7]
    assert 0.8 <= single10 < 1.25, f"all-remote on one 10 Mbit/s wire: {single10:.2f} MB/s"
    b10 = run("bonded-dual-net", 10, [0, 7], 2 * MB)
    b100 = run("bonded-dual-net", 100, [0, 7], 2 * MB)
    drop10 = 1 - b10[7] / b10[0]
    drop100 = 1 - b100[7] / b100[0]
    assert drop10 > 0.6, b10        # 2 x 10 Mbit/s carry ~2.3 of the disks' 11.7 MB/s
    assert drop100 < 0.25, b100     # 2 x 100 Mbit/s carry it all
    assert drop100 < drop10 / 3, (b10, b100)
