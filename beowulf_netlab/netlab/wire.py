"""Wires and switches as Mininet Switch subclasses, so Mininet's API and CLI see them.

SharedWire, two implementations (impls.wire_impl, recorded as `wire_impl`):
- "engine" (the default where it is built): no bridge at all. The root-namespace ends of the
  wire's veths are ports of the network's medium engine (netlab.medium), which times every frame
  on the segment: its wire time before it arrives, per-frame CSMA/CD, the cards' queues and the
  hosts' per-packet latency. The wire's counters come from the engine.
- "tc": a Linux bridge in the root namespace. Every frame entering the
bridge, from any port (a station, or a switch joining this wire), is first
redirected through one IFB device whose HTB charges it at the wire's rate with
Ethernet framing (see netlab.shaping). So all stations and both directions
share one rate, and a frame crossing two wires is charged on each.
CSMA/CD collisions, jam and binary exponential backoff are not simulated: their
average cost per frame is charged (netlab.contention, on by default on every
shared wire); with --contention off the wire is a perfect arbiter (like ns-3's
CSMA channel). The bridge learns MACs, so a unicast
frame reaches only its addressee instead of every station; that saves host
CPU and changes nothing the wire is charged.

JoinBridge / JoinOVS: a store-and-forward switch joining whole wires. It adds no
rate of its own: the wire a frame enters next charges it.

Every command a wire applies goes through the testbed's CommandLog, so the
results record the exact tc/ip argv of each wire.

Building: see Bridge (batched starts, the run's device group).
"""
from __future__ import annotations

from mininet.node import OVSBridge, Switch

from beowulf_netlab.core.command import CommandLog, run
from beowulf_netlab.netlab.shaping import class_stats, offload_off_cmd, redirect_ingress_cmds, shared_wire_cmds
from beowulf_netlab.topologies.spec import QUEUE_PACKETS, Impairment


def prepare_port(log: CommandLog, owner: str, dev: str) -> None:
    """Root-namespace end of a veth: no offloads, no IPv6 chatter on the wire."""
    log.run(owner, offload_off_cmd(dev), check=False)
    log.run(owner, ["sysctl", "-qw", f"net.ipv6.conf.{dev}.disable_ipv6=1"], check=False)


class Bridge(Switch):
    """A plain Linux bridge (made with iproute2, so bridge-utils is not needed).

    Mininet starts the bridges of one class together (batchStartup): their ip
    and tc commands go in a few `-batch` processes instead of one process each
    (core.command). Every root-namespace device a bridge makes or adopts joins
    the run's device `group`, which teardown deletes in one request."""

    def __init__(self, name: str, log: CommandLog | None = None, group: int = 0,
                 batch: bool = False, **params):
        self.log = log or CommandLog()
        self.group = int(group)
        self.batch = batch
        Switch.__init__(self, name, **params)

    def port_names(self) -> list[str]:
        return [i.name for i in self.intfList() if i.name != "lo"]

    def connected(self) -> bool:
        return True

    def start(self, _controllers) -> None:
        if not self.batch:
            start_bridges([self])

    @classmethod
    def batchStartup(cls, switches, run=None):
        """Mininet's hook: start every bridge of this class at once."""
        start_bridges(list(switches))
        return switches

    def in_group(self) -> list[str]:
        return ["group", str(self.group)] if self.group else []

    # What starting a bridge applies, in the order start_bridges runs it.
    def create_cmds(self) -> list[list[str]]:
        return [["ip", "link", "add", "name", self.name, *self.in_group(), "type", "bridge",
                 "forward_delay", "0", "stp_state", "0"]]

    def ipv6_off_cmd(self) -> list[str]:
        """No IPv6 chatter from the bridge or its root-namespace ports (before the bridge is up)."""
        return ["sysctl", "-qw", *[f"net.ipv6.conf.{dev}.disable_ipv6=1"
                                   for dev in (self.name, *self.port_names())]]

    def join_cmds(self) -> list[list[str]]:
        cmds = []
        for port in self.port_names():
            cmds.append(["ip", "link", "set", port, "master", self.name, *self.in_group()])
            cmds.append(["ip", "link", "set", port, "up"])
        return cmds + [["ip", "link", "set", self.name, "up"]]

    def shaping_cmds(self) -> list[list[str]]:
        return []

    def stop(self, deleteIntfs: bool = True) -> None:
        run(["ip", "link", "del", self.name], check=False)
        super().stop(deleteIntfs)


def start_bridges(bridges: list[Bridge]) -> None:
    """Start bridges together: ports' offloads off (ethtool has no batch mode), every bridge
    made, IPv6 off, ports joined, then every wire's tc tree, in one ip/tc process per step."""
    logs: dict[int, list[Bridge]] = {}
    for br in bridges:
        logs.setdefault(id(br.log), []).append(br)
    for group in logs.values():
        log = group[0].log
        for br in group:
            for port in br.port_names():
                log.run(br.name, offload_off_cmd(port), check=False)
        log.batch("ip", [(br.name, cmd) for br in group for cmd in br.create_cmds()])
        for br in group:
            log.run(br.name, br.ipv6_off_cmd(), check=False)
        log.batch("ip", [(br.name, cmd) for br in group for cmd in br.join_cmds()])
        log.batch("tc", [(br.name, cmd) for br in group for cmd in br.shaping_cmds()])


class SharedWire(Bridge):
    """One shared Ethernet segment (see module doc)."""

    def __init__(self, name: str, rate_mbit: float, queue_packets: int = QUEUE_PACKETS,
                 impairment: Impairment | None = None, contention: bool = False,
                 full_duplex: bool = False, engine: bool = False, **params):
        self.engine = engine
        self.medium = None        # the running netlab.medium.Medium, set by the testbed
        self.spec_name = ""       # the wire's name in the spec (the engine's segment)
        self.rate_mbit = float(rate_mbit)
        self.contention = contention
        self.full_duplex = full_duplex
        self.queue_packets = int(queue_packets)
        self.impairment = impairment
        Bridge.__init__(self, name, **params)

    @property
    def ifb(self) -> str:
        return f"{self.name}i"

    def create_cmds(self) -> list[list[str]]:
        if self.engine:
            return []
        return super().create_cmds() + [["ip", "link", "add", "name", self.ifb, *self.in_group(), "type", "ifb"],
                                        ["ip", "link", "set", self.ifb, "up"]]

    def ipv6_off_cmd(self) -> list[str]:
        if self.engine:   # no bridge device: only the ports
            return ["sysctl", "-qw", *[f"net.ipv6.conf.{dev}.disable_ipv6=1" for dev in self.port_names()]]
        return super().ipv6_off_cmd()

    def join_cmds(self) -> list[list[str]]:
        if self.engine:   # the engine's ports: up, in the run's device group, on no bridge
            return [["ip", "link", "set", port, *self.in_group(), "up"] for port in self.port_names()]
        return super().join_cmds()

    def engine_ports(self) -> list[tuple[str, str | None]]:
        """(port, node name or None for a switch) for each of the wire's ports."""
        out = []
        for intf in self.intfList():
            link = getattr(intf, "link", None)
            if link is None or intf.name == "lo":
                continue
            peer = link.intf2 if link.intf1 is intf else link.intf1
            out.append((intf.name, peer.node.name if hasattr(peer.node, "read_file") else None))
        return out

    def shaping_cmds(self) -> list[list[str]]:
        if self.engine:
            return []
        cmds = shared_wire_cmds(self.ifb, self.rate_mbit, self.station_macs(), self.queue_packets,
                                self.impairment, self.full_duplex)
        for port in self.port_names():
            cmds += redirect_ingress_cmds(port, self.ifb)
        return cmds

    def station_macs(self) -> list[str]:
        """MACs of the hosts' NICs on this wire, read from inside their namespaces
        (after bonding, which may have changed them)."""
        macs = []
        for intf in self.intfList():
            link = getattr(intf, "link", None)
            if link is None:
                continue
            peer = link.intf2 if link.intf1 is intf else link.intf1
            if hasattr(peer.node, "read_file"):  # a BeowulfHost, not a joining switch
                macs.append(peer.node.read_file(f"/sys/class/net/{peer.name}/address"))
        return macs

    def stop(self, deleteIntfs: bool = True) -> None:
        if not self.engine:
            run(["ip", "link", "del", self.ifb], check=False)
        super().stop(deleteIntfs)

    def class_counters(self) -> dict[str, tuple[int, int]]:
        """Per-station counters: station -> (on-wire bytes, frames) it sent on the wire.
        Bytes include framing overhead (the tc wire's size table, the engine's 802.3 framing).
        Stations are HTB classids on the tc wire, port names on the engine."""
        if self.engine:
            return {name: (p["wire_bytes_sent"], p["frames_sent"])
                    for name, p in self.medium.port_counters(self.spec_name).items()}
        stats = class_stats(run(["tc", "-s", "class", "show", "dev", self.ifb], check=False))
        return {c: (v["bytes"], v["packets"]) for c, v in stats.items() if v["leaf"]}

    def carried_bytes(self) -> int:
        """On-wire bytes (framing included) the wire has carried, for utilisation."""
        if self.engine:
            return self.medium.wire_bytes(self.spec_name)
        return sum(b for b, _ in self.class_counters().values())

    def summary(self) -> str:
        """One line for the CLI's `wires` command."""
        kind = "each way (full-duplex port)" if self.full_duplex else "shared"
        if self.engine:
            seg = self.medium.snapshot(max_age_s=0)["segments"][self.spec_name]
            ports = self.medium.port_counters(self.spec_name).values()
            return (f"{self.name}: {self.rate_mbit:g} Mbit/s {kind}, {len(self.port_names())} ports, "
                    f"frame-timed by the medium engine; {seg['frames']} frames, {seg['wire_bytes']} bytes "
                    f"on the wire, {seg['collisions']} collisions, "
                    f"{sum(p['drops_queue'] + p['drops_collisions'] for p in ports)} dropped")
        stats = run(["tc", "-s", "qdisc", "show", "dev", self.ifb], check=False)
        sent = next((ln.strip() for ln in stats.splitlines() if ln.strip().startswith("Sent")), "")
        return f"{self.name}: {self.rate_mbit:g} Mbit/s {kind}, {len(self.port_names())} ports; {sent}"


class JoinBridge(Bridge):
    """A switch joining wires, as a Linux bridge."""
    impl = "lxbr"


class JoinOVS(OVSBridge):
    """A switch joining wires, as a standalone Open vSwitch bridge.

    datapath='user' is OVS's userspace (netdev) datapath, used where the kernel
    has no openvswitch module; it needs TX checksum offload off on every port
    that feeds it, or TCP stalls (mininet#653), which prepare_port does.
    """

    def __init__(self, name: str, datapath: str = "kernel", log: CommandLog | None = None, **params):
        self.impl = "ovs-user" if datapath == "user" else "ovs-kernel"
        self.log = log or CommandLog()
        OVSBridge.__init__(self, name, datapath=datapath, **params)

    def start(self, controllers) -> None:
        for intf in self.intfList():
            if intf.name != "lo":
                prepare_port(self.log, self.name, intf.name)
        super().start(controllers)

