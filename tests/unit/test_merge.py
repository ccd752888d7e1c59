"""Campaign shards partition a sweep, and merging them gives back the whole sweep."""
import pytest

from beowulf_netlab.run.merge import MergeError, merge
from beowulf_netlab.run.sweep import Sweep


def sweep(shard=None) -> Sweep:
    return Sweep.make("token", {"topology": ["single-net", "routed-mesh"], "rate_mbit": [10, 100],
                                "token_size": [64, 1024, 8192]}, shard)


def indices(s: Sweep) -> list[int]:
    return [p["point_index"] for _, pts in s.schedule() for p in pts]


@pytest.mark.parametrize("n", [1, 2, 3, 7])
def test_shards_partition_the_sweep(n):
    whole = indices(sweep())
    assert whole == list(range(sweep().total_points()))
    parts = [indices(sweep((i, n))) for i in range(1, n + 1)]
    assert sorted(x for p in parts for x in p) == whole
    assert sum(len(p) for p in parts) == len(whole)


def test_a_shard_builds_only_networks_it_measures():
    s = Sweep.make("token", {"topology": ["single-net", "routed-mesh"], "token_size": [64],
                             "placement": ["any", "local-wire"]}, (2, 2))
    assert [spec.topology for spec, _ in s.schedule()] == ["routed-mesh"]


def doc(points, shard, host, params=None, total=4):
    return {"schema_version": 2, "workload": "token", "parameters": params or {"a": 1},
            "environment": {"kernel": host}, "complete": True, "total_points": total, "shard": shard,
            "points": [{"point_index": i, "host": host, "throughput_mbyte_s": float(i)} for i in points]}


def test_merge_is_the_union_in_sweep_order():
    m = merge([doc([1, 3], "2/2", "vm1"), doc([0, 2], "1/2", "localhost")])
    assert [p["point_index"] for p in m["points"]] == [0, 1, 2, 3]
    assert [p["host"] for p in m["points"]] == ["localhost", "vm1", "localhost", "vm1"]
    assert m["complete"] and set(m["environment"]["hosts"]) == {"vm1", "localhost"}
    assert m["shards"] == ["2/2", "1/2"] and "shard" not in m


@pytest.mark.parametrize("docs, word", [
    ([doc([0, 2], "1/2", "a"), doc([2, 3], "2/2", "b")], "does not belong"),
    ([doc([0], "1/2", "a"), doc([1], "2/2", "b", params={"a": 2})], "parameters"),
    ([doc([0, 2], "1/2", "a"), doc([1], "2/7", "b")], "split the sweep differently"),
    ([doc([0, 2], "1/2", "a"), doc([0, 2], "1/2", "b")], "given twice"),
    ([doc([0, 2], "1/2", "a"), doc([1, 3], "2/2", "b", total=5)], "total_points"),
    ([doc([0], "1/2", "a"), {**doc([1], "2/2", "b"), "points": [{"point_index": "1"}]}], "point_index"),
    ([doc([0, 9], "1/2", "a"), doc([1], "2/2", "b")], "0..3"),
    ([doc([0], "0/2", "a")], "shard"),
    ([doc([0], "3/2", "a")], "shard"),
    ([{**doc([0], "1/2", "a"), "shard": None}], "shard"),
    ([], "nothing to merge"),
])
def test_merge_refuses_what_is_not_one_sweep(docs, word):
    with pytest.raises(MergeError, match=word):
        merge(docs)


def test_missing_shards_make_an_incomplete_merge():
    assert not merge([doc([0, 2], "1/2", "a")])["complete"]
    half = doc([1], "2/2", "b")
    half["complete"] = False
    assert not merge([doc([0, 2], "1/2", "a"), half])["complete"]


def test_shard_is_not_a_parameter():
    assert sweep((1, 2)).parameters() == sweep().parameters()


@pytest.mark.parametrize("form", ["folders", "archives"])
def test_a_reproduction_sharded_over_two_hosts_merges_into_the_same_verdicts(tmp_path, capsys, form):
    """The stored quick reproduction cut into shards 1/2 and 2/2 (as two lab hosts would run
    it), merged by directory or from the hosts' archives as the campaign playbook fetches them
    (one holding a planted link too, which is skipped): every experiment whole again and every
    claim's verdict the same."""
    import copy
    from pathlib import Path

    pytest.importorskip("jsonschema")
    pytest.importorskip("matplotlib")      # the report draws its figures
    from beowulf_netlab.commands.merge import merge_reproductions
    from beowulf_netlab.judge.claims import judge_all, load_claims, views_present
    from beowulf_netlab.run.results import load
    from beowulf_netlab.run.store import write_atomic

    stored = sorted((Path(__file__).resolve().parent.parent / "fixtures" / "reproduction").glob("*.json"))
    whole = {p.stem: load(p) for p in stored}
    dirs = []
    for i in (1, 2):
        host = tmp_path / f"host{i}"
        for name, doc in whole.items():
            part = copy.deepcopy(doc)
            part["shard"] = f"{i}/2"
            part["points"] = [p for p in doc["points"] if p.get("calibration_of") and i == 1
                              or not p.get("calibration_of") and p["point_index"] % 2 == i - 1]
            write_atomic(part, host / "results" / f"{name}.json")
        dirs.append(host)
    if form == "archives":
        import tarfile
        archives = []
        for host in dirs:
            (host / "results" / "planted.json").symlink_to("/etc/shadow")
            with tarfile.open(tmp_path / f"{host.name}.tgz", "w:gz") as tar:
                tar.add(host / "results", arcname="results")
            archives.append(tmp_path / f"{host.name}.tgz")
        assert merge_reproductions([], tmp_path / "merged", archives) == 0
        assert not (tmp_path / "merged" / "results" / "planted.json").exists()
    else:
        assert merge_reproductions(dirs, tmp_path / "merged") == 0
    assert (tmp_path / "merged" / "report.html").exists()
    merged = {p.stem: load(p) for p in (tmp_path / "merged" / "results").glob("*.json")}
    assert set(merged) == set(whole) and all(d["complete"] for d in merged.values())
    claims = load_claims()
    for view in views_present(whole):
        before = [(r["id"], r["verdict"]) for r in judge_all(claims, whole, view)]
        after = [(r["id"], r["verdict"]) for r in judge_all(claims, merged, view)]
        assert after == before, view
