"""What a run's numbers came from: the host, its tools and this checkout, recorded in every
results document (run.results.new_document). Probes only: nothing here changes the host."""
from __future__ import annotations

import os
import platform
from pathlib import Path

from beowulf_netlab.core.command import execute
from beowulf_netlab.core.fields import CSV_LAST, RECORD, Field
from beowulf_netlab.core.version import __version__
from beowulf_netlab.core.version import commit as project_commit
from beowulf_netlab.netlab.record import NETWORK_RECORD


def _version(cmd: list[str]) -> str | None:
    rc, out, err = execute(cmd, timeout=10)
    text = (out or err).strip().splitlines()
    return text[0] if text and rc != 127 else None


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


# the record environment() makes, declared beside it: the results schema's part and the CSV's
# provenance columns (run.csvfile) are made from these
ENVIRONMENT_FIELDS = (
    Field("kernel", "string", "uname -r", RECORD, required=True, csv=CSV_LAST),
    Field("machine", "string", "CPU architecture", RECORD),
    Field("cpus", ("integer", "null"), "CPUs of the host", RECORD),
    Field("python", "string", "Python version", RECORD),
    Field("tools", "object", "versions of mininet, iperf3, ovs, tc, nft", RECORD, required=True),
    Field("project_commit", "string", "git commit of this tool (-dirty if modified)", RECORD, csv=CSV_LAST),
    Field("netlab_version", "string", "this tool's version (beowulf_netlab/core/version.py); absent in documents before it",
          RECORD, csv=CSV_LAST),
    Field("bridge_nf_call_iptables", ("string", "null"), "br_netfilter state of the host", RECORD),
    Field("tcp_reordering", ("string", "null"), "net.ipv4.tcp_reordering of the host", RECORD),
    Field("capabilities", "object", "what `emulate.py doctor` found", RECORD),
    Field("topologies", "object", "per network built, by its key (run.sweep.network_key: topology@rate, xK "
          "for K bonded channels, +profile on a hardware profile, +contention, +txgap<T>us, /D<d> "
          "time-scaled): what it recorded of itself, as beowulf_netlab/netlab/record.py declares it", RECORD, required=True,
          schema={"additionalProperties": {"type": "object", "properties": {
              f.name: {"description": f.description, **f.schema} for f in NETWORK_RECORD}}}),
    Field("hosts", "object", "merged documents: each host's environment", RECORD),
)


def environment() -> dict:
    try:
        import mininet.net
        mn = mininet.net.VERSION
    except ImportError:
        mn = None
    return {
        "kernel": platform.release(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "tools": {"mininet": mn, "iperf3": _version(["iperf3", "--version"]),
                  "ovs": _version(["ovs-vsctl", "--version"]), "tc": _version(["tc", "-V"]),
                  "nft": _version(["nft", "--version"])},
        # the one reader of the checkout's commit: None outside a git checkout (an installed copy)
        "project_commit": project_commit() or "unknown",
        "netlab_version": __version__,
        # When br_netfilter is loaded, bridged frames also traverse iptables.
        "bridge_nf_call_iptables": _read("/proc/sys/net/bridge/bridge-nf-call-iptables"),
        "tcp_reordering": _read("/proc/sys/net/ipv4/tcp_reordering"),
        "topologies": {},
    }
