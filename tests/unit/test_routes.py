"""Routes of an explicit topology, found once per destination (issue 45, LOW: a 1024-node file
of two hubs and a gateway took minutes before any check). The walk gives what the
pair-by-pair search it replaced gave, on random networks, and a big file reads in seconds."""
import json
import random
import time
from collections import deque

import pytest

from beowulf_netlab.topologies.files import _routes, explicit, load
from beowulf_netlab.topologies.spec import Route, SpecError, node_ip


def reference(nodes: list[dict], domain_of: dict[str, int]) -> dict[int, tuple]:
    """The search it replaced (beowulf_netlab/topologies/files.py before issue 45), kept as the reference."""
    n = len(nodes)
    doms = [[domain_of[w] for w in nd["wires"]] for nd in nodes]
    members: dict[int, list[int]] = {}
    for i, ds in enumerate(doms):
        for d in set(ds):
            members.setdefault(d, []).append(i)

    def reach(v):
        return {j for d in set(doms[v]) for j in members[d] if j != v}
    hops = {}
    for dst in range(n):
        dist, seen, queue = {dst: 0}, set(), deque([dst])
        while queue:
            v = queue.popleft()
            if v != dst and not nodes[v].get("forwarding"):
                continue
            for d in set(doms[v]) - seen:
                seen.add(d)
                for u in members[d]:
                    if u not in dist:
                        dist[u] = dist[v] + 1
                        queue.append(u)
        hops[dst] = dist
    out = {}
    for src in range(n):
        routes = []
        for dst in range(n):
            if dst == src:
                continue
            dist = hops[dst]
            if src not in dist:
                raise SpecError("cannot reach")
            nxt = dst if dist[src] == 1 else min(j for j in reach(src) if dist.get(j) == dist[src] - 1
                                                 and nodes[j].get("forwarding"))
            shared = next(d for d in doms[src] if d in doms[nxt])
            routes.append(Route(node_ip(dst), doms[src].index(shared), None if nxt == dst else node_ip(nxt)))
        one_way = len(doms[src]) == 1 or nodes[src].get("bonded")
        out[src] = () if one_way and all(r.via is None for r in routes) else tuple(routes)
    return out


@pytest.mark.parametrize("seed", range(60))
def test_the_walk_gives_the_searchs_routes(seed):
    rng = random.Random(seed)
    domains = rng.randint(1, 8)
    n = rng.randint(2, 40)
    nodes = [{"name": f"n{i}", "wires": rng.sample([f"w{d}" for d in range(domains)], rng.randint(1, min(3, domains))),
              "forwarding": rng.random() < 0.4} for i in range(n)]
    domain_of = {f"w{d}": d for d in range(domains)}
    try:
        want = reference(nodes, domain_of)
    except SpecError:
        with pytest.raises(SpecError, match="cannot reach"):
            _routes(nodes, domain_of)
        return
    assert _routes(nodes, domain_of) == want


def test_two_hubs_of_512_and_a_gateway_read_in_seconds(tmp_path):
    nodes = ([{"name": f"a{i:x}", "wires": ["h1"]} for i in range(512)] + [{"name": "gw", "wires": ["h1", "h2"],
             "forwarding": True}] + [{"name": f"b{i:x}", "wires": ["h2"]} for i in range(511)])
    f = tmp_path / "t.json"
    f.write_text(json.dumps({"name": "t", "summary": "s", "kind": "explicit", "options": {"rate_mbit": 10},
                             "wires": [{"name": "h1"}, {"name": "h2"}], "nodes": nodes}))
    t0 = time.process_time()
    topo = load(f)                            # reading it finds its routes
    assert time.process_time() - t0 < 15      # minutes before
    b0 = explicit(topo, 10).node("b0")
    assert b0.routes[0] == Route(node_ip(0), 0, node_ip(512))    # a0 through the gateway
