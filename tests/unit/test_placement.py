"""Placement as the papers arranged it: on each topology's real paths, no shared
wire (and no node in two roles) while that is possible."""
import pytest

from topologies.mesh import relay_for, shares_wire
from topologies.presets import build_spec
from workloads.placement import path, place, wire_load


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
