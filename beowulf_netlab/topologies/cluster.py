"""The 2001 cluster of MACHE01: every node on its own full-duplex port of one switch.

Five years after Beowulf, a cluster's nodes hung off one Gigabit switch, each
on a point-to-point full-duplex link: no shared medium, no collisions, each
direction of each port at the full rate, and the switch non-blocking. Here a
port is a full-duplex `Wire` (one station and the switch) and the switch
joins all of them. Pure data, like every preset.
"""
from __future__ import annotations

from beowulf_netlab.topologies.spec import NetworkSpec, Node, Switch, Wire, check_nodes, check_rate, node_name

CLUSTER_NODES = 32          # MACHE01's 32 nodes
CLUSTER_RATE_MBIT = 1000.0  # Gigabit Ethernet


def port_name(index: int) -> str:
    return f"p{index:x}"


def switched_cluster(nodes: int = CLUSTER_NODES, rate_mbit: float = CLUSTER_RATE_MBIT) -> NetworkSpec:
    """N nodes, each on its own full-duplex switch port of `rate_mbit` each way."""
    check_nodes(nodes)
    rate = check_rate(rate_mbit)
    wires = tuple(Wire(name=port_name(i), rate_mbit=rate, full_duplex=True) for i in range(nodes))
    spec = NetworkSpec(
        topology="switched-cluster", params={"nodes": nodes, "rate_mbit": rate},
        wires=wires,
        nodes=tuple(Node(name=node_name(i), index=i, wires=(port_name(i),)) for i in range(nodes)),
        switches=(Switch("sw", tuple(w.name for w in wires)),),
        notes=("each node has its own full-duplex port: each direction carries the whole rate",
               "the switch joins every port; it adds no rate of its own"))
    spec.validate()
    return spec
