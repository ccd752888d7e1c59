"""A disk per node: a sparse image on a loop device, ext2-style ext4, mounted
in a per-run directory, with its bandwidth enforced by the kernel's block
throttle for the node's blkio cgroup.

Processes that should see the node's disk speed (the copy agents) join the
node's cgroup themselves; setup and verification by the runner stay outside
it and run unthrottled. Everything is recorded in the run's manifest before it
exists, so `release_disks` (normal teardown) and `clean_orphans` (after a
killed run) remove exactly what a run made: mounts, loop devices, cgroups,
image files.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from beowulf_netlab.core.command import execute, run
from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.core.safefile import private_dir
from beowulf_netlab.netlab.disk_profiles import DiskProfile

# root's own folder (core.safefile.private_dir checks it before use): never a shared one such as
# /var/tmp, where another user could create it first and redirect every image and mount
DISK_DIR = Path(os.environ.get("NETLAB_DISK_DIR", "/var/lib/beowulf-netlab/disks"))
DISK_DIR_ENV = "NETLAB_DISK_DIR"
RUN_DIR_RE = re.compile(r"bnl[0-9a-f]{2}")   # a run's folder and cgroup: exactly bnl<id> (fullmatch)
CGROUP1 = Path("/sys/fs/cgroup/blkio")
CGROUP2 = Path("/sys/fs/cgroup")
MIN_IMAGE = 64 << 20
FREE_RESERVE = 1 << 30   # left free for the host when node disks are full


class DiskError(RuntimeFailure):
    """A node disk could not be made; the message says what to do."""


def throttle_impl() -> str | None:
    """Which kernel block throttle this host offers, or None."""
    if (CGROUP1 / "blkio.throttle.read_bps_device").exists():
        return "cgroup1-blkio-throttle"
    controllers = CGROUP2 / "cgroup.controllers"
    if controllers.exists() and "io" in controllers.read_text().split():
        return "cgroup2-io.max"
    return None


def missing_tools() -> list[str]:
    need = {"losetup": "util-linux", "mkfs.ext4": "e2fsprogs", "mount": "mount", "umount": "mount"}
    return [f"{t} (apt: {pkg})" for t, pkg in need.items() if not shutil.which(t)]


@dataclass
class NodeDisk:
    node: str
    image: str
    mount: str
    loop: str = ""
    majmin: str = ""
    cgroup: str = ""

    def path(self, name: str) -> str:
        return os.path.join(self.mount, name)


def image_bytes(max_file: int) -> int:
    """Room for a source and a destination file of the largest size, plus slack."""
    return max(MIN_IMAGE, (2 * max_file * 11 // 10 + (32 << 20) + 4095) // 4096 * 4096)


class DiskSet:
    """The disks of one testbed. Lives as long as the network; the manifest's
    release removes it even if this object never gets to."""

    def __init__(self, manifest, profile: DiskProfile, nodes: list[str], max_file: int):
        self.manifest = manifest
        self.profile = profile
        self.nodes = nodes
        self.size = image_bytes(max_file)
        self.impl = throttle_impl() if profile.throttled else "none"
        if profile.throttled and self.impl is None:
            raise DiskError("this kernel offers no block throttle (cgroup v1 blkio or v2 io); "
                            "use --disk none")
        missing = missing_tools()
        if missing:
            raise DiskError("node disks need: " + ", ".join(missing) + "; run ./setup.sh")
        self.root = DISK_DIR / manifest.prefix
        self.disks: dict[str, NodeDisk] = {}
        self.generation = 0

    def cgroup_root(self) -> Path:
        base = CGROUP2 if self.impl == "cgroup2-io.max" else CGROUP1
        return base / self.manifest.prefix

    def create(self) -> "DiskSet":
        self.manifest.disk_dir = str(self.root)
        self.manifest.cgroup_dirs = [str(self.cgroup_root())] if self.impl != "none" else []
        self.manifest.save()
        private_dir(DISK_DIR, "node disks' folder", env=DISK_DIR_ENV)
        need, free = len(self.nodes) * self.size, shutil.disk_usage(DISK_DIR).free
        if need > free - FREE_RESERVE:   # the images are sparse, but the copies can fill every one
            raise DiskError(f"the node disks could take {need / 2**30:.1f} GiB ({len(self.nodes)} x "
                            f"{self.size / 2**20:.0f} MiB) and {DISK_DIR} has {free / 2**30:.1f} GiB free "
                            f"(keeping {FREE_RESERVE >> 30} GiB); use a smaller --file-size or fewer copies, "
                            f"or set {DISK_DIR_ENV} to a roomier folder")
        private_dir(self.root, "run's disk folder", env=DISK_DIR_ENV)
        if self.impl != "none":
            self._make_cgroup(self.cgroup_root())
        for node in self.nodes:
            disk = NodeDisk(node, str(self.root / f"{node}.img"), str(self.root / node))
            self.disks[node] = disk
            try:
                fd = os.open(disk.image, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                             0o600)
            except OSError as e:
                raise DiskError(f"cannot create the node disk {disk.image}: {e.strerror} (a killed run "
                                "left it: run 'sudo python3 emulate.py clean')")
            try:
                os.ftruncate(fd, self.size)
            finally:
                os.close(fd)
            disk.loop = run(["losetup", "--find", "--show", disk.image]).strip()
            self.manifest.disks.append(asdict(disk))
            self.manifest.save()
            disk.majmin = _majmin(disk.loop)
            run(["mkfs.ext4", "-q", "-F", "-O", "^has_journal", "-E",
                  "lazy_itable_init=0,lazy_journal_init=0", "-L", node, disk.loop])
            os.makedirs(disk.mount, exist_ok=True)
            run(["mount", "-o", "noatime", disk.loop, disk.mount])
            self.manifest.disks[-1] = asdict(disk)
            self.manifest.save()
        self.fresh_throttles()
        return self

    def fresh_throttles(self, residents: dict[str, list[int]] | None = None) -> None:
        """A new cgroup per node and point: blk-throttle carries credit and debt
        from one slice to the next (measured: a reused group ran a 1 MB copy
        26 % fast), so no point may inherit another's budget. `residents`
        (node -> pids) are long-lived processes that do a node's disk I/O
        (file-system bricks): they move into the new group before the old one
        is removed (a cgroup with a process in it cannot be)."""
        if self.impl == "none":
            return
        self.generation += 1
        for disk in self.disks.values():
            old = disk.cgroup
            disk.cgroup = str(self.cgroup_root() / f"{disk.node}.{self.generation}")
            self._make_cgroup(Path(disk.cgroup))
            self._throttle(disk)
            for pid in (residents or {}).get(disk.node, []):
                try:
                    Path(disk.cgroup, "cgroup.procs").write_text(str(pid))
                except OSError:   # the process has ended: nothing to move
                    pass
            if old:
                _rmdir_cgroup(Path(old))

    def _make_cgroup(self, path: Path) -> None:
        if self.impl == "cgroup2-io.max":
            parent = path.parent / "cgroup.subtree_control"
            if "io" not in parent.read_text().split():
                parent.write_text("+io")
        path.mkdir(exist_ok=True)

    def _throttle(self, disk: NodeDisk) -> None:
        def bps(mbyte_s: float | None) -> int | None:
            return None if mbyte_s is None else int(mbyte_s * 1e6)
        r, w = bps(self.profile.read_mbyte_s), bps(self.profile.write_mbyte_s)
        cg = Path(disk.cgroup)
        if self.impl == "cgroup2-io.max":
            (cg / "io.max").write_text(f"{disk.majmin} rbps={r or 'max'} wbps={w or 'max'}")
            return
        if r:
            (cg / "blkio.throttle.read_bps_device").write_text(f"{disk.majmin} {r}")
        if w:
            (cg / "blkio.throttle.write_bps_device").write_text(f"{disk.majmin} {w}")

    def disk(self, node: str) -> NodeDisk:
        return self.disks[node]

    def record(self) -> dict:
        return {**self.profile.record(), "throttle": self.impl,
                "io": "O_DIRECT reads and writes (no page cache)",
                "filesystem": "ext4 without journal on a loop device", "image_bytes": self.size}

def _majmin(dev: str) -> str:
    st = os.stat(dev)
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"


def _loops_backed_by(directory: str) -> list[str]:
    """Loop devices whose backing file lies in directory (never anyone else's)."""
    try:
        out = run(["losetup", "-J", "-l"], check=False)
        devs = json.loads(out or "{}").get("loopdevices", [])
    except (OSError, ValueError):
        return []
    prefix = directory.rstrip("/") + "/"
    return [d["name"] for d in devs if (d.get("back-file") or "").split(" (deleted)")[0].startswith(prefix)]


def _mounts_under(directory: str) -> list[str]:
    prefix = directory.rstrip("/") + "/"
    out = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        mnt = line.split()[1].replace("\\040", " ")
        if mnt.startswith(prefix):
            out.append(mnt)
    return out


def _umount(path: str) -> bool:
    for _ in range(20):  # killed processes release their files asynchronously
        if execute(["umount", path])[0] == 0:
            return True
        time.sleep(0.1)
    return execute(["umount", "-l", path])[0] == 0


def _rmdir_cgroup(path: Path) -> bool:
    if not path.exists():
        return False
    for child in sorted((p for p in path.iterdir() if p.is_dir()), reverse=True):
        _rmdir_cgroup(child)
    for _ in range(20):
        try:
            path.rmdir()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def release_disks(disks: list[dict], disk_dir: str | None, cgroup_dirs: list[str]) -> list[str]:
    """Unmount, detach, remove cgroups and images. Safe to call twice."""
    done = []
    dirs = {disk_dir} if disk_dir else set()
    dirs |= {str(Path(d["image"]).parent) for d in disks}
    for d in sorted(dirs):
        for mnt in sorted(_mounts_under(d), reverse=True):
            if _umount(mnt):
                done.append(f"unmounted {mnt}")
        for loop in _loops_backed_by(d):
            if execute(["losetup", "-d", loop])[0] == 0:
                done.append(f"detached {loop}")
    for cg in cgroup_dirs:
        if _rmdir_cgroup(Path(cg)):
            done.append(f"cgroup {cg}")
    for d in sorted(dirs):
        if Path(d).exists():
            shutil.rmtree(d, ignore_errors=True)
            done.append(f"removed {d}")
    return done


def orphan_dirs(live_prefixes: set[str]) -> list[tuple[str, list[str]]]:
    """Disk directories and cgroups of runs that no live process owns."""
    out = []
    names = set()
    if DISK_DIR.exists():
        private_dir(DISK_DIR, "node disks' folder", env=DISK_DIR_ENV)   # never clean a folder others control
        names |= {p.name for p in DISK_DIR.iterdir() if RUN_DIR_RE.fullmatch(p.name)}
    for base in (CGROUP1, CGROUP2):
        if base.exists():
            names |= {p.name for p in base.iterdir() if p.is_dir() and RUN_DIR_RE.fullmatch(p.name)}
    for name in sorted(names - live_prefixes):
        cgs = [str(b / name) for b in (CGROUP1, CGROUP2) if (b / name).is_dir()]
        out.append((str(DISK_DIR / name), cgs))
    return out
