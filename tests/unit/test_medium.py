"""The frame-timed medium: its engine's own tests (cargo, in virtual time), its configuration from a
spec, the choice between engine and tc wire, and what a point records of it. No root needed."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from beowulf_netlab.netlab.capabilities import Capabilities
from beowulf_netlab.netlab.impls import BuildError, BuildOptions, wire_impl
from beowulf_netlab.netlab.medium import (LAG_P50_BOUND_US, LAG_P99_BOUND_US, PROP_NS, engine_config, interval_lag, lag_percentiles,
                                          point_record)
from beowulf_netlab.run.gates import engine_late
from beowulf_netlab.topologies.presets import build_spec

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def cargo() -> str | None:
    return shutil.which("cargo") or next((c for c in (os.path.expanduser("~/.cargo/bin/cargo"),)
                                          if os.access(c, os.X_OK)), None)


@pytest.mark.skipif(cargo() is None, reason="no cargo here (./setup.sh installs one)")
def test_the_engine_model_passes_its_virtual_time_tests():
    """engine/src/model.rs's tests: 802.3 wire times, a lone frame's arrival at its last bit,
    CSMA/CD between Metcalfe-Boggs and a perfect arbiter for 2, 8 and 16 stations, the 16-attempt
    drop, full duplex, the card's gap, the stations of the idle instant contending together in any
    queue order, the repeater's delay in the collision window; config.rs refuses what it does not
    know; shell.rs refuses runts and oversize frames, repeats a hub's frames to every port and
    stays bounded under a fuzz of spoofed sources and storms."""
    r = subprocess.run([cargo(), "test", "--release", "--locked", "--offline", "-q"], cwd=ENGINE,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "test result: ok" in r.stdout


def test_the_config_names_every_wire_and_port_with_the_profiles_costs():
    spec = build_spec("single-net", nodes=2, rate_mbit=10, hardware="prototype-1995")
    text = engine_config(spec, [("p0", "w0", "b0"), ("p1", "w0", "b1")], seed=3)
    lines = text.splitlines()
    assert lines[0] == "seed 3"
    assert lines[1] == f"segment w0 rate_bps=10000000 duplex=half csma=1 prop_ns={PROP_NS}"
    cost = spec.node("b0").host_cost
    # a packet occupies the CPU for per_packet + bytes x per_byte (the prototype's 59 + 189 PIO)
    assert cost.per_byte_ns == 248
    delay = round((cost.per_packet_us + 177) * 1000)   # the per-packet cost and the card's latency
    # the card's device queue is its kernel's (Linux 1.2.13 never dropped there): the engine's guard
    assert lines[2] == (f"port p0 segment=w0 queue=10000 tx_delay_ns={delay} "
                        f"rx_delay_ns={delay} ps_per_byte=248000 tx_gap_ns=45000 "
                        "load_ps_per_byte=189000 buffers=2")   # the prototype card: 2 buffers, ISA load, its gap


def test_switch_ports_pay_no_host_latency_and_switched_ports_are_full_duplex():
    spec = build_spec("switched-mesh", nodes=4, rate_mbit=100, hardware="prototype-1995", tx_gap_us=70)
    ports = [("n", spec.wires[0].name, spec.members(spec.wires[0].name)[0].name),
             ("s", spec.wires[0].name, None)]
    lines = engine_config(spec, ports).splitlines()
    node, switch = lines[-2], lines[-1]
    assert "tx_gap_ns=70000" in node and "tx_delay_ns=0 " not in node
    assert switch.endswith("tx_delay_ns=0 rx_delay_ns=0 ps_per_byte=0 tx_gap_ns=0 load_ps_per_byte=0 buffers=1")
    # a node's card holds its frames back (its kernel's device queue); a switch's port keeps the wire's queue
    assert " queue=10000 " in node and f" queue={spec.wires[0].queue_packets} " in switch
    for w in spec.wires:
        seg = next(ln for ln in lines if ln.startswith(f"segment {w.name} "))
        assert ("duplex=full" in seg) == w.full_duplex


def test_a_relays_ports_charge_linux_1_2s_forwarding_copy_on_what_it_forwards():
    """The model's relayed round trip (netlab.hostcost.round_trip_us) has the relay's copy; the
    engine adds it to a frame the relay forwards (IPv4 source not its own), so a lone relayed
    round trip is not quicker than its model. 1.3.89 (the demonstration system) no longer copies."""
    spec = build_spec("routed-mesh", nodes=16, rate_mbit=10, hardware="prototype-1995")
    b3 = spec.node("b3")
    assert b3.forwarding and b3.host_cost.relay_copy_per_byte_ns == 59
    line = engine_config(spec, [("p", b3.wires[0], "b3")]).splitlines()[-1]
    assert line.endswith(f" fwd_ps_per_byte=59000 fwd_delay_ns=0 own={b3.ip}")
    # the host path taken off each pass (an endpoint's) goes back on a forwarded frame's two passes
    line = engine_config(spec, [("p", b3.wires[0], "b3")], less_ns=6000).splitlines()[-1]
    assert " fwd_delay_ns=12000 " in line
    demo = build_spec("routed-mesh", nodes=16, rate_mbit=100, hardware="demonstration-1996")
    assert " fwd_ps_per_byte=0 fwd_delay_ns=0 " in engine_config(demo, [("p", demo.node("b3").wires[0], "b3")])
    one = build_spec("single-net", nodes=2, rate_mbit=10, hardware="prototype-1995")
    assert "fwd_ps_per_byte" not in engine_config(one, [("p", "w0", "b0")])


def test_queue_packets_replaces_the_cards_device_queue_and_the_budgets_backlog():
    spec = build_spec("single-net", nodes=2, rate_mbit=10, hardware="prototype-1995", queue_packets=30)
    cost = spec.node("b0").host_cost
    assert (cost.queue_packets, cost.transmit_queue_frames) == (30, 30)
    assert " queue=30 " in engine_config(spec, [("p0", "w0", "b0")]).splitlines()[2]
    today = build_spec("single-net", nodes=2, rate_mbit=10)
    assert f" queue={today.wires[0].queue_packets} " in engine_config(today, [("p0", "w0", "b0")]).splitlines()[2]


def caps(engine: bool) -> Capabilities:
    return Capabilities(medium_engine=engine)


def test_the_engine_runs_where_it_is_built_and_the_network_fits():
    spec = build_spec("single-net", nodes=2, rate_mbit=100)
    assert wire_impl(spec, caps(True), BuildOptions()) == "engine"
    assert wire_impl(spec, caps(False), BuildOptions()) == "tc"
    assert wire_impl(spec, caps(True), BuildOptions(wire="tc")) == "tc"
    fast = build_spec("single-net", nodes=2, rate_mbit=1000)
    assert wire_impl(fast, caps(True), BuildOptions()) == "tc"
    for spec_, have in ((fast, True), (spec, False)):
        with pytest.raises(BuildError, match="--wire engine"):
            wire_impl(spec_, caps(have), BuildOptions(wire="engine"))


def test_lag_percentiles_read_the_histogram():
    assert lag_percentiles({}) == {"count": 0, "p50_us": 0.0, "p99_us": 0.0, "max_us": 0.0}
    lag = lag_percentiles({0: 90, 5: 9, 400: 1})
    assert lag == {"count": 100, "p50_us": 1.0, "p99_us": 6.0, "max_us": 401.0}


def snapshot(lag: list, cpu: float, up: float, frames: int, coll_ns: int = 0) -> dict:
    return {"lag": {"buckets": lag}, "cpu_s": cpu, "uptime_s": up, "late_arrivals": 0, "sched": "fifo:10",
            "segments": {"w0": {"frames": frames, "collisions": frames // 10, "busy_ns": frames * 1000,
                                "collision_ns": coll_ns}},
            "ports": {"p0": {"segment": "w0", "drops_queue": 0, "drops_collisions": frames // 100,
                             "deferrals": 0, "send_errors": 0}}}


def test_a_point_records_what_the_engine_did_in_it_alone():
    before = snapshot([[0, 10], [3, 1]], 1.0, 10.0, 100)
    after = snapshot([[0, 110], [3, 1], [70, 1]], 1.5, 12.0, 300, coll_ns=int(0.2e9))
    rec = point_record(before, after)
    assert rec["lag"] == {"count": 101, "p50_us": 1.0, "p99_us": 1.0, "max_us": 71.0}
    assert rec["engine_cpu"] == 0.25 and rec["engine_spin"] == 0
    assert rec["wires"]["w0"]["frames"] == 200 and rec["wires"]["w0"]["collisions"] == 20
    assert rec["wires"]["w0"]["collision_time"] == 0.1 and rec["wires"]["w0"]["drops_collisions"] == 2


def test_the_lags_max_is_exact_when_the_point_set_the_engines_running_max():
    before = {"buckets": [[0, 10]], "max_ns": 800}
    # the point's own lag set the running max: exact
    assert interval_lag(before, {"buckets": [[0, 10], [70, 1]], "max_ns": 70_450})["max_us"] == 70.45
    # an earlier, larger lag holds the running max: the point's bucket's upper edge
    before = {"buckets": [[0, 10], [300, 1]], "max_ns": 300_200}
    assert interval_lag(before, {"buckets": [[0, 10], [70, 1], [300, 1]], "max_ns": 300_200})["max_us"] == 71.0
    # past the last bucket (2 ms or more) only the running max bounds it
    before = {"buckets": [[2000, 1]], "max_ns": 9_000_000}
    assert interval_lag(before, {"buckets": [[2000, 2]], "max_ns": 9_000_000})["max_us"] == 9000.0
    assert interval_lag(None, before) is None and interval_lag(before, {}) is None


def full_snapshot(late: list, late_max: int, drops: int, errors: int, oversize: int, runts: int) -> dict:
    d = snapshot([[0, 10]], 1.0, 10.0, 100)
    d["lag"]["max_ns"] = 900
    d["late_arrival_lag"] = {"count": sum(c for _, c in late), "max_ns": late_max, "buckets": late}
    d["late_arrivals"] = sum(c for _, c in late)
    d["ports"]["p0"].update(socket_drops=drops, send_errors=errors, oversize=oversize, runts=runts)
    d["ports"]["p1"] = {**d["ports"]["p0"], "socket_drops": 1}
    return d


def test_a_point_records_its_late_arrivals_lateness_and_every_frame_lost_or_refused():
    before = full_snapshot([[3, 2]], 3_500, drops=1, errors=0, oversize=0, runts=0)
    after = full_snapshot([[3, 2], [40, 3], [1200, 1]], 1_200_300, drops=5, errors=2, oversize=7, runts=1)
    rec = point_record(before, after)
    assert rec["late_arrivals"] == 4
    assert rec["late_arrival_lag"] == {"count": 4, "p50_us": 41.0, "p99_us": 1200.3, "max_us": 1200.3}
    # two ports: p1 counts as p0 but for its socket drops (1 in both snapshots)
    assert (rec["socket_drops"], rec["send_errors"], rec["oversize"], rec["runts"]) == (4, 4, 14, 2)
    assert rec["lag"]["max_us"] == 0.0   # no release in the point
    after["lag"]["buckets"] = [[0, 12]]
    # two releases, none past the running max (900 ns): their bucket's edge, never above that max
    assert point_record(before, after)["lag"] == {"count": 2, "p50_us": 0.9, "p99_us": 0.9, "max_us": 0.9}


def test_an_older_engines_snapshots_leave_the_new_counters_unknown():
    rec = point_record(snapshot([[0, 1]], 1.0, 10.0, 100), snapshot([[0, 2]], 1.5, 12.0, 200))
    assert rec["late_arrival_lag"] is None
    assert (rec["socket_drops"], rec["oversize"], rec["runts"]) == (None, None, None)
    assert rec["send_errors"] == 0   # an older engine counted these already


def test_the_lag_gate_fails_a_late_engine_and_passes_a_prompt_one():
    assert engine_late(None) is None
    ok = {"count": 100, "p50_us": LAG_P50_BOUND_US, "p99_us": LAG_P99_BOUND_US}
    assert engine_late({"lag": ok, "engine_cpu": 0.3}) is None
    assert "1 %" in engine_late({"lag": {**ok, "p99_us": LAG_P99_BOUND_US + 1}, "engine_cpu": 0.3})
    assert "half" in engine_late({"lag": {**ok, "p50_us": LAG_P50_BOUND_US + 1}, "engine_cpu": 0.3})
    assert "busy" in engine_late({"lag": ok, "engine_cpu": 0.95})
    assert engine_late({"lag": ok, "engine_cpu": 0.95, "engine_spin": 0.3}) is None   # spinning is not work


def test_the_engine_is_the_checkouts_build_or_what_netlab_engine_names(monkeypatch, tmp_path):
    from beowulf_netlab.netlab import medium
    monkeypatch.delenv(medium.ENGINE_ENV, raising=False)
    assert medium.engine_path() == medium.ENGINE_BIN == ENGINE / "target" / "release" / "beowulf-medium"
    built = tmp_path / "beowulf-medium"
    built.write_text("#!/bin/sh\n")
    monkeypatch.setenv(medium.ENGINE_ENV, str(built))
    assert medium.engine_path() == built and not medium.engine_available()     # not executable
    built.chmod(0o755)
    assert medium.engine_available()
    other = tmp_path / "medium"                     # the monitor finds the engine by its name
    other.write_bytes(built.read_bytes())
    other.chmod(0o755)
    monkeypatch.setenv(medium.ENGINE_ENV, str(other))
    assert not medium.engine_available()
    assert f"NETLAB_ENGINE={other} is no executable file named beowulf-medium" in medium.engine_hint()


def test_doctor_says_how_to_get_the_engine_in_a_checkout_and_in_an_installed_copy(monkeypatch, tmp_path):
    """An installed copy has no engine/ and no setup.sh: doctor says the tc wire runs instead and
    how to build the engine and point at it, not ./setup.sh."""
    from beowulf_netlab.netlab import capabilities, impls, medium
    monkeypatch.delenv(medium.ENGINE_ENV, raising=False)
    assert medium.engine_hint() == "build it: ./setup.sh"            # this checkout
    monkeypatch.setattr(medium, "REPO", tmp_path / "site-packages")  # an installed copy's parent
    hint = medium.engine_hint()
    assert "./setup.sh" not in hint and "no engine/" in hint
    assert "cargo build --release --manifest-path CHECKOUT/engine/Cargo.toml" in hint
    assert "NETLAB_ENGINE=CHECKOUT/engine/target/release/beowulf-medium" in hint
    wire = next(line for line in capabilities.doctor_lines(caps(False)) if line.startswith("  shared wire"))
    assert "NO medium engine, so the tc wire runs instead (this installed copy has no engine/" in wire, wire
    assert "(--wire tc)" in wire
    with pytest.raises(BuildError, match="this installed copy has no engine/"):
        impls.wire_impl(build_spec("single-net", nodes=2), caps(False), BuildOptions(wire="engine"))
