"""A 1996 segment is one shared medium: its stations split its rate."""
from netlab.shaping import tcp_goodput_limit_mbit
from workloads.iperf import run_pairs

SECONDS, OMIT = 6, 2


def test_one_flow_gets_most_of_a_10mbit_wire(testbed):
    tb = testbed("single-net", nodes=16, rate=10)
    [flow] = run_pairs([(tb.host("b0"), tb.host("b1"))], SECONDS, OMIT)
    assert flow.goodput_mbit >= 0.90 * 10, flow
    assert flow.goodput_mbit <= tcp_goodput_limit_mbit(10) * 1.01, flow


def test_two_flows_on_one_wire_share_it_fairly(testbed):
    tb = testbed("single-net", nodes=16, rate=10)
    h = tb.host
    flows = run_pairs([(h("b0"), h("b1")), (h("b2"), h("b3"))], SECONDS, OMIT)
    total = sum(f.goodput_mbit for f in flows)
    # Shared, not switched: about 10 together, never 20 (nor above the physical limit).
    assert total <= tcp_goodput_limit_mbit(10) * 1.01, flows
    assert total >= 0.85 * 10, flows
    for f in flows:
        assert abs(f.goodput_mbit - total / 2) <= 0.25 * total / 2, flows


def test_fast_ethernet_wire(testbed):
    tb = testbed("single-net", nodes=16, rate=100)
    [flow] = run_pairs([(tb.host("b0"), tb.host("b1"))], SECONDS, OMIT)
    assert 0.85 * 100 <= flow.goodput_mbit <= tcp_goodput_limit_mbit(100) * 1.01, flow
