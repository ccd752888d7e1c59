"""A sweep: which networks to build and which points to run on each.

Pure data (no root, no Mininet): an experiment file or the `run` flags become
a Sweep; the runner walks it.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from topologies.presets import build_spec


@dataclass
class Sweep:
    workload: str                       # token | iperf | filecopy
    topologies: list[str]
    rates: list[float] = field(default_factory=lambda: [10.0])
    channels: list[int | None] = field(default_factory=lambda: [None])
    placements: list[str] = field(default_factory=lambda: ["any"])
    pairs: list[int] = field(default_factory=lambda: [4])
    token_sizes: list[int] = field(default_factory=lambda: [1024])
    tokens_in_flight: list[int] = field(default_factory=lambda: [1])
    repeats: int = 1
    duration: float | None = 2.0
    exchanges: int | None = None
    nodes: int | None = None
    # filecopy (the Disk/Net balance test)
    copies: int = 7
    remote: list[int] = field(default_factory=lambda: list(range(8)))
    file_sizes: list[int] = field(default_factory=lambda: [2 << 20])
    disk: str = "ide-1995"
    # netem impairments on every wire, and relays' forwarding delay (0 = none)
    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    loss_pct: float = 0.0
    relay_delay_ms: float = 0.0
    # (i, n): run only every n-th point starting at the i-th (1-based), for campaigns
    shard: tuple[int, int] | None = None

    def parameters(self) -> dict:
        """The sweep as recorded in a results document: only what this workload uses."""
        token_only = {"token_sizes", "tokens_in_flight", "duration", "exchanges"}
        filecopy_only = {"copies", "remote", "file_sizes", "disk"}
        drop = token_only if self.workload == "filecopy" else filecopy_only
        impair = {"delay_ms", "jitter_ms", "loss_pct", "relay_delay_ms"}
        out = {k: v for k, v in self.__dict__.items() if k not in drop | {"shard"}
               and not (k in impair and not v)}
        if self.workload == "filecopy":
            from netlab.disk_profiles import parse_disk
            out["disk_profile"] = parse_disk(self.disk).record()
        return out

    def networks(self):
        """(topology, rate, channels) combinations; channels only for bonded-dual-net."""
        for topo, rate in itertools.product(self.topologies, self.rates):
            for ch in (self.channels if topo == "bonded-dual-net" else [None]):
                yield topo, rate, ch

    def placements_for(self, spec) -> list[str]:
        """Mesh placements on meshes; 'any' elsewhere (a mixed sweep keeps both)."""
        if spec.params.get("grid"):
            return [p for p in self.placements if p != "any"] or ["any"]
        return ["any"]

    def points_per_network(self, spec) -> list[dict]:
        if self.workload == "filecopy":
            return [{"placement": placement, "pairs": self.copies, "copies": self.copies,
                     "remote": remote, "file_size": size, "repeat": rep}
                    for placement, size, remote, rep in itertools.product(
                        self.placements_for(spec), self.file_sizes, self.remote, range(self.repeats))]
        pts = []
        for placement, pairs, size, tif, rep in itertools.product(
                self.placements_for(spec), self.pairs,
                self.token_sizes if self.workload == "token" else [None],
                self.tokens_in_flight if self.workload == "token" else [None],
                range(self.repeats)):
            pt = {"placement": placement, "pairs": pairs, "repeat": rep}
            if self.workload == "token":
                pt.update(token_size=size, tokens_in_flight=tif)
            pts.append(pt)
        return pts

    def specs(self):
        for topo, rate, ch in self.networks():
            yield build_spec(topo, nodes=self.nodes, rate=rate, channels=ch, delay=self.delay_ms,
                             jitter=self.jitter_ms, loss=self.loss_pct, relay_delay=self.relay_delay_ms)

    def schedule(self) -> list[tuple]:
        """[(spec, points)] this run measures: every point carries its index in
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

    def total_points(self) -> int:
        return sum(len(pts) for _, pts in self.schedule())
