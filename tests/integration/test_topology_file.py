"""A user's topology file builds a real network: its gateway relays, and both hubs carry what crosses.

examples/topologies/two-hubs-gateway.json: a0-a2 on hub h1, b0-b2 on hub h2, gw on both with
forwarding on. Its routes are computed from the file (beowulf_netlab/topologies/files.py), so these check that
what was computed is what the kernel does, and that the wires still take their time.
"""
import re
from pathlib import Path

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.netlab.shaping import tcp_goodput_limit_mbit  # noqa: E402
from beowulf_netlab.workloads import ping  # noqa: E402
from beowulf_netlab.workloads.iperf import run_pairs  # noqa: E402

GATEWAY = str(Path(__file__).resolve().parents[2] / "examples" / "topologies" / "two-hubs-gateway.json")
SECONDS, OMIT = 6, 2


def hops(host, ip: str) -> list[str]:
    out = host.run(["traceroute", "-n", "-q1", "-w1", "-m4", ip], check=False)
    return re.findall(r"^\s*\d+\s+(\S+)", out, re.M)


def test_the_gateway_relays_across_hubs_and_the_crossing_takes_four_wire_times(testbed):
    tb = testbed(GATEWAY)
    h = tb.host
    assert hops(h("b0"), h("a0").address) == [h("gw").address, h("a0").address]
    assert hops(h("a1"), h("a2").address) == [h("a2").address]
    # A 1400-byte ping crosses two 10 Mbit/s hubs each way: four 1442-byte frames, each at
    # least (1442 + 12) * 8 / 10e6 s = 1.16 ms on its wire when the engine times frames.
    rtt = ping.rtts_ms(h("b0"), h("a0").address, 11, 0.05, size=1400)
    assert len(rtt) == 10, rtt
    if tb.impls["wire"] == "engine":
        assert min(rtt) >= 4 * (1442 + 12) * 8 / 10e6 * 1e3, rtt


def test_a_flow_through_the_gateway_is_charged_on_both_hubs(testbed):
    tb = testbed(GATEWAY, contention="off")   # the hubs' capacity, not CSMA/CD
    h = tb.host
    [alone] = run_pairs([(h("a0"), h("b0"))], SECONDS, OMIT)
    crossing, local = run_pairs([(h("a0"), h("b0")), (h("b1"), h("b2"))], SECONDS, OMIT)
    assert alone.goodput_mbit >= 0.8 * 10, alone
    # hub h2 carries both flows: together they get one wire, not two
    assert crossing.goodput_mbit + local.goodput_mbit <= tcp_goodput_limit_mbit(10) * 1.05, (crossing, local)
    assert crossing.goodput_mbit <= 0.75 * alone.goodput_mbit, (alone, crossing, local)
