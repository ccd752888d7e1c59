"""What a run's numbers came from: the host, its tools and this checkout, recorded in every
results document (run.results.new_document). Probes only: nothing here changes the host."""
from __future__ import annotations

import os
import platform
from pathlib import Path

from core.command import execute
from core.fields import CSV_LAST, RECORD, Field
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


# the record environment() makes, declared beside it: the results schema's part and the CSV's
# provenance columns (run.csvfile) are made from these
ENVIRONMENT_FIELDS = (
    Field("kernel", "string", "uname -r", RECORD, required=True, csv=CSV_LAST),
    Field("machine", "string", "CPU architecture", RECORD),
    Field("cpus", ("integer", "null"), "CPUs of the host", RECORD),
    Field("python", "string", "Python version", RECORD),
    Field("tools", "object", "versions of mininet, iperf3, ovs, tc, nft", RECORD, required=True),
    Field("project_commit", "string", "git commit of this tool (-dirty if modified)", RECORD, csv=CSV_LAST),
    Field("netlab_version", "string", "this tool's version (core/version.py); absent in documents before it",
          RECORD, csv=CSV_LAST),
    Field("bridge_nf_call_iptables", ("string", "null"), "br_netfilter state of the host", RECORD),
    Field("tcp_reordering", ("string", "null"), "net.ipv4.tcp_reordering of the host", RECORD),
    Field("capabilities", "object", "what `emulate.py doctor` found", RECORD),
    Field("topologies", "object",
          "per network built (topology@rate, xK for K bonded channels, +profile on a hardware profile, "
          "+contention, +txgap<T>us): bonding_impl, switch_impl, wire_impl (engine | tc), medium (the "
          "engine's record: engine, version, sched, cpu_latency_us (the idle-state latency it held the "
          "cores to; null: not held), prop_ns, lag_p99_bound_us, config: its configuration lines; or null),"
          " host_path (this host's own round trip, timed at build and taken off the engine's per-packet "
          "delays (run.hostpath): pair, round_trips, rtt_us (the shortest), rtt_median_us, hold_us, path_us"
          " (the shortest's, taken off), median_path_us, less_per_pass_us; null: nothing taken off; absent "
          "before it), netem, hardware, host_cost_impl (ifb-htb | ifb-htb+netem-latency | ifb-htb+engine-"
          "latency | null), latency_modelled (a lone packet after idle time delayed by the per-packet cost:"
          " with netem or the engine; null without a profile), tx_gap_us (the cards' gap between frames, "
          "us; 0 = none), hardware_profile (the profile as it ran), contention (the controller's record: "
          "per wire its rate updates, mean backlog, lowest efficiency, highest 16-collision drop rate "
          "max_drop_ppm and dropped_frames; or null), collisions_modelled, build_s, timing (build_s, "
          "prepare_s, points_s, teardown_s, points: where this network's wall time went, seconds; "
          "engine_cpu_s: the medium engine's CPU over the network's life), and applied_commands (owner -> "
          "[{argv, rc, stdin?, batch?}], every tc/ip/nft/ethtool/sysctl argv applied; batch {argv, line}: "
          "the ip/tc -batch process and line that applied it)", RECORD, required=True,
          schema={'additionalProperties': {'type': 'object', 'properties': {'applied_commands': {'type': 'object', 'additionalProperties': {'type': 'array', 'items': {'type': 'object', 'required': ['argv', 'rc'], 'properties': {'argv': {'type': 'array', 'minItems': 1, 'items': {'type': 'string'}}, 'rc': {'type': 'integer'}}}}}}}}),
    Field("hosts", "object", "merged documents: each host's environment", RECORD),
)


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
