"""The network part of a measured point: its fields, declared beside the spec that makes them.

Every point records the network it ran on (`network_fields`); these declarations
say what each of those keys is (core.fields): the settings that name a network
(run.derive matches networks by them), what the host resolved them to (the
switch, bonding and wire implementations), and their place in the results schema
and CSV (run.results makes both from them).
"""
from __future__ import annotations

from typing import Any

from core.fields import CSV_BEFORE, RESOLVED, SETTING, Field
from topologies.hardware import hardware_of
from topologies.spec import NetworkSpec
from topologies.timescale import DEFAULT_TIME_SCALE

NETWORK_FIELDS = (
    Field("topology", "string", "topology preset the point ran on", SETTING, required=True, csv=CSV_BEFORE),
    Field("rate_mbit", "number", "wire rate, Mbit/s", SETTING, unit="Mbit/s", required=True, csv=CSV_BEFORE,
          schema={"exclusiveMinimum": 0}),
    Field("channels", ("integer", "null"), "wires per node on single-net (1) and bonded-dual-net; null on "
          "meshes", SETTING, csv=CSV_BEFORE),
    Field("nodes", "integer", "nodes in the network", SETTING, csv=CSV_BEFORE, schema={"minimum": 2}),
    Field("hardware", "string", "the hardware profile the nodes had (hardware/<name>.json; none = today's "
          "host); v1/v2 documents read as none", SETTING, required=True, csv=CSV_BEFORE),
    Field("contention", "string", "on: the shared wires charged CSMA/CD's average contention per frame "
          "and dropped a frame after 16 collisions (netlab/contention.py); off: perfect "
          "arbiters (v1/v2 documents read as off)", SETTING, required=True, csv=CSV_BEFORE,
          schema={"enum": ["off", "on"]}),
    Field("time_scale", "number", "D: the network ran D times slower than real (topologies/timescale.py); "
          "absent = 1. Every MB/s in the point is as measured, in scaled time", SETTING, csv=CSV_BEFORE,
          schema={"minimum": 1}),
    Field("tx_gap_us", "number", "every network card waited this long after each frame it sent before "
          "the next (its Tx-done interrupt; --tx-gap-us, else the hardware profile's card), us in real "
          "time; absent = 0, no gap", SETTING, unit="us", csv=CSV_BEFORE, schema={"minimum": 0}),
    Field("card_latency_us", "number", "each network card's own latency per packet at each end, beyond "
          "its CPU's per-packet cost (--card-latency-us, else the hardware profile's card), us in real time; "
          "absent = 0", SETTING, unit="us", csv=CSV_BEFORE, schema={"minimum": 0}),
    Field("queue_packets", "integer", "the queues a packet waited in (each card's transmit queue on its "
          "wire, each node's CPU budget backlog), frames, when a sensitivity variant set it; absent = as built "
          "(100 on every wire, the profile's budget queue)", SETTING, csv=CSV_BEFORE, schema={"minimum": 2}),
    Field("contention_default", "string", "the hardware profile's collisions default when the point ran "
          "(hardware/<name>.json `collisions`): a point whose contention equals it ran "
          "as its machine is modelled by default (the report's view of the paper's "
          "hardware); v1-v4 documents read as off, the default then", RESOLVED, required=True,
          schema={"enum": ["off", "on"]}),
    Field("bonding_impl", ("string", "null"), "kernel-balance-rr | nft-numgen-rr | null (not bonded)", RESOLVED),
    Field("switch_impl", ("string", "null"), "ovs-kernel | ovs-user | lxbr | null (no switches)", RESOLVED),
    Field("wire_impl", "string", "engine (the frame-timed medium engine, netlab.medium) | tc (bridge + HTB: "
          "bandwidth only, a lone frame pays no wire time); absent in documents older than it", RESOLVED),
)


def network_fields(spec: NetworkSpec) -> dict[str, Any]:
    """The network part of a point's configuration, as points record it."""
    return {"topology": spec.topology, "rate_mbit": spec.params["rate_mbit"],
            "channels": spec.params.get("channels"), "nodes": len(spec.nodes),
            "hardware": hardware_of(spec), "contention": "on" if spec.machine.contention else "off",
            "contention_default": "on" if spec.machine.contention_default else "off",
            **({"time_scale": spec.machine.time_scale} if spec.machine.time_scale != DEFAULT_TIME_SCALE else {}),
            **({"tx_gap_us": spec.machine.tx_gap_us} if spec.machine.tx_gap_us else {}),
            **({"card_latency_us": spec.machine.card_latency_us} if spec.machine.card_latency_us else {}),
            **({"queue_packets": spec.machine.queue_packets} if spec.machine.queue_packets else {})}
