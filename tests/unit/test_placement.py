"""Placement as the papers arranged it: on each topology's real paths, no shared
wire (and no node in two roles) while that is possible."""
import pytest

from beowulf_netlab.topologies.mesh import relay_for, shares_wire
from beowulf_netlab.topologies.presets import build_spec
from beowulf_netlab.workloads.placement import path, place, wire_load


@pytest.mark.parametrize("topo", ["switched-mesh", "routed-mesh"])
def test_four_remote_pairs_use_eight_wires_and_a_fifth_shares_one(topo):
    four = place(build_spec(topo), 4, "remote-wire")
    assert sorted(wire_load(four).values()) == [1] * 8
    five = place(build_spec(topo), 5, "remote-wire")
    load = wire_load(five)
    assert len(load) == 8 and max(load.values()) == 2
    ends = [n for p in five for n in (p.src, p.dst)]
    assert len(ends) == len(set(ends))


def test_four_routed_pairs_give_no_node_two_roles():
    pairs = place(build_spec("routed-mesh"), 4, "remote-wire")
    roles = [n for p in pairs for n in (p.src, p.dst, p.relay)]
    assert len(roles) == len(set(roles)) == 12


def test_paths_follow_the_wiring():
    spec = build_spec("routed-mesh")
    for a, b in [(0, 5), (2, 4), (3, 10)]:
        r = relay_for(a, b, 4)
        (w1,), (w2,) = path(spec, a, b)
        assert w1 in spec.nodes[a].wires and w1 in spec.nodes[r].wires
        assert w2 in spec.nodes[r].wires and w2 in spec.nodes[b].wires
    sw = build_spec("switched-mesh")
    (w1,), (w2,) = path(sw, 0, 5)
    assert w1[0] == w2[0] and w1 != w2, "one orientation, joined by its switch"
    assert path(build_spec("single-net"), 0, 1) == (("w0",),)
    assert path(build_spec("bonded-dual-net"), 0, 1) == (("w0", "w1"),)
    assert path(build_spec("bonded-switched-mesh"), 0, 5) == (("r0", "c0"), ("r1", "c1"))


@pytest.mark.parametrize("topo", ["switched-mesh", "routed-mesh", "bonded-switched-mesh"])
def test_local_pairs_share_a_wire_and_spread_over_wires(topo):
    spec = build_spec(topo)
    pairs = place(spec, 8, "local-wire")
    idx = {n.name: n.index for n in spec.nodes}
    assert all(shares_wire(idx[p.src], idx[p.dst], 4) for p in pairs)
    if topo != "bonded-switched-mesh":
        assert sorted(wire_load(pairs).values()) == [1] * 8


def test_placement_is_deterministic_and_described():
    a = place(build_spec("switched-mesh"), 4, "remote-wire")
    b = place(build_spec("switched-mesh"), 4, "remote-wire")
    assert a == b
    assert all("[" in p.describe() for p in a)


# --pairs-list (issue 44 item 4b): pairs named on any topology, checked before anything is built

import os  # noqa: E402
from pathlib import Path  # noqa: E402

from beowulf_netlab import commands  # noqa: E402
from beowulf_netlab.core.errors import BadInput  # noqa: E402
from beowulf_netlab.run.sweep import Sweep  # noqa: E402
from beowulf_netlab.workloads.filecopy import plan  # noqa: E402
from beowulf_netlab.workloads.placement import LISTED, parse_pairs_list  # noqa: E402

GATEWAY = str(Path(__file__).resolve().parents[2] / "examples" / "topologies" / "two-hubs-gateway.json")


def test_a_pairs_list_parses_in_its_order():
    assert parse_pairs_list("b0:b5, b1:b6,b2:b3") == [("b0", "b5"), ("b1", "b6"), ("b2", "b3")]


@pytest.mark.parametrize("text,says", [
    ("", "SRC:DST"), ("b0:b5,,b1:b6", "SRC:DST"), ("b0", "not a pair"), ("b0:b1:b2", "not a pair"),
    ("b0:", "not a pair"), ("b0:b0", "with itself"), ("b0:b1,b1:b2", "node b1 is in two pairs"),
    ("b0:b1,b2:b0", "node b0 is in two pairs"), ("b0:$(x)", "not a pair"),
])
def test_a_bad_pairs_list_is_refused(text, says):
    with pytest.raises(BadInput, match=says.replace("(", r"\(").replace("$", r"\$")):
        parse_pairs_list(text)


def test_listed_pairs_follow_each_topologys_paths():
    mesh = place(build_spec("routed-mesh"), 2, LISTED, "b0:b5,b1:b2")
    assert [(p.src, p.dst, p.relay, p.wire) for p in mesh] == [("b0", "b5", "b1", None), ("b1", "b2", None, "r0")]
    gateway = place(build_spec(GATEWAY), 2, LISTED, "a0:b0,a1:a2")
    assert gateway[0].path == (("h1",), ("h2",)) and gateway[0].relay == "gw"   # across the gateway: both hubs
    assert gateway[1].path == (("h1",),)
    assert place(build_spec("single-net"), 1, LISTED, "b7:b3")[0].path == (("w0",),)
    assert [p.src for p in place(build_spec("single-net"), 2, LISTED, "b4:b5,b6:b7,b8:b9")] == ["b4", "b6"]


def test_a_node_the_network_lacks_is_named():
    with pytest.raises(BadInput, match=r"names node b5, which single-net \(4 nodes"):
        place(build_spec("single-net", nodes=4), 1, LISTED, "b0:b5")
    with pytest.raises(BadInput, match="2 pairs asked, --pairs-list names 1"):
        place(build_spec("single-net"), 2, LISTED, "b0:b5")


def test_the_remote_copies_take_the_first_listed_pairs():
    copies = plan(build_spec("switched-mesh"), 4, 2, LISTED, pairs_list="b0:bf,b5:ba,b1:b2")
    assert [(c.kind, c.src, c.dst) for c in copies] == [("remote", "b0", "bf"), ("remote", "b5", "ba"),
                                                       ("local", "b1", "b1"), ("local", "b2", "b2")]


def test_each_point_records_the_pairs_it_named():
    sweep = Sweep.make("token", {"topology": ["single-net"], "pairs_list": "b0:b9,b1:ba", "token_size": [1024]})
    sweep.check()
    assert sweep["pairs"] == [2]
    ((_, points),) = sweep.schedule()
    assert [(p["placement"], p["pairs_list"], p["pairs"]) for p in points] == [(LISTED, "b0:b9,b1:ba", 2)]
    copies = Sweep.make("filecopy", {"topology": ["single-net"], "pairs_list": "b0:b9,b1:ba"})
    assert copies["remote"] == [0, 1, 2]      # the default 0-7, as far as the list names pairs


def _refused(argv, monkeypatch, capsys) -> str:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)   # never root here: a refusal comes first, or the root check
    try:
        rc = commands.main(argv)
    except SystemExit as e:      # argparse's own refusal of a value (core.parser: one line, exit 2)
        rc = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("argv,says", [
    (["--topo", "single-net", "--placement", "remote-wire"], "--placement remote-wire needs a mesh"),
    (["--topo", "switched-cluster", "--placement", "local-wire"], "--placement local-wire needs a mesh"),
    (["--topo", "single-net", "--placement", "local-wire"], "root"),   # every pair shares the wire
    (["--topo", GATEWAY, "--placement", "remote-wire"], "has only 'any'"),
    (["--topo", "single-net", "--pairs-list", "b0:b5", "--nodes", "4"], "names node b5"),
    (["--topo", "single-net", "--pairs-list", "b0:b1,b1:b2"], "node b1 is in two pairs"),
    (["--topo", "single-net", "--pairs-list", "b0:b1", "--placement", "any"], "drop --placement"),
    (["--topo", "single-net", "--pairs-list", "b0:b1,b2:b3", "--pairs", "3"], "drop --pairs"),
    (["--topo", "single-net", "--pairs-list", "b0:b1"], "root"),   # valid: only the root check is left
])
def test_run_refuses_a_placement_that_cannot_apply_in_one_line(argv, says, monkeypatch, capsys):
    assert says in _refused(["run", "token", *argv], monkeypatch, capsys)


def test_only_the_token_and_copy_workloads_take_a_list(monkeypatch, capsys):
    line = _refused(["run", "iperf", "--pairs-list", "b0:b1"], monkeypatch, capsys)
    assert line.endswith("run iperf does not take --pairs-list")


def test_a_mixed_sweep_still_runs_each_topologys_own_placements():
    sweep = Sweep.make("token", {"topology": ["single-net", "switched-mesh"], "token_size": [1024]})
    sweep.check()
    assert [sorted({p["placement"] for p in pts}) for _, pts in sweep.schedule()] == \
        [["any"], ["local-wire", "remote-wire"]]


def test_local_wire_on_one_shared_segment_is_what_any_places():
    """Every node of single-net (one wire) and bonded-dual-net (the same two) shares its wires with
    every other: a sweep asking local-wire runs (and records) 'any' there; a star's nodes share
    none, so it cannot apply."""
    for topo in ("single-net", "bonded-dual-net"):
        sweep = Sweep.make("token", {"topology": [topo], "placement": ["local-wire"], "token_size": [1024]})
        assert sweep.placements_for(build_spec(topo, nodes=8)) == ["any"]
    sweep = Sweep.make("token", {"topology": ["switched-cluster"], "placement": ["local-wire"], "token_size": [1024]})
    with pytest.raises(BadInput, match="needs a mesh"):
        sweep.placements_for(build_spec("switched-cluster", nodes=8))
