"""Channel bonding stripes one TCP flow packet by packet over both wires."""
from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.workloads.iperf import run_pairs

SECONDS, OMIT = 6, 2


def test_bonded_flow_beats_single_net_and_splits_evenly(testbed, caps):
    single = testbed("single-net", nodes=16, rate_mbit=10)
    [base] = run_pairs([(single.host("b0"), single.host("b1"))], SECONDS, OMIT)
    single.__exit__(None, None, None)  # one emulated network at a time

    tb = testbed("bonded-dual-net", nodes=16, rate_mbit=10)
    b0 = tb.host("b0")
    before = b0.channel_tx_packets()
    [flow] = run_pairs([(b0, tb.host("b1"))], SECONDS, OMIT)
    after = b0.channel_tx_packets()
    sent = [after[nic] - before[nic] for nic in sorted(after)]
    assert flow.goodput_mbit >= 1.6 * base.goodput_mbit, (flow, base)
    share = sent[0] / sum(sent)
    assert 0.4 <= share <= 0.6, sent
    assert tb.environment()["bonding_impl"] == caps.bonding_impl
