"""This host's own path through a lone round trip, timed on each built network and taken off the
medium engine's per-packet delays, so that a 1996 round trip reads the model's time on any host.

Why. The engine delays each frame by the sender's and the receiver's modelled CPU time for it
(netlab.medium), but a round trip also crosses what this host does outside the engine: the
namespaces' TCP stacks, the CPU budget's IFB passes, the veths, the processes' wake-ups. That
came on top of the model (here 19-37 us a round trip on one wire or a bond, about 95 through the
16-node bonded switched mesh's software switches; stop 40's full run read 60), so a lone round
trip on the demonstration profile read 3-10 % over what its constants charge, and a faster host
would have read less: the same profile, other numbers.

How. Before any point, the token agent exchanges PROBE_EXCHANGES 1-byte messages between two
nodes of one wire, one in flight, paying their charges as any exchange does (the agents count
their own wake-ups and code inside each message's cost, beowulf_netlab/workloads/charge.py, so only what the
host adds outside the charges is left: the send's way into the engine), after a few exchanges
that let every ARP cache and switch learn the pair's addresses. The agent times each round trip; the engine
reports how long it held each frame it delivered to a port, from the frame's arrival (the
kernel's timestamp) to its release there (`held_ns` per port). A frame's way through the engine
is its deliveries to the other node's port and to each switch port it crosses (a bonded pair of
the switched mesh sends every other frame through a switch), so a frame's hold is the sum of
those deliveries' over the frames the pair put in (`hold_ports`: a hub repeats every frame to
its switch port too, which the switch drops when both nodes sit on that wire: that port is no
crossing), and what a round trip spent outside it,
    h = shortest round trip - 2 x mean one-way hold - the four messages' modelled cost,
is this host's own path (a switch's forwarding included) at its quickest: only what the host
always adds comes off, so no lone round trip is shorter than the model's (an earlier version took
the median off, and half the lone round trips then read under the model's floor); the median's
path is recorded beside it. The engine is then restarted with
each node's per-packet delay less h / 4 (a round trip passes four: two sends, two receives),
never below zero, and the network records what was measured and taken (`host_path` in its
environment). Not on the frames a relay forwards: h is an endpoint's path (sockets, agents), and
a kernel forwarding a frame takes less, so a relayed round trip keeps its relay's whole modelled
time (netlab.medium: fwd_delay_ns) and the relay's own host path comes on top, never under.

Why the round-trip calibration can still fail. h is measured outside the engine, from the
engine's own hold times: a delay the engine failed to apply shortens its holds, not h, so the
calibration (whose target is the model's whole time, beowulf_netlab/claims/calibrations.json) still misses.
What h cannot remove: a host slower under load than when idle (the lag gates judge that), and
paths the probe did not take (a relay's forwarding, which therefore reads a little over its model).
"""
from __future__ import annotations

from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.netlab.medium import one_way_hold_us
from beowulf_netlab.topologies.timescale import host_cost
from beowulf_netlab.workloads import token

PROBE_EXCHANGES = 200      # about 0.25-0.4 s of 1996 round trips; the median needs no more
WARM_EXCHANGES = 3         # before the probe: ARP and the switches learn the pair's addresses
PROBE_PORT = 6990          # below the token workload's ports
SUBTRACT, KEEP = "subtract", "keep"


def probe_pair(tb) -> tuple[str, str] | None:
    """Two nodes with a modelled per-packet delay on one wire of the engine (the first such
    wire, its first two nodes), or None."""
    by_wire: dict[str, list[str]] = {}
    for _intf, wire, node in tb.engine_ports:
        cost = host_cost(tb.spec, tb.spec.node(node)) if node is not None else None
        if cost is not None and cost.per_packet_us > 0 and node not in by_wire.setdefault(wire, []):
            by_wire[wire].append(node)
    return next(((nodes[0], nodes[1]) for nodes in by_wire.values() if len(nodes) >= 2), None)


def per_pass_us(rtt_us: float, hold_us: float, smallest_delay_us: float,
                charged_us: float = 0.0) -> tuple[float, float]:
    """This host's own path per round trip (rtt - 2 x hold - the charges' modelled time), and
    what each of a round trip's four delays is shortened by: a quarter of it, never below zero
    nor above the smallest modelled delay (pure)."""
    path = rtt_us - 2 * hold_us - charged_us
    return path, min(max(path / 4, 0.0), smallest_delay_us)


def hold_ports(engine_ports: list[tuple[str, str, str | None]], pair: tuple[str, str]) -> tuple[list[str], list[str]]:
    """The pair's own ports (the senders) and the ports a frame between them is delivered to on
    its way (the senders again, as receivers, and the switch ports of the wires only one of them
    sits on: where a frame crosses a switch). A switch port on a wire both sit on receives each of
    their frames too (a hub repeats it), but its switch drops it there: not part of the way."""
    senders = [intf for intf, _w, node in engine_ports if node in pair]
    wires = {w: {node for _i, w2, node in engine_ports if w2 == w and node in pair}
             for _i, w, node in engine_ports if node in pair}
    crossed = {w for w, nodes in wires.items() if len(nodes) < 2}
    return senders, senders + [intf for intf, w, node in engine_ports if node is None and w in crossed]


def subtract_host_path(tb) -> dict | None:
    """Time this host's own path on the built network and take it off the engine's per-packet
    delays (module doc); the record, also kept as tb.host_path; None where nothing applies
    (no engine, no modelled delay, or --host-path keep)."""
    if tb.medium is None or tb.opts.host_path != SUBTRACT:
        return None
    pair = probe_pair(tb)
    if pair is None:
        return None
    a, b = (tb.host(n) for n in pair)
    senders, receivers = hold_ports(tb.engine_ports, pair)
    try:
        token.run_exchange([(a, b)], size=1, tokens=1, exchanges=WARM_EXCHANGES, base_port=PROBE_PORT)
        before = tb.medium.snapshot(max_age_s=0)
        result = token.run_exchange([(a, b)], size=1, tokens=1, exchanges=PROBE_EXCHANGES,
                                    base_port=PROBE_PORT + 1)
    except RuntimeFailure as e:   # the network still runs, with the path on top, and says why
        tb.host_path = {"pair": f"{pair[0]}->{pair[1]}", "path_us": None, "less_per_pass_us": 0.0,
                        "why": f"the probe failed ({e}): nothing taken off"}
        return tb.host_path
    hold = one_way_hold_us(before, tb.medium.snapshot(max_age_s=0), senders, receivers)
    rtt = min(p["rtt_ms_min"] for p in result["per_pair"]) * 1e3
    median = result["rtt_ms_median"] * 1e3
    smallest = min(c.per_packet_us for n in tb.spec.nodes
                   if (c := host_cost(tb.spec, n)) is not None and c.per_packet_us > 0)
    # each end sends once and receives once a round trip, each at its per-message cost
    charged = sum(2 * c.per_message_us for n in pair if (c := host_cost(tb.spec, tb.spec.node(n))) is not None)
    record = {"pair": f"{pair[0]}->{pair[1]}", "round_trips": result["round_trips"],
              "rtt_us": round(rtt, 1), "rtt_median_us": round(median, 1),
              "hold_us": None if hold is None else round(hold, 1), "charged_us": round(charged, 1)}
    if hold is None:
        tb.host_path = {**record, "path_us": None, "less_per_pass_us": 0.0,
                        "why": "the engine held no frame of the probe: nothing taken off"}
        return tb.host_path
    path, less = per_pass_us(rtt, hold, smallest, charged)
    tb.retime_medium(round(less * 1e3))
    tb.host_path = {**record, "path_us": round(path, 1), "median_path_us": round(median - 2 * hold - charged, 1),
                    "less_per_pass_us": round(less, 1)}
    return tb.host_path

