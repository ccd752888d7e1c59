"""Text (and PNG) pictures of a topology's wiring, for `emulate.py topo show`."""
from __future__ import annotations

from topologies.spec import NetworkSpec


def wiring_text(spec: NetworkSpec) -> str:
    p = spec.params
    head = f"{spec.topology}: {len(spec.nodes)} nodes, {len(spec.wires)} wire(s) at {p['rate_mbit']:g} Mbit/s"
    lines = [head]
    for note in spec.notes:
        lines.append(f"  ({note})")
    lines.append("")
    lines.append("wires:")
    for w in spec.wires:
        members = spec.members(w.name)
        joined = [s.name for s in spec.switches if w.name in s.wires]
        extra = f", joined to switch {joined[0]}" if joined else ""
        lines.append(f"  {w.name:4s} {w.medium} {w.rate_mbit:g} Mbit/s{extra}: "
                     + " ".join(n.name for n in members))
    if spec.switches:
        lines.append("")
        lines.append("switches:")
        for s in spec.switches:
            lines.append(f"  {s.name}: joins wires {' '.join(s.wires)}")
    lines.append("")
    lines.append("nodes:")
    for n in spec.nodes:
        nics = ", ".join(f"{n.name}-eth{k} on {w}" for k, w in enumerate(n.wires))
        flags = []
        if n.bonded:
            flags.append(f"bonded x{len(n.wires)} (round-robin)")
        if n.forwarding:
            flags.append("forwards IP")
        lines.append(f"  {n.name:4s} {n.ip:12s} {nics}" + (f"  [{'; '.join(flags)}]" if flags else ""))
    if spec.params.get("grid"):
        from topologies.mesh import grid_text
        lines += ["", *grid_text(spec)]
    return "\n".join(lines) + "\n"
