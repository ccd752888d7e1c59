"""Named topologies from the papers, as functions from parameters to a NetworkSpec.

A preset only describes wiring; it never decides how a wire or a bond is
implemented on this host (that is `netlab`'s job, after probing the kernel).
This module owns the registry; `topologies.mesh` supplies the grid wirings.
"""
from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from typing import Callable

from topologies import cluster, mesh
from topologies.hardware import NONE, resolve
from topologies.impairments import Impairment, apply
from topologies.timescale import scale
from topologies.spec import (DEFAULT_CHANNELS, DEFAULT_NODES, DEFAULT_RATE_MBIT, MAX_CHANNELS,
                             NetworkSpec, Node, SpecError, Wire, check_nodes, check_rate, check_tx_gap,
                             node_name)


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    build: Callable[..., NetworkSpec]
    options: tuple[str, ...]  # which of nodes/rate_mbit/channels it takes

    def default(self, option: str):
        """The preset's own default for one of its options (its build function's), or None:
        every verb (topo, cli, run, experiment) asks here, so a preset means one network."""
        if option not in self.options:
            return None
        param = inspect.signature(self.build).parameters.get(option)
        return None if param is None or param.default is inspect.Parameter.empty else param.default


def single_net(nodes: int = DEFAULT_NODES, rate_mbit: float = DEFAULT_RATE_MBIT) -> NetworkSpec:
    """N nodes on one shared wire: the baseline every paper compares against."""
    return bonded_dual_net(nodes=nodes, rate_mbit=rate_mbit, channels=1)


def bonded_dual_net(nodes: int = DEFAULT_NODES, rate_mbit: float = DEFAULT_RATE_MBIT,
                    channels: int = DEFAULT_CHANNELS) -> NetworkSpec:
    """N nodes on K shared wires, every node striping packets round-robin over
    its K NICs (Becker's channel bonding). K=1 is exactly single-net."""
    check_nodes(nodes)
    rate = check_rate(rate_mbit)
    if isinstance(channels, bool) or not isinstance(channels, int) or not 1 <= channels <= MAX_CHANNELS:
        raise SpecError(f"--channels must be a whole number in 1..{MAX_CHANNELS}, got {channels!r}")
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


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("single-net", "N nodes on one shared Ethernet wire", single_net, ("nodes", "rate_mbit")),
    Preset("bonded-dual-net", "N nodes on K shared wires, every node channel-bonded across all K",
           bonded_dual_net, ("nodes", "rate_mbit", "channels")),
    Preset("switched-mesh", "k x k grid of shared row/column wires joined by two switches",
           mesh.switched_mesh, ("nodes", "rate_mbit")),
    Preset("routed-mesh", "k x k grid of shared row/column wires, nodes relay in software",
           mesh.routed_mesh, ("nodes", "rate_mbit")),
    Preset("bonded-switched-mesh", "switched mesh, every node bonded across its row and column NICs",
           mesh.bonded_switched_mesh, ("nodes", "rate_mbit")),
    Preset("switched-cluster", "N nodes (default 32) each on its own full-duplex port of one switch "
           "(default 1000 Mbit/s: MACHE01's Gigabit cluster)", cluster.switched_cluster,
           ("nodes", "rate_mbit")),
)}

IMPAIRMENTS = ("delay_ms", "jitter_ms", "loss_pct", "relay_delay_ms")


def check_topology(name: str) -> str:
    if name not in PRESETS:
        raise SpecError(f"unknown topology {name!r}; choose one of: {', '.join(PRESETS)} "
                        "(emulate.py topo list)")
    return name


def build_spec(name: str, **options) -> NetworkSpec:
    """Build a preset by name. Options it does not take must be unset (None);
    delay_ms/jitter_ms/loss_pct, relay_delay_ms, hardware, contention, tx_gap_us and time_scale
    apply to any preset."""
    preset = PRESETS[check_topology(name)]
    impair = {k: float(options.pop(k) or 0.0) for k in IMPAIRMENTS if k in options}
    hardware = options.pop("hardware", None) or NONE
    contention = options.pop("contention", None)
    tx_gap_us = options.pop("tx_gap_us", None) or 0.0
    time_scale = options.pop("time_scale", None)
    time_scale = 1.0 if time_scale is None else time_scale
    kwargs = {}
    for key, value in options.items():
        if value is None:
            continue
        if key not in preset.options:
            raise SpecError(f"topology {name} does not take --{key.replace('_', '-')}")
        kwargs[key] = value
    spec = preset.build(**kwargs)
    if any(impair.values()):
        wire = Impairment(impair.get("delay_ms", 0.0), impair.get("jitter_ms", 0.0),
                          impair.get("loss_pct", 0.0))
        spec = apply(spec, wire, relay_delay_ms=impair.get("relay_delay_ms", 0.0))
    return scale(machine(spec, hardware, contention, tx_gap_us), time_scale)


def machine(spec: NetworkSpec, hardware: str = NONE, contention: bool | str | None = None,
            tx_gap_us: float = 0.0) -> NetworkSpec:
    """The same network on a hardware profile's nodes (each gets the profile's
    host cost and TCP) and, with contention, shared wires that charge CSMA/CD's
    average cost and drop after 16 collisions. contention None or "auto": as the
    profile says (its `collisions` default). Recorded in spec.machine: the
    profile's name (`era` resolved), contention, and the profile's default as
    contention_default, and every card's gap between frames (tx_gap_us, netlab.nic: no profile
    sets one, its length was never measured), resolved here once."""
    profile = resolve(hardware, spec.params["rate_mbit"])
    tx_gap_us = check_tx_gap(tx_gap_us, spec.params["rate_mbit"])
    if tx_gap_us and any(n.forward_delay_ms for n in spec.nodes):
        raise SpecError("--tx-gap-us and --relay-delay both shape a relay's NICs; use one of them")
    contention = profile.collides if contention in (None, "auto") else contention in (True, "on")
    return dataclasses.replace(
        spec, machine=dataclasses.replace(spec.machine, hardware=profile.name, contention=contention,
                                          contention_default=profile.collides, tx_gap_us=tx_gap_us),
        notes=(*spec.notes, *([f"every network card leaves {tx_gap_us:g} us between the frames it sends "
                                "(one frame in flight until its Tx-done interrupt)"]
                              if tx_gap_us else [])),
        wires=tuple(dataclasses.replace(w, contention=contention and not w.full_duplex)
                    for w in spec.wires),
        nodes=tuple(dataclasses.replace(n, host_cost=profile.host_cost, tcp=profile.tcp) for n in spec.nodes))
