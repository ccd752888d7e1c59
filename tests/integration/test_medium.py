"""The frame-timed medium engine on real networks: physical properties a wrong engine would fail.
Each bound holds on a faster host too: a round trip has a floor (its frames' wire time) that no
host speed lowers, and the engine's own lag is gated, not assumed."""
import statistics
import subprocess

import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.core.command import python  # noqa: E402
from beowulf_netlab.netlab.contention import efficiency as metcalfe_boggs  # noqa: E402
from beowulf_netlab.netlab.hostcost import round_trip_us  # noqa: E402
from beowulf_netlab.netlab.shaping import wire_bytes  # noqa: E402
from beowulf_netlab.run.results import new_document  # noqa: E402
from beowulf_netlab.run.runner import run_sweep  # noqa: E402
from beowulf_netlab.run.sweep import Sweep  # noqa: E402
from beowulf_netlab.netlab.testbed import BuildOptions  # noqa: E402
from beowulf_netlab.run.hostpath import subtract_host_path  # noqa: E402
from beowulf_netlab.run.gates import engine_late, lag_bounds_us  # noqa: E402
from beowulf_netlab.netlab.medium import point_record  # noqa: E402
from beowulf_netlab.workloads import iperf, ping, token  # noqa: E402


pytestmark = pytest.mark.usefixtures("engine_built")


def carrier_ms(l2: int, rate_mbit: float) -> float:
    """A frame's time on the wire, preamble to FCS (the gap after it delays only a next frame)."""
    return (max(l2, 60) + 12) * 8 / (rate_mbit * 1e6) * 1e3


def test_a_lone_frames_round_trip_is_two_wire_times_plus_the_hosts_own(testbed):
    """A 1400-byte ping (1442-byte frames): its round trip is at least its two frames' wire time
    (2.33 ms at 10 Mbit/s, 0.233 at 100), however slow the host, and exceeds it by no more than the
    host's own round trip (measured here on a tc wire at 1000 Mbit/s, where nothing delays a lone
    frame) plus 0.25 ms, unless the engine reported its releases late by its gates' bounds (a
    software-emulated lab VM: CI's lab-VM stage), where a point would fail its gates: then the
    engine must have said so."""
    tb = testbed("single-net", nodes=2, rate_mbit=1000, wire="tc")
    own = statistics.median(ping.rtts_ms(tb.host("b0"), tb.host("b1").address, 31, 0.02, size=1400))
    for rate in (10, 100):
        tb = testbed("single-net", nodes=2, rate_mbit=rate)
        assert tb.impls["wire"] == "engine"
        before = tb.medium.snapshot(max_age_s=0)
        rtt = ping.rtts_ms(tb.host("b0"), tb.host("b1").address, 31, 0.05, size=1400)
        late = engine_late(point_record(before, tb.medium.snapshot(max_age_s=0)), lag_bounds_us({"rate_mbit": rate}))
        floor = 2 * carrier_ms(1400 + 8 + 20 + 14, rate)
        assert min(rtt) >= floor, (rate, min(rtt), floor)
        if late is None:
            assert statistics.median(rtt) <= floor + own + 0.25, (rate, statistics.median(rtt), floor, own)


def test_two_flows_on_one_wire_share_it(testbed):
    """Two TCP flows on one 10 Mbit/s wire (a perfect arbiter: --contention off) carry together about
    one wire's TCP payload, not two."""
    tb = testbed("single-net", nodes=4, rate_mbit=10, contention="off")
    flows = iperf.run_pairs([(tb.host("b0"), tb.host("b1")), (tb.host("b2"), tb.host("b3"))], seconds=4)
    total = sum(f.goodput_mbit for f in flows)
    assert 8.0 <= total <= 9.42, [f.goodput_mbit for f in flows]


def test_saturating_stations_lose_what_csma_cd_takes(testbed):
    """8 stations flooding one 10 Mbit/s hub with minimum frames (UDP, 1.5 x the wire offered):
    collisions happen frame by frame and, of the time some station wanted the wire, it delivers
    less than a perfect arbiter would, more than Metcalfe-Boggs' bound (csma.md: 0.39 for 8
    stations). Judged over the wanted time (carriers and their gaps, collisions, idle slots while
    a station backs off), not the whole: a host too slow to keep 8 senders saturated (CI's
    software-emulated lab VM left the wire 41 % idle with nobody waiting) leaves idle time that is
    the senders', not CSMA/CD's. At most 8 stations contend at any moment and Metcalfe-Boggs'
    efficiency falls with their number, so the 8-station bound holds whatever the load."""
    tb = testbed("single-net", nodes=8, rate_mbit=10, contention="on")
    rec = iperf.medium_under_flood(tb, 8, 1.5 * 10e6 / 8 / wire_bytes(60) / 8, 18, 3)
    w = rec["wires"]["w0"]
    carried = w["busy"] * wire_bytes(60) / (wire_bytes(60) - 12)   # carriers plus their gaps
    wanted = carried + w["collision_time"] + w["backoff_idle"]
    efficiency = carried / wanted
    assert w["collisions"] > 0.02 * w["frames"], w
    assert metcalfe_boggs(8, wire_bytes(60)) < efficiency < 0.99, (efficiency, f"idle unwanted {1 - wanted:.3f}", w)


# b2 sends 200 frames from its NIC claiming another station's address as their source
SPOOF = """
import socket, sys
nic, src = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", ""))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((nic, 0))
for _ in range(200):
    s.send(b"\\xff" * 6 + src + b"\\x88\\xb5" + bytes(46))
"""


def test_a_hub_repeats_a_pairs_frames_to_a_third_station_and_a_spoofed_source_cuts_nobody_off(testbed):
    """Three nodes on one 10 Mbit/s hub. b0 pings b1: b2's card receives every one of their
    frames too (a sniffer on a hub sees a pair's traffic; its kernel drops them). Then b2 sends
    200 frames claiming b1's address as their source: b1 still answers every ping, and the
    engine refused nothing."""
    tb = testbed("single-net", nodes=3, rate_mbit=10)
    assert tb.impls["wire"] == "engine"
    b0, b1, b2 = (tb.host(n) for n in ("b0", "b1", "b2"))
    nic = b2.nics()[0]

    def rx() -> int:
        return int(b2.read_file(f"/sys/class/net/{nic}/statistics/rx_packets"))
    ping.rtts_ms(b0, b1.address, 3, 0.05)      # ARP settled
    before = rx()
    rtt = ping.rtts_ms(b0, b1.address, 50, 0.02)    # the first of 50 is left out of rtt
    assert len(rtt) == 49
    assert rx() - before >= 100, "b2's card saw fewer than the pair's 100 frames"
    mac = b1.read_file(f"/sys/class/net/{b1.nics()[0]}/address")
    b2.run(python("-c", SPOOF, nic, mac))
    assert len(ping.rtts_ms(b0, b1.address, 50, 0.02)) == 49, "a spoofed source cut b1 off"
    snap = tb.medium.snapshot(max_age_s=0)
    assert all(p["oversize"] == 0 and p["runts"] == 0 for p in snap["ports"].values()), snap["ports"]


def token_pair(tmp_path, name: str) -> dict:
    sweep = Sweep.make("token", {"topology": ["single-net"], "nodes": 2, "hardware": ["prototype-1995"],
                                 "pairs": [1], "token_size": [1024], "tokens_in_flight": [1], "duration": 3.0})
    doc = new_document("token", sweep.parameters())
    run_sweep(sweep, doc, tmp_path / f"{name}.json", BuildOptions(), progress=False)
    [point] = [p for p in doc["points"] if not p.get("calibration_of")]   # and its round trip's calibration
    return point


def test_a_prototype_token_pair_keeps_its_rate_with_a_core_kept_busy(tmp_path):
    """The same 1996 pair measured quiet and with one more core kept busy by another process
    agrees within 5 % in its rate and its round trips, and both pass their gates: the gates judge
    the run, not the host's load (the engine holds the model's time under SCHED_FIFO; the agents
    count their own wake-ups inside each message's cost, beowulf_netlab/workloads/charge.py; the round trips are
    checked against the model)."""
    quiet = token_pair(tmp_path, "quiet")
    assert quiet["gates"]["ok"], quiet["gates"]
    hog = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        busy = token_pair(tmp_path, "busy")
    finally:
        hog.kill()
        hog.wait()
    assert busy["gates"]["ok"], (busy["gates"], busy["fidelity"])
    ratio = busy["throughput_mbyte_s"] / quiet["throughput_mbyte_s"]
    assert abs(ratio - 1) <= 0.05, (quiet["throughput_mbyte_s"], busy["throughput_mbyte_s"])
    rtt = busy["rtt_ms_median"] / quiet["rtt_ms_median"]
    assert abs(rtt - 1) <= 0.05, (quiet["rtt_ms_median"], busy["rtt_ms_median"])


def lone_round_trips_us(tb) -> tuple[float, float]:
    """A lone 1-byte TCP round trip between b0 and b1 (the calibration's: charges paid): the median
    and the quickest of 300, us."""
    r = token.run_exchange([(tb.host("b0"), tb.host("b1"))], size=1, tokens=1, exchanges=300)
    return r["rtt_ms_median"] * 1e3, min(p["rtt_ms_min"] for p in r["per_pair"]) * 1e3


def test_this_hosts_own_path_comes_off_a_1996_round_trip(testbed):
    """The demonstration profile's lone round trip, with this host's own path taken off
    (run.hostpath): what comes off is the path's quickest, so the quickest round trip reads the
    profile's constants within the calibration's 5 % and never under its frames' wire time, and
    no round trip reads quicker than with the path kept beyond one reading's noise. The median
    keeps the host's variable path on top: never under the model, and over it by what this host
    adds (here +1.5..+5.4 % in 28 readings of 300, quiet and with a core kept busy, one over 5 %;
    +6.2 % once on CI's busy host, where an earlier version of this test asserted 5 % on one
    reading's median and so failed), so it is bounded only where a wrong model would land: one pass of
    the engine's delay too many or too few moves it by 12-13 % (calibrations.json why_tolerance).
    The kept path reads no quicker than the model; how far over it is this host's own (16-27 us
    a round trip on the host of 2026-11-29, 100 us at its median on the host of 2026-11-30),
    recorded, not asserted; what was taken is at most each delay and is recorded."""
    tb = testbed("single-net", nodes=2, rate_mbit=100, hardware="demonstration-1996", host_path="keep")
    kept, kept_min = lone_round_trips_us(tb)
    tb = testbed("single-net", nodes=2, rate_mbit=100, hardware="demonstration-1996")
    rec = subtract_host_path(tb)
    cost = tb.spec.node("b0").host_cost
    assert rec is not None and tb.environment()["host_path"] == rec
    assert 0 <= rec["less_per_pass_us"] <= cost.per_packet_us and rec["hold_us"] > 2 * cost.per_packet_us
    taken, taken_min = lone_round_trips_us(tb)
    target = round_trip_us(cost, 100, 1, tb.spec.machine.card_latency_us)   # the card's latency is the model's
    seen = (taken, taken_min, target, kept, kept_min, rec)
    assert abs(taken_min / target - 1) <= 0.05, seen
    assert taken_min <= kept_min + 0.01 * target, seen
    assert target * 0.98 <= taken <= target * 1.10 and kept >= target * 0.98, seen
    assert taken_min >= 2 * carrier_ms(1 + 54, 100) * 1e3
