"""Named topologies from the papers: topology files (beowulf_netlab/topologies/library/*.json) built into a NetworkSpec.

A preset only describes wiring; it never decides how a wire or a bond is
implemented on this host (that is `netlab`'s job, after probing the kernel).
This module owns the registry: each preset is a topology file (`topologies.files`)
whose kind names its builder here (shared wires), in `topologies.mesh` (the grids) or
`topologies.cluster` (the switched cluster); a path given where a name is taken
builds any other topology file the same way.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from beowulf_netlab.topologies import cluster, files, mesh
from beowulf_netlab.topologies.hardware import NONE, resolve
from beowulf_netlab.topologies.impairments import Impairment, apply
from beowulf_netlab.topologies.timescale import scale
from beowulf_netlab.topologies.spec import (DEFAULT_CHANNELS, DEFAULT_TIME_SCALE, DEFAULT_NODES, DEFAULT_RATE_MBIT, NetworkSpec, Node,
                                            SpecError, Wire, check_channels, check_nodes, check_rate, check_tx_gap,
                                            check_card_latency, node_name)


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    build: Callable[..., NetworkSpec]
    options: tuple[str, ...]  # which of nodes/rate_mbit/channels it takes
    defaults: dict = dataclasses.field(default_factory=dict)   # the file's default for each
    path: Path | None = None  # the topology file it was read from

    def default(self, option: str):
        """The preset's own default for one of its options (its file's), or None: every verb
        (topo, cli, run, experiment) asks here, so a preset means one network."""
        return self.defaults.get(option) if option in self.options else None


def single_net(nodes: int = DEFAULT_NODES, rate_mbit: float = DEFAULT_RATE_MBIT) -> NetworkSpec:
    """N nodes on one shared wire: the baseline every paper compares against."""
    return bonded_dual_net(nodes=nodes, rate_mbit=rate_mbit, channels=1)


def bonded_dual_net(nodes: int = DEFAULT_NODES, rate_mbit: float = DEFAULT_RATE_MBIT,
                    channels: int = DEFAULT_CHANNELS) -> NetworkSpec:
    """N nodes on K shared wires, every node striping packets round-robin over
    its K NICs (Becker's channel bonding). K=1 is exactly single-net."""
    check_nodes(nodes)
    rate = check_rate(rate_mbit)
    check_channels(channels)
    wires = tuple(Wire(name=f"w{k}", rate_mbit=rate) for k in range(channels))
    bonded = channels > 1
    spec_nodes = tuple(
        Node(name=node_name(i), index=i, wires=tuple(w.name for w in wires), bonded=bonded)
        for i in range(nodes))
    spec = NetworkSpec(
        topology="single-net" if channels == 1 else "bonded-dual-net",
        params={"nodes": nodes, "rate_mbit": rate, "channels": channels},
        wires=wires, nodes=spec_nodes,
        notes=("each wire is one shared 1996 Ethernet segment: all its stations split its rate",))
    spec.validate()
    return spec


def _builder(topo: files.TopologyFile) -> Callable[..., NetworkSpec]:
    """The function that builds a topology file's network from its options."""
    d = topo.defaults
    if topo.kind == "shared":
        fixed = topo.data.get("channels", 1)
        one = topo.data.get("one_channel_is", topo.name)

        def shared(nodes: int = d["nodes"], rate_mbit: float = d["rate_mbit"],
                   channels: int = d.get("channels", fixed)) -> NetworkSpec:
            spec = bonded_dual_net(nodes, rate_mbit, channels)
            return dataclasses.replace(spec, topology=one if channels == 1 else topo.name)
        return shared
    if topo.kind == "grid":
        g = topo.data.get("grid", {})

        def grid(nodes: int = d["nodes"], rate_mbit: float = d["rate_mbit"]) -> NetworkSpec:
            return mesh.grid(nodes, rate_mbit, topo.name, switched=g.get("switched", False),
                             bonded=g.get("bonded", False), routed=g.get("routed", False))
        return grid
    if topo.kind == "star":
        def star(nodes: int = d["nodes"], rate_mbit: float = d["rate_mbit"]) -> NetworkSpec:
            return dataclasses.replace(cluster.switched_cluster(nodes, rate_mbit), topology=topo.name)
        return star

    def listed(nodes: int = d["nodes"], rate_mbit: float = d["rate_mbit"]) -> NetworkSpec:
        if nodes != d["nodes"]:
            raise SpecError(f"topology {topo.name} lists {d['nodes']} nodes; --nodes cannot change that "
                            "(edit its file)")
        return files.explicit(topo, rate_mbit)
    return listed


def preset_of(topo: files.TopologyFile) -> Preset:
    return Preset(topo.name, topo.summary, _builder(topo), tuple(o for o in files.OPTIONS if o in topo.defaults),
                  dict(topo.defaults), topo.path)


PRESETS: dict[str, Preset] = {t.name: preset_of(t) for t in files.library()}


def is_file(name: str) -> bool:
    """A topology given by its file's path rather than a preset's name."""
    return name.endswith(".json") or "/" in name


def preset(name: str) -> Preset:
    """A preset by name, or the topology file a path names (read and checked each time)."""
    if name in PRESETS:
        return PRESETS[name]
    if is_file(name):
        topo = files.load(Path(name))
        if topo.name in PRESETS:    # results would record a preset's name for another wiring
            raise SpecError(f"topology file {name} is named {topo.name!r}, a preset's name; give it its own")
        return preset_of(topo)
    raise SpecError(f"unknown topology {name!r}; choose one of: {', '.join(PRESETS)} "
                    "(emulate.py topo list), or give a topology file's path (beowulf_netlab/topologies/schema.json)")


def check_topology(name: str) -> str:
    """A preset's name or a topology file's path, checked (the file read and its schema held;
    an explicit file's wiring built, a generated one's when it is built)."""
    preset(name)
    return name


def build_spec(name: str, **options) -> NetworkSpec:
    """Build a preset by name. Options it does not take must be unset (None);
    delay_ms/jitter_ms/loss_pct, relay_delay_ms, hardware, contention, tx_gap_us, queue_packets
    and time_scale apply to any preset."""
    preset_ = preset(name)
    # netem's: the wire's as Impairment declares them (unset: its own zero), a relay's hold
    wire = Impairment(**{f.name: float(v) for f in dataclasses.fields(Impairment)
                         if (v := options.pop(f.name, None))})
    relay = options.pop("relay_delay_ms", None)
    hardware = options.pop("hardware", None) or NONE
    contention = options.pop("contention", None)
    tx_gap_us = options.pop("tx_gap_us", None)
    card_latency_us = options.pop("card_latency_us", None)
    queue_packets = options.pop("queue_packets", None) or 0
    time_scale = options.pop("time_scale", None)
    time_scale = DEFAULT_TIME_SCALE if time_scale is None else time_scale
    kwargs = {}
    for key, value in options.items():
        if value is None:
            continue
        if key not in preset_.options:
            raise SpecError(f"topology {preset_.name} does not take --{key.replace('_', '-')}")
        kwargs[key] = value
    spec = preset_.build(**kwargs)
    if wire.active or relay:
        spec = apply(spec, wire, **({"relay_delay_ms": float(relay)} if relay else {}))
    return scale(machine(spec, hardware, contention, tx_gap_us, queue_packets, card_latency_us), time_scale)


def machine(spec: NetworkSpec, hardware: str = NONE, contention: bool | str | None = None,
            tx_gap_us: float | None = None, queue_packets: int = 0,
            card_latency_us: float | None = None) -> NetworkSpec:
    """The same network on a hardware profile's nodes (each gets the profile's
    host cost and TCP) and, with contention, shared wires that charge CSMA/CD's
    average cost and drop after 16 collisions. contention None or "auto": as the
    profile says (its `collisions` default). Recorded in spec.machine: the
    profile itself (`era` resolved), contention, and the profile's default as
    contention_default, and every card's gap between frames (tx_gap_us, netlab.nic; None: the
    profile's card's headline value, 0 without a card) and its own latency per packet
    (card_latency_us, the same way; the medium engine alone applies it), resolved here once. queue_packets, when given,
    (0: as built) replaces each card's transmit queue on its wire and each node's CPU budget backlog (as
    built: the profile's host_cost.transmit_queue_frames and queue_packets, each from its kernel's source,
    else 100 frames; beowulf_netlab/claims/sensitivity.json sweeps it); a relay's --relay-delay queue and, on a profile
    without a host cost, a --tx-gap-us card queue keep 100."""
    profile = resolve(hardware, spec.params["rate_mbit"])
    given = tx_gap_us is not None
    tx_gap_us = check_tx_gap(tx_gap_us if given else profile.card.tx_gap_us if profile.card else 0.0,
                             spec.params["rate_mbit"])
    card_latency_us = check_card_latency(card_latency_us if card_latency_us is not None
                                         else profile.card.latency_us if profile.card else 0.0)
    if given and tx_gap_us and any(n.forward_delay_ms for n in spec.nodes):
        raise SpecError("--tx-gap-us and --relay-delay both shape a relay's NICs; use one of them")
    contention = profile.collides if contention in (None, "auto") else contention in (True, "on")
    if queue_packets and not 2 <= queue_packets <= 10000:
        raise SpecError(f"--queue-packets takes 0 (as built) or 2..10000 frames, got {queue_packets}")
    cost = profile.host_cost and (dataclasses.replace(profile.host_cost, queue_packets=queue_packets,
                                                      transmit_queue_frames=queue_packets)
                                  if queue_packets else profile.host_cost)
    return dataclasses.replace(
        spec, machine=dataclasses.replace(spec.machine, profile=profile, contention=contention,
                                          contention_default=profile.collides, tx_gap_us=tx_gap_us,
                                          card_latency_us=card_latency_us,
                                          queue_packets=queue_packets),
        notes=(*spec.notes, *([f"every network card leaves {tx_gap_us:g} us between the frames it sends "
                                "(its Tx-done interrupt)"]
                              if tx_gap_us else [])),
        wires=tuple(dataclasses.replace(w, contention=contention and not w.full_duplex,
                                        **({"queue_packets": queue_packets} if queue_packets else {}))
                    for w in spec.wires),
        nodes=tuple(dataclasses.replace(n, host_cost=cost, tcp=profile.tcp) for n in spec.nodes))
