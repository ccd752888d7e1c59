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
- concurrency: the token pairs ran at once. Throughput is the papers' "sum of
  bytes / longest pair's time", which overstates when pairs ran one after
  another (starved pairs start late); so the span of all pairs together may
  exceed the longest pair's time by at most 20 %. A pair that merely ends late
  (a retransmission time-out) lowers the figure and passes.
A point failing a gate makes every claim that reads it "not checkable".
"""
from __future__ import annotations

MSS = 1448
FULL_FRAME_ON_WIRE = 1538                 # MSS + 52 B TCP/IP + 14 B header + 24 B framing
SLACK = 0.02                              # counter timing and rounding
MAX_SPAN_OVER_LONGEST = 1.20


def payload_capacity_bytes_s(rate_mbit: float) -> float:
    """Most TCP payload one wire can carry per second (full frames, no ACKs)."""
    return rate_mbit * 1e6 / 8 * MSS / FULL_FRAME_ON_WIRE


def span_over_longest(flows: list[dict]) -> float | None:
    """(last end - first start) / the longest flow's own time: 1.0 when all ran at once."""
    spans = [(f["start"], f["end"]) for f in flows if f.get("start") is not None and f.get("end") is not None]
    if len(spans) < 2:
        return None
    longest = max(e - s for s, e in spans)
    whole = max(e for _, e in spans) - min(s for s, _ in spans)
    return whole / longest if longest > 0 else 1.0


def evaluate(point: dict, fidelity: dict, rates: dict[str, float]) -> dict:
    """{"ok", "failed": [reasons], "span_over_longest"} for one measured point."""
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
    ratio = span_over_longest(flows) if point.get("workload") == "token" else None
    if ratio is not None and ratio > MAX_SPAN_OVER_LONGEST:
        failed.append(f"pairs did not run concurrently: together they spanned {ratio:.2f} x the longest "
                      "pair's time, so bytes / longest time overstates the rate")
    return {"ok": not failed, "failed": failed,
            "span_over_longest": None if ratio is None else round(ratio, 3)}
