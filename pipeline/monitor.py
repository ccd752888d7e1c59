"""Fidelity monitor, in the spirit of Mininet-HiFi's invariants.

While a point runs, sample host CPU (/proc/stat) and what each wire carried
(its IFB's byte counter, which includes Ethernet framing). A point is marked
`suspect` when the emulator rather than the emulated network was the limit:
the host CPU was nearly saturated while no wire was close to full.
"""
from __future__ import annotations

import threading
import time

CPU_SATURATED = 0.90
WIRE_FULL = 0.90


def _cpu_times() -> tuple[int, int]:
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


class Monitor:
    def __init__(self, wires: list, interval: float = 0.25):
        self.wires = wires          # netlab.wire.SharedWire objects
        self.interval = interval
        self.cpu_samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Monitor":
        self._t0 = time.monotonic()
        self._bytes0 = {w.name: w.carried_bytes() for w in self.wires}
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.elapsed = time.monotonic() - self._t0
        self._bytes1 = {w.name: w.carried_bytes() for w in self.wires}

    def _run(self) -> None:
        busy0, total0 = _cpu_times()
        while not self._stop.wait(self.interval):
            busy1, total1 = _cpu_times()
            if total1 > total0:
                self.cpu_samples.append((busy1 - busy0) / (total1 - total0))
            busy0, total0 = busy1, total1

    def report(self) -> dict:
        util = {}
        for w in self.wires:
            carried = self._bytes1[w.name] - self._bytes0[w.name]
            util[w.name] = round(carried * 8 / (w.rate_mbit * 1e6 * self.elapsed), 4)
        cpu_mean = sum(self.cpu_samples) / len(self.cpu_samples) if self.cpu_samples else 0.0
        cpu_max = max(self.cpu_samples, default=0.0)
        return {"host_cpu_mean": round(cpu_mean, 3), "host_cpu_max": round(cpu_max, 3),
                "wire_utilisation": util, "suspect": verdict(cpu_mean, util)}


def verdict(cpu_mean: float, utilisation: dict[str, float]) -> str | None:
    """Why a point is suspect, or None: the host CPU was nearly saturated while
    no wire was close to full, so the emulator rather than the emulated
    network may have set the pace."""
    if cpu_mean >= CPU_SATURATED and (not utilisation or max(utilisation.values()) < WIRE_FULL):
        return (f"host CPU {cpu_mean:.0%} busy while no wire was over {WIRE_FULL:.0%} full: "
                "the emulator may have been the bottleneck")
    return None
