"""Topology files: the presets are files, a user's file builds the same way (no root needed).

A preset read from its file must build exactly the network its builder always built (the
measured numbers hang on that); an explicit file's routes must reach every peer, relaying only
through forwarding nodes; every wiring mistake is one line naming it.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.topologies import cluster, files, mesh, presets
from beowulf_netlab.topologies.presets import PRESETS, build_spec
from beowulf_netlab.topologies.spec import DEFAULT_CHANNELS, DEFAULT_NODES, DEFAULT_RATE_MBIT, SpecError

ROOT = Path(__file__).resolve().parents[2]
GATEWAY = ROOT / "examples" / "topologies" / "two-hubs-gateway.json"
SWITCHED = ROOT / "examples" / "topologies" / "switched-pairs.json"
BUILDERS = {"single-net": presets.single_net, "bonded-dual-net": presets.bonded_dual_net,
            "switched-mesh": mesh.switched_mesh, "routed-mesh": mesh.routed_mesh,
            "bonded-switched-mesh": mesh.bonded_switched_mesh,
            "switched-cluster": cluster.switched_cluster}


def test_the_published_schema_is_the_codes():
    assert json.loads(files.SCHEMA_FILE.read_text()) == files.SCHEMA


def test_every_preset_is_a_library_file_in_its_order():
    assert list(PRESETS) == list(BUILDERS)
    assert {p.path.name for p in PRESETS.values()} == {p.name for p in files.LIBRARY.glob("*.json")}


@pytest.mark.parametrize("name", BUILDERS)
def test_a_preset_from_its_file_builds_what_its_builder_built(name):
    preset, builder = PRESETS[name], BUILDERS[name]
    assert preset.build() == builder()
    for nodes in (4, 9, 16):
        for rate in (10.0, 100.0):
            assert preset.build(nodes=nodes, rate_mbit=rate) == builder(nodes=nodes, rate_mbit=rate)
    if name == "bonded-dual-net":
        assert preset.build(channels=1).topology == "single-net"
        assert preset.build(channels=3) == builder(channels=3)


def test_the_files_defaults_are_the_networks_defaults():
    """One default per setting: the shared and grid presets take spec's, the cluster its own."""
    for name, p in PRESETS.items():
        if name == "switched-cluster":
            assert p.defaults == {"nodes": cluster.CLUSTER_NODES, "rate_mbit": cluster.CLUSTER_RATE_MBIT}
        else:
            assert p.defaults["nodes"] == DEFAULT_NODES and p.defaults["rate_mbit"] == DEFAULT_RATE_MBIT
    assert PRESETS["bonded-dual-net"].defaults["channels"] == DEFAULT_CHANNELS


def test_a_gateway_joins_two_hubs_and_only_it_relays():
    spec = build_spec(str(GATEWAY))
    assert spec.topology == "two-hubs-gateway" and len(spec.nodes) == 7
    gw = spec.node("gw")
    assert gw.forwarding and not any(n.forwarding for n in spec.nodes if n is not gw)
    a0, b0 = spec.node("a0"), spec.node("b0")
    to_b0 = next(r for r in a0.routes if r.dst == b0.ip)
    assert (to_b0.nic, to_b0.via) == (0, gw.ip)
    assert next(r for r in a0.routes if r.dst == spec.node("a1").ip).via is None
    assert {r.via for r in gw.routes} == {None}          # the gateway reaches everyone itself
    assert [r.nic for r in gw.routes if r.dst == b0.ip] == [1]


def test_one_switched_domain_is_on_link_and_wires_keep_their_own_rate():
    spec = build_spec(str(SWITCHED), rate_mbit=100)
    assert all(n.on_link_subnet for n in spec.nodes)
    assert {w.name: w.rate_mbit for w in spec.wires} == {"s0": 100, "s1": 100, "s2": 100, "s3": 100}
    spec = build_spec(str(SWITCHED))
    assert spec.wire("s3").rate_mbit == 100 and spec.wire("s0").rate_mbit == 10


def test_a_chain_of_relays_takes_the_fewest_hops(tmp_path):
    chain = {"name": "chain", "summary": "x", "kind": "explicit", "options": {"rate_mbit": 10},
             "wires": [{"name": f"w{i}"} for i in range(3)],
             "nodes": [{"name": "a", "wires": ["w0"]},
                       {"name": "r1", "wires": ["w0", "w1"], "forwarding": True},
                       {"name": "r2", "wires": ["w1", "w2"], "forwarding": True},
                       {"name": "z", "wires": ["w2"]}]}
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(chain))
    spec = build_spec(str(path))
    ip = {n.name: n.ip for n in spec.nodes}
    hop = {(n.name, r.dst): r.via for n in spec.nodes for r in n.routes}
    assert hop[("a", ip["z"])] == ip["r1"] and hop[("r1", ip["z"])] == ip["r2"]
    assert hop[("r2", ip["z"])] is None and hop[("z", ip["a"])] == ip["r2"]


def _file(tmp_path, **over) -> str:
    base = {"name": "t", "summary": "x", "kind": "explicit", "options": {"rate_mbit": 10},
            "wires": [{"name": "w0"}, {"name": "w1"}],
            "nodes": [{"name": "a", "wires": ["w0"]}, {"name": "b", "wires": ["w0"]}]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({**base, **over}))
    return str(path)


@pytest.mark.parametrize("over, says", [
    ({"nodes": [{"name": "a", "wires": ["w0"]}, {"name": "b", "wires": ["w9"]}]}, "unknown wire w9"),
    ({"nodes": [{"name": "a", "wires": ["w0"]}, {"name": "b", "wires": ["w1"]}]}, "cannot reach"),
    ({"switches": [{"name": "s", "wires": ["w0", "w1"]}, {"name": "t", "wires": ["w1"]}]},
     "at most one switch"),
    ({"nodes": [{"name": "a", "wires": ["w0", "w1"], "bonded": True}, {"name": "b", "wires": ["w0"]}]},
     "every peer must sit on each"),
    ({"wires": [{"name": "w0", "full_duplex": True}],
      "nodes": [{"name": n, "wires": ["w0"]} for n in "abc"]}, "full-duplex wire w0 has 3"),
    ({"nodes": [{"name": "a", "wires": ["w0"]}, {"name": "a", "wires": ["w0"]}]}, "two nodes are named a"),
    ({"nodes": [{"name": "a-very-long", "wires": ["w0"]}, {"name": "b", "wires": ["w0"]}]}, "at nodes.0.name"),
    ({"options": {"rate_mbit": 5000}}, "rate"),
    ({"options": {"rate_mbit": 10, "nodes": 4}}, "may set only rate_mbit"),
    ({"kind": "grid"}, "belong to kind explicit"),
    ({"nodes": [{"name": "a", "wires": ["w0"]}]}, "at least 2 nodes"),
])
def test_a_wiring_mistake_is_one_line_naming_it(tmp_path, over, says):
    with pytest.raises(BadInput, match=says) as e:
        build_spec(_file(tmp_path, **over))
    assert "\n" not in str(e.value)


def test_nodes_cannot_change_an_explicit_file_and_a_sweep_takes_its_count(tmp_path):
    from beowulf_netlab.run.sweep import Sweep
    with pytest.raises(BadInput, match="lists 7 nodes"):
        build_spec(str(GATEWAY), nodes=16)
    sweep = Sweep.make("iperf", {"topology": [str(GATEWAY)]})
    assert sweep["nodes"] == 7 and [s.topology for s in sweep.specs()] == ["two-hubs-gateway"]


def test_a_file_is_read_as_a_hostile_one(tmp_path):
    target = tmp_path / "real.json"
    target.write_text(GATEWAY.read_text())
    link = tmp_path / "link.json"
    os.symlink(target, link)
    with pytest.raises(BadInput):
        build_spec(str(link))
    with pytest.raises(BadInput, match="unknown topology"):
        build_spec("no-such-preset")
    with pytest.raises(BadInput):
        build_spec(str(tmp_path / "missing.json"))
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (files.MAX_TOPOLOGY_BYTES + 1))
    with pytest.raises(BadInput):
        build_spec(str(big))


def test_a_switch_name_twice_or_a_presets_name_is_refused(tmp_path):
    with pytest.raises(BadInput, match="two switches are named s"):
        build_spec(_file(tmp_path, switches=[{"name": "s", "wires": ["w0"]}, {"name": "s", "wires": ["w1"]}]))
    with pytest.raises(BadInput, match="a preset's name"):
        build_spec(_file(tmp_path, name="single-net"))


def test_the_largest_hub_a_file_may_list_is_all_on_link(tmp_path):
    """MAX_NODES stations on one hub (routes are found over domains, not node by node: the walk
    that was cubic took about 100 s for this file). The hub's name has one character: its
    1024th port is bnlXXwh-eth1024, 15 characters; w0's would be 16, past Linux's limit."""
    nodes = [{"name": f"n{i:x}", "wires": ["h"]} for i in range(1024)]
    spec = build_spec(_file(tmp_path, nodes=nodes, wires=[{"name": "h"}]))
    assert all(n.on_link_subnet for n in spec.nodes) and len(spec.nodes) == 1024
    with pytest.raises(SpecError, match="Linux allows 15"):
        build_spec(_file(tmp_path, nodes=[{**n, "wires": ["w0"]} for n in nodes]))
