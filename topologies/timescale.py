"""Time scaling (--time-scale D): run a network D times slower than the real one.

One 2-core host cannot move the 2 GB/s of disk and 1.3 GB/s of network of a
32-node 2001 cluster, but it can move 1/D of it. Every rate is divided by D
(wires here, host costs here as D x the CPU time per packet, per byte and per message,
disks in netlab.disk_profiles; delays, jitter and a relay's hold time x D), so every queue fills and drains D times
slower and a rate measured in scaled time, multiplied by D, is the real
network's. The timers that matter are scaled up where Linux lets us: TCP's
minimum retransmission timeout per route (200 ms x D); the parallel file
system's own timeouts are scaled where it is configured (netlab.pfs). Not
scaled (Linux offers no knob): the delayed-ACK timer (40 ms), TCP's initial
RTO (1 s), the scheduler's time slice; with D large these become relatively
shorter, which favours the emulated network slightly. Results record the
measured rates and x D (pipeline.runner).
"""
from __future__ import annotations

import dataclasses

from topologies.spec import MIN_RATE_MBIT, NetworkSpec, SpecError

DEFAULT_TIME_SCALE = 1.0
MAX_TIME_SCALE = 1000.0
LINUX_RTO_MIN_MS = 200.0    # TCP_RTO_MIN


def check_time_scale(d: float) -> float:
    if isinstance(d, bool) or not isinstance(d, (int, float)) or d != d \
            or not 1.0 <= d <= MAX_TIME_SCALE:
        raise SpecError(f"--time-scale must be a number in 1..{MAX_TIME_SCALE:g}, got {d!r}")
    return float(d)


def scale(spec: NetworkSpec, d: float) -> NetworkSpec:
    """The same network D times slower (spec.params keeps the real rate, spec.machine D)."""
    d = check_time_scale(d)
    if d == 1.0:
        return spec
    wires = []
    for w in spec.wires:
        if w.rate_mbit / d < MIN_RATE_MBIT:
            raise SpecError(f"--time-scale {d:g} would run {w.name} at {w.rate_mbit / d:.3g} Mbit/s, "
                            f"under the {MIN_RATE_MBIT:g} Mbit/s the shaper can hold; use a smaller --time-scale")
        imp = dataclasses.replace(w.impairment, delay_ms=w.impairment.delay_ms * d,
                                  jitter_ms=w.impairment.jitter_ms * d)
        wires.append(dataclasses.replace(w, rate_mbit=w.rate_mbit / d, impairment=imp))
    nodes = []
    for n in spec.nodes:
        cost = n.host_cost and dataclasses.replace(n.host_cost, per_packet_us=n.host_cost.per_packet_us * d,
                                                   per_byte_ns=n.host_cost.per_byte_ns * d,
                                                   relay_copy_per_byte_ns=n.host_cost.relay_copy_per_byte_ns * d,
                                                   per_message_us=n.host_cost.per_message_us * d)
        nodes.append(dataclasses.replace(n, host_cost=cost, rto_min_ms=(n.tcp.rto_min_ms if n.tcp else LINUX_RTO_MIN_MS) * d,
                                         forward_delay_ms=n.forward_delay_ms * d))
    return dataclasses.replace(spec, machine=dataclasses.replace(spec.machine, time_scale=d), wires=tuple(wires),
                               nodes=tuple(nodes),
                               notes=(*spec.notes, f"time-scaled: every rate / {d:g}, TCP's minimum "
                                                   f"RTO {LINUX_RTO_MIN_MS * d:g} ms"))


def time_scale_of(spec_or_point) -> float:
    """D of a network spec (its machine) or of a results point (1 when unset)."""
    machine = getattr(spec_or_point, "machine", None)
    if machine is not None:
        return machine.time_scale
    d = spec_or_point.get("time_scale")
    return float(d) if d else DEFAULT_TIME_SCALE   # unset (or null in a document): real time
