"""The concurrent read/write test, an MPI program (mpi4py over TCP), one rank per node.

--test pfs (below) runs on the parallel file system; --test bonnie is the
per-node disk baseline: every rank writes then reads a file of the same size
on its own node's disk (O_DIRECT, 1 MiB blocks, from inside the node's
throttle cgroup), each phase between barriers, as Bonnie's block output and
block input do one node at a time.

In the spirit of MACHE01's test program: every rank writes its blocks, a
barrier, then every rank reads them back; aggregate = total bytes / the
slowest rank's time, for each phase.

The file: one logical file striped over the nodes, as PVFS stripes a file over
its I/O nodes. Stripe unit s is the file `stripe.<s>`, created by rank s
through its own mount, so the file system (GlusterFS NUFA) puts it on node
s's brick. The file view decides which stripe each of a rank's blocks lands
in: a `local_fraction` of them in the rank's own stripe, the others spread
over every other node's, as a strided view with a suitable stripe size
does. Block j of rank r sits at offset (r x blocks + j) x block in its
stripe file, so no two ranks write the same bytes.

Every block carries its (rank, block) stamp and is checked byte for byte
after the read phase; a mismatch is reported as corruption. Files are opened
O_DIRECT with page-aligned buffers, so every byte crosses the file system to
a throttled disk (no page cache on either side). Prints one JSON line (rank 0).

--serve keeps one job for a network's life (mpirun's launch through 32
namespaces costs seconds a point): rank 0 prints {"ready": size}, then reads
one command line a test from its stdin (mpirun forwards it) and every rank
runs it; an empty line or end of input ends the job. The other ranks wait for
a command with a sleeping poll, not in a collective: Open MPI's collectives
spin, and 31 idle spinning ranks would take the emulator's cores from the
points measured between tests (ttcp on the same network).
"""
from __future__ import annotations

import argparse
import json
import mmap
import os
import shlex
import struct
import sys
import time
import zlib

from mpi4py import MPI


def target(rank: int, j: int, nodes: int, fraction: float) -> int:
    """The stripe (node) block j of `rank` lands in: evenly interleaved, a
    `fraction` of the blocks in the rank's own, the rest round the others in
    turn (counted over the remote blocks only, so every other node gets its
    share whatever the fraction)."""
    local_before = int(j * fraction + 1e-9)
    if nodes == 1 or int((j + 1) * fraction + 1e-9) > local_before:
        return rank
    remote_before = j - local_before
    return (rank + 1 + remote_before % (nodes - 1)) % nodes


def stamp(rank: int, j: int, size: int) -> bytes:
    return struct.pack("<QQ", rank + 1, j + 1) * (size // 16)


def report(comm, mine: dict) -> None:
    mine = {"rank": comm.Get_rank(), "netns": os.readlink("/proc/self/ns/net"), **mine}
    everyone = comm.gather(mine, root=0)
    if comm.Get_rank() == 0:
        print(json.dumps({"ranks": everyone}), flush=True)


def bonnie(comm, args) -> None:
    rank = comm.Get_rank()
    path, cgroup = args.paths.split(",")[rank], (args.cgroups.split(",")[rank] if args.cgroups else "")
    if cgroup:
        with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o644)
    buf = mmap.mmap(-1, args.block)
    times = {}
    for phase, op in (("write_s", os.pwritev), ("read_s", os.preadv)):
        comm.Barrier()
        t0 = time.monotonic()
        for j in range(args.blocks):
            if op is os.pwritev:
                buf[:16] = struct.pack("<QQ", rank + 1, j + 1)
            if op(fd, [buf], j * args.block) != args.block:
                raise SystemExit(f"short {phase[:-2]} at block {j}")
        times[phase] = time.monotonic() - t0
    os.close(fd)
    os.unlink(path)
    if cgroup and args.leave:    # a served job's rank leaves the group before it is removed
        with open(os.path.join(args.leave, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    report(comm, {**times, "bytes": args.block * args.blocks, "corrupt_blocks": 0})


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", action="store_true", help="run the tests read from stdin (rank 0's)")
    ap.add_argument("--test", choices=("pfs", "bonnie"), default="pfs")
    ap.add_argument("--mounts", help="pfs: each rank's mount point, comma-separated by rank")
    ap.add_argument("--dir", help="pfs: directory of the run inside the file system")
    ap.add_argument("--paths", help="bonnie: each rank's file on its node's disk, by rank")
    ap.add_argument("--cgroups", help="bonnie: each rank's node throttle cgroup, by rank")
    ap.add_argument("--leave", help="bonnie: the cgroup hierarchy's root, rejoined after the test")
    ap.add_argument("--block", type=int)
    ap.add_argument("--blocks", type=int)
    ap.add_argument("--local-fraction", type=float, default=1.0)
    return ap


def run(comm, args) -> None:
    if args.block is None or args.blocks is None:
        raise SystemExit("--block and --blocks are required")
    if args.test == "bonnie":
        bonnie(comm, args)
    else:
        pfs(comm, args)


def command(comm) -> str:
    """The next command line, on every rank (rank 0 reads it from stdin)."""
    if comm.Get_rank() == 0:
        line = sys.stdin.readline()
        for r in range(1, comm.Get_size()):
            comm.send(line, dest=r, tag=1)
        return line
    req = comm.irecv(source=0, tag=1)
    while True:
        done, line = req.test()
        if done:
            return line
        time.sleep(0.01)


def serve(comm) -> None:
    comm.Barrier()
    if comm.Get_rank() == 0:
        print(json.dumps({"ready": comm.Get_size()}), flush=True)
    while (line := command(comm)).strip():
        run(comm, parser().parse_args(shlex.split(line)))


def pfs(comm, args) -> None:
    rank, nodes = comm.Get_rank(), comm.Get_size()
    mounts = args.mounts.split(",")
    if len(mounts) != nodes:
        raise SystemExit(f"{len(mounts)} mounts for {nodes} ranks")
    base = os.path.join(mounts[rank], args.dir)
    if rank == 0:
        os.makedirs(base, exist_ok=True)
    comm.Barrier()
    flags = os.O_RDWR | os.O_DIRECT
    for _ in range(50):    # another node's new directory may take a moment to appear here
        if os.path.isdir(base):
            break
        time.sleep(0.1)
    own = os.open(os.path.join(base, f"stripe.{rank}"), flags | os.O_CREAT, 0o644)
    comm.Barrier()          # every stripe exists, each on its creator's brick
    fds = {rank: own}
    plan = [target(rank, j, nodes, args.local_fraction) for j in range(args.blocks)]
    for s in set(plan):
        if s not in fds:
            fds[s] = os.open(os.path.join(base, f"stripe.{s}"), flags)
    buf = mmap.mmap(-1, args.block)
    per_stripe = [0] * nodes
    comm.Barrier()
    t0 = time.monotonic()
    for j, s in enumerate(plan):
        buf[:] = stamp(rank, j, args.block)
        off = (rank * args.blocks + j) * args.block
        if os.pwritev(fds[s], [buf], off) != args.block:
            raise SystemExit(f"short write at block {j}")
        per_stripe[s] += args.block
    write_s = time.monotonic() - t0
    comm.Barrier()
    t0 = time.monotonic()
    crcs = []
    for j, s in enumerate(plan):
        off = (rank * args.blocks + j) * args.block
        if os.preadv(fds[s], [buf], off) != args.block:
            raise SystemExit(f"short read at block {j}")
        crcs.append(zlib.crc32(buf))   # compared after the clock stops
    read_s = time.monotonic() - t0
    bad = sum(crc != zlib.crc32(stamp(rank, j, args.block)) for j, crc in enumerate(crcs))
    for fd in fds.values():
        os.close(fd)
    report(comm, {"write_s": write_s, "read_s": read_s, "bytes": args.block * args.blocks,
                  "per_stripe": per_stripe, "corrupt_blocks": bad})


def main() -> int:
    args = parser().parse_args()
    comm = MPI.COMM_WORLD
    if args.serve:
        serve(comm)
    else:
        run(comm, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
