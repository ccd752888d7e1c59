"""What the host looks like from outside a run: for leak checks."""
from __future__ import annotations

import os
import subprocess

from netlab.manifest import STATE_DIR, ovs_bridges, root_links

SYSCTLS = ["net.ipv4.ip_forward", "net.ipv4.conf.all.rp_filter", "net.ipv4.conf.default.rp_filter",
           "net.ipv6.conf.all.disable_ipv6", "net.ipv4.conf.all.send_redirects",
           "net.core.rmem_max", "net.core.wmem_max", "net.ipv4.neigh.default.gc_thresh1"]


def _out(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def mininet_shells() -> list[int]:
    pids = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                cmd = open(f"/proc/{p}/cmdline", "rb").read()
            except OSError:
                continue
            if b"mininet:" in cmd:
                pids.append(int(p))
    return pids


def foreign_netns_pids() -> list[int]:
    """Processes in a network namespace other than ours (hosts left running)."""
    mine = os.stat("/proc/self/ns/net").st_ino
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if os.stat(f"/proc/{p}/ns/net").st_ino != mine:
                    out.append(int(p))
            except OSError:
                pass
    return out


def loop_devices() -> str:
    return _out(["losetup", "-l", "-n", "-O", "NAME,BACK-FILE"])


def our_mounts() -> list[str]:
    return sorted(line.split()[1] for line in open("/proc/self/mounts")
                  if "beowulf-netlab" in line.split()[1])


def our_cgroups() -> list[str]:
    out = []
    for base in ("/sys/fs/cgroup/blkio", "/sys/fs/cgroup"):
        if os.path.isdir(base):
            out += [f"{base}/{n}" for n in os.listdir(base) if n.startswith("bnl")]
    return sorted(out)


def disk_dirs() -> list[str]:
    from netlab.disks import DISK_DIR
    return sorted(os.listdir(DISK_DIR)) if DISK_DIR.exists() else []


def snapshot() -> dict:
    return {
        "links": sorted(root_links()),
        "netns": _out(["ip", "netns", "list"]),
        "ovs": sorted(ovs_bridges()),
        "nft": _out(["nft", "list", "tables"]),
        "sysctl": {k: _out(["sysctl", "-n", k]).strip() for k in SYSCTLS},
        "shells": mininet_shells(),
        "foreign": foreign_netns_pids(),
        "loops": loop_devices(),
        "mounts": our_mounts(),
        "cgroups": our_cgroups(),
        "disk_dirs": disk_dirs(),
        "manifests": sorted(p.name for p in STATE_DIR.glob("run-*.json")) if STATE_DIR.exists() else [],
    }


def diff(before: dict, after: dict) -> dict:
    return {k: (before[k], after[k]) for k in before if before[k] != after[k]}
