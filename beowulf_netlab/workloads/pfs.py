"""MACHE01's study: a parallel file system on a cluster whose nodes are both I/O and compute nodes.

Three tests, each a point (`--test`):
- ttcp: the per-node network baseline, one TCP stream per node pair, all
  pairs at once through the switch (iperf3, as ttcp did); MB/s per node.
- bonnie: the per-node disk baseline, every node writing then reading a
  file on its own disk at once (pfs_agent.py --test bonnie); MB/s per node.
- pfs: the concurrent read/write test over GlusterFS (netlab.pfs), an MPI
  program with one rank per node (pfs_agent.py): aggregate write and read =
  total bytes / the slowest rank's time. `local_fraction` is the file view's
  share of a rank's blocks in its own node's stripe; `stripe_size` is the
  block (stripe unit) size. The fraction of bytes that really stayed local is
  measured from where GlusterFS put each stripe.
MPI runs over TCP between the node namespaces: Open MPI's rsh launcher is a
script that enters the namespace owning each address, the TCP transport
only (all ranks share one hostname and would otherwise use shared memory).
One MPI job serves a network's bonnie and pfs points (pfs_agent.py --serve):
a launch through 32 namespaces costs seconds, a command line none.
throughput_mbyte_s is the point's headline: MB/s per node for the baselines,
the aggregate read rate for pfs (write_mbyte_s and read_mbyte_s beside it).
"""
from __future__ import annotations

import json
import os
import select
import shlex
import signal
import stat
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path

from beowulf_netlab.core.command import python
from beowulf_netlab.core.errors import DataCorrupted, RuntimeFailure
from beowulf_netlab.core.safefile import write_atomic_bytes
from beowulf_netlab.core.fields import MEASURED_PREFIX, Field
from beowulf_netlab.core.settings import Setting, axes, fields
from beowulf_netlab.core.values import human_size
from beowulf_netlab.netlab.disk import DiskSet
from beowulf_netlab.netlab.disk_profiles import for_spec
from beowulf_netlab.netlab.manifest import netns_inode
from beowulf_netlab.netlab.pfs import GlusterCluster
from beowulf_netlab.topologies.ethernet import payload_capacity_bytes_s
from beowulf_netlab.topologies.spec import SpecError
from beowulf_netlab.topologies.timescale import shaped_rate, time_scale_of
from beowulf_netlab.workloads.agent import Agent, WorkloadFailed
from beowulf_netlab.workloads.base import Figure, Level, Workload
from beowulf_netlab.workloads.filecopy import DISK_PROFILE, DISKS, SETTINGS as FILECOPY_SETTINGS, disk_record
from beowulf_netlab.workloads.iperf import run_pairs

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pfs_agent.py")
TESTS = ("ttcp", "bonnie", "pfs")
BONNIE_BLOCK = 1 << 20
OMIT_S = 1.0
LAUNCH_TIMEOUT_S = 60
LAUNCH_ATTEMPTS = 3

SETTINGS = (
    Setting("test", "choice", list(TESTS), "ttcp (network baseline per node), bonnie (disk baseline per "
            "node), pfs (the concurrent MPI read/write test over the parallel file system)", choices=TESTS,
            record_type="string", required=True, csv=True, schema={"enum": list(TESTS)}),
    Setting("local_fraction", "float", [1.0], "pfs: share of each rank's blocks the file view puts in its "
            "own node's stripe (1 = all local, as MACHE01's file view)", minimum=0, maximum=1,
            record_type=("number", "null"), record_note="null for the baselines", csv=True),
    Setting("stripe_size", "size", [256 << 10], "pfs: stripe unit = block each rank writes and reads, "
            "K/M suffix (binary), a multiple of 4K", minimum=4096, maximum=64 << 20, unit="bytes",
            record_type=("integer", "null"), record_note="null for the baselines", csv=True,
            short="stripe "),
    Setting("volume", "size", 16 << 20, "bytes each node writes and reads per test (pfs, bonnie)",
            many=False, minimum=1 << 20, maximum=4 << 30, unit="bytes", required=True, csv=True),
    Setting("duration", "int", 5, "ttcp: whole seconds each stream is measured (after 1 s of slow start)",
            many=False, minimum=1, maximum=3600, unit="s"),
    replace(next(s for s in FILECOPY_SETTINGS if s.name == "disk"), csv=False),   # one disk setting for both
)
AXES = axes(SETTINGS)


FIELDS = (
    *fields(SETTINGS),
    replace(DISK_PROFILE, csv=False), DISKS,   # the same disks as filecopy's (not columns here)
    Field("write_mbyte_s", "number", "pfs: aggregate write, total bytes / slowest rank's time; "
          "bonnie: mean per node, MB/s", unit="MB/s", rate=True, csv=True),
    Field("read_mbyte_s", "number", "pfs: aggregate read; bonnie: mean per node, MB/s", unit="MB/s", rate=True,
          csv=True),
    Field("local_fraction_measured", ("number", "null"), "pfs: share of the bytes moved that stayed on "
          "the mover's own node, from where GlusterFS put each stripe", csv=True),
    Field("per_node_mbyte_s", "array", "ttcp: each pair's stream, MB/s", unit="MB/s"),
    Field("per_rank", "array", "each MPI rank's phase times (pfs) or rates (bonnie)"),
    Field("total_bytes", "integer", "bytes all nodes wrote (and read again)", unit="B"),
    Field("elapsed_s", "number", "slowest write plus slowest read time (pfs), s", unit="s"),
    Field("stripes_misplaced", "array", "pfs: stripes GlusterFS did not put on their creator's brick"),
    Field("pairs_placed", "array", "ttcp: src->dst of each stream"),
    Field("window_s", "number", "ttcp: the streams' time including slow start, s (wire utilisation's base)",
          unit="s"),
    Field("mpi_attempts", "integer", "pfs, bonnie: MPI launches it took (one that does not start "
          "every rank within 60 s, or fails, is ended and tried again, 3 in all)", schema={"minimum": 1}),
    Field("pfs", "object", "pfs: the file system as it ran (beowulf_netlab/netlab/pfs.py)"),
)


@dataclass
class Context:
    disks: DiskSet
    pfs: GlusterCluster | None
    launcher: str
    hosts: list
    job: Agent | None = None                 # the served MPI job, started on first use
    unread: bytes = b""                      # what the job printed after its last full line


def check(spec, point: dict, settings: dict) -> None:
    if spec.params.get("grid"):
        raise SpecError("the pfs workload runs on switched-cluster, single-net or bonded-dual-net, "
                        f"not on {spec.topology}")
    if len(spec.nodes) < 2:
        raise SpecError("the pfs workload needs at least 2 nodes")
    if point.get("stripe_size") is not None:
        if point["stripe_size"] % 4096:
            raise SpecError(f"--stripe-size must be a multiple of 4K (O_DIRECT), got {point['stripe_size']}")
        if settings["volume"] % point["stripe_size"]:
            raise SpecError(f"--volume ({human_size(settings['volume'])}) must be a whole number of "
                            f"stripes ({human_size(point['stripe_size'])})")
    for_spec(settings["disk"], spec, transfer=None)
    if settings["volume"] % BONNIE_BLOCK:
        raise SpecError("--volume must be a whole number of MiB")


def normalize(point: dict) -> dict:
    """The baselines use neither the file view nor the stripe size."""
    if point["test"] != "pfs":
        return {**point, "local_fraction": None, "stripe_size": None}
    return point


def _launcher(tb, path: str) -> str:
    """Open MPI's rsh agent: run the command in the namespace owning the address. The daemon's
    output goes to a log beside the agent, not to mpirun's pipes: a daemon that outlived mpirun
    would otherwise hold them open and the wait for mpirun's result would never end. Each node
    gets its own TMPDIR: all nodes share one hostname and one /tmp, and Open MPI names its
    session directories by hostname, so daemons of different nodes would create and remove
    the same directories (a daemon then never reports, or every later launch fails)."""
    cases = "\n".join(f"  {h.address}) pid={h.pid};;" for h in tb.net.hosts)
    log = os.path.join(os.path.dirname(path), "orted-$host.log")
    tmp = os.path.join(os.path.dirname(path), "mpi-tmp", "$host")
    write_atomic_bytes(Path(path), f"""#!/bin/sh
# Written by Beowulf Netlab (beowulf_netlab/workloads/pfs.py): Open MPI's rsh agent for this run.
host=$1; shift
case $host in
{cases}
  *) echo "no emulated node has address $host" >&2; exit 1;;
esac
export TMPDIR="{tmp}"
mkdir -p "$TMPDIR"
exec nsenter --net=/proc/$pid/ns/net -- /bin/sh -c "$*" </dev/null >>"{log}" 2>&1
""", mode=stat.S_IRWXU)   # core.safefile, in the run's private folder
    return path


def own_folder(ctx: Context) -> str:
    """The job's working folder: the run's private folder, where the launcher lives (mpirun's
    and every rank's; never the caller's, which another user may write)."""
    return os.path.dirname(ctx.launcher)


def mpirun(ctx: Context, argv: list[str]) -> list[str]:
    """The mpirun command line: one rank per node, TCP only, launched through the namespaces,
    each rank an isolated interpreter (core.command.python) in the run's private folder."""
    return ["mpirun", "--mca", "plm_rsh_agent", ctx.launcher, "--mca", "plm_rsh_no_tree_spawn", "1",
            # daemons reach mpirun through the emulated network, whose first node's CPU budget
            # may drop a SYN when all connect at once: retry on
            "--mca", "oob_tcp_peer_retries", "60",
            "--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
            "--mca", "btl_tcp_if_include", "10.0.0.0/16", "--mca", "oob_tcp_if_include", "10.0.0.0/16",
            "--bind-to", "none", "--map-by", "node", "--wdir", own_folder(ctx), "--host", ",".join(h.address for h in ctx.hosts),
            # -m mpi4py: an exception in one rank aborts all of them instead of leaving the
            # others waiting at a barrier
            "-np", str(len(ctx.hosts)), *python("-m", "mpi4py", AGENT), *argv]


def _ours(ctx: Context) -> list[tuple[int, int, bool]]:
    """(pid, netns inode, is a rank) of the Open MPI daemons and ranks in this run's nodes."""
    inodes = {netns_inode(h.pid) for h in ctx.hosts}
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or (ino := netns_inode(int(entry))) not in inodes:
            continue
        try:
            argv = open(f"/proc/{entry}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if (argv[0].endswith(b"orted") or AGENT.encode() in argv):
            found.append((int(entry), ino, AGENT.encode() in argv))
    return found


def _end_strays(ctx: Context) -> int:
    """SIGKILL what a failed MPI run left in our nodes: Open MPI daemons (they outlive mpirun)
    and ranks of this program. Only processes in this run's node namespaces are touched."""
    ended = 0
    for pid, _, _ in _ours(ctx):
        try:
            os.kill(pid, signal.SIGKILL)
            ended += 1
        except ProcessLookupError:
            pass
    return ended


def _daemon_complaints(ctx: Context) -> str:
    """The last line mpirun or any Open MPI daemon logged, for an error message."""
    for log in sorted(ctx.disks.root.glob("*.log")):
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip(" -")]
        if lines:
            who = f"daemon {log.stem[6:]}" if log.stem.startswith("orted-") else log.stem
            return f" ({who}: {lines[-1][:160]})"
    return ""


def _line(ctx: Context, timeout: float, what: str) -> dict:
    """The job's next JSON line (rank 0's), within timeout seconds. Read with os.read and a
    buffer of our own (ctx.unread): a buffered readline could hold the answer while select waits."""
    deadline = time.monotonic() + timeout
    job = ctx.job
    fd, buf = job.proc.stdout.fileno(), ctx.unread
    while True:
        if b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            ctx.unread = buf
            try:
                data = json.loads(raw)
            except json.JSONDecodeError:
                continue                      # Open MPI's own notices
            if isinstance(data, dict):
                return data
            continue
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise WorkloadFailed(f"{what}: no answer from the MPI job within {timeout:.0f} s")
        data = os.read(fd, 65536)
        if not data:
            job.proc.wait()
            raise job._fail("ended")
        buf += data


def _start_job(ctx: Context, env: dict, what: str) -> None:
    """mpirun of the serving program, as ctx.job (so a failed start is stopped like any job);
    ready when every rank has reported (a launch hangs forever on a daemon that never
    reported: seen in about one of five 32-node launches)."""
    # stderr to a file: nobody reads a long-lived job's pipe, and a full one would stop it
    with open(ctx.disks.root / "mpirun.log", "ab") as log:
        ctx.job = Agent(what, ctx.hosts[0].popen_netns(mpirun(ctx, ["--serve"]), stdin=subprocess.PIPE,
                                                       stdout=subprocess.PIPE, stderr=log, env=env,
                                                       cwd=own_folder(ctx)))
    ctx.unread = b""
    ready = _line(ctx, LAUNCH_TIMEOUT_S, f"{what}: launching one rank per node").get("ready")
    if ready != len(ctx.hosts):
        raise WorkloadFailed(f"{what}: the MPI job reported {ready} ranks for {len(ctx.hosts)} nodes")


def stop_job(ctx: Context) -> None:
    """End the served job (end of input), then whatever of it is left in our nodes."""
    job, ctx.job = ctx.job, None
    if job is not None:
        try:
            job.proc.stdin.close()
            job.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        job.stop()
        job.proc.stdout.close()
    _end_strays(ctx)


def run_mpi(ctx: Context, argv: list[str], timeout: float, what: str) -> tuple[list[dict], int]:
    """(every rank's report, attempts). A launch that does not bring up every rank within
    LAUNCH_TIMEOUT_S, or a test that fails, ends the job with its strays and is tried again on
    a new one, up to LAUNCH_ATTEMPTS in all; the point records how many it took."""
    tmp = os.path.join(os.path.dirname(ctx.launcher), "mpi-tmp", ctx.hosts[0].address)
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_base_warn_component_unused="0", TMPDIR=tmp)
    for attempt in range(1, LAUNCH_ATTEMPTS + 1):
        try:
            if ctx.job is None or ctx.job.proc.poll() is not None:
                stop_job(ctx)
                _start_job(ctx, env, what)
            try:
                ctx.job.proc.stdin.write(shlex.join(argv).encode() + b"\n")
                ctx.job.proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                raise ctx.job._fail("ended") from None
            ranks = _line(ctx, timeout, what).get("ranks")
            if not isinstance(ranks, list) or len(ranks) != len(ctx.hosts):
                raise WorkloadFailed(f"{what}: the MPI job's answer lacks every rank's report")
            break
        except WorkloadFailed as e:
            complaint = _daemon_complaints(ctx)
            stop_job(ctx)
            if attempt == LAUNCH_ATTEMPTS:
                raise WorkloadFailed(f"{e}{complaint}") from None
    for r, h in zip(ranks, ctx.hosts):   # rank i must run in node i's namespace
        if r["netns"] != os.readlink(f"/proc/{h.pid}/ns/net"):
            raise RuntimeFailure(f"MPI rank {r['rank']} did not run in {h.name}'s namespace; "
                                 "check Open MPI's --host mapping")
    bad = sum(r["corrupt_blocks"] for r in ranks)
    if bad:
        raise DataCorrupted(f"{what}: {bad} block(s) read back differ from what was written; "
                            "the point's results were discarded")
    return ranks, attempt


def prepare(tb, points: list[dict], settings: dict) -> Context:
    """Disks on every node; the file system when some point needs it."""
    nodes = [n.name for n in tb.spec.nodes]
    d = time_scale_of(tb.spec)
    disk = for_spec(settings["disk"], tb.spec, transfer=None)
    # a node's disk holds its bonnie file, or its stripe: every rank's blocks there, `volume` in all
    disks = DiskSet(tb.manifest, disk, nodes, settings["volume"]).create()
    launcher = _launcher(tb, str(disks.root / "mpi-rsh-agent.sh"))
    ctx = Context(disks, None, launcher, [tb.host(n) for n in nodes])
    if any(pt["test"] == "pfs" for pt in points):
        ctx.pfs = GlusterCluster(tb, disks, d)
        tb.on_teardown(ctx.pfs.stop)    # before start: a half-started cluster is stopped too
        ctx.pfs.start()
    tb.on_teardown(lambda: stop_job(ctx))    # first: its ranks hold files on the mounts
    return ctx


def _aggregate(ranks: list[dict]) -> dict:
    total = sum(r["bytes"] for r in ranks)
    slowest_w = max(r["write_s"] for r in ranks)
    slowest_r = max(r["read_s"] for r in ranks)
    return {"write_mbyte_s": total / slowest_w / 1e6, "read_mbyte_s": total / slowest_r / 1e6,
            "total_bytes": total, "elapsed_s": slowest_w + slowest_r,
            "per_rank": [{"rank": r["rank"], "write_s": round(r["write_s"], 4),
                          "read_s": round(r["read_s"], 4)} for r in ranks]}


def run_ttcp(tb, ctx: Context, settings: dict) -> dict:
    """Node pairs (b0->b1, b2->b3, ...; an odd last node sits out), all at once."""
    hosts = ctx.hosts
    pairs = [(hosts[i], hosts[i + 1]) for i in range(0, len(hosts) - 1, 2)]
    flows = run_pairs(pairs, settings["duration"], OMIT_S)
    per_node = [f.goodput_mbit / 8 for f in flows]
    return {"throughput_mbyte_s": sum(per_node) / len(per_node), "per_node_mbyte_s": per_node,
            "elapsed_s": float(settings["duration"]),
            "window_s": max(f.seconds for f in flows) + OMIT_S,   # the wires also carried slow start
            "pairs_placed": [f"{f.src}->{f.dst}" for f in flows],
            "flows": [{"path": [[tb.spec.node(f.src).wires[0]], [tb.spec.node(f.dst).wires[0]]],
                       "bytes": f.bytes_received, "start": 0.0, "end": f.seconds, "seconds": f.seconds,
                       "backlogged": True} for f in flows]}


def run_bonnie(ctx: Context, settings: dict) -> dict:
    disks = ctx.disks
    nodes = [h.name for h in ctx.hosts]
    blocks = settings["volume"] // BONNIE_BLOCK
    argv = ["--test", "bonnie", "--block", str(BONNIE_BLOCK), "--blocks", str(blocks),
            "--paths", ",".join(disks.disk(n).path("bonnie.dat") for n in nodes)]
    if all(disks.disk(n).cgroup for n in nodes):
        argv += ["--cgroups", ",".join(disks.disk(n).cgroup for n in nodes),
                 "--leave", str(disks.cgroup_root().parent)]
    timeout = 120 + 4 * settings["volume"] / max(disks.profile.write_mbyte_s or 1000, 0.01) / 1e6
    ranks, attempts = run_mpi(ctx, argv, timeout, "the bonnie baseline")
    write = [r["bytes"] / r["write_s"] / 1e6 for r in ranks]
    read = [r["bytes"] / r["read_s"] / 1e6 for r in ranks]
    return {"throughput_mbyte_s": sum(read) / len(read), "write_mbyte_s": sum(write) / len(write),
            "read_mbyte_s": sum(read) / len(read), "elapsed_s": max(r["write_s"] + r["read_s"] for r in ranks),
            "total_bytes": sum(r["bytes"] for r in ranks), "mpi_attempts": attempts,
            "per_rank": [{"rank": r["rank"], "write_mbyte_s": round(w, 3), "read_mbyte_s": round(x, 3)}
                         for r, w, x in zip(ranks, write, read)]}


def run_pfs(ctx: Context, point: dict) -> dict:
    pfs = ctx.pfs
    pfs.check_alive()
    nodes = [h.name for h in ctx.hosts]
    block = point["stripe_size"]
    blocks = point["volume"] // block
    run_dir = f"p{point['point_index']}r{point['repeat']}"
    argv = ["--test", "pfs", "--mounts", ",".join(pfs.mount(n) for n in nodes), "--dir", run_dir,
            "--block", str(block), "--blocks", str(blocks), "--local-fraction", f"{point['local_fraction']:g}"]
    # slowest case: all remote, every byte charged to two nodes' CPU budgets; 6x margin for RTOs
    rate = min(ctx.disks.profile.write_mbyte_s or 1000, ctx.disks.profile.read_mbyte_s or 1000)
    cost = ctx.hosts[0].host_cost
    if cost is not None:
        rate = min(rate, cost.budget_mbit / 8 / 2)
    timeout = 180 + 6 * 2 * point["volume"] / max(rate, 0.01) / 1e6
    try:
        ranks, attempts = run_mpi(ctx, argv, timeout, "the MPI read/write test")
        # Where each stripe really lives, as GlusterFS says (never guessed)
        paths = [os.path.join(pfs.mount(nodes[0]), run_dir, f"stripe.{s}") for s in range(len(nodes))]
        where = pfs.brick_nodes(paths)
        home = {s: where[path] for s, path in enumerate(paths)}
    finally:
        pfs.remove(run_dir)
    res = _aggregate(ranks)
    return {"throughput_mbyte_s": res["read_mbyte_s"], **res, "mpi_attempts": attempts,
            "local_fraction_measured": local_share(ranks, home, nodes),
            "stripes_misplaced": [f"stripe.{s} on {home[s] or 'an unknown brick'}"
                                  for s in home if home[s] != nodes[s]]}


def local_share(ranks: list[dict], home: dict[int, str | None], nodes: list[str]) -> float | None:
    """Share of the bytes moved that stayed on the mover's own node: rank r's bytes in stripes
    whose brick is node r's. None when GlusterFS did not say where some stripe a rank used lives."""
    moved = sum(sum(r["per_stripe"]) for r in ranks)
    if not moved or any(home[s] is None for r in ranks for s, n in enumerate(r["per_stripe"]) if n):
        return None
    local = sum(n for r in ranks for s, n in enumerate(r["per_stripe"]) if home[s] == nodes[r["rank"]])
    return round(local / moved, 4)


def run_point(tb, ctx: Context, point: dict, settings: dict) -> dict:
    ctx.disks.fresh_throttles(ctx.pfs.residents() if ctx.pfs else None)
    pt = {**settings, **point}
    if point["test"] == "ttcp":
        res = run_ttcp(tb, ctx, settings)
    elif point["test"] == "bonnie":
        res = run_bonnie(ctx, settings)
    else:
        res = run_pfs(ctx, pt)
    return {**res, **disk_record(ctx.disks),
            **({"pfs": ctx.pfs.record()} if ctx.pfs and point["test"] == "pfs" else {})}


def bounds(point: dict) -> list[tuple[str, float, float]]:
    """Bonnie per node within its disk's rates; the file system's aggregates within all nodes'
    disks, and its remote share within what the switch ports carry (scaled time throughout: the measured twins, core.fields)."""
    disk = point["disks"]
    read, write, nodes = disk.get("read_mbyte_s"), disk.get("write_mbyte_s"), point["nodes"]
    out = []
    if point["test"] == "bonnie":
        out += [("bonnie read per node", point[MEASURED_PREFIX + "read_mbyte_s"], read)] if read else []
        out += [("bonnie write per node", point[MEASURED_PREFIX + "write_mbyte_s"], write)] if write else []
    elif point["test"] == "pfs":
        out += [("aggregate read", point[MEASURED_PREFIX + "read_mbyte_s"], nodes * read)] if read else []
        out += [("aggregate write", point[MEASURED_PREFIX + "write_mbyte_s"], nodes * write)] if write else []
        local = point.get("local_fraction_measured")
        if local is not None and nodes:
            port = payload_capacity_bytes_s(shaped_rate(point["rate_mbit"], time_scale_of(point))) / 1e6
            out.append(("remote reads through the switch", point[MEASURED_PREFIX + "read_mbyte_s"] * (1 - local), nodes * port))
    return out


# Measured on this host (Debian 12, 2 cores, 2026-11-27, full and quick reproductions' timing
# records): a point's own setup beyond its transfers (the MPI command through every node, the
# throttles renewed) took 0.05-0.15 s a node (4 nodes: 0.2-0.27 s a point; 32 nodes: 4.1-4.9 s);
# the all-remote file view took 1.4-1.6 x the all-local time on today's hosts and 3.4-4.1 x with
# pc-2001's CPU budgets (each remote block paid on two nodes' CPUs), half-remote about half as much more
SETUP_S_PER_NODE = 0.14
REMOTE_SLOWDOWN = 0.5
REMOTE_SLOWDOWN_COSTED = 2.8


def cost(spec, point: dict, settings: dict) -> float:
    """Seconds a point takes: ttcp its duration after slow start; bonnie and the MPI test
    `volume` written then read at the disk's rates, the MPI test slower by its remote share;
    plus its setup through every node."""
    setup = SETUP_S_PER_NODE * len(spec.nodes)
    if point["test"] == "ttcp":
        return OMIT_S + settings["duration"] + setup
    disk = for_spec(settings["disk"], spec, transfer=None)
    seconds = sum(settings["volume"] / (rate * 1e6) for rate in (disk.write_mbyte_s, disk.read_mbyte_s) if rate)
    if point["test"] == "pfs":
        slowdown = REMOTE_SLOWDOWN_COSTED if any(n.host_cost for n in spec.nodes) else REMOTE_SLOWDOWN
        seconds *= 1 + (1 - point["local_fraction"]) * slowdown
    return seconds + setup


def label(pt: dict) -> str:
    if pt["test"] != "pfs":
        return pt["test"]
    return f"pfs local={pt['local_fraction']:g} stripe={human_size(pt['stripe_size'])}"


WORKLOAD = Workload(
    name="pfs", summary="MACHE01's parallel I/O study: ttcp and bonnie baselines, the MPI read/write "
    "test over GlusterFS", axes=AXES,
    fields=FIELDS,
    check=check, run_point=run_point, prepare=prepare, label=label, normalize=normalize, bounds=bounds,
    cost=cost,
    figure=Figure("parallel file system: aggregate read and write", x="local_fraction",
                  x_label="local fraction (share of each rank's blocks in its own node's stripe)",
                  series=("stripe_size",), metrics=(("read_mbyte_s", "read"), ("write_mbyte_s", "write")),
                  table_extra=(("local_fraction_measured", "measured local share"),),
                  on_curve=(("test", "pfs"),),
                  levels=(Level((("test", "ttcp"),), "throughput_mbyte_s", "network alone: nodes x ttcp", "nodes"),
                          Level((("test", "bonnie"),), "read_mbyte_s", "disks alone: nodes x bonnie read", "nodes"),
                          Level((("test", "bonnie"),), "write_mbyte_s", "disks alone: nodes x bonnie write",
                                "nodes"))))
