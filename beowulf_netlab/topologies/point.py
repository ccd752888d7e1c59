"""The network part of a measured point: its fields, declared beside the spec that makes them.

Every point records the network it ran on (`network_fields`); these declarations
say what each of those keys is (core.fields): the settings that name a network
(run.derive matches networks by them), what the host resolved them to (the
switch, bonding and wire implementations), and their place in the results schema
and CSV (run.results makes both from them).
"""
from __future__ import annotations

from typing import Any

from beowulf_netlab.core.fields import CSV_LAST, RESOLVED, Field
from beowulf_netlab.core.settings import fields
from beowulf_netlab.topologies.hardware import hardware_of
from beowulf_netlab.topologies.settings import NETWORK, NETWORK_SETTINGS
from beowulf_netlab.topologies.spec import NetworkSpec

NETWORK_FIELDS = (
    *fields(NETWORK_SETTINGS),
    Field("contention_default", "string", "the hardware profile's collisions default when the point ran "
          "(beowulf_netlab/hardware/<name>.json `collisions`): a point whose contention equals it ran "
          "as its machine is modelled by default (the report's view of the paper's "
          "hardware); v1-v4 documents read as off, the default then", RESOLVED, required=True,
          schema={"enum": ["off", "on"]}, default="off"),
    Field("bonding_impl", ("string", "null"), "kernel-balance-rr | nft-numgen-rr | null (not bonded)", RESOLVED),
    Field("switch_impl", ("string", "null"), "ovs-kernel | ovs-user | lxbr | null (no switches)", RESOLVED),
    Field("wire_impl", "string", "engine (the frame-timed medium engine, netlab.medium) | tc (bridge + HTB: "
          "bandwidth only, a lone frame pays no wire time); absent in documents older than it", RESOLVED,
          csv=CSV_LAST),
)


def network_fields(spec: NetworkSpec) -> dict[str, Any]:
    """The network part of a point's configuration, as points record it: every declared setting,
    unset ones at their declared value (0: no gap, no latency, queues as built)."""
    m = spec.machine
    return {"topology": spec.topology, "rate_mbit": spec.params["rate_mbit"],
            "channels": spec.params.get("channels"), "nodes": len(spec.nodes),
            "hardware": hardware_of(spec), "contention": "on" if m.contention else "off",
            "contention_default": "on" if m.contention_default else "off",
            "time_scale": m.time_scale, "tx_gap_us": m.tx_gap_us, "card_latency_us": m.card_latency_us,
            "queue_packets": m.queue_packets or NETWORK["queue_packets"].default}
