"""Channel bonding: one address per node, its packets striped round-robin over K NICs.

Two implementations, chosen by what the kernel has, behave the same to
applications (one address, one socket, packets alternate NICs):

- kernel-balance-rr: the Linux bonding driver in mode 0, the direct descendant
  of Becker's Beowulf patches. Slaves share the bond's MAC.
- nft-numgen-rr (fallback, for kernels without bonding): an nftables route
  hook marks each outgoing packet `numgen inc mod K`, and `ip rule fwmark`
  sends mark k out of NIC k. Each NIC keeps its own MAC; the node's address sits
  on NIC 0 (with the on-link prefix) and as a /32 on the others, so peers'
  ARP is answered on every channel. Only the node's own traffic is striped
  (what bonding does too); forwarded traffic follows the main table.

Commands are built here as argument lists and run by `netlab.nodes`.
"""
from __future__ import annotations

MARK_TABLE_BASE = 100
NFT_TABLE = "bnl_bond"


def kernel_bond_cmds(bond: str, nics: list[str], cidr: str) -> list[list[str]]:
    cmds = [["ip", "link", "add", bond, "type", "bond", "mode", "balance-rr", "miimon", "0"]]
    for nic in nics:
        cmds += [["ip", "addr", "flush", "dev", nic],
                 ["ip", "link", "set", nic, "down"],
                 ["ip", "link", "set", nic, "master", bond]]
    cmds += [["ip", "link", "set", bond, "up"]]
    cmds += [["ip", "link", "set", nic, "up"] for nic in nics]
    cmds += [["ip", "addr", "add", cidr, "dev", bond]]
    return cmds


def nft_bond_cmds(nics: list[str], ip: str, subnet: str) -> tuple[list[list[str]], str]:
    """(ip commands, nft script). NIC 0 already carries ip/prefix."""
    cmds: list[list[str]] = []
    for k, nic in enumerate(nics):
        if k > 0:
            cmds.append(["ip", "addr", "add", f"{ip}/32", "dev", nic])
        table = str(MARK_TABLE_BASE + k)
        cmds.append(["ip", "route", "replace", subnet, "dev", nic, "src", ip, "table", table])
        cmds.append(["ip", "rule", "add", "fwmark", str(k + 1), "table", table, "priority",
                     str(1000 + k)])
    nft = (f"table ip {NFT_TABLE} {{\n"
           f"  chain out {{\n"
           f"    type route hook output priority mangle; policy accept;\n"
           f"    ip daddr {subnet} meta mark set numgen inc mod {len(nics)} offset 1\n"
           f"  }}\n"
           f"}}\n")
    return cmds, nft
