"""Pure logic of the Disk/Net balance test: profiles, plans, argument parsing, tables."""
import pytest

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.values import parse_counts
from beowulf_netlab.netlab.disk_profiles import PROFILES, parse_disk
from beowulf_netlab.judge.table import table
from beowulf_netlab.topologies.presets import build_spec
from beowulf_netlab.topologies.spec import SpecError
from beowulf_netlab.workloads.filecopy import nodes_used, plan


def test_ide_1995_comes_from_the_all_local_figure():
    ide = PROFILES["ide-1995"]
    assert ide.read_mbyte_s == ide.write_mbyte_s == pytest.approx(11.7 / 7, abs=0.01)
    assert not PROFILES["none"].throttled


@pytest.mark.parametrize("text, rw", [("ide-1995", (1.67, 1.67)), ("3", (3, 3)), ("5/2.5", (5, 2.5)),
                                      ("none", (None, None))])
def test_parse_disk(text, rw):
    d = parse_disk(text)
    assert (d.read_mbyte_s, d.write_mbyte_s) == rw


@pytest.mark.parametrize("text", ["floppy", "0", "1/2/3", "-1", "fast/slow", ""])
def test_parse_disk_rejects(text):
    with pytest.raises(BadInput, match="--disk"):
        parse_disk(text)


def test_remote_counts():
    assert parse_counts("0-7", "--remote", 64) == list(range(8))
    assert parse_counts("0,3,7", "--remote", 64) == [0, 3, 7]
    assert parse_counts("0-2,7", "--remote", 64) == [0, 1, 2, 7]
    for bad in ("7-0", "a", "-1", "1-x", "0-1000000000", "1,,2", ""):
        with pytest.raises(BadInput, match="--remote"):
            parse_counts(bad, "--remote", 64)


@pytest.mark.parametrize("topo, placement", [("single-net", "any"), ("bonded-dual-net", "any"),
                                             ("switched-mesh", "local-wire"), ("routed-mesh", "remote-wire")])
@pytest.mark.parametrize("remote", range(8))
def test_no_node_in_two_copies(topo, placement, remote):
    copies = plan(build_spec(topo), 7, remote, placement)
    assert len(copies) == 7
    assert sum(c.kind == "remote" for c in copies) == remote
    nodes = [n for c in copies for n in dict.fromkeys((c.src, c.dst))]
    assert len(nodes) == len(set(nodes)) == 7 + remote
    assert nodes_used(copies) == list(dict.fromkeys(nodes))


def test_local_copies_avoid_relays_while_they_can():
    copies = plan(build_spec("routed-mesh"), 7, 3, "remote-wire")
    relays = {c.via.split()[-1] for c in copies if c.kind == "remote"}
    assert not relays & {c.src for c in copies if c.kind == "local"}


@pytest.mark.parametrize("copies, remote, word", [(10, 7, "17 nodes"), (3, 4, "--remote"),
                                                  (0, 0, "--copies"), (7, -1, "--remote")])
def test_impossible_counts(copies, remote, word):
    with pytest.raises(SpecError, match=word):
        plan(build_spec("single-net"), copies, remote)


def test_filecopy_table_rows_per_size_columns_per_remote():
    pts = [{"topology": "single-net", "rate_mbit": 10, "placement": "any", "file_size": s,
            "remote": k, "copies": 7, "throughput_mbyte_s": v, "fidelity": {"suspect": None},
            "disks": {"profile": "ide-1995", "throttle": "cgroup1-blkio-throttle"}}
           for s, k, v in [(1 << 20, 0, 11.0), (1 << 20, 7, 1.1), (2 << 20, 0, 11.8), (2 << 20, 7, 1.2)]]
    text = table({"workload": "filecopy", "points": pts})
    lines = text.splitlines()
    assert "7 copies, disks ide-1995 (cgroup1-blkio-throttle)" in lines[0]
    assert lines[1].split()[-2:] == ["0", "7"]
    assert lines[2].split() == ["single-net", "1M", "@10Mb", "11.00", "1.10"]
    assert lines[3].split() == ["single-net", "2M", "@10Mb", "11.80", "1.20"]


def test_relays_copying_puts_local_copies_on_the_relays_first():
    """--relays copying (a sensitivity of HPDC'96 Fig 4): the local copies go to the relays of the
    remote ones before any idle node; idle (the default) keeps them off relays while it can."""
    from beowulf_netlab.topologies.presets import build_spec
    from beowulf_netlab.workloads.filecopy import plan
    spec = build_spec("routed-mesh", nodes=16, rate_mbit=10)
    for remote in (1, 2, 3, 4, 5):
        idle, busy = (plan(spec, 7, remote, "remote-wire", b) for b in (False, True))
        relays = {c.via.split()[-1] for c in idle if c.kind == "remote" and c.via.startswith("via")}
        on_relay = [sum(c.src in relays for c in p if c.kind == "local") for p in (idle, busy)]
        assert on_relay[1] == min(len(relays - {n for c in busy if c.kind == "remote" for n in (c.src, c.dst)}),
                                  7 - remote)
        assert on_relay[1] >= on_relay[0]
        assert {(c.src, c.dst) for c in idle if c.kind == "remote"} == {(c.src, c.dst) for c in busy if c.kind == "remote"}
