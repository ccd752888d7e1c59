"""Mininet Topo classes for every preset, built from a NetworkSpec.

`SpecTopo` is what the testbed builds. The per-preset classes take Mininet's
positional arguments, for plain Mininet tools:
  mn --custom beowulf_netlab/topologies/mininet_topos.py --topo single-net,16,10 --controller none
though `emulate.py cli` adds what plain `mn` cannot do here: capability
probing, a run manifest and exact cleanup.
"""
from __future__ import annotations

from mininet.topo import Topo

from beowulf_netlab.core.command import CommandLog
from beowulf_netlab.netlab.manifest import device_group
from beowulf_netlab.netlab.nic import nic_gaps
from beowulf_netlab.netlab.node import BeowulfHost
from beowulf_netlab.netlab.wire import JoinBridge, JoinOVS, SharedWire
from beowulf_netlab.topologies.presets import PRESETS, build_spec
from beowulf_netlab.topologies.spec import SUBNET, NetworkSpec
from beowulf_netlab.topologies import timescale

DEFAULT_PREFIX = "bnl00"


def wire_node(prefix: str, wire: str) -> str:
    return f"{prefix}w{wire}"


def switch_node(prefix: str, switch: str) -> str:
    return f"{prefix}s{switch}"


class SpecTopo(Topo):
    """Any NetworkSpec as a Mininet graph: hosts are BeowulfHost, wires are
    SharedWire switches, joining switches are JoinOVS or JoinBridge. Every
    node and wire records the commands it applies in `log`. The spec holds the real network;
    what the wires and nodes apply is in scaled time, from topologies.timescale."""

    def build(self, spec: NetworkSpec, prefix: str = DEFAULT_PREFIX,
              bonding_impl: str | None = "nft-numgen-rr", switch_impl: str = "lxbr",
              log: CommandLog | None = None, cpu_netem: bool = False, engine: bool = False) -> None:
        self.spec = spec
        self.prefix = prefix
        self.log = log = log or CommandLog()
        # Every switch gets a datapath id: Mininet would derive one from digits in the
        # name, and a run prefix such as bnlae has none.
        group = device_group(prefix)
        for i, wire in enumerate(spec.wires):
            self.addSwitch(wire_node(prefix, wire.name), cls=SharedWire,
                           rate_mbit=timescale.wire_rate(spec, wire), queue_packets=wire.queue_packets,
                           impairment=timescale.wire_impairment(spec, wire),
                           contention=wire.contention, full_duplex=wire.full_duplex, engine=engine, log=log,
                           group=group, dpid=f"{0xbe1000 + i:016x}")
        for i, sw in enumerate(spec.switches):
            params = {"cls": JoinBridge, "group": group}
            if switch_impl.startswith("ovs"):
                params = {"cls": JoinOVS, "datapath": "user" if switch_impl == "ovs-user" else "kernel"}
            self.addSwitch(switch_node(prefix, sw.name), log=log, dpid=f"{0xbe0000 + i:016x}", **params)
        for node in spec.nodes:
            prefixlen = SUBNET.prefixlen if node.on_link_subnet else 32
            self.addHost(node.name, cls=BeowulfHost, ip=f"{node.ip}/{prefixlen}",
                         bonded=node.bonded, forwarding=node.forwarding,
                         routes=[(r.dst, r.nic, r.via) for r in node.routes],
                         bonding_impl=bonding_impl, forward_delay_ms=timescale.forward_delay_ms(spec, node),
                         host_cost=timescale.host_cost(spec, node), cpu_netem=cpu_netem,
                         rto_min_ms=timescale.rto_min_ms(spec, node), tcp=node.tcp, log=log,
                         # the engine spaces frames itself; a relay's --relay-delay tree owns its NICs' root
                         tx_gaps=[] if engine or node.forward_delay_ms else nic_gaps(spec, node))
            for k, wire in enumerate(node.wires):
                self.addLink(node.name, wire_node(prefix, wire), port1=k)
        for sw in spec.switches:
            for wire in sw.wires:
                self.addLink(switch_node(prefix, sw.name), wire_node(prefix, wire))


def preset_topo(name: str):
    """A Topo class for one preset, taking Mininet-style positional args (nodes, rate_mbit[, channels]);
    one left out takes the preset's own default (its file's, as every verb)."""
    def build(self, nodes: int | None = None, rate_mbit: float | None = None, *rest,
              prefix: str = DEFAULT_PREFIX,
              bonding_impl: str | None = "nft-numgen-rr", switch_impl: str = "lxbr"):
        opts = {"nodes": None if nodes is None else int(nodes),
                "rate_mbit": None if rate_mbit is None else float(rate_mbit)}
        if rest:
            opts["channels"] = int(rest[0])
        SpecTopo.build(self, build_spec(name, **opts), prefix, bonding_impl, switch_impl)
    cls_name = "".join(part.capitalize() for part in name.split("-")) + "Topo"
    return type(cls_name, (SpecTopo,), {"build": build, "__doc__": PRESETS[name].summary})


# For `mn --custom`: one Topo class per preset, by preset name.
topos = {name: preset_topo(name) for name in PRESETS}
