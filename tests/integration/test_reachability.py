"""Every preset builds on real namespaces and every node reaches every other."""
import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.topologies.presets import PRESETS


def unreachable(tb) -> list[str]:
    """Ping every other node once from each node (one shell per source node)."""
    hosts = tb.net.hosts
    bad = []
    for src in hosts:
        targets = " ".join(h.address for h in hosts if h is not src)
        out = src.run(["sh", "-c", f"for ip in {targets}; do ping -n -c1 -W2 $ip >/dev/null "
                                   f"|| echo $ip; done"], check=False)
        bad += [f"{src.name}->{ip}" for ip in out.split()]
    return bad


@pytest.mark.parametrize("rate", [10, 100])
@pytest.mark.parametrize("topo", list(PRESETS))
def test_all_pairs_reach_each_other(testbed, topo, rate):
    tb = testbed(topo, nodes=16, rate_mbit=rate)
    assert len(tb.net.hosts) == 16
    assert unreachable(tb) == []


ALLOWED_CC = "/proc/sys/net/ipv4/tcp_allowed_congestion_control"


@pytest.fixture
def profile_tcp_allowed():
    """Plain `mn` has no run to widen the host's allowed congestion controls (a Testbed does, and
    puts the list back): a host whose default is another (this CI host's bbr) allows the nodes'
    cubic only if something made it the default once. The test allows it, then restores the list."""
    from beowulf_netlab.topologies.presets import build_spec
    wanted = build_spec("single-net", nodes=2, rate_mbit=10).nodes[0].tcp.congestion_control
    with open(ALLOWED_CC) as f:
        before = f.read().split()
    if wanted not in before:
        with open(ALLOWED_CC, "w") as f:
            f.write(" ".join([*before, wanted]))
    yield
    if wanted not in before:
        with open(ALLOWED_CC, "w") as f:
            f.write(" ".join(before))


@pytest.mark.parametrize("topo", ["single-net,4,10", "bonded-dual-net,4,10,2", "routed-mesh,4,10"])
def test_plain_mininet_runs_the_presets(topo, profile_tcp_allowed):
    """`mn --custom beowulf_netlab/topologies/mininet_topos.py` works (mn runs the file without __file__) where
    the host allows the nodes' TCP (the fixture sees to it)."""
    import os
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run(["mn", "--custom", "beowulf_netlab/topologies/mininet_topos.py", "--topo", topo,
                        "--controller", "none", "--test", "pingall"], cwd=root,
                       capture_output=True, text=True, timeout=120)
    assert "Results: 0% dropped" in r.stdout + r.stderr, r.stdout[-1500:] + r.stderr[-1500:]
