"""Older results documents read as the current version: each schema version's change, once.

A document of a newer version than this tool's is refused with what to do; every older
one is brought up step by step (v1 -> v2 -> ... -> SCHEMA_VERSION) before it is
validated, so readers only ever see the current format (run.results.load_data).
"""
from __future__ import annotations

from typing import Any

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.fields import MEASURED_PREFIX, fill_defaults
from beowulf_netlab.topologies.point import NETWORK_FIELDS
from beowulf_netlab.topologies.timescale import time_scale_of
from beowulf_netlab.workloads import WORKLOADS

# what v1/v2 documents ran with, before points named it: their declared defaults (none, off)
V2_MACHINE = tuple(f for f in NETWORK_FIELDS if f.name in ("hardware", "contention"))
CONTENTION_DEFAULT = tuple(f for f in NETWORK_FIELDS if f.name == "contention_default")

SCHEMA_VERSION = 6
# the newest version whose change was to what a run measures (a stored run older than it measured
# another model); later versions only rename or add what is derived from the same numbers
MEASURED_SINCE = 5
V1_RENAMES = {"topologies": "topology", "rates": "rate_mbit", "placements": "placement",
              "token_sizes": "token_size", "file_sizes": "file_size"}



def upgrade(doc: Any, where: str) -> dict:
    """A document of any known version, as the current version."""
    if not isinstance(doc, dict):
        raise BadInput(f"{where} is not a results document (a JSON object was expected)")
    version = doc.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise BadInput(f"{where} has schema version {version}, newer than this tool's "
                       f"{SCHEMA_VERSION}: update this checkout (git pull) to read it")
    if version == 1:
        doc = dict(doc)
        params = doc.get("parameters") if isinstance(doc.get("parameters"), dict) else {}
        doc["parameters"] = {V1_RENAMES.get(k, k): v for k, v in params.items()}
        doc.setdefault("complete", False)
        version = 2
    if version == 2:   # v3: every point names its hardware profile and contention model (as it ran then)
        doc = dict(doc)
        if isinstance(doc.get("parameters"), dict):
            doc["parameters"] = {**{f.name: [f.default] for f in V2_MACHINE}, **doc["parameters"]}
        if isinstance(doc.get("points"), list):
            doc["points"] = [fill_defaults(p, V2_MACHINE) if isinstance(p, dict) else p for p in doc["points"]]
        version = 3
    if version == 3:   # v4: every point records its TCP (null: the host's, unrecorded)
        doc = dict(doc)
        if isinstance(doc.get("points"), list):
            doc["points"] = [{"tcp": None, **p} if isinstance(p, dict) else p for p in doc["points"]]
        version = 4
    if version == 4:   # v5: every point records its profile's collisions default (off until v5)
        doc = dict(doc)
        if isinstance(doc.get("points"), list):
            doc["points"] = [fill_defaults(p, CONTENTION_DEFAULT) if isinstance(p, dict) else p
                             for p in doc["points"]]
        version = 5
    if version == 5:   # v6: one meaning per name (real_rates, disk_split)
        doc = dict(doc)
        params = doc.get("parameters") if isinstance(doc.get("parameters"), dict) else {}
        if isinstance(doc.get("points"), list):
            doc["points"] = [disk_split(real_rates(p, doc.get("workload")), params.get("disk"))
                             if isinstance(p, dict) else p for p in doc["points"]]
        if isinstance(doc.get("environment"), dict):
            doc["environment"] = controller_renamed(doc["environment"])
        doc["schema_version"] = SCHEMA_VERSION
    return doc


def real_rates(point: dict, workload: str) -> dict:
    """A v5 point with one meaning per name: each MB/s result's name holds the real network's
    figure (v5 kept it in `scaled` on a time-scaled point, the slowed one under the name) and its
    measured twin what the network carried (equal in real time); a re-measured point's first go
    likewise (its figures were as carried: x D is the real network's, as the runner made `scaled`)."""
    scaled = point.get("scaled") or {}
    wl = WORKLOADS.get(point.get("workload") or workload)   # an unknown one: the schema refuses it
    keys = [k for k in (wl.rate_keys if wl else ()) if isinstance(point.get(k), (int, float))]
    out = {k: v for k, v in point.items() if k != "scaled"}
    for k in keys:
        out[MEASURED_PREFIX + k] = point[k]
        out[k] = scaled.get(k, point[k])
    first = point.get("first_go")
    if isinstance(first, dict):
        d = time_scale_of(point)
        had = [k for k in keys if isinstance(first.get(k), (int, float))]
        out["first_go"] = {**first, **{MEASURED_PREFIX + k: first[k] for k in had},
                           **{k: first[k] * d if d != 1 else first[k] for k in had}}
    return out


def disk_split(point: dict, setting) -> dict:
    """A v5 point's `disk` held the disks as they ran (an object; in the oldest documents their
    profile's name): v6 keeps the setting there (the run's --disk, else the profile's name, which
    --disk takes too), the disks under `disks` and their profile under `disk_profile`."""
    disk = point.get("disk")
    if not isinstance(disk, (dict, str)):
        return point
    disks = disk if isinstance(disk, dict) else {"profile": disk}
    profile = disks.get("profile")
    return {**point, "disk": setting if isinstance(setting, str) else profile, "disks": disks,
            "disk_profile": profile}


def controller_renamed(env: dict) -> dict:
    """A v5 environment whose networks kept the tc wire's contention controller's record under
    `contention`, the setting's name: v6 calls it collision_controller (merged documents' hosts too)."""
    def nets(topologies):
        if not isinstance(topologies, dict):
            return topologies
        return {k: ({("collision_controller" if n == "contention" else n): v for n, v in t.items()}
                    if isinstance(t, dict) else t) for k, t in topologies.items()}
    out = {**env, "topologies": nets(env.get("topologies"))} if "topologies" in env else dict(env)
    if isinstance(env.get("hosts"), dict):
        out["hosts"] = {h: controller_renamed(e) if isinstance(e, dict) else e for h, e in env["hosts"].items()}
    return out
