"""Wire impairments (delay, jitter, loss) and a relay's per-packet forwarding delay.

Pure data and parsing. The papers' wires had no such knobs worth modelling
(a 1996 segment's propagation delay is microseconds); they are here for
classroom exercises and for asking "what if the wire were a WAN". They need
the kernel's netem qdisc, which stock Debian/Ubuntu kernels have and this
project's CI host lacks; netlab refuses to build them without it.

Semantics, per wire crossing: every frame that enters a wire is delayed by
`delay_ms` (+- `jitter_ms`, netem's uniform-ish distribution) and dropped with
probability `loss_pct`. A ping across one wire therefore sees 2 x delay.
A relay (a node that forwards others' packets) holds every packet it forwards
for `relay_delay_ms` before sending it on: the cost of 1996 software routing.
"""
from __future__ import annotations

import dataclasses

from beowulf_netlab.topologies.spec import MAX_DELAY_MS, Impairment, NetworkSpec, SpecError

__all__ = ["Impairment", "apply", "needs_netem"]

def apply(spec: NetworkSpec, wire: Impairment | None = None,
          relay_delay_ms: float = 0.0) -> NetworkSpec:
    """The same network with every wire impaired and every relay slowed.
    Recorded in spec.params so results say what the network was."""
    wire = (wire or Impairment()).check()
    if not 0 <= relay_delay_ms <= MAX_DELAY_MS:
        raise SpecError(f"--relay-delay must be in [0, {MAX_DELAY_MS:g}] ms, got {relay_delay_ms:g}")
    if not wire.active and not relay_delay_ms:
        return spec
    if relay_delay_ms and not any(n.forwarding for n in spec.nodes):
        raise SpecError(f"--relay-delay: topology {spec.topology} has no relays "
                        "(nodes that forward others' packets); use routed-mesh")
    params = dict(spec.params)
    if wire.active:
        params.update(delay_ms=wire.delay_ms, jitter_ms=wire.jitter_ms, loss_pct=wire.loss_pct)
    if relay_delay_ms:
        params["relay_delay_ms"] = relay_delay_ms
    return dataclasses.replace(
        spec, params=params,
        wires=tuple(dataclasses.replace(w, impairment=wire) for w in spec.wires),
        nodes=tuple(dataclasses.replace(n, forward_delay_ms=relay_delay_ms if n.forwarding else 0.0)
                    for n in spec.nodes))


def needs_netem(spec: NetworkSpec) -> bool:
    return any(w.impairment.active for w in spec.wires) or any(n.forward_delay_ms for n in spec.nodes)
