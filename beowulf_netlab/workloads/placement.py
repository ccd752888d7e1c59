"""Which nodes talk to which, and which wires their traffic crosses.

Placement follows the papers' arrangement: pairs are chosen so that, while it
is possible, no two transfers contend for a wire and no node has two roles
(sender, receiver, or relay of another pair). The wires a pair uses come from
the topology's actual path (`path`): the shared wire of a local-wire pair; on
the routed mesh the two wires through the pair's relay; on the switched mesh
the two wires of one orientation joined by the row or column switch (the
parity rule of topologies.mesh); on bonded networks the sender's NICs, then
the receiver's, each a group of parallel wires whose capacities add (a bonded
node stripes over all of its NICs).

- any: (b0,b1), (b2,b3), ... on any topology.
- local-wire (meshes): each pair shares a wire; pairs on distinct wires while possible.
- remote-wire (meshes): pairs share no wire; the search minimises wire sharing
  (a wire carrying k pairs costs k(k-1)/2: sharing is spread, not piled up),
  then the nodes in two roles.
- listed (`--pairs-list b0:b5,b1:b6`, any topology): the pairs named, in their order; each
  node must exist and, as no workload here lets a node serve two pairs, appear once.
No node is ever an endpoint of two pairs. The plan, with its per-wire load, is
recorded with every point.
"""
from __future__ import annotations

from dataclasses import dataclass

from beowulf_netlab.netlab.hostcost import RELAY, SWITCH
from beowulf_netlab.topologies.mesh import ROW_NIC, even_pair, relay_for, shares_wire
from beowulf_netlab.topologies.spec import NetworkSpec, SpecError

PLACEMENTS = ("any", "local-wire", "remote-wire")
LISTED = "listed"        # a point's placement when --pairs-list names its pairs (not a --placement choice)
MAX_LISTED = 512         # pairs a list may name (as --pairs' bound)
SEARCH_BUDGET = 60_000
SEARCH_NODES = 64        # larger grids are placed greedily (a search would take minutes)
GREEDY_SCAN = 256        # partners a greedy step looks at
_CACHE: dict[tuple, list | None] = {}   # (topology, nodes, pairs, placement) -> chosen node pairs


@dataclass(frozen=True)
class Pair:
    src: str
    dst: str
    wire: str | None = None                    # the shared wire (local-wire)
    relay: str | None = None                   # the routed-mesh relay (remote-wire)
    path: tuple[tuple[str, ...], ...] = ()     # segments crossed in turn; a segment's wires are parallel

    @property
    def via(self) -> list[str]:
        """What joins the path's segments in turn: the pair's relay (a node forwarding in
        software) or, between the segments of a switched network, a switch."""
        return [RELAY if self.relay else SWITCH] * max(len(self.path) - 1, 0)

    @property
    def wires(self) -> tuple[str, ...]:
        return tuple(w for seg in self.path for w in seg)

    def describe(self) -> str:
        extra = f" on {self.wire}" if self.wire else f" via {self.relay}" if self.relay else ""
        route = " + ".join("|".join(seg) for seg in self.path)
        return f"{self.src}->{self.dst}{extra}" + (f" [{route}]" if route else "")


def path(spec: NetworkSpec, a: int, b: int) -> tuple[tuple[str, ...], ...]:
    """The wires traffic between nodes a and b crosses on this topology."""
    na, nb = spec.nodes[a], spec.nodes[b]
    if na.bonded and spec.switches:   # leaves by one of a's NICs, arrives by one of b's
        return (na.wires, nb.wires)
    if na.bonded:                     # the same K wires at both ends
        return (na.wires,)
    k = spec.params.get("grid")
    if not k and spec.switches:       # a switched cluster: up a's port, down b's
        return (na.wires, nb.wires)
    if not k:
        return _routed(spec, a, b)
    if shares_wire(a, b, k):
        return ((next(w for w in na.wires if w in nb.wires),),)
    if spec.switches:   # one orientation, joined by its switch
        nic = ROW_NIC if even_pair(a, b, k) else 1 - ROW_NIC
        return ((na.wires[nic],), (nb.wires[nic],))
    r = relay_for(a, b, k)
    nr = spec.nodes[r]
    return ((next(w for w in na.wires if w in nr.wires),), (next(w for w in nr.wires if w in nb.wires),))


def _routed(spec: NetworkSpec, a: int, b: int) -> tuple[tuple[str, ...], ...]:
    """Shared wires without switches (a preset's, or an explicit file's): the wire a and b share,
    else hop by hop along the nodes' routes through the relays (topologies.files computes them),
    so a pair across a gateway crosses both hubs (it had no wire at all: an empty path)."""
    ip = {n.ip: n.index for n in spec.nodes}
    segs: list[tuple[str, ...]] = []
    here = a
    for _ in range(len(spec.nodes)):
        na, nb = spec.nodes[here], spec.nodes[b]
        shared = tuple(w for w in na.wires if w in nb.wires)
        route = next((r for r in na.routes if r.dst == nb.ip), None)
        if shared or route is None or route.via not in ip:
            return (*segs, shared)
        segs.append((na.wires[route.nic],))
        here = ip[route.via]
    return (*segs, ())


def wire_load(pairs: list[Pair]) -> dict[str, int]:
    load: dict[str, int] = {}
    for p in pairs:
        for w in p.wires:
            load[w] = load.get(w, 0) + 1
    return load


def max_pairs(spec: NetworkSpec) -> int:
    return len(spec.nodes) // 2


def parse_pairs_list(text: str) -> list[tuple[str, str]]:
    """'b0:b5,b1:b6' -> [(b0, b5), (b1, b6)]: every pair two different names, no node twice (no
    workload here lets a node be an end of two pairs). Whether the nodes exist is the network's
    to say (place)."""
    what = "--pairs-list"
    parts = [p.strip() for p in str(text).split(",")]
    if not str(text).strip() or any(not p for p in parts):
        raise SpecError(f"{what} takes pairs SRC:DST separated by commas, e.g. b0:b5,b1:b6, got {text!r}")
    if len(parts) > MAX_LISTED:
        raise SpecError(f"{what} names at most {MAX_LISTED} pairs, got {len(parts)}")
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for part in parts:
        ends = [e.strip() for e in part.split(":")]
        if len(ends) != 2 or not all(ends) or not all(e.replace("-", "").replace("_", "").isalnum()
                                                       and e.isascii() for e in ends):
            raise SpecError(f"{what}: {part!r} is not a pair SRC:DST of node names (e.g. b0:b5)")
        if ends[0] == ends[1]:
            raise SpecError(f"{what}: {part!r} pairs node {ends[0]} with itself")
        twice = next((e for e in ends if e in seen), None)
        if twice is not None:
            raise SpecError(f"{what}: node {twice} is in two pairs; a node may be an end of one pair only")
        seen.update(ends)
        out.append((ends[0], ends[1]))
    return out


def listed(spec: NetworkSpec, text: str) -> list[tuple[int, int]]:
    """The pairs a --pairs-list names, as node indices of this network (SpecError: a node it lacks)."""
    index = {n.name: n.index for n in spec.nodes}
    chosen = parse_pairs_list(text)
    missing = [e for pair in chosen for e in pair if e not in index]
    if missing:
        shown = ", ".join(n.name for n in spec.nodes[:6]) + (", ..." if len(spec.nodes) > 6 else "")
        raise SpecError(f"--pairs-list names node {missing[0]}, which {spec.topology} ({len(spec.nodes)} nodes: "
                        f"{shown}) has not (emulate.py topo show {spec.topology})")
    return [(index[a], index[b]) for a, b in chosen]


def one_segment(spec: NetworkSpec) -> bool:
    """Every node sits on the same wires (one shared wire, or the same bonded set): every pair
    shares a wire whatever the placement, so a sweep asking local-wire runs 'any' there
    (run.sweep.Sweep.placements_for); the point records 'any', as every such network's does."""
    return len({tuple(n.wires) for n in spec.nodes}) == 1


def place(spec: NetworkSpec, pairs: int, placement: str = "any", pairs_list: str | None = None) -> list[Pair]:
    """The `pairs` pairs of a placement; with LISTED, the first `pairs` that pairs_list names."""
    if placement == LISTED or pairs_list:
        if not pairs_list or placement != LISTED:
            raise SpecError("--pairs-list names the pairs itself: give it alone, without --placement")
        chosen = listed(spec, pairs_list)
        if isinstance(pairs, bool) or not isinstance(pairs, int) or not 1 <= pairs <= len(chosen):
            raise SpecError(f"{pairs} pairs asked, --pairs-list names {len(chosen)}: name as many as are used")
        return [_pair(spec, a, b) for a, b in chosen[:pairs]]
    if placement not in PLACEMENTS:
        raise SpecError(f"--placement must be one of {', '.join(PLACEMENTS)}, got {placement!r}")
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
        raise SpecError(f"--pairs must be a whole number >= 1, got {pairs!r}")
    if pairs > max_pairs(spec):
        raise SpecError(f"{pairs} pairs need {2 * pairs} nodes; {spec.topology} has {len(spec.nodes)} "
                        f"(use --pairs <= {max_pairs(spec)} or more --nodes)")
    grid = spec.params.get("grid")
    if placement != "any" and not grid:   # a sweep runs 'any' for local-wire on one segment (run.sweep)
        raise SpecError(f"--placement {placement} needs a mesh topology; {spec.topology} has only 'any'")
    if placement == "any":
        return [_pair(spec, 2 * i, 2 * i + 1) for i in range(pairs)]
    key = (spec.topology, len(spec.nodes), pairs, placement)
    if key not in _CACHE:
        local = placement == "local-wire"
        start = _greedy(spec, pairs, grid, local)
        if len(spec.nodes) <= SEARCH_NODES:
            candidates = [(a, b) for a in range(len(spec.nodes)) for b in range(a + 1, len(spec.nodes))
                          if shares_wire(a, b, grid) == local]
            start = _search(spec, candidates, pairs, grid, start)
        _CACHE[key] = start
    chosen = _CACHE[key]
    if chosen is None:
        raise SpecError(f"cannot place {pairs} {placement} pairs on {spec.topology} without reusing "
                        "a node; use fewer --pairs")
    return [_pair(spec, a, b) for a, b in chosen]


def _pair(spec: NetworkSpec, a: int, b: int) -> Pair:
    names = spec.nodes
    k = spec.params.get("grid")
    wire = relay = None
    if k and shares_wire(a, b, k):
        wire = next(w for w in names[a].wires if w in names[b].wires)
    elif k and not spec.switches and not names[a].bonded:
        relay = names[relay_for(a, b, k)].name
    elif not k and not spec.switches:   # an explicit file's routed pair: its first relay
        hop = next((r.via for r in names[a].routes if r.dst == names[b].ip and r.via), None)
        relay = next((n.name for n in names if n.ip == hop), None)
    return Pair(names[a].name, names[b].name, wire, relay, path(spec, a, b))


def _roles(spec: NetworkSpec, a: int, b: int, k: int) -> tuple[int, ...]:
    """Nodes that work for the pair: its ends, and its relay on the routed mesh."""
    if not spec.switches and not spec.nodes[a].bonded and not shares_wire(a, b, k):
        return (a, b, relay_for(a, b, k))
    return (a, b)


def _cost(spec: NetworkSpec, chosen: list[tuple[int, int]], k: int) -> tuple[int, int]:
    """(wire sharing: k pairs on a wire cost k(k-1)/2, nodes in two roles)."""
    load: dict[str, int] = {}
    role: dict[int, int] = {}
    for a, b in chosen:
        for w in (w for seg in path(spec, a, b) for w in seg):
            load[w] = load.get(w, 0) + 1
        for n in _roles(spec, a, b, k):
            role[n] = role.get(n, 0) + 1
    return (sum(n * (n - 1) // 2 for n in load.values()), sum(n - 1 for n in role.values()))


def _greedy(spec: NetworkSpec, pairs: int, k: int, local: bool) -> list[tuple[int, int]] | None:
    """Each free node in turn takes the partner (among the next GREEDY_SCAN) that adds
    the least sharing: a good plan fast, and the search's first bound."""
    n = len(spec.nodes)
    ends: set[int] = set()
    load: dict[str, int] = {}
    role: dict[int, int] = {}
    chosen: list[tuple[int, int]] = []
    for a in range(n):
        if len(chosen) == pairs:
            break
        if a in ends:
            continue
        best = None
        for b in range(a + 1, min(n, a + 1 + GREEDY_SCAN)):
            if b in ends or shares_wire(a, b, k) != local:
                continue
            ws = [w for seg in path(spec, a, b) for w in seg]
            rs = _roles(spec, a, b, k)
            cost = (sum(load.get(w, 0) for w in ws), sum(1 for r in rs if role.get(r)))
            if best is None or cost < best[0]:
                best = (cost, b, ws, rs)
            if cost == (0, 0):
                break
        if best:
            _, b, ws, rs = best
            chosen.append((a, b))
            ends |= {a, b}
            for w in ws:
                load[w] = load.get(w, 0) + 1
            for r in rs:
                role[r] = role.get(r, 0) + 1
    return chosen if len(chosen) == pairs else None


def _search(spec: NetworkSpec, candidates: list[tuple[int, int]], pairs: int,
            k: int, start: list[tuple[int, int]] | None) -> list[tuple[int, int]] | None:
    """Depth-first branch and bound from the greedy plan: fewest excess wire uses,
    then fewest nodes in two roles; first (node order) among equals, so placement
    is deterministic. When the budget runs out, the best plan found so far."""
    wires = {c: [w for seg in path(spec, *c) for w in seg] for c in candidates}
    roles = {c: _roles(spec, *c, k) for c in candidates}
    best: list = [start, _cost(spec, start, k) if start else (10 ** 9, 10 ** 9)]
    budget = [SEARCH_BUDGET]
    # The least sharing possible: every pair's wire uses spread evenly over all wires.
    uses = pairs * min((len(w) for w in wires.values()), default=0)
    n_wires = len(spec.wires)
    q, r = divmod(uses, n_wires)
    floor = (n_wires - r) * q * (q - 1) // 2 + r * (q + 1) * q // 2

    def go(start: int, chosen: list, ends: set, load: dict, role_count: dict, excess: int, clash: int):
        if (excess, clash) >= best[1] or budget[0] <= 0:
            return
        if len(chosen) == pairs:
            best[0], best[1] = list(chosen), (excess, clash)
            return
        for i in range(start, len(candidates)):
            if len(candidates) - i < pairs - len(chosen):
                return
            c = candidates[i]
            if c[0] in ends or c[1] in ends:
                continue
            budget[0] -= 1
            add_excess = sum(load.get(w, 0) for w in wires[c])   # k-th pair on a wire adds k - 1
            add_clash = sum(1 for n in roles[c] if role_count.get(n, 0) >= 1)
            for w in wires[c]:
                load[w] = load.get(w, 0) + 1
            for n in roles[c]:
                role_count[n] = role_count.get(n, 0) + 1
            chosen.append(c)
            go(i + 1, chosen, ends | {c[0], c[1]}, load, role_count, excess + add_excess, clash + add_clash)
            chosen.pop()
            for w in wires[c]:
                load[w] -= 1
            for n in roles[c]:
                role_count[n] -= 1
            if best[1] == (floor, 0):
                return

    go(0, [], set(), {}, {}, 0, 0)
    return best[0]
