"""How long a run will take, said before it starts: points, repeats, minutes.

Why: a full reproduction runs an hour and a `run` sweep can run for days; the
user should know before the first network is built. Each point costs what its
workload says it costs (`Workload.cost`: its duration, or its bytes over its
wires' and disks' rates, and its own setup) plus the runner's own work per
point (monitors, gates, the document rewritten); each network its build,
prepare and teardown. The schedule is the runner's (run.runner): the
calibration measurements it adds, without the points (and calibration
measurements) an earlier experiment of the same reproduction measures
(`same_points_as`, run.derive). Pure: no root, no network, no Mininet.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from beowulf_netlab.run import calibration
from beowulf_netlab.run.derive import shared_calibrations, shared_points
from beowulf_netlab.run.sweep import Sweep
from beowulf_netlab.topologies.point import network_fields

# Building, preparing and tearing down one network on this host (Debian 12, 2 cores, kernel
# datapath OVS, the medium engine): measured 2026-11-27 in the timing records
# (environment.topologies.*.timing) of three full and two quick reproductions: 0.17-0.23 s for
# 2 nodes, 0.7-2.7 s for 16 (disks and meshes the most), 8.4-12.2 s for the 32-node cluster with
# GlusterFS. About a base plus a share per node:
NETWORK_S = 0.1
NETWORK_S_PER_NODE = 0.08
# The runner's work per point beyond the workload's (monitors, gates, the document validated and
# rewritten with its CSV): within the 0.05-0.3 s the same records show beyond the points' windows
POINT_S = 0.05
DEFAULT_POINT_S = 5.0   # a workload that declares no cost
# Once per command: python3 and Mininet started, the host probed, the table and plot written
# (beowulf_netlab/run/experiment: 2.5 s measured on this host, warm caches, 2026-11-27: 16.0-16.5 s for a
# 6-point run whose points and networks took 13.5 s); reproduce also writes its report and runs
# the tested claims' unit tests (a quick reproduction: 6 s beyond its networks and points)
COMMAND_S = 2.5
REPORT_S = 6.0


@dataclass
class Estimate:
    """What a set of sweeps will measure: points, how often each configuration repeats, seconds."""
    points: int = 0
    seconds: float = 0.0
    repeats: set[int] = field(default_factory=set)   # runs per configuration, over the sweeps
    networks: int = 0
    network_seconds: float = 0.0    # of seconds: building, preparing and tearing down networks

    def add(self, other: "Estimate") -> "Estimate":
        return Estimate(self.points + other.points, self.seconds + other.seconds,
                        self.repeats | other.repeats, self.networks + other.networks,
                        self.network_seconds + other.network_seconds)

    def line(self) -> str:
        """'N points (R repeats each), about M minutes'."""
        runs = sorted(self.repeats) or [1]
        each = f"{runs[0]}" if len(runs) == 1 else f"{runs[0]} to {runs[-1]}"
        plural = "s" if runs[-1] != 1 else ""
        return (f"{self.points} point{'s' if self.points != 1 else ''} ({each} repeat{plural} each), "
                f"about {minutes(self.seconds)}")


def minutes(seconds: float) -> str:
    """A duration as a person reads it: '40 seconds', '1 minute', '12 minutes', '1.5 hours'."""
    if seconds < 90:
        return f"{max(5, round(seconds / 5) * 5):.0f} seconds"
    if seconds < 90 * 60:
        m = round(seconds / 60)
        return f"{m} minute{'s' if m != 1 else ''}"
    return f"{seconds / 3600:.1f} hours"


def as_document(sweep: Sweep, schedule: list | None = None) -> dict:
    """A sweep's planned points as a results document would hold them once measured: what
    run.derive matches a later experiment's points against."""
    schedule = sweep.schedule() if schedule is None else schedule
    return {"workload": sweep.workload, "parameters": sweep.parameters(),
            "points": [{**network_fields(spec), **pt}
                       for spec, pts in schedule for pt in pts]}


def planned(sweep: Sweep, sources: dict[str, dict] | None = None) -> list:
    """[(spec, points)] the runner will measure for sweep, given the documents (name -> document,
    e.g. as_document of earlier sweeps) whose points it takes instead."""
    sources = sources or {}
    have = {p["point_index"] for p in shared_points(sweep, sources)} if sources else set()
    schedule, _ = calibration.with_calibrations(sweep, sweep.schedule())
    schedule, _ = shared_calibrations(sweep, schedule, sources)
    return [(spec, kept) for spec, pts in schedule
            if (kept := [pt for pt in pts if pt.get("point_index") not in have])]


def repeat_counts(schedule: list) -> set[int]:
    """How many times each configuration runs (its repeats), over the schedule."""
    counts: dict[tuple, int] = {}
    for spec, pts in schedule:
        for pt in pts:
            key = (id(spec), repr(sorted((k, v) for k, v in pt.items()
                                         if k not in ("repeat", "point_index"))))
            counts[key] = counts.get(key, 0) + 1
    return set(counts.values())


def point_seconds(wl, spec, point: dict, settings: dict) -> float:
    """One point's estimated seconds: its workload's cost and the runner's own work."""
    return POINT_S + (wl.cost(spec, point, settings) if wl.cost else DEFAULT_POINT_S)


def of_schedule(sweep: Sweep, schedule: list) -> Estimate:
    """Seconds of a schedule: each network's build and teardown, each point's cost."""
    wl = sweep.spec_workload
    settings = sweep.settings()
    networks = sum(NETWORK_S + NETWORK_S_PER_NODE * len(spec.nodes) for spec, _ in schedule)
    seconds = networks + sum(point_seconds(wl, spec, pt, settings) for spec, pts in schedule for pt in pts)
    return Estimate(sum(len(pts) for _, pts in schedule), seconds, repeat_counts(schedule), len(schedule),
                    networks)


def of_sweep(sweep: Sweep, sources: dict[str, dict] | None = None) -> Estimate:
    """A run or experiment: its sweep and the command around it."""
    return of_schedule(sweep, planned(sweep, sources)).add(Estimate(seconds=COMMAND_S))


def each_of_sweeps(sweeps: list[tuple[str, Sweep, list[str]]]) -> list[tuple[str, Estimate]]:
    """Sweeps run in order, each (name, sweep, names of earlier sweeps whose points it takes):
    each one's estimate, without the points its sources measure (reproduce --plan's rows)."""
    out, docs = [], {}
    for name, sweep, shares in sweeps:
        sources = {n: docs[n] for n in shares if n in docs}
        out.append((name, of_schedule(sweep, planned(sweep, sources))))
        docs[name] = as_document(sweep)
    return out


def of_sweeps(sweeps: list[tuple[str, Sweep, list[str]]], extra_s: float = COMMAND_S + REPORT_S) -> Estimate:
    """Sweeps run in order (each_of_sweeps), and the command around them (reproduce: its report too)."""
    total = Estimate(seconds=extra_s)
    for _, each in each_of_sweeps(sweeps):
        total = total.add(each)
    return total
