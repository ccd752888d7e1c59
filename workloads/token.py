"""Run the token exchange for P pairs at once inside the emulated hosts.

Throughput is counted as the papers' message traffic: token payload bytes that
crossed the network, S bytes per token per direction (2*S per round trip),
summed over pairs, divided by the longest pair's elapsed time. Reported in MB/s
(10^6 bytes/s). TCP/IP headers and Ethernet framing are not counted.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "token_agent.py")
BASE_PORT = 7000


def run_point(pairs, size: int, tokens: int, duration: float | None = None,
              exchanges: int | None = None, base_port: int = BASE_PORT) -> dict:
    """pairs: [(src_host, dst_host)]. Returns aggregate and per-pair figures."""
    if (duration is None) == (exchanges is None):
        raise ValueError("give exactly one of duration or exchanges")
    py = sys.executable
    servers, clients = [], []
    try:
        for i, (_src, dst) in enumerate(pairs):
            proc = dst.popen([py, AGENT, "serve", "--port", str(base_port + i)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            servers.append(proc)
        for proc in servers:  # each prints "ready" once listening
            if proc.stdout.readline().strip() != b"ready":
                raise RuntimeError(f"token server failed: {proc.stderr.read().decode()[:300]}")
        for i, (src, dst) in enumerate(pairs):
            cmd = [py, AGENT, "client", "--host", dst.address, "--port", str(base_port + i),
                   "--size", str(size), "--tokens", str(tokens)]
            cmd += ["--duration", f"{duration:g}"] if duration is not None else ["--exchanges", str(exchanges)]
            clients.append(src.popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        per_pair = []
        for (src, dst), proc in zip(pairs, clients):
            out, err = proc.communicate(timeout=(duration or 0) + 120)
            try:
                data = json.loads(out.decode().strip().splitlines()[-1])
            except (IndexError, json.JSONDecodeError):
                raise RuntimeError(f"token client {src.name}->{dst.name} failed: {err.decode()[:300]}")
            if "error" in data:
                raise RuntimeError(f"token exchange {src.name}->{dst.name}: {data['error']}")
            data.update(src=src.name, dst=dst.name,
                        throughput_mbyte_s=data["payload_bytes"] / data["elapsed_s"] / 1e6)
            per_pair.append(data)
        elapsed = max(p["elapsed_s"] for p in per_pair)
        total = sum(p["payload_bytes"] for p in per_pair)
        return {"payload_bytes": total, "elapsed_s": elapsed,
                "throughput_mbyte_s": total / elapsed / 1e6,
                "round_trips": sum(p["round_trips"] for p in per_pair),
                "rtt_ms_median": sorted(p["rtt_ms_median"] for p in per_pair)[len(per_pair) // 2],
                "per_pair": per_pair}
    finally:
        for p in clients + servers:
            if p.poll() is None:
                p.kill()
            p.wait()
