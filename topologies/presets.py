"""Named topologies from the papers, as functions from parameters to a NetworkSpec.

A preset only describes wiring; it never decides how a wire or a bond is
implemented on this host (that is `netlab`'s job, after probing the kernel).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from topologies.spec import (NetworkSpec, Node, SpecError, Wire, check_nodes,
                             check_rate, node_name)

DEFAULT_NODES = 16
DEFAULT_RATE = 10.0


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    build: Callable[..., NetworkSpec]
    options: tuple[str, ...]  # which of nodes/rate/channels it takes


def single_net(nodes: int = DEFAULT_NODES, rate: float = DEFAULT_RATE) -> NetworkSpec:
    """N nodes on one shared wire: the baseline every paper compares against."""
    return bonded_dual_net(nodes=nodes, rate=rate, channels=1, _name="single-net")


def bonded_dual_net(nodes: int = DEFAULT_NODES, rate: float = DEFAULT_RATE,
                    channels: int = 2, _name: str = "bonded-dual-net") -> NetworkSpec:
    """N nodes on K shared wires, every node striping packets round-robin over
    its K NICs (Becker's channel bonding). K=1 is exactly single-net."""
    check_nodes(nodes)
    rate = check_rate(rate)
    if not isinstance(channels, int) or channels < 1:
        raise SpecError(f"--channels must be a whole number >= 1, got {channels!r}")
    if channels > 8:
        raise SpecError(f"--channels must be at most 8, got {channels}")
    wires = tuple(Wire(name=f"w{k}", rate_mbit=rate) for k in range(channels))
    bonded = channels > 1
    spec_nodes = tuple(
        Node(name=node_name(i), index=i, wires=tuple(w.name for w in wires), bonded=bonded)
        for i in range(nodes))
    spec = NetworkSpec(
        topology="single-net" if channels == 1 else _name,
        params={"nodes": nodes, "rate_mbit": rate, "channels": channels},
        wires=wires, nodes=spec_nodes,
        notes=("each wire is one shared 1996 Ethernet segment: all its stations split its rate",))
    spec.validate()
    return spec


PRESETS: dict[str, Preset] = {}


def register(preset: Preset) -> None:
    PRESETS[preset.name] = preset


register(Preset("single-net", "N nodes on one shared Ethernet wire", single_net,
                ("nodes", "rate")))
register(Preset("bonded-dual-net",
                "N nodes on K shared wires, every node channel-bonded across all K",
                bonded_dual_net, ("nodes", "rate", "channels")))


IMPAIRMENT_OPTIONS = ("delay", "jitter", "loss", "relay_delay")


def build_spec(name: str, **options) -> NetworkSpec:
    """Build a preset by name, passing only the options it takes (others must be unset).
    delay/jitter/loss (ms, ms, %) and relay_delay (ms) apply to any preset."""
    from topologies.impairments import Impairment, apply
    impair = {k: options.pop(k) or 0.0 for k in IMPAIRMENT_OPTIONS if k in options}
    spec = _build_preset(name, **options)
    if not any(impair.values()):
        return spec
    return apply(spec, Impairment(float(impair.get("delay", 0.0)), float(impair.get("jitter", 0.0)),
                                  float(impair.get("loss", 0.0))),
                 relay_delay_ms=float(impair.get("relay_delay", 0.0)))


def _build_preset(name: str, **options) -> NetworkSpec:
    if name not in PRESETS:
        raise SpecError(f"unknown topology {name!r}; choose one of: {', '.join(PRESETS)}")
    preset = PRESETS[name]
    kwargs = {}
    for key, value in options.items():
        if value is None:
            continue
        if key not in preset.options:
            raise SpecError(f"topology {name} does not take --{key}")
        kwargs[key] = value
    return preset.build(**kwargs)


# The mesh presets register themselves; importing here makes PRESETS complete
# for anyone who imports this module (mesh imports names defined above).
import topologies.mesh  # noqa: E402,F401
