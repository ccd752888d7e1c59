"""The TCP a point's nodes ran and what it did, as the point records it (`tcp`): declared here,
beside what reads it from the nodes (netlab.node), so the results schema is made from it.

Its settings part is the hardware profile's tcp block (topologies.hardware: the keys and what
each means), read back from every namespace; its counters part is /proc/net's, summed over the
nodes over the point by the runner. Pure data: no namespace is touched here.
"""
from __future__ import annotations

from beowulf_netlab.core.fields import Field, prop
from beowulf_netlab.topologies.hardware import SCHEMA as PROFILE_SCHEMA, TCP_KEYS

TCP_COUNTERS = {   # /proc/net/{snmp,netstat} field -> the key results keep
    ("Tcp", "RetransSegs"): "retrans_segs", ("TcpExt", "TCPTimeouts"): "timeouts",
    ("TcpExt", "TCPLossProbes"): "loss_probes", ("TcpExt", "TCPFastRetrans"): "fast_retrans",
    ("TcpExt", "TCPSlowStartRetrans"): "slow_start_retrans",
}

_PROFILE_TCP = PROFILE_SCHEMA["properties"]["tcp"]["properties"]

TCP_RECORD = Field(
    "tcp", ("object", "null"), "the TCP the nodes ran, as read back from their namespaces (the hardware "
    f"profile's tcp block: {', '.join(TCP_KEYS)}; the RTO x D on a time-scaled network; documents "
    "before 2026-11-24 lack the last five) and what it did over the point, summed over the nodes: "
    f"{', '.join(TCP_COUNTERS.values())}. null: unrecorded (documents before v4 ran the host's TCP)",
    required=True, schema={"properties": {
        **{k: {"description": _PROFILE_TCP[k]["description"]} for k in TCP_KEYS},
        **{k: prop("integer", f"{k.replace('_', ' ')} over the point, all nodes", minimum=0)
           for k in TCP_COUNTERS.values()}}})
