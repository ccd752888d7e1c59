"""Calibration points: the measurements a model constant was set from, checked on every run.

A calibration point is not evidence for the papers (the model was set from it),
but it is the model's own check: if all-local copies do not reach the 11.7 MB/s
the disk rate was derived from, every number that rests on that disk is wrong.
beowulf_netlab/claims/calibrations.json lists each point (schema SCHEMA below, written to
beowulf_netlab/claims/calibrations.schema.json): the points that rest on it (`applies`: their
workload and hardware or disk profile), which of them measure it (`where`,
`metric`), its target, and a tolerance declared with its reason before running.

`verdicts(points)` judges every calibration a set of points rests on: met,
missed, noisy (its repeats spread wider than the tolerance) or not measured.
Anything but met makes each point it applies to untrusted: the claims that read
them are "not checkable: calibration ..." (judge.claims), the report shows a
calibration table, and `run`/`experiment` say so at the end. `plan` gives the
measurements a sweep must add so that every calibration it rests on is measured
at least twice in the same run (run.runner runs them).
"""
from __future__ import annotations

import statistics
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.jsonfile import TEXT, check_schema, list_file_schema, read_json, write_schema
from beowulf_netlab.netlab.disk_profiles import TODAY_DEFAULT, for_spec
from beowulf_netlab.run.gates import trusted
from beowulf_netlab.run.results import real_rate
from beowulf_netlab.core.verdicts import Calibration
from beowulf_netlab.topologies.hardware import hardware_of
from beowulf_netlab.topologies.point import network_fields
from beowulf_netlab.topologies.timescale import time_scale_of

PACKAGE = Path(__file__).resolve().parent.parent   # beowulf_netlab/, beside its data folders
CALIBRATIONS_FILE = PACKAGE / "claims" / "calibrations.json"
SCHEMA_FILE = PACKAGE / "claims" / "calibrations.schema.json"
MIN_MEASUREMENTS = 2        # a calibration is judged from repeats, never from one run

MET, MISSED, NOISY, NOT_MEASURED = Calibration.MET, Calibration.MISSED, Calibration.NOISY, Calibration.NOT_MEASURED

SCHEMA = list_file_schema(
    "Beowulf Netlab calibration points",
    "The measurements model constants were set from, each checked on every run "
    "(beowulf_netlab/run/calibration.py).",
    "calibrations",
    ["id", "what", "applies", "where", "metric", "target", "tolerance",
                     "why_tolerance", "source"],
    {
            "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9.-]*$"},
            "what": {**TEXT, "description": "the measurement, in words"},
            "applies": {"type": "object", "additionalProperties": False, "required": ["workload"],
                        "description": "the points that rest on the constant: a workload and a "
                                       "hardware profile (point key hardware) or a disk profile "
                                       "(the point's disk.profile, without a /D time-scale suffix; "
                                       "a list: any of them, e.g. a profile's name before its disk "
                                       "transfer was modelled, as stored documents record it)",
                        "properties": {"workload": TEXT, "hardware": TEXT,
                                       "disk": {"oneOf": [TEXT, {"type": "array", "items": TEXT,
                                                                   "minItems": 1}]},
                                       "rate_mbit": {"type": "number", "description": "only points "
                                                     "at this wire rate (its target holds there)"},
                                       "wire_impl": {**TEXT, "description": "only points on this "
                                                     "wire implementation (a planned point, whose "
                                                     "wire is chosen when it is built, is taken to)"},
                                       "real_time": {"const": True, "description": "only points "
                                                     "not time-scaled (D = 1)"},
                                       "card_latency_us": {"type": "number", "minimum": 0, "description":
                                                           "only points whose cards ran this latency "
                                                           "(the profile's headline: its range ends are "
                                                           "judged by their own lone round trips, run.gates)"}}},
            "where": {"type": "object", "description": "point key -> value: the points that measure it "
                                                       "(a list: any of its values; a calibration a sweep adds "
                                                       "takes the first its network accepts)"},
            "metric": {**TEXT, "description": "the point's key to read: MB/s (x D on a time-scaled point) "
                                               "or a round trip (rtt_ms_median)"},
            "target": {"type": "number", "exclusiveMinimum": 0},
            "tolerance": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.5,
                          "description": "relative; declared before running"},
            "why_tolerance": TEXT, "source": TEXT,
            "claim": {"type": "integer", "description": "the claim (docs/papers.md) it is, if any"}})


def load_calibrations(path: Path = CALIBRATIONS_FILE) -> list[dict]:
    data = read_json(path, "calibrations file")
    check_schema(data, SCHEMA, f"calibrations file {path}")
    return data["calibrations"]


def disk_profile(point: dict) -> str | None:
    """The disk profile a point's nodes had, without the time-scale suffix."""
    name = point.get("disk_profile")   # a disk workload's only
    return name.split("/D")[0] if name is not None else None


def applies(cal: dict, point: dict) -> bool:
    """The point rests on this calibration."""
    a = cal["applies"]
    return (point.get("workload") == a["workload"]
            and ("hardware" not in a or hardware_of(point) == a["hardware"])
            and ("disk" not in a or disk_profile(point) in
                 (a["disk"] if isinstance(a["disk"], list) else [a["disk"]]))
            and ("rate_mbit" not in a or point.get("rate_mbit") == a["rate_mbit"])
            and ("wire_impl" not in a or point.get("wire_impl", a["wire_impl"]) == a["wire_impl"])
            and (not a.get("real_time") or time_scale_of(point) == 1)
            and ("card_latency_us" not in a or point["card_latency_us"] == a["card_latency_us"]))


def measures(cal: dict, point: dict) -> bool:
    """The point is a measurement of this calibration (a list in `where`: any of its values)."""
    return applies(cal, point) and all(point.get(k) in v if isinstance(v, list) else point.get(k) == v
                                       for k, v in cal["where"].items())


def _choices(where: dict) -> list[dict]:
    """The single-valued `where`s a list in it allows, in its order (e.g. placement local-wire,
    then any: the first a network takes)."""
    out = [{}]
    for k, v in where.items():
        out = [{**o, k: x} for o in out for x in (v if isinstance(v, list) else [v])]
    return out


def judge(cal: dict, points: list[dict]) -> dict:
    """One calibration's verdict from the points that measure it."""
    measuring = [p for p in points if measures(cal, p)]
    # a measurement that failed a fidelity gate is not the model's: it sets no calibration
    values = [real_rate(p, cal["metric"]) for p in measuring if trusted(p)]
    dropped = len(measuring) - len(values)
    out = {"id": cal["id"], "what": cal["what"], "target": cal["target"], "tolerance": cal["tolerance"],
           "values": [round(v, 4) for v in values], "measured": None, "spread": None,
           "failed_gate": dropped}
    if not values:
        return {**out, "verdict": NOT_MEASURED, "reason": f"every one of its {dropped} measurements failed a "
                "fidelity gate" if dropped else "no point of this run measured it"}
    median = statistics.median(values)
    spread = (max(values) - min(values)) / 2 / median if median > 0 else 0.0
    out.update(measured=round(median, 4), spread=round(spread, 4))
    off = (median - cal["target"]) / cal["target"]
    band = f"{cal['target']:g} +- {cal['tolerance']:.0%}"
    if len(values) < MIN_MEASUREMENTS:
        return {**out, "verdict": NOISY, "reason": f"measured once ({median:.3g}): its noise is unknown"}
    if spread > cal["tolerance"]:
        return {**out, "verdict": NOISY, "reason": f"{len(values)} runs spread +-{spread:.0%}, wider "
                                                   f"than the tolerance (+-{cal['tolerance']:.0%})"}
    if abs(off) > cal["tolerance"]:
        return {**out, "verdict": MISSED, "reason": f"median {median:.3g} is {off:+.0%} from {band}"}
    return {**out, "verdict": MET, "reason": f"median {median:.3g} within {band} ({len(values)} runs"
                                             + (f"; {dropped} that failed a gate left out)" if dropped else ")")}


def verdicts(points: list[dict], cals: list[dict] | None = None) -> list[dict]:
    """Every calibration that some of the points rest on, judged from those points."""
    cals = load_calibrations() if cals is None else cals
    return [judge(c, points) for c in cals if any(applies(c, p) for p in points)]


def failed(points: list[dict], cals: list[dict] | None = None) -> dict[str, dict]:
    """Calibration id -> its verdict, for the ones not met."""
    return {v["id"]: v for v in verdicts(points, cals) if v["verdict"] != MET}


def resting_on(point: dict, bad: dict[str, dict], cals: list[dict]) -> list[dict]:
    """The failed calibrations this point rests on."""
    return [bad[c["id"]] for c in cals if c["id"] in bad and applies(c, point)]


def plan(planned: list[dict], cals: list[dict] | None = None) -> list[tuple[dict, int, str]]:
    """(calibration, how many more measurements, on which hardware) so that each calibration the
    planned points rest on is measured MIN_MEASUREMENTS times on every hardware they run on (each
    view is judged from its own measurements: today's throttle and the profile's PIO disk may share
    a calibration, never its measurements). `planned` are points as the runner will record them
    (workload, network and disk profile set; no results)."""
    cals = load_calibrations() if cals is None else cals
    out = []
    for c in cals:
        for hw in dict.fromkeys(hardware_of(p) for p in planned if applies(c, p)):
            have = sum(1 for p in planned if hardware_of(p) == hw and measures(c, p))
            if have < MIN_MEASUREMENTS:
                out.append((c, MIN_MEASUREMENTS - have, hw))
    return out


def as_recorded(sweep, spec, pt: dict) -> dict:
    """A planned point with the keys calibrations match on (workload, its network, disk profile)."""
    settings = sweep.settings()
    out = {"workload": sweep.workload, **network_fields(spec), **settings, **pt}
    if "disk" in settings:
        out["disk_profile"] = for_spec(settings["disk"], spec, settings.get("disk_transfer"),
                                       settings.get("today_disk", TODAY_DEFAULT)).name
    return out


def with_calibrations(sweep, schedule: list) -> tuple[list, list[str]]:
    """The schedule plus the measurements of every calibration its points rest on that it
    does not measure twice itself (run.calibration), each added to the first network
    that can run it; and a line for each calibration this sweep's settings cannot measure
    (its points are then 'calibration not measured')."""
    settings, wl = sweep.settings(), sweep.spec_workload
    planned = [as_recorded(sweep, spec, pt) for spec, pts in schedule for pt in pts]
    schedule = [(spec, list(pts)) for spec, pts in schedule]
    cannot = []
    for cal, missing, hw in plan(planned):
        clash = {k: v for k, v in cal["where"].items() if k in settings
                 and (settings[k] not in v if isinstance(v, list) else settings[k] != v)}
        if clash:
            cannot.append(f"{cal['id']}: this sweep's settings ({', '.join(f'{k} {settings[k]}' for k in clash)}) "
                          f"cannot measure it ({', '.join(f'{k} {v}' for k, v in clash.items())})")
            continue
        refused = None
        for spec, pts in schedule:    # the first network that can run it (a mesh may not take its placement)
            if hardware_of(spec) != hw:
                continue
            template = next((pt for pt in pts if not pt.get("calibration_of")
                             and applies(cal, as_recorded(sweep, spec, pt))), None)
            if template is None:
                continue
            for where in _choices(cal["where"]):
                new = {k: v for k, v in {**template, **where}.items() if k != "point_index"}
                new = wl.normalize(new) if wl.normalize else new
                try:
                    wl.check(spec, new, settings)
                except BadInput as e:
                    refused = refused or f"{cal['id']}: {e}"
                    continue
                break
            else:
                continue
            pts += [{**new, "repeat": k, "calibration_of": cal["id"]} for k in range(missing)]
            break
        else:
            if refused:
                cannot.append(refused)
    return [(spec, pts) for spec, pts in schedule], cannot


def table_lines(results: list[dict]) -> list[str]:
    """Plain-text calibration lines for the end of a run (missed ones first)."""
    lines = []
    for v in sorted(results, key=lambda v: v["verdict"] == MET):
        head = "calibration" if v["verdict"] == MET else "CALIBRATION " + v["verdict"].upper()
        lines.append(f"{head}: {v['id']} ({v['what']}): {v['reason']}")
    return lines


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    print(f"wrote {SCHEMA_FILE}")
