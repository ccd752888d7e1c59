"""A sweep: which networks to build and which points to run on each.

The one home of every sweep default: the axes below (the network's) and each
workload's own axes (`workloads.*.AXES`). The command line (`emulate.py run`)
and experiment files both give values for these axes by the same names and
fall back to the same defaults; `Sweep.make` fills and checks them.

Pure data (no root, no Mininet). Axes marked `many` are swept (every
combination is a point); the others are settings that hold for the whole run.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.settings import MACHINE, axes
from beowulf_netlab.core.values import Axis
from beowulf_netlab.run.point import SWEEP_SETTINGS
from beowulf_netlab.topologies.hardware import NONE, hardware_of
from beowulf_netlab.topologies.point import network_fields   # also imported from here (runner, estimate)
from beowulf_netlab.topologies.presets import build_spec, check_topology, preset
from beowulf_netlab.topologies.settings import IMPAIRMENTS, NETWORK_SETTINGS, SIZES
from beowulf_netlab.topologies.timescale import time_scale_of
from beowulf_netlab.topologies.spec import NetworkSpec
from beowulf_netlab.workloads import WORKLOADS
from beowulf_netlab.workloads.base import Workload
from beowulf_netlab.workloads.placement import LISTED, one_segment, parse_pairs_list

MAX_POINTS = 5000
MAX_EXPANDED = 50 * MAX_POINTS   # combinations expanded to count a sweep's points (normalize merges some)
UNREAD_ONCE, UNREAD_LEFT_OUT = "once", "not measured"   # a document's unread_points (run.results)

# the network's axes, then the sweep's own: each made from its one declaration (core.settings)
SETTINGS = (*NETWORK_SETTINGS, *SWEEP_SETTINGS)
NETWORK_AXES = axes(SETTINGS)
PRESET_DEFAULTS = SIZES            # axes whose default a topology's file sets itself
IMPAIRMENT_AXES = IMPAIRMENTS
MACHINE_MANY = tuple(s.name for s in NETWORK_SETTINGS if s.group == MACHINE and s.many)   # networks multiply by these
UNSET_NOT_RECORDED = tuple(s.name for s in SETTINGS if s.omit_unset)   # in a document's parameters only when set
NETWORK = {a.name: a for a in NETWORK_AXES}


def network_default(topology: str, name: str) -> Any:
    """The one accessor of a network setting's default for one topology (nodes, rate_mbit,
    channels), which every verb asks: the topology file's own (Preset.default), else the axis's;
    None when the topology does not take the setting (channels but on bonded-dual-net)."""
    p = preset(topology)
    if name not in p.options:
        return None
    own = p.default(name)
    if own is None:
        own = NETWORK[name].default
        own = own[0] if isinstance(own, list) else own
    return own


def network_defaults(topology: str) -> dict[str, Any]:
    """Every setting of PRESET_DEFAULTS the topology takes, with its default (network_default)."""
    return {n: network_default(topology, n) for n in PRESET_DEFAULTS if n in preset(topology).options}


def axes_for(workload: str) -> tuple[Axis, ...]:
    return NETWORK_AXES + WORKLOADS[workload].axes


def check_workload(name: str) -> Workload:
    if name not in WORKLOADS:
        raise BadInput(f"unknown workload {name!r}; choose one of: {', '.join(WORKLOADS)}")
    return WORKLOADS[name]


def network_key(spec) -> str:
    """The network's key in environment.topologies: topology@rate, xK for K bonded channels,
    +profile on a hardware profile, +contention with the contention model, +txgap<T>us with a
    cards' gap between frames other than the profile's card's own, /D<d> time-scaled."""
    key = f"{spec.topology}@{spec.params['rate_mbit']:g}"
    channels = spec.params.get("channels")   # None: a topology that takes none
    key += f"x{channels}" if channels is not None and channels > 1 else ""
    if hardware_of(spec) != NONE:
        key += f"+{hardware_of(spec)}"
    key += "+contention" if spec.machine.contention else ""
    card = spec.machine.profile.card if spec.machine.profile is not None else None
    own = card.tx_gap_us if card is not None else 0.0
    key += f"+txgap{spec.machine.tx_gap_us:g}us" if spec.machine.tx_gap_us != own else ""
    own = card.latency_us if card is not None else 0.0
    key += f"+lat{spec.machine.card_latency_us:g}us" if spec.machine.card_latency_us != own else ""
    key += f"+q{spec.machine.queue_packets}" if spec.machine.queue_packets else ""
    return key + (f"/D{time_scale_of(spec):g}" if time_scale_of(spec) != 1 else "")


@dataclass
class Sweep:
    workload: str
    values: dict[str, Any]
    shard: tuple[int, int] | None = None   # (i, n): every n-th point from the i-th (1-based)
    # Where repeats are spent: a point for which this says False runs once, the others
    # `repeats` times (reproduce: the points some claim reads). None: every point repeats.
    claimed: Callable[[dict], bool] | None = None
    # Runs of a point `claimed` says no claim reads: 1 (the curve is drawn whole: experiment,
    # reproduce --curves), or 0 (reproduce: only what the claims read is measured).
    unread_runs: int = 1

    def left_out(self) -> int:
        """Configurations of the whole sweep (every shard's) that it does not measure at all:
        those `claimed` says no claim reads, when unread_runs is 0."""
        if self.claimed is None or self.unread_runs:
            return 0
        every = Sweep(self.workload, {**self.values, "repeats": 1})
        read = Sweep(self.workload, {**self.values, "repeats": 1}, claimed=self.claimed, unread_runs=0)
        return every.total_points() - read.total_points()

    def unread_points(self) -> str | None:
        """How the points `claimed` says no claim reads ran, as a results document records it
        (unread_points): once, or not measured; None when every point repeats, or none was left
        out (every point some claim reads)."""
        if self.claimed is None:
            return None
        if self.unread_runs:
            return UNREAD_ONCE
        return UNREAD_LEFT_OUT if self.left_out() else None

    @classmethod
    def make(cls, workload: str, given: dict[str, Any] | None = None,
             shard: tuple[int, int] | None = None) -> "Sweep":
        """Values for every axis: those given (already parsed), defaults for the rest."""
        check_workload(workload)
        given = dict(given or {})
        axes = axes_for(workload)
        unknown = set(given) - {a.name for a in axes}
        if unknown:
            raise BadInput(f"workload {workload} has no setting {', '.join(sorted(unknown))}")
        values = {a.name: a.from_json(given[a.name], a.flag) if given.get(a.name) is not None
                  else a.default for a in axes}
        if given.get("topology") is None and WORKLOADS[workload].topologies:
            values["topology"] = list(WORKLOADS[workload].topologies)   # its own (the token exchange's: the main job's)
        values["topology"] = [check_topology(t) for t in values["topology"]]
        if values.get("pairs_list"):   # the pairs named: as many pairs (or remote copies at most) as it names
            if given.get("placement") is not None:
                raise BadInput("--pairs-list names the pairs itself: drop --placement")
            named = len(parse_pairs_list(values["pairs_list"]))
            if "pairs" in values:
                if given.get("pairs") is not None and given["pairs"] != [named]:
                    raise BadInput(f"--pairs-list names {named} pairs, --pairs asks for "
                                   f"{','.join(map(str, given['pairs']))}: drop --pairs")
                values["pairs"] = [named]
            if "remote" in values and given.get("remote") is None:
                values["remote"] = [r for r in values["remote"] if r <= named]
        for name in PRESET_DEFAULTS:   # unset: each topology's own (network_default)
            if given.get(name) is None:
                own = [v for v in dict.fromkeys(network_default(t, name) for t in values["topology"])
                       if v is not None]
                if len(own) == 1:
                    values[name] = own if isinstance(values[name], list) else own[0]
                elif own:   # they differ: each network takes its own (Sweep.own), recorded as unset
                    values[name] = None
        return cls(workload, values, shard)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    @property
    def spec_workload(self) -> Workload:
        return WORKLOADS[self.workload]

    def settings(self) -> dict[str, Any]:
        """The workload's one-valued axes (duration, copies, disk, ...)."""
        return {a.name: self.values[a.name] for a in self.spec_workload.axes if not a.many}

    def parameters(self) -> dict[str, Any]:
        """The sweep as recorded in a results document (impairments and a card gap only when set)."""
        return {k: v for k, v in self.values.items() if not (k in UNSET_NOT_RECORDED and not v)}

    def own(self, topology: str, name: str) -> Any:
        """A network setting's values on one topology: the sweep's, or (left unset where the
        topologies' own defaults differ) the topology's own (network_default)."""
        value = self.values[name]
        if value is not None:
            return value
        own = network_default(topology, name)
        return [own] if NETWORK[name].many else own

    def networks(self):
        """(topology, rate, channels, hardware, contention, time scale) combinations (MACHINE_MANY);
        channels only for topologies that take them (bonded-dual-net)."""
        for topo in self["topology"]:
            for rate, hw, cont, d in itertools.product(self.own(topo, "rate_mbit"), self["hardware"],
                                                       self["contention"], self["time_scale"]):
                for ch in (self.own(topo, "channels") if "channels" in preset(topo).options else [None]):
                    yield topo, rate, ch, hw, cont, d

    def placements_for(self, spec: NetworkSpec) -> list[str]:
        """Mesh placements on meshes; 'any' elsewhere (a mixed sweep keeps both), which is also
        local-wire where every node sits on the same wires (single-net, bonded-dual-net: every pair
        shares them); the listed pairs with --pairs-list. A topology that none of the placements
        asked for applies to is refused (it ran 'any' in their stead, unsaid)."""
        if self.values.get("pairs_list"):
            return [LISTED]
        if spec.params.get("grid"):
            return [p for p in self["placement"] if p != "any"] or ["any"]
        if "any" not in self["placement"] and not ("local-wire" in self["placement"] and one_segment(spec)):
            raise BadInput(f"--placement {','.join(self['placement'])} needs a mesh (whether a pair shares a "
                           f"wire follows from its grid); {spec.topology} has only 'any': add any to --placement, "
                           "or name the pairs with --pairs-list")
        return ["any"]

    def points_per_network(self, spec: NetworkSpec) -> list[dict]:
        """Every combination of the workload's many-valued axes, per placement and repeat;
        each point also carries the workload's settings, so it describes itself."""
        wl = self.spec_workload
        many = [a.name for a in wl.axes if a.many]
        settings = self.settings()
        pts, seen = [], set()
        network = network_fields(spec)
        for placement, *combo in itertools.product(self.placements_for(spec), *(self[name] for name in many)):
            base = {"placement": placement, **dict(zip(many, combo)), **settings}
            if wl.normalize:   # axes a point does not use are set to None: one point, not many
                base = wl.normalize(base)
            key = repr(sorted(base.items()))
            if key in seen:
                continue
            seen.add(key)
            runs = self["repeats"] if self.claimed is None or self.claimed({**network, **base}) \
                else self.unread_runs
            pts += [{**base, "repeat": rep} for rep in range(runs)]
        return pts

    def specs(self):
        impair = {k: self[k] for k in IMPAIRMENT_AXES}
        for topo, rate, ch, hw, cont, d in self.networks():
            yield build_spec(topo, nodes=self.own(topo, "nodes"), rate_mbit=rate, channels=ch, hardware=hw,
                             contention=cont, time_scale=d, tx_gap_us=self["tx_gap_us"],
                             card_latency_us=self["card_latency_us"],
                             queue_packets=self["queue_packets"], **impair)

    def schedule(self) -> list[tuple[NetworkSpec, list[dict]]]:
        """[(spec, points)] this run measures. Every point carries its index in
        the whole sweep, so shards run on different hosts merge back exactly.
        Networks with no point in this shard are not built at all."""
        out, index = [], 0
        for spec in self.specs():
            pts = []
            for pt in self.points_per_network(spec):
                if self.shard is None or index % self.shard[1] == self.shard[0] - 1:
                    pts.append({**pt, "point_index": index})
                index += 1
            if pts:
                out.append((spec, pts))
        return out

    def most_points(self) -> int:
        """An upper bound of the sweep's points: its axes' lengths multiplied (a workload's
        normalize may merge some), before any network or point is built."""
        networks = sum(len(self.own(t, "rate_mbit"))
                       * (len(self.own(t, "channels")) if "channels" in preset(t).options else 1)
                       for t in self["topology"])
        for name in MACHINE_MANY:
            networks *= len(self[name])
        per = len(self["placement"]) * max(1, self["repeats"])
        for a in self.spec_workload.axes:
            if a.many:
                per *= len(self[a.name])
        return networks * per

    def total_points(self) -> int:
        """Points in the whole sweep, whatever this host's shard."""
        return sum(len(self.points_per_network(spec)) for spec in self.specs())

    def check(self) -> None:
        """Refuse impossible sweeps before any network is built: every network
        must build as data, every point must be placeable, the size bounded."""
        most = self.most_points()
        if most > MAX_EXPANDED:    # counted by multiplying: nothing is expanded to learn it
            raise BadInput(f"the sweep's axes multiply to {most} points (at most {MAX_POINTS}); use "
                           "fewer values per axis or split it into several runs")
        total = 0
        wl = self.spec_workload
        for spec in self.specs():
            points = self.points_per_network(spec)
            total += len(points)
            if total > MAX_POINTS:
                raise BadInput(f"the sweep has more than {MAX_POINTS} points; use fewer values "
                               "per axis or split it into several runs")
            for pt in points:
                wl.check(spec, pt, self.settings())
        if self.shard and self.shard[1] > total:
            raise BadInput(f"--shard {self.shard[0]}/{self.shard[1]}: the sweep has only {total} "
                           f"point(s), so at most {total} shards")
