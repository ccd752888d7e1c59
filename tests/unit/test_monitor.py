"""The fidelity monitor's verdict, both ways (a monitor that never flags would fail here)."""
import pytest

from beowulf_netlab.run.monitor import CPU_SATURATED, WIRE_FULL, suspect, verdict


@pytest.mark.parametrize("softirq, process, util", [
    (0.97, 0.1, {"w0": 0.40}),            # the kernel moved frames on a whole core, wire half empty
    (CPU_SATURATED, 0.1, {"r0": 0.2, "c0": WIRE_FULL - 0.01}),
    (0.1, 0.96, {"w0": 0.40}),            # one of the run's processes filled a core
    (0.1, 1.0, {}),                       # no wire carried anything
])
def test_a_saturated_part_of_the_run_with_idle_wires_is_suspect(softirq, process, util):
    why = verdict(util, softirq=softirq, process=("iperf3/9", process))
    assert why and f"{max(softirq, process):.0%}" in why
    assert ("iperf3/9" in why) == (process >= CPU_SATURATED)


@pytest.mark.parametrize("softirq, process, util", [
    (0.50, 0.5, {"w0": 0.40}),            # nothing saturated
    (0.97, 0.97, {"w0": 0.95}),           # a full wire explains the busy kernel
    (CPU_SATURATED - 0.01, CPU_SATURATED - 0.01, {"w0": 0.1}),
])
def test_otherwise_trusted(softirq, process, util):
    assert verdict(util, softirq=softirq, process=("iperf3/9", process)) is None


def test_a_core_kept_busy_by_another_tenant_is_no_verdict():
    """The host's load is recorded, not judged: both cores 99 % busy with nothing of the run's
    saturated (a prototype token pair reads the same quiet and beside such load)."""
    fid = {"core_busy_mean": [0.99, 0.99], "wire_utilisation": {"w0": 0.1}, "softirq_busy_mean": [0.02, 0.03],
           "emulator_thread_busy": {}, "run_cpu": {"busy": 0.1, "waited": 0.01, "busiest": "python3/5",
                                                    "busiest_share": 0.06}}
    assert suspect(fid) is None
    assert suspect({**fid, "run_cpu": {**fid["run_cpu"], "busiest_share": 0.95}})


def test_a_busy_emulator_thread_is_suspect_even_beside_a_full_wire():
    why = verdict({"r0": 0.8}, ("ovs-vswitchd/5755", 0.9))
    assert why and "ovs-vswitchd/5755" in why
    assert verdict({"r0": 0.95, "c0": 0.5}, ("ovs-vswitchd/5755", 0.9))
    assert verdict({"r0": 0.8}, ("ovs-vswitchd/5755", 0.3)) is None


def test_the_run_cpu_is_of_the_runs_own_namespaces():
    """The run's processes are those in its namespaces: this process's own namespace here (a
    busy loop in it counts), and a monitor given no process reads none."""
    import os
    import time

    from beowulf_netlab.run.monitor import Monitor
    with Monitor({}, pids=[os.getpid()]) as mon:
        t = time.monotonic()
        while time.monotonic() - t < 0.3:
            pass
    run = mon.report()["run_cpu"]
    assert run is not None and run["processes"] >= 1 and run["busy"] > 0.3, run
    assert run["busiest_share"] > 0.3 and run["waited"] >= 0   # this loop, or a busier neighbour
    with Monitor({}) as mon:
        time.sleep(0.05)
    assert mon.report()["run_cpu"] is None


def test_the_monitor_records_how_crowded_the_host_was():
    import os
    import time

    from beowulf_netlab.run.monitor import Monitor
    with Monitor({}) as mon:
        time.sleep(0.3)
    rep = mon.report()
    assert 1 <= len(rep["softirq_busy_mean"]) <= (os.cpu_count() or 1)
    assert all(0.0 <= s <= 1.0 for s in rep["softirq_busy_mean"])
    assert rep["cpu_pressure"] is None or rep["cpu_pressure"] >= 0.0
