"""Fidelity gates, in the spirit of Mininet-HiFi's network invariants.

Each point is checked against what a real network would allow, from the
flows the workload says it moved (bytes, the wires each crossed, when):
- no free bandwidth: the wires of every path segment counted at least the
  payload that crossed it (framing makes on-wire bytes larger still);
- within capacity: no segment carried payload faster than its wires' Ethernet
  payload limit over the point's own time base (the throughput's denominator);
  a starved pair that stopped overlapping makes "bytes / longest time" exceed
  this, which is how an impossible 1.21 MB/s on one 1.18 MB/s wire is caught;
- no saturated emulator: no CPU core, and no thread of a single-threaded
  emulator part (OVS's userspace datapath), near-saturated while no wire was
  near full (the monitor's verdict; a host mean hides both);
- concurrency: the token pairs' intervals overlapped (>= 80 % of their span).
A point failing a gate makes every claim that reads it "not checkable".
"""
from __future__ import annotations

MSS = 1448
FULL_FRAME_ON_WIRE = 1538                 # MSS + 52 B TCP/IP + 14 B header + 24 B framing
SLACK = 0.02                              # counter timing and rounding
MIN_OVERLAP = 0.80


def payload_capacity_bytes_s(rate_mbit: float) -> float:
    """Most TCP payload one wire can carry per second (full frames, no ACKs)."""
    return rate_mbit * 1e6 / 8 * MSS / FULL_FRAME_ON_WIRE


def overlap(flows: list[dict]) -> float | None:
    spans = [(f["start"], f["end"]) for f in flows if f.get("start") is not None and f.get("end") is not None]
    if len(spans) < 2:
        return None
    whole = max(e for _, e in spans) - min(s for s, _ in spans)
    common = min(e for _, e in spans) - max(s for s, _ in spans)
    return max(common, 0.0) / whole if whole > 0 else 1.0


def evaluate(point: dict, fidelity: dict, rates: dict[str, float]) -> dict:
    """{"ok", "failed": [reasons], "overlap"} for one measured point."""
    flows = point.get("flows") or []
    carried = fidelity.get("wire_bytes") or {}
    elapsed = point.get("elapsed_s") or 0.0
    failed = []
    segments: dict[tuple[str, ...], int] = {}
    for f in flows:
        for seg in f["path"]:
            key = tuple(seg)
            segments[key] = segments.get(key, 0) + int(f["bytes"])
    for seg, need in segments.items():
        if carried and all(w in carried for w in seg):
            have = sum(carried[w] for w in seg)
            if have < (1 - SLACK) * need:
                failed.append(f"free bandwidth: {'+'.join(seg)} counted {have} bytes on the wire but "
                              f"{need} bytes of payload crossed it")
        if elapsed > 0 and all(w in rates for w in seg):
            cap = sum(payload_capacity_bytes_s(rates[w]) for w in seg)
            if need / elapsed > (1 + SLACK) * cap:
                failed.append(f"over capacity: {'+'.join(seg)} would have carried "
                              f"{need / elapsed / 1e6:.3f} MB/s of payload, its limit is {cap / 1e6:.3f}")
    if fidelity.get("suspect"):
        failed.append(fidelity["suspect"])
    ov = overlap(flows) if point.get("workload") == "token" else None
    if ov is not None and ov < MIN_OVERLAP:
        failed.append(f"pairs did not run concurrently: they overlapped for {ov:.0%} of their span")
    return {"ok": not failed, "failed": failed, "overlap": None if ov is None else round(ov, 3)}
