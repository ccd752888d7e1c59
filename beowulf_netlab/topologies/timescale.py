"""Time scaling (--time-scale D): run a network D times slower than the real one.

One 2-core host cannot move the 2 GB/s of disk and 1.3 GB/s of network of a
32-node 2001 cluster, but it can move 1/D of it. Every rate is divided by D
(wires, host costs as D x the CPU time per packet, per byte and per message,
disks in netlab.disk_profiles; delays, jitter and a relay's hold time x D), so every queue fills and drains D times
slower and a rate measured in scaled time, multiplied by D, is the real
network's. The timers that matter are scaled up where Linux lets us: TCP's
minimum retransmission timeout per route (200 ms x D); the parallel file
system's own timeouts are scaled where it is configured (netlab.pfs). Not
scaled (Linux offers no knob): the delayed-ACK timer (40 ms), TCP's initial
RTO (1 s), the scheduler's time slice; with D large these become relatively
shorter, which favours the emulated network slightly. Results record the
measured rates and x D (run.runner).

Division of labor: a NetworkSpec holds the real network only, and D in its machine
(`scale` checks D and records it). Whatever runs in scaled time (the kernel's shapers, netem,
route metrics, the medium engine, the agents' charges, the gates' wire capacities, estimates)
gets its value through the accessors here, once, where netlab builds the network; readers of
results get real figures under each MB/s result's own name (its measured_ twin is what the
slowed network carried: core.fields.with_twins).
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from beowulf_netlab.topologies.spec import DEFAULT_TIME_SCALE, MIN_RATE_MBIT, Impairment, NetworkSpec, Node, SpecError, Wire

if TYPE_CHECKING:
    from beowulf_netlab.topologies.hardware import HostCost

MAX_TIME_SCALE = 1000.0
LINUX_RTO_MIN_MS = 200.0    # TCP_RTO_MIN


def check_time_scale(d: float) -> float:
    if isinstance(d, bool) or not isinstance(d, (int, float)) or d != d \
            or not 1.0 <= d <= MAX_TIME_SCALE:
        raise SpecError(f"--time-scale must be a number in 1..{MAX_TIME_SCALE:g}, got {d!r}")
    return float(d)


def scale(spec: NetworkSpec, d: float) -> NetworkSpec:
    """The same network run D times slower: the spec keeps its real values and records D in its
    machine (the accessors below apply it); refused where a wire would run under the shaper's floor."""
    d = check_time_scale(d)
    if d == 1.0:
        return spec
    for w in spec.wires:
        if w.rate_mbit / d < MIN_RATE_MBIT:
            raise SpecError(f"--time-scale {d:g} would run {w.name} at {w.rate_mbit / d:.3g} Mbit/s, "
                            f"under the {MIN_RATE_MBIT:g} Mbit/s the shaper can hold; use a smaller --time-scale")
    return dataclasses.replace(spec, machine=dataclasses.replace(spec.machine, time_scale=d),
                               notes=(*spec.notes, f"time-scaled: every rate / {d:g}, TCP's minimum "
                                                   f"RTO {LINUX_RTO_MIN_MS * d:g} ms"))


def shaped_rate(rate_mbit: float, d: float) -> float:
    """A real rate as it runs in scaled time: D times slower."""
    return rate_mbit if d == 1 else rate_mbit / d


def scaled_time(value: float, d: float) -> float:
    """A real time (or a cost per unit) as it runs in scaled time: D times longer."""
    return value if d == 1 else value * d


def wire_rate(spec: NetworkSpec, wire: Wire) -> float:
    """The rate a wire's shaper (or the engine's segment) runs at, Mbit/s."""
    return shaped_rate(wire.rate_mbit, spec.machine.time_scale)


def wire_impairment(spec: NetworkSpec, wire: Wire) -> Impairment:
    """A wire's netem as applied: delay and jitter x D (loss is a share: unscaled)."""
    d, imp = spec.machine.time_scale, wire.impairment
    if d == 1:
        return imp
    return dataclasses.replace(imp, delay_ms=imp.delay_ms * d, jitter_ms=imp.jitter_ms * d)


def host_cost(spec: NetworkSpec, node: Node) -> "HostCost | None":
    """A node's CPU budget as applied and paid: every cost x D (the budget's rate / D)."""
    d, cost = spec.machine.time_scale, node.host_cost
    if d == 1 or cost is None:
        return cost
    return dataclasses.replace(cost, per_packet_us=cost.per_packet_us * d, per_byte_ns=cost.per_byte_ns * d,
                               relay_copy_per_byte_ns=cost.relay_copy_per_byte_ns * d,
                               per_message_us=cost.per_message_us * d)


def forward_delay_ms(spec: NetworkSpec, node: Node) -> float:
    """How long a relay holds each packet it forwards, as applied: x D."""
    return scaled_time(node.forward_delay_ms, spec.machine.time_scale)


def rto_min_ms(spec: NetworkSpec, node: Node) -> float | None:
    """TCP's minimum RTO a time-scaled node's routes carry (its profile's, else Linux's, x D);
    None at D = 1, where the node's TCP profile sets its own (netlab.node)."""
    d = spec.machine.time_scale
    if d == 1:
        return None
    return (node.tcp.rto_min_ms if node.tcp else LINUX_RTO_MIN_MS) * d


def time_scale_of(spec_or_point) -> float:
    """D of a network spec (its machine) or of a results point (1 when unset)."""
    machine = getattr(spec_or_point, "machine", None)
    if machine is not None:
        return machine.time_scale
    d = spec_or_point.get("time_scale")
    return float(d) if d else DEFAULT_TIME_SCALE   # unset (or null in a document): real time
