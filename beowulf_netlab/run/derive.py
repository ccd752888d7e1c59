"""Points an experiment shares with others: taken from their documents, not measured again.

IPPS'96 Figure 6 sets the 2 MB curves of Figures 3 and 5 side by side: its
experiment sweeps exactly points those two measure. An experiment file names
such experiments (`same_points_as`); when they ran earlier in the same
reproduction, every point of this sweep that one of their documents holds
with the same configuration (network, placement, the workload's axes, the
repeat, and the same one-valued settings) is copied from it, marked
`measured_in`, and only the rest is measured. The copy keeps every measured
field, fidelity and gates included: it is the same measurement, shown in two
figures, never a second one. The same holds for the calibration measurements
a sweep adds (run.calibration.with_calibrations): one a source measured
with the same configuration is taken, marked the same way.
"""
from __future__ import annotations

from beowulf_netlab.run.point import NETWORK_KEYS   # the network's settings, as topologies.point declares them
from beowulf_netlab.run.sweep import Sweep
from beowulf_netlab.topologies.point import network_fields


def _normal(net: dict) -> dict:
    """A network's settings (a spec's network_fields, or a stored point) as keys compare them: both
    carry every one (the loader fills a stored point's declared defaults: run.point.filled)."""
    return {k: net[k] for k in NETWORK_KEYS}


def _network(spec) -> dict:
    return _normal(network_fields(spec))


def _key(network: dict, point: dict, axes: list[str]) -> tuple:
    return (tuple(network[k] for k in NETWORK_KEYS), point.get("placement"),
            tuple(point.get(a) for a in axes), point["repeat"])


def _axes(sweep: Sweep) -> list[str]:
    return [a.name for a in sweep.spec_workload.axes if a.many]


def configuration(point: dict, axes: list[str]) -> tuple:
    """A planned or measured point's configuration as shared_points matches it, without the
    repeat: its network's settings (a point carries them: a sweep's `claimed` is asked of its
    network's fields and the point together), placement and the workload's axes."""
    return _key(_normal(point), {**point, "repeat": None}, axes)[:-1]


def configurations(sweep: Sweep) -> dict[tuple, int]:
    """Configuration -> how many runs of it the sweep's schedule holds."""
    axes, out = _axes(sweep), {}
    for spec, pts in sweep.schedule():
        net = network_fields(spec)
        for pt in pts:
            key = configuration({**net, **pt}, axes)
            out[key] = out.get(key, 0) + 1
    return out


def takes_from(sweep: Sweep, source: Sweep) -> bool:
    """The sweep can take the source's points (shared_points): the same workload and the same
    one-valued settings."""
    return sweep.workload == source.workload and sweep.settings() == source.settings()


def take_networks(doc: dict, source: dict, keys: set[str]) -> None:
    """The records of the networks (keys) the taken points were measured on, as the source
    document recorded them, without their timing: that time was spent for the source."""
    env = source["environment"]
    for k, v in env.get("topologies", {}).items():
        if k in keys:
            doc["environment"]["topologies"].setdefault(k, {f: x for f, x in v.items() if f != "timing"})
    if "capabilities" in env:
        doc["environment"].setdefault("capabilities", env["capabilities"])


def _measured(sweep: Sweep, sources: dict[str, dict]) -> dict[tuple, tuple[str, dict]]:
    """Configuration key -> (source name, point) over the sources' measured points."""
    axes = _axes(sweep)
    settings = sweep.settings()
    found: dict[tuple, tuple[str, dict]] = {}
    for name, doc in sources.items():
        params = doc.get("parameters", {})
        if doc.get("workload") != sweep.workload or any(params.get(k) != v for k, v in settings.items()):
            continue
        for p in doc.get("points", []):
            if p.get("calibration_of"):
                continue
            found.setdefault(_key(_normal(p), p, axes), (name, p))
    return found


def shared_points(sweep: Sweep, sources: dict[str, dict]) -> list[dict]:
    """This sweep's points that a source document (name -> results document) measured with
    the same configuration, each as the source recorded it with this sweep's point_index."""
    axes = _axes(sweep)
    found = _measured(sweep, sources)
    out = []
    for spec, pts in sweep.schedule():
        net = _network(spec)
        for pt in pts:
            hit = found.get(_key(net, pt, axes))
            if hit:
                name, p = hit
                out.append({**p, "point_index": pt["point_index"], "measured_in": name})
    return out


def shared_calibrations(sweep: Sweep, schedule: list, sources: dict[str, dict]) -> tuple[list, list]:
    """(the schedule without them, [(spec, point taken)]) for the calibration measurements in
    schedule (points marked calibration_of) that a source measured with the same configuration."""
    axes = _axes(sweep)
    found = _measured(sweep, sources) if sources else {}
    kept_schedule, taken = [], []
    for spec, pts in schedule:
        net, kept = _network(spec), []
        for pt in pts:
            hit = found.get(_key(net, pt, axes)) if pt.get("calibration_of") else None
            if hit:
                # as the sweep's own calibration measurements: no point index
                p = {k: v for k, v in hit[1].items() if k != "point_index"}
                taken.append((spec, {**p, "calibration_of": pt["calibration_of"], "measured_in": hit[0]}))
            else:
                kept.append(pt)
        if kept:
            kept_schedule.append((spec, kept))
    return kept_schedule, taken
