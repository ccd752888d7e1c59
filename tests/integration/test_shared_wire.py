"""A 1996 segment is one shared medium: its stations split its rate."""
from tests.integration import require_testbed  # noqa: E402

require_testbed()

import pytest

from beowulf_netlab.netlab.nic import gap_bytes
from beowulf_netlab.netlab.shaping import tcp_goodput_limit_mbit
from beowulf_netlab.run.monitor import Monitor
from beowulf_netlab.workloads.iperf import run_pairs

SECONDS, OMIT = 8, 2
FULL_DUPLEX_LIMIT = tcp_goodput_limit_mbit(10)  # 9.41: data frames only


def frames_by_station(wire, before, after):
    return sorted((after[c][1] - before.get(c, (0, 0))[1] for c in after), reverse=True)


def test_one_flow_fills_a_10mbit_wire_up_to_the_physical_limit(testbed):
    tb = testbed("single-net", nodes=16, rate_mbit=10, contention="off")   # the wire's capacity, not CSMA/CD
    wire = tb.wire("w0")
    before = wire.class_counters()
    [flow] = run_pairs([(tb.host("b0"), tb.host("b1"))], SECONDS, OMIT)
    data, acks = frames_by_station(wire, before, wire.class_counters())[:2]
    # The ACKs ride the same half-duplex medium, so the ceiling is the wire's
    # rate shared by data and ACK frames in the ratio this run produced.
    ceiling = tcp_goodput_limit_mbit(10, acks_per_segment=acks / data)
    assert flow.goodput_mbit <= FULL_DUPLEX_LIMIT * 1.01, flow
    assert flow.goodput_mbit >= 0.97 * ceiling, (flow, ceiling, acks / data)
    assert flow.goodput_mbit >= 0.87 * 10, flow


def test_two_flows_on_one_wire_share_it_fairly(testbed):
    tb = testbed("single-net", nodes=16, rate_mbit=10, contention="off")   # the wire's capacity, not CSMA/CD
    h = tb.host
    with Monitor({"w0": tb.wire("w0")}) as mon:
        flows = run_pairs([(h("b0"), h("b1")), (h("b2"), h("b3"))], SECONDS, OMIT)
    total = sum(f.goodput_mbit for f in flows)
    # Shared, not switched: about 10 together, never 20 (nor above the physical limit).
    assert total <= FULL_DUPLEX_LIMIT * 1.01, flows
    for f in flows:
        assert abs(f.goodput_mbit - total / 2) <= 0.25 * total / 2, flows
    # The same over time (iperf3's intervals, issue 32). One interval may hold more than the
    # wire: after a loss a receiver gets nothing, then all the data held behind the hole at
    # once (a dip of 2, then 16, were seen). What the wire allows is what was delivered so
    # far: by every interval's end, the two flows together never more than 10 Mbit/s for the
    # time so far (and one interval's worth that crossed before it began) - 18.8 on two
    # switched wires.
    a, b = (f.intervals for f in flows)
    assert len(a) >= 15 and len(b) >= 15, flows
    sums = [x[1] + y[1] for x, y in zip(a, b)][:-1]     # the last: one flow may have ended
    dt = flows[0].interval_s
    for i in range(len(sums)):
        assert sum(sums[:i + 1]) * dt <= 10 * dt * (i + 2), (i, sums)
    for f in flows:   # each series carries its flow's goodput (its samples are of equal length)
        mean = sum(x[1] for x in f.intervals) / len(f.intervals)
        assert abs(mean - f.goodput_mbit) <= 0.1 * f.goodput_mbit, (mean, f)
    # That the pair fills the wire is a timing bound: it is judged only when the
    # emulator was not the bottleneck (a TCG lab VM's CPUs saturate: CI read 8.43).
    suspect = mon.report()["suspect"]
    if total < 0.85 * 10 and suspect:
        pytest.skip(f"the fill bound is not judged: {suspect} (total {total:.2f} Mbit/s)")
    assert total >= 0.85 * 10, (flows, suspect)
    # ... and in most intervals: about 10 together (within 20 %), not one flow's share
    near = [s for s in sums if 0.8 * 10 <= s <= 1.2 * 10]
    assert len(near) >= 0.7 * len(sums), sums


def test_fast_ethernet_wire(testbed):
    tb = testbed("single-net", nodes=16, rate_mbit=100, contention="off")   # the wire's capacity, not CSMA/CD
    [flow] = run_pairs([(tb.host("b0"), tb.host("b1"))], SECONDS, OMIT)
    assert 0.85 * 100 <= flow.goodput_mbit <= tcp_goodput_limit_mbit(100) * 1.01, flow


def test_a_cards_gap_slows_its_sender_and_other_stations_fill_it(testbed):
    """One frame in flight (--tx-gap-us, beowulf_netlab/netlab/nic.py): a sender gets frame / (frame + gap) of
    its wire, and a second sender's frames fill the gaps, so two together still fill the wire.
    A gap charged on the wire instead of the card would hold the pair to one sender's share."""
    gap_us = 615                                    # half a full frame's 1230 us at 10 Mbit/s
    tb = testbed("single-net", nodes=4, rate_mbit=10, tx_gap_us=gap_us, contention="off")   # the gap alone
    h = tb.host
    frame_us = 1538 * 8 / 10
    one_card = 1448 * 8 / (frame_us + gap_bytes(gap_us, 10) * 8 / 10)   # Mbit/s of payload: 6.28
    [alone] = run_pairs([(h("b0"), h("b1"))], SECONDS, OMIT)
    assert 0.93 * one_card <= alone.goodput_mbit <= 1.01 * one_card, (alone, one_card)
    with Monitor({"w0": tb.wire("w0")}) as mon:
        flows = run_pairs([(h("b0"), h("b1")), (h("b2"), h("b3"))], SECONDS, OMIT, base_port=5311)
    total = sum(f.goodput_mbit for f in flows)
    assert all(f.goodput_mbit <= 1.01 * one_card for f in flows), flows
    assert total <= FULL_DUPLEX_LIMIT * 1.01, flows
    suspect = mon.report()["suspect"]
    if total < 0.85 * 10 and suspect:
        pytest.skip(f"the fill bound is not judged: {suspect} (total {total:.2f} Mbit/s)")
    assert total >= 0.85 * 10, (flows, one_card, suspect)
