"""The Disk/Net balance test: C simultaneous file copies, k remote and C-k local.

A local copy reads a file and writes another on its node's disk; a remote copy
reads on one node, sends over TCP, and the peer writes to its own disk. No
node takes part in two copies. File contents are random per point; every
destination is checked against the source's SHA-256 after the copies, and a
mismatch raises CopyCorrupted (the run fails). Throughput follows the papers:
bytes of all files / (time from the first start to the last copy's end),
MB = 10^6 bytes.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass

from topologies.spec import NetworkSpec, SpecError
from workloads.placement import place

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "copy_agent.py")
BASE_PORT = 7600
CHUNK = 64 * 1024


class CopyCorrupted(RuntimeError):
    """A destination file differs from its source: the run is not trustworthy."""


class CopyFailed(RuntimeError):
    pass


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


def plan(spec: NetworkSpec, copies: int, remote: int, placement: str = "any") -> list[Copy]:
    """Remote copies where the placement puts pairs, local copies on free nodes
    (nodes that relay no remote pair first, so a relay is not also a disk)."""
    check_counts(spec, copies, remote)
    pairs = place(spec, remote, placement) if remote else []
    out = [Copy(i, "remote", p.src, p.dst, f"on {p.wire}" if p.wire else f"via {p.relay}" if p.relay else "")
           for i, p in enumerate(pairs)]
    used = {n for p in pairs for n in (p.src, p.dst)}
    relays = {p.relay for p in pairs if p.relay}
    free = [n.name for n in spec.nodes if n.name not in used]
    free.sort(key=lambda n: n in relays)  # stable: node order, relays last
    for j, node in enumerate(free[:copies - remote]):
        out.append(Copy(remote + j, "local", node, node))
    return out


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


def _await_ready(proc, what: str) -> None:
    line = proc.stdout.readline().strip()
    if line != b"ready":
        if proc.poll() is None:
            proc.kill()
        err = proc.stderr.read().decode().strip()[-300:]
        raise CopyFailed(f"{what} could not start: {line.decode()} {err}".strip())


def _result(proc, what: str, timeout: float) -> dict:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise CopyFailed(f"{what} did not finish within {timeout:.0f} s")
    lines = out.decode().strip().splitlines()
    try:
        data = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        raise CopyFailed(f"{what} failed: {err.decode().strip()[-300:] or 'no output'}")
    if "error" in data:
        raise CopyFailed(f"{what}: {data['error']}")
    return data


def run_point(tb, disks, copies_plan: list[Copy], file_size: int, chunk: int = CHUNK,
              corrupt_copy: int | None = None, base_port: int = BASE_PORT) -> dict:
    """Run all copies at once on a built Testbed with a DiskSet; verify; measure."""
    py = sys.executable
    disks.fresh_throttles()
    files = []
    for c in copies_plan:
        src_path = disks.disk(c.src).path(f"copy{c.index}.src")
        dst_path = disks.disk(c.dst).path(f"copy{c.index}.dst")
        if os.path.exists(dst_path):
            os.unlink(dst_path)
        files.append((src_path, dst_path, _write_source(src_path, file_size)))
    receivers: dict[int, subprocess.Popen] = {}
    starters: dict[int, subprocess.Popen] = {}
    timeout = 60 + file_size * len(copies_plan) / 20e3  # >= 20 kB/s aggregate
    try:
        for c, (src_path, dst_path, _) in zip(copies_plan, files):
            if c.kind == "remote":
                cmd = [py, AGENT, "recv", "--dst", dst_path, "--port", str(base_port + c.index),
                       "--chunk", str(chunk)]
                if disks.disk(c.dst).cgroup:
                    cmd += ["--cgroup", disks.disk(c.dst).cgroup]
                receivers[c.index] = tb.host(c.dst).popen_netns(cmd, stdout=subprocess.PIPE,
                                                          stderr=subprocess.PIPE)
        for i, proc in receivers.items():
            _await_ready(proc, f"receiver of copy {i}")
        for c, (src_path, dst_path, _) in zip(copies_plan, files):
            disk = disks.disk(c.src)
            if c.kind == "local":
                cmd = [py, AGENT, "local", "--src", src_path, "--dst", dst_path]
            else:
                cmd = [py, AGENT, "send", "--src", src_path, "--host", tb.host(c.dst).address,
                       "--port", str(base_port + c.index)]
                if corrupt_copy == c.index:
                    cmd += ["--corrupt-at", str(file_size // 2)]
            cmd += ["--chunk", str(chunk)] + (["--cgroup", disk.cgroup] if disk.cgroup else [])
            starters[c.index] = tb.host(c.src).popen_netns(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                     stderr=subprocess.PIPE)
        for i, proc in starters.items():
            _await_ready(proc, f"copy {i}")
        for proc in starters.values():  # the start line: every copy begins together
            proc.stdin.write(b"go\n")
            proc.stdin.flush()
        per_copy = []
        for c in copies_plan:
            first = _result(starters[c.index], f"copy {c.index} ({c.describe()})", timeout)
            last = _result(receivers[c.index], f"receiver of copy {c.index}", timeout) \
                if c.kind == "remote" else first
            per_copy.append({"index": c.index, "kind": c.kind, "src": c.src, "dst": c.dst,
                             "via": c.via, "start": first["start"], "end": last["end"],
                             "bytes": last["bytes"]})
    finally:
        for proc in list(starters.values()) + list(receivers.values()):
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    bad = []
    for c, (src_path, dst_path, digest) in zip(copies_plan, files):
        if not os.path.exists(dst_path) or _sha256(dst_path) != digest:
            bad.append(f"copy {c.index} ({c.describe()})")
    for src_path, dst_path, _ in files:
        for path in (src_path, dst_path):
            if os.path.exists(path):
                os.unlink(path)
    if bad:
        raise CopyCorrupted("checksum mismatch at the destination of " + ", ".join(bad)
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
