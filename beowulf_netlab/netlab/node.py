"""Beowulf nodes as a Mininet Host subclass: NICs, bonding, forwarding, routes.

Everything a node sets lives inside its own network namespace (sysctls,
routes, nft tables, bond devices), so it disappears with the namespace.
Every command that configures a node goes through the testbed's CommandLog,
so the results record the exact argv applied to each node.
"""
from __future__ import annotations

import subprocess

from mininet.link import Intf
from mininet.node import Host
from mininet.util import moveIntf

from beowulf_netlab.core.command import CommandLog, run
from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.core.values import parse_time_ms
from beowulf_netlab.netlab.bond import kernel_bond_cmds, nft_bond_cmds
from beowulf_netlab.netlab.hostcost import IFB as CPU_IFB, charge_arg, cpu_cmds
from beowulf_netlab.netlab.nic import tx_gap_cmds
from beowulf_netlab.netlab.relay import relay_egress_cmds
from beowulf_netlab.netlab.shaping import class_stats, offload_off_cmd, one_frame_per_skb_cmd
from beowulf_netlab.netlab.tcpstat import TCP_COUNTERS
from beowulf_netlab.topologies.spec import QUEUE_PACKETS, SUBNET

NS_SYSCTLS = {
    "net.ipv6.conf.all.disable_ipv6": "1",      # no NDP/MLD chatter charged to the wires
    "net.ipv6.conf.default.disable_ipv6": "1",
    "net.ipv4.conf.all.rp_filter": "0",          # bonded and routed replies arrive on any NIC
    "net.ipv4.conf.default.rp_filter": "0",
    "net.ipv4.conf.all.send_redirects": "0",     # a relay must keep relaying, not redirect
    "net.ipv4.conf.all.accept_redirects": "0",
    # Measurement hygiene, every view: a new connection must not inherit the ssthresh and RTT
    # that an earlier point's connection to the same peer left in the route cache.
    "net.ipv4.tcp_no_metrics_save": "1",
}


def cpu_counters(hosts) -> dict[str, tuple[int, int] | None]:
    """node -> (charged bytes, packets) of its CPU budget, for the nodes that have one, read
    in one process (a point reads every costed node twice: 32 spawns on 16 nodes otherwise)."""
    costed = [h for h in hosts if h.host_cost is not None]
    if not costed:
        return {h.name: None for h in hosts}
    script = ('for p in "$@"; do echo "@@ $p"; mnexec -a "$p" tc -s class show dev %s; done' % CPU_IFB)
    text = run(["sh", "-c", script, "sh", *(str(h.pid) for h in costed)], check=False)
    by_pid = {}
    for block in text.split("@@ ")[1:]:
        pid, _, rest = block.partition("\n")
        by_pid[pid.strip()] = class_stats(rest).get("1:1")
    out: dict[str, tuple[int, int] | None] = {h.name: None for h in hosts}
    for h in costed:
        budget = by_pid.get(str(h.pid))
        out[h.name] = (budget["bytes"], budget["packets"]) if budget else None
    return out


class BondIntf(Intf):
    """The bond device, registered with Mininet so `b0 ping b1` resolves to it."""

    def config(self, **_params):
        return {}


class BeowulfHost(Host):
    """A node. Params (from the topology): bonded, forwarding, routes
    [(dst, nic, via)], bonding_impl ('kernel-balance-rr' | 'nft-numgen-rr'),
    forward_delay_ms (a relay holds packets it forwards this long), host_cost
    (a hardware profile's CPU budget, netlab.hostcost; cpu_netem adds its
    per-packet latency), rto_min_ms (TCP's minimum RTO on every route), tcp
    (topologies.hardware.TcpSettings: set in the namespace, never the host's), tx_gaps
    [(rate_mbit, gap bytes)] per NIC (netlab.nic: one frame in flight), log."""

    def __init__(self, name: str, bonded: bool = False, forwarding: bool = False,
                 routes=(), bonding_impl: str | None = None, forward_delay_ms: float = 0.0,
                 host_cost=None, cpu_netem: bool = False, rto_min_ms: float | None = None,
                 tcp=None, log: CommandLog | None = None, tx_gaps=(), **params):
        self.host_cost = host_cost
        self.tx_gaps = list(tx_gaps)
        self.tcp = tcp
        self.rto_min_ms = rto_min_ms
        self.cpu_netem = cpu_netem
        self.bonded = bonded
        self.forwarding = forwarding
        self.routes = list(routes)
        self.bonding_impl = bonding_impl
        self.forward_delay_ms = float(forward_delay_ms)
        self.log = log or CommandLog()
        self.bond_intf: BondIntf | None = None
        self.address = params.get("ip", "").split("/")[0]
        Host.__init__(self, name, **params)

    def charge_args(self, per_message: bool = True, disk_ns_per_byte: float = 0.0) -> list[str]:
        """An agent's --charge on this node (netlab.hostcost's charge channel): its TCP messages'
        cost (per_message), its disk bytes' (disk_ns_per_byte); nothing without a CPU budget."""
        cost = self.host_cost
        if cost is None:
            return []
        return charge_arg(cost, cost.per_message_us * 1e3 if per_message else 0.0, disk_ns_per_byte,
                          cost.per_packet_us if self.cpu_netem else 0.0)

    # -- commands inside the namespace, without the interactive shell --
    def _ns(self) -> tuple[str, ...]:
        return ("mnexec", "-a", str(self.pid))

    def run(self, cmd: list[str], stdin: str | None = None, check: bool = True) -> str:
        """Run a (read-only) command in this node's namespace; not recorded."""
        return run([*self._ns(), *cmd], stdin=stdin, check=check)

    def apply(self, cmd: list[str], stdin: str | None = None, check: bool = True) -> str:
        """Run a configuring command in this node's namespace and record it."""
        return self.log.run(self.name, cmd, stdin=stdin, check=check, prefix=self._ns())

    def read_file(self, path: str) -> str:
        """A /sys or /proc file as this node's namespace shows it. A /sys file is read
        through /proc/<pid>/root, without a process: a Mininet host's mount namespace
        has its own sysfs, which lists only the node's devices (/proc is the reader's)."""
        if path.startswith("/sys/"):
            try:
                with open(f"/proc/{self.pid}/root{path}") as f:
                    return f.read().strip()
            except OSError:
                pass
        return self.run(["cat", path]).strip()

    def popen_netns(self, cmd: list[str], **kwargs) -> subprocess.Popen:
        """Run in this node's network namespace but the host's mount namespace,
        where the node disks and the cgroup filesystem are mounted (a Mininet
        host's own mount namespace predates the disks and remounts /sys)."""
        return subprocess.Popen(["nsenter", f"--net=/proc/{self.pid}/ns/net", "--", *cmd], **kwargs)

    def ip_batch(self, cmds: list[list[str]]) -> None:
        """ip commands in this namespace in one process, each recorded (core.command)."""
        self.log.batch("ip", [(self.name, c) for c in cmds], prefix=self._ns())

    def tc_batch(self, cmds: list[list[str]]) -> None:
        """tc commands in this namespace in one process, each recorded (core.command)."""
        self.log.batch("tc", [(self.name, c) for c in cmds], prefix=self._ns())

    def nics(self) -> list[str]:
        """Interfaces that sit on wires, in NIC order (b0-eth0, b0-eth1, ...)."""
        return [i.name for i in sorted(self.intfList(), key=lambda i: self.ports[i])
                if i.name != "lo" and not isinstance(i, BondIntf)]

    # -- Mininet hooks --
    def addIntf(self, intf, port=None, moveIntfFn=moveIntf):
        if isinstance(intf, BondIntf):  # made inside the namespace; nothing to move
            moveIntfFn = lambda *a, **k: True  # noqa: E731
        return Host.addIntf(self, intf, port=port, moveIntfFn=moveIntfFn)

    def defaultIntf(self):
        return self.bond_intf or Host.defaultIntf(self)

    def config(self, **params):
        r = Host.config(self, **params)
        sysctls = dict(NS_SYSCTLS)
        sysctls["net.ipv4.ip_forward"] = "1" if self.forwarding else "0"
        nics = self.nics()
        for nic in nics:
            sysctls[f"net.ipv4.conf.{nic}.rp_filter"] = "0"
        if self.tcp is not None:
            sysctls.update(self.tcp.sysctls())
        self.apply(["sysctl", "-qw", *[f"{k}={v}" for k, v in sysctls.items()]])
        for nic in nics:
            self.apply(offload_off_cmd(nic), check=False)
        if self.forward_delay_ms:
            self.tc_batch([cmd for nic in nics for cmd in relay_egress_cmds(nic, self.address,
                                                                          self.forward_delay_ms)])
        if self.tx_gaps:
            queue = self.host_cost.queue_packets if self.host_cost else QUEUE_PACKETS
            self.tc_batch([cmd for nic, (rate, extra) in zip(nics, self.tx_gaps)
                           for cmd in tx_gap_cmds(nic, rate, extra, queue)])
        gso = [one_frame_per_skb_cmd(nic) for nic in nics]
        if self.bonded and len(nics) > 1:
            self._bond(nics, gso)
        else:
            self.ip_batch(gso + self._address_cmds(nics))
        if self.host_cost is not None:
            macs = {nic: self.run(["cat", f"/sys/class/net/{nic}/address"]).strip() for nic in nics}
            cmds = cpu_cmds(nics, self.host_cost, self.cpu_netem,
                            relay_address=self.address if self.forwarding else None, macs=macs)
            self.ip_batch([c for c in cmds if c[0] == "ip"])    # the IFB first, then its tc tree
            self.tc_batch([c for c in cmds if c[0] == "tc"])
        metrics = self._route_metrics()
        if metrics:
            routes = [ln.split() for ln in self.run(["ip", "-4", "route", "show"]).splitlines() if ln.strip()]
            self.ip_batch([["ip", "route", "change", *r, *metrics] for r in routes])
        return r

    def rto_min_applied(self) -> float | None:
        """The minimum RTO this node's routes carry: a time-scaled network's (its profile's x D,
        topologies.timescale), else its TCP profile's."""
        return self.rto_min_ms or (self.tcp.rto_min_ms if self.tcp is not None else None)

    def _route_metrics(self) -> list[str]:
        """Metrics set on every IPv4 route: the TCP profile's window clamp and minimum RTO
        (Linux keeps both per route, not per namespace)."""
        out = ["window", str(self.tcp.window_clamp_bytes)] if self.tcp and self.tcp.window_clamp_bytes else []
        rto = self.rto_min_applied()
        return out + (["rto_min", f"{rto:.0f}ms"] if rto else [])

    def _address_cmds(self, nics: list[str]) -> list[list[str]]:
        cmds = [["ip", "addr", "add", f"{self.address}/32", "dev", nic] for nic in nics[1:]]
        for dst, nic, via in self.routes:
            cmd = ["ip", "route", "replace", f"{dst}/32", "dev", nics[nic]]
            if via:
                cmd += ["via", via, "onlink"]
            cmds.append(cmd)
        return cmds

    def _bond(self, nics: list[str], gso: list[list[str]]) -> None:
        cidr = f"{self.address}/{SUBNET.prefixlen}"
        if self.bonding_impl == "kernel-balance-rr":
            bond = f"{self.name}-bond0"
            self.ip_batch(gso + kernel_bond_cmds(bond, nics, cidr))
            self.apply(offload_off_cmd(bond), check=False)
            self.apply(one_frame_per_skb_cmd(bond))
            self.bond_intf = BondIntf(bond, node=self)
            self.bond_intf.ip, self.bond_intf.prefixLen = self.address, SUBNET.prefixlen
        elif self.bonding_impl == "nft-numgen-rr":
            cmds, nft = nft_bond_cmds(nics, self.address, str(SUBNET))
            self.ip_batch(gso + cmds)
            self.apply(["nft", "-f", "-"], stdin=nft)
        else:
            raise RuntimeFailure(f"{self.name}: no bonding implementation on this host (needs the "
                                 "bonding driver, or nftables numgen + policy routing): "
                                 "see 'emulate.py doctor'")

    def tcp_readback(self) -> dict:
        """The TCP settings as this namespace reports them (key -> value as in TcpSettings):
        the sysctls, and the route metrics when every route carries the same (else 'mixed')."""
        from beowulf_netlab.topologies.hardware import TCP_SYSCTLS
        out = self.run(["sysctl", "-n", *TCP_SYSCTLS.values()]).split("\n")
        have: dict = {k: (v.strip() if k == "congestion_control" else
                          [int(x) for x in v.split()] if k in ("rmem", "wmem") else int(v))
                      for k, v in zip(TCP_SYSCTLS, out)}
        routes = [ln.split() for ln in self.run(["ip", "-4", "route", "show"]).splitlines() if ln.strip()]
        for key, metric, parse in (("window_clamp_bytes", "window", int),
                                   ("rto_min_ms", "rto_min",
                                    lambda v: round(parse_time_ms(v, "rto_min")))):
            values = set()
            for r in routes:
                words = [w for w in r if w != "lock"]
                values.add(parse(words[words.index(metric) + 1]) if metric in words else None)
            have[key] = values.pop() if len(values) == 1 else "mixed"
        return have

    def tcp_counters(self) -> dict[str, int]:
        """Retransmissions, time-outs, loss probes of this namespace so far (read from the
        host through /proc/<pid>/net, which shows the namespace of that process: no spawn)."""
        out: dict[str, int] = {}
        for name in ("snmp", "netstat"):
            try:
                lines = open(f"/proc/{self.pid}/net/{name}").read().splitlines()
            except OSError:
                continue
            for head, values in zip(lines[0::2], lines[1::2]):
                group, keys = head.split(":", 1)
                for key, value in zip(keys.split(), values.split(":", 1)[1].split()):
                    if (group, key) in TCP_COUNTERS:
                        out[TCP_COUNTERS[(group, key)]] = int(value)
        return out

    def cpu_counters(self) -> tuple[int, int] | None:
        """(charged bytes, packets) of this node's CPU budget, or None without one.
        Bytes include the per-packet cost (the size table applies before HTB counts)."""
        return cpu_counters([self]).get(self.name)

    def channel_tx_packets(self) -> dict[str, int]:
        """Packets each NIC has sent: how evenly bonding stripes."""
        return {nic: int(self.read_file(f"/sys/class/net/{nic}/statistics/tx_packets")) for nic in self.nics()}
