"""Run-scoped names and a manifest of what a run created, so cleanup is exact.

Every object a run makes in the host's root namespace is named with the run's
prefix `bnl<id>` (id: two hex digits claimed atomically), and the manifest in
/run/beowulf-netlab/ lists the processes and namespaces it started. Cleanup
(at the end of a run, or `emulate.py clean` after a killed one) touches only
those: never every OVS bridge or every `*-eth*`, unlike `mn -c`. The manifest also
says what the run is (its command, its network, its nodes' addresses), which
`inspect` and `shell` read (netlab.running). Every kill
returns only once the killed processes are gone (`kill_and_wait`), so the next
run or check never meets one still dying.
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from beowulf_netlab.core.command import execute, run
from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.core.safefile import private_dir, write_atomic_bytes
from beowulf_netlab.netlab.disk import orphan_dirs, release_disks

STATE_DIR = Path(os.environ.get("NETLAB_STATE_DIR", "/run/beowulf-netlab"))
PREFIX = "bnl"
LABEL_ENV = "NETLAB_RUN"   # every process a run starts carries NETLAB_RUN=bnl<id>
NAME_RE = re.compile(rf"^{PREFIX}([0-9a-f]{{2}})[wsi]")
WIRE_NODE_RE = re.compile(rf"{PREFIX}[0-9a-f]{{2}}w(.+)")   # netlab.topo.wire_node's names (whole)


def wire_of(device: str) -> str | None:
    """The wire a run's device or command owner stands for (bnl<id>w<wire>, netlab.topo.wire_node),
    else None: readers of a record keyed by such names (the report) ask here, never parse them."""
    m = WIRE_NODE_RE.fullmatch(device)
    return m.group(1) if m else None


GROUP_BASE = 0x626E6C00   # "bnl\0": device group bnl<id> is GROUP_BASE + id


def device_group(prefix: str) -> int:
    """The device group of run `prefix` (bnl<id>). Every root-namespace device a run makes
    joins it, so release deletes them in one request (`ip link del group`): the kernel
    unregisters them in one batch, where a request per device waits for the network's
    quiescence (an RCU grace period) once each, several ms a device."""
    return GROUP_BASE + int(prefix[len(PREFIX):], 16)


def root_links() -> list[str]:
    """Devices of the root namespace (as /sys lists them: no process to spawn)."""
    try:
        return sorted(os.listdir("/sys/class/net"))
    except OSError:
        out = run(["ip", "-o", "link", "show"], check=False)
        return [parts[1].split("@")[0] for line in out.splitlines() if len(parts := line.split(": ", 2)) >= 2]


def ovs_bridges() -> list[str]:
    rc, out, _ = execute(["ovs-vsctl", "--timeout=3", "list-br"], timeout=10)
    return out.split() if rc == 0 else []


def del_ovs_bridge(name: str) -> bool:
    return execute(["ovs-vsctl", "--timeout=5", "--if-exists", "del-br", name])[0] == 0


def del_link(name: str) -> bool:
    return execute(["ip", "link", "del", name])[0] == 0


NFT_TABLE_RE = re.compile(rf"{PREFIX}([0-9a-f]{{2}})collisions")   # matched whole (fullmatch)


def collision_table(prefix: str) -> str:
    """The run's nftables bridge table of collision drops (netlab.contention fills it)."""
    return f"{prefix}collisions"


def bridge_tables() -> list[str]:
    """nftables bridge-family tables of the root namespace (a run's collision drops)."""
    rc, out, _ = execute(["nft", "list", "tables", "bridge"], timeout=10)
    return [words[2] for line in out.splitlines() if len(words := line.split()) == 3] if rc == 0 else []


def del_bridge_table(name: str) -> bool:
    return execute(["nft", "delete", "table", "bridge", name])[0] == 0


def labelled_pids(label_prefix: str = PREFIX) -> dict[int, str]:
    """pid -> run label, for processes whose environment carries a run label
    (NETLAB_RUN=bnl...), i.e. processes some run of this tool started."""
    found = {}
    needle = f"{LABEL_ENV}={label_prefix}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        for var in env.split(b"\0"):
            if var.startswith(needle):
                found[int(entry)] = var.split(b"=", 1)[1].decode(errors="replace")
    return found


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


KILL_WAIT_S = 5.0   # how long a SIGKILLed process may take to exit before it is reported


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent pid, start time) of pid from /proc/<pid>/stat; None once it is reaped."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1]), fields[19]


def _gone(pid: int, start: str) -> bool:
    """pid has exited: reaped, a zombie (its memory, sockets and namespaces are
    released; our own zombies are reaped here), or its number reused (start time)."""
    st = _stat(pid)
    if st is None or st[2] != start:
        return True
    if st[0] not in "ZX":
        return False
    if st[1] == os.getpid():
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    return True


def kill_and_wait(pids: Iterable[int], timeout_s: float = KILL_WAIT_S) -> tuple[list[int], list[int]]:
    """SIGKILL each pid, then return only when each is gone or timeout_s passed:
    SIGKILL is only delivered, and a process busy in the kernel (closing sockets,
    freeing memory) runs on for a while, which a caller returning at once would
    leave behind for the next run. Returns (killed, still alive at the deadline)."""
    started: dict[int, str] = {}
    for pid in dict.fromkeys(pids):
        st = _stat(pid)
        if st is None or pid == os.getpid():
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
        started[pid] = st[2]
    waiting = dict(started)
    deadline = time.monotonic() + timeout_s
    pause = 0.002
    while waiting:
        waiting = {pid: start for pid, start in waiting.items() if not _gone(pid, start)}
        if not waiting or time.monotonic() >= deadline:
            break
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
    return list(started), sorted(waiting)


def survivors_line(pids: list[int], timeout_s: float = KILL_WAIT_S) -> list[str]:
    """One report line for processes that outlived SIGKILL's deadline (none: no line)."""
    if not pids:
        return []
    return [f"{len(pids)} killed process(es) still alive {timeout_s:g} s after SIGKILL "
            f"(pid {', '.join(map(str, pids))}): check 'ps -o pid,stat,cmd -p {','.join(map(str, pids))}'"]


def netns_inode(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}/ns/net").st_ino
    except OSError:
        return None


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@dataclass
class Manifest:
    run_id: str
    path: Path
    owner_pid: int = field(default_factory=os.getpid)
    created: float = field(default_factory=time.time)
    shells: dict[str, int] = field(default_factory=dict)     # mininet node name -> shell pid
    shell_starts: dict[str, str] = field(default_factory=dict)   # node name -> its shell's start time
    netns: list[int] = field(default_factory=list)           # inodes of our hosts' namespaces
    ovs_bridges: list[str] = field(default_factory=list)
    disks: list[dict] = field(default_factory=list)          # netlab.disk.NodeDisk records
    disk_dir: str | None = None
    cgroup_dirs: list[str] = field(default_factory=list)
    sysctls: dict[str, str] = field(default_factory=dict)    # host sysctl -> its value before the run
    # what `inspect` and `shell` show and enter (netlab.running): the owner's command line, the
    # network, and each node's address; its namespace's pid is in `shells`
    command: str = field(default_factory=lambda: " ".join([os.path.basename(sys.argv[0] if sys.argv else ""),
                                                           *sys.argv[1:]])[:300])
    topology: str = ""
    addresses: dict[str, str] = field(default_factory=dict)  # node in a namespace -> its address

    def remember_sysctl(self, key: str, before: str) -> None:
        """A host-wide sysctl the run is about to change, with the value release() restores."""
        if key not in self.sysctls:
            self.sysctls[key] = before
            self.save()

    @property
    def prefix(self) -> str:
        return f"{PREFIX}{self.run_id}"

    def save(self) -> None:
        data = {"run_id": self.run_id, "owner_pid": self.owner_pid, "created": self.created,
                "prefix": self.prefix, "shells": self.shells, "shell_starts": self.shell_starts,
                "netns": self.netns,
                "ovs_bridges": self.ovs_bridges, "disks": self.disks, "disk_dir": self.disk_dir,
                "cgroup_dirs": self.cgroup_dirs, "sysctls": self.sysctls,
                "command": self.command, "topology": self.topology, "addresses": self.addresses}
        write_atomic_bytes(self.path, json.dumps(data, indent=1), mode=0o600)

    @classmethod
    def load(cls, path: Path) -> "Manifest":
        data = json.loads(path.read_text())
        return cls(run_id=data["run_id"], path=path, owner_pid=data["owner_pid"],
                   created=data["created"], shells=data.get("shells", {}),
                   shell_starts=data.get("shell_starts", {}),
                   netns=data.get("netns", []), ovs_bridges=data.get("ovs_bridges", []),
                   disks=data.get("disks", []), disk_dir=data.get("disk_dir"),
                   cgroup_dirs=data.get("cgroup_dirs", []), sysctls=data.get("sysctls", {}),
                   command=data.get("command", ""), topology=data.get("topology", ""),
                   addresses=data.get("addresses", {}))

    def record_nodes(self, nodes) -> None:
        """Remember every Mininet node's shell and each host's namespace."""
        for node in nodes:
            if getattr(node, "shell", None) is not None:
                self.shells[node.name] = node.pid
                if (st := _stat(node.pid)) is not None:
                    self.shell_starts[node.name] = st[2]
                if node.inNamespace:
                    self.addresses[node.name] = getattr(node, "address", "") or node.IP() or ""
                    ino = netns_inode(node.pid)
                    if ino and ino not in self.netns:
                        self.netns.append(ino)
        self.save()


def claim() -> Manifest:
    """Claim an unused run id; the manifest exists before anything is created."""
    private_dir(STATE_DIR, "state folder", env="NETLAB_STATE_DIR")
    in_use = {m.group(1) for name in root_links() if (m := NAME_RE.match(name))}
    ids = [f"{i:02x}" for i in range(256)]
    random.shuffle(ids)
    for run_id in ids:
        if run_id in in_use:
            continue
        path = STATE_DIR / f"run-{run_id}.json"
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            continue
        os.close(fd)
        manifest = Manifest(run_id=run_id, path=path)
        manifest.save()
        return manifest
    raise RuntimeFailure("no free run id (256 runs' objects exist): run 'sudo python3 emulate.py "
                         "clean' to remove what killed runs left behind")


def _kill_namespace_processes(inodes: set[int], label: str) -> tuple[list[int], list[int]]:
    """SIGKILL every process living in one of our hosts' namespaces or carrying our
    label, and wait until they are gone: (killed, still alive at the deadline).
    Looks again after each kill (up to 3 times): a shell may have forked meanwhile."""
    me = os.getpid()
    killed: list[int] = []
    alive: list[int] = []
    for _ in range(3):
        ours = {pid for pid, lab in labelled_pids(label).items() if lab == label}
        found = [int(entry) for entry in os.listdir("/proc")
                 if entry.isdigit() and int(entry) != me and int(entry) not in killed
                 and (int(entry) in ours or netns_inode(int(entry)) in inodes)]
        if not found:
            break
        shot, left = kill_and_wait(found)
        killed += shot
        alive += left
    return killed, alive


def live_namespaces(manifest: Manifest) -> set[int]:
    """The recorded namespaces that are still certainly the run's: each pinned by its node's
    shell, alive with the start time recorded. A namespace number alone proves nothing once
    its last process is gone: the kernel reuses it for the next namespace anyone makes (a
    container, a sandbox), whose processes clean must never kill. Without the shell, only
    processes carrying the run's label are the run's."""
    out = set()
    for name, pid in manifest.shells.items():
        start = manifest.shell_starts.get(name)
        st = _stat(pid)
        if start is None or st is None or st[2] != start or st[0] in "ZX":
            continue
        ino = netns_inode(pid)
        if ino in manifest.netns:
            out.add(ino)
    return out


def live_shells(manifest: Manifest) -> dict[int, str]:
    """pid -> node of the run's node shells still alive: each with the start time recorded and
    a command line naming its node. A command line alone proves nothing once the shell is gone:
    its pid is reused (pid_max is 32768 on many hosts) and anyone may start a process called
    'mininet:b0'; a stale manifest's shells were killed by that alone."""
    out = {}
    for name, pid in manifest.shells.items():
        start, st = manifest.shell_starts.get(name), _stat(pid)
        if start is None or st is None or st[2] != start or st[0] in "ZX":
            continue
        if f"mininet:{name}" in _cmdline(pid):
            out[pid] = name
    return out


def release(manifest: Manifest, inodes: set[int] | None = None) -> list[str]:
    """Remove everything `manifest` names. Safe to call twice; returns what it removed.
    inodes: the run's namespaces as live_namespaces found them while the node shells still
    pinned them (a normal teardown closes the shells first); None: look now."""
    done: list[str] = []
    inodes = live_namespaces(manifest) if inodes is None else inodes
    killed, alive = _kill_namespace_processes(inodes, manifest.prefix)
    if killed:
        done.append(f"killed {len(killed)} processes in the run's namespaces")
    shells = live_shells(manifest)
    shot, alive_shells = kill_and_wait(shells)
    done += [f"killed shell of {shells[pid]} (pid {pid})" for pid in shot]
    done += survivors_line(sorted({*alive, *alive_shells}))
    if manifest.disks or manifest.disk_dir or manifest.cgroup_dirs:
        done += release_disks(manifest.disks, manifest.disk_dir, manifest.cgroup_dirs)
    for br in manifest.ovs_bridges:
        if br.startswith(manifest.prefix):
            if del_ovs_bridge(br):
                done.append(f"OVS bridge {br}")
    for table in bridge_tables():
        if table == collision_table(manifest.prefix) and del_bridge_table(table):
            done.append(f"nftables table bridge {table}")
    ours = [link for link in root_links() if link.startswith(manifest.prefix)]
    group = str(device_group(manifest.prefix))
    if ours and execute(["ip", "link", "del", "group", group])[0] == 0:
        done.append(f"{len(ours)} links at once (device group {group})")
    for _ in range(50):  # namespaces vanish asynchronously once their last process dies
        if not any(netns_inode(int(p)) in inodes for p in os.listdir("/proc") if p.isdigit()):
            break
        time.sleep(0.05)
    for link in root_links():
        if link.startswith(manifest.prefix):
            if del_link(link):
                done.append(f"link {link}")
    done += remove_engine_files(manifest.prefix)
    done += restore_sysctls(manifest)
    manifest.path.unlink(missing_ok=True)
    return done


def restore_sysctls(manifest: Manifest) -> list[str]:
    """Put back the host-wide sysctls the run widened, unless another live run may rely on them
    (it then restores them only if it changed them itself: runs are meant to be one at a time)."""
    if not manifest.sysctls:
        return []
    for path in STATE_DIR.glob("run-*.json"):
        if path == manifest.path:
            continue
        try:
            other = Manifest.load(path)
        except (OSError, ValueError, KeyError):
            continue
        if pid_alive(other.owner_pid):
            return [f"host sysctls left for live run {other.run_id}: {', '.join(manifest.sysctls)}"]
    done = []
    for key, value in manifest.sysctls.items():
        if execute(["sysctl", "-qw", f"{key}={value}"])[0] == 0:
            done.append(f"restored {key}")
    return done


def remove_engine_files(prefix: str) -> list[str]:
    """The medium engine's configuration and counters of run `prefix` (netlab.medium), which a
    SIGKILLed run leaves in the state directory (unlink never follows a link)."""
    done = []
    for path in sorted(STATE_DIR.glob(f"{prefix}-medium.*")) if STATE_DIR.exists() else []:
        path.unlink(missing_ok=True)
        done.append(f"engine file {path.name}")
    return done


def clean() -> list[str]:
    """`emulate.py clean`: release every run whose owner is gone, plus orphaned
    bnl<id> links that no manifest claims (a manifest lost with /run)."""
    report: list[str] = []
    live_ids = set()
    if STATE_DIR.exists():
        for path in sorted(STATE_DIR.glob("run-*.json")):
            try:
                manifest = Manifest.load(path)
            except (OSError, ValueError, KeyError):
                path.unlink(missing_ok=True)
                continue
            if pid_alive(manifest.owner_pid) and manifest.owner_pid != os.getpid():
                live_ids.add(manifest.run_id)
                report.append(f"run {manifest.run_id} is still running (pid {manifest.owner_pid}); left alone")
                continue
            report += [f"run {manifest.run_id}: {item}" for item in release(manifest)]
    orphans = {pid: label for pid, label in labelled_pids().items() if label[len(PREFIX):] not in live_ids}
    killed, alive = kill_and_wait(orphans)
    report += [f"orphan process {pid} of run {orphans[pid]}" for pid in killed]
    report += survivors_line(alive)
    for disk_dir, cgroups in orphan_dirs({f"{PREFIX}{i}" for i in live_ids}):
        report += [f"orphan {item}" for item in release_disks([], disk_dir, cgroups)]
    for br in ovs_bridges():
        m = NAME_RE.match(br)
        if m and m.group(1) not in live_ids:
            del_ovs_bridge(br)
            report.append(f"orphan OVS bridge {br}")
    for link in root_links():
        m = NAME_RE.match(link)
        if m and m.group(1) not in live_ids:
            if del_link(link):
                report.append(f"orphan link {link}")
    for path in sorted(STATE_DIR.glob(f"{PREFIX}*-medium.*")) if STATE_DIR.exists() else []:
        m = NAME_RE.match(path.name[:len(PREFIX) + 2] + "w")
        if m and m.group(1) not in live_ids:
            report += [f"orphan {item}" for item in remove_engine_files(f"{PREFIX}{m.group(1)}")]
    for table in bridge_tables():
        m = NFT_TABLE_RE.fullmatch(table)
        if m and m.group(1) not in live_ids and del_bridge_table(table):
            report.append(f"orphan nftables table bridge {table}")
    return report
