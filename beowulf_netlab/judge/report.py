"""The reproduction report: the papers' claims beside our measurements, with verdicts.

From results documents (one per experiment, matched by name) and the claims
file, write a report directory: report.md (the Markdown record), a
self-contained report.html (its figures embedded, no script, readable from a
phone's 420 px to a desktop's 1400 px) and figures/. It holds the claims, each
judged on every hardware view side by side (paper value, measured value with
its unit and spread, a coloured verdict, the reason and the gap filled from
this run's numbers), the calibration points, one section per paper figure
with the paper's values overlaid, the fidelity gates, the labelled
environment (kernel, TCP, bonding and switch implementations, host load),
what the emulation does not model with the direction of each bias, and a
glossary.

Both files are built from one structured model (`model`): report.md by
`markdown`, report.html by the Jinja2 template templates/report.html.j2.
"""
from __future__ import annotations

import base64
import json
import statistics
import struct
import time
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.values import human_size
from beowulf_netlab.core.safefile import write_atomic_bytes
from beowulf_netlab.core.text import md_cell, plain
from beowulf_netlab.run.calibration import MET, MISSED, load_calibrations
from beowulf_netlab.judge import fitted
from beowulf_netlab.judge import heldout
from beowulf_netlab.judge import sensitivity as sensitivity_table
from beowulf_netlab.judge.sensitivity import UNDETERMINED
from beowulf_netlab.judge.validation import ABOVE, BELOW, IN_BAND, NOT_MEASURED, readings
from beowulf_netlab.judge.validation import experiments as era_experiments
from beowulf_netlab.run.experiment import experiment_files
from beowulf_netlab.netlab.manifest import wire_of
from beowulf_netlab.netlab.medium import first_segment
from beowulf_netlab.run.point import REPEATS, field_named
from beowulf_netlab.run.sweep import UNREAD_LEFT_OUT
from beowulf_netlab.workloads import WORKLOADS
from beowulf_netlab.core.jsonfile import read_json
from beowulf_netlab.judge.claims import (show, CALIBRATION, CONSEQUENCE, FORCED, IN_SHAPE, NOT_CHECKABLE, NOT_REPRODUCED, REPRODUCED, TESTED,
                             TODAY, PAPER, CONTENDED, VIEWS, calibrations, judge_all, load_claims, summary,
                             view, views_present)
from beowulf_netlab.judge.plot import plot
from beowulf_netlab.run.gates import LONE_RTT_TOLERANCE
from beowulf_netlab.judge.table import table, trusted
from beowulf_netlab.core.verdicts import MEANING, Answer, Forced
from beowulf_netlab.topologies.hardware import describe_tcp, hardware_of

TEMPLATES = Path(__file__).resolve().parent / "templates"

# the collision row depends on which wire carried the 1996 hubs (the medium engine or the tc wire)
CSMA_ROW = ("CSMA/CD",)
CSMA_ROWS = {
    "engine": ("CSMA/CD: the medium engine runs it frame by frame on every shared wire, today's hosts' "
               "and the 1996 profiles' alike (deferral, collisions, jam, backoff, drop after 16 attempts), "
               "with one propagation delay between every two stations, not the cable's geometry",
               "collision windows slightly too uniform"),
    "tc": ("tc wire: CSMA/CD collisions, jam and backoff: every shared wire, today's hosts' too, is "
           "charged their average (Metcalfe-Boggs) cost per frame and drops a frame after 16 collisions, "
           "not each collision's timing or the capture effect",
           "the tc wire errs slow and drops too often (Boggs, Mogul and Kent 1988)"),
}
NOT_MODELLED = [
    ("profiles' TCP: the era's buffers, window, minimum RTO and (1.2) missing fast retransmit are "
     "set, but its delayed-ACK timer, round-trip estimator and receive-window growth are today's "
     "kernel's; a switched (full-duplex) wire loses no frame (a shared one drops after 16 collisions), "
     "so there the RTO never acts",
     "loss recovery too FAST on the paper's hardware"),
    ("today's hosts (--hardware none): no per-packet or per-byte cost, no relay cost",
     "throughput too HIGH wherever the 1996 hosts were the limit; the hardware profiles add it"),
    ("profiles: the network card's own latency and its gap between frames are ranged constants "
     "(card latency 0-355 us on both systems; Tx-done gap 0-90 us on the prototype, 40-70 us on the "
     "Tulip, era-machines.md M2 and M6), run at a headline inside each range and at both ends "
     "(Decided by the sources?): no source measured them; on the tc wire without netem a lone "
     "packet after idle time is not delayed (the medium engine delays it); iperf3 and the MPI "
     "tests pay no per-message or disk cost",
     "either way inside the ranges: a verdict the ends flip reads 'undetermined by the sources'"),
    ("profiles: the demonstration system's PCI bus shared by disk and cards (declared, not emulated: "
     "at most 21 % of it used; the prototype's ISA transfers are all the CPU's PIO, so its budget is "
     "that bus's queue); the cards' receive rings (declared, not emulated: never full on the prototype, "
     "filled by one flow's window on the demonstration system when the interrupt does all of a frame's "
     "work); the interrupts' own CPU time (charged as the "
     "card's latency, time that occupies no CPU)",
     "remote copies at 100 Mbit/s slightly too FAST"),
    CSMA_ROW,
    ("an IDE head serving reads and writes in turn (the kernel throttle keeps separate budgets)",
     "remote copies slightly too SLOW relative to local ones"),
]
SHORT = {TODAY: "today", PAPER: "paper hardware", CONTENDED: "collisions switched"}
HOW = {TODAY: "--hardware none", PAPER: "each figure's hardware profile (its collisions default included)",
       CONTENDED: "each figure's hardware profile, --contention against its default"}
TITLES = {TODAY: "Today's hosts", PAPER: "The paper's hardware",
          CONTENDED: "The paper's hardware, collision model switched"}
# verdict -> CSS class of its badge: green, amber, red, grey, blue, neutral (the text always says it too)
VERDICT_CLASS = {REPRODUCED: "ok", IN_SHAPE: "shape", NOT_REPRODUCED: "bad", NOT_CHECKABLE: "na",
                 UNDETERMINED: "na", CALIBRATION: "cal", TESTED: "tested", FORCED: "forced", CONSEQUENCE: "cal", MET: "ok", MISSED: "bad",
                 fitted.NOT_PREDICTED: "na"}
LEGEND = [
    (REPRODUCED, "within the tolerance declared from the paper's own precision, in every run"),
    (IN_SHAPE, "the relation the claim states holds in every run, the number is outside the tolerance: "
               "counted apart, weaker evidence"),
    (NOT_REPRODUCED, "outside the tolerance; also when only the emulator's known bias gives the relation"),
    (NOT_CHECKABLE, "not measured, a failed fidelity gate, a calibration not met, beyond a physical bound, "
                    "one run only, or noisy"),
    (CALIBRATION, "the model was set from this value: met or missed, never evidence"),
    (TESTED, "a fact checked by a named test, not by an experiment"),
    (FORCED, "it would pass whatever its points read within what the model admits (beowulf_netlab/judge/forced.py): "
             "it cannot fail on this view, so it is no evidence; the report names what forced it: the "
             "wiring, a calibration or the model's construction"),
    (CONSEQUENCE, "its number follows from calibration points (the claim names which and why): shown "
                  "as judged, counted apart, never evidence"),
    (UNDETERMINED, "on the paper's hardware the verdict differs between the ends of a constant the era "
                   "sources give only as a range (beowulf_netlab/hardware/*.json; the claim names it): counted apart"),
    (fitted.NOT_PREDICTED, "fitted view only: the claim reads a point never measured at the ends of the "
                           "constants fitted, so the fit cannot move it: counted apart, never judged as fitted"),
]
GLOSSARY = [
    ("verified", "a paper value read in a stored excerpt of the paper itself (docs/papers.md)."),
    ("seed", "a paper value stated only in the project's seed texts - the papers' own prose as the project "
             "received it - and not found in the stored paper excerpts: weaker than verified."),
    ("derived", "a paper value computed from other paper values, with the arithmetic shown in "
                "docs/papers.md; no firmer than its inputs."),
    ("today's hosts", "view --hardware none: the wires are 1996's (10 or 100 Mbit/s, shared), the hosts are "
                      "this machine's, with no per-packet or per-byte cost."),
    ("the paper's hardware", "view with the hardware profile of the machine the figure ran on "
                             "(beowulf_netlab/hardware/*.json): its disks and its per-packet and per-byte host cost, "
                             "its TCP, and on the 1996 machines' shared wires CSMA/CD contention."),
    ("contention", "the CSMA/CD model (on by default on every shared wire, --contention on|off sets it): on "
                   "the medium engine every frame on a shared wire defers, collides, jams and backs off as "
                   "IEEE 802.3 says and is dropped after 16 attempts; on the tc wire each frame is charged "
                   "the average cost of collisions, jam and backoff (Metcalfe-Boggs), and a frame is "
                   "dropped after 16 collisions."),
    ("fidelity gate", "a check every point must pass to be trusted: no free bandwidth, within the wires' "
                      "capacity, within its disks' (and ports') rate, no saturated CPU or emulator thread, "
                      "no stalled transport, pairs that ran at once (see Fidelity gates). A claim reading "
                      "a failed point is not checkable."),
    ("repeats", "the points a claim reads run several times (quick: {quick}, full: {full}: the experiment "
                "files' own counts); the rest of each curve once with reproduce --curves, else not at all "
                "(the figures then hold the points the claims read); the median is judged, and the check is "
                "run again on each repeat alone."),
    ("spread", "half the range of the repeats, relative to their median (+- x %)."),
    ("tolerance", "how far from the paper's value still counts as reproduced, relative and two-sided, "
                  "declared from the paper's own precision before running."),
    ("gap", "what explains a difference from the paper, a text filled with this run's numbers."),
    ("local-wire", "placement on the meshes: the two nodes of a pair share a wire."),
    ("remote-wire", "placement on the meshes: the two nodes of a pair share no wire; their traffic crosses "
                    "a switch (switched mesh) or a relay node (routed mesh)."),
    ("remote copies", "file copies whose source disk is on another node, so the file crosses the network."),
    ("D (time scale)", "--time-scale D divides every rate (wires, disks, host costs) by D so that one host "
                       "can emulate the 2001 cluster; points record their MB/s x D, which the report uses."),
    ("x", "times: a ratio of two throughputs."),
    ("MB/s", "10^6 bytes of payload per second (the papers do not say whether their MB is 10^6 or 2^20)."),
    ("Mbit/s", "a link's line rate."),
]
# selection keys as the report names them ("" - the value says it: a topology, a placement)
_KEYS = {"remote": "remote copies", "pairs": "pairs", "token_size": "token", "file_size": "file",
         "nodes": "nodes", "local_fraction": "local fraction", "channels": "channels",
         "topology": "", "placement": "", "test": ""}
_METRICS = {"read_mbyte_s": "read", "write_mbyte_s": "write", "throughput_mbyte_s": "throughput"}


def gate_summary(docs: dict[str, dict]) -> list[tuple[str, int, int, list[str]]]:
    out = []
    for name, doc in docs.items():
        failed = [p for p in doc["points"] if not trusted(p)]
        reasons = []
        for p in failed[:5]:
            why = (p.get("gates") or {}).get("failed") or [p["fidelity"].get("suspect")]
            reasons.append(f"point {p.get('point_index')} ({p['topology']} {p['placement']}): {why[0]}")
        again = sum(1 for p in doc["points"] if p.get("remeasured"))
        if again:   # run.gates.host_stalled: the first go was discarded, the second is the record
            reasons.append(f"{again} point(s) measured again after a passing stall of the host")
        kept = sum(1 for p in doc["points"] if p.get("not_remeasured"))
        if kept:    # run.runner.SECOND_GOES: a network whose second goes kept failing
            reasons.append(f"{kept} point(s) not measured again: second goes on their network had failed too")
        out.append((name, len(doc["points"]), len(failed), reasons))
    return out


LOCKED = 1.3     # one bonded wire this many times busier than the other: striping locked on


def bonding_balance(docs: dict[str, dict]) -> list[list[str]]:
    """Bonded points whose wires carried very different loads: experiment, hardware, point,
    repeat, wire utilisation."""
    rows = []
    for name, doc in docs.items():
        for p in doc["points"]:
            util = (p.get("fidelity") or {}).get("wire_utilisation") or {}
            bonded = p["channels"] is not None and p["channels"] > 1   # asked of the point, not its topology's name
            if not bonded or len(util) < 2 or min(util.values()) <= 0:
                continue
            if max(util.values()) / min(util.values()) > LOCKED:
                what = ", ".join(_kv(a.name, p[a.name]) for a in WORKLOADS[p["workload"]].axes
                                 if a.many and p.get(a.name) is not None)
                rows.append([name, hardware_of(p), what, str(p["repeat"]),
                             ", ".join(f"{w} {u:.2f}" for w, u in sorted(util.items()))])
    return rows


def glossary() -> list[tuple[str, str]]:
    """The glossary, with the repeat counts read from the experiment files (never restated)."""
    full, quick = set(), set()
    read = {n for c in load_claims() for n in c["experiments"]} | set(era_experiments()) | {heldout.EXPERIMENT}
    for name, path in experiment_files().items():
        if name not in read:
            continue
        data = read_json(path, "experiment file")
        runs = data["sweep"].get("repeats", REPEATS.default)
        full.add(runs)
        quick.add((data.get("quick") or {}).get("repeats", runs))
    counts = {"quick": "/".join(map(str, sorted(quick))), "full": "/".join(map(str, sorted(full)))}
    return ([(term, text.format(**counts) if term == "repeats" else text) for term, text in GLOSSARY]
            + [(str(word), meaning) for word, meaning in MEANING.items() if not isinstance(word, Answer)])


def not_modelled(docs: dict[str, dict]) -> list[tuple[str, str]]:
    """What the model leaves out, with the collision row of each wire implementation that ran."""
    wires = sorted({t.get("wire_impl") or "tc" for d in docs.values()
                    for t in d["environment"].get("topologies", {}).values()}) or ["engine"]
    rows: list[tuple[str, str]] = []
    for row in NOT_MODELLED:
        rows += [CSMA_ROWS[w] for w in wires if w in CSMA_ROWS] if row is CSMA_ROW else [row]
    return rows


def wire_example(docs: dict[str, dict]) -> list[str]:
    """How one wire of the first network was made, as an example of the whole record: the tc argv
    applied to it (tc wire), or the medium engine's configuration lines for it."""
    for doc in docs.values():
        for net, env in doc["environment"].get("topologies", {}).items():
            for owner, cmds in (env.get("applied_commands") or {}).items():
                if wire_of(owner) is None:   # a node's or the host's, not a wire's
                    continue
                tc = [" ".join(c["argv"]) for c in cmds if c["argv"][0] == "tc"]
                if tc:
                    return [f"{net}, wire {owner}:"] + tc[:12]
                first = first_segment((env.get("medium") or {}).get("config") or [])
                if first:
                    seg, segment, ports = first
                    return ([f"{net}, wire {seg} (medium engine configuration):"] + segment + ports[:3]
                            + ([f"... {len(ports) - 3} more ports"] if len(ports) > 3 else []))
    return []


def _distinct(values) -> str:
    return ", ".join(sorted({str(v) for v in values})) or "-"


def environment(docs: dict[str, dict]) -> list[tuple[str, str]]:
    """The environment the documents were measured in, as (label, value) pairs."""
    envs = [d["environment"] for d in docs.values()]
    if not envs:
        return []
    e = envs[0]
    nets = [t for env in envs for t in env.get("topologies", {}).values()]
    points = [p for d in docs.values() for p in d["points"]]
    commits: dict[str, int] = {}
    for env in envs:
        commits[str(env.get("project_commit"))] = commits.get(str(env.get("project_commit")), 0) + 1
    out = [("kernel", f"{_distinct(env.get('kernel') for env in envs)} ({e.get('machine', '?')})"),
           ("CPUs", _distinct(env.get("cpus") for env in envs)),
           ("Python", _distinct(env.get("python") for env in envs)),
           ("tools", ", ".join(e.get("tools") or []) or "-"),
           ("project commit", ", ".join(f"{c} ({n} document{'s' if n > 1 else ''})" for c, n in
                                        sorted(commits.items())) + " (-dirty: with uncommitted changes)"),
           ("measuring host", _distinct(p.get("host", "?") for p in points))]
    load = [p["fidelity"]["host_cpu_mean"] for p in points
            if isinstance((p.get("fidelity") or {}).get("host_cpu_mean"), (int, float))]
    peak = [p["fidelity"]["host_cpu_max"] for p in points
            if isinstance((p.get("fidelity") or {}).get("host_cpu_max"), (int, float))]
    if load:
        out.append(("host load", f"all CPUs busy {statistics.median(load):.0%} during the median point, "
                                 f"{max(load):.0%} during the busiest (highest sample {max(peak, default=0):.0%}); "
                                 "the emulation's own work included"))
    else:
        out.append(("host load", "not recorded"))
    bonding = {t.get("bonding_impl") for t in nets if t.get("bonding_impl")}
    out.append(("bonding implementation", ", ".join(sorted(bonding)) or "none (no bonded network)"))
    switches = {t.get("switch_impl") for t in nets if t.get("switch_impl")}
    out.append(("switch implementation", ", ".join(sorted(switches)) or "none (no switched network)"))
    wires = {t.get("wire_impl") or "tc" for t in nets}
    out.append(("wire implementation", ", ".join(sorted(
        "engine (frame-timed medium engine: every frame takes its wire time)" if w == "engine"
        else "tc (bridge + HTB: bandwidth only, a lone frame pays no wire time)" for w in wires))))
    out.append(("netem", _distinct(t.get("netem") or "off" for t in nets)))
    out.append(("hardware profiles (host cost implementation)",
                ", ".join(sorted({f"{hardware_of(t)} ({t.get('host_cost_impl') or 'no host cost'})"
                                  for t in nets}))))
    out.append(("CSMA/CD contention model", _distinct(
        "per frame (medium engine)" if t.get("wire_impl") == "engine" and t.get("collisions_modelled")
        else "average cost (tc wire)" if t.get("collision_controller") else "off" for t in nets)))
    lone = [(t["latency_modelled"], t.get("host_cost_impl")) for t in nets if t.get("latency_modelled") is not None]
    if lone:
        out.append(("a lone packet's latency on the profiles",
                    _distinct(("delayed by the per-packet cost (medium engine)" if impl == "ifb-htb+engine-latency"
                               else "delayed by the per-packet cost (netem)") if v
                              else "not delayed (no netem: throughput cost only)" for v, impl in lone)))
    paths = {}
    for env in envs:
        for key, t in (env.get("topologies") or {}).items():
            hp = t.get("host_path")
            if hp and hp.get("path_us") is not None:
                paths.setdefault(key, []).append(hp)
    if paths:
        out.append(("this host's own path, taken off the engine's delays (run.hostpath)",
                    "; ".join(_host_path_text(key, hps) for key, hps in sorted(paths.items()))))
    gaps = {p["tx_gap_us"] for p in points}   # every point records its cards' gap (0: none)
    if gaps - {0}:
        out.append(("network cards' gap between frames", _distinct(f"{g:g} us" if g else "none" for g in gaps)))
    tcp = {}
    for p in points:
        if p.get("tcp"):
            tcp.setdefault(hardware_of(p), describe_tcp(p["tcp"]))
    host = next((t.get("tcp_host_default") for t in nets if t.get("tcp_host_default")), None)
    for hw, text in sorted(tcp.items()):
        out.append((f"TCP on hardware {hw}", text))
    if tcp:
        out.append(("this host's own TCP", f"{host or 'unknown'}: never used (each node's namespace is set "
                                           "and read back)"))
    else:
        out.append(("TCP", "not recorded (documents from before results v4 ran the host's own TCP)"))
    out.append(("where the time went", time_split(docs)))
    sysctl = [f"{k} {e[k]}" for k in ("bridge_nf_call_iptables", "tcp_reordering") if k in e]
    if sysctl:
        out.append(("host sysctls", ", ".join(sysctl)))
    # what shards from lab hosts say of themselves: one line each, nothing a terminal would run
    return [(label, plain(value)) for label, value in out]


def time_split(docs: dict[str, dict]) -> str:
    """Wall time by phase over every network the documents built (results v4 `timing`)."""
    timings = [t["timing"] for d in docs.values() for t in d["environment"].get("topologies", {}).values()
               if t.get("timing")]
    if not timings:
        return "not recorded (documents from before timing was recorded)"
    total = {k: sum(t[k] for t in timings) for k in ("build_s", "prepare_s", "points_s", "teardown_s")}
    whole = sum(total.values()) or 1.0
    names = {"build_s": "building networks", "prepare_s": "preparing disks and daemons",
             "points_s": "measuring points", "teardown_s": "tearing down"}
    engine = [t for t in timings if "engine_cpu_s" in t]
    cpu = (f"; the medium engine used {sum(t['engine_cpu_s'] for t in engine):.0f} s of CPU over the "
           f"{sum(t['points_s'] for t in engine):.0f} s its {len(engine)} networks measured" if engine else "")
    return (f"{whole / 60:.1f} minutes over {len(timings)} networks and {sum(t['points'] for t in timings)} "
            "points: " + ", ".join(f"{names[k]} {v:.0f} s ({v / whole:.0%})" for k, v in total.items()) + cpu)


def _host_path_text(key: str, records: list[dict]) -> str:
    """One network's host path records (run.hostpath) in a phrase: what came off, its median."""
    def values(name: str) -> str:
        return _distinct(f"{r[name]:g}" for r in records if r.get(name) is not None)
    median = values("median_path_us")
    return (f"{key}: {values('path_us')} us a round trip at its quickest"
            + (f" (median {median})" if median else "") + f", {values('less_per_pass_us')} us off each delay")


def environment_lines(docs: dict[str, dict]) -> list[str]:
    return [f"{label}: {value}" for label, value in environment(docs)]


# -- measured values with their units and labels --------------------------------------------------

def _val(key: str, v) -> str:
    if isinstance(v, list):
        if len(v) > 2 and all(isinstance(x, int) for x in v) and v == list(range(v[0], v[-1] + 1)):
            return f"{v[0]}-{v[-1]}"
        return "/".join(_val(key, x) for x in v)
    declared = field_named(key)
    if declared is not None and declared.unit == "B" and isinstance(v, int):   # a size, as its declaration says
        return f"{human_size(v)}B"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _kv(key: str, v) -> str:
    """'remote copies 4-7', 'token 8KB', 'local-wire', '100 Mbit/s'."""
    if key == "rate_mbit":
        return f"{_val(key, v)} Mbit/s"
    return f"{_KEYS.get(key, key.replace('_', ' '))} {_val(key, v)}".strip()


def _labels(sels: list[dict], context: list[dict] | None = None) -> list[str]:
    """What tells selections apart: the keys (and metric) in which they differ from the others
    of the context (default: of each other)."""
    context = context or sels
    out = []
    for s in sels:
        where = s.get("where", {})
        parts = [_kv(k, where[k]) for k in where
                 if any(o.get("where", {}).get(k) != where[k] for o in context)]
        if len({o.get("metric") for o in context}) > 1:
            parts.append(_METRICS.get(s.get("metric") or "throughput_mbyte_s", s.get("metric")))
        out.append(", ".join(parts))
    return out


def _pair(a: str, b: str, sep: str) -> str:
    """'remote copies 0' and 'remote copies 7' -> 'remote copies 0 / 7'; '' when either is unnamed."""
    if not a or not b:
        return ""
    if " " in a and " " in b and "," not in a + b and a.rsplit(" ", 1)[0] == b.rsplit(" ", 1)[0]:
        return f"{a} {sep} {b.rsplit(' ', 1)[1]}"
    return f"{a} {sep} {b}"


def _num(v, unit: str) -> str:
    return f"{show(v, 'not measured')} {unit}".strip() if v is not None else "not measured"


def _x(key: str, x) -> str:
    try:
        x = int(x)
    except (TypeError, ValueError):
        pass
    return _kv(key, x)


def _selections(check: dict) -> list[dict]:
    out = [check[k] for k in ("select", "a", "b") if k in check] + list(check.get("items", []))
    for sub in [check.get("first"), check.get("second"), *check.get("checks", [])]:
        out += _selections(sub) if sub else []
    return out


def _parts(check: dict, measured, unit: str | None, top: bool,
           context: list[dict] | None = None) -> list[tuple[str, str]]:
    """(label, number with unit) for each number a check measured; labels tell the numbers apart
    by what differs among the selections of the context (a check of kind all: all of its parts')."""
    kind = check["kind"]
    if kind == "all":
        out: list[tuple[str, str]] = []
        for sub, m in zip(check["checks"], measured):
            out += [p for p in _parts(sub, m, unit, False, _selections(check)) if p not in out]
        return out
    if kind == "value":
        sel = check["select"]
        u = (unit or "") if "scale" in sel else "MB/s"
        label = "" if top else _labels([sel], context)[0]
        return [(label, _num(measured, u))]
    if kind in ("ratio", "drop"):
        la, lb = _labels([check["a"], check["b"]], context)
        if isinstance(measured, list):         # the divisor measured 0: both numbers
            return [(la or "a", _num(measured[0], "MB/s")), (lb or "b", _num(measured[1], "MB/s"))]
        own = top and unit and not (kind == "ratio" and unit.startswith("x"))
        if kind == "ratio":
            return [("" if own else _pair(la, lb, "/"), _num(measured, f"x ({unit})" if own else "x"))]
        return [("" if own else _pair(la, lb, "->"), _num(measured, unit if own else "fraction lost"))]
    if measured is None:
        return [("", "not measured")]
    if kind == "order":
        labels = _labels(check["items"], context)
        return [(lab, _num(m, "" if "scale" in sel else "MB/s"))
                for lab, m, sel in zip(labels, measured, check["items"])]
    if kind == "ratio_order":
        out = []
        for n, part, m in zip(("first", "second"), (check["first"], check["second"]), measured):
            la, lb = _labels([part["a"], part["b"]])
            out.append((_pair(la, lb, "/") or f"{n} ratio", _num(m, "x")))
        return out
    over = check.get("over", "x")
    if kind == "converge":
        la, lb = _labels([check["a"], check["b"]])
        key = [(f"per {_kv(over, '').strip() or over}", f"{la or 'a'} / {lb or 'b'}")]
        return key + [(_x(over, x), f"{' / '.join(show(v) for v in ab)} MB/s") for x, ab in measured.items()]
    return [(_x(over, x), _num(y, "MB/s")) for x, y in measured.items()]


def measured_parts(claim: dict, measured) -> list[tuple[str, str]]:
    """A claim's measured value as (label, number with its unit) pairs: the unit from the check
    (MB/s, x, fraction lost) or the paper's, the label naming what each number is."""
    if claim["check"]["kind"] == "tested":
        return [("", "a test, not a measurement")]
    if measured is None:
        return [("", "not measured")]
    try:
        return _parts(claim["check"], measured, claim["paper"].get("unit"), True)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return [("", show(measured))]


def _parts_text(parts: list[tuple[str, str]]) -> str:
    return "; ".join(f"{label}: {text}" if label else text for label, text in parts)


def _spread(x: dict) -> str:
    if x.get("repeats", 0) > 1 and isinstance(x["measured"], (int, float)):
        return f"+-{x['spread']:.1%}, {x['repeats']} runs"
    if x.get("repeats", 0) > 1:
        return f"{x['repeats']} runs, points spread up to +-{x['spread']:.1%}"
    if x.get("repeats") == 1:
        return "1 run"
    return ""


def calibration_rows(docs: dict[str, dict], shown: list[str]) -> list[dict]:
    """The calibration table: per view and experiment, each calibration point its points rest on,
    its target, its measurement there and its verdict."""
    cals = load_calibrations()
    rows = []
    for w in shown:
        for name, vs in calibrations(view(docs, w), cals).items():
          for v in vs:
            metric = next((c["metric"] for c in cals if c["id"] == v["id"]), "")
            unit = "ms" if metric.endswith("_ms_median") else "MB/s"    # a round trip, or a rate
            measured = "not measured" if v["measured"] is None else \
                f"{v['measured']:.3g} {unit} (+-{v['spread']:.1%}, {len(v['values'])} runs)"
            rows.append({"view": SHORT[w], "experiment": name, "id": v["id"], "what": v["what"],
                         "target": f"{v['target']:g} {unit} +- {v['tolerance']:.0%}", "measured": measured,
                         "verdict": v["verdict"], "class": VERDICT_CLASS.get(v["verdict"], "na"),
                         "why": v["reason"]})
    return rows


def sensitivity_rows(claims: list[dict], docs: dict[str, dict], variant_docs: dict[str, dict]) -> list[dict]:
    """The sensitivity table: per variant and claim, the verdict as run and with the variant."""
    return [{**r, "set": ", ".join(f"{k} {v}" for k, v in r["set"].items()),
             "class": VERDICT_CLASS.get(r["variant_verdict"], "na")}
            for r in sensitivity_table.rows(claims, docs, variant_docs)]


def era_rows(docs: dict[str, dict]) -> list[dict]:
    """The era validation table (beowulf_netlab/claims/era-checks.json): each 1996 profile against a figure
    measured on such a machine outside the papers, with its band; read, never judged."""
    rows = []
    for r in readings(docs):
        measured = "not measured" if r["measured"] is None else \
            f"{r['measured']:.3g} {r['unit']} (+-{r['spread']:.1%}, {len(r['values'])} runs)"
        rows.append({"profile": r["profile"], "id": r["id"], "what": r["what"],
                     "era": f"{r['era_value']:g} {r['unit']}", "band": f"{r['band'][0]:g}-{r['band'][1]:g} {r['unit']}",
                     "measured": measured, "reads": r["reads"],
                     "class": {IN_BAND: "ok", NOT_MEASURED: "na"}.get(r["reads"], "shape"),
                     "why_band": r["why_band"], "source": r["source"], "reason": r["reason"],
                     "lacks": r["lacks"] if r["reads"] in (ABOVE, BELOW) else None})
    return rows


# -- the model both files are built from ----------------------------------------------------------

def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24])
    return 0, 0


def _claims(claims: list[dict], by_view: dict[str, list[dict]]) -> list[dict]:
    out = []
    for claim, rows in zip(claims, zip(*by_view.values())):
        r = rows[0]
        bias = (claim.get("bias") or {}).get("why", "")
        views = []
        for x in rows:
            # the page's why stays short: the bias the reason quotes goes beside the gap
            short = x["reason"].replace(f" ({bias})", "") if bias else x["reason"]
            views.append({"key": x["hardware"], "title": TITLES[x["hardware"]], "short": SHORT[x["hardware"]],
                          "verdict": x["verdict"], "class": VERDICT_CLASS[x["verdict"]],
                          "parts": measured_parts(claim, x["measured"]), "spread": _spread(x),
                          "why": x["reason"], "why_short": short,
                          "bias": bias if short != x["reason"] else "", "gap": x["gap"]})
        same = len(views) > 1 and all((v["verdict"], v["why"], v["parts"], v["gap"]) ==
                                      (views[0]["verdict"], views[0]["why"], views[0]["parts"], views[0]["gap"])
                                      for v in views)
        paper = r["paper"]
        value = paper["value"]
        out.append({"id": r["id"], "source": r["source"], "statement": r["statement"],
                    "paper": (f"{value:g} {paper.get('unit', '')}".strip() if not isinstance(value, str)
                              else value),
                    "status": paper["status"], "precision": paper.get("precision", ""),
                    "shares": [s for s in r["shares"] if s != r["id"]], "counted": r["counted"],
                    "views": views, "same": same})
    return out


FORCING_TEXT = ("Whether each verdict could have come out otherwise (beowulf_netlab/judge/forced.py, beowulf_netlab/judge/bounds.py): each "
                "point a claim reads may read anything the model admits it: at most what its wires carry "
                "(each wire's payload limit shared by every flow that crosses it), its disks, its CPU "
                "budget and, for a lone pair, its round trip allow; at least 0, except that a point measuring "
                "a calibration, or that the claim's own text ties to one, reads its band. A claim that passes "
                "everywhere in that range cannot fail: it is shown as forced by construction, never "
                "reproduced, with what forced it, tried in this order: the wiring alone, a calibration, "
                "the model's construction (its own caps, and two readings it makes equal, which only an "
                "emulator defect of the size named can part). Every other claim is shown with a reading "
                "that flips it: one value per point it reads, each inside its range, that the judge fails.")


def forcing_rows(by_view: dict[str, list[dict]]) -> list[dict]:
    """Per judged claim and view: can it fail, what forced it or a reading that flips it, and the
    readings it admits (the judge's analysis)."""
    out = []
    for w, rows in by_view.items():
        for r in rows:
            c = r.get("can_fail")
            if not c or r["verdict"] in (TESTED, CALIBRATION) or r["calibration"]:
                continue
            say = "not analysed" if not c["analysed"] else "cannot fail" if c["forced"] else "can fail"
            out.append({"id": r["id"], "view": SHORT[w], "can": say,
                        "class": "forced" if say == "cannot fail" else "na" if say == "not analysed" else "ok",
                        "by": f"forced by {c['kind']}" if c["forced"] else
                              f"flips to {c['flip_verdict']} at {c['flip']}" if c.get("flip") else "",
                        "why": c["why"]})
    return out


def forced_list(rows: list[dict]) -> list[dict]:
    """One view's claims that could not have failed, each with what forced it and why: the tally's
    'reproduced' leaves them out (their verdict is forced by construction), the report lists them."""
    return [{"id": r["id"], "kind": str(r["can_fail"]["kind"]), "verdict": r["verdict"], "why": r["can_fail"]["why"]}
            for r in rows if (r.get("can_fail") or {}).get("forced") and r["counted"]]


def partial(docs: dict[str, dict]) -> list[str]:
    """The experiments whose documents left out the points no claim reads (reproduce without
    --curves, and --quick: results documents' unread_points): their curves are partial."""
    return [name for name, doc in docs.items() if doc.get("unread_points") == UNREAD_LEFT_OUT]


PARTIAL_TEXT = ("Partial curves: the points no claim reads were not measured in {names} (reproduce measures "
                "what a claim or a calibration reads, and the points experiments that share them measure "
                "anyway; reproduce --curves measures the rest of each curve once). Their figures and tables "
                "hold those points alone: a configuration no claim reads is not drawn, a line joins only "
                "neighbours both measured, and a cell not measured reads -.")


def _figures(docs: dict[str, dict], figdir: Path) -> list[dict]:
    out = []
    cut = partial(docs)
    for name, doc in docs.items():
        paper = doc.get("paper") or {}
        images = []
        for png in map(Path, plot(doc, str(figdir / f"{name}.png"))):
            width, height = _png_size(png)
            images.append({"file": f"figures/{png.name}", "path": png, "width": width, "height": height,
                           "alt": f"{name}: {'by network' if png.stem.endswith('-networks') else 'measured'} "
                                  f"throughput, the paper's values overlaid"
                                  + ("; partial: only the points the claims read (reproduce --curves measures "
                                     "the whole curves)" if name in cut else "")})
        out.append({"name": name, "source": paper.get("source", "-"), "hardware": paper.get("hardware", "-"),
                    "choices": paper.get("choices", []), "images": images, "table": table(doc)})
    return out


def model(docs: dict[str, dict], out: Path, quick: bool, claims_path: Path | None = None,
          elapsed_s: float | None = None, sensitivity: dict[str, dict] | None = None,
          tests: dict[str, str] | None = None, ranges: list[dict] | None = None) -> dict:
    """Everything the report says, as data: judged claims, calibration, figures (written into
    out/figures), gates, bonding, environment, the unmodelled, the glossary. ranges: the range-end
    variants reproduce ran (judge.sensitivity.range_variants; their documents are in sensitivity)."""
    figdir = out / "figures"
    figdir.mkdir(exist_ok=True)
    claims = load_claims(claims_path) if claims_path else load_claims()
    shown = views_present(docs) or [TODAY]
    by_view = {w: judge_all(claims, docs, w, tests=tests) for w in shown}
    states = sensitivity_table.decided(claims, docs, sensitivity or {}, ranges, quick) \
        if ranges and PAPER in by_view else {}
    era = by_view.get(PAPER)       # the paper view's verdicts as run: the fitted view sets them beside its own
    if PAPER in by_view:
        by_view[PAPER] = sensitivity_table.apply_decided(by_view[PAPER], states)
    summaries = []
    for w, verdicts in by_view.items():
        counts = summary(verdicts)
        main = [(v, counts.get(v, 0)) for v in (REPRODUCED, NOT_REPRODUCED, NOT_CHECKABLE)]
        apart = [(v, counts[v], VERDICT_CLASS[v]) for v in (IN_SHAPE, UNDETERMINED, CALIBRATION, CONSEQUENCE, TESTED)
                 if counts.get(v)]
        for kind in Forced:          # what could not fail, counted by what forced it
            n = sum(r["verdict"] == FORCED and r["can_fail"]["kind"] == kind for r in verdicts if r["counted"])
            apart += [(f"{FORCED} ({kind})", n, VERDICT_CLASS[FORCED])] if n else []
        forced = forced_list(verdicts)
        named = ", ".join(f"claim {f['id']} ({f['kind']})" for f in forced)
        unable = f"; could not fail: {named}" if forced else "; no claim found unable to fail"
        summaries.append({"view": w, "title": TITLES[w], "name": VIEWS[w], "how": HOW[w],
                          "main": [(v, n, VERDICT_CLASS[v]) for v, n in main],
                          "apart": apart,
                          "forced": forced,
                          "text": f"on {VIEWS[w]}: " + ", ".join(f"{n} {v}" for v, n in main)
                                  + (f" (apart: {', '.join(f'{n} {v}' for v, n, _ in apart)}{unable})" if apart
                                     else f" ({unable[2:]})")})
    cal = calibration_rows(docs, shown)
    return {
        "title": "Beowulf Netlab reproduction report",
        "run": "quick" if quick else "full",
        "partial": PARTIAL_TEXT.format(names=", ".join(partial(docs))) if partial(docs) else "",
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "elapsed": f"{elapsed_s / 60:.1f} minutes" if elapsed_s else "",
        "views": [{"key": w, "title": TITLES[w], "name": VIEWS[w], "short": SHORT[w]} for w in shown],
        "summaries": summaries,
        "missed": [r for r in cal if r["verdict"] != MET],
        "legend": [(v, VERDICT_CLASS[v], text) for v, text in LEGEND],
        "claims": _claims(claims, by_view),
        "results": [r for rows in by_view.values() for r in rows],
        "calibration": cal,
        "forcing": forcing_rows(by_view),
        "era": era_rows(docs),
        "heldout": heldout.rows(docs),
        "heldout_text": HELDOUT_TEXT.format(tolerance=f"{LONE_RTT_TOLERANCE:.0%}"),
        "sensitivity": sensitivity_rows(claims, docs, sensitivity) if sensitivity else [],
        "ranges": [{"id": r["id"], "sources": r["sources"], "verdict": r.get("as_run", r["verdict"])}
                   for r in by_view.get(PAPER, []) if states.get(r["id"])],
        "ranges_run": sorted({f"{v['range']['profile']} {v['range']['constant']} {v['range']['end']} "
                              f"({v['range']['value']:g})" for v in ranges or []}),
        "fitted": fitted_section(claims, docs, sensitivity or {}, ranges or [], era),
        "figures": _figures(docs, figdir),
        "gates": gate_summary(docs),
        "locked": bonding_balance(docs),
        "locked_ratio": f"{LOCKED:g}",
        "environment": environment(docs),
        "tc_tree": wire_example(docs),
        "not_modelled": not_modelled(docs),
        "glossary": glossary(),
        "documents": list(docs),
    }


def fitted_section(claims: list[dict], docs: dict[str, dict], variant_docs: dict[str, dict],
                   ranges: list[dict], era: list[dict] | None) -> dict:
    """The fitted view (judge.fitted) as the report shows it, or why there is none: it needs the
    paper's hardware and the range ends' documents (reproduce --ranges; a full run runs them)."""
    if era is None:
        return {"built": False, "text": "The fitted view fits the paper's hardware: this run has no paper view."}
    if not any(v["id"] in variant_docs for v in ranges):
        return {"built": False, "text": "The fitted view needs the range ends (reproduce --ranges; a full run "
                                        "runs them): this run measured none, so nothing could be fitted."}
    try:
        view = fitted.fitted_view(claims, docs, variant_docs, ranges, era=era)
    except BadInput as e:
        return {"built": False, "text": f"The fitted view could not be built: {e}"}

    def verdict(v: str) -> dict:
        return {"verdict": v, "cls": VERDICT_CLASS.get(v, "na")}

    params = [{"name": p["name"], "range": p["range"], "fitted": p["text"], "end": bool(p["at_end"]),
               "trained_by": ", ".join(map(str, p["trained_by"])) or "-"} for p in view["params"]]
    training = [{"id": t["id"], "points": t["points"], "paper": show(t["paper"]),
                 "headline": show(t.get("headline")), "fitted": show(t.get("fitted")),
                 "note": "" if t["used"] else f"not trained on: {t['why']}"} for t in view["training"]]
    held = [{"id": r["id"], "source": r["source"], "era": verdict(r["era"]), "era_here": verdict(r["era_here"]),
             **verdict(r["verdict"]), "points": r["points"], "reason": r["reason"],
             "measured": show(r["measured"])} for r in view["held_out"]]
    counts = view["counts"]
    order = [REPRODUCED, NOT_REPRODUCED, NOT_CHECKABLE]
    predicted = sorted(((v, n) for v, n in counts.items() if v != fitted.NOT_PREDICTED),
                       key=lambda vn: (order.index(vn[0]) if vn[0] in order else len(order), vn[0]))
    lofo = [{"figure": row["figure"], "training": ", ".join(map(str, row["training"])) or "none",
             "params": [{"name": p["name"], "fitted": p["value"], "range": p["range"], "end": bool(p["at_end"])}
                        for p in row["params"]],
             "claims": [{"id": c["id"], "era": verdict(c["era"]), **verdict(c["verdict"]), "points": c["points"]}
                        for c in row["claims"]]} for row in view["lofo"]]
    trained = ", ".join(str(t["id"]) for t in view["training"] if t["used"]) or "none"
    return {"built": True, "params": params, "training": training, "held": held, "lofo": lofo,
            "text": (f"Fitted on claims {trained} (beowulf_netlab/claims/fitting.json, each with why): the objective "
                     f"(squared log ratios of measured to paper numbers) {view['cost_headline']:.3g} at the "
                     f"headlines, {view['cost']:.3g} at the fit."),
            "counts": ("Held out, judged at the fit: " + (", ".join(f"{n} {v}" for v, n in predicted) or "none")
                       + f"; {fitted.NOT_PREDICTED}: {counts.get(fitted.NOT_PREDICTED, 0)} (counted apart; claims "
                       "that read one measurement count once).")}


def build(docs: dict[str, dict], out: Path, quick: bool, claims_path: Path | None = None,
          elapsed_s: float | None = None, sensitivity: dict[str, dict] | None = None,
          tests: dict[str, str] | None = None, ranges: list[dict] | None = None) -> Path:
    """Write report.md, report.html and figures/ into out; return report.html. sensitivity:
    variant id -> its document (reproduce --sensitivity); tests: what the tested claims' tests
    did in this run (judge.tested; None: not run)."""
    try:
        return _build(docs, out, quick, claims_path, elapsed_s, sensitivity, tests, ranges)
    except OSError as e:
        raise BadInput(f"cannot write the report in {out}: {e.strerror or e}; choose another --out")


def _build(docs: dict[str, dict], out: Path, quick: bool, claims_path: Path | None,
           elapsed_s: float | None, sensitivity: dict[str, dict] | None = None,
           tests: dict[str, str] | None = None, ranges: list[dict] | None = None) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    m = model(docs, out, quick, claims_path, elapsed_s, sensitivity, tests, ranges)
    write_atomic_bytes(out / "report.md", markdown(m))
    write_atomic_bytes(out / "claims.json", json.dumps(m["results"], indent=1, default=str))
    page = out / "report.html"
    write_atomic_bytes(page, to_html(m))
    write_atomic_bytes(out / "headline.json", json.dumps(headline_data(m), indent=1, default=str) + "\n")
    return page


HEADLINE_VERSION = 1     # headline.json's (and `report --json`'s) version: docs/json.md


def headline_data(m: dict) -> dict:
    """The headline as data (headline.json; what report, reproduce and merge print with --json):
    the verdict counts per view, what could not fail and the calibrations not met."""
    return {"headline_version": HEADLINE_VERSION, "title": m["title"], "run": m["run"], "when": m["when"],
            "elapsed": m["elapsed"] or None,
            "views": [{"view": s["view"], "name": s["name"], "counts": {v: n for v, n, _ in s["main"]},
                       "apart": {v: n for v, n, _ in s["apart"]},
                       "could_not_fail": [{"claim": f["id"], "forced_by": f["kind"]} for f in s["forced"]]}
                      for s in m["summaries"]],
            "calibrations_not_met": [{"id": r["id"], "view": r["view"], "experiment": r["experiment"],
                                      "measured": r["measured"]} for r in m["missed"]]}


def headline_json(out: Path) -> str:
    """`--json`'s stdout after a report is written: its headline.json with the report's paths."""
    data = json.loads((out / "headline.json").read_text())
    return json.dumps({**data, "report": str(out / "report.html"), "markdown": str(out / "report.md")}, indent=1)


# -- report.md ------------------------------------------------------------------------------------

def _row(cells) -> str:
    return "| " + " | ".join(md_cell(c) for c in cells) + " |"


def headline(md: str) -> str:
    """What a command prints when a report is written: its title, the verdict counts and any
    calibration not met, not the whole report (report.md and report.html hold it)."""
    return md.split("\nVerdicts:")[0].split("\nEach claim is judged")[0].rstrip() + "\n"


def markdown(m: dict) -> str:
    """The Markdown record of the report."""
    views = m["views"]
    md = [f"# {m['title']} ({m['run']} run), {m['when']}", "",
          f"Claims {'; '.join(s['text'] for s in m['summaries'])} (claims that read one measurement count "
          "once)." + (f" Measured in {m['elapsed']}." if m["elapsed"] else ""), ""]
    if m["missed"]:
        md += [f"**{len(m['missed'])} calibration point(s) NOT MET**: every claim that rests on them is not "
               "checkable (see Calibration). Rerun on a quieter machine before reading any verdict.", ""]
    md += ["Each claim is judged on today's hosts (hardware none: the wires are 1996's, the hosts are this "
           "machine's) and on the paper's hardware (the hardware profile of the machine the figure ran on: "
           "its disks and its per-packet host cost; beowulf_netlab/hardware/*.json states every number and its source). "
           "The points a claim reads ran several times; the median is judged, and again each run alone. "
           "Paper values and their status (verified / seed / derived, see the Glossary) are from "
           "docs/papers.md.", ""]
    if m["partial"]:
        md += [m["partial"], ""]
    md += ["Verdicts:", ""]
    md += [f"- *{v}*: {text}" for v, _, text in m["legend"]]
    head = ["#", "source", "claim", "paper"]
    for w in views:
        head += [f"measured, {w['name']}", "verdict", "why"]
    md += ["", "## Claims", "", _row(head), "|" + "---|" * len(head)]
    gaps = []
    for c in m["claims"]:
        cells = [c["id"], c["source"], c["statement"] + (f" (counted once with claim "
                 f"{', '.join(map(str, c['shares']))})" if c["shares"] and not c["counted"] else ""),
                 f"{c['paper']} ({c['status']})"]
        for v in c["views"]:
            text = _parts_text(v["parts"]) + (f" ({v['spread']})" if v["spread"] else "")
            cells += [text, f"**{v['verdict']}**", v["why"]]
            if v["gap"]:
                gaps.append(f"- claim {c['id']}, {v['short']}: {v['gap']}")
        md.append(_row(cells))
    if gaps:
        md += ["", "What explains each gap, from this run's numbers:", "", *gaps]
    md += ["", "## Calibration", "", "The measurements the model's constants were set from "
           "(beowulf_netlab/claims/calibrations.json), checked in this run against a tolerance declared beforehand. "
           "Each is judged in every experiment whose points rest on it, from that experiment's own "
           "measurements; one not met makes that experiment's points resting on it untrusted.", "",
           "| view | experiment | calibration point | target | measured (median) | verdict | why |",
           "|---|---|---|---|---|---|---|"]
    md += [_row([r["view"], r["experiment"], f"{r['id']}: {r['what']}", r["target"], r["measured"],
                 r["verdict"] if r["verdict"] == MET else f"**{r['verdict'].upper()}**", r["why"]])
           for r in m["calibration"]] or ["| - | - | no point of this run rests on a calibration | - | - | - | - |"]
    md += ["", "## Could each verdict fail?", "", FORCING_TEXT, "",
           "| claim | view | can it fail? | what forced it, or a reading that flips it | the readings it admits |",
           "|---|---|---|---|---|"]
    md += [_row([r["id"], r["view"], r["can"] if r["can"] != "cannot fail" else "**cannot fail**", r["by"],
                 r["why"]]) for r in m["forcing"]]
    md += ["", "## Decided by the sources?", "", "Each hardware profile's constants that the era sources give "
           "only as a range (beowulf_netlab/hardware/*.json) ran at both ends on the points the claims' checks read: "
           + (", ".join(m["ranges_run"]) if m["ranges_run"] else "none ran in this run") + ". A paper-view "
           "verdict that differs at an end is *undetermined by the sources*, counted apart.", "",
           "| claim | verdict as run | decided by the sources? |", "|---|---|---|"]
    md += [_row([r["id"], r["verdict"], r["sources"]]) for r in m["ranges"]] or \
        ["| - | - | no claim of this run read a ranged constant's experiment |"]
    md += ["", "## Fitted view (judged out of sample)", "", FITTED_TEXT, "", m["fitted"]["text"]]
    if m["fitted"]["built"]:
        fv = m["fitted"]

        def end(p: dict) -> str:
            return f"**{p['fitted']}**" if p["end"] else p["fitted"]
        md += ["", "| constant | the era sources' range | fitted | trained by claims |", "|---|---|---|---|"]
        md += [_row([p["name"], p["range"], end(p), p["trained_by"]]) for p in fv["params"]]
        md += ["", "Training claims (in sample: fitted to, never evidence):", "",
               "| claim | points judged | paper | at the headlines | at the fit | |", "|---|---|---|---|---|---|"]
        md += [_row([t["id"], t["points"], t["paper"], t["headline"], t["fitted"], t["note"]]) for t in fv["training"]]
        md += ["", fv["counts"], "", "| claim | era verdict | era, on these points | fitted verdict | points judged "
               "| why |", "|---|---|---|---|---|---|"]
        md += [_row([r["id"], r["era"]["verdict"], r["era_here"]["verdict"], f"**{r['verdict']}**", r["points"],
                     r["reason"]]) for r in fv["held"]]
        md += ["", "### Leave one figure out", "", LOFO_TEXT, "",
               "| figure left out | fitted on claims | fitted constants (the era sources' range) | its claims: era "
               "-> fitted (points judged) |", "|---|---|---|---|"]
        md += [_row([r["figure"], r["training"],
                     "; ".join(f"{p['name']} {end(p)} ({p['range']})" for p in r["params"]),
                     "; ".join(f"{c['id']}: {c['era']['verdict']} -> {c['verdict']} ({c['points']})"
                               for c in r["claims"])]) for r in fv["lofo"]]
    if m["sensitivity"]:
        md += ["", "## Sensitivity", "", "The choices the papers leave open (beowulf_netlab/claims/sensitivity.json), each run "
               "with another value on the paper's hardware: how each claim reading that experiment moves. "
               "Reported, never chosen from: the verdicts above are those of the experiments as written.", "",
               "| variant | setting | claim | verdict as run | with the variant | why |", "|---|---|---|---|---|---|"]
        md += [_row([r["variant"], r["set"], r["claim"], r["verdict"],
                     f"**{r['variant_verdict']}**" if r["moved"] else r["variant_verdict"], r["variant_reason"]])
               for r in m["sensitivity"]]
    md += ["", "## Era validation", "", "Each 1996 profile against figures measured on such machines "
           "outside the papers (beowulf_netlab/claims/era-checks.json), with a band declared before running. Never judged "
           "as a claim and never tuned to: a reading outside its band points at a mechanism the model "
           "lacks, not at a constant to change.", "",
           "| profile | era figure | era value | band | measured (median) | reads | why this band |",
           "|---|---|---|---|---|---|---|"]
    md += [_row([r["profile"], f"{r['id']}: {r['what']}", r["era"], r["band"],
                 r["measured"] if r["measured"] != "not measured" else f"not measured: {r['reason']}",
                 f"{r['reads']}: the model lacks {r['lacks']}" if r["lacks"] else r["reads"], r["why_band"]])
           for r in m["era"]]
    md += ["", "## Host path, held out", "", m["heldout_text"], ""]
    md += (["| network | pairs | path | model | measured (median of the pairs) | quickest | reads | gates |",
            "|---|---|---|---|---|---|---|---|"]
           + [_row([f"{r['network']} ({r['placement']})", r["pairs"], r["path"], f"{r['model_ms']:.3f} ms",
                    f"{r['median_ms']:.3f} ms ({r['off']:+.1%}; pairs {r['low_ms']:.3f}-{r['high_ms']:.3f}, "
                    f"{r['runs']} run(s))", f"{r['quickest_ms']} ms", r["reads"], r["gates"]])
              for r in m["heldout"]] if m["heldout"] else [f"not run: this run has no {heldout.EXPERIMENT} document."])
    md += ["", "## Figures", ""] + ([m["partial"], ""] if m["partial"] else [])
    for f in m["figures"]:
        md += [f"### {f['name']}", ""]
        for img in f["images"]:
            md += [f"![{img['alt']}]({img['file']})", ""]
        md += [f"Paper: {f['source']}. Hardware of the paper's figure: {f['hardware']}.", ""]
        md += [f"- our choice: {choice}" for choice in f["choices"]]
        md += ["", "```", f["table"], "```", ""]
    md += ["## Fidelity gates", "", GATES_TEXT, "",
           "| experiment | points | failed a gate | first failures |", "|---|---|---|---|"]
    md += [_row([name, total, failed, "; ".join(reasons) or "-"]) for name, total, failed, reasons in m["gates"]]
    md += ["", "## Bonding: round-robin that locks on", "", BONDING_TEXT.format(ratio=m["locked_ratio"]), ""]
    md += (["| experiment | hardware | point | repeat | wire utilisation |", "|---|---|---|---|---|",
            *(_row(r) for r in m["locked"])] if m["locked"] else ["none."])
    md += ["", "## Environment", ""] + [f"- {label}: {value}" for label, value in m["environment"]]
    if m["tc_tree"]:
        md += ["", "Applied to one wire (every wire's and node's argv is in the results documents):", "",
               "```", *m["tc_tree"], "```"]
    md += ["", "## What the emulation does not model", "", "| left out | expected bias |", "|---|---|"]
    md += [_row([a, b]) for a, b in m["not_modelled"]]
    md += ["", "## Glossary", ""] + [f"- **{term}**: {text}" for term, text in m["glossary"]]
    md += ["", "Results documents: " + ", ".join(f"`results/{n}.json`" for n in m["documents"]), ""]
    return "\n".join(md)


FITTED_TEXT = ("The era view above is the headline and stays it. Here the constants the era sources give only "
               "as ranges (the cards' gap between frames and latency, beowulf_netlab/claims/fitting.json) are fitted on declared "
               "training claims and every other claim is judged at the fit by the same judge. Between a point's "
               "measurements at the low end, the headline and the high end of each constant its figure is read "
               "off straight lines, and the constants' moves add (each range end varied one constant alone); no "
               "extrapolation. Only points measured at every end can move, so a claim is judged on those "
               "('points judged': of the era view's; 'era, on these points' is the fit at the headlines), and a "
               "claim that reads no such point is *not predicted*, counted apart. A fit at an end of its range "
               "(marked: bold, red on the page) is a finding: the sources' range stopped it, not the data. "
               "docs/judging.md says what is fitted on what.")
LOFO_TEXT = ("Each figure the constants move, predicted from a fit that did not see it: fitted on every other "
             "figure's eligible claims (beowulf_netlab/claims/fitting.json), its own claims judged at that fit.")
HELDOUT_TEXT = ("This host's own path is timed on one pair of one wire and taken off every node's delays "
                "(beowulf_netlab/run/hostpath.py); the round-trip calibration runs that same exchange, so it cannot check the "
                "subtraction. Here the same lone exchange (1-byte tokens, one in flight) runs where the probe did "
                "not: pairs on separate wires of the meshes, a pair through a switch or a software relay, bonded "
                "pairs, and 4 or 8 pairs at once (beowulf_netlab/experiments/hostpath-heldout.json). Each pair's round trip is set "
                "beside its own path's model (netlab.hostcost.round_trip_us: a switch adds a frame's delivery time "
                "on the next wire, a relay that and its CPU's and card's passes) and read against the round-trip calibration's "
                "tolerance ({tolerance}): over it, the host's own time set the round trips, and the gate "
                "'lone round trips on the model's time' fails such a point wherever it is measured. Pairs that "
                "share a wire, or whose bonded frames take two paths, are shown and not held to the model.")

GATES_TEXT = ("Every point is checked: no free bandwidth (each wire counted at least the payload that crossed "
              "it); within the wires' payload capacity on the time base of the figure the workload reports; "
              "disk-bound figures within what the throttled disks and ports allow; no CPU core or "
              "single-threaded emulator thread saturated while no wire was full; no stalled transport (every "
              "flow had data queued yet its path idled, with nothing else busy and no loss recovery to "
              "explain it); and (token) the pairs ran concurrently. A claim reading a failed point is not "
              "checkable.")
BONDING_TEXT = ("Channel bonding stripes packets round-robin per node, over one counter for all its connections "
                "(the kernel's balance-rr; the nftables fallback counts the same way), as Becker's 1996 driver "
                "did. When a node's packets come in a fixed two-packet rhythm - a 1 KB token and the pure ACK "
                "of the token it received, or a 2 KB token's full frame and its short remainder - every other "
                "packet, always of the same kind, takes the same wire: one wire carries the full frames and "
                "the other the short ones. This is the mechanism itself, not an emulator artefact, and it "
                "would have struck the 1996 machine too; only other traffic interleaving shifts the rhythm. "
                "Bonded points of this run whose wires' utilisations differ by more than {ratio}x:")


# -- report.html ----------------------------------------------------------------------------------

def to_html(m: dict) -> str:
    """The report as one self-contained page (Jinja2 template templates/report.html.j2): figures
    embedded as data: URIs, no script, nothing fetched."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    figures = [{**f, "images": [{**img, "src": "data:image/png;base64,"
                                 + base64.b64encode(img["path"].read_bytes()).decode()}
                                for img in f["images"]]} for f in m["figures"]]
    return env.get_template("report.html.j2").render(
        **{**m, "figures": figures}, gates_text=GATES_TEXT, forcing_text=FORCING_TEXT,
        bonding_text=BONDING_TEXT.format(ratio=m["locked_ratio"]), fitted_text=FITTED_TEXT.replace("*", ""),
        lofo_text=LOFO_TEXT)
