"""Wiring of every preset, checked as data (no root)."""
from pathlib import Path

import pytest

from beowulf_netlab.topologies.mesh import grid_side, relay_for, shares_wire
from beowulf_netlab.topologies.presets import PRESETS, build_spec
from beowulf_netlab.topologies.render import wiring_text
from beowulf_netlab.topologies.spec import SpecError, node_name


def test_node_names_are_hex_like_the_papers():
    assert [node_name(i) for i in (0, 9, 10, 15, 16)] == ["b0", "b9", "ba", "bf", "b10"]


def test_single_net_is_one_shared_wire():
    spec = build_spec("single-net")
    assert len(spec.nodes) == 16 and len(spec.wires) == 1
    assert spec.wires[0].rate_mbit == 10
    assert not any(n.bonded for n in spec.nodes)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_bonded_dual_net_channels(k):
    spec = build_spec("bonded-dual-net", nodes=4, rate_mbit=100, channels=k)
    assert len(spec.wires) == k
    assert all(len(n.wires) == k and n.bonded == (k > 1) for n in spec.nodes)
    if k == 1:
        assert spec.topology == "single-net"


def test_addresses_unique():
    spec = build_spec("single-net", nodes=300)
    assert len({n.ip for n in spec.nodes}) == 300


@pytest.mark.parametrize("name", ["switched-mesh", "routed-mesh", "bonded-switched-mesh"])
def test_mesh_has_6_local_and_9_remote_peers(name):
    spec = build_spec(name)
    k = spec.params["grid"]
    assert len(spec.wires) == 8
    for node in spec.nodes:
        local = [p for p in spec.nodes if shares_wire(node.index, p.index, k)]
        assert len(local) == 6
        assert len(spec.nodes) - 1 - len(local) == 9
    # the papers' examples: b0-b3 share row wire 0; b1, b5, b9, bd share column wire 1
    assert [n.name for n in spec.members("r0")] == ["b0", "b1", "b2", "b3"]
    assert [n.name for n in spec.members("c1")] == ["b1", "b5", "b9", "bd"]


def test_routed_mesh_relays_share_a_wire_with_both_ends_and_spread_duty():
    k = 4
    duty = {}
    for a in range(16):
        for b in range(16):
            if a != b and not shares_wire(a, b, k):
                r = relay_for(a, b, k)
                assert r == relay_for(b, a, k), "both directions use one relay"
                assert shares_wire(a, r, k) and shares_wire(r, b, k)
                duty[r] = duty.get(r, 0) + 1
    assert len(duty) == 16 and max(duty.values()) - min(duty.values()) <= 2


def test_routed_mesh_routes_point_at_relays():
    spec = build_spec("routed-mesh")
    b0 = spec.node("b0")
    by_dst = {r.dst: r for r in b0.routes}
    assert len(by_dst) == 15
    assert by_dst["10.0.0.2"].via is None                 # b1: same row
    assert by_dst["10.0.0.6"].via is not None             # b5: remote
    assert all(n.forwarding for n in spec.nodes)


def test_routed_mesh_direct_and_relayed_peers():
    """Claim 13 (HPDC'96): every node reaches 6 peers on its own wires and 9 through one relay."""
    spec = build_spec("routed-mesh")
    for node in spec.nodes:
        direct = [r for r in node.routes if r.via is None]
        relayed = [r for r in node.routes if r.via is not None]
        assert (len(direct), len(relayed)) == (6, 9), node.name
        addresses = {n.ip: n for n in spec.nodes}
        for r in relayed:   # the relay shares a wire with both ends
            relay = next(n for n in spec.nodes if n.ip == r.via)
            assert set(relay.wires) & set(node.wires) and set(relay.wires) & set(addresses[r.dst].wires)


@pytest.mark.parametrize("rate", [10, 100])
def test_mesh_has_four_times_the_bonded_capacity(rate):
    """Claim 12 (HPDC'96): the mesh's wires carry 80 Mbit/s in all, the bonded dual net's 20."""
    mesh = sum(w.rate_mbit for w in build_spec("switched-mesh", rate_mbit=rate).wires)
    bonded = sum(w.rate_mbit for w in build_spec("bonded-dual-net", rate_mbit=rate).wires)
    assert (mesh, bonded) == (8 * rate, 2 * rate) and mesh / bonded == 4


@pytest.mark.parametrize("bad, msg", [
    (dict(name="nope"), "unknown topology"),
    (dict(name="single-net", rate_mbit=0), "rate"),
    (dict(name="single-net", rate_mbit=1000.5), "rate"),
    (dict(name="single-net", rate_mbit=float("nan")), "rate"),
    (dict(name="single-net", nodes=True), "nodes"),
    (dict(name="single-net", nodes=1), "nodes"),
    (dict(name="bonded-dual-net", channels=0), "channels"),
    (dict(name="switched-mesh", nodes=15), "perfect-square"),
    (dict(name="routed-mesh", nodes=1), "2 x 2"),
    (dict(name="single-net", channels=2), "does not take"),
])
def test_bad_parameters_are_refused(bad, msg):
    name = bad.pop("name")
    with pytest.raises(SpecError, match=msg):
        build_spec(name, **bad)


def test_grid_side():
    assert grid_side(4) == 2 and grid_side(16) == 4
    with pytest.raises(SpecError):
        grid_side(2)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_renders(name):
    text = wiring_text(build_spec(name))
    assert "b0" in text and "10.0.0.1" in text


@pytest.mark.parametrize("path", sorted(str(p) for p in
                                        (Path(__file__).resolve().parents[2] / "examples" / "topologies").glob("*.json")))
def test_topo_show_draws_an_explicit_topology_file(path, tmp_path, capsys):
    """A user's own file draws as its wiring (two-hubs-gateway, with its routing node, crashed; the
    switched pairs drew every node on every wire): each node dropped to its own wires only, switches
    joined to theirs. Looked at as PNGs; here: it draws, and says so."""
    from beowulf_netlab import commands
    png = tmp_path / "wiring.png"
    assert commands.main(["topo", "show", path, "--png", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {png}" in capsys.readouterr().out
