"""iperf3 between node pairs, concurrently: each topology's raw TCP capacity.

iperf3 serves one test per server by design (esnet/iperf#140 and friends), so
every pair gets its own one-shot server on its own port.
"""
from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass

BASE_PORT = 5201


@dataclass
class FlowResult:
    src: str
    dst: str
    port: int
    goodput_mbit: float        # TCP payload received per second (receiver side)
    bytes_received: int
    seconds: float
    retransmits: int


def _wait_listening(host, port: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = host.run(["ss", "-ltnH", f"sport = :{port}"], check=False)
        if out.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"iperf3 server on {host.name}:{port} did not start")


def run_pairs(pairs, seconds: float = 5.0, omit: float = 1.0, base_port: int = BASE_PORT,
              extra_args: tuple[str, ...] = ()) -> list[FlowResult]:
    """Run one TCP flow per (src_host, dst_host) pair, all at once.

    `omit` seconds of slow start are left out of the figures (iperf3 -O).
    """
    servers, clients = [], []
    try:
        for i, (_src, dst) in enumerate(pairs):
            port = base_port + i
            servers.append(dst.popen(["iperf3", "-s", "-1", "-p", str(port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for i, (_src, dst) in enumerate(pairs):
            _wait_listening(dst, base_port + i)
        for i, (src, dst) in enumerate(pairs):
            cmd = ["iperf3", "-c", dst.address, "-p", str(base_port + i), "-t", f"{seconds:g}",
                   "-O", f"{omit:g}", "-J", *extra_args]
            clients.append(src.popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        results = []
        for i, ((src, dst), proc) in enumerate(zip(pairs, clients)):
            out, err = proc.communicate(timeout=seconds + omit + 30)
            try:
                data = json.loads(out)
            except json.JSONDecodeError:
                raise RuntimeError(f"iperf3 {src.name}->{dst.name} gave no JSON: {err.decode()[:200]}")
            if "error" in data:
                raise RuntimeError(f"iperf3 {src.name}->{dst.name}: {data['error']}")
            recv = data["end"]["sum_received"]
            sent = data["end"]["sum_sent"]
            results.append(FlowResult(src.name, dst.name, base_port + i,
                                      recv["bits_per_second"] / 1e6, int(recv["bytes"]),
                                      float(recv["seconds"]), int(sent.get("retransmits", 0))))
        return results
    finally:
        for p in clients + servers:
            if p.poll() is None:
                p.kill()
            p.wait()
