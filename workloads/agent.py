"""The lifecycle of a workload's helper processes inside the emulated nodes.

Every workload starts processes in node namespaces (token agents, iperf3,
copy agents), waits until they are ready, reads one JSON result from each,
and must kill whatever is left whatever happens. That is written once here:
an Agents group is a context manager; leaving it kills and reaps every agent.
A failed agent raises WorkloadFailed (exit 1); an agent that reports data
corruption raises DataCorrupted (exit 1, the point is discarded).
"""
from __future__ import annotations

import json
import select
import subprocess
import sys
import time

from core.errors import DataCorrupted, RuntimeFailure

PYTHON = sys.executable


class WorkloadFailed(RuntimeFailure):
    """A helper process in a node failed; the message names it and says why."""


class Agent:
    def __init__(self, what: str, proc: subprocess.Popen):
        self.what = what
        self.proc = proc

    def _fail(self, why: str) -> WorkloadFailed:
        err = b""
        if self.proc.poll() is not None and self.proc.stderr:
            err = self.proc.stderr.read() or b""
        tail = err.decode(errors="replace").strip().splitlines()
        detail = f": {tail[-1]}" if tail else ""
        return WorkloadFailed(f"{self.what} {why}{detail}; the network may be overloaded: "
                              "rerun the point, or try fewer pairs or copies")

    def wait_ready(self, timeout: float = 30.0) -> None:
        """Block until the agent prints its 'ready' line."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline().strip() if ready else b""
        if line != b"ready":
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            raise self._fail("did not start" if not ready else f"did not start ({line.decode()[:80]!r})")

    def go(self) -> None:
        """Release an agent waiting at the start line."""
        self.proc.stdin.write(b"go\n")
        self.proc.stdin.flush()

    def result(self, timeout: float) -> dict:
        """The agent's JSON result: its whole output or its last line."""
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise WorkloadFailed(f"{self.what} did not finish within {timeout:.0f} s; the network may "
                                 "be overloaded: rerun, or use a shorter --duration or fewer --exchanges")
        text = out.decode(errors="replace").strip()
        data = None
        for candidate in (text, *reversed(text.splitlines()[-1:])):
            try:
                data = json.loads(candidate)
                break
            except json.JSONDecodeError:
                continue
        if not isinstance(data, dict):
            tail = err.decode(errors="replace").strip().splitlines()
            raise WorkloadFailed(f"{self.what} failed (exit {self.proc.returncode})"
                                 + (f": {tail[-1]}" if tail else "") + "; rerun the point")
        if "error" in data:
            msg = f"{self.what}: {data['error']}"
            if "corrupt" in str(data["error"]):
                raise DataCorrupted(msg + "; the point's results were discarded")
            raise WorkloadFailed(msg)
        return data

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


class Agents:
    """A group of agents; leaving the block kills and reaps all of them."""

    def __init__(self):
        self.agents: list[Agent] = []

    def start(self, host, argv: list[str], what: str, *, stdin: bool = False,
              host_mounts: bool = False, env: dict | None = None) -> Agent:
        """Start argv in host's network namespace (with host_mounts, in the
        root mount namespace, where node disks and cgroups are)."""
        kwargs = dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
        if env is not None:
            kwargs["env"] = env
        proc = host.popen_netns(argv, **kwargs) if host_mounts else host.popen(argv, **kwargs)
        agent = Agent(what, proc)
        self.agents.append(agent)
        return agent

    def __enter__(self) -> "Agents":
        return self

    def __exit__(self, *exc) -> None:
        for agent in self.agents:
            agent.stop()


def wait_listening(host, port: int, what: str, timeout: float = 10.0) -> None:
    """For servers that print nothing when ready (iperf3): poll the socket table."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if host.run(["ss", "-ltnH", f"sport = :{port}"], check=False).strip():
            return
        time.sleep(0.05)
    raise WorkloadFailed(f"{what} on {host.name}:{port} did not start listening within {timeout:g} s")
