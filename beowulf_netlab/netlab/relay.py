"""Software routing: a relay node forwards other nodes' packets.

The forwarding itself is the kernel's (ip_forward=1 in the relay's namespace,
host routes via the relay from `topologies.mesh`). This module adds what a
relay costs beyond that, on kernels with netem: every packet a relay forwards
(source address not its own) waits `delay_ms` in a netem class on the NIC it
leaves by; the relay's own packets take an undelayed class. The root is not
rate-limited: the shared wire downstream charges the rate.
"""
from __future__ import annotations

from beowulf_netlab.netlab.shaping import burst_bytes, htb_root_cmds, netem_args, rate_arg
from beowulf_netlab.topologies.spec import QUEUE_PACKETS, Impairment

UNLIMITED_MBIT = 10_000.0


def relay_egress_cmds(dev: str, own_ip: str, delay_ms: float,
                      queue_packets: int = QUEUE_PACKETS) -> list[list[str]]:
    """tc argv for one relay NIC (see module doc)."""
    burst = str(burst_bytes(UNLIMITED_MBIT))
    cls = ["htb", "rate", rate_arg(UNLIMITED_MBIT / 2), "ceil", rate_arg(UNLIMITED_MBIT),
           "burst", burst, "cburst", burst]
    return htb_root_cmds(dev, UNLIMITED_MBIT, "10") + [
        ["tc", "class", "add", "dev", dev, "parent", "1:1", "classid", "1:10", *cls],
        ["tc", "qdisc", "add", "dev", dev, "parent", "1:10", "handle", "10:",
         "pfifo", "limit", str(queue_packets)],
        ["tc", "class", "add", "dev", dev, "parent", "1:1", "classid", "1:20", *cls],
        ["tc", "qdisc", "add", "dev", dev, "parent", "1:20", "handle", "20:",
         *netem_args(Impairment(delay_ms=delay_ms), queue_packets)],
        ["tc", "filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1",
         "u32", "match", "ip", "src", f"{own_ip}/32", "flowid", "1:10"],
        ["tc", "filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "2",
         "u32", "match", "u32", "0", "0", "flowid", "1:20"],
    ]
