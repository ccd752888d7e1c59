"""The one command runner: every external argv the tool applies goes through here.

A failure raises CommandFailed (a RuntimeFailure, exit 1) naming the command
and its error output. A CommandLog keeps the exact argv applied to each wire
and node with its exit status, so a results document records what was built
(as flent records each runner's command line), including what failed.
"""
from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass, field

from core.errors import RuntimeFailure


class CommandFailed(RuntimeFailure):
    """An external command exited non-zero (or could not be started)."""


def execute(argv: list[str], stdin: str | None = None, timeout: float | None = 120) -> tuple[int, str, str]:
    """(exit status, stdout, stderr); 127 when the program is missing, 124 on time-out."""
    try:
        r = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout)
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

    def as_record(self) -> dict[str, list[dict]]:
        return {k: list(v) for k, v in self.entries.items()}
