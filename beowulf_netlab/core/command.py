"""The one command runner: every external argv the tool applies goes through here.

A failure raises CommandFailed (a RuntimeFailure, exit 1) naming the command
and its error output. A CommandLog keeps the exact argv applied to each wire
and node with its exit status, so a results document records what was built
(as flent records each runner's command line), including what failed.

Batches: building a network applies hundreds of ip and tc commands, and a
process per command was most of a build's cost. `CommandLog.batch` runs many
of them in one `ip -batch -` or `tc -batch -` process; the tool reads each line
into the same argv the separate command would have had (words split on
blanks; lines with quotes, backslashes, '#' or empty words are never batched),
so each is still recorded as its own argv, with its exit status and
`batch: {argv, line}` naming the process and line that applied it.

Interpreters: every Python the tool starts (agents in the nodes, MPI ranks, pytest) has its
argv from `python()` and runs in OWN_FOLDER or a private folder of the run, never where the
caller stands (tests/unit/test_interpreters.py holds every launch to it).
"""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field

from beowulf_netlab.core.errors import RuntimeFailure


PYTHON = sys.executable
OWN_FOLDER = "/"   # root-owned: the working folder of what the tool starts, unless a private one


def python(*args: str) -> list[str]:
    """The argv that starts this interpreter on args, isolated (-I): root runs it from any folder,
    and `-m X` (or `python3 script`) would otherwise put that folder (or the script's) first on
    sys.path, so a package another user planted there (mpi4py/, json/) would run as root; -I
    also ignores PYTHON* variables and the user's site folder. A script that imports its
    neighbours puts its own folder on sys.path itself; start it with cwd=OWN_FOLDER."""
    return [PYTHON, "-I", *args]


class CommandFailed(RuntimeFailure):
    """An external command exited non-zero (or could not be started)."""


def execute(argv: list[str], stdin: str | None = None, timeout: float | None = 120,
            cwd: str | None = None) -> tuple[int, str, str]:
    """(exit status, stdout, stderr); 127 when the program is missing, 124 on time-out."""
    try:
        r = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except (FileNotFoundError, PermissionError) as e:
        return 127, "", f"{argv[0]}: {e.strerror}: run ./setup.sh as root"
    except OSError as e:
        return 126, "", f"{argv[0]}: {e.strerror or e}"
    except subprocess.TimeoutExpired:
        return 124, "", f"no answer within {timeout:g} s"
    return r.returncode, r.stdout, r.stderr


def failure(argv: list[str], rc: int, out: str, err: str) -> CommandFailed:
    lines = (err.strip() or out.strip()).splitlines()
    shown = shlex.join(argv)
    shown = shown if len(shown) <= 160 else shown[:157] + "..."
    return CommandFailed(f"{shown} failed: {lines[-1] if lines else f'exit {rc}'} (check what this host "
                         "can do with 'sudo python3 emulate.py doctor')")


def run(argv: list[str], *, stdin: str | None = None, check: bool = True,
        timeout: float | None = 120) -> str:
    """Run argv; return its stdout. With check, a non-zero exit raises CommandFailed."""
    rc, out, err = execute(argv, stdin, timeout)
    if check and rc != 0:
        raise failure(argv, rc, out, err)
    return out


BATCH_TOOLS = ("ip", "tc")
_PLAIN_WORD = re.compile(r"[^\s\"'#\\]+")
_FAILED_LINE = re.compile(r"Command failed -:(\d+)")


def batchable(argv: list[str], tool: str) -> bool:
    """argv can be a line of `tool -batch -` and be read back as exactly argv."""
    return (tool in BATCH_TOOLS and len(argv) > 1 and argv[0] == tool and not argv[1].startswith("-")
            and all(_PLAIN_WORD.fullmatch(a) for a in argv))


@dataclass
class CommandLog:
    """The argv applied to each object (a wire, a node), in order, with exit status."""
    entries: dict[str, list[dict]] = field(default_factory=dict)

    def run(self, owner: str, argv: list[str], *, stdin: str | None = None, check: bool = True,
            prefix: tuple[str, ...] = ()) -> str:
        """Run prefix + argv; record argv (without the namespace prefix) under owner."""
        rc, out, err = execute([*prefix, *argv], stdin)
        record: dict = {"argv": list(argv), "rc": rc}
        if stdin is not None:
            record["stdin"] = stdin
        self.entries.setdefault(owner, []).append(record)
        if check and rc != 0:
            raise failure(argv, rc, out, err)
        return out

    def batch(self, tool: str, cmds: list[tuple[str, list[str]]], *,
              prefix: tuple[str, ...] = ()) -> None:
        """Apply (owner, argv) commands of `tool` (ip or tc) in order, in one process where
        every argv is batchable, and record each under its owner (see module doc). Like
        separate runs with check: stops at the first failure and raises CommandFailed
        naming its argv; commands after it are neither run nor recorded."""
        if not cmds:
            return
        if len(cmds) == 1 or not all(batchable(argv, tool) for _, argv in cmds):
            for owner, argv in cmds:
                self.run(owner, argv, prefix=prefix)
            return
        via = [tool, "-batch", "-"]
        rc, out, err = execute([*prefix, *via], "".join(" ".join(argv[1:]) + "\n" for _, argv in cmds))
        failed = len(cmds) + 1
        if rc != 0:
            m = _FAILED_LINE.search(err)
            failed = int(m.group(1)) if m and 1 <= int(m.group(1)) <= len(cmds) else 1
        for line, (owner, argv) in enumerate(cmds[:failed], 1):
            self.entries.setdefault(owner, []).append(
                {"argv": list(argv), "rc": rc if line == failed else 0, "batch": {"argv": via, "line": line}})
        if rc != 0:
            said = "\n".join(ln for ln in err.splitlines() if not _FAILED_LINE.search(ln))
            raise failure(cmds[failed - 1][1], rc, out, said)

    def as_record(self) -> dict[str, list[dict]]:
        return {k: list(v) for k, v in self.entries.items()}
