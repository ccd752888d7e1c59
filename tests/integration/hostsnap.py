"""What the project's own objects look like from outside a run: for leak checks.

Only objects that carry the project's label are looked at, so unrelated
activity on the host (another namespace, loop device or process) cannot fail
a cleanup test: root-namespace links, OVS bridges and nftables bridge tables named bnl<id>...,
processes whose environment carries NETLAB_RUN=bnl<id>, Mininet shells of our
node names, mounts/loops/cgroups/images under the project's disk directory and
prefix, run manifests. Root-namespace sysctls are checked too: the testbed
promises to change none.
"""
from __future__ import annotations

import os
import re

from beowulf_netlab.core.command import run
from beowulf_netlab.netlab.disk import DISK_DIR
from beowulf_netlab.netlab.manifest import PREFIX, STATE_DIR, bridge_tables, labelled_pids, ovs_bridges, root_links

SYSCTLS = ["net.ipv4.ip_forward", "net.ipv4.conf.all.rp_filter", "net.ipv4.conf.default.rp_filter",
           "net.ipv6.conf.all.disable_ipv6", "net.ipv4.conf.all.send_redirects"]
NODE_SHELL = re.compile(rb"mininet:b[0-9a-f]+\b")


def node_shells() -> list[int]:
    """Mininet shells of nodes named like ours (b0, b1, ...)."""
    pids = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                cmd = open(f"/proc/{p}/cmdline", "rb").read()
            except OSError:
                continue
            if NODE_SHELL.search(cmd):
                pids.append(int(p))
    return sorted(pids)


def our_loops() -> list[str]:
    out = run(["losetup", "-l", "-n", "-O", "NAME,BACK-FILE"], check=False)
    return sorted(line for line in out.splitlines() if str(DISK_DIR) in line)


def our_mounts() -> list[str]:
    return sorted(line.split()[1] for line in open("/proc/self/mounts")
                  if line.split()[1].startswith(str(DISK_DIR)))


def our_cgroups() -> list[str]:
    out = []
    for base in ("/sys/fs/cgroup/blkio", "/sys/fs/cgroup"):
        if os.path.isdir(base):
            out += [f"{base}/{n}" for n in os.listdir(base) if n.startswith(PREFIX)]
    return sorted(out)


def snapshot() -> dict:
    return {
        "links": sorted(n for n in root_links() if n.startswith(PREFIX)),
        "ovs": sorted(b for b in ovs_bridges() if b.startswith(PREFIX)),
        "nft_bridge_tables": sorted(t for t in bridge_tables() if t.startswith(PREFIX)),
        "sysctl": {k: run(["sysctl", "-n", k], check=False).strip() for k in SYSCTLS},
        "shells": node_shells(),
        "labelled": sorted(labelled_pids()),
        "loops": our_loops(),
        "mounts": our_mounts(),
        "cgroups": our_cgroups(),
        "disk_dirs": sorted(os.listdir(DISK_DIR)) if DISK_DIR.exists() else [],
        "manifests": sorted(p.name for p in STATE_DIR.glob("run-*.json")) if STATE_DIR.exists() else [],
    }


def diff(before: dict, after: dict) -> dict:
    return {k: (before[k], after[k]) for k in before if before[k] != after[k]}


def kill_then_clean(proc, before: dict, emulate: list[str], left_keys: tuple[str, ...]) -> None:
    """SIGKILL a run, check it left its objects (left_keys of the snapshot), run
    `emulate.py clean`, and check that nothing of it is left."""
    import subprocess
    proc.kill()
    proc.wait(timeout=30)
    left = diff(before, snapshot())
    assert all(k in left for k in left_keys), left
    out = subprocess.run([*emulate, "clean"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert diff(before, snapshot()) == {}
