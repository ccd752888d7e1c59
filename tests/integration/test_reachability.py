"""Every preset builds on real namespaces and every node reaches every other."""
import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from topologies.presets import PRESETS


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


@pytest.mark.parametrize("topo", ["single-net,4,10", "bonded-dual-net,4,10,2", "routed-mesh,4,10"])
def test_plain_mininet_runs_the_presets(topo):
    """`mn --custom topologies/mininet_topos.py` works (mn runs the file without __file__)."""
    import os
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run(["mn", "--custom", "topologies/mininet_topos.py", "--topo", topo,
                        "--controller", "none", "--test", "pingall"], cwd=root,
                       capture_output=True, text=True, timeout=120)
    assert "Results: 0% dropped" in r.stdout + r.stderr, r.stdout[-1500:] + r.stderr[-1500:]
