"""Mininet Topo subclasses for every preset, built from a NetworkSpec.

Usable on their own with Mininet's tools, e.g.
  mn --custom topologies/mininet_topos.py --topo single-net,16,10 --controller none
though `emulate.py cli` adds what plain `mn` cannot do here: capability probing,
a run manifest and exact cleanup.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mininet.topo import Topo  # noqa: E402

from netlab.nodes import BeowulfHost  # noqa: E402
from netlab.wire import JoinBridge, JoinOVS, SharedWire  # noqa: E402
from topologies.presets import PRESETS, build_spec  # noqa: E402
from topologies.spec import SUBNET, NetworkSpec  # noqa: E402

DEFAULT_PREFIX = "bnl00"


def wire_node(prefix: str, wire: str) -> str:
    return f"{prefix}w{wire}"


def switch_node(prefix: str, switch: str) -> str:
    return f"{prefix}s{switch}"


class SpecTopo(Topo):
    """Any NetworkSpec as a Mininet graph: hosts are BeowulfHost, wires are
    SharedWire switches, joining switches are JoinOVS or JoinBridge."""

    def build(self, spec: NetworkSpec, prefix: str = DEFAULT_PREFIX,
              bonding_impl: str | None = "nft-numgen-rr", switch_impl: str = "lxbr") -> None:
        self.spec = spec
        self.prefix = prefix
        for wire in spec.wires:
            self.addSwitch(wire_node(prefix, wire.name), cls=SharedWire, rate_mbit=wire.rate_mbit,
                           medium=wire.medium, queue_packets=wire.queue_packets,
                           impairment=wire.impairment)
        for i, sw in enumerate(spec.switches):
            if switch_impl.startswith("ovs"):
                params = {"cls": JoinOVS, "dpid": f"{0xbe0000 + i:016x}",
                          "datapath": "user" if switch_impl == "ovs-user" else "kernel"}
            else:
                params = {"cls": JoinBridge}
            self.addSwitch(switch_node(prefix, sw.name), **params)
        for node in spec.nodes:
            shaping = [(spec.wire(w).rate_mbit, spec.wire(w).queue_packets)
                       if spec.wire(w).medium == "switched" else None for w in node.wires]
            prefixlen = SUBNET.prefixlen if node.on_link_subnet else 32
            self.addHost(node.name, cls=BeowulfHost, ip=f"{node.ip}/{prefixlen}",
                         bonded=node.bonded, forwarding=node.forwarding,
                         routes=[(r.dst, r.nic, r.via) for r in node.routes],
                         on_link=node.on_link_subnet, bonding_impl=bonding_impl,
                         nic_shaping=shaping, forward_delay_ms=node.forward_delay_ms)
            for k, wire in enumerate(node.wires):
                self.addLink(node.name, wire_node(prefix, wire), port1=k)
        for sw in spec.switches:
            for wire in sw.wires:
                self.addLink(switch_node(prefix, sw.name), wire_node(prefix, wire))


def preset_topo(name: str):
    """A Topo class for one preset, taking Mininet-style positional args (nodes, rate[, channels])."""
    def build(self, nodes: int = 16, rate: float = 10.0, *rest, prefix: str = DEFAULT_PREFIX,
              bonding_impl: str | None = "nft-numgen-rr", switch_impl: str = "lxbr"):
        opts = {"nodes": int(nodes), "rate": float(rate)}
        if rest:
            opts["channels"] = int(rest[0])
        SpecTopo.build(self, build_spec(name, **opts), prefix, bonding_impl, switch_impl)
    cls_name = "".join(part.capitalize() for part in name.split("-")) + "Topo"
    return type(cls_name, (SpecTopo,), {"build": build, "__doc__": PRESETS[name].summary})


SingleNetTopo = preset_topo("single-net")
BondedDualNetTopo = preset_topo("bonded-dual-net")
SwitchedMeshTopo = preset_topo("switched-mesh")
RoutedMeshTopo = preset_topo("routed-mesh")
BondedSwitchedMeshTopo = preset_topo("bonded-switched-mesh")

# For `mn --custom`.
topos = {name: preset_topo(name) for name in PRESETS}
