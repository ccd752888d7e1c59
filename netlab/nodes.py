"""Beowulf nodes as a Mininet Host subclass: NICs, bonding, forwarding, routes.

Everything a node sets lives inside its own network namespace (sysctls,
routes, nft tables, bond devices), so it disappears with the namespace.
"""
from __future__ import annotations

import subprocess

from mininet.link import Intf
from mininet.node import Host
from mininet.util import moveIntf

from netlab.bonding import kernel_bond_cmds, nft_bond_cmds
from netlab.shaping import (offload_off_cmd, one_frame_per_skb_cmd, rate_limit_cmds,
                            relay_egress_cmds)
from topologies.spec import SUBNET

NS_SYSCTLS = {
    "net.ipv6.conf.all.disable_ipv6": "1",      # no NDP/MLD chatter charged to the wires
    "net.ipv6.conf.default.disable_ipv6": "1",
    "net.ipv4.conf.all.rp_filter": "0",          # bonded and routed replies arrive on any NIC
    "net.ipv4.conf.default.rp_filter": "0",
    "net.ipv4.conf.all.send_redirects": "0",     # a relay must keep relaying, not redirect
    "net.ipv4.conf.all.accept_redirects": "0",
}


class NodeCommandError(RuntimeError):
    pass


class BondIntf(Intf):
    """The bond device, registered with Mininet so `b0 ping b1` resolves to it."""

    def config(self, **_params):
        return {}


class BeowulfHost(Host):
    """A node. Params (from the topology): bonded, forwarding, routes
    [(dst, nic, via)], on_link (address the /16 on-link), bonding_impl
    ('kernel-balance-rr' | 'nft-numgen-rr'), nic_shaping [(rate, queue) or None],
    forward_delay_ms (a relay holds packets it forwards this long)."""

    def __init__(self, name: str, bonded: bool = False, forwarding: bool = False,
                 routes=(), on_link: bool = True, bonding_impl: str | None = None,
                 nic_shaping=(), forward_delay_ms: float = 0.0, **params):
        self.bonded = bonded
        self.forwarding = forwarding
        self.routes = list(routes)
        self.on_link = on_link
        self.bonding_impl = bonding_impl
        self.nic_shaping = list(nic_shaping)
        self.forward_delay_ms = float(forward_delay_ms)
        self.bond_intf: BondIntf | None = None
        self.address = params.get("ip", "").split("/")[0]
        Host.__init__(self, name, **params)

    # -- running commands inside the namespace, without the interactive shell --
    def run(self, cmd: list[str], stdin: str | None = None, check: bool = True) -> str:
        r = subprocess.run(["mnexec", "-a", str(self.pid), *cmd], input=stdin,
                           capture_output=True, text=True)
        if check and r.returncode != 0:
            raise NodeCommandError(f"{self.name}: {' '.join(cmd)}: {r.stderr.strip() or r.stdout.strip()}")
        return r.stdout

    def popen_netns(self, cmd: list[str], **kwargs) -> subprocess.Popen:
        """Run in this node's network namespace but the host's mount namespace,
        where the node disks and the cgroup filesystem are mounted (a Mininet
        host's own mount namespace predates the disks and remounts /sys)."""
        return subprocess.Popen(["nsenter", f"--net=/proc/{self.pid}/ns/net", "--", *cmd], **kwargs)

    def ip_batch(self, cmds: list[list[str]]) -> None:
        if cmds:
            lines = "\n".join(" ".join(c[1:]) for c in cmds) + "\n"
            self.run(["ip", "-batch", "-"], stdin=lines)

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
        self.run(["sysctl", "-qw", *[f"{k}={v}" for k, v in sysctls.items()]])
        for nic in nics:
            self.run(offload_off_cmd(nic), check=False)
        self.ip_batch([one_frame_per_skb_cmd(nic) for nic in nics])
        for nic, shaping in zip(nics, self.nic_shaping):
            if self.forward_delay_ms:
                cmds = relay_egress_cmds(nic, self.address, self.forward_delay_ms,
                                         *(shaping or (None, 100)))
            else:
                cmds = rate_limit_cmds(nic, *shaping) if shaping else []
            for cmd in cmds:
                self.run(cmd)
        if self.bonded and len(nics) > 1:
            self._bond(nics)
        else:
            self._address(nics)
        return r

    def _address(self, nics: list[str]) -> None:
        cmds = [["ip", "addr", "add", f"{self.address}/32", "dev", nic] for nic in nics[1:]]
        for dst, nic, via in self.routes:
            cmd = ["ip", "route", "replace", f"{dst}/32", "dev", nics[nic]]
            if via:
                cmd += ["via", via, "onlink"]
            cmds.append(cmd)
        self.ip_batch(cmds)

    def _bond(self, nics: list[str]) -> None:
        cidr = f"{self.address}/{SUBNET.prefixlen}"
        if self.bonding_impl == "kernel-balance-rr":
            bond = f"{self.name}-bond0"
            for cmd in kernel_bond_cmds(bond, nics, cidr):
                self.run(cmd)
            self.run(offload_off_cmd(bond), check=False)
            self.run(one_frame_per_skb_cmd(bond))
            self.bond_intf = BondIntf(bond, node=self)
            self.bond_intf.ip, self.bond_intf.prefixLen = self.address, SUBNET.prefixlen
        elif self.bonding_impl == "nft-numgen-rr":
            cmds, nft = nft_bond_cmds(nics, self.address, str(SUBNET))
            self.ip_batch(cmds)
            self.run(["nft", "-f", "-"], stdin=nft)
        else:
            raise NodeCommandError(f"{self.name}: no bonding implementation on this host "
                                   "(needs the bonding driver, or nftables numgen + policy routing)")

    def channel_tx_packets(self) -> dict[str, int]:
        """Packets each NIC has sent: how evenly bonding stripes."""
        out = {}
        for nic in self.nics():
            out[nic] = int(self.run(["cat", f"/sys/class/net/{nic}/statistics/tx_packets"]).strip())
        return out
