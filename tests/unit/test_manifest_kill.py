"""Cleanup returns only when what it killed is gone, without root or networks.

The processes here are this test's own children, labelled as a run's would be
(NETLAB_RUN=<a label no run uses>), and ignore SIGTERM; nothing else is killed.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from beowulf_netlab.netlab import manifest
from beowulf_netlab.netlab.manifest import LABEL_ENV, PREFIX, _kill_namespace_processes, kill_and_wait, survivors_line

STUBBORN = ("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(60)")


def alive(pid: int) -> bool:
    """Exists and has not exited (a zombie has)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in "ZX"


@pytest.fixture
def stubborn():
    """start(n) -> (label, pids): n children under a fresh label, ignoring SIGTERM
    once started; whatever is left is ended afterwards."""
    procs: list[subprocess.Popen] = []

    def start(n: int) -> tuple[str, list[int]]:
        label = f"{PREFIX}test-{uuid.uuid4().hex[:8]}"
        env = {**os.environ, LABEL_ENV: label}
        new = [subprocess.Popen([sys.executable, "-c", STUBBORN], env=env, stdout=subprocess.PIPE)
               for _ in range(n)]
        procs.extend(new)
        for p in new:
            assert p.stdout.readline() == b"ready\n"
        return label, [p.pid for p in new]

    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stdout.close()


def test_labelled_processes_are_gone_when_the_kill_returns(stubborn):
    label, pids = stubborn(8)
    for pid in pids:
        os.kill(pid, 15)                       # SIGTERM is ignored: only SIGKILL ends them
    assert all(alive(pid) for pid in pids)
    killed, left = _kill_namespace_processes(set(), label)
    assert sorted(killed) == sorted(pids) and left == []
    assert [pid for pid in pids if alive(pid)] == []
    assert [pid for pid in pids if Path(f"/proc/{pid}").exists()] == [], "our own zombies are reaped"


def test_only_the_label_asked_for_is_killed(stubborn):
    mine, pids = stubborn(2)
    other, bystanders = stubborn(2)
    killed, _ = _kill_namespace_processes(set(), mine)
    assert sorted(killed) == sorted(pids)
    assert all(alive(pid) for pid in bystanders)


def test_a_survivor_is_reported_in_one_line(stubborn, monkeypatch):
    _, pids = stubborn(3)
    spared = pids[0]
    real_kill = os.kill
    monkeypatch.setattr(manifest.os, "kill",
                        lambda pid, sig: None if pid == spared else real_kill(pid, sig))
    t0 = time.monotonic()
    killed, left = kill_and_wait(pids, timeout_s=0.3)
    assert 0.3 <= time.monotonic() - t0 < 3
    assert left == [spared] and not any(alive(pid) for pid in pids[1:])
    lines = survivors_line(left, 0.3)
    assert len(lines) == 1 and str(spared) in lines[0]
    assert survivors_line([]) == []


def test_a_stale_manifests_shells_are_known_by_their_start_time():
    """A process that took a dead shell's pid, or names itself 'mininet:b0', is not the run's
    shell unless it started when the shell did (issue 45: clean killed by command line alone)."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys, time; print('ready', flush=True); time.sleep(60)",
                             "mininet:b0"], stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"ready\n"
        start = manifest._stat(proc.pid)[2]
        m = manifest.Manifest(run_id="zz", path=Path("/nonexistent/zz.json"), shells={"b0": proc.pid})
        assert manifest.live_shells(m) == {}                      # no start time recorded: not known
        m.shell_starts = {"b0": str(int(start) - 1)}
        assert manifest.live_shells(m) == {}                      # another process under that pid
        m.shell_starts = {"b0": start}
        assert manifest.live_shells(m) == {proc.pid: "b0"}
        m.shells = {"b1": proc.pid}
        m.shell_starts = {"b1": start}
        assert manifest.live_shells(m) == {}                      # its command line names another node
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
