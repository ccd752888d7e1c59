"""Fidelity monitor, in the spirit of Mininet-HiFi's invariants.

While a point runs, sample every CPU core (/proc/stat) and what each wire
carried (its IFB's byte counter, which includes Ethernet framing), keyed by
the wire's name in the spec. `report` gives the raw figures; the gates
(run.gates) judge them against what the workload says it moved.
The monitor judges the run's own work, never the host's load: another tenant
may keep every core busy without harming a point (the engine holds the model's
time under SCHED_FIFO), so a busy core is recorded, not judged. Its verdict
marks a point `suspect` when a thread of a single-threaded emulator part (OVS's
userspace datapath) was near saturation, or, with no wire close to full, when
the kernel spent nearly a core moving frames (softirq) or one of the run's own
processes (those in the run's namespaces: its agents, iperf3) nearly filled a
core. The run's processes are read from their schedstat: the CPU they used and
the time they waited, runnable, for a CPU (`run_cpu`): that wait is how much
other work crowded the run, which the gates read beside softirq (run.gates).
"""
from __future__ import annotations

import os
import threading
import time

from beowulf_netlab.core.fields import Field, prop

CPU_SATURATED = 0.90
THREAD_SATURATED = 0.80
WIRE_FULL = 0.90


def softirq_times() -> list[tuple[int, int]]:
    """(softirq, total) jiffies per core."""
    out = []
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3:4].isdigit():
                fields = [int(x) for x in line.split()[1:9]]
                out.append((fields[6], sum(fields)))
    return out


def cpu_pressure_us() -> int | None:
    """Microseconds some task has waited for a CPU since boot (PSI), or None without PSI."""
    try:
        with open("/proc/pressure/cpu") as f:
            return int(f.readline().split("total=")[1])
    except (OSError, IndexError, ValueError):
        return None


def cpu_times() -> list[tuple[int, int]]:
    """(busy, total) jiffies per core."""
    out = []
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3:4].isdigit():
                fields = [int(x) for x in line.split()[1:9]]   # guest time is already in user/nice
                idle = fields[3] + fields[4]  # idle + iowait
                out.append((sum(fields) - idle, sum(fields)))
    return out


def netns_of(pid: int) -> str | None:
    """The network namespace a process is in ('net:[inode]'), or None once it is gone."""
    try:
        return os.readlink(f"/proc/{pid}/ns/net")
    except OSError:
        return None


def run_processes(namespaces: set[str]) -> dict[int, tuple[str, int, int]]:
    """pid -> (comm, ns run on a CPU, ns waited runnable for one) of every process in
    `namespaces` (/proc/PID/schedstat: CONFIG_SCHED_INFO; empty without it)."""
    out = {}
    if not namespaces:
        return out
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or netns_of(int(pid)) not in namespaces:
            continue
        try:
            run_ns, wait_ns = open(f"/proc/{pid}/schedstat").read().split()[:2]
            comm = open(f"/proc/{pid}/comm").read().strip()
        except (OSError, ValueError):
            continue
        out[int(pid)] = (comm, int(run_ns), int(wait_ns))
    return out


class Monitor:
    def __init__(self, wires: dict, interval: float = 0.25, pids: list[int] | None = None):
        """`pids`: one process in each of the run's namespaces (its nodes' shells): every
        process found in those namespaces is the run's own (run_cpu)."""
        self.wires = wires          # spec wire name -> netlab.wire.SharedWire
        self.interval = interval
        self.namespaces = {ns for pid in pids or [] if (ns := netns_of(pid))}
        self._procs0: dict[int, tuple[str, int, int]] = {}
        self._procs: dict[int, tuple[str, int, int]] = {}
        self.samples: list[list[float]] = []   # per sample, busy fraction per core
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Monitor":
        self._t0 = time.monotonic()
        self._bytes0 = {n: w.carried_bytes() for n, w in self.wires.items()}
        self._threads0 = emulator_threads()
        self._softirq0 = softirq_times()
        self._pressure0 = cpu_pressure_us()
        self._procs0 = run_processes(self.namespaces)
        self._procs = dict(self._procs0)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.elapsed = time.monotonic() - self._t0
        self.softirq = [round((s1 - s0) / (t1 - t0), 3) if t1 > t0 else 0.0
                        for (s0, t0), (s1, t1) in zip(self._softirq0, softirq_times())]
        pressure = cpu_pressure_us()
        self.pressure = (round((pressure - self._pressure0) / 1e6 / self.elapsed, 3)
                         if pressure is not None and self._pressure0 is not None and self.elapsed > 0 else None)
        self.carried = {n: w.carried_bytes() - self._bytes0[n] for n, w in self.wires.items()}
        ticks = os.sysconf("SC_CLK_TCK")
        after = emulator_threads()
        self.thread_busy = {t: round((after[t] - self._threads0[t]) / ticks / self.elapsed, 3)
                            for t in after if t in self._threads0 and after[t] > self._threads0[t]}

    def run_cpu(self) -> dict | None:
        """The run's own processes over the point: CPU used and time waited for a CPU (cores' worth,
        summed), the busiest one's share of a core; None without namespaces or schedstat. A
        process that started during the point counts from zero; one that ended between samples
        counts to its last sample."""
        if not self._procs or not getattr(self, "elapsed", 0):
            return None
        used, waited = {}, 0
        for pid, (comm, run_ns, wait_ns) in self._procs.items():
            _, run0, wait0 = self._procs0.get(pid, (comm, 0, 0))
            used[f"{comm}/{pid}"] = max(0, run_ns - run0)
            waited += max(0, wait_ns - wait0)
        busiest = max(used.items(), key=lambda kv: kv[1])
        span = self.elapsed * 1e9
        return {"busy": round(sum(used.values()) / span, 3), "waited": round(waited / span, 3),
                "busiest": busiest[0], "busiest_share": round(busiest[1] / span, 3),
                "processes": len(used)}

    def _run(self) -> None:
        before = cpu_times()
        while True:
            stopping = self._stop.wait(self.interval)
            self._procs.update(run_processes(self.namespaces))
            now = cpu_times()
            if any(t1 > t0 for (_, t0), (_, t1) in zip(before, now)):   # also the last, short interval
                self.samples.append([(b1 - b0) / (t1 - t0) if t1 > t0 else 0.0
                                     for (b0, t0), (b1, t1) in zip(before, now)])
            before = now
            if stopping:
                return

    def report(self, window_s: float | None = None, rates: dict[str, float] | None = None) -> dict:
        """Figures over the point: utilisation over `window_s` (the workload's
        own measured span) when given, else over the monitor's window; of `rates`
        (wire -> Mbit/s it could carry then: a contended wire's lowered rate) when
        given, else of each wire's rate."""
        span = window_s if window_s and window_s > 0 else self.elapsed
        rates = {n: (rates or {}).get(n) or w.rate_mbit for n, w in self.wires.items()}
        util = {n: round(self.carried[n] * 8 / (rates[n] * 1e6 * span), 4) for n in self.wires}
        cores = len(self.samples[0]) if self.samples else 0
        per_core = [round(sum(s[c] for s in self.samples) / len(self.samples), 3) for c in range(cores)]
        host = [sum(s) / len(s) for s in self.samples if s]
        cpu_mean = sum(host) / len(host) if host else 0.0
        rep = {"host_cpu_mean": round(cpu_mean, 3), "host_cpu_max": round(max(host, default=0.0), 3),
               "core_busy_mean": per_core, "emulator_thread_busy": dict(self.thread_busy),
               "softirq_busy_mean": list(self.softirq), "cpu_pressure": self.pressure,
               "run_cpu": self.run_cpu(),
               "wire_utilisation": util, "wire_bytes": dict(self.carried), "window_s": round(span, 4)}
        return {**rep, "suspect": suspect(rep)}


def suspect(fidelity: dict) -> str | None:
    """The monitor's verdict from a fidelity record's own figures (see verdict); run.gates
    derives it again from a stored record, so a verdict of an older rule does not survive."""
    thread = max((fidelity.get("emulator_thread_busy") or {}).items(), key=lambda kv: kv[1],
                 default=("", 0.0))
    run = fidelity.get("run_cpu") or {}
    return verdict(fidelity.get("wire_utilisation") or {}, thread,
                   max(fidelity.get("softirq_busy_mean") or [0.0]),
                   (run.get("busiest", ""), run.get("busiest_share") or 0.0))


def verdict(utilisation: dict[str, float], thread: tuple[str, float] = ("", 0.0),
            softirq: float = 0.0, process: tuple[str, float] = ("", 0.0)) -> str | None:
    """Why a point is suspect, or None. A thread of a single-threaded emulator
    part (OVS's userspace datapath) busy most of the time is suspect whatever
    the wires show: it migrates between cores, so no core's mean shows it, and
    on a bonded path some wires can be full while the switched half is starved.
    With no wire close to full, so is a core the kernel spent moving frames
    (softirq) or a run's own process that nearly filled a core: the emulation,
    not the model, set the pace. A core merely busy is no verdict: it may be
    another tenant's, which harms a point only as the gates measure it."""
    if thread[1] >= THREAD_SATURATED:
        return (f"emulator thread {thread[0]} was {thread[1]:.0%} busy: the switch emulation may have "
                "been the bottleneck")
    if utilisation and max(utilisation.values()) >= WIRE_FULL:
        return None
    if softirq >= CPU_SATURATED:
        return (f"the kernel spent {softirq:.0%} of a core moving frames (softirq) while no wire was over "
                f"{WIRE_FULL:.0%} full: the emulator may have been the bottleneck")
    if process[1] >= CPU_SATURATED:
        return (f"the run's process {process[0]} kept {process[1]:.0%} of a core busy while no wire was over "
                f"{WIRE_FULL:.0%} full: the host, not the model, may have set its pace")
    return None


# single-threaded forwarding: a thread can be the limit (OVS's userspace datapath). The medium
# engine is single-threaded too, but it spins to keep time, so its busy share is no sign of
# saturation: the gates read its own record instead (run.gates.engine_late). It runs in the
# host's namespace, so it is not among the run's processes either.
EMULATOR_PROCESSES = ("ovs-vswitchd",)


def emulator_threads() -> dict[str, int]:
    """'process/thread-id' -> CPU ticks (user + system) of the emulator's own threads."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            comm = open(f"/proc/{pid}/comm").read().strip()
            if comm not in EMULATOR_PROCESSES:
                continue
            for tid in os.listdir(f"/proc/{pid}/task"):
                fields = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
                out[f"{comm}/{tid}"] = int(fields[11]) + int(fields[12])
        except OSError:
            continue
    return out


# what report() returns, as a point records it (`fidelity`): declared beside it, the results
# schema is made from it (run.point)
# schema extras of an object of name -> number (a wire's bytes, a node's busy share): the judge sums them
NUMBERS = {"additionalProperties": {"type": "number"}}
FIDELITY = Field("fidelity", "object", "the fidelity monitor's view of the point", required=True, schema={
        "properties": dict(
            suspect=prop(["string", "null"], "why the emulator may have been the bottleneck (an "
                         "OVS thread near saturation; or, while no wire was near full, a core's "
                         "softirq or one of the run's own processes near a whole core), or null"),
            host_cpu_mean=prop("number", "mean host CPU busy fraction"),
            host_cpu_max=prop("number", "highest host CPU busy fraction in one sample"),
            core_busy_mean=prop("array", "mean busy fraction of each CPU core"),
            emulator_thread_busy=prop("object", "busy fraction of each thread of a "
                                      "single-threaded emulator part (ovs-vswitchd)"),
            softirq_busy_mean=prop("array", "share of each CPU core spent in softirq (where "
                                   "the kernel moves every emulated frame)"),
            cpu_pressure=prop(["number", "null"], "share of the point some task waited for a "
                              "CPU (PSI; null without it): with softirq, how crowded the host was"),
            run_cpu={**prop(["object", "null"], "the run's own processes (those in its namespaces, "
                            "run.monitor): CPU used and time waited runnable for a CPU, in cores' "
                            "worth, and the busiest one's share of a core; null without schedstat"),
                     "properties": dict(busy=prop("number", "cores' worth of CPU used"),
                                        waited=prop("number", "cores' worth of time waited for a CPU"),
                                        busiest=prop("string", "the busiest process, comm/pid"),
                                        busiest_share=prop("number", "its share of a core"),
                                        processes=prop("integer", "how many were seen"))},
            wire_bytes=prop("object", "wire -> on-wire bytes (framing included) its shaper "
                            "counted while the point ran", **NUMBERS),
            window_s=prop("number", "the time base of wire_utilisation, s"),
            wire_utilisation=prop("object", "wire -> on-wire bytes carried / capacity", **NUMBERS)),
        "required": ["suspect"]})
