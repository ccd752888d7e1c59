"""What a run's numbers came from: the host, its tools and this checkout, recorded in every
results document (run.results.new_document). Probes only: nothing here changes the host."""
from __future__ import annotations

import os
import platform
from pathlib import Path

from core.command import execute
from core.version import __version__

ROOT = Path(__file__).resolve().parent.parent


def _version(cmd: list[str]) -> str | None:
    rc, out, err = execute(cmd, timeout=10)
    text = (out or err).strip().splitlines()
    return text[0] if text and rc != 127 else None


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def environment() -> dict:
    try:
        import mininet.net
        mn = mininet.net.VERSION
    except ImportError:
        mn = None
    commit = _version(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    dirty = _version(["git", "-C", str(ROOT), "status", "--porcelain"])
    return {
        "kernel": platform.release(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "tools": {"mininet": mn, "iperf3": _version(["iperf3", "--version"]),
                  "ovs": _version(["ovs-vsctl", "--version"]), "tc": _version(["tc", "-V"]),
                  "nft": _version(["nft", "--version"])},
        "project_commit": (commit or "unknown") + ("-dirty" if dirty else ""),
        "netlab_version": __version__,
        # When br_netfilter is loaded, bridged frames also traverse iptables.
        "bridge_nf_call_iptables": _read("/proc/sys/net/bridge/bridge-nf-call-iptables"),
        "tcp_reordering": _read("/proc/sys/net/ipv4/tcp_reordering"),
        "topologies": {},
    }
