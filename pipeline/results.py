"""The results document: one versioned JSON per run, written atomically, plus a CSV.

Its format is results/schema.json (generated from SCHEMA below; a test keeps
them equal), which describes every key, and results/README.md. Documents are
validated whenever they are written (runner, merge) and read (plot, merge,
report); a document of an older schema version is upgraded on read, a newer
one refused. Every point carries its parameters, its measurements and the
fidelity monitor's verdict; the environment records what the numbers came
from, including the exact tc/ip/nft argv applied to every wire and node.
"""
from __future__ import annotations

import csv
import json
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from core.command import execute
from core.errors import BadInput
from core.jsonfile import MAX_FILE_BYTES, parse_json, read_json  # noqa: F401 (read_json re-exported)
from core.safefile import atomic_text, read_bytes, write_atomic_bytes
from core.text import csv_cell
from core.version import __version__
from pipeline.gates import recompute
from topologies.timescale import time_scale_of
from workloads import WORKLOADS
from workloads.iperf import MAX_SAMPLES as IPERF_MAX_SAMPLES

SCHEMA_VERSION = 5
ROOT = Path(__file__).resolve().parent.parent
# run documents go to the checkout's results/ (also under an editable install); a copy installed
# by `pip install .` has no checkout, and its packages' folder is no place for them: the working
# folder's results/ then
RESULTS_DIR = ROOT / "results" if (ROOT / "pyproject.toml").exists() else Path("results")
SCHEMA_FILE = ROOT / "results" / "schema.json"


PAPER_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "description": "The paper's side of the comparison (see docs/papers.md).",
    "properties": {
        "source": {"type": "string", "description": "which paper and figure, with its docs/papers.md key"},
        "hardware": {"type": "string", "description": "the machine the paper's figure ran on"},
        "values": {"type": "object", "description": "named values of the paper: each an object with "
                   "value, status (verified | seed | derived) and what it refers to",
                   "additionalProperties": {"type": "object", "required": ["value", "status"],
                                            "properties": {"value": {"type": "number"},
                                                           "status": {"enum": ["verified", "seed",
                                                                               "derived"]},
                                                           "where": {"type": "string"},
                                                           "unit": {"type": "string", "description":
                                                                    "what the value is in (MB/s, x)"},
                                                           "measure": {
                                                               "type": "object", "required": ["kind"],
                                                               "description": "how a run reads the same "
                                                               "quantity, to print it beside the paper's "
                                                               "(never judged): {kind: value, select} or "
                                                               "{kind: ratio, a, b}, selections as in "
                                                               "claims/claims.json"}}}},
        "notes": {"type": "array", "items": {"type": "string"},
                  "description": "lines printed beside the measured table"},
        "choices": {"type": "array", "items": {"type": "string"},
                    "description": "parameters the paper does not give, and what this file chose"},
        "reference_points": {"type": "array", "description": "the paper's values at a given x, drawn as "
                             "markers on the plots (x in the figure's x units)",
                             "items": {"type": "object", "required": ["x", "y", "label"],
                                       "additionalProperties": False,
                                       "properties": {"x": {"type": "number", "description": "x value"},
                                                      "y": {"type": "number", "description": "MB/s"},
                                                      "label": {"type": "string", "description": "legend text"}}}},
        "reference_lines": {"type": "array", "description": "horizontal lines drawn on the plots",
                            "items": {"type": "object", "required": ["label"],
                                      "additionalProperties": False,
                                      "anyOf": [{"required": ["y"]}, {"required": ["of"]}],
                                      "properties": {"y": {"type": "number", "description": "MB/s"},
                                                     "of": {"type": "object", "required": ["where", "scale"],
                                                            "additionalProperties": False,
                                                            "description": "instead of y: a line from this "
                                                                           "run, per hardware view: the median "
                                                                           "of the points `where` selects "
                                                                           "(MB/s of the real network) x scale",
                                                            "properties": {"where": {"type": "object",
                                                                                     "description": "point key -> value"},
                                                                           "scale": {"type": "number",
                                                                                     "description": "multiplies the median"}}},
                                                     "label": {"type": "string", "description": "legend text"},
                                                     "nodes": {"type": "integer", "minimum": 1,
                                                               "description": "the cluster size the value is "
                                                                              "for: not drawn beside a run "
                                                                              "of another size"}}}},
    },
}
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


def _obj(description: str, **props) -> dict:
    return {"type": "object", "description": description, "properties": props}


def _t(kind, description: str, **extra) -> dict:
    return {"type": kind, "description": description, **extra}


def _map(description: str, of: str = "number") -> dict:
    """An object of name -> number (a wire's bytes, a node's busy share): the judge sums them."""
    return {"type": "object", "description": description, "additionalProperties": {"type": of}}


def _when(what: str) -> dict:
    return _t(["number", "null"], f"when the transfer {what}, s (monotonic clock, or from the first start)")


# what the gates read of a flow or a pair or copy (pipeline/gates.py): typed, since a document
# from another host is input like any other
FLOW = {"type": "object", "required": ["path", "bytes"], "properties": {
    "path": _t("array", "segments of parallel wires the transfer crossed, in order",
               items={"type": "array", "items": {"type": "string"}}),
    "bytes": _t("integer", "payload bytes it moved", minimum=0),
    "start": _when("started"), "end": _when("ended"),
    "backlogged": _t("boolean", "data was always queued for its path (the stalled-transport gate's premise)")}}
PART = {"type": "object", "properties": {
    "start": _when("started"), "end": _when("ended"),
    "bytes": _t("integer", "bytes it moved", minimum=0),
    "payload_bytes": _t("integer", "payload bytes it moved", minimum=0),
    "charges_lost": _t(["integer", "null"], "charge-channel datagrams a full CPU budget queue dropped",
                       minimum=0),
    "round_trips": _t("integer", "round trips it completed", minimum=0)}}
# an iperf flow's throughput over time (workloads/iperf.py series): typed and bounded, since a
# plot and a CSV read every sample
IPERF_PAIR = {**PART, "properties": {
    **PART["properties"],
    "interval_s": _t("number", "iperf3's reporting interval (-i), s, in the time the network ran "
                     "(scaled time on a time-scaled point)", exclusiveMinimum=0),
    "intervals": _t("array", "the flow's throughput over time, as measured, at most "
                    f"{IPERF_MAX_SAMPLES} samples: per interval [t_end_s, mbit_s] or [t_end_s, mbit_s, "
                    "retransmits]: the receiver's goodput in the interval ending t_end_s seconds after "
                    "the omitted slow start, and the sender's retransmitted segments in it. On a "
                    "time-scaled point these are in scaled time: t / D and Mbit/s x D are the real "
                    "network's (plot --series and the -intervals.csv show those). Absent in documents "
                    "before it and where the server's report could not be read",
                    maxItems=IPERF_MAX_SAMPLES,
                    items={"type": "array", "minItems": 2, "maxItems": 3,
                           "items": {"type": "number", "minimum": 0}})}}


COMMON_POINT = {
    "point_index": _t("integer", "index of the point in the whole sweep (shards merge by it)", minimum=0),
    "topology": _t("string", "topology preset the point ran on"),
    "rate_mbit": _t("number", "wire rate, Mbit/s", exclusiveMinimum=0),
    "channels": _t(["integer", "null"], "wires per node on single-net (1) and bonded-dual-net; null on meshes"),
    "nodes": _t("integer", "nodes in the network", minimum=2),
    "workload": _t("string", "the workload (equals the document's)", enum=list(WORKLOADS)),
    "placement": _t("string", "any | local-wire | remote-wire"),
    "repeat": _t("integer", "which repeat of the point (0-based)", minimum=0),
    "host": _t("string", "machine that measured the point (NETLAB_HOST_LABEL or hostname)"),
    "throughput_mbyte_s": _t("number", "the workload's aggregate throughput, MB/s (10^6 bytes/s)",
                             minimum=0),
    "bonding_impl": _t(["string", "null"], "kernel-balance-rr | nft-numgen-rr | null (not bonded)"),
    "wire_load": _t("object", "the placement plan's load: wire -> pairs (or remote copies) crossing it"),
    "switch_impl": _t(["string", "null"], "ovs-kernel | ovs-user | lxbr | null (no switches)"),
    "wire_impl": _t("string", "engine (the frame-timed medium engine, netlab.medium) | tc (bridge + HTB: "
                    "bandwidth only, a lone frame pays no wire time); absent in documents older than it"),
    "medium": _obj("what the medium engine did during the point (wire_impl engine only)",
                   lag=_t("object", "release lateness: count, p50_us, p99_us, max_us (1 us buckets, upper "
                          "edges); the gate's bounds are LAG_P50_BOUND_US and LAG_P99_BOUND_US in netlab/medium.py"),
                   engine_cpu=_t("number", "the engine process's CPU over the point, in cores (it also "
                                 "runs the receiving nodes' stacks as it releases frames)"),
                   engine_spin=_t("number", "of engine_cpu, the share spent spinning to a release"),
                   late_arrivals=_t("integer", "frames read after the model had passed their arrival time"),
                   sched=_t(["string", "null"], "the engine's scheduling policy (fifo:PRIO or other)"),
                   wires=_t("object", "wire -> frames, collisions, busy (share of the point its "
                            "delivered carriers used), collision_time (share collisions used), backoff_idle (share the "
                            "medium lay idle while colliders backed off; the rate a hub could carry is "
                            "its rate x (1 - collision_time - backoff_idle)), "
                            "drops_queue, drops_collisions (16 attempts), deferrals, send_errors")),
    "hardware": _t("string", "the hardware profile the nodes had (hardware/<name>.json; none = today's "
                   "host); v1/v2 documents read as none"),
    "contention": _t("string", "on: the shared wires charged CSMA/CD's average contention per frame "
                     "and dropped a frame after 16 collisions (netlab/contention.py); off: perfect "
                     "arbiters (v1/v2 documents read as off)", enum=["off", "on"]),
    "contention_default": _t("string", "the hardware profile's collisions default when the point ran "
                             "(hardware/<name>.json `collisions`): a point whose contention equals it ran "
                             "as its machine is modelled by default (the report's view of the paper's "
                             "hardware); v1-v4 documents read as off, the default then", enum=["off", "on"]),
    "tx_gap_us": _t("number", "every network card waited this long after each frame it sent before "
                    "the next (one frame in flight; netlab/nic.py, --tx-gap-us), us in real time; "
                    "absent = 0, no gap", minimum=0),
    "time_scale": _t("number", "D: the network ran D times slower than real (topologies/timescale.py); "
                     "absent = 1. Every MB/s in the point is as measured, in scaled time", minimum=1),
    "scaled": _map("on a time-scaled point: the workload's MB/s results x D, the real "
                   "network's figures (claims judge these)"),
    "tcp": _t(["object", "null"], "the TCP the nodes ran, as read back from their namespaces "
              "(congestion_control, sack, dsack, timestamps, window_scaling, ecn, frto, recovery, "
              "early_retrans, rmem, wmem, reordering as sysctls; window_clamp_bytes and rto_min_ms "
              "as the metrics every route carries, the RTO x D on a time-scaled network: the hardware "
              "profile's tcp block; documents before 2026-11-24 lack the last five) and what it did over the point, "
              "summed over the nodes: retrans_segs, timeouts, loss_probes, fast_retrans, "
              "slow_start_retrans. null: unrecorded (documents before v4 ran the host's TCP)",
              properties={k: _t("integer", f"{k.replace('_', ' ')} over the point, all nodes", minimum=0)
                          for k in ("retrans_segs", "timeouts", "loss_probes", "fast_retrans",
                                    "slow_start_retrans")}),
    "measured_in": _t("string", "this point was not measured for this experiment: it is the point of "
                      "that experiment (its name) with the same configuration, measured earlier in the "
                      "same reproduction (experiment files' same_points_as; pipeline/derive.py)"),
    "calibration_of": _t("string", "this point measures a calibration (claims/calibrations.json id) "
                         "that the sweep's own points did not measure twice; it is not a sweep point "
                         "(no point_index) and tables leave it out"),
    "contended_rate_mbit": _map("with the collision model on: wire -> the rate its controller held, "
                                "averaged over the point (Mbit/s; netlab/contention.py): the utilisation in "
                                "fidelity and the gates are of it"),
    "cpu_busy": _map("node -> fraction of its hardware profile's CPU budget its packets and charges (a TCP "
                     "message's or a disk transfer's cost) used "
                     "while the point ran (only on a profile with a host cost)"),
    "fidelity": {**_obj("the fidelity monitor's view of the point",
                        suspect=_t(["string", "null"], "why the emulator may have been the bottleneck "
                                   "(a core near-saturated while no wire was near full), or null"),
                        host_cpu_mean=_t("number", "mean host CPU busy fraction"),
                        host_cpu_max=_t("number", "highest host CPU busy fraction in one sample"),
                        core_busy_mean=_t("array", "mean busy fraction of each CPU core"),
                        emulator_thread_busy=_t("object", "busy fraction of each thread of a "
                                                "single-threaded emulator part (ovs-vswitchd)"),
                        softirq_busy_mean=_t("array", "share of each CPU core spent in softirq (where "
                                             "the kernel moves every emulated frame)"),
                        cpu_pressure=_t(["number", "null"], "share of the point some task waited for a "
                                        "CPU (PSI; null without it): with softirq, how crowded the host was"),
                        wire_bytes=_map("wire -> on-wire bytes (framing included) its shaper "
                                        "counted while the point ran"),
                        window_s=_t("number", "the time base of wire_utilisation, s"),
                        wire_utilisation=_map("wire -> on-wire bytes carried / capacity")),
                 "required": ["suspect"]},
    "flows": _t("array", "what the workload moved over the network: each transfer's path (segments "
                "of parallel wires), bytes, and start/end (s) where known", items=FLOW),
    "gates": {**_obj("the fidelity gates (pipeline/gates.py): a point that fails one makes the "
                     "claims that read it not checkable",
                     ok=_t("boolean", "every gate passed"),
                     failed={**_t("array", "why each failed gate failed"), "items": {"type": "string"}},
                     span_over_longest=_t(["number", "null"], "token pairs: all pairs' span / the "
                                          "longest pair's time (1.0 = all ran at once)")),
              "required": ["ok", "failed"]},
}
WORKLOAD_POINT = {
    "token": {
        "pairs": _t("integer", "pairs exchanging tokens at once", minimum=1),
        "token_size": _t("integer", "token bytes", minimum=1),
        "tokens_in_flight": _t("integer", "tokens each pair keeps in flight", minimum=1),
        "duration": _t(["number", "null"], "seconds of exchanges (setting)"),
        "exchanges": _t(["integer", "null"], "round trips per pair instead of duration (setting)"),
        "payload_bytes": _t("integer", "token bytes that crossed the network, both directions"),
        "elapsed_s": _t("number", "longest pair's time, s"),
        "round_trips": _t("integer", "round trips completed, all pairs"),
        "rtt_ms_median": _t(["number", "null"], "median pair's median round trip, ms"),
        "per_pair": _t("array", "each pair's figures", items=PART),
        "pairs_placed": _t("array", "src->dst of each pair, with its wire or relay"),
    },
    "iperf": {
        "pairs": _t("integer", "concurrent TCP flows", minimum=1),
        "duration": _t("number", "seconds measured per flow (setting)"),
        "goodput_mbit": _t("number", "sum of the flows' receiver-side goodput, Mbit/s"),
        "per_pair": _t("array", "each flow's figures (src, dst, port, goodput_mbit, bytes_received, "
                       "seconds, retransmits) and its throughput over time", items=IPERF_PAIR),
        "pairs_placed": _t("array", "src->dst of each flow"),
    },
    "filecopy": {
        "copies": _t("integer", "simultaneous copies", minimum=1),
        "remote": _t("integer", "how many of them are remote", minimum=0),
        "file_size": _t("integer", "bytes per file", minimum=1),
        "disk": _t(["object", "string"], "the node disks: profile, rates, throttle, I/O mode"),
        "elapsed_s": _t("number", "first copy's start to last copy's end, s"),
        "total_bytes": _t("integer", "bytes of all files"),
        "verified": _t("string", "how every destination was checked (sha256)"),
        "per_copy": _t("array", "each copy's kind, nodes, start/end (s from the first start), MB/s",
                       items=PART),
        "copies_placed": _t("array", "each copy: node, or src->dst with its wire or relay"),
    },
    "pfs": {
        "test": _t("string", "ttcp | bonnie | pfs (workloads/pfs.py)", enum=["ttcp", "bonnie", "pfs"]),
        "local_fraction": _t(["number", "null"], "pfs: the file view's share of each rank's blocks in "
                             "its own node's stripe; null for the baselines"),
        "stripe_size": _t(["integer", "null"], "pfs: stripe unit (block) bytes; null for the baselines"),
        "volume": _t("integer", "bytes each node wrote and read (setting)"),
        "duration": _t("integer", "ttcp: seconds each stream was measured (setting)"),
        "disk": _t(["object", "string"], "the node disks: profile, rates, throttle, I/O mode"),
        "write_mbyte_s": _t("number", "pfs: aggregate write, total bytes / slowest rank's time; "
                            "bonnie: mean per node, MB/s"),
        "read_mbyte_s": _t("number", "pfs: aggregate read; bonnie: mean per node, MB/s"),
        "per_node_mbyte_s": _t("array", "ttcp: each pair's stream, MB/s"),
        "per_rank": _t("array", "each MPI rank's phase times (pfs) or rates (bonnie)"),
        "total_bytes": _t("integer", "bytes all nodes wrote (and read again)"),
        "elapsed_s": _t("number", "slowest write plus slowest read time (pfs), s"),
        "local_fraction_measured": _t(["number", "null"], "pfs: share of the bytes moved that stayed on "
                                      "the mover's own node, from where GlusterFS put each stripe"),
        "stripes_misplaced": _t("array", "pfs: stripes GlusterFS did not put on their creator's brick"),
        "pairs_placed": _t("array", "ttcp: src->dst of each stream"),
        "window_s": _t("number", "ttcp: the streams' time including slow start, s (wire utilisation's base)"),
        "mpi_attempts": _t("integer", "pfs, bonnie: MPI launches it took (one that does not start "
                           "every rank within 60 s, or fails, is ended and tried again, 3 in all)", minimum=1),
        "pfs": _t("object", "pfs: the file system as it ran (netlab/pfs.py)"),
    },
}
REQUIRED_POINT = ["topology", "rate_mbit", "workload", "placement", "repeat", "throughput_mbyte_s",
                  "fidelity", "hardware", "contention", "contention_default", "tcp"]
REQUIRED_BY_WORKLOAD = {"token": ["pairs", "token_size", "tokens_in_flight"], "iperf": ["pairs"],
                        "filecopy": ["copies", "remote", "file_size", "disk"],
                        "pfs": ["test", "volume", "disk"]}

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "https://beowulf-netlab.invalid/results/schema.json",
    "title": "Beowulf Netlab results document",
    "description": f"One run of emulate.py (run, experiment, merge): schema version {SCHEMA_VERSION}.",
    "type": "object",
    "required": ["schema_version", "tool", "created", "workload", "parameters", "environment",
                 "complete", "points"],
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION, "description": "format version; older ones are "
                           "upgraded on read, newer ones refused"},
        "tool": _t("string", "always beowulf-netlab"),
        "created": _t("string", "local time the run started, ISO 8601"),
        "command": _t("string", "the command line that made the document"),
        "name": {"type": ["string", "null"], "pattern": NAME_PATTERN,
                 "description": "experiment name, if the run came from an experiment file"},
        "workload": {"enum": list(WORKLOADS), "description": "which workload the points measured"},
        "parameters": _t("object", "the sweep: every axis by its one name (as `emulate.py run` "
                         "flags, with underscores) and its value(s)"),
        "total_points": _t("integer", "points in the whole sweep, whatever this shard", minimum=0),
        "shard": _t("string", "I/N: this document holds points I, I+N, ... of the sweep",
                    pattern=r"^[1-9][0-9]*/[1-9][0-9]*$"),
        "shards": _t("array", "merged documents: the shards merged"),
        "same_points_as": _t("array", "experiments whose documents gave points of this one (each such "
                             "point names its source in measured_in)"),
        "complete": _t("boolean", "every point of the sweep (or shard) finished"),
        "paper": PAPER_SCHEMA,
        "calibrations": {"type": "array", "description": "every calibration point the points rest on, "
                         "judged from this document (pipeline/calibration.py): id, what, target, "
                         "tolerance, values, measured (median), spread, failed_gate (its measurements "
                         "left out because they failed a fidelity gate), verdict (met | missed | noisy | "
                         "not measured), reason", "items": {"type": "object",
                                                            "required": ["id", "verdict", "reason"]}},
        "calibration_not_measured": {"type": "array", "items": {"type": "string"},
                                     "description": "calibrations this sweep's settings could not measure"},
        "environment": {**_obj(
            "what the numbers came from",
            kernel=_t("string", "uname -r"), machine=_t("string", "CPU architecture"),
            cpus=_t(["integer", "null"], "CPUs of the host"), python=_t("string", "Python version"),
            tools=_t("object", "versions of mininet, iperf3, ovs, tc, nft"),
            project_commit=_t("string", "git commit of this tool (-dirty if modified)"),
            netlab_version=_t("string", "this tool's version (core/version.py); absent in documents "
                              "before it"),
            bridge_nf_call_iptables=_t(["string", "null"], "br_netfilter state of the host"),
            tcp_reordering=_t(["string", "null"], "net.ipv4.tcp_reordering of the host"),
            capabilities=_t("object", "what `emulate.py doctor` found"),
            topologies={**_t("object", "per network built (topology@rate, xK for K bonded channels, "
                             "+profile on a hardware profile, +contention, +txgap<T>us): bonding_impl, "
                             "switch_impl, wire_impl (engine | tc), medium (the engine's record: engine, version, sched, "
                             "cpu_latency_us (the idle-state latency it held the cores to; null: not held), "
                             "prop_ns, lag_p99_bound_us, config: its configuration lines; or null), netem, "
                             "hardware, host_cost_impl (ifb-htb | ifb-htb+netem-latency | ifb-htb+engine-latency "
                             "| null), latency_modelled (a lone packet after idle time delayed by the "
                             "per-packet cost: with netem or the engine; null without a profile), tx_gap_us "
                             "(the cards' gap between frames, us; 0 = none), "
                             "hardware_profile (the profile as it ran), contention (the controller's "
                             "record: per wire its rate updates, mean backlog, lowest efficiency, highest 16-collision drop "
                             "rate max_drop_ppm and dropped_frames; or null), collisions_modelled, build_s, timing (build_s, prepare_s, "
                             "points_s, teardown_s, points: where this network's wall time went, "
                             "seconds; engine_cpu_s: the medium engine's CPU over the network's life), and applied_commands "
                             "(owner -> [{argv, rc, stdin?, batch?}], every tc/ip/nft/ethtool/sysctl argv applied; "
                             "batch {argv, line}: the ip/tc -batch process and line that applied it)"),
                        "additionalProperties": {"type": "object", "properties": {
                            "applied_commands": {"type": "object", "additionalProperties": {
                                "type": "array", "items": {"type": "object", "required": ["argv", "rc"],
                                                           "properties": {"argv": {"type": "array", "minItems": 1,
                                                                                   "items": {"type": "string"}},
                                                                          "rc": {"type": "integer"}}}}}}}},
            hosts=_t("object", "merged documents: each host's environment")),
            "required": ["kernel", "tools", "topologies"]},
        "points": {"type": "array", "description": "one object per measured point",
                   "items": {"type": "object", "required": REQUIRED_POINT,
                             "properties": COMMON_POINT}},
    },
    "allOf": [{"if": {"properties": {"workload": {"const": w}}},
               "then": {"properties": {"points": {"items": {
                   "required": REQUIRED_BY_WORKLOAD[w], "properties": WORKLOAD_POINT[w]}}}}}
              for w in WORKLOADS],
}

# v1 parameter names -> the one names of v2
V1_RENAMES = {"topologies": "topology", "rates": "rate_mbit", "placements": "placement",
              "token_sizes": "token_size", "file_sizes": "file_size"}


def real_rate(point: dict, metric: str = "throughput_mbyte_s") -> float:
    """A point's MB/s as the real network's: x D on a time-scaled point (topologies.timescale)."""
    scaled = point.get("scaled") or {}
    return float(scaled[metric] if metric in scaled else point[metric])


def real_intervals(point: dict) -> list[tuple[str, list[tuple[float, float, int | None]]]]:
    """Each flow's series (an iperf pair's `intervals`) as the real network's: (src->dst,
    [(t_s / D, mbit_s x D, retransmits or None)]); flows without one are left out."""
    d = time_scale_of(point)
    out = []
    for part in point.get("per_pair") or []:
        if isinstance(part, dict) and part.get("intervals"):
            name = f"{part.get('src', '?')}->{part.get('dst', '?')}"
            out.append((name, [(s[0] / d, s[1] * d, int(s[2]) if len(s) > 2 else None)
                               for s in part["intervals"]]))
    return out


def upgrade(doc: Any, where: str) -> dict:
    """A document of any known version, as the current version."""
    if not isinstance(doc, dict):
        raise BadInput(f"{where} is not a results document (a JSON object was expected)")
    version = doc.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise BadInput(f"{where} has schema version {version}, newer than this tool's "
                       f"{SCHEMA_VERSION}: update this checkout (git pull) to read it")
    if version == 1:
        doc = dict(doc)
        params = doc.get("parameters") if isinstance(doc.get("parameters"), dict) else {}
        doc["parameters"] = {V1_RENAMES.get(k, k): v for k, v in params.items()}
        doc.setdefault("complete", False)
        version = 2
    if version == 2:   # v3: every point names its hardware profile and contention model
        doc = dict(doc)
        if isinstance(doc.get("parameters"), dict):
            doc["parameters"] = {"hardware": ["none"], "contention": ["off"], **doc["parameters"]}
        if isinstance(doc.get("points"), list):
            doc["points"] = [{"hardware": "none", "contention": "off", **p} if isinstance(p, dict) else p
                             for p in doc["points"]]
        version = 3
    if version == 3:   # v4: every point records its TCP (null: the host's, unrecorded)
        doc = dict(doc)
        if isinstance(doc.get("points"), list):
            doc["points"] = [{"tcp": None, **p} if isinstance(p, dict) else p for p in doc["points"]]
        version = 4
    if version == 4:   # v5: every point records its profile's collisions default (off until v5)
        doc = dict(doc)
        if isinstance(doc.get("points"), list):
            doc["points"] = [{"contention_default": "off", **p} if isinstance(p, dict) else p
                             for p in doc["points"]]
        doc["schema_version"] = SCHEMA_VERSION
    return doc


_VALIDATOR = None


def _validator():
    global _VALIDATOR
    if _VALIDATOR is None:
        import jsonschema
        base = jsonschema.validators.validator_for(SCHEMA)
        checker = base.TYPE_CHECKER.redefine("array", lambda _c, x: isinstance(x, (list, tuple)))
        _VALIDATOR = jsonschema.validators.extend(base, type_checker=checker)(SCHEMA)
    return _VALIDATOR


def validate(doc: dict, where: str = "the results document") -> None:
    """BadInput (one line) when doc does not match SCHEMA. A document in memory may hold tuples
    where its file will hold arrays (a flow's path): both are arrays here."""
    import jsonschema
    try:
        _validator().validate(doc)
    except jsonschema.ValidationError as e:
        path = ".".join(str(p) for p in e.absolute_path) or "the top level"
        shown = repr(e.instance)
        msg = e.message if len(shown) <= 60 else e.message.replace(shown, shown[:50] + "...")  # why, not what
        msg = msg if len(msg) <= 160 else msg[:157] + "..."
        raise BadInput(f"{where} does not match results/schema.json at {path}: {msg}")


def load(path: str | Path) -> dict:
    """Read, upgrade and validate a results document; BadInput (one line) otherwise."""
    return load_data(read_bytes(Path(path), "results document", MAX_FILE_BYTES), f"results document {path}")


def load_data(data: bytes, where: str) -> dict:
    """A results document from its bytes (e.g. a member of a lab host's archive), upgraded and
    validated; `where` names it in every error."""
    doc = upgrade(parse_json(data, where), where)
    validate(doc, where)
    for i, p in enumerate(doc["points"]):
        # judged from the measurements, never from a stored verdict (nor from its absence: an
        # older document's points get the gates its measurements allow)
        if isinstance(p.get("rate_mbit"), (int, float)):
            wl = WORKLOADS[p.get("workload") or doc["workload"]]
            try:
                p["gates"] = recompute(p, wl.bounds, wl.concurrent_pairs)
            except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError) as e:
                raise BadInput(f"{where}: point {i} holds a measurement of the wrong kind "
                               f"({type(e).__name__}: {str(e)[:80]}): not a document this tool wrote")
    return doc


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


def new_document(workload: str, parameters: dict, paper: dict | None = None,
                 name: str | None = None) -> dict:
    return {"schema_version": SCHEMA_VERSION, "tool": "beowulf-netlab",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "command": shlex.join(["emulate.py", *sys.argv[1:]]), "name": name,
            "workload": workload, "parameters": parameters, "environment": environment(),
            "paper": paper or {}, "complete": False, "points": []}


def check_writable(path: Path) -> None:
    """Refuse an output path before anything runs (BadInput naming the fix). Missing
    directories are created later; the nearest existing one must take a new file
    (tried for real: permission bits say nothing for root or read-only filesystems)."""
    path = Path(path)
    if path.exists() and path.is_dir():
        raise BadInput(f"output {path} is a directory: give a file name")
    probe = path.parent if str(path.parent) else Path(".")
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        if not probe.is_dir():
            raise NotADirectoryError(f"{probe} is not a directory")
        with tempfile.NamedTemporaryFile(dir=probe, prefix=".netlab-probe-"):
            pass
    except OSError as e:
        raise BadInput(f"cannot write {path}: {probe} does not take new files "
                       f"({getattr(e, 'strerror', None) or e}); choose another --out/--png")


def write_atomic(doc: dict, path: Path, new_point: dict | None = None) -> None:
    """Validate, then replace path with doc in one step (never a half-written file).
    With new_point (the one point appended since the last write of this document),
    the earlier points and the networks' records are not validated again: the
    document with only the new point is (validating every point at every write cost
    0.1 s per point at 50 points, and the networks' applied argv 0.3 s per write at
    four networks); the last write, without new_point, validates the whole."""
    if new_point is not None:
        env = doc.get("environment")
        validate({**doc, "points": [new_point],
                  **({"environment": {**env, "topologies": {}}} if isinstance(env, dict) else {})})
    else:
        validate(doc)
    try:
        # the writes after each point are compact (json's C encoder: indenting a document of
        # a few MB took 0.1 s a write); the last is indented for people
        indent = 1 if new_point is None else None
        try:
            text = json.dumps(doc, indent=indent, default=str, allow_nan=False)
        except ValueError:   # a NaN or infinity, which no reader accepts: recorded as not measured
            text = json.dumps(_finite(doc), indent=indent, default=str, allow_nan=False)
        write_atomic_bytes(path, text)
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror}; choose another --out")


def _finite(value: Any) -> Any:
    """value with every NaN and infinity replaced by None."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


COMMON_CSV = ("point_index", "topology", "rate_mbit", "channels", "nodes", "hardware", "contention",
              "time_scale", "tx_gap_us", "placement", "repeat")


def csv_columns(workload: str) -> list[str]:
    """The CSV's columns: every MB/s column holds the real network's figure (x D on a time-scaled
    point, as the table and plot show it); measured_throughput_mbyte_s is what the scaled network
    carried. A calibration measurement names its calibration (it has no point index)."""
    return ["point_index", "calibration_of", *COMMON_CSV[1:], *WORKLOADS[workload].csv_columns,
            "throughput_mbyte_s", "measured_throughput_mbyte_s", "suspect", "host"]


def write_csv(doc: dict, path: Path) -> None:
    """The point CSV at path, one row per point; the flows' series, where any point has them,
    go to its sibling (intervals_csv_path)."""
    try:
        with atomic_text(path, newline="") as f:
            w = csv.DictWriter(f, fieldnames=csv_columns(doc["workload"]), extrasaction="ignore")
            w.writeheader()
            for p in doc["points"]:
                disk = p.get("disk")
                row = {"time_scale": 1, "tx_gap_us": 0, **p, "suspect": p["fidelity"].get("suspect") or "",
                       "disk": disk.get("profile") if isinstance(disk, dict) else disk,
                       "measured_throughput_mbyte_s": p.get("throughput_mbyte_s"),
                       **{k: real_rate(p, k) for k in WORKLOADS[doc["workload"]].rate_keys
                          if isinstance(p.get(k), (int, float))}}
                w.writerow({k: csv_cell(v) for k, v in row.items()})
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror}; choose another --out")
    write_intervals_csv(doc, intervals_csv_path(path))


INTERVALS_CSV = ("point_index", "calibration_of", "flow", "time_scale", "t_s", "mbit_s", "retransmits")


def intervals_csv_path(path: Path) -> Path:
    """The per-point CSV's sibling that holds the flows' series (x.csv: x-intervals.csv)."""
    return Path(path).with_name(Path(path).stem + "-intervals.csv")


def write_intervals_csv(doc: dict, path: Path) -> bool:
    """One row per sample of every flow's series (the point CSV has one row per point, so the
    series are apart): t_s and mbit_s as the real network's, like the point CSV's MB/s.
    False (nothing written) when no point has a series."""
    rows = [{"point_index": p.get("point_index"), "calibration_of": p.get("calibration_of"), "flow": flow,
             "time_scale": time_scale_of(p), "t_s": round(t, 6), "mbit_s": round(mbit, 6),
             "retransmits": retrans}
            for p in doc["points"] for flow, samples in real_intervals(p) for t, mbit, retrans in samples]
    if not rows:
        return False
    try:
        with atomic_text(path, newline="") as f:
            w = csv.DictWriter(f, fieldnames=INTERVALS_CSV)
            w.writeheader()
            for row in rows:
                w.writerow({k: csv_cell(v) for k, v in row.items()})
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror}; choose another --out")
    return True


def write_schema() -> None:
    write_atomic_bytes(SCHEMA_FILE, json.dumps(SCHEMA, indent=2) + "\n")


if __name__ == "__main__":
    write_schema()
    print(f"wrote {SCHEMA_FILE}")
