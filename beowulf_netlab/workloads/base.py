"""What every workload offers the runner: the same small surface.

A Workload names its own axes (with their one default each), checks a point
against a network before anything is built, runs one point on a built
testbed, declares every key its points carry (`fields`, core.fields: the
results schema, the CSV columns and the MB/s results a time-scaled run also
gives x D are made from them) and declares how its points are tabulated and
drawn (`Figure`). The runner
looks workloads up in `workloads.WORKLOADS`; it never branches on their names.
Each also says what a point costs in time (`cost`), so a sweep's length can be
announced before it starts (run.estimate).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from beowulf_netlab.core.fields import CSV_AFTER, Field, prop
from beowulf_netlab.core.settings import Setting
from beowulf_netlab.core.values import Axis
from beowulf_netlab.topologies.ethernet import payload_capacity_bytes_s
from beowulf_netlab.topologies.timescale import wire_rate
from beowulf_netlab.workloads.placement import parse_pairs_list

HALF_DUPLEX_SHARE = 0.95   # a shared (hub) wire also carries the ACKs of its data
CONTENTION_SHARE = 0.85     # and, under CSMA/CD, loses about this much more to collisions and backoff


def path_rate_bytes_s(spec, path: tuple[tuple[str, ...], ...], load: dict[str, int]) -> float:
    """About the TCP payload per second a flow moves along `path` while load[w] flows share
    each wire w, in scaled time: its slowest segment, a segment's parallel wires adding up (a
    bonded node stripes over them). For estimates of a point's time (Workload.cost), never for gates."""
    slowest = float("inf")
    for seg in path:
        rate = 0.0
        for name in seg:
            wire = spec.wire(name)
            share = (1.0 if wire.full_duplex else HALF_DUPLEX_SHARE) * (CONTENTION_SHARE if wire.contention else 1.0)
            rate += payload_capacity_bytes_s(wire_rate(spec, wire)) * share / max(load.get(name, 1), 1)
        slowest = min(slowest, rate)
    return slowest


def when(what: str) -> dict:
    return prop(["number", "null"], f"when the transfer {what}, s (monotonic clock, or from the first start)")


# what the gates read of a pair or a copy (beowulf_netlab/run/gates.py): typed, since a document from
# another host is input like any other
PART = {"type": "object", "properties": {
    "start": when("started"), "end": when("ended"),
    "bytes": prop("integer", "bytes it moved", minimum=0),
    "payload_bytes": prop("integer", "payload bytes it moved", minimum=0),
    "charges_lost": prop(["integer", "null"], "charge-channel datagrams a full CPU budget queue dropped",
                         minimum=0),
    "charges_late_s": prop(["number", "null"], "seconds its agents' CPU charges ended past their time "
                           "(the host woke them late; recorded, not gated: beowulf_netlab/workloads/charge.py)", minimum=0),
    "round_trips": prop("integer", "round trips it completed", minimum=0)}}

# the aggregate every workload's run_point returns (the runner prints it, the claims judge it)
THROUGHPUT = Field("throughput_mbyte_s", "number", "the workload's aggregate throughput, MB/s (10^6 bytes/s)",
                   unit="MB/s", required=True, rate=True, csv=CSV_AFTER, schema={"minimum": 0})


PAIRS = Setting("pairs", "int", [4], "process pairs communicating at once (no node in two pairs): "
                "token pairs, or TCP flows", minimum=1, maximum=512, required=True, csv=True, short="P=",
                schema={"minimum": 1})
PAIRS_LIST = Setting("pairs_list", "text", None, "the pairs by name, SRC:DST separated by commas (e.g. "
                     "b0:b5,b1:b6), on any topology, instead of a --placement; each node once; --pairs (or "
                     "the remote copies) takes the first ones", many=False, optional=True,
                     validator=parse_pairs_list, record_type=("string", "null"),
                     record_note="placement 'listed'; absent: placed by the placement")


@dataclass(frozen=True)
class Level:
    """Points off the x axis drawn as one level across it (MACHE01's ttcp and bonnie
    baselines): a per-node figure times the point key `times` (nodes)."""
    where: tuple[tuple[str, Any], ...]          # the point keys that pick them
    metric: str
    label: str
    times: str | None = None


@dataclass(frozen=True)
class Figure:
    """How tables and plots show a workload's points: declared here, so the report layer
    (judge.table, judge.plot) never asks a workload's name."""
    what: str                                   # "token exchange throughput": heading of table and plot
    x: str                                      # the point key put across
    x_label: str
    x_scale: str = "linear"                     # "log2": token sizes, labelled as sizes
    # which measured neighbours a line may join: "double" (log2 sizes), "one" (counts), None (any);
    # points further apart are markers only, so no line crosses what was never measured
    x_step: str | None = None
    series: tuple[str, ...] = ()                # point keys besides the network that always split curves
    split_if_varying: tuple[str, ...] = ()      # point keys that split curves when they vary
    metrics: tuple[tuple[str, str], ...] = (("throughput_mbyte_s", ""),)   # (result key, label)
    table_extra: tuple[tuple[str, str], ...] = ()   # (result key, label): table rows, not plotted
    y_label: str = "aggregate MB/s (10^6 bytes/s of payload)"
    on_curve: tuple[tuple[str, Any], ...] = ()  # the points on curves (the rest are `levels`)
    levels: tuple[Level, ...] = ()
    context: tuple[str, ...] = ()               # point keys the table's heading names (copies, disk)
    unit: str = "MB/s (10^6 bytes/s)"           # what the table's cells are, named in its heading
    digits: int = 2                             # decimals a table cell shows (a share of 1/42: 3)
    counts: tuple[str, ...] = ()                # result keys the table shows as whole numbers (frames)


@dataclass(frozen=True)
class Workload:
    name: str
    summary: str
    axes: tuple[Axis, ...]                      # its own axes; `many` ones make points
    figure: Figure                              # how its points are tabulated and drawn
    fields: tuple[Field, ...]                   # every key its points carry besides the common ones
    check: Callable[[Any, dict, dict], None]    # (spec, point, settings); raises BadInput
    run_point: Callable[[Any, Any, dict, dict], dict]   # (testbed, context, point, settings)
    prepare: Callable[[Any, list[dict], dict], Any] | None = None  # per network: e.g. disks
    label: Callable[[dict], str] = lambda pt: ""        # progress-bar text for a point
    normalize: Callable[[dict], dict] | None = None     # unused axes of a point -> None (deduplicated)
    # (what, measured MB/s, most the model allows) for the fidelity gates: a disk-bound figure
    # above its disks' rate is an artefact (run.gates); None: the flows' gates suffice
    bounds: Callable[[dict], list[tuple[str, float, float]]] | None = None
    # its figure is bytes / the longest pair's time, which holds only if the pairs ran together
    # (the gates check their span); False where each flow reports its own rate
    concurrent_pairs: bool = False
    # (spec, point, settings) -> seconds the point takes on this host: its own window (a duration,
    # or its bytes over its wires' and disks' rates) and its own setup. run.estimate sums them
    # into the time a sweep is announced with; None: run.estimate's default per point
    cost: Callable[[Any, dict, dict], float] | None = None
    # the topologies a sweep of it builds when none is given (None: every preset); the token
    # exchange's are the main job's, so `run token` alone runs what `emulate.py` does
    topologies: tuple[str, ...] | None = None

    @property
    def csv_columns(self) -> tuple[str, ...]:
        """Its CSV columns, after the common ones: its fields declared as columns."""
        return tuple(f.name for f in self.fields if f.csv)

    @property
    def rate_keys(self) -> tuple[str, ...]:
        """Its MB/s results, which a time-scaled run also gives x D."""
        return tuple(f.name for f in (THROUGHPUT, *self.fields) if f.rate)

    def axis(self, name: str) -> Axis:
        return next(a for a in self.axes if a.name == name)
