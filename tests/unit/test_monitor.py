"""The fidelity monitor's verdict, both ways (a monitor that never flags would fail here)."""
import pytest

from run.monitor import CPU_SATURATED, WIRE_FULL, verdict


@pytest.mark.parametrize("cpu, util", [
    (0.97, {"w0": 0.40}),                 # CPU pegged, wire half empty: the emulator set the pace
    (CPU_SATURATED, {"r0": 0.2, "c0": WIRE_FULL - 0.01}),
    (1.0, {}),                            # no wire carried anything
])
def test_saturated_cpu_with_idle_wires_is_suspect(cpu, util):
    why = verdict(cpu, util)
    assert why and "bottleneck" in why and f"{cpu:.0%}" in why


@pytest.mark.parametrize("cpu, util", [
    (0.50, {"w0": 0.40}),                 # nothing saturated
    (0.97, {"w0": 0.95}),                 # a full wire explains the busy CPU
    (CPU_SATURATED - 0.01, {"w0": 0.1}),
])
def test_otherwise_trusted(cpu, util):
    assert verdict(cpu, util) is None


def test_a_busy_emulator_thread_is_suspect_even_beside_a_full_wire():
    why = verdict(0.6, {"r0": 0.8}, ("ovs-vswitchd/5755", 0.9))
    assert why and "ovs-vswitchd/5755" in why
    assert verdict(0.6, {"r0": 0.95, "c0": 0.5}, ("ovs-vswitchd/5755", 0.9))
    assert verdict(0.6, {"r0": 0.8}, ("ovs-vswitchd/5755", 0.3)) is None


def test_the_monitor_records_how_crowded_the_host_was():
    import os
    import time

    from run.monitor import Monitor
    with Monitor({}) as mon:
        time.sleep(0.3)
    rep = mon.report()
    assert 1 <= len(rep["softirq_busy_mean"]) <= (os.cpu_count() or 1)
    assert all(0.0 <= s <= 1.0 for s in rep["softirq_busy_mean"])
    assert rep["cpu_pressure"] is None or rep["cpu_pressure"] >= 0.0
