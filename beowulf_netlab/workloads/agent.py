"""The lifecycle of a workload's helper processes inside the emulated nodes.

Every workload starts processes in node namespaces (token agents, iperf3,
copy agents), waits until they are ready, reads one JSON result from each,
and must kill whatever is left whatever happens. That is written once here:
an Agents group is a context manager; leaving it kills and reaps every agent.
A failed agent raises WorkloadFailed (exit 1); an agent that reports data
corruption raises DataCorrupted (exit 1, the point is discarded). WarmAgents
keep one agent per node for a network's life that forks each point's servers
and clients, so no point waits for interpreters to start.
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import time

from beowulf_netlab.core.command import OWN_FOLDER, python
from beowulf_netlab.core.errors import DataCorrupted, RuntimeFailure


class WorkloadFailed(RuntimeFailure):
    """A helper process in a node failed; the message names it and says why."""


def checked(what: str, data: dict) -> dict:
    """An agent's JSON result, or the failure it reports (corruption discards the point)."""
    if "error" in data:
        msg = f"{what}: {data['error']}"
        if "corrupt" in str(data["error"]):
            raise DataCorrupted(msg + "; the point's results were discarded")
        raise WorkloadFailed(msg)
    return data


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
        return checked(self.what, data)

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
        root mount namespace, where node disks and cgroups are), in OWN_FOLDER: never
        in the caller's folder, which another user may write."""
        kwargs = dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, cwd=OWN_FOLDER)
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


class WarmAgent:
    """One agent process per node kept for a network's life (the agent script's `daemon`
    role, beowulf_netlab/workloads/forker.py): it forks a child for each server or client a point needs.
    Lines on its stdout are "ID text", one per write, so children's never interleave; the
    daemon's own ("ready") carry no id."""

    def __init__(self, agent: Agent):
        self.agent, self.fd = agent, agent.proc.stdout.fileno()
        self.buf, self.mail = b"", {}

    def send(self, line: str) -> None:
        try:
            self.agent.proc.stdin.write(line.encode() + b"\n")
            self.agent.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            raise self.agent._fail("stopped") from None

    def expect(self, cid: str, timeout: float) -> str | None:
        """The next line child cid printed, or None after timeout seconds."""
        deadline = time.monotonic() + timeout
        while not self.mail.get(cid):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            data = os.read(self.fd, 65536)
            if not data:
                self.agent.proc.wait()
                raise self.agent._fail("stopped")
            *lines, self.buf = (self.buf + data).split(b"\n")
            for line in lines:
                who, sep, text = line.decode(errors="replace").partition(" ")
                if not sep:
                    who, text = "", who
                self.mail.setdefault(who, []).append(text)
        return self.mail[cid].pop(0)


class Forked:
    """A server or client a WarmAgent forked; the same calls as an Agent."""

    def __init__(self, warm: WarmAgent, cid: str, what: str):
        self.warm, self.cid, self.what = warm, cid, what

    def wait_ready(self, timeout: float = 30.0) -> None:
        line = self.warm.expect(self.cid, timeout)
        if line != "ready":
            self.stop()
            why = "did not start" + (f" ({line[:120]})" if line else f" within {timeout:g} s")
            raise WorkloadFailed(f"{self.what} {why}; the network may be overloaded: rerun the point, "
                                 "or try fewer pairs")

    def go(self) -> None:
        self.warm.send(f"go {self.cid}")

    def result(self, timeout: float) -> dict:
        line = self.warm.expect(self.cid, timeout)
        if line is None:
            self.stop()
            raise WorkloadFailed(f"{self.what} did not finish within {timeout:.0f} s; the network may "
                                 "be overloaded: rerun, or use a shorter --duration or fewer --exchanges")
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            data = None
        if not isinstance(data, dict):
            raise WorkloadFailed(f"{self.what} printed {line[:120]!r} instead of its result; rerun the point")
        return checked(self.what, data)

    def stop(self) -> None:
        """End it if it still runs (the agent ignores an id whose child is gone)."""
        try:
            self.warm.send(f"stop {self.cid}")
        except WorkloadFailed:
            pass


class WarmAgents:
    """A network's warm agents, one per node that needs one, started on first use; close()
    (or leaving the block) ends them and every child they still run."""

    def __init__(self, script: str, name: str):
        self.script, self.name = script, name
        self.agents = Agents()
        self.warm: dict[str, WarmAgent] = {}
        self.count = 0

    def ensure(self, hosts) -> None:
        """Start the agents these nodes lack, all at once, then wait for each."""
        new = []
        for h in hosts:
            if h.name not in self.warm:
                agent = self.agents.start(h, python(self.script, "daemon"), f"{self.name} on {h.name}",
                                          stdin=True)
                self.warm[h.name] = WarmAgent(agent)
                new.append(self.warm[h.name])
        for w in new:
            if w.expect("", 30.0) != "ready":
                raise w.agent._fail("did not start")

    def start(self, host, argv: list[str], what: str) -> Forked:
        """Fork argv (the script's own arguments) in host's agent."""
        self.ensure([host])
        self.count += 1
        cid = str(self.count)
        self.warm[host.name].send(" ".join(["run", cid, *argv]))
        return Forked(self.warm[host.name], cid, what)

    def close(self) -> None:
        for w in self.warm.values():
            try:
                w.agent.proc.stdin.close()      # end of input: the agent ends its children
            except (BrokenPipeError, OSError):
                pass
        deadline = time.monotonic() + 2.0
        for w in self.warm.values():
            try:
                w.agent.proc.wait(max(deadline - time.monotonic(), 0.01))
            except subprocess.TimeoutExpired:
                pass
        self.agents.__exit__(None, None, None)    # whatever did not end is killed and reaped
        self.warm.clear()

    def __enter__(self) -> "WarmAgents":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
