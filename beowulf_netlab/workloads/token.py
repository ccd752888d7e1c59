"""The papers' network throughput test: token exchange between P pairs at once.

In each pair one process sends a token of S bytes, its partner reads it
completely and sends it straight back, T tokens in flight (token_agent.py runs
in the nodes). Throughput counts the papers' message traffic: token payload
bytes that crossed the network, S per token per direction, summed over pairs,
divided by the longest pair's elapsed time, in MB/s (10^6 bytes/s). TCP/IP
headers and Ethernet framing are not counted. With --transport udp each token
is one datagram each way, one in flight (lmbench's lat_udp round trip): the era
validation table reads it.
"""
from __future__ import annotations

import dataclasses
import os
from contextlib import ExitStack

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.fields import Field
from beowulf_netlab.core.settings import AS_DEFAULT, Setting, axes, fields
from beowulf_netlab.core.values import human_size
from beowulf_netlab.netlab.capabilities import mem_available_bytes
from beowulf_netlab.topologies.ethernet import MSS
from beowulf_netlab.workloads.agent import WarmAgents
from beowulf_netlab.workloads.base import PAIRS_LIST, PART, Figure, PAIRS, Workload, path_rate_bytes_s
from beowulf_netlab.workloads.placement import place, wire_load

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "token_agent.py")
BASE_PORT = 7000
MAX_TOKEN = 16 << 20
MAX_DATAGRAM = 1472        # one Ethernet frame: 1500 - 20 (IP) - 8 (UDP)

# `run token`'s defaults are the main job's (beowulf_netlab/experiments/quick-comparison.json gives no value of its
# own): the papers' five networks at their 10 Mbit/s, 8 pairs (one per mesh wire, as HPDC'96's
# local-wire peak needs), 512 B to 16 KB tokens by doublings, 2 in flight, 2.5 s a point.
TOPOLOGIES = ("single-net", "bonded-dual-net", "switched-mesh", "routed-mesh", "bonded-switched-mesh")
SETTINGS = (
    dataclasses.replace(PAIRS, default=[8]),
    PAIRS_LIST,
    Setting("token_size", "size", [512 << i for i in range(6)], "token bytes (K/M suffix = 1024/1048576)",
            minimum=1, maximum=MAX_TOKEN, unit="bytes", required=True, csv=True, schema={"minimum": 1}),
    Setting("tokens_in_flight", "int", [2], "tokens each pair keeps in flight", minimum=1, maximum=64,
            required=True, csv=True, short="T=", schema={"minimum": 1}),
    Setting("transport", "choice", ["tcp"], "tcp: the papers' token exchange; udp: each token one datagram "
            "each way, 1 in flight, at most 1472 bytes (lmbench's lat_udp)", choices=("tcp", "udp"),
            record_note="absent in documents before it: tcp", absent=AS_DEFAULT, csv=True,
            schema={"enum": ["tcp", "udp"]}),
    Setting("duration", "float", 2.5, "seconds of exchanges per point", many=False,
            minimum=0.1, maximum=3600, unit="s", record_type=("number", "null"),
            record_note="null with exchanges"),
    Setting("exchanges", "int", None, "round trips per pair instead of --duration", many=False,
            minimum=1, maximum=10_000_000, optional=True, record_type=("integer", "null")),
)
AXES = axes(SETTINGS)


FIELDS = (
    *fields(SETTINGS),
    Field("payload_bytes", "integer", "token bytes that crossed the network, both directions", unit="B"),
    Field("elapsed_s", "number", "longest pair's time, s", unit="s"),
    Field("round_trips", "integer", "round trips completed, all pairs"),
    Field("rtt_ms_median", ("number", "null"), "median pair's median round trip, ms", unit="ms", csv=True),
    Field("per_pair", "array", "each pair's figures", schema={"items": PART}),
    Field("pairs_placed", "array", "src->dst of each pair, with its wire or relay"),
)


def run_exchange(pairs, size: int, tokens: int, duration: float | None = None,
                 exchanges: int | None = None, base_port: int = BASE_PORT, transport: str = "tcp",
                 agents: WarmAgents | None = None) -> dict:
    """pairs: [(src_host, dst_host)]. Aggregate and per-pair figures. agents: the network's
    warm token agents (prepare); without them, agents for this exchange alone. Over TCP each
    node with a CPU budget pays its per-message cost (netlab.hostcost's charge channel), from
    each message's arrival (beowulf_netlab/workloads/charge.py)."""
    charges = {h.name: h.charge_args() for pair in pairs for h in pair} if transport == "tcp" else {}
    limit = ["--exchanges", str(exchanges)] if exchanges is not None else ["--duration", f"{duration:g}"]
    udp = ["--udp"] if transport == "udp" else []
    with ExitStack() as stack:
        pool = agents or stack.enter_context(WarmAgents(AGENT, "token agent"))
        pool.ensure([h for pair in pairs for h in pair])
        servers, clients = [], []
        stack.callback(lambda: [c.stop() for c in (*servers, *clients)])   # whatever still runs
        for i, (_src, dst) in enumerate(pairs):
            servers.append(pool.start(dst, ["serve", "--port", str(base_port + i), *udp,
                                            *charges.get(dst.name, [])],
                                      f"token server on {dst.name}"))
        # clients start beside their servers and retry connecting until these listen
        for i, (src, dst) in enumerate(pairs):
            clients.append(pool.start(src, ["client", "--host", dst.address, "--port", str(base_port + i),
                                            "--size", str(size), "--tokens", str(tokens), "--wait-go",
                                            *udp, *limit, *charges.get(src.name, [])],
                                      f"token exchange {src.name}->{dst.name}"))
        for server in servers:
            server.wait_ready()
        for client in clients:   # all connected: then every pair starts at once
            client.wait_ready()
        for client in clients:
            client.go()
        per_pair = []
        for (src, dst), client in zip(pairs, clients):
            # exchanges: allow 10 kB/s per pair at least, whatever the network
            data = client.result(timeout=120 + (duration or exchanges * 2 * size / 10e3))
            data.update(src=src.name, dst=dst.name,
                        throughput_mbyte_s=data["payload_bytes"] / data["elapsed_s"] / 1e6)
            per_pair.append(data)
        if transport == "tcp":      # a TCP server prints what it paid once its client has gone
            for data, server in zip(per_pair, servers):
                for key, value in server.result(timeout=30).items():
                    data[key] = data.get(key, 0) + value
    elapsed = max(p["elapsed_s"] for p in per_pair)
    total = sum(p["payload_bytes"] for p in per_pair)
    return {"payload_bytes": total, "elapsed_s": elapsed,
            "throughput_mbyte_s": total / elapsed / 1e6,
            "round_trips": sum(p["round_trips"] for p in per_pair),
            "rtt_ms_median": sorted(p["rtt_ms_median"] for p in per_pair)[len(per_pair) // 2],
            "per_pair": per_pair}


def buffer_bytes(point: dict) -> int:
    """The most the point's agents can hold at once: each side of a pair buffers up to its
    tokens in flight coming in and going out."""
    return point["pairs"] * 2 * 2 * point["tokens_in_flight"] * point["token_size"]


def check(spec, point: dict, _settings: dict) -> None:
    place(spec, point["pairs"], point["placement"], point.get("pairs_list"))
    need, avail = buffer_bytes(point), mem_available_bytes()
    if avail is not None and need > avail // 2:   # bounded before a single buffer is filled
        raise BadInput(f"{point['pairs']} pairs x {point['tokens_in_flight']} tokens in flight x "
                       f"{human_size(point['token_size'])}B could buffer {need / 2**30:.1f} GiB, more than "
                       f"half of this machine's {avail / 2**30:.1f} GiB available; use a smaller "
                       "--token-size or fewer --tokens-in-flight or --pairs")
    if point.get("transport") == "udp" and (point["token_size"] > MAX_DATAGRAM or point["tokens_in_flight"] != 1):
        raise BadInput(f"--transport udp sends each token as one datagram, 1 in flight: use --token-size "
                       f"{MAX_DATAGRAM} or less and --tokens-in-flight 1 (got {point['token_size']} B, "
                       f"{point['tokens_in_flight']} in flight)")


def prepare(tb, _points: list[dict], _settings: dict) -> WarmAgents:
    """The network's token agents, one per node on first use, ended before teardown."""
    agents = WarmAgents(AGENT, "token agent")
    tb.on_teardown(agents.close)
    return agents


def run_point(tb, agents: WarmAgents, point: dict, settings: dict) -> dict:
    pairs = place(tb.spec, point["pairs"], point["placement"], point.get("pairs_list"))
    hosts = [(tb.host(p.src), tb.host(p.dst)) for p in pairs]
    exchanges = settings.get("exchanges")
    res = run_exchange(hosts, point["token_size"], point["tokens_in_flight"],
                       duration=None if exchanges else settings["duration"], exchanges=exchanges,
                       transport=point["transport"], agents=agents)
    # a pair keeps T tokens of S bytes outstanding, and each token turns around only once its last
    # frame has crossed (its wire time and both hosts' per-packet time, on the medium engine): its
    # path idles then unless the other T - 1 tokens still hold at least two full frames per wire
    # the pair stripes over. Only then is something always queued for the path (the
    # stalled-transport gate's premise); a lone token in flight never keeps it so.
    others = (point["tokens_in_flight"] - 1) * point["token_size"]
    flows = [{"path": p.path, "via": p.via, "bytes": pp["payload_bytes"], "start": pp["start"], "end": pp["end"],
              "backlogged": others >= 2 * MSS * max(len(seg) for seg in p.path)}
             for p, pp in zip(pairs, res["per_pair"])]
    return {**res, "flows": flows, "pairs_placed": [p.describe() for p in pairs],
            "wire_load": wire_load(pairs)}


# a point's own setup beyond its exchanges: servers and clients started from the warm agents, the
# start line, the servers' charges read back. Measured on this host (Debian 12, 2 cores, 2026-11-27,
# three full reproductions' timing records): 0.10-0.15 s on today's hosts, 0.2-0.33 s on a 1996 profile
SETUP_S = 0.2
ROUND_TRIP_STACK_S = 5e-4    # a round trip's time in the two stacks and agents (--exchanges)


def cost(spec, point: dict, settings: dict) -> float:
    """Seconds a point takes: its --duration, or its round trips each carrying the token both
    ways over the pair's share of its path; plus its setup."""
    if not settings.get("exchanges"):
        return settings["duration"] + SETUP_S
    pairs = place(spec, point["pairs"], point["placement"], point.get("pairs_list"))
    load = wire_load(pairs)
    rate = min(path_rate_bytes_s(spec, p.path, load) for p in pairs)
    per_round_trip = 2 * point["token_size"] / rate / point["tokens_in_flight"] + ROUND_TRIP_STACK_S
    return settings["exchanges"] * per_round_trip + SETUP_S


WORKLOAD = Workload(
    name="token", summary="the papers' token exchange (network throughput test)",
    axes=AXES, concurrent_pairs=True, topologies=TOPOLOGIES,
    figure=Figure("token exchange throughput", x="token_size", x_label="token size", x_scale="log2",
                  x_step="double", split_if_varying=tuple(s.name for s in SETTINGS if s.many and s.name != "token_size")),
    fields=FIELDS,
    check=check, run_point=run_point, prepare=prepare, cost=cost,
    label=lambda pt: f"{pt['pairs']} pairs {human_size(pt['token_size'])}B T={pt['tokens_in_flight']}"
                     + (" UDP" if pt.get("transport") == "udp" else ""))
