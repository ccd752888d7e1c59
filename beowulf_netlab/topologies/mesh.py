"""The HPDC'96 segmented topologies: a k x k grid of nodes, one shared wire per
grid row and one per grid column, every node with a NIC on each.

Numbering is row-major as in the papers' examples: node i sits at row i // k,
column i % k, so b0-b3 share row wire r0 and b1, b5, b9, bd share column wire c1.
NIC 0 of every node is its row NIC, NIC 1 its column NIC.

Relay rule (routed mesh). A remote-wire pair {a, b} (a < b, no shared wire) has
two possible one-hop relays: R1 = (row a, col b) and R2 = (row b, col a). We use
R1 when (row a + col a + row b + col b) is even, else R2. Both directions of a
pair use the same relay, so a flow and its ACKs load the same two wires. On the
16-node grid every node relays for 4 or 5 of the 72 remote pairs.
The switched mesh uses the same parity to choose which switch a remote pair
crosses: even -> the row switch, odd -> the column switch.
"""
from __future__ import annotations

import math

from beowulf_netlab.topologies.spec import (DEFAULT_NODES, DEFAULT_RATE_MBIT, NetworkSpec, Node, Route, SpecError,
                                            Switch, Wire, check_nodes, check_rate, node_ip, node_name)

ROW_NIC, COL_NIC = 0, 1


def grid_side(nodes: int) -> int:
    if isinstance(nodes, bool) or not isinstance(nodes, int):
        raise SpecError(f"--nodes must be a whole number, got {nodes!r}")
    k = math.isqrt(nodes) if nodes > 0 else 0
    if k * k != nodes:
        raise SpecError(f"a mesh needs a perfect-square --nodes (4, 9, 16, 25, ...), got {nodes}")
    if k < 2:
        raise SpecError(f"a mesh needs a grid of at least 2 x 2 (--nodes >= 4), got {nodes}")
    check_nodes(nodes)
    return k


def position(index: int, k: int) -> tuple[int, int]:
    return divmod(index, k)


def shares_wire(a: int, b: int, k: int) -> bool:
    (ra, ca), (rb, cb) = position(a, k), position(b, k)
    return a != b and (ra == rb or ca == cb)


def even_pair(a: int, b: int, k: int) -> bool:
    lo, hi = min(a, b), max(a, b)
    (r1, c1), (r2, c2) = position(lo, k), position(hi, k)
    return (r1 + c1 + r2 + c2) % 2 == 0


def relay_for(a: int, b: int, k: int) -> int:
    """The node that forwards between remote-wire nodes a and b (see module doc)."""
    if shares_wire(a, b, k) or a == b:
        raise ValueError(f"nodes {a} and {b} share a wire: no relay")
    lo, hi = min(a, b), max(a, b)
    (r1, c1), (r2, c2) = position(lo, k), position(hi, k)
    row, col = (r1, c2) if even_pair(a, b, k) else (r2, c1)
    return row * k + col


def _direct_nic(src: int, dst: int, k: int) -> int:
    return ROW_NIC if position(src, k)[0] == position(dst, k)[0] else COL_NIC


def routed_routes(src: int, k: int) -> tuple[Route, ...]:
    routes = []
    for dst in range(k * k):
        if dst == src:
            continue
        if shares_wire(src, dst, k):
            routes.append(Route(node_ip(dst), _direct_nic(src, dst, k)))
        else:
            relay = relay_for(src, dst, k)
            routes.append(Route(node_ip(dst), _direct_nic(src, relay, k), node_ip(relay)))
    return tuple(routes)


def switched_routes(src: int, k: int) -> tuple[Route, ...]:
    routes = []
    for dst in range(k * k):
        if dst == src:
            continue
        if shares_wire(src, dst, k):
            nic = _direct_nic(src, dst, k)
        else:
            nic = ROW_NIC if even_pair(src, dst, k) else COL_NIC
        routes.append(Route(node_ip(dst), nic))
    return tuple(routes)


def grid(nodes: int, rate_mbit: float, name: str, *, switched: bool, bonded: bool,
          routed: bool) -> NetworkSpec:
    k = grid_side(nodes)
    rate = check_rate(rate_mbit)
    rows = [Wire(f"r{r}", rate) for r in range(k)]
    cols = [Wire(f"c{c}", rate) for c in range(k)]
    switches: tuple[Switch, ...] = ()
    if switched:
        switches = (Switch("row", tuple(w.name for w in rows)),
                    Switch("col", tuple(w.name for w in cols)))
    spec_nodes = []
    for i in range(nodes):
        r, c = position(i, k)
        if bonded:
            routes: tuple[Route, ...] = ()
        elif routed:
            routes = routed_routes(i, k)
        else:
            routes = switched_routes(i, k)
        spec_nodes.append(Node(name=node_name(i), index=i, wires=(f"r{r}", f"c{c}"),
                               bonded=bonded, forwarding=routed, routes=routes, grid=(r, c)))
    spec = NetworkSpec(topology=name, params={"nodes": nodes, "rate_mbit": rate, "grid": k},
                       wires=tuple(rows + cols), nodes=tuple(spec_nodes), switches=switches)
    spec.validate()
    return spec


def switched_mesh(nodes: int = DEFAULT_NODES, rate_mbit: float = DEFAULT_RATE_MBIT) -> NetworkSpec:
    """Grid wires plus a switch joining the row wires and one joining the column wires."""
    return grid(nodes, rate_mbit, "switched-mesh", switched=True, bonded=False, routed=False)


def routed_mesh(nodes: int = DEFAULT_NODES, rate_mbit: float = DEFAULT_RATE_MBIT) -> NetworkSpec:
    """Grid wires, no switches: nodes forward remote-wire traffic in software."""
    return grid(nodes, rate_mbit, "routed-mesh", switched=False, bonded=False, routed=True)


def bonded_switched_mesh(nodes: int = DEFAULT_NODES, rate_mbit: float = DEFAULT_RATE_MBIT) -> NetworkSpec:
    """Switched mesh with every node bonding its row and column NICs."""
    return grid(nodes, rate_mbit, "bonded-switched-mesh", switched=True, bonded=True, routed=False)


def grid_text(spec: NetworkSpec) -> list[str]:
    """The grid as text: row wires across, column wires down; for the routed mesh,
    the relay of every pair (row: from, column: to; '.' = same wire)."""
    k = spec.params["grid"]
    names = [n.name for n in spec.nodes]
    width = max(len(n) for n in names) + 1
    lines = ["grid (row wires r*, column wires c*):",
             "      " + "".join(f"c{c}".ljust(width + 3) for c in range(k))]
    for r in range(k):
        cells = "---".join(names[r * k + c].ljust(width) for c in range(k))
        lines.append(f"  r{r}  {cells}" + ("   <- row switch" if spec.switches else ""))
        if r < k - 1:
            lines.append("      " + "".join("|".ljust(width + 3) for _ in range(k)))
    if spec.switches:
        lines.append("      " + "".join("^".ljust(width + 3) for _ in range(k)) + "column switch joins c*")
    if any(n.forwarding for n in spec.nodes):
        lines += ["", "relay for each pair (row: from, column: to; '.' = same wire):",
                  "      " + "".join(n.ljust(width) for n in names)]
        for a in range(k * k):
            row = []
            for b in range(k * k):
                row.append("" if a == b else "." if shares_wire(a, b, k) else names[relay_for(a, b, k)])
            lines.append(f"  {names[a]:4s}" + "".join((c or "-").ljust(width) for c in row))
    return lines
