"""Merge the results documents of a campaign's shards into one.

Shards are one sweep (same workload, parameters and total_points) split by
point index (`--shard I/N`) over several hosts. The merged document holds
every point once, in sweep order, each still naming the host that measured
it, and keeps each host's environment under environment.hosts. It is
complete only when every shard 1..N is present and finished and the points
are exactly 0..total_points-1.
"""
from __future__ import annotations

import copy
import re

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.run.sweep import MAX_POINTS

SHARD = re.compile(r"([1-9][0-9]*)/([1-9][0-9]*)")   # matched whole (fullmatch)


class MergeError(BadInput):
    """The documents are not shards of one sweep; the message says which differs."""


def _shard(doc: dict, k: int) -> tuple[int, int]:
    m = SHARD.fullmatch(str(doc.get("shard", "")))
    if not m or int(m.group(1)) > int(m.group(2)):
        raise MergeError(f"document {k + 1} has no valid 'shard' (I/N with 1 <= I <= N): it was not "
                         "made by a run with --shard")
    return int(m.group(1)), int(m.group(2))


def merge(docs: list[dict]) -> dict:
    if not docs:
        raise MergeError("nothing to merge: give the shards' results documents")
    first = docs[0]
    shards = [_shard(d, k) for k, d in enumerate(docs)]
    counts = {n for _, n in shards}
    if len(counts) != 1:
        raise MergeError(f"the shards split the sweep differently ({', '.join(f'{i}/{n}' for i, n in shards)}): "
                         "merge shards of one campaign")
    seen = [i for i, _ in shards]
    if len(set(seen)) != len(seen):
        raise MergeError(f"shard {max(seen, key=seen.count)}/{shards[0][1]} is given twice")
    for d in docs[1:]:
        for key in ("workload", "parameters", "schema_version", "total_points"):
            if d.get(key) != first.get(key):
                raise MergeError(f"the documents differ in {key}: they are not shards of one sweep")
    total = first.get("total_points")
    if not isinstance(total, int) or isinstance(total, bool) or total < 0:
        raise MergeError("the shards do not say how many points the sweep has (total_points)")
    if total > MAX_POINTS:   # a shard is input from another host: its count bounds no work here
        raise MergeError(f"the shards say the sweep has {total} points, more than any sweep has "
                         f"({MAX_POINTS}): not a shard this tool wrote")
    points: dict[int, dict] = {}
    calibrating: list[dict] = []      # each shard measured its calibrations itself: all are kept
    hosts: dict[str, dict] = {}
    for (i, n), d in zip(shards, docs):
        for p in d["points"]:
            if p.get("calibration_of"):
                calibrating.append(p)
                continue
            idx = p.get("point_index")
            if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < total:
                raise MergeError(f"a point of shard {i}/{n} has point_index {idx!r}, not a whole "
                                 f"number in 0..{total - 1}")
            if idx % n != i - 1:
                raise MergeError(f"point {idx} does not belong to shard {i}/{n}")
            if idx in points:
                raise MergeError(f"point {idx} appears in two documents: overlapping shards")
            points[idx] = p
        for host in {p.get("host", "?") for p in d["points"]} or {"?"}:
            hosts[host] = {k: v for k, v in d["environment"].items() if k != "hosts"}
    out = copy.deepcopy(first)
    out["points"] = [points[i] for i in sorted(points)] + calibrating
    out["environment"] = {**copy.deepcopy(first["environment"]), "hosts": hosts}
    # every point present and every shard finished: a shard that held no point of a small sweep
    # wrote no document (reproduce skips it), so the count of shards is not asked
    out["complete"] = all(d.get("complete") for d in docs) and len(points) == total   # indexes are distinct, in 0..total-1
    out["shards"] = [d["shard"] for d in docs]
    out.pop("shard", None)
    shared = sorted({n for d in docs for n in d.get("same_points_as", [])})
    if shared:       # any shard's points taken from another experiment's (run.derive)
        out["same_points_as"] = shared
    else:
        out.pop("same_points_as", None)
    return out
