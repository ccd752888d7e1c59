"""The fidelity gates on real networks: a point the emulator could not carry is
caught; the default switch is not the bottleneck at the papers' rates."""
from tests.integration import require_testbed  # noqa: E402

require_testbed()

import pytest  # noqa: E402

from beowulf_netlab.netlab.testbed import BuildOptions  # noqa: E402
from beowulf_netlab.run.monitor import THREAD_SATURATED  # noqa: E402
from beowulf_netlab.run.results import new_document  # noqa: E402
from beowulf_netlab.run.runner import run_sweep  # noqa: E402
from beowulf_netlab.run.sweep import Sweep  # noqa: E402


def one_flow(tmp_path, switch: str, wire: str = "auto", rate_mbit: float = 100) -> dict:
    sweep = Sweep.make("iperf", {"topology": ["bonded-switched-mesh"], "rate_mbit": [rate_mbit], "pairs": [1],
                                 "placement": ["local-wire"], "duration": 5})
    doc = new_document("iperf", sweep.parameters())
    run_sweep(sweep, doc, tmp_path / f"{switch}-{wire}-{rate_mbit}.json", BuildOptions(switch=switch, wire=wire),
              progress=False)
    [point] = doc["points"]
    return point


def test_a_pegged_emulator_thread_fails_the_gates_and_the_default_switch_does_not(tmp_path, caps):
    # the default switch is never what a 100 Mbit/s flow fails by; the engine itself may be: one
    # of today's TCP flows over a bonded pair keeps it near a whole core (each release runs the
    # receiving stack in its thread), and its release lag's 99th percentile read 116-160 us
    # against the one frame (123 us) it is held to, with or without a core kept busy (2026-11-29;
    # stop 47's CI read it under the bound): the gate says so, and that is not the switch's
    fast = one_flow(tmp_path, "auto")
    assert not any("emulator thread" in f or "ovs-vswitchd" in f for f in fast["gates"]["failed"]), fast["gates"]
    if caps.ovs_kernel_datapath or not caps.ovs_daemon:
        return  # the userspace datapath is not this host's bottleneck case
    # on the tc wire, where the switch alone can be the bottleneck (the engine paces every frame
    # itself, which leaves OVS's thread below saturation), at a rate its one forwarding thread
    # cannot carry: at 100 Mbit/s it read 74-79 % busy, at 1000 Mbit/s 97 % (610 Mbit/s against
    # the bridge's 1792 over the bonded pair)
    # (beside other work the bridge's own path carried less than OVS once: 1205 against 1371
    # Mbit/s, so the two are not compared)
    slow = one_flow(tmp_path, "ovs-user", wire="tc", rate_mbit=1000)
    assert slow["switch_impl"] == "ovs-user"
    busiest = max(slow["fidelity"]["emulator_thread_busy"].values(), default=0.0)
    if busiest < THREAD_SATURATED:
        pytest.skip(f"OVS's forwarding thread reached only {busiest:.0%} at 1000 Mbit/s on this host: "
                    "the senders, not the switch, were the limit, so the gate had nothing to catch")
    assert not slow["gates"]["ok"] and any("ovs-vswitchd" in f for f in slow["gates"]["failed"]), \
        (slow["gates"], slow["fidelity"])


def test_token_points_record_flows_and_pass_their_gates(tmp_path):
    sweep = Sweep.make("token", {"topology": ["single-net", "routed-mesh"], "pairs": [4],
                                 "placement": ["any", "remote-wire"], "token_size": [8192],
                                 "tokens_in_flight": [2], "duration": 2.0})
    doc = new_document("token", sweep.parameters())
    run_sweep(sweep, doc, tmp_path / "t.json", BuildOptions(), progress=False)
    for p in doc["points"]:
        assert p["gates"]["ok"], p["gates"]
        assert p["gates"]["span_over_longest"] < 1.1 and len(p["flows"]) == 4
        carried = sum(p["fidelity"]["wire_bytes"].values())
        assert carried >= sum(f["bytes"] * len(f["path"]) for f in p["flows"])
    routed = next(p for p in doc["points"] if p["topology"] == "routed-mesh")
    assert sorted(routed["wire_load"].values()) == [1] * 8, routed["wire_load"]
