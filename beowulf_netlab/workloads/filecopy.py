"""The Disk/Net balance test: C simultaneous file copies, k remote and C-k local.

A local copy reads a file and writes another on its node's disk; a remote copy
reads on one node, sends over TCP, and the peer writes to its own disk
(copy_agent.py runs in the nodes). No node takes part in two copies. File
contents are random per point; every destination is checked against the
source's SHA-256 after the copies, and a mismatch raises DataCorrupted (the run
fails). Throughput follows the papers: bytes of all files / (time from the
first start to the last copy's end), MB = 10^6 bytes.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from beowulf_netlab.core.command import python
from beowulf_netlab.core.errors import BadInput, DataCorrupted
from beowulf_netlab.core.fields import MEASURED_PREFIX, RESOLVED, Field
from beowulf_netlab.core.settings import AS_DEFAULT, Setting, axes
from beowulf_netlab.core.values import human_size
from beowulf_netlab.netlab.disk import DiskSet
from beowulf_netlab.netlab.disk_profiles import HARDWARE, TODAY_DEFAULT, TRANSFERS, DiskProfile, for_spec, parse_disk, today_disk
from beowulf_netlab.topologies.spec import NetworkSpec, SpecError
from beowulf_netlab.workloads.agent import Agents
from beowulf_netlab.workloads.base import PAIRS_LIST, PART, Figure, Workload, path_rate_bytes_s
from beowulf_netlab.workloads.placement import place, wire_load

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "copy_agent.py")
BASE_PORT = 7600
CHUNK = 64 * 1024
MAX_COPIES = 64

SETTINGS = (
    Setting("copies", "int", 7, "simultaneous copies (the papers: 7)", many=False, minimum=1,
            maximum=MAX_COPIES, required=True, csv=True, short="C=", schema={"minimum": 1}),
    Setting("remote", "counts", list(range(8)), "how many copies are remote: counts or ranges, e.g. 0-7 or 0,7",
            minimum=0, maximum=MAX_COPIES, required=True, csv=True, schema={"minimum": 0},
            record_note="a point records its one count"),
    PAIRS_LIST,
    Setting("file_size", "size", [2 << 20], "file bytes, K/M suffix (binary), e.g. 1M,2M,4M,8M,16M",
            minimum=4096, maximum=256 << 20, unit="bytes", required=True, csv=True, short="",
            schema={"minimum": 1}),
    # the setting as given; the disks as they ran are DISKS, the profile it resolved to DISK_PROFILE
    Setting("disk", "text", "hardware", "node disks: hardware (the --hardware profile's disk; ide-1995 "
            "with none), ide-1995 (1.67 MB/s each way, from the papers' all-local copies), "
            "none (unthrottled), or MB/s as R or R/W", many=False, validator=parse_disk, required=True,
            csv=True, record_note="a point records the setting as given (v1-v5 documents: the run's, else "
                                  "the profile); the disks as they ran are its disks, their profile disk_profile"),
    Setting("disk_transfer", "choice", "hardware", "how a hardware profile's disk moves its bytes: hardware "
            "(the profile's default), pio (every byte on the node's CPU, interrupts masked: the throttle at the "
            "drive's media rate) or dma (the calibrated rate, the CPU copies the buffer only); both derived from "
            "the all-local calibration; nothing with --hardware none or a --disk rate", many=False,
            choices=TRANSFERS, record_type="string", record_note="absent in documents before it",
            schema={"enum": list(TRANSFERS)}),
    Setting("today_disk", "text", TODAY_DEFAULT, "the disk today's hosts (--hardware none) get with --disk "
            "hardware: ide-1995 (the demonstration system's all-local calibration, 1.67 MB/s each way), a "
            "hardware profile's calibrated rate as a plain throttle, nothing on the CPU (e.g. prototype-1995: "
            "1.03), or era: the profile built for the wire's rate (the papers' file-copy figures)", many=False,
            validator=today_disk, record_note="absent in documents before it: ide-1995",
            absent=AS_DEFAULT),
    Setting("chunk", "size", CHUNK, "bytes each copy reads, sends and writes at a time, a multiple of 4K "
            "(the copies bypass the page cache, whose transfers are 4 KB-aligned; the papers do not say)",
            many=False, minimum=4096, maximum=16 << 20, unit="bytes", record_note="absent in documents "
            "before it", schema={"minimum": 1}),
    Setting("relays", "choice", "idle", "routed meshes: idle (local copies go to nodes that relay no "
            "remote copy, as far as there are such) or copying (local copies go to the relays first, so "
            "one 486 forwards and copies at once); the papers do not say", many=False,
            choices=("idle", "copying"), record_type="string", record_note="absent in documents before it",
            schema={"enum": ["idle", "copying"]}),
)
AXES = axes(SETTINGS)


# what the disk setting became on this host, and the disks as they ran (netlab.disk.DiskSet.record)
DISK_PROFILE = Field("disk_profile", "string", "the disk profile the nodes ran (what the disk setting "
                     "resolved to; /D<d> on a time-scaled network)", RESOLVED, required=True, csv=True)
DISKS = Field("disks", "object", "the node disks as they ran: profile, read_mbyte_s, write_mbyte_s, "
              "throttle, source, and on a 1996 profile transfer (pio or dma) and cpu_ns_per_byte", required=True)

FIELDS = (
    *(f for s in SETTINGS for f in ((s.field, DISK_PROFILE) if s.name == "disk" else (s.field,))),
    DISKS,
    Field("elapsed_s", "number", "first copy's start to last copy's end, s", unit="s"),
    Field("total_bytes", "integer", "bytes of all files", unit="B"),
    Field("verified", "string", "how every destination was checked (sha256)"),
    Field("per_copy", "array", "each copy's kind, nodes, start/end (s from the first start), MB/s",
          schema={"items": PART}),
    Field("copies_placed", "array", "each copy: node, or src->dst with its wire or relay"),
)


@dataclass(frozen=True)
class Copy:
    index: int
    kind: str           # local | remote
    src: str
    dst: str
    via: str = ""       # the pair's wire or relay, for the record

    def describe(self) -> str:
        if self.kind == "local":
            return f"{self.src} local"
        return f"{self.src}->{self.dst}" + (f" {self.via}" if self.via else "")


def check_counts(spec: NetworkSpec, copies: int, remote: int) -> None:
    if copies < 1:
        raise SpecError(f"--copies must be >= 1, got {copies}")
    if not 0 <= remote <= copies:
        raise SpecError(f"--remote must be between 0 and --copies ({copies}), got {remote}")
    need = copies + remote
    if need > len(spec.nodes):
        raise SpecError(f"{copies} copies with {remote} remote need {need} nodes (no node in two "
                        f"copies); {spec.topology} has {len(spec.nodes)}: use fewer --copies or "
                        f"--remote, or more --nodes")


def plan(spec: NetworkSpec, copies: int, remote: int, placement: str = "any",
         relays_busy: bool = False, pairs_list: str | None = None) -> list[Copy]:
    """Remote copies where the placement puts pairs, local copies on free nodes:
    nodes that relay no remote pair first (a relay is not also a disk), or with
    relays_busy the relays first (a relay forwards and copies on one CPU)."""
    check_counts(spec, copies, remote)
    pairs = place(spec, remote, placement, pairs_list) if remote else []
    out = [Copy(i, "remote", p.src, p.dst, f"on {p.wire}" if p.wire else f"via {p.relay}" if p.relay else "")
           for i, p in enumerate(pairs)]
    used = {n for p in pairs for n in (p.src, p.dst)}
    relays = {p.relay for p in pairs if p.relay}
    free = [n.name for n in spec.nodes if n.name not in used]
    free.sort(key=lambda n: (n in relays) != relays_busy)  # stable: node order, relays last (or first)
    for j, node in enumerate(free[:copies - remote]):
        out.append(Copy(remote + j, "local", node, node))
    return out


def _busy(settings: dict) -> bool:
    return settings["relays"] == "copying"


def nodes_used(copies_plan: list[Copy]) -> list[str]:
    return list(dict.fromkeys(n for c in copies_plan for n in (c.src, c.dst)))


def _write_source(path: str, size: int) -> str:
    """Random contents written outside the node's cgroup (setup is not timed),
    then pushed to disk and out of the page cache."""
    digest = hashlib.sha256()
    with open(path, "wb") as f:
        left = size
        while left:
            block = os.urandom(min(left, 1 << 20))
            digest.update(block)
            f.write(block)
            left -= len(block)
        f.flush()
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    return digest.hexdigest()


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def run_copies(tb, disks: DiskSet, copies_plan: list[Copy], file_size: int, chunk: int = CHUNK,
               corrupt_copy: int | None = None, base_port: int = BASE_PORT) -> dict:
    """Run all copies at once on a built testbed with its disks; verify; measure."""
    disks.fresh_throttles()
    files = []
    for c in copies_plan:
        src_path = disks.disk(c.src).path(f"copy{c.index}.src")
        dst_path = disks.disk(c.dst).path(f"copy{c.index}.dst")
        if os.path.exists(dst_path):
            os.unlink(dst_path)
        files.append((src_path, dst_path, _write_source(src_path, file_size)))
    timeout = 60 + file_size * len(copies_plan) / 20e3  # >= 20 kB/s aggregate
    cgroup = {n: (["--cgroup", disks.disk(n).cgroup] if disks.disk(n).cgroup else [])
                 + tb.host(n).charge_args(disk_ns_per_byte=disks.profile.cpu_ns_per_byte)
              for c in copies_plan for n in (c.src, c.dst)}
    with Agents() as agents:
        receivers = {}
        for c, (_src_path, dst_path, _) in zip(copies_plan, files):
            if c.kind == "remote":
                receivers[c.index] = agents.start(
                    tb.host(c.dst), [*python(AGENT, "recv"), "--dst", dst_path, "--port",
                                     str(base_port + c.index), "--chunk", str(chunk), *cgroup[c.dst]],
                    f"receiver of copy {c.index} ({c.describe()})", host_mounts=True)
        for agent in receivers.values():
            agent.wait_ready()
        starters = {}
        for c, (src_path, dst_path, _) in zip(copies_plan, files):
            if c.kind == "local":
                cmd = [*python(AGENT, "local"), "--src", src_path, "--dst", dst_path]
            else:
                cmd = [*python(AGENT, "send"), "--src", src_path, "--host", tb.host(c.dst).address,
                       "--port", str(base_port + c.index)]
                if corrupt_copy == c.index:
                    cmd += ["--corrupt-at", str(file_size // 2)]
            starters[c.index] = agents.start(tb.host(c.src), [*cmd, "--chunk", str(chunk), *cgroup[c.src]],
                                             f"copy {c.index} ({c.describe()})", stdin=True,
                                             host_mounts=True)
        for agent in starters.values():
            agent.wait_ready()
        for agent in starters.values():  # the start line: every copy begins together
            agent.go()
        per_copy = []
        for c in copies_plan:
            first = starters[c.index].result(timeout)
            last = receivers[c.index].result(timeout) if c.kind == "remote" else first
            per_copy.append({"index": c.index, "kind": c.kind, "src": c.src, "dst": c.dst,
                             "via": c.via, "start": first["start"], "end": last["end"],
                             "bytes": last["bytes"], **_charges(first, last if c.kind == "remote" else None)})
    bad = [f"copy {c.index} ({c.describe()})" for c, (_s, dst_path, digest) in zip(copies_plan, files)
           if not os.path.exists(dst_path) or _sha256(dst_path) != digest]
    for src_path, dst_path, _ in files:
        for path in (src_path, dst_path):
            if os.path.exists(path):
                os.unlink(path)
    if bad:
        raise DataCorrupted("checksum mismatch at the destination of " + ", ".join(bad)
                            + ": the copy changed the data; results discarded")
    t0 = min(p["start"] for p in per_copy)
    t1 = max(p["end"] for p in per_copy)
    total = file_size * len(copies_plan)
    for p in per_copy:
        p["seconds"] = round(p["end"] - p["start"], 4)
        p["mbyte_s"] = round(file_size / max(p["end"] - p["start"], 1e-9) / 1e6, 4)
        p["start"], p["end"] = round(p["start"] - t0, 4), round(p["end"] - t0, 4)
    return {"throughput_mbyte_s": total / (t1 - t0) / 1e6, "elapsed_s": t1 - t0,
            "total_bytes": total, "verified": "sha256", "per_copy": per_copy}


def _charges(*agents: dict | None) -> dict:
    """What a copy's agents paid through the charge channel (nothing without one)."""
    paid = [a for a in agents if a and "charged_bytes" in a]
    return {"charged_bytes": sum(a["charged_bytes"] for a in paid),
            "charges_lost": sum(a["charges_lost"] for a in paid),
            "charges_late_s": sum(a.get("charges_late_s", 0.0) for a in paid)} if paid else {}


def check(spec, point: dict, settings: dict) -> None:
    plan(spec, settings["copies"], point["remote"], point["placement"], _busy(settings), point.get("pairs_list"))
    if settings["chunk"] % 4096:
        raise BadInput(f"--chunk {settings['chunk']}: the copies bypass the page cache (O_DIRECT), whose "
                       "transfers must be whole 4 KB blocks; give a multiple of 4K, e.g. 4K, 8K or 64K")
    disk_of(settings, spec)


def disk_of(settings: dict, spec) -> DiskProfile:
    """The disk this sweep's settings give every node of the network (--disk, --disk-transfer)."""
    return for_spec(settings["disk"], spec, settings["disk_transfer"], settings["today_disk"])


def prepare(tb, points: list[dict], settings: dict) -> DiskSet:
    """Disks for every node that some point of this network copies on."""
    nodes = {n for pt in points
             for n in nodes_used(plan(tb.spec, settings["copies"], pt["remote"], pt["placement"], _busy(settings),
                                            pt.get("pairs_list")))}
    order = [n.name for n in tb.spec.nodes if n.name in nodes]
    disk = disk_of(settings, tb.spec)
    return DiskSet(tb.manifest, disk, order,
                   max(pt["file_size"] for pt in points)).create()


def run_point(tb, disks: DiskSet, point: dict, settings: dict) -> dict:
    copies = plan(tb.spec, settings["copies"], point["remote"], point["placement"], _busy(settings),
                  point.get("pairs_list"))
    res = run_copies(tb, disks, copies, point["file_size"], chunk=settings["chunk"])
    pairs = place(tb.spec, point["remote"], point["placement"], point.get("pairs_list")) if point["remote"] else []
    remote = [c for c in res["per_copy"] if c["kind"] == "remote"]
    flows = [{"path": p.path, "bytes": c["bytes"], "start": c["start"], "end": c["end"]}
             for p, c in zip(pairs, remote)]
    return {**res, "copies_placed": [c.describe() for c in copies], "wire_load": wire_load(pairs),
            "flows": flows, **disk_record(disks)}


def disk_record(disks: DiskSet) -> dict:
    """What a point records of its disks: the disks as they ran and the profile they resolved to."""
    record = disks.record()
    return {"disks": record, "disk_profile": record["profile"]}


def bounds(point: dict) -> list[tuple[str, float, float]]:
    """Every copy reads and writes one throttled disk, so the aggregate is at most copies x
    the slower of the two rates (in the point's own, possibly scaled, time)."""
    disk = point["disks"]
    rates = [r for r in (disk.get("read_mbyte_s"), disk.get("write_mbyte_s")) if r]
    if not rates:
        return []
    return [("aggregate copy rate", point[MEASURED_PREFIX + "throughput_mbyte_s"], point["copies"] * min(rates))]


# a point's own work beyond its copies: agents started, the start line, and per byte of the
# point's files: random sources written and flushed, every destination's SHA-256. Measured on this
# host (Debian 12, 2 cores, 2026-11-27, three full reproductions' timing records): 0.3-0.65 s a
# point of 7 x 1-16 MB
SETUP_S = 0.3
SETUP_S_PER_BYTE = 1 / 250e6


def cost(spec, point: dict, settings: dict) -> float:
    """Seconds a point takes: its slowest copy (a local one at its disk's rate, both transfers on
    the CPU under PIO; a remote one at the slowest of its disks, its CPU and its share of the
    wires it crosses), plus its setup."""
    disk = disk_of(settings, spec)
    rates = [r * 1e6 for r in (disk.read_mbyte_s, disk.write_mbyte_s) if r]
    disk_rate = min(rates) if rates else float("inf")
    cpu_rate = 1e9 / disk.cpu_ns_per_byte if disk.cpu_ns_per_byte else float("inf")  # one transfer
    size, copies = point["file_size"], settings["copies"]
    slowest = size / min(disk_rate, cpu_rate / 2) if copies > point["remote"] else 0.0
    if point["remote"]:
        pairs = place(spec, point["remote"], point["placement"], point.get("pairs_list"))
        load = wire_load(pairs)
        net = min(path_rate_bytes_s(spec, p.path, load) for p in pairs)
        slowest = max(slowest, size / min(disk_rate, cpu_rate, net))
    return slowest + SETUP_S + SETUP_S_PER_BYTE * size * copies


WORKLOAD = Workload(
    name="filecopy", summary="the Disk/Net balance test (simultaneous file copies over emulated disks)",
    axes=AXES, fields=FIELDS,
    check=check, run_point=run_point, prepare=prepare, bounds=bounds, cost=cost,
    label=lambda pt: f"{human_size(pt['file_size'])} remote={pt['remote']}",
    figure=Figure("Disk/Net balance: simultaneous file copies, aggregate throughput", x="remote",
                  x_label="remote (internode) copies", x_step="one", series=("file_size",),
                  split_if_varying=("copies",), context=("copies", "disks")))
