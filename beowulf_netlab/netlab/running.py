"""The networks running now that this tool built, read from their manifests (`inspect`, `shell`).

Why from the manifests (netlab.manifest): every run writes one before it creates
anything, naming its owner process, its command, its network and each node's
shell (whose namespaces are the node's) with the shell's start time, so a pid
the kernel has since reused is never taken for a node. A run is alive while its
owner and some node's shell live; otherwise it is stale (killed: `clean`
removes it). Listing needs no root where the manifests are readable; entering a
node (`enter`) needs root, as Mininet's `mnexec -a PID` does.
"""
from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from beowulf_netlab.core.errors import BadInput, RuntimeFailure
from beowulf_netlab.netlab.manifest import LABEL_ENV, PREFIX, STATE_DIR, Manifest, _stat, pid_alive

RUN_ID_RE = re.compile(rf"^(?:{PREFIX})?([0-9a-f]{{2}})$")


@dataclass
class Run:
    manifest: Manifest
    alive: bool

    @property
    def run_id(self) -> str:
        return self.manifest.run_id

    @property
    def state(self) -> str:
        return "alive" if self.alive else "stale"

    def nodes(self) -> list[str]:
        """The nodes in namespaces (hosts), in the network's order; wires' shells are not nodes."""
        return list(self.manifest.addresses)

    def node_pid(self, node: str) -> int | None:
        """The pid of the node's shell while it is the one the run started (start time recorded)."""
        pid = self.manifest.shells.get(node)
        st = _stat(pid) if pid else None
        if st is None or st[0] in "ZX" or st[2] != self.manifest.shell_starts.get(node):
            return None
        return pid

    def started(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.manifest.created))


def run_id_arg(text: str) -> str:
    """A run id as `inspect` lists it (two hex digits, or bnl<id>), or one line (BadInput)."""
    m = RUN_ID_RE.match(text.strip().lower())
    if not m:
        raise BadInput(f"a run id is two hex digits as 'emulate.py inspect' lists them (e.g. 3a), got {text!r}")
    return m.group(1)


def runs(state_dir: Path = STATE_DIR) -> list[Run]:
    """Every run whose manifest is in state_dir, alive or stale, oldest first."""
    if state_dir.is_dir() and not os.access(state_dir, os.R_OK | os.X_OK):   # glob would see nothing
        raise BadInput(f"cannot read the run records in {state_dir} (root's): run it as root")
    paths = sorted(state_dir.glob("run-*.json")) if state_dir.is_dir() else []
    found = []
    for path in paths:
        try:
            manifest = Manifest.load(path)
        except PermissionError:
            raise BadInput(f"cannot read the run records in {state_dir} (root's): run it as root") from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue    # half-written or damaged: clean's business, not a network to show
        owner = pid_alive(manifest.owner_pid)
        found.append(Run(manifest, owner and any(Run(manifest, True).node_pid(n) for n in manifest.shells)))
    return sorted(found, key=lambda r: r.manifest.created)


def find(all_runs: list[Run], run_id: str) -> Run:
    for r in all_runs:
        if r.run_id == run_id:
            return r
    listed = ", ".join(r.run_id for r in all_runs) or "none"
    raise BadInput(f"no run {run_id} (running now: {listed}); see 'emulate.py inspect'")


def choose(all_runs: list[Run], run_id: str | None) -> Run:
    """The run `shell` enters: the one asked for, alive; or the only one alive."""
    if run_id is not None:
        run = find(all_runs, run_id)
        if not run.alive:
            raise BadInput(f"run {run_id} is stale (its process {run.manifest.owner_pid} is gone): nothing to "
                           "enter; 'emulate.py clean' removes what it left")
        return run
    alive = [r for r in all_runs if r.alive]
    if not alive:
        raise BadInput("no network is running: start one (e.g. 'sudo python3 emulate.py cli --topo single-net')")
    if len(alive) > 1:
        raise BadInput(f"{len(alive)} networks are running: pick one with --run: "
                       + "; ".join(f"{r.run_id} ({r.manifest.topology or r.manifest.command})" for r in alive))
    return alive[0]


def node_of(run: Run, node: str) -> int:
    """The pid whose namespaces are node's, or one line."""
    if node not in run.manifest.addresses:
        raise BadInput(f"run {run.run_id} has no node {node!r}; its nodes: {' '.join(run.nodes()) or 'none'}")
    pid = run.node_pid(node)
    if pid is None:
        raise BadInput(f"node {node} of run {run.run_id} is gone (its shell has ended)")
    return pid


def table(all_runs: list[Run]) -> list[str]:
    """`inspect`: one line per run."""
    if not all_runs:
        return ["no network built by this tool is running"]
    rows = [("RUN", "STATE", "PID", "STARTED", "NODES", "NETWORK", "COMMAND")]
    for r in all_runs:
        m = r.manifest
        rows.append((r.run_id, r.state, str(m.owner_pid), r.started(), str(len(m.addresses)),
                     m.topology or "-", m.command or "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1] for row in rows]


def details(run: Run) -> list[str]:
    """`inspect RUN`: the run and each node's namespace pid and address."""
    m = run.manifest
    lines = [f"run {run.run_id} ({run.state}): {m.topology or 'network not built yet'}; started "
             f"{run.started()} by pid {m.owner_pid}: {m.command or '-'}"]
    rows = [("NODE", "PID", "ADDRESS", "STATE")]
    for node in run.nodes():
        pid = run.node_pid(node)
        rows.append((node, str(pid or m.shells.get(node, "-")), m.addresses.get(node) or "-",
                     "alive" if pid else "gone"))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    if run.alive and run.nodes():
        lines.append(f"enter a node: sudo python3 emulate.py shell {run.nodes()[0]} --run {run.run_id}")
    return lines


def enter_argv(pid: int, command: list[str]) -> list[str]:
    """nsenter into the node's network, mount and UTS namespaces (as `mnexec -a PID`)."""
    return ["nsenter", "--target", str(pid), "--net", "--mount", "--uts", "--", *command]


def enter(run: Run, node: str, command: list[str]) -> None:
    """Replace this process with command (default: an interactive shell) inside node: the
    command owns the terminal and its exit status is the verb's. It carries the run's label,
    so the run's teardown (or `clean`) ends whatever it leaves behind."""
    pid = node_of(run, node)
    env = {**os.environ, LABEL_ENV: run.manifest.prefix}
    if not command:
        shell = os.environ.get("SHELL") or "/bin/bash"
        env["PS1"] = f"{node}@{run.run_id}:\\w# "
        command = [shell, *(["--norc"] if os.path.basename(shell) == "bash" else []),
                   *(["-i"] if sys.stdin.isatty() else [])]    # a script piped in: no prompt, no job control
    argv = enter_argv(pid, command)
    try:
        os.execvpe(argv[0], argv, env)
    except OSError as e:
        raise RuntimeFailure(f"cannot run nsenter: {e.strerror or e} (util-linux; run ./setup.sh)") from None


INSPECT_VERSION = 1   # `inspect --json`'s version (docs/json.md)


def as_data(all_runs: list[Run], run: Run | None = None) -> dict:
    """`inspect --json`: the runs as table() lists them, or one run with its nodes as details() does."""
    def one(r: Run) -> dict:
        m = r.manifest
        return {"run": r.run_id, "state": r.state, "owner_pid": m.owner_pid, "started": r.started(),
                "created": m.created, "network": m.topology or None, "command": m.command or None}
    if run is None:
        return {"inspect_version": INSPECT_VERSION,
                "runs": [{**one(r), "nodes": len(r.manifest.addresses)} for r in all_runs]}
    nodes = []
    for node in run.nodes():
        pid = run.node_pid(node)
        nodes.append({"node": node, "pid": pid, "address": run.manifest.addresses.get(node) or None,
                      "state": "alive" if pid else "gone"})
    return {"inspect_version": INSPECT_VERSION, **one(run), "nodes": nodes}
