"""The fidelity gates pass a point a real network could produce and fail the ones it could not."""
import pytest

from beowulf_netlab.run import gates as G
from beowulf_netlab.run.gates import evaluate as gate
from beowulf_netlab.run.gates import payload_capacity_bytes_s
from beowulf_netlab.run.point import filled
from beowulf_netlab.workloads import WORKLOADS

RATES = {"w0": 10.0, "w1": 10.0}
CAP = payload_capacity_bytes_s(10)       # 1.177 MB/s of payload on a 10 Mbit/s wire


def point(bytes_per_pair, elapsed, spans, path=(("w0",),), workload="token"):
    flows = [{"path": path, "bytes": b, "start": s, "end": e} for b, (s, e) in zip(bytes_per_pair, spans)]
    return {"workload": workload, "elapsed_s": elapsed, "flows": flows}


def evaluate(pt, fidelity, rates, bounds=None):
    """The gates as the runner applies them: with the point's workload's own declarations, on the
    point with its declared defaults filled (as the runner and the loader hand it)."""
    wl = WORKLOADS[pt["workload"]]
    return gate(filled(pt, pt["workload"]), fidelity, rates, bounds, wl.concurrent_pairs)


def fidelity(w0=None, w1=0, suspect=None):
    return {"wire_bytes": {"w0": w0, "w1": w1}, "suspect": suspect}


def test_a_possible_point_passes():
    pt = point([1_000_000] * 2, 2.0, [(0, 2.0), (0.05, 2.0)])
    assert evaluate(pt, fidelity(w0=2_150_000), RATES) == {"ok": True, "failed": [], "span_over_longest": 1.0}


def test_payload_faster_than_the_wire_fails():
    # the 1.212 MB/s single-net point: 16 pairs, sum of bytes / longest pair's time
    elapsed = 10.0
    total = 1.212e6 * elapsed
    pt = point([total / 16] * 16, elapsed, [(0, elapsed)] * 16)
    gates = evaluate(pt, fidelity(w0=int(total * 1.08)), RATES)
    assert not gates["ok"] and any("over capacity" in f for f in gates["failed"])
    assert total / elapsed > CAP


def test_payload_the_wire_never_counted_fails():
    pt = point([1_000_000], 1.0, [(0, 1.0)])
    gates = evaluate(pt, fidelity(w0=500_000), RATES)
    assert any("free bandwidth" in f for f in gates["failed"])


def test_pairs_that_did_not_run_at_once_fail_and_a_late_end_passes():
    pt = point([500_000, 500_000], 1.0, [(0, 1.0), (0.9, 1.9)])
    gates = evaluate(pt, fidelity(w0=1_100_000), RATES)
    assert any("concurrently" in f for f in gates["failed"]) and gates["span_over_longest"] == 1.9
    late = point([500_000, 400_000], 1.5, [(0, 1.5), (0, 1.0)])   # a retransmission time-out
    assert evaluate(late, fidelity(w0=1_100_000), RATES)["ok"]


def test_a_saturated_core_fails_and_bonded_groups_add_capacity():
    pt = point([1_000_000], 1.0, [(0, 1.0)])
    assert not evaluate(pt, fidelity(w0=1_100_000, suspect="a CPU core was 99% busy"), RATES)["ok"]
    bonded = point([2_000_000], 1.0, [(0, 1.0)], path=(("w0", "w1"),))
    assert evaluate(bonded, fidelity(w0=1_100_000, w1=1_100_000), RATES)["ok"]
    assert not evaluate(bonded, fidelity(w0=1_100_000, w1=1_100_000), {"w0": 10.0, "w1": 5.0})["ok"]


def test_a_flow_reporting_its_own_rate_is_gated_on_its_own_seconds():
    """iperf/ttcp report each stream's bytes over its own seconds: the gate uses that base."""
    fast = {"workload": "iperf", "elapsed_s": 10.0,
            "flows": [{"path": (("w0",),), "bytes": int(CAP * 5 * 1.1), "seconds": 5.0}]}
    assert any("over capacity" in f for f in evaluate(fast, fidelity(w0=10**8), RATES)["failed"])
    fine = {**fast, "flows": [{**fast["flows"][0], "seconds": 6.0}]}
    assert evaluate(fine, fidelity(w0=10**8), RATES)["ok"]


def test_disk_bound_figures_above_their_disks_fail():
    bounds = lambda p: [("aggregate copy rate", p["throughput_mbyte_s"], 7 * 1.67)]  # noqa: E731
    for measured, ok in ((11.6, True), (12.0, True), (12.9, False)):
        pt = {"workload": "filecopy", "throughput_mbyte_s": measured, "flows": []}
        gates = evaluate(pt, fidelity(w0=0), RATES, bounds)
        assert gates["ok"] == ok, (measured, gates)


def util(w0, w1=0.0, cores=(0.3, 0.3), threads=None, softirq=(0.05, 0.05), run=None):
    return {"wire_bytes": {}, "suspect": None, "wire_utilisation": {"w0": w0, "w1": w1},
            "core_busy_mean": list(cores), "emulator_thread_busy": threads or {},
            "softirq_busy_mean": list(softirq), "run_cpu": run}


def test_a_stalled_transport_fails_unless_something_else_was_the_limit():
    """Demand queued on every flow while its wires idle: the host's bbr case (wire 0.55 busy)."""
    pt = {"workload": "token", "elapsed_s": 2.0, "tcp": {"congestion_control": "bbr", "retrans_segs": 0,
                                                          "timeouts": 0},
          "flows": [{"path": (("w0",),), "bytes": 10**5, "start": 0, "end": 2, "backlogged": True}] * 4}
    gates = evaluate(pt, util(0.55), RATES)
    assert not gates["ok"] and "stalled transport" in gates["failed"][0] and "bbr" in gates["failed"][0]
    assert evaluate(pt, util(0.97), RATES)["ok"]                               # the wire was full
    # the run's own process filled a core while the wires idled: the monitor says so, once
    hot = util(0.55, cores=(0.95, 0.2), run={"busy": 1.1, "waited": 0.05, "busiest": "iperf3/7",
                                             "busiest_share": 0.95})
    said = evaluate(pt, hot, RATES)["failed"]
    assert len(said) == 1 and "iperf3/7" in said[0] and "95%" in said[0], said
    assert evaluate(pt, {**hot, "suspect": "stored by an older rule"}, RATES)["failed"] == said
    # the kernel moving frames filled a core: the emulator, not TCP (the monitor says so)
    kernel = evaluate(pt, util(0.55, softirq=(0.93, 0.1)), RATES)["failed"]
    assert len(kernel) == 1 and "softirq" in kernel[0], kernel
    # an OVS thread near saturation beside a full wire: the monitor spares the point, not the flow
    thread = evaluate(pt, util(0.55, w1=0.95, threads={"ovs-vswitchd/7": 0.85}), RATES)["failed"]
    assert any("ovs-vswitchd/7" in f for f in thread), thread
    # another tenant kept both cores busy, the run's processes never waited: TCP stalled (no excuse)
    tenant = evaluate(pt, util(0.55, cores=(0.99, 0.99), run={"busy": 0.2, "waited": 0.01,
                                                              "busiest": "x/1", "busiest_share": 0.1}), RATES)
    assert tenant["failed"][0].startswith("stalled transport"), tenant
    # the run's processes waiting for a CPU is no verdict alone (8 pairs' agents on 2 cores wait
    # most of the time on a quiet host); beside a kernel crowded with frames it is said
    waited = {"busy": 0.2, "waited": 0.2, "busiest": "x/1", "busiest_share": 0.1}
    assert evaluate(pt, util(0.80, cores=(0.99, 0.99), run=waited), RATES)["ok"]
    both = evaluate(pt, util(0.80, softirq=(0.6, 0.1), run=waited), RATES)["failed"]
    assert both[0].startswith("crowded host") and "waited for a CPU 50%" in both[0], both
    assert evaluate({**pt, "cpu_busy": {"b0": 0.9}}, util(0.55), RATES)["ok"]  # the modelled CPU was
    lossy = {**pt, "tcp": {**pt["tcp"], "retrans_segs": 30}}                  # 30 of 276 segments
    assert evaluate(lossy, util(0.55), RATES)["ok"]                            # TCP backed off on loss
    latency_bound = {**pt, "flows": [{**f, "backlogged": False} for f in pt["flows"]]}
    assert evaluate(latency_bound, util(0.2), RATES)["ok"]                     # one token in flight
    # a flow limited elsewhere on its path: its other wire may idle
    two_hops = {**pt, "flows": [{"path": (("w0",), ("w1",)), "bytes": 10**5, "start": 0, "end": 2,
                                 "backlogged": True}]}
    assert evaluate(two_hops, util(0.3, w1=0.95), RATES)["ok"]


def test_a_crowded_host_fails_a_held_back_flow_even_with_retransmissions():
    """One flow beside another network's traffic (bench, switched-cluster at 100 Mbit/s): 0.65 of its
    limit, 621 retransmissions with no frame dropped on a wire, no core pegged, softirq 70 % of a
    core: late frames, not lost ones, made TCP back off."""
    pt = {"workload": "iperf", "elapsed_s": 6.0,
          "tcp": {"congestion_control": "cubic", "retrans_segs": 9, "timeouts": 0},
          "flows": [{"path": (("w0",), ("w1",)), "bytes": 600_000, "seconds": 6.0, "backlogged": True}]}
    crowded = {**util(0.64, w1=0.64, cores=(0.78, 0.73)), "cpu_pressure": 0.69, "softirq_busy_mean": [0.7, 0.62]}
    gates = evaluate(pt, crowded, RATES)
    assert not gates["ok"] and gates["failed"][0].startswith("crowded host") and "70%" in gates["failed"][0]
    lossy = {**pt, "tcp": {**pt["tcp"], "retrans_segs": 30}}                   # 30 of 414 segments
    assert not evaluate(lossy, crowded, RATES)["ok"]                            # late frames, not losses
    quiet = {**crowded, "cpu_pressure": 0.69, "softirq_busy_mean": [0.15, 0.1]}  # busy user tasks only
    assert evaluate(lossy, quiet, RATES)["ok"]                                  # TCP's own loss recovery
    full = {**crowded, "wire_utilisation": {"w0": 0.95, "w1": 0.95}}
    assert evaluate(pt, full, RATES)["ok"]                      # the path was full: nothing held it back
    assert not evaluate(lossy, full, RATES)["ok"]               # ... but its wires carried 7 % duplicates
    assert not evaluate(pt, {**crowded, "wire_utilisation": {"w0": 0.85, "w1": 0.85}}, RATES)["ok"]


def test_a_saturated_emulator_fails_a_flow_whose_own_path_idled_beside_a_full_wire():
    """8 mesh flows at 141 Mbit/s: 0.86 of their limit, a core 99 % busy; one full wire spared the
    point the monitor's verdict, yet it explains nothing for the flow on the other wire."""
    flows = [{"path": (("w0",),), "bytes": 10**5, "seconds": 2.0, "backlogged": True},
             {"path": (("w1",),), "bytes": 10**5, "seconds": 2.0, "backlogged": True}]
    pt = {"workload": "iperf", "elapsed_s": 2.0, "flows": flows, "tcp": {"retrans_segs": 0, "timeouts": 0}}
    gates = evaluate(pt, util(0.95, w1=0.80, softirq=(0.99, 0.9)), RATES)
    assert not gates["ok"] and "w1" in gates["failed"][0] and "99%" in gates["failed"][0]
    assert evaluate(pt, util(0.95, w1=0.93, softirq=(0.99, 0.9)), RATES)["ok"]     # every path full
    # the same with both cores busy with another tenant's work: no part of the run was saturated
    assert evaluate(pt, util(0.95, w1=0.80, cores=(0.99, 0.99)), RATES)["ok"]
    thread = {**util(0.95, w1=0.80), "emulator_thread_busy": {"ovs-vswitchd/7": 0.95}}
    assert not evaluate(pt, thread, RATES)["ok"]


def test_a_time_out_the_minimum_rto_explains_is_not_a_stalled_transport():
    """A collision drop on the prototype's TCP (no fast retransmit) idles a flow for its 200 ms
    minimum RTO: that is the model, not a transport holding data back."""
    flows = [{"path": [["w0"]], "bytes": 900_000, "start": 0.0, "end": 1.0, "backlogged": True}]
    fidelity = {"wire_utilisation": {"w0": 0.70}, "core_busy_mean": [0.3, 0.3], "wire_bytes": {"w0": 950_000}}
    point = filled({"elapsed_s": 1.0, "flows": flows,
             "tcp": {"congestion_control": "reno", "retrans_segs": 1, "timeouts": 1, "rto_min_ms": 200}}, "iperf")
    assert G._stalled(point, flows, fidelity) is None
    point["tcp"] = {**point["tcp"], "timeouts": 0, "retrans_segs": 0}
    assert G._stalled(point, flows, fidelity).startswith("stalled transport")


def test_a_time_scaled_points_minimum_rto_is_counted_once():
    """The RTO a point records is the one its routes carried, already x D (netlab.node reads it
    back): 800 ms at D = 4 idles a flow for 0.8 s of the point's (scaled) time, not 3.2 s."""
    flows = [{"path": [["w0"]], "bytes": 900_000, "start": 0.0, "end": 1.0, "backlogged": True}]
    fidelity = {"wire_utilisation": {"w0": 0.70}, "core_busy_mean": [0.3, 0.3], "wire_bytes": {"w0": 950_000}}
    point = filled({"elapsed_s": 20.0, "flows": flows, "time_scale": 4,
             "tcp": {"congestion_control": "reno", "retrans_segs": 1, "timeouts": 1, "rto_min_ms": 800}}, "iperf")
    assert G._stalled(point, flows, fidelity).startswith("stalled transport")   # 0.8 s of 20 s
    assert G._stalled({**point, "elapsed_s": 10.0}, flows, fidelity) is None     # 0.8 s of 10 s


def test_a_cards_gap_is_not_a_stalled_transport():
    """With a 615 us gap after every 10 Mbit/s frame a lone sender's card uses 2/3 of its wire
    (measured: 0.69); that share, not the wire, is what its busy share counts against."""
    flows = [{"path": [["w0"]], "bytes": 4_700_000, "start": 0.0, "end": 6.0, "backlogged": True}]
    fidelity = {"wire_utilisation": {"w0": 0.69}, "core_busy_mean": [0.1, 0.1], "wire_bytes": {"w0": 6_000_000}}
    point = filled({"elapsed_s": 6.0, "flows": flows, "rate_mbit": 10,
             "tcp": {"congestion_control": "cubic", "retrans_segs": 0, "timeouts": 0}}, "iperf")
    assert G._stalled(point, flows, fidelity).startswith("stalled transport")   # no gap: stalled
    assert abs(G.card_share({**point, "tx_gap_us": 615}) - 1538 / (1538 + 769)) < 1e-9
    assert G._stalled({**point, "tx_gap_us": 615}, flows, fidelity) is None
    # the gap excuses only its own share: half of it is still a stall
    half = {**fidelity, "wire_utilisation": {"w0": 0.35}}
    assert G._stalled({**point, "tx_gap_us": 615}, flows, half).startswith("stalled transport")


def test_a_contended_wire_is_judged_against_the_rate_its_controller_held():
    from beowulf_netlab.netlab.contention import ContentionControl

    class Wire:
        rate_mbit = 10.0
        ifb = "x"

        def port_names(self):
            return ["p0"]
    ctl = ContentionControl({"w0": Wire()}, "bnl00")
    st = ctl.states[0]
    t0 = st.history[0][0]
    st.history.append((t0 + 1.0, 6.0))      # the controller lowered it after one second
    assert ctl.mean_rate_mbit("w0", t0, t0 + 2.0) == pytest.approx(8.0)
    assert ctl.mean_rate_mbit("w0", t0 + 1.0, t0 + 2.0) == pytest.approx(6.0)
    assert ctl.mean_rate_mbit("w9", t0, t0 + 1) is None


def test_a_lost_charge_fails_the_point():
    """A charge-channel datagram a full budget queue dropped left work uncharged."""
    from beowulf_netlab.run.gates import evaluate
    fid = {"wire_bytes": {}, "suspect": None}
    ok = evaluate({"flows": [], "per_copy": [{"charges_lost": 0}]}, fid, {})
    bad = evaluate({"flows": [], "per_pair": [{"charges_lost": 0}, {"charges_lost": 2}]}, fid, {})
    assert ok["ok"] and not bad["ok"] and "charges lost: 2" in bad["failed"][0]


def test_only_a_passing_host_stall_is_measured_again():
    """1 % of frames late with the median on time is a stall of the host; a late median, a busy
    engine or any other failed gate beside it is the model's or the emulator's and stands."""
    def judged(p50, p99, cpu=0.5, other=()):
        medium = {"lag": {"count": 1000, "p50_us": p50, "p99_us": p99, "max_us": 2001},
                  "engine_cpu": cpu, "engine_spin": 0.0}
        failed = [*other, *([G.engine_late(medium)] if G.engine_late(medium) else [])]
        return {"medium": medium, "gates": {"ok": not failed, "failed": failed}}

    assert G.host_stalled(judged(3, 1511))
    assert not G.host_stalled(judged(3, 40))                   # passed: nothing to measure again
    assert not G.host_stalled(judged(50, 1511))                # every round trip late
    assert not G.host_stalled(judged(3, 40, cpu=0.95))         # the engine was the bottleneck
    assert not G.host_stalled(judged(3, 1511, other=["charges lost: 1"]))
    assert not G.host_stalled({"gates": {"ok": False, "failed": ["x"]}})   # no engine record


def test_a_lone_stall_and_a_slow_hosts_round_trips_are_measured_again_but_lost_frames_are_not():
    """One frame held past the longest bound (a stall of 780 ms once in a quick run, p50 and
    p99 on time), and lone round trips over the model's tolerance, are the host's passing
    time; frames lost outside the model are not, nor two failures at once."""
    def judged(medium, other=()):
        failed = [*other, *([G.engine_late(medium)] if G.engine_late(medium) else [])]
        return {"medium": medium, "gates": {"ok": not failed, "failed": failed}}
    stall = {"lag": {"count": 1000, "p50_us": 2, "p99_us": 30, "max_us": 780_000}, "engine_cpu": 0.3}
    assert "stalled the wires" in G.engine_late(stall) and G.host_stalled(judged(stall))
    slow = ("slow host: b0->b1's lone round trips took 2.537 ms (median) against the model's 2.410 "
            "(+5%, tolerance 5%): the host's own time, not the model's, set them")
    assert slow.startswith(G.SLOW_HOST) and G.host_stalled(judged({}, [slow]))
    assert not G.host_stalled(judged(stall, [slow]))                   # two failures: not one stall
    lost = {"lag": {"count": 1000, "p50_us": 2, "p99_us": 30, "max_us": 90}, "socket_drops": 5,
            "send_errors": 0, "frames": 1000}
    assert G.engine_late(lost).startswith(G.LOST) and not G.host_stalled(judged(lost))


def test_the_report_counts_the_points_measured_again():
    from beowulf_netlab.judge.report import gate_summary
    base = {"topology": "single-net", "placement": "any", "fidelity": {"suspect": None},
            "gates": {"ok": True, "failed": []}}
    doc = {"points": [{**base, "point_index": 0}, {**base, "point_index": 1, "remeasured": ["late"]}]}
    assert gate_summary({"e": doc}) == [("e", 2, 0, ["1 point(s) measured again after a passing stall "
                                                     "of the host"])]


def _lone(pairs: list[tuple[float, float]], shared: bool = False, **over) -> dict:
    """A prototype token point of 1-byte tokens, one in flight, each pair on its own wire
    (or, shared, all on one), each pair's (median, quickest) round trip in ms."""
    return filled({"workload": "token", "hardware": "prototype-1995", "rate_mbit": 10.0, "wire_impl": "engine",
            "tokens_in_flight": 1, "token_size": 1, "transport": "tcp",
            "flows": [{"path": [["w0" if shared else f"w{i}"]], "bytes": 100} for i in range(len(pairs))],
            "per_pair": [{"src": f"b{2 * i}", "dst": f"b{2 * i + 1}", "rtt_ms_median": m, "rtt_ms_min": q}
                         for i, (m, q) in enumerate(pairs)], **over}, "token")


def test_a_lone_round_trip_off_the_models_time_fails_the_point():
    """The model's lone round trip on the prototype is 1.702 ms (netlab.hostcost.round_trip_us, no
    card latency): 8 pairs on 8 wires that read 2.03 ms had every other gate green."""
    assert G.lone_round_trip(_lone([(1.74, 1.71)])) is None
    slow = G.lone_round_trip(_lone([(1.74, 1.71), (2.03, 1.73)]))
    assert slow and slow.startswith("slow host") and "b2->b3" in slow and "1.702" in slow
    short = G.lone_round_trip(_lone([(1.72, 1.50)]))
    assert short and short.startswith("short round trip")
    # not the model's round trip alone: pairs sharing a wire, two tokens, big tokens, today's hosts
    assert G.lone_round_trip(_lone([(2.5, 2.0), (2.5, 2.0)], shared=True)) is None
    assert G.lone_round_trip(_lone([(2.5, 2.0)], tokens_in_flight=2)) is None
    assert G.lone_round_trip(_lone([(9.9, 9.0)], token_size=8192)) is None
    assert G.lone_round_trip(_lone([(2.5, 2.0)], hardware="none")) is None
    # a time-scaled point's round trips are D times the model's
    assert G.lone_round_trip(_lone([(4 * 1.74, 4 * 1.71)], time_scale=4)) is None


def test_the_lone_round_trip_tolerance_is_the_round_trip_calibrations():
    from beowulf_netlab.run.calibration import load_calibrations
    tolerances = {c["tolerance"] for c in load_calibrations() if c["id"].endswith("-round-trip")}
    assert tolerances == {G.LONE_RTT_TOLERANCE}


def test_the_lag_bounds_scale_with_the_wires_frame_time():
    """A 100 Mbit/s wire's 99th percentile is held ten times closer than a 10 Mbit/s one's (a full
    frame: 1230.4 and 123.04 us), the median to 10 us at both; the longest lag to a quarter of
    the point's minimum RTO."""
    ten, hundred = G.lag_bounds_us({"rate_mbit": 10}), G.lag_bounds_us({"rate_mbit": 100})
    assert ten["p50"] == 10 and ten["p99"] == 200 and ten["max"] == 50_000
    assert hundred["p50"] == 10 and hundred["p99"] == pytest.approx(123.04)
    assert G.lag_bounds_us({"rate_mbit": 10, "tcp": {"rto_min_ms": 800}})["max"] == 200_000
    medium = {"lag": {"count": 1000, "p50_us": 2.0, "p99_us": 150.0, "max_us": 900.0},
              "wires": {"w0": {"frames": 1000}}}
    assert G.engine_late(medium, ten) is None
    assert "1 %" in G.engine_late(medium, hundred)
    stalled = {**medium, "lag": {**medium["lag"], "p99_us": 100.0, "max_us": 61_000.0}}
    assert G.engine_late(stalled, hundred) is None or "ms late" in G.engine_late(stalled, hundred)
    assert "61.0 ms late" in G.engine_late(stalled, ten)


def test_a_p99_needs_a_hundred_frames_and_an_idle_networks_chatter_is_not_judged():
    """Of fewer than 100 frames the 99th percentile is their maximum (the longest lag's own
    bound judges it); an all-local copy point (no flow on any wire) cannot feel the wires'
    timing: its hosts' chatter, released late while the copies hold the cores, fails nothing."""
    hundred = G.lag_bounds_us({"rate_mbit": 100})
    few = {"lag": {"count": 24, "p50_us": 4.0, "p99_us": 1118.0, "max_us": 1118.0}}
    assert G.engine_late(few, hundred) is None
    assert "1 %" in G.engine_late({"lag": {**few["lag"], "count": 100}}, hundred)
    chatter = {"lag": {"count": 24, "p50_us": 153.0, "p99_us": 1368.0, "max_us": 1368.0}}
    assert "half the frames" in G.engine_late(chatter, hundred)
    assert not G.uses_wires({"wire_load": {}}) and not G.uses_wires({"wire_load": {"w0": 0}})
    assert G.uses_wires({"wire_load": {"w0": 1}}) and G.uses_wires({})   # a token point records none
    local = {"rate_mbit": 100, "wire_load": {}, "flows": [], "medium": chatter}
    assert not any("medium engine" in f for f in G.evaluate(local, {}, {})["failed"])
    remote = {**local, "wire_load": {"w0": 1}}
    assert any("half the frames" in f for f in G.evaluate(remote, {}, {})["failed"])


def test_late_arrivals_and_lost_frames_fail_the_point():
    """Frames the engine read after the model had passed their arrival were delayed by that much;
    frames the kernel dropped before the engine read them never reached the model."""
    ok = {"lag": {"count": 10_000, "p50_us": 1.0, "p99_us": 20.0, "max_us": 300.0},
          "wires": {"w0": {"frames": 10_000, "send_errors": 0}}}
    b = G.lag_bounds_us({"rate_mbit": 10})
    assert G.engine_late(ok, b) is None
    few = {**ok, "late_arrival_lag": {"count": 50, "p50_us": 500.0, "p99_us": 900.0, "max_us": 1000.0}}
    assert G.engine_late(few, b) is None                    # 0.5 % of the frames: within the 1 %
    many = {**few, "late_arrival_lag": {**few["late_arrival_lag"], "count": 300}}
    assert "after the model had passed their arrival" in G.engine_late(many, b)
    prompt = {**many, "late_arrival_lag": {**many["late_arrival_lag"], "p50_us": 5.0}}
    assert G.engine_late(prompt, b) is None                 # 3 %, but only a few us late
    stall = {**few, "late_arrival_lag": {**few["late_arrival_lag"], "max_us": 80_000.0}}
    assert "80.0 ms after its arrival" in G.engine_late(stall, b)
    assert "5 dropped by the kernel" in G.engine_late({**ok, "socket_drops": 5}, b)
    assert "2 failed sends" in G.engine_late({**ok, "wires": {"w0": {"frames": 10_000, "send_errors": 2}}}, b)
    assert G.engine_late({**ok, "wires": {"w0": {"frames": 10_000, "send_errors": 1}}}, b) is None


def test_a_pair_through_a_switch_or_a_relay_is_held_to_its_own_paths_model():
    """A switch adds one frame's delivery time on the next wire each way (store and forward: its
    carrier and the hub's path, no gap: 1.702 -> 1.822 ms on the prototype at 10 Mbit/s); a relay
    adds that and a receive and a send on its own CPU (2.243 ms, no card latency): a relayed pair
    at 2.28 ms is on its model, not a slow host, and a switched one at 1.70 ms came in under its
    model."""
    from beowulf_netlab.netlab.hostcost import round_trip_us
    from beowulf_netlab.topologies.hardware import load
    cost = load("prototype-1995").host_cost
    # 2 x (57.6 us of carrier + 1.14 us of cable + 1 us of the hub's repeater)
    assert round_trip_us(cost, 10, 1, via=("switch",)) - round_trip_us(cost, 10, 1) == pytest.approx(119.48)
    relayed = round_trip_us(cost, 10, 1, via=("relay",)) / 1e3
    assert relayed == pytest.approx(2.243, abs=1e-3)
    two = lambda via, m, q, **over: _lone([(m, q)], flows=[{"path": [["r0"], ["c1"]], "bytes": 100, "via": via}],
                                          **over)
    assert G.lone_round_trip(two(["relay"], 2.28, 2.26)) is None
    assert G.lone_round_trip(two(["switch"], 2.28, 2.26)).startswith("slow host")
    assert G.lone_round_trip(two(["switch"], 1.86, 1.70)).startswith("short round trip")
    # a document from before `via` was recorded: the pair's placement names its relay
    old = two(["relay"], 2.28, 2.26, pairs_placed=["b0->b5 via b1 [r0 + c1]"])
    del old["flows"][0]["via"]
    assert G.flow_via(old, 0) == ("relay",) and G.lone_round_trip(old) is None
    old["pairs_placed"] = ["b0->b5 [r0 + c1]"]
    assert G.flow_via(old, 0) == ("switch",)
    assert G.flow_via(old, 3) == ()


def test_the_model_charges_each_segment_its_own_path_delay():
    """Each frame's delivery time is its carrier and its segment's path (engine/src/model.rs): a
    hub adds its repeater's 1 us at 10 Mbit/s, a full-duplex port none, so a lone round trip
    through a switch between two switched ports (the switched cluster) is 4 us shorter than
    between two hubs; the segments' duplex is read from the point's topology as built."""
    from beowulf_netlab.netlab.hostcost import round_trip_us
    from beowulf_netlab.topologies.hardware import load
    cost = load("prototype-1995").host_cost
    hubs = round_trip_us(cost, 10, 1, via=("switch",))
    assert hubs - round_trip_us(cost, 10, 1, via=("switch",), full_duplex=True) == pytest.approx(4.0)
    assert hubs - round_trip_us(cost, 10, 1, via=("switch",), full_duplex=(True, False)) == pytest.approx(2.0)
    with pytest.raises(ValueError):
        round_trip_us(cost, 10, 1, via=("switch",), full_duplex=(True,))
    cluster = _lone([(1.85, 1.83)], topology="switched-cluster", nodes=4,
                    flows=[{"path": [["p0"], ["p1"]], "bytes": 100, "via": ["switch"]}])
    assert G.flow_duplex(cluster, 0) == (True, True)
    assert G.model_round_trip_us(cluster, ("switch",), G.flow_duplex(cluster, 0)) == pytest.approx(hubs - 4.0)
    mesh = _lone([(1.85, 1.83)], topology="switched-mesh", nodes=16,
                 flows=[{"path": [["r0"], ["r1"]], "bytes": 100, "via": ["switch"]}])
    assert G.flow_duplex(mesh, 0) == (False, False)
    assert G.flow_duplex(_lone([(1.85, 1.83)]), 0) == (False,)   # no topology: hubs, a wire's default
