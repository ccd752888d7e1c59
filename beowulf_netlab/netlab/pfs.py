"""A real parallel file system on the emulated cluster: GlusterFS, one brick per node.

MACHE01 ran PVFS with every node both an I/O node and a compute node. PVFS
(OrangeFS) is packaged neither in Debian nor on PyPI; GlusterFS is, so each
node runs GlusterFS's own daemons, configured by volfiles we write (no
glusterd, whose one management daemon per host would not fit 32 nodes on
one host):
- the brick, `glusterfsd`: storage/posix on the node's throttled disk ->
  features/locks -> performance/io-threads -> protocol/server on the node's
  address;
- the client, `glusterfs`, a FUSE mount: protocol/client to every brick ->
  cluster/nufa, whose local volume is the node's own brick. NUFA ("non-uniform
  file access") creates a new file on the creating node's brick; a file's
  data then stays there whoever reads or writes it. So the workload decides
  where each stripe file lives by choosing which node creates it, and reads
  the placement back from GlusterFS (trusted.glusterfs.pathinfo): placement
  is measured, not assumed.
Both daemons run in the node's network namespace (all traffic crosses the
emulated network, even a node's own, which goes through its loopback) and
in the host's mount namespace (where the disks are). The brick joins the
node's block-throttle cgroup, so its disk I/O runs at the node's disk rate;
clients open files with O_DIRECT, which GlusterFS passes to the brick (a
write or read reaches the throttled disk, not a page cache). GlusterFS's
own timeouts (ping 42 s, frame 1800 s) are multiplied by the time scale D,
up to the largest values GlusterFS accepts (1013 s and 86400 s).

Cleanup: the daemons live in the node namespaces (the manifest's release
kills every process there); the mounts and bricks live under the run's disk
directory (release_disks unmounts and removes them), so a killed run leaves
nothing that `emulate.py clean` does not remove.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from beowulf_netlab.core.command import execute, run
from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.netlab.disk import DiskSet
from beowulf_netlab.topologies.timescale import scaled_time

BRICK_PORT = 49152
PING_TIMEOUT_S = 42          # GlusterFS defaults, scaled by D up to GlusterFS's bounds
FRAME_TIMEOUT_S = 1800
MAX_PING_TIMEOUT_S = 1013
MAX_FRAME_TIMEOUT_S = 86400


def timeouts(time_scale: float) -> tuple[int, int]:
    """(ping, frame) timeouts in seconds for a network D times slower."""
    return (min(int(scaled_time(PING_TIMEOUT_S, time_scale)), MAX_PING_TIMEOUT_S),
            min(int(scaled_time(FRAME_TIMEOUT_S, time_scale)), MAX_FRAME_TIMEOUT_S))
READY_TIMEOUT_S = 60
VERSION_CMD = ["glusterfsd", "--version"]


class PfsError(RuntimeFailure):
    """The parallel file system could not be started; the message says what to do."""


def missing_tools() -> list[str]:
    need = {"glusterfsd": "glusterfs-server", "glusterfs": "glusterfs-client", "getfattr": "attr",
            "mpirun": "openmpi-bin"}
    out = [f"{t} (apt: {pkg})" for t, pkg in need.items() if not shutil.which(t)]
    if not os.path.exists("/dev/fuse"):
        out.append("/dev/fuse (a kernel with FUSE)")
    return out


def brick_volfile(node: str, brick_dir: str, address: str, port: int = BRICK_PORT) -> str:
    """The server graph of one node's brick."""
    return f"""volume {node}-posix
  type storage/posix
  option directory {brick_dir}
end-volume

volume {node}-locks
  type features/locks
  subvolumes {node}-posix
end-volume

volume {node}
  type performance/io-threads
  subvolumes {node}-locks
end-volume

volume {node}-server
  type protocol/server
  option transport-type tcp
  option transport.socket.bind-address {address}
  option transport.socket.listen-port {port}
  option auth.addr.{node}.allow *
  subvolumes {node}
end-volume
"""


def client_volfile(local: str, bricks: list[tuple[str, str]], time_scale: float = 1.0,
                   port: int = BRICK_PORT) -> str:
    """The client graph of one node: every brick, NUFA with `local` as the node's own."""
    parts = []
    ping, frame = timeouts(time_scale)
    for node, address in bricks:
        parts.append(f"""volume {node}-client
  type protocol/client
  option transport-type tcp
  option remote-host {address}
  option remote-port {port}
  option remote-subvolume {node}
  option ping-timeout {ping}
  option frame-timeout {frame}
end-volume
""")
    subs = " ".join(f"{node}-client" for node, _ in bricks)
    parts.append(f"""volume pfs
  type cluster/nufa
  option local-volume-name {local}-client
  subvolumes {subs}
end-volume
""")
    return "\n".join(parts)


@dataclass
class Member:
    node: str
    brick_dir: str
    mount: str
    brick: subprocess.Popen | None = None
    client: subprocess.Popen | None = None


class GlusterCluster:
    """Bricks and mounts on every node of a testbed with disks (see module doc)."""

    impl = "glusterfs"

    def __init__(self, tb, disks: DiskSet, time_scale: float = 1.0):
        missing = missing_tools()
        if missing:
            raise PfsError("the parallel file system needs: " + ", ".join(missing) + "; run ./setup.sh")
        self.tb, self.disks, self.time_scale = tb, disks, time_scale
        self.root = disks.root / "pfs"
        self.members: dict[str, Member] = {}
        self.commands: list[list[str]] = []
        version = run(VERSION_CMD, check=False).splitlines()   # asked once, recorded on every point
        self.version = version[0] if version else None

    def _host(self, node: str):
        return self.tb.host(node)

    def start(self) -> "GlusterCluster":
        self.root.mkdir(parents=True, exist_ok=True)
        nodes = list(self.disks.disks)
        bricks = [(n, self._host(n).address) for n in nodes]
        for node in nodes:
            m = Member(node, self.disks.disk(node).path("brick"), str(self.disks.root / f"{node}.pfs"))
            os.makedirs(m.brick_dir, exist_ok=True)
            os.makedirs(m.mount, exist_ok=True)
            vol = self.root / f"{node}-brick.vol"
            vol.write_text(brick_volfile(node, m.brick_dir, self._host(node).address))
            m.brick = self._spawn(node, ["glusterfsd", "-N", "-f", str(vol), "-l",
                                         str(self.root / f"{node}-brick.log"), "--brick-name", node])
            self.members[node] = m
        for node in nodes:
            self._wait_listening(node)
        self.join_cgroups()
        for node in nodes:
            m = self.members[node]
            vol = self.root / f"{node}-client.vol"
            vol.write_text(client_volfile(node, bricks, self.time_scale))
            m.client = self._spawn(node, ["glusterfs", "-N", "-f", str(vol), "-l",
                                          str(self.root / f"{node}-client.log"),
                                          "--direct-io-mode=enable", m.mount])
        for node in nodes:
            self._wait_mounted(self.members[node])
        return self

    def _spawn(self, node: str, argv: list[str]) -> subprocess.Popen:
        """A daemon in the node's namespace; its messages go to its log file (-l)."""
        self.commands.append(argv)
        return self._host(node).popen_netns(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)

    def _died(self, node: str, proc: subprocess.Popen, what: str) -> PfsError:
        """The daemon's first error line (its log goes with the run's directory)."""
        log = self.root / f"{node}-{'brick' if what == 'brick' else 'client'}.log"
        try:
            errors = [ln for ln in log.read_text(errors="replace").splitlines() if "] E [" in ln]
        except OSError:
            errors = []
        why = errors[0].split("] E [", 1)[1] if errors else "no error in its log"
        return PfsError(f"GlusterFS {what} of {node} exited ({proc.returncode}): {why[:200]}")

    def _wait_listening(self, node: str) -> None:
        m = self.members[node]
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if m.brick.poll() is not None:
                raise self._died(node, m.brick, "brick")
            if self._host(node).run(["ss", "-ltnH", f"sport = :{BRICK_PORT}"], check=False).strip():
                return
            time.sleep(0.1)
        raise PfsError(f"the GlusterFS brick of {node} did not listen within {READY_TIMEOUT_S} s; "
                       f"see {self.root}/{node}-brick.log")

    def _wait_mounted(self, m: Member) -> None:
        """Mounted and connected: the root answers a stat through GlusterFS."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if m.client.poll() is not None:
                raise self._died(m.node, m.client, "client")
            if os.path.ismount(m.mount) and execute(["stat", "-f", m.mount])[0] == 0:
                return
            time.sleep(0.1)
        raise PfsError(f"the GlusterFS mount of {m.node} did not come up within {READY_TIMEOUT_S} s; "
                       f"see {self.root}/{m.node}-client.log")

    def join_cgroups(self) -> None:
        """Every brick into its node's current throttle cgroup."""
        for node, m in self.members.items():
            cg = self.disks.disk(node).cgroup
            if cg and m.brick and m.brick.poll() is None:
                Path(cg, "cgroup.procs").write_text(str(m.brick.pid))

    def residents(self) -> dict[str, list[int]]:
        """node -> the brick's pid: what DiskSet.fresh_throttles must carry into a new cgroup."""
        return {node: [m.brick.pid] for node, m in self.members.items()
                if m.brick is not None and m.brick.poll() is None}

    def mount(self, node: str) -> str:
        return self.members[node].mount

    def brick_nodes(self, paths: list[str]) -> dict[str, str | None]:
        """path -> the node whose brick holds it, as GlusterFS reports it (one getfattr for
        all); None where GlusterFS does not say (the caller must not guess)."""
        out = run(["getfattr", "--absolute-names", "-n", "trusted.glusterfs.pathinfo", *paths], check=False)
        said: dict[str, str] = {}
        current = None
        for line in out.splitlines():
            if line.startswith("# file: "):
                current = line[len("# file: "):]
            elif current is not None and line.startswith("trusted.glusterfs.pathinfo="):
                said[current] = line
        return {path: next((node for node, m in self.members.items() if f"{m.brick_dir}/" in said.get(path, "")),
                           None) for path in paths}

    def remove(self, directory: str) -> None:
        """A finished point's files, removed through the file system (every brick)."""
        shutil.rmtree(os.path.join(self.mount(next(iter(self.members))), directory), ignore_errors=True)

    def check_alive(self) -> None:
        for node, m in self.members.items():
            for proc, what in ((m.brick, "brick"), (m.client, "client")):
                if proc is not None and proc.poll() is not None:
                    raise self._died(node, proc, what)

    def stop(self) -> None:
        """Unmount, then end the daemons this object started (by PID)."""
        for m in self.members.values():
            if os.path.ismount(m.mount):
                if execute(["umount", m.mount])[0] != 0:
                    execute(["umount", "-l", m.mount])
        procs = [p for m in self.members.values() for p in (m.client, m.brick) if p is not None]
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + 10      # one deadline for all, then SIGKILL the rest
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def record(self) -> dict:
        return {"impl": self.impl, "version": self.version,
                "bricks": len(self.members), "placement": "cluster/nufa: a file lives on the brick of "
                "the node that created it", "client": "FUSE mount, --direct-io-mode=enable; files "
                "opened O_DIRECT (passed to the brick)", "time_scale": self.time_scale,
                "ping_timeout_s": timeouts(self.time_scale)[0],
                "frame_timeout_s": timeouts(self.time_scale)[1],
                "commands": self.commands[:2] + ([["..."]] if len(self.commands) > 2 else [])}
