"""Fidelity monitor, in the spirit of Mininet-HiFi's invariants.

While a point runs, sample every CPU core (/proc/stat) and what each wire
carried (its IFB's byte counter, which includes Ethernet framing), keyed by
the wire's name in the spec. `report` gives the raw figures; the gates
(run.gates) judge them against what the workload says it moved.
The monitor's own verdict marks a point `suspect` when some core was nearly
saturated while no wire was close to full: a single-threaded emulator part
(e.g. OVS's userspace datapath) pegs one core while the host mean looks fine.
It also records how crowded the host was (the share of each core spent in
softirq, where the kernel moves every emulated frame, and the CPU pressure:
the share of time some task waited for a CPU): a crowded host delivers frames
late even when no core is pegged, which the gates read (run.gates).
"""
from __future__ import annotations

import os
import threading
import time

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


class Monitor:
    def __init__(self, wires: dict, interval: float = 0.25):
        self.wires = wires          # spec wire name -> netlab.wire.SharedWire
        self.interval = interval
        self.samples: list[list[float]] = []   # per sample, busy fraction per core
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Monitor":
        self._t0 = time.monotonic()
        self._bytes0 = {n: w.carried_bytes() for n, w in self.wires.items()}
        self._threads0 = emulator_threads()
        self._softirq0 = softirq_times()
        self._pressure0 = cpu_pressure_us()
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

    def _run(self) -> None:
        before = cpu_times()
        while True:
            stopping = self._stop.wait(self.interval)
            now = cpu_times()
            if any(t1 > t0 for (_, t0), (_, t1) in zip(before, now)):   # also the last, short interval
                self.samples.append([(b1 - b0) / (t1 - t0) if t1 > t0 else 0.0
                                     for (b0, t0), (b1, t1) in zip(before, now)])
            before = now
            if stopping:
                return

    def report(self, window_s: float | None = None, rates: dict[str, float] | None = None,
               spin: float = 0.0) -> dict:
        """Figures over the point: utilisation over `window_s` (the workload's
        own measured span) when given, else over the monitor's window; of `rates`
        (wire -> Mbit/s it could carry then: a contended wire's lowered rate) when
        given, else of each wire's rate. `spin`: the share of a core the medium engine spent
        spinning to a release (netlab.medium): a core busy only with that was waiting, not
        working, so the saturation verdict leaves it out (the engine's lag gate judges it)."""
        span = window_s if window_s and window_s > 0 else self.elapsed
        rates = {n: (rates or {}).get(n) or w.rate_mbit for n, w in self.wires.items()}
        util = {n: round(self.carried[n] * 8 / (rates[n] * 1e6 * span), 4) for n in self.wires}
        cores = len(self.samples[0]) if self.samples else 0
        per_core = [round(sum(s[c] for s in self.samples) / len(self.samples), 3) for c in range(cores)]
        host = [sum(s) / len(s) for s in self.samples if s]
        cpu_mean = sum(host) / len(host) if host else 0.0
        busiest = max(self.thread_busy.items(), key=lambda kv: kv[1], default=("", 0.0))
        return {"host_cpu_mean": round(cpu_mean, 3), "host_cpu_max": round(max(host, default=0.0), 3),
                "core_busy_mean": per_core, "emulator_thread_busy": dict(self.thread_busy),
                "softirq_busy_mean": list(self.softirq), "cpu_pressure": self.pressure,
                "wire_utilisation": util, "wire_bytes": dict(self.carried), "window_s": round(span, 4),
                "suspect": verdict(max(per_core, default=0.0) - spin, util, busiest)}


def verdict(core_busy: float, utilisation: dict[str, float],
            thread: tuple[str, float] = ("", 0.0)) -> str | None:
    """Why a point is suspect, or None. A thread of a single-threaded emulator
    part (OVS's userspace datapath) busy most of the time is suspect whatever
    the wires show: it migrates between cores, so no core's mean shows it, and
    on a bonded path some wires can be full while the switched half is starved.
    A core nearly saturated while no wire was close to full is suspect too."""
    if thread[1] >= THREAD_SATURATED:
        return (f"emulator thread {thread[0]} was {thread[1]:.0%} busy: the switch emulation may have "
                "been the bottleneck")
    if utilisation and max(utilisation.values()) >= WIRE_FULL:
        return None
    if core_busy >= CPU_SATURATED:
        return (f"a CPU core was {core_busy:.0%} busy while no wire was over {WIRE_FULL:.0%} full: "
                "the emulator may have been the bottleneck")
    return None


# single-threaded forwarding: a thread can be the limit (OVS's userspace datapath). The medium
# engine is single-threaded too, but it spins to keep time, so its busy share is no sign of
# saturation: the gates read its own record instead (run.gates.engine_late).
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
