"""A node's CPU budget, enforced by the kernel: the host cost of a hardware profile.

Every packet a node sends, receives or forwards passes one IFB device inside
the node's namespace (`cpu0`): u32 filters on each NIC's clsact hooks
redirect there every frame it sends and every frame its card accepts (to its
address or a group: a hub repeats every frame to every card, and the card, not
the CPU, drops the others). The IFB's HTB class runs at the
budget's byte rate (1 / per_byte_ns) and a size table adds the per-packet
cost as bytes (per_packet_us / per_byte_ns), so a packet of L bytes occupies
the CPU for per_packet_us + L x per_byte_ns, and packets wait their turn:
- a sender is slowed by its own sends and by the ACKs it receives;
- a relay pays for a forwarded packet twice (received, then sent) from the
  same budget as its own traffic, so routing competes with its own work;
- the medium engine (netlab.medium) delays each frame by the sender's and the
  receiver's per_packet_us + its bytes x per_byte_ns, the time the budget
  charges it, and a relay's forwarding copy on the frames it forwards: a lone packet pays its
  CPU time though HTB lets it go at the start;
- on kernels with netem, a netem leaf also delays every packet by
  per_packet_us (the latency a lone packet saw); without netem or the engine a
  lone packet after idle time passes at once (HTB charges after sending), which
  is what `latency_modelled` (in each network's environment, netlab.testbed) records.
A relay whose profile charges a forwarding copy (Linux 1.2's ip_forward copies
every packet: relay_copy_per_byte_ns) sorts its packets into two leaves of the
budget: its own (from or to its address) and forwarded ones, whose leaf may use
the budget only at forward_budget_mbit, the rate at which per_byte_ns plus half
the copy per pass leaves it. That is exact while the relay only forwards (the
papers' relays); while it also sends its own traffic, forwarded packets draw on
the shared budget at the plain rate (HTB charges a parent the same bytes for
every child), so the copy is under-charged then.
The charge channel: work that is not a packet (a TCP send's or receive's own
cost, a disk transfer the CPU moves) is paid through the same queue, in order:
loopback datagrams to CHARGE_ADDR are redirected from `lo`'s egress into the
budget too, and come back to their sender once the budget has passed them. An
agent pays c ns by sending such a datagram of c / per_byte_ns bytes (less the
size table's per-packet bytes and its headers, charge_overhead_bytes) to
itself, waiting for it and then for its cost (beowulf_netlab/workloads/charge.py), so a busy
CPU delays the work and the work delays the node's packets queued behind it:
coupled both ways.
Not charged: other loopback traffic. The clsact hook runs before the NIC's root
qdisc, so a relay's netem tree (netlab.relay) still applies after the CPU.
"""
from __future__ import annotations

from beowulf_netlab.netlab.shaping import netem_args, rate_arg
from beowulf_netlab.topologies.ethernet import delivery_time_s
from beowulf_netlab.topologies.spec import Impairment
from beowulf_netlab.topologies.hardware import HostCost

IFB = "cpu0"
MATCH_ALL = ["u32", "match", "u32", "0", "0"]
CHARGE_ADDR = "127.0.0.99"     # loopback datagrams to it pass the budget (the charge channel)
CHARGE_HEADERS = 14 + 20 + 8   # a charge datagram's bytes beyond its payload: lo's Ethernet, IP, UDP
CHARGE_PIECE_US = 1000         # a charge datagram's largest cost: a packet waits at most this behind one


def charge_overhead_bytes(cost: HostCost) -> int:
    """Budget bytes a charge datagram costs beyond its payload: the size table's per-packet
    bytes and the headers the budget counts (its smallest charge)."""
    return cost.packet_bytes + CHARGE_HEADERS


def charge_arg(cost: HostCost, message_ns: float = 0.0, disk_ns_per_byte: float = 0.0,
               latency_us: float = 0.0) -> list[str]:
    """An agent's --charge argument: ADDR,OVERHEAD,MESSAGE,DISK,PIECE,NS,LAT, the costs as budget bytes
    (per TCP send or completed receive; per disk byte moved; the largest datagram: CHARGE_PIECE_US
    of the budget), so that a time-scaled budget (whose per-byte cost is D times higher, as are
    these costs) charges them D times longer; NS is the budget's ns per byte (the payer's wait),
    LAT the budget's netem delay per packet in us (latency_us, 0 without netem), which the payer's
    wait includes already."""
    message = message_ns / cost.per_byte_ns
    disk = disk_ns_per_byte / cost.per_byte_ns
    if message <= 0 and disk <= 0:
        return []
    overhead = charge_overhead_bytes(cost)
    # at least two datagrams' overhead, at most one UDP datagram (65507 bytes of payload)
    piece = min(max(round(CHARGE_PIECE_US * 1e3 / cost.per_byte_ns), 2 * overhead), 65507 + overhead)
    return ["--charge", f"{CHARGE_ADDR},{overhead},{message:.1f},{disk:.4f},{piece},"
                        f"{cost.per_byte_ns:g},{latency_us:g}"]


def burst_bytes(cost: HostCost) -> int:
    """About one full packet's charge: no banked idle time beyond one packet."""
    return cost.packet_bytes + 1600


def accepted_frames(mac: str) -> list[list[str]]:
    """u32 selectors of the frames a card whose address is `mac` accepts: addressed to it, or to a
    group (broadcast, multicast: the destination's first bit). On the ingress hook the Ethernet
    header lies 14 bytes before the network header the u32 offsets count from."""
    b = [int(x, 16) for x in mac.split(":")]
    if len(b) != 6:
        raise ValueError(f"not a MAC address: {mac!r}")
    # (u32 wants a u32's offset a multiple of 4, a u16's of 2)
    return [["u32", "match", "u16", "0x%02x%02x" % tuple(b[:2]), "0xffff", "at", "-14",
             "match", "u32", "0x%02x%02x%02x%02x" % tuple(b[2:]), "0xffffffff", "at", "-12"],
            ["u32", "match", "u8", "0x01", "0x01", "at", "-14"]]


def cpu_cmds(nics: list[str], cost: HostCost, netem: bool, relay_address: str | None = None,
             macs: dict[str, str] | None = None) -> list[list[str]]:
    """tc/ip argv, run inside the node's namespace, in order (see module doc). relay_address:
    the node forwards others' packets and this is its own address (the forwarding copy's leaf).
    macs: nic -> its address: a frame arriving there is charged only if the card accepts it
    (a hub repeats every frame to every card, and a card filters others' in hardware, as the
    1996 cards did: its CPU never saw them); without it every arriving frame is charged."""
    burst = str(burst_bytes(cost))
    rate = rate_arg(cost.budget_mbit)
    r2q = str(max(1, int(cost.budget_mbit * 1e6 / 8 / (cost.packet_bytes + 1600))))
    leaf = netem_args(Impairment(delay_ms=cost.per_packet_us / 1000), cost.queue_packets) if netem \
        else ["pfifo", "limit", str(cost.queue_packets)]
    copying = bool(relay_address and cost.relay_copy_per_byte_ns > 0)
    cmds = [
        ["ip", "link", "add", IFB, "type", "ifb"],
        ["ip", "link", "set", IFB, "up"],
        # tc refuses an all-zero size table: a profile with no per-packet cost gets none
        ["tc", "qdisc", "add", "dev", IFB, "root", "handle", "1:",
         *(["stab", "overhead", str(cost.packet_bytes)] if cost.packet_bytes else []),
         "htb", "default", "10" if copying else "1", "r2q", r2q],
        ["tc", "class", "add", "dev", IFB, "parent", "1:", "classid", "1:1", "htb", "rate", rate,
         "ceil", rate, "burst", burst, "cburst", burst],
    ]
    if not copying:
        cmds.append(["tc", "qdisc", "add", "dev", IFB, "parent", "1:1", "handle", "10:", *leaf])
    else:
        # two leaves borrowing the whole budget: the node's own packets, and forwarded ones at the
        # rate the copy leaves (their assured rates are nominal: the parent is the budget)
        floor = rate_arg(cost.budget_mbit / 100)
        fwd = rate_arg(cost.forward_budget_mbit)
        for classid, ceil, handle in (("1:10", rate, "10:"), ("1:20", fwd, "20:")):
            cmds += [["tc", "class", "add", "dev", IFB, "parent", "1:1", "classid", classid, "htb",
                      "rate", floor, "ceil", ceil, "burst", burst, "cburst", burst],
                     ["tc", "qdisc", "add", "dev", IFB, "parent", classid, "handle", handle, *leaf]]
        for field, address in (("src", relay_address), ("dst", relay_address), ("dst", CHARGE_ADDR)):
            # from or to the node itself, or its own charges: its own; any other IP: forwarded
            cmds.append(["tc", "filter", "add", "dev", IFB, "parent", "1:", "protocol", "ip", "prio", "1",
                         "u32", "match", "ip", field, f"{address}/32", "flowid", "1:10"])
        cmds.append(["tc", "filter", "add", "dev", IFB, "parent", "1:", "protocol", "ip", "prio", "2",
                     "u32", "match", "u32", "0", "0", "flowid", "1:20"])
    for nic in nics:
        cmds.append(["tc", "qdisc", "add", "dev", nic, "clsact"])
        mac = (macs or {}).get(nic)
        ingress = accepted_frames(mac) if mac else [MATCH_ALL]
        for hook, selectors in (("ingress", ingress), ("egress", [MATCH_ALL])):
            for selector in selectors:
                cmds.append(["tc", "filter", "add", "dev", nic, hook, "protocol", "all", "prio", "1",
                             *selector, "action", "mirred", "egress", "redirect", "dev", IFB])
    # the charge channel: only datagrams to CHARGE_ADDR leave lo through the budget
    cmds += [["tc", "qdisc", "add", "dev", "lo", "clsact"],
             ["tc", "filter", "add", "dev", "lo", "egress", "protocol", "ip", "prio", "1", "u32", "match",
              "ip", "dst", f"{CHARGE_ADDR}/32", "action", "mirred", "egress", "redirect", "dev", IFB]]
    return cmds


def busy_fraction(sent_bytes: int, seconds: float, cost: HostCost) -> float:
    """How much of the budget the charged packets used over `seconds`: from the
    IFB's counters (bytes as the size table counts them, overhead included)."""
    if seconds <= 0:
        return 0.0
    return sent_bytes * cost.per_byte_ns / 1e9 / seconds


TCP_IP_ETH_HEADERS = 14 + 20 + 20   # a 1996 TCP segment's headers as the budget counts them (no options)


RELAY, SWITCH = "relay", "switch"   # what joins two segments of a path (workloads.placement)


def round_trip_us(cost: HostCost, rate_mbit: float, payload: int = 1, card_latency_us: float = 0.0,
                  via: tuple[str, ...] = (), full_duplex: bool | tuple[bool, ...] = False) -> float:
    """What the model should charge one lone TCP message and its reply, from the profile's
    constants alone (a host-cost calibration's target, beowulf_netlab/claims/calibrations.json): each way, the
    sender's and the receiver's per-message cost (the charge channel), their per-packet cost and
    the segment's bytes at per_byte_ns (the budget), the frame's delivery time on each segment it
    crosses, and each end's card latency (the medium engine's, card_latency_us). No ACK of its own:
    each reply carries it. The delivery time (topologies.ethernet.delivery_time_s) is when the
    engine hands a lone frame to its receiver: its carrier and the segment's path delay (cable,
    and a hub's repeater), not its wire time (frame_time_s): the gap after it belongs to the next
    frame. `via` names what joins the path's segments in turn (one wire: none): a switch stores and
    forwards, so each adds the next segment's delivery time and nothing else (its ports have no
    latency and no gap in the engine); a relay (the routed mesh's software router) adds that, a
    receive and a send on its own CPU and card (per-packet cost, the bytes at per_byte_ns, the
    card's latency twice) and Linux 1.2's forwarding copy (relay_copy_per_byte_ns). The
    per-message cost is the endpoints' alone: a relay's kernel forwards without a process.
    full_duplex: whether the segments are full-duplex ports (no repeater), all of them or each in
    path order (len(via) + 1). Real time: a time-scaled caller multiplies by D."""
    segments = len(via) + 1
    duplex = tuple(full_duplex) if isinstance(full_duplex, (tuple, list)) else (bool(full_duplex),) * segments
    if len(duplex) != segments:
        raise ValueError(f"a path of {segments} segment(s) needs {segments} duplex flag(s), not {len(duplex)}")
    l2 = payload + TCP_IP_ETH_HEADERS
    per_pass = cost.per_packet_us + l2 * cost.per_byte_ns / 1e3 + card_latency_us
    one_way = 2 * cost.per_message_us + 2 * per_pass + delivery_time_s(l2, rate_mbit, duplex[0]) * 1e6
    for hop, fd in zip(via, duplex[1:]):
        if hop not in (RELAY, SWITCH):
            raise ValueError(f"a path's segments are joined by a {RELAY} or a {SWITCH}, not {hop!r}")
        one_way += delivery_time_s(l2, rate_mbit, fd) * 1e6 \
            + (2 * per_pass + l2 * cost.relay_copy_per_byte_ns / 1e3 if hop == RELAY else 0.0)
    return 2 * one_way
