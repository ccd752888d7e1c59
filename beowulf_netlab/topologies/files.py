"""Topology files: a network described as data, as containerlab and Kathara users write theirs.

A file (beowulf_netlab/topologies/schema.json) names its wiring `kind` and the options a user may set, each
with its default:
- shared: N nodes on K shared wires, every node bonded across all K when K > 1 (K fixed by
  `channels`, or a user option when `options` lists it);
- grid: the HPDC'96 k x k grids of row and column wires (topologies.mesh), switched, routed
  or bonded as `grid` says;
- star: every node on its own full-duplex port of one switch (topologies.cluster);
- explicit: the wires, switches and nodes listed one by one. Routes are computed here:
  a node reaches a peer directly where one of its wires shares a layer-2 domain with the
  peer (wires one switch joins are one domain), else by the fewest relays, relaying only
  through nodes marked `forwarding`.
The presets are such files (beowulf_netlab/topologies/library/*.json, listed in their `order`); any other
is given by its path wherever a topology name is taken. This module reads and checks a file
and builds explicit wirings; `topologies.presets` maps the other kinds to their builders.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from beowulf_netlab.core.jsonfile import check_schema, read_json
from beowulf_netlab.topologies.spec import (MAX_CHANNELS, MAX_NODES, NetworkSpec, Node, Route, SpecError, Switch,
                                            Wire, check_rate, node_ip)

DIR = Path(__file__).resolve().parent
LIBRARY = DIR / "library"
SCHEMA_FILE = DIR / "schema.json"
MAX_TOPOLOGY_BYTES = 1 << 20      # a 1024-node explicit file is about 100 KB
KINDS = ("shared", "grid", "star", "explicit")

_NAME = {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,39}$"}
_PART = {"type": "string", "pattern": "^[a-z][a-z0-9]{0,2}$",
         "description": "a wire's or switch's name: 1-3 characters (it becomes part of interface "
                        "names, which Linux caps at 15)"}
_NODE = {"type": "string", "pattern": "^[a-z][a-z0-9]{0,4}$",
         "description": "a node's name: 1-5 characters (its interfaces are NAME-eth0, ...)"}
_WIRE_LIST = {"type": "array", "items": _PART, "minItems": 1, "uniqueItems": True}
SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "https://beowulf-netlab.invalid/topologies/schema.json",
    "title": "Beowulf Netlab topology file",
    "description": "A network as data (beowulf_netlab/topologies/files.py); the presets are such files "
                   "(beowulf_netlab/topologies/library/).",
    "type": "object", "additionalProperties": False,
    "required": ["name", "summary", "kind", "options"],
    "properties": {
        "$schema": {"type": "string"},
        "name": {**_NAME, "description": "the topology's name, as results record it"},
        "summary": {"type": "string", "minLength": 1, "maxLength": 200},
        "order": {"type": "integer", "minimum": 0, "description": "place in `topo list` (presets)"},
        "kind": {"enum": list(KINDS)},
        "options": {"type": "object", "additionalProperties": False,
                    "description": "what a user may set (flags --nodes, --rate-mbit, --channels), "
                                   "each with its default",
                    "properties": {"nodes": {"type": "integer", "minimum": 2, "maximum": MAX_NODES},
                                   "rate_mbit": {"type": "number"},
                                   "channels": {"type": "integer", "minimum": 1,
                                                "maximum": MAX_CHANNELS}}},
        "channels": {"type": "integer", "minimum": 1, "maximum": MAX_CHANNELS,
                     "description": "shared: wires per node when not an option (default 1)"},
        "one_channel_is": {**_NAME, "description": "shared: the name a one-channel network takes"},
        "grid": {"type": "object", "additionalProperties": False,
                 "properties": {"switched": {"type": "boolean"}, "routed": {"type": "boolean"},
                                "bonded": {"type": "boolean"}}},
        "notes": {"type": "array", "items": {"type": "string", "maxLength": 300}, "maxItems": 10},
        "wires": {"type": "array", "maxItems": MAX_NODES * MAX_CHANNELS, "items": {
            "type": "object", "additionalProperties": False, "required": ["name"],
            "properties": {"name": _PART,
                           "rate_mbit": {"type": "number", "description": "default: the rate_mbit option"},
                           "full_duplex": {"type": "boolean",
                                           "description": "a switch port: one station, each direction "
                                                          "at the whole rate, no contention"}}}},
        "switches": {"type": "array", "maxItems": 64, "items": {
            "type": "object", "additionalProperties": False, "required": ["name", "wires"],
            "properties": {"name": _PART, "wires": _WIRE_LIST}}},
        "nodes": {"type": "array", "maxItems": MAX_NODES, "items": {
            "type": "object", "additionalProperties": False, "required": ["name", "wires"],
            "properties": {"name": _NODE, "wires": {**_WIRE_LIST, "maxItems": MAX_CHANNELS},
                           "bonded": {"type": "boolean",
                                      "description": "stripe its packets round-robin over its wires"},
                           "forwarding": {"type": "boolean",
                                          "description": "relay others' packets (costs its CPU)"}}}},
    },
}


@dataclass(frozen=True)
class TopologyFile:
    """A checked topology file. `defaults` are the options a user may set, with their defaults."""
    name: str
    summary: str
    kind: str
    defaults: dict[str, Any]
    data: dict = field(repr=False)
    path: Path | None = None
    order: int = 0


OPTIONS = tuple(SCHEMA["properties"]["options"]["properties"])   # what a file gives defaults for


def load(path: Path, what: str = "topology file") -> TopologyFile:
    """A topology file, checked (schema, then what a schema cannot say), or one BadInput line."""
    data = read_json(Path(path), what, limit=MAX_TOPOLOGY_BYTES)
    where = f"{what} {path}"
    check_schema(data, SCHEMA, where)
    kind = data["kind"]
    opts = data["options"]
    if "rate_mbit" not in opts:
        raise SpecError(f"{where}: options needs a rate_mbit default (the wires' rate)")
    try:
        check_rate(opts["rate_mbit"])
    except SpecError as e:
        raise SpecError(f"{where}: options.rate_mbit: {e}")
    explicit_keys = {"wires", "switches", "nodes"} & set(data)
    if kind == "explicit":
        if "nodes" not in data or "wires" not in data:
            raise SpecError(f"{where}: an explicit topology lists its wires and nodes")
        if "channels" in opts or "nodes" in opts:
            raise SpecError(f"{where}: an explicit topology's nodes are its list; options may set "
                            "only rate_mbit")
    elif explicit_keys:
        raise SpecError(f"{where}: {', '.join(sorted(explicit_keys))} belong to kind explicit, "
                        f"not {kind}")
    elif "nodes" not in opts:
        raise SpecError(f"{where}: kind {kind} needs a nodes default in options")
    if kind != "shared" and ("channels" in opts or "channels" in data or "one_channel_is" in data):
        raise SpecError(f"{where}: channels belong to kind shared")
    if kind != "grid" and "grid" in data:
        raise SpecError(f"{where}: grid belongs to kind grid")
    topo = TopologyFile(name=data["name"], summary=data["summary"], kind=kind,
                        defaults=dict(opts, **({"nodes": len(data["nodes"])} if kind == "explicit" else {})),
                        data=data, path=Path(path), order=data.get("order", 0))
    if kind == "explicit":
        explicit(topo, opts["rate_mbit"])       # wiring mistakes surface when the file is read
    return topo


def library() -> list[TopologyFile]:
    """The presets, in their declared order (two with one name are a broken checkout)."""
    files = [load(p, "topology preset") for p in sorted(LIBRARY.glob("*.json"))]
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        raise SpecError(f"topology presets in {LIBRARY} share a name: {sorted(n for n in names if names.count(n) > 1)[0]}")
    return sorted(files, key=lambda f: (f.order, f.name))


def _domains(wires: list[Wire], switches: list[Switch]) -> dict[str, int]:
    """wire -> layer-2 domain: the wires one switch joins are one domain."""
    parent = {w.name: w.name for w in wires}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for s in switches:
        for w in s.wires[1:]:
            parent[root(w)] = root(s.wires[0])
    roots = {r: i for i, r in enumerate(sorted({root(w.name) for w in wires}))}
    return {w.name: roots[root(w.name)] for w in wires}


def _routes(nodes: list[dict], domain_of: dict[str, int]) -> dict[int, tuple[Route, ...]]:
    """Per node index, its routes (empty: every peer on-link through its one NIC or its bond).
    A peer one of its wires reaches is direct; else the next hop is the lowest-numbered
    neighbour on a shortest path whose every relay forwards. Found once per destination by a
    walk over domains, a layer at a time in node order, so each node is first reached from
    the lowest-numbered relay one hop nearer: its next hop (was a search of every neighbour for
    every pair: a 1024-node file of two hubs and a gateway took minutes)."""
    n = len(nodes)
    doms = [[domain_of[w] for w in nd["wires"]] for nd in nodes]
    members: dict[int, list[int]] = {}
    for i, ds in enumerate(doms):
        for d in dict.fromkeys(ds):
            members.setdefault(d, []).append(i)
    relays = [bool(nd.get("forwarding")) for nd in nodes]
    ips = [node_ip(i) for i in range(n)]
    routes: list[list[Route]] = [[] for _ in range(n)]
    for dst in range(n):
        hop = {dst: dst}                  # node -> its next hop towards dst
        seen: set[int] = set()
        layer = [dst]
        while layer:
            following = []
            for v in sorted(layer):
                if v != dst and not relays[v]:
                    continue
                for d in doms[v]:
                    if d in seen:
                        continue
                    seen.add(d)               # each domain's members are visited once per dst
                    for u in members[d]:
                        if u not in hop:
                            hop[u] = v
                            following.append(u)
            layer = following
        for src in range(n):
            if src == dst:
                continue
            if src not in hop:
                raise SpecError(f"node {nodes[src]['name']} cannot reach {nodes[dst]['name']}: join "
                                "their wires with a switch, or mark a node on both \"forwarding\"")
            nxt = hop[src]
            shared = next(d for d in doms[src] if d in doms[nxt])
            routes[src].append(Route(ips[dst], doms[src].index(shared), None if nxt == dst else ips[nxt]))
    out: dict[int, tuple[Route, ...]] = {}
    for src in range(n):
        one_way = len(doms[src]) == 1 or nodes[src].get("bonded")
        out[src] = () if one_way and all(r.via is None for r in routes[src]) else tuple(routes[src])
    return out


def explicit(topo: TopologyFile, rate_mbit: float) -> NetworkSpec:
    """An explicit file's network: its wires at their own rate (else rate_mbit), its switches,
    its nodes with computed routes. SpecError names the first wiring mistake."""
    data = topo.data
    where = f"topology {topo.name}"
    wires = [Wire(w["name"], check_rate(w.get("rate_mbit", rate_mbit)),
                  full_duplex=w.get("full_duplex", False)) for w in data["wires"]]
    names = [w.name for w in wires]
    if len(set(names)) != len(names):
        raise SpecError(f"{where}: two wires are named {next(x for x in names if names.count(x) > 1)}")
    switches = [Switch(s["name"], tuple(s["wires"])) for s in data.get("switches", [])]
    twice = [s.name for i, s in enumerate(switches) if s.name in [t.name for t in switches[:i]]]
    if twice:   # one name would be one bridge joining both switches' wires
        raise SpecError(f"{where}: two switches are named {twice[0]}")
    joined: dict[str, str] = {}
    for s in switches:
        for w in s.wires:
            if w not in names:
                raise SpecError(f"{where}: switch {s.name} joins unknown wire {w}")
            if w in joined:   # two switches on one wire make a loop no switch here breaks
                raise SpecError(f"{where}: wire {w} is on switches {joined[w]} and {s.name}; a wire "
                                "may join at most one switch")
            joined[w] = s.name
    nodes = data["nodes"]
    if len(nodes) < 2:
        raise SpecError(f"{where}: a network needs at least 2 nodes")
    seen: set[str] = set()
    for nd in nodes:
        if nd["name"] in seen:
            raise SpecError(f"{where}: two nodes are named {nd['name']}")
        seen.add(nd["name"])
        for w in nd["wires"]:
            if w not in names:
                raise SpecError(f"{where}: node {nd['name']} sits on unknown wire {w}")
    on_wire = Counter(w for nd in nodes for w in nd["wires"])   # one pass, not wires x nodes
    for w in wires:
        stations = on_wire[w.name] + (w.name in joined)
        if w.full_duplex and stations > 2:
            raise SpecError(f"{where}: full-duplex wire {w.name} has {stations} stations; a port "
                            "joins one node and one switch (or two nodes)")
    domain_of = _domains(wires, switches)
    dsets = [{domain_of[w] for w in nd["wires"]} for nd in nodes]
    for nd, mine in zip(nodes, dsets):
        if len(mine) != len(nd["wires"]):
            raise SpecError(f"{where}: node {nd['name']} has two wires in one switched domain; give it "
                            "one, or bond them on wires no switch joins")
        if nd.get("bonded"):
            for other, theirs in zip(nodes, dsets):
                if other is not nd and not mine <= theirs:
                    raise SpecError(f"{where}: bonded node {nd['name']} stripes over all its wires, so "
                                    f"every peer must sit on each of them; {other['name']} does not")
    routes = _routes(nodes, domain_of)
    spec = NetworkSpec(
        topology=topo.name, params={"nodes": len(nodes), "rate_mbit": check_rate(rate_mbit)},
        wires=tuple(wires), switches=tuple(switches),
        nodes=tuple(Node(name=nd["name"], index=i, wires=tuple(nd["wires"]),
                         bonded=bool(nd.get("bonded")) and len(nd["wires"]) > 1,
                         forwarding=bool(nd.get("forwarding")), routes=routes[i])
                    for i, nd in enumerate(nodes)),
        notes=tuple(data.get("notes", ())))
    spec.validate()
    return spec


if __name__ == "__main__":   # python3 -m beowulf_netlab.topologies.files: publish the schema (a test keeps it equal)
    from beowulf_netlab.core.jsonfile import write_schema
    write_schema(SCHEMA_FILE, SCHEMA)
