"""A warm agent's loop: one process per node for a network's life that forks each role on command.

Run by an agent script's `daemon` role inside a node (token_agent.py);
workloads.agent.WarmAgents drives it. Forking a warm process costs about a
millisecond, where starting an interpreter costs 25 ms of CPU, and a point starts
up to 16 agents. Commands, one per line on stdin:
  run ID ARGS...   fork a child that runs the script's main(ARGS); its lines read "ID ..."
  go ID            a line on the child's stdin (its start line)
  stop ID          end the child if it still runs
A child is reaped before its PID could be signalled again; at the end of input every
child still running is ended. Standard library only: the agents run in bare namespaces.

Not for the file copies: forked copy agents run short all-local copies faster than
their blkio throttle allows, fresh ones do not. Measured A/B on one network each
(`run filecopy --topo bonded-dual-net --rate 100 --hardware none,demonstration-1996
--file-size 1M,2M --remote 0,7 --repeats 4`), all-local points against the disks'
11.7 MB/s: forked 11.5-13.1 (1 MB) and 11.6-13.0 (2 MB), fresh 10.7-11.4 and
11.5-11.9, after the agents were made to join their cgroup at the start line
(copy_agent.join_cgroup). Priming each copy with untimed I/O inside its group did
not centre the forked ones (whole slice: 9.5-11.0; half: 11.3-12.8 at 1 MB): the
cause lies in blk-throttle's slice accounting and is not pinned down.
"""
from __future__ import annotations

import io
import json
import os
import sys
from typing import Callable


class Tagged(io.TextIOBase):
    """A child's stdout: every complete line goes out as "ID line" in one write, which a pipe
    never interleaves with another writer's (under PIPE_BUF, 4 KB)."""

    def __init__(self, cid: str):
        self.cid, self.pending = cid, ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            os.write(1, f"{self.cid} {line}\n".encode())
        return len(text)

    def flush(self) -> None:
        if self.pending:
            os.write(1, f"{self.cid} {self.pending}\n".encode())
            self.pending = ""


def daemon(main: Callable[[list[str]], int]) -> int:
    children: dict[str, tuple[int, int]] = {}      # id -> (pid, write end of its stdin)

    def reap() -> None:
        for cid, (pid, fd) in list(children.items()):
            if os.waitpid(pid, os.WNOHANG)[0]:
                os.close(fd)
                del children[cid]

    def end(cid: str) -> None:
        pid, fd = children.pop(cid)
        os.close(fd)
        try:
            os.kill(pid, 9)           # unreaped: the PID is still this child's
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)

    print("ready", flush=True)
    for line in iter(sys.stdin.readline, ""):
        words = line.split()
        reap()
        if len(words) < 2:
            continue
        op, cid, args = words[0], words[1], words[2:]
        if op == "go" and cid in children:
            os.write(children[cid][1], b"go\n")
        elif op == "stop" and cid in children:
            end(cid)
        elif op == "run":
            if cid in children:
                end(cid)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os._exit(_child(main, cid, args, r, w, [fd for _pid, fd in children.values()]))
            os.close(r)
            children[cid] = (pid, w)
    for cid in list(children):
        end(cid)
    return 0


def _child(main, cid: str, args: list[str], r: int, w: int, others: list[int]) -> int:
    for fd in (w, *others):
        os.close(fd)
    sys.stdin, sys.stdout = os.fdopen(r), Tagged(cid)
    try:
        code = main(args)
    except SystemExit as e:           # a bad command line: argparse said why on stderr
        code = e.code if isinstance(e.code, int) else 2
        if code:
            print(json.dumps({"error": f"bad command: {' '.join(args)}"}))
    except BaseException as e:        # never return into the daemon's loop
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        code = 1
    sys.stdout.flush()
    return code or 0
