"""Round trips with ping from inside a node: how delay options are checked and measured."""
from __future__ import annotations

import re


def rtts_ms(host, dst_ip: str, count: int, interval: float = 0.2, size: int | None = None) -> list[float]:
    """Round trips of `count` pings in ms (of `size` data bytes, ping's 56 if None), the first
    dropped (it pays for ARP)."""
    out = host.run(["ping", "-n", "-c", str(count), "-i", str(interval), "-W", "2",
                    *(["-s", str(size)] if size else []), dst_ip], check=False)
    return [float(t) for t in re.findall(r"time=([0-9.]+) ms", out)][1:]
