"""Merge the results documents of a campaign's shards into one.

Shards are the same sweep (same workload and parameters) split by point index
(`--shard i/n`) over several hosts. The merged document holds every point once,
in sweep order, each still naming the host that measured it, and keeps each
host's environment under environment.hosts.
"""
from __future__ import annotations

import copy


class MergeError(ValueError):
    """The documents are not shards of one sweep; the message says which differs."""


def merge(docs: list[dict]) -> dict:
    if not docs:
        raise MergeError("nothing to merge: give the shards' results documents")
    first = docs[0]
    for d in docs[1:]:
        for key in ("workload", "parameters", "schema_version"):
            if d.get(key) != first.get(key):
                raise MergeError(f"the documents differ in {key}: they are not shards of one sweep")
    points: dict[int, dict] = {}
    hosts: dict[str, dict] = {}
    for d in docs:
        for p in d["points"]:
            idx = p.get("point_index")
            if idx is None:
                raise MergeError("a point has no point_index: it was not made by a sharded run")
            if idx in points:
                raise MergeError(f"point {idx} appears in two documents (hosts "
                                 f"{points[idx].get('host')} and {p.get('host')}): overlapping shards")
            points[idx] = p
        for host in {p.get("host", "?") for p in d["points"]} or {"?"}:
            hosts[host] = {k: v for k, v in d["environment"].items() if k != "hosts"}
    out = copy.deepcopy(first)
    out["points"] = [points[i] for i in sorted(points)]
    out["environment"] = {**copy.deepcopy(first["environment"]), "hosts": hosts}
    expected = first.get("total_points")
    out["complete"] = all(d.get("complete") for d in docs) and (
        expected is None or sorted(points) == list(range(expected)))
    out["shards"] = [d.get("shard") for d in docs]
    out.pop("shard", None)
    return out
