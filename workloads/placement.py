"""Which nodes talk to which: deterministic pair placement for workloads.

- any: (b0,b1), (b2,b3), ... on any topology.
- local-wire (meshes): each pair shares a wire; pairs go to distinct wires
  while possible (row wires first, then column wires, round-robin).
- remote-wire (meshes): pairs share no wire; while possible no node has more
  than one role (sender, receiver, or the pair's relay under the routed-mesh
  relay rule, used on every mesh so the placements are the same everywhere).
No node is ever an endpoint of two pairs.
"""
from __future__ import annotations

from dataclasses import dataclass

from topologies.mesh import relay_for, shares_wire
from topologies.spec import NetworkSpec, SpecError

PLACEMENTS = ("any", "local-wire", "remote-wire")


@dataclass(frozen=True)
class Pair:
    src: str
    dst: str
    wire: str | None = None    # the shared wire (local-wire)
    relay: str | None = None   # the routed-mesh relay (remote-wire)

    def describe(self) -> str:
        extra = f" on {self.wire}" if self.wire else f" via {self.relay}" if self.relay else ""
        return f"{self.src}->{self.dst}{extra}"


def max_pairs(spec: NetworkSpec) -> int:
    return len(spec.nodes) // 2


def place(spec: NetworkSpec, pairs: int, placement: str = "any") -> list[Pair]:
    if placement not in PLACEMENTS:
        raise SpecError(f"--placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise SpecError(f"--pairs must be a whole number >= 1, got {pairs!r}")
    if pairs > max_pairs(spec):
        raise SpecError(f"{pairs} pairs need {2 * pairs} nodes; {spec.topology} has {len(spec.nodes)} "
                        f"(use --pairs <= {max_pairs(spec)} or more --nodes)")
    grid = spec.params.get("grid")
    if placement != "any" and not grid:
        raise SpecError(f"--placement {placement} needs a mesh topology; {spec.topology} has only 'any'")
    names = [n.name for n in spec.nodes]
    if placement == "any":
        return [Pair(names[2 * i], names[2 * i + 1]) for i in range(pairs)]
    if placement == "local-wire":
        return _local(spec, pairs)
    return _remote(spec, pairs, grid)


def _local(spec: NetworkSpec, pairs: int) -> list[Pair]:
    wires = [w.name for w in spec.wires]
    members = {w: [n.name for n in spec.members(w)] for w in wires}
    # Best: every pair on a wire of its own (a depth-first search finds e.g. 8
    # pairs on the 8 wires of the 16-node grid); else wires are reused in turn.
    distinct = _distinct_wires(members, wires, pairs, set(), [20000]) if pairs <= len(wires) else None
    if distinct is not None:
        return distinct
    used: set[str] = set()
    out: list[Pair] = []
    while len(out) < pairs:
        progress = False
        for wire in wires:
            free = [n for n in members[wire] if n not in used]
            if len(free) >= 2 and len(out) < pairs:
                out.append(Pair(free[0], free[1], wire=wire))
                used.update(free[:2])
                progress = True
        if not progress:
            raise SpecError(f"cannot place {pairs} local-wire pairs without reusing a node "
                            f"(at most {len(out)} on {spec.topology}); use fewer --pairs")
    return out


def _distinct_wires(members: dict, wires: list[str], pairs: int, used: set[str],
                    budget: list[int]) -> list[Pair] | None:
    if pairs == 0:
        return []
    if len(wires) < pairs or budget[0] <= 0:
        return None
    wire, rest = wires[0], wires[1:]
    free = [n for n in members[wire] if n not in used]
    for i, a in enumerate(free):
        for b in free[i + 1:]:
            budget[0] -= 1
            found = _distinct_wires(members, rest, pairs - 1, used | {a, b}, budget)
            if found is not None:
                return [Pair(a, b, wire=wire)] + found
    return _distinct_wires(members, rest, pairs, used, budget)  # leave this wire idle


def _remote(spec: NetworkSpec, pairs: int, k: int) -> list[Pair]:
    names = [n.name for n in spec.nodes]
    n = len(names)
    out: list[tuple[int, int]] = []
    roles: set[int] = set()
    # Strict pass: sender, receiver and relay all distinct from every other role.
    for a in range(n):
        for b in range(n):
            if len(out) == pairs:
                break
            if a == b or shares_wire(a, b, k):
                continue
            r = relay_for(a, b, k)
            if roles.isdisjoint((a, b, r)):
                out.append((a, b))
                roles.update((a, b, r))
    # Relaxed: relays may repeat; endpoints still never do. A small depth-first
    # search finds matchings the greedy order misses (e.g. 8 pairs on 16 nodes).
    if len(out) < pairs:
        solution = _match(out, pairs, n, k, [20000], {x for p in out for x in p})
        if solution is None:
            raise SpecError(f"cannot place {pairs} remote-wire pairs on {spec.topology} "
                            "without reusing a node; use fewer --pairs")
        out = solution
    return [Pair(names[a], names[b], relay=names[relay_for(a, b, k)]) for a, b in out]


def _match(chosen: list[tuple[int, int]], pairs: int, n: int, k: int, budget: list[int],
           skip: set[int]) -> list[tuple[int, int]] | None:
    """Depth-first: pair the first free node with some remote peer, or leave it out."""
    if len(chosen) == pairs:
        return chosen
    free = [x for x in range(n) if x not in skip]
    if len(free) < 2 * (pairs - len(chosen)) or budget[0] <= 0:
        return None
    a = free[0]
    for b in free[1:]:
        budget[0] -= 1
        if not shares_wire(a, b, k):
            found = _match(chosen + [(a, b)], pairs, n, k, budget, skip | {a, b})
            if found:
                return found
    return _match(chosen, pairs, n, k, budget, skip | {a})
