"""iperf3 between node pairs, concurrently: each topology's raw TCP capacity.

iperf3 serves one test per server by design (esnet/iperf#140 and friends), so
every pair gets its own one-shot server on its own port.
"""
from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass

from core.values import Axis
from netlab.medium import point_record
from workloads.agent import Agents, wait_listening
from workloads.base import Figure, PAIRS, Workload
from workloads.placement import place, wire_load

BASE_PORT = 5201
OMIT_S = 1.0

AXES = (
    PAIRS,
    Axis("duration", "int", 5, "whole seconds each flow is measured (after 1 s of slow start)",
         many=False, minimum=1, maximum=3600, unit="s"),
)


@dataclass
class FlowResult:
    src: str
    dst: str
    port: int
    goodput_mbit: float        # TCP payload received per second (receiver side)
    bytes_received: int
    seconds: float
    retransmits: int


def run_pairs(pairs, seconds: float = 5.0, omit: float = OMIT_S,
              base_port: int = BASE_PORT, mss: int | None = None) -> list[FlowResult]:
    """One TCP flow per (src_host, dst_host) pair, all at once; `omit` seconds
    of slow start are left out of the figures (iperf3 -O); `mss` sets the
    segment size (iperf3 -M) for tests that need small frames."""
    with Agents() as agents:
        for i, (_src, dst) in enumerate(pairs):
            agents.start(dst, ["iperf3", "-s", "-1", "-p", str(base_port + i)],
                         f"iperf3 server on {dst.name}")
        for i, (_src, dst) in enumerate(pairs):
            wait_listening(dst, base_port + i, "iperf3 server")
        clients = [agents.start(src, ["iperf3", "-c", dst.address, "-p", str(base_port + i),
                                      "-t", f"{seconds:g}", "-O", f"{omit:g}", "-J",
                                      *(["-M", str(mss)] if mss else [])],
                                f"iperf3 {src.name}->{dst.name}")
                   for i, (src, dst) in enumerate(pairs)]
        results = []
        for i, ((src, dst), client) in enumerate(zip(pairs, clients)):
            data = client.result(timeout=seconds + omit + 30)
            recv, sent = data["end"]["sum_received"], data["end"]["sum_sent"]
            results.append(FlowResult(src.name, dst.name, base_port + i,
                                      recv["bits_per_second"] / 1e6, int(recv["bytes"]),
                                      float(recv["seconds"]), int(sent.get("retransmits", 0))))
    return results


def check(spec, point: dict, _settings: dict) -> None:
    place(spec, point["pairs"], point["placement"])


def run_point(tb, _context, point: dict, settings: dict) -> dict:
    pairs = place(tb.spec, point["pairs"], point["placement"])
    flows = run_pairs([(tb.host(p.src), tb.host(p.dst)) for p in pairs], seconds=settings["duration"])
    total = sum(f.goodput_mbit for f in flows)
    return {"throughput_mbyte_s": total / 8, "goodput_mbit": total,
            "elapsed_s": max(f.seconds for f in flows),
            "window_s": max(f.seconds for f in flows) + OMIT_S,   # the wires also carried slow start
            "flows": [{"path": p.path, "bytes": f.bytes_received, "seconds": f.seconds, "backlogged": True}
                      for p, f in zip(pairs, flows)],
            "per_pair": [f.__dict__ for f in flows], "pairs_placed": [p.describe() for p in pairs],
            "wire_load": wire_load(pairs)}


SETUP_S = 0.1   # servers up, clients' JSON read back: 0.05-0.07 s measured on this host (2026-11-27)


def cost(_spec, _point: dict, settings: dict) -> float:
    """Seconds a point takes: slow start left out, the measured duration, the setup."""
    return OMIT_S + settings["duration"] + SETUP_S


WORKLOAD = Workload(
    name="iperf", summary="iperf3 TCP flows (capacity baseline)", axes=AXES,
    csv_columns=("pairs", "goodput_mbit"), check=check, run_point=run_point, cost=cost,
    label=lambda pt: f"{pt['pairs']} pairs",
    figure=Figure("iperf3 TCP goodput", x="pairs", x_label="pairs", x_step="one"))


def udp_flood(hosts, frames_each: float, payload: int, seconds: float) -> list:
    """Every host sends `frames_each` UDP datagrams of `payload` bytes a second to the next one
    (in a ring) for `seconds`: saturating stations for a medium's tests and benchmarks. Returns
    the client processes (wait for them); the one-shot servers end with their client."""
    for h in hosts:
        h.run(["iperf3", "-s", "-D", "-1"], check=False)
    for h in hosts:
        wait_listening(h, BASE_PORT, "iperf3 server")
    return [h.popen(["iperf3", "-u", "-c", hosts[(i + 1) % len(hosts)].address,
                     "-b", str(int(frames_each * payload * 8)), "-l", str(payload), "-t", str(seconds)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for i, h in enumerate(hosts)]


def medium_under_flood(tb, n: int, frames_each: float, payload: int, seconds: float) -> dict:
    """What the medium engine did (netlab.medium.point_record) over `seconds` in the middle of a
    udp_flood of b0..b(n-1): a second after it starts, before it ends."""
    procs = udp_flood([tb.host(f"b{i:x}") for i in range(n)], frames_each, payload, seconds + 2)
    time.sleep(1)
    before = tb.medium.snapshot(max_age_s=0)
    time.sleep(seconds)
    rec = point_record(before, tb.medium.snapshot(max_age_s=0))
    for p in procs:
        p.wait()
    return rec
