"""The network model every topology is a preset of: wires, switches, nodes.

Pure data, no root and no Mininet needed, so presets can be listed, shown and
unit-tested anywhere. `topologies.mininet_topos` turns a spec into a Mininet
Topo; `netlab` turns that into namespaces, veths and qdiscs.

Addressing: node i (0-based) owns one address, 10.0.X.Y with X.Y = i+1, in
10.0.0.0/16. Nodes whose NICs share one layer-2 domain (single net, bonded
nets) get that /16 on-link; nodes on segmented wiring get /32s plus explicit
host routes (see `Route`).
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.topologies.hardware import NONE

if TYPE_CHECKING:
    from beowulf_netlab.topologies.hardware import HostCost, Profile, TcpSettings

SUBNET = ipaddress.ip_network("10.0.0.0/16")
# The network's defaults and bounds live here and nowhere else.
DEFAULT_RATE_MBIT = 10.0          # 1996 Ethernet; 100 is Fast Ethernet
MIN_RATE_MBIT = 0.1
MAX_RATE_MBIT = 1000.0
DEFAULT_NODES = 16
MAX_NODES = 1024
DEFAULT_CHANNELS = 2
DEFAULT_TIME_SCALE = 1.0          # real time (topologies.timescale)
MAX_CHANNELS = 8
QUEUE_PACKETS = 100               # a station's transmit queue, in frames
MAX_DELAY_MS = 10_000.0
IFNAME_MAX = 15                   # Linux's IFNAMSIZ - 1: the longest interface name
RUN_PREFIX_CHARS = 5              # a run's prefix on its wires and switches (netlab.manifest: bnlXX)


class SpecError(BadInput):
    """A topology parameter a user gave cannot be built; the message says why."""


@dataclass(frozen=True)
class Impairment:
    """netem on a wire (see topologies.impairments): per crossing, delay +- jitter, loss."""
    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    loss_pct: float = 0.0

    @property
    def active(self) -> bool:
        return bool(self.delay_ms or self.jitter_ms or self.loss_pct)

    def check(self) -> "Impairment":
        if not 0 <= self.delay_ms <= MAX_DELAY_MS:
            raise SpecError(f"--delay must be in [0, {MAX_DELAY_MS:g}] ms, got {self.delay_ms:g}")
        if not 0 <= self.jitter_ms <= self.delay_ms:
            raise SpecError(f"--jitter must be in [0, delay] ms (netem spreads around the delay), "
                            f"got {self.jitter_ms:g} with delay {self.delay_ms:g}")
        if not 0 <= self.loss_pct < 100:
            raise SpecError(f"--loss must be a percentage in [0, 100), got {self.loss_pct:g}")
        return self


@dataclass(frozen=True)
class Wire:
    """One shared Ethernet segment (a 1996 coax or hub segment): every frame that
    enters it, from any station and in either direction, is charged against
    its one rate."""
    name: str
    rate_mbit: float
    queue_packets: int = QUEUE_PACKETS
    impairment: Impairment = Impairment()
    contention: bool = False        # charge CSMA/CD's average contention per frame (netlab.contention)
    full_duplex: bool = False       # a switched port: each direction has the whole rate, no contention


@dataclass(frozen=True)
class Switch:
    """A store-and-forward switch joining whole wires (one port per wire)."""
    name: str
    wires: tuple[str, ...]


@dataclass(frozen=True)
class Route:
    """A host route: reach `dst` (an address) out of NIC `nic`, via `via` if set."""
    dst: str
    nic: int
    via: str | None = None


@dataclass(frozen=True)
class Node:
    """A Beowulf node. NIC k sits on wires[k]; `bonded` stripes its own traffic
    across all NICs packet by packet; `forwarding` makes it relay others' packets."""
    name: str
    index: int
    wires: tuple[str, ...]
    bonded: bool = False
    forwarding: bool = False
    routes: tuple[Route, ...] = ()
    grid: tuple[int, int] | None = None
    forward_delay_ms: float = 0.0   # a relay holds each forwarded packet this long
    host_cost: "HostCost | None" = None   # the node's CPU budget (topologies.hardware)
    tcp: "TcpSettings | None" = None      # the TCP the node runs (topologies.hardware); None: unset

    @property
    def ip(self) -> str:
        return node_ip(self.index)

    @property
    def on_link_subnet(self) -> bool:
        """True when every peer is reachable on-link (no explicit routes)."""
        return not self.routes


@dataclass(frozen=True)
class Machine:
    """The machine a network runs on, resolved once (presets.machine, timescale.scale) and read
    through this by everyone: the hardware profile itself (topologies.hardware.Profile, `era`
    resolved; None: a spec never given a machine, today's host with nothing declared), whether
    its shared wires collide and whether that is the profile's own default, the time scale D, and
    the gap each network card leaves between the frames it sends (us, real time; 0: none;
    netlab.nic). What the profile costs and runs is per node (Node.host_cost, Node.tcp) and per
    wire (Wire.contention); its disks come from netlab.disk_profiles.for_spec, which reads the
    profile and D here: no one loads a profile by name once the spec is built."""
    profile: "Profile | None" = None
    contention: bool = False
    contention_default: bool = False
    time_scale: float = DEFAULT_TIME_SCALE
    tx_gap_us: float = 0.0
    card_latency_us: float = 0.0     # each card's own latency per packet, at each end (the profile's, or set)
    queue_packets: int = 0             # every queue a packet waits in, when set (sensitivity); 0: as built

    @property
    def hardware(self) -> str:
        """The profile's name, as points record it (topologies.hardware.hardware_of)."""
        return self.profile.name if self.profile is not None else NONE


@dataclass(frozen=True)
class NetworkSpec:
    topology: str
    params: dict
    wires: tuple[Wire, ...]
    nodes: tuple[Node, ...]
    switches: tuple[Switch, ...] = ()
    notes: tuple[str, ...] = field(default=())
    machine: Machine = Machine()

    def wire(self, name: str) -> Wire:
        for w in self.wires:
            if w.name == name:
                return w
        raise KeyError(name)

    def node(self, name: str) -> Node:
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)

    def members(self, wire: str) -> list[Node]:
        """Nodes with a NIC on `wire`, in node order."""
        return [n for n in self.nodes if wire in n.wires]

    def validate(self) -> None:
        """Catch wiring mistakes before anything is created on the host."""
        names = {w.name for w in self.wires}
        if len(names) != len(self.wires):
            raise SpecError("two wires share a name")
        for w in self.wires:
            check_rate(w.rate_mbit)
        for n in self.nodes:
            for w in n.wires:
                if w not in names:
                    raise SpecError(f"node {n.name} sits on unknown wire {w}")
            if n.bonded and len(n.wires) < 1:
                raise SpecError(f"node {n.name}: bonding needs at least one NIC")
        for s in self.switches:
            for w in s.wires:
                if w not in names:
                    raise SpecError(f"switch {s.name} joins unknown wire {w}")
        self._check_interface_names()

    def _check_interface_names(self) -> None:
        """Each node's, wire's and switch's last interface name within IFNAME_MAX (Mininet names
        them NAME-ethK, a wire's and a switch's ports from 1 under the run's prefix): found here,
        not when the 100th port of a wire is built."""
        ports = {w.name: len(self.members(w.name)) for w in self.wires}
        for s in self.switches:
            for w in s.wires:
                ports[w] += 1
        prefix = "x" * RUN_PREFIX_CHARS
        longest = [(f"node {n.name}", f"{n.name}-eth{len(n.wires) - 1}") for n in self.nodes if n.wires]
        longest += [(f"wire {w}", f"{prefix}w{w}-eth{k}") for w, k in ports.items() if k]
        longest += [(f"switch {s.name}", f"{prefix}s{s.name}-eth{len(s.wires)}") for s in self.switches if s.wires]
        for what, name in longest:
            if len(name) > IFNAME_MAX:
                raise SpecError(f"{what}: its interfaces' names reach {len(name)} characters "
                                f"({name.replace(prefix, 'bnlXX')}) and Linux allows {IFNAME_MAX}: use a shorter "
                                "name, or fewer nodes on it")


def node_name(index: int) -> str:
    """b0, b1, ... bf, b10: hexadecimal as in the papers' B0...BF."""
    return f"b{index:x}"


def node_ip(index: int) -> str:
    return str(SUBNET.network_address + index + 1)


MAX_GAP_BYTES = 65535    # HTB adds at most this per frame (a 16-bit overhead; netlab.nic)
MAX_TX_GAP_US = 10_000.0 # a card's gap between frames: 10 ms is beyond any card's
MAX_CARD_LATENCY_US = 10_000.0   # a card's own latency per packet: likewise


def check_tx_gap(gap_us: float, rate_mbit: float) -> float:
    """A NIC's gap between frames (--tx-gap-us), which the shaper adds as T x rate / 8 bytes."""
    if isinstance(gap_us, bool) or not isinstance(gap_us, (int, float)) or gap_us != gap_us \
            or not 0 <= gap_us <= MAX_TX_GAP_US:
        raise SpecError(f"--tx-gap-us must be a time in 0..{MAX_TX_GAP_US:g} us, got {gap_us!r}")
    most = MAX_GAP_BYTES * 8 / rate_mbit
    if gap_us > most:
        raise SpecError(f"--tx-gap-us {gap_us:g} at {rate_mbit:g} Mbit/s is more than the shaper can add "
                        f"to a frame; use at most {int(most)} us")
    return float(gap_us)


def check_card_latency(latency_us: float) -> float:
    """A card's own latency per packet (--card-latency-us), us."""
    if isinstance(latency_us, bool) or not isinstance(latency_us, (int, float)) or latency_us != latency_us \
            or not 0 <= latency_us <= MAX_CARD_LATENCY_US:
        raise SpecError(f"--card-latency-us must be a time in 0..{MAX_CARD_LATENCY_US:g} us, got {latency_us!r}")
    return float(latency_us)


def check_rate(rate: float) -> float:
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or rate != rate \
            or not MIN_RATE_MBIT <= rate <= MAX_RATE_MBIT:
        raise SpecError(f"--rate-mbit must be in {MIN_RATE_MBIT:g}..{MAX_RATE_MBIT:g} Mbit/s, got {rate!r}")
    return float(rate)


def check_channels(channels: int) -> int:
    if isinstance(channels, bool) or not isinstance(channels, int) or not 1 <= channels <= MAX_CHANNELS:
        raise SpecError(f"--channels must be a whole number in 1..{MAX_CHANNELS}, got {channels!r}")
    return channels


def check_nodes(nodes: int) -> int:
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 2 <= nodes <= MAX_NODES:
        raise SpecError(f"--nodes must be a whole number in 2..{MAX_NODES}, got {nodes!r}")
    return nodes
