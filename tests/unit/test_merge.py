"""Campaign shards partition a sweep, and merging them gives back the whole sweep."""
import dataclasses

import pytest

from netlab.merge import MergeError, merge
from netlab.sweep import Sweep


def sweep(**kw) -> Sweep:
    return Sweep(workload="token", topologies=["single-net", "routed-mesh"], rates=[10, 100],
                 placements=["any", "local-wire", "remote-wire"], token_sizes=[64, 1024, 8192], **kw)


def indices(s: Sweep) -> list[int]:
    return [p["point_index"] for _, pts in s.schedule() for p in pts]


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_shards_partition_the_sweep(n):
    whole = indices(sweep())
    assert whole == list(range(sweep().total_points()))
    parts = [indices(sweep(shard=(i, n))) for i in range(1, n + 1)]
    assert sorted(x for p in parts for x in p) == whole
    assert sum(len(p) for p in parts) == len(whole)


def test_a_shard_builds_only_networks_it_measures():
    s = Sweep(workload="token", topologies=["single-net", "routed-mesh"], token_sizes=[64], shard=(2, 2))
    assert [spec.topology for spec, _ in s.schedule()] == ["routed-mesh"]


def doc(points, shard, host, params=None):
    return {"schema_version": 1, "workload": "token", "parameters": params or {"a": 1},
            "environment": {"kernel": host}, "complete": True, "total_points": 4, "shard": shard,
            "points": [{"point_index": i, "host": host, "throughput_mbyte_s": float(i)} for i in points]}


def test_merge_is_the_union_in_sweep_order():
    m = merge([doc([1, 3], "2/2", "vm1"), doc([0, 2], "1/2", "localhost")])
    assert [p["point_index"] for p in m["points"]] == [0, 1, 2, 3]
    assert [p["host"] for p in m["points"]] == ["localhost", "vm1", "localhost", "vm1"]
    assert m["complete"] and set(m["environment"]["hosts"]) == {"vm1", "localhost"}
    assert m["shards"] == ["2/2", "1/2"]


def test_merge_notices_missing_overlapping_and_foreign_shards():
    assert not merge([doc([0, 2], "1/2", "a")])["complete"]
    with pytest.raises(MergeError, match="point 2"):
        merge([doc([0, 2], "1/2", "a"), doc([2, 3], "2/2", "b")])
    with pytest.raises(MergeError, match="parameters"):
        merge([doc([0], "1/2", "a"), doc([1], "2/2", "b", params={"a": 2})])


def test_shard_is_not_a_parameter():
    s = sweep(shard=(1, 2))
    assert s.parameters() == dataclasses.replace(s, shard=None).parameters()
