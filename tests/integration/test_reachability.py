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
