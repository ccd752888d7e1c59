"""Nothing a run creates survives it: normal exit, SIGTERM, or SIGKILL + clean."""
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.netlab.capabilities import probe
from beowulf_netlab.netlab.manifest import root_links
from tests.integration.hostsnap import diff, snapshot

EMULATE = [sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "emulate.py")]
KEEP = "keepbr0"  # a bridge that belongs to someone else


@pytest.fixture
def foreign_bridge():
    subprocess.run(["ip", "link", "add", KEEP, "type", "bridge"], check=True)
    yield KEEP
    subprocess.run(["ip", "link", "del", KEEP])


def start_cli(*args: str) -> subprocess.Popen:
    """Start `emulate.py cli` and wait until its network is up (the prompt shows)."""
    proc = subprocess.Popen([*EMULATE, "cli", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    proc.stdin.write(b"b1 iperf3 -s -D\nb0 sleep 300 &\n")
    proc.stdin.flush()
    seen = b""
    deadline = time.monotonic() + 60
    while b"netlab>" not in seen and time.monotonic() < deadline:
        if select.select([proc.stdout], [], [], 1)[0]:
            seen += os.read(proc.stdout.fileno(), 4096)
    assert b"netlab>" in seen, seen.decode(errors="replace")
    time.sleep(1)  # let the scripted commands start their processes
    return proc


def assert_nothing_left(before, foreign):
    assert diff(before, snapshot()) == {}
    assert foreign in root_links(), "cleanup removed a bridge that is not ours"


def test_normal_exit_leaves_nothing(foreign_bridge):
    before = snapshot()
    proc = subprocess.run([*EMULATE, "cli", "--topo", "bonded-dual-net", "--nodes", "4"],
                          input=b"b1 iperf3 -s -D\nb0 ping -c1 b1\n", capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert b"1 received" in proc.stdout
    assert_nothing_left(before, foreign_bridge)


def test_sigterm_tears_down(foreign_bridge):
    before = snapshot()
    proc = start_cli("--topo", "routed-mesh", "--nodes", "4", "--contention", "on")
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert_nothing_left(before, foreign_bridge)


def engine_processes() -> list[str]:
    """Running medium engines (by process name), with their pids."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{pid}/comm").read().strip() == "beowulf-medium":
                out.append(f"beowulf-medium/{pid}")
        except OSError:
            pass
    return out


def test_sigkill_then_clean_leaves_nothing(foreign_bridge):
    before = snapshot()
    proc = start_cli("--topo", "single-net", "--nodes", "4", "--contention", "on", "--wire", "tc")
    proc.kill()
    proc.wait(timeout=30)
    left = diff(before, snapshot())
    assert left.get("nft_bridge_tables"), "a SIGKILLed run with collisions should have left its drop table"
    out = subprocess.run([*EMULATE, "clean"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "orphan nftables table bridge" in out.stdout or "nftables table bridge" in out.stdout, out.stdout
    assert_nothing_left(before, foreign_bridge)
    if probe().medium_engine:   # a SIGKILLed run's engine ends; clean removes its files
        before = snapshot()
        proc = start_cli("--topo", "single-net", "--nodes", "4", "--contention", "on", "--wire", "engine")
        proc.kill()
        proc.wait(timeout=30)
        for _ in range(100):   # the engine ends itself when its parent dies (PR_SET_PDEATHSIG)
            if not engine_processes():
                break
            time.sleep(0.05)
        assert not engine_processes(), "the engine outlived its run"
        out = subprocess.run([*EMULATE, "clean"], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert "engine file" in out.stdout, out.stdout
        assert_nothing_left(before, foreign_bridge)
    before = snapshot()
    proc = start_cli("--topo", "switched-mesh", "--nodes", "4", "--switch", "ovs")
    proc.kill()
    proc.wait(timeout=30)
    left = diff(before, snapshot())
    assert left, "a SIGKILLed run should have left its network behind"
    out = subprocess.run([*EMULATE, "clean"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert_nothing_left(before, foreign_bridge)


def test_filecopy_run_leaves_no_disks(tmp_path):
    before = snapshot()
    r = subprocess.run([*EMULATE, "run", "filecopy", "--topo", "single-net", "--nodes", "4",
                        "--rate", "100", "--copies", "2", "--remote", "0,1", "--file-size", "1M",
                        "--no-progress", "--out", str(tmp_path / "fc.json")],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    assert diff(before, snapshot()) == {}


def test_killed_filecopy_then_clean_leaves_no_disks(tmp_path):
    from tests.integration.hostsnap import kill_then_clean, our_mounts
    before = snapshot()
    proc = subprocess.Popen([*EMULATE, "run", "filecopy", "--topo", "single-net", "--nodes", "4",
                             "--copies", "2", "--remote", "2", "--file-size", "16M", "--no-progress",
                             "--out", str(tmp_path / "fc.json")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    while len(our_mounts()) < 4 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2)  # the copies are running
    kill_then_clean(proc, before, EMULATE, ("mounts", "loops"))


def test_cli_runs_every_line_of_a_redirected_script(tmp_path):
    """A file on stdin (not only a pipe) runs every command; so does Mininet's `source FILE`."""
    inner = tmp_path / "inner.txt"
    inner.write_text("b2 echo from-source\n")
    script = tmp_path / "script.txt"
    script.write_text(f"b0 echo first\nb1 ping -c1 -W2 b0\nsource {inner}\nb3 echo last\n")
    before = snapshot()
    with open(script) as stdin:
        r = subprocess.run([*EMULATE, "cli", "--topo", "single-net", "--nodes", "4"], stdin=stdin,
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for expected in ("netlab> b0 echo first", "first", "1 received", "from-source", "last"):
        assert expected in out, out
    assert out.index("first") < out.index("1 received") < out.index("from-source") < out.rindex("last")
    assert diff(before, snapshot()) == {}


def test_clean_spares_a_namespace_that_reuses_a_recorded_number(tmp_path):
    """A killed run's manifest lists its namespaces by inode number; once they are gone the
    kernel gives those numbers to new namespaces (a container, a sandbox). clean must not kill
    the processes of such a namespace: here a foreign one whose number the manifest names,
    with the run's node shell long gone (issue 33)."""
    from beowulf_netlab.netlab import manifest as mf
    foreign = subprocess.Popen(["unshare", "--net", "sleep", "120"], env={"PATH": os.environ["PATH"]})
    try:
        deadline = time.monotonic() + 5
        while mf.netns_inode(foreign.pid) == mf.netns_inode(os.getpid()) and time.monotonic() < deadline:
            time.sleep(0.02)
        ino = mf.netns_inode(foreign.pid)
        assert ino != mf.netns_inode(os.getpid())
        m = mf.claim()
        m.owner_pid = 2 ** 22 + 1            # no such process: the run is dead
        m.shells = {"b0": 2 ** 22 + 2}       # its shell is gone too
        m.shell_starts = {"b0": "12345"}
        m.netns = [ino]                      # the number the foreign namespace now has
        m.save()
        report = mf.clean()
        assert foreign.poll() is None, f"clean killed a foreign namespace's process: {report}"
        assert not m.path.exists()
    finally:
        foreign.kill()
        foreign.wait()


def test_a_host_command_from_the_cli_outlives_the_run(tmp_path):
    """`sh CMD` in the CLI runs on the host: a service (re)started that way must not carry the
    run's label, or the run's teardown would end it (issue 33). A node's command keeps it."""
    pidfile = tmp_path / "service.pid"
    script = tmp_path / "script.txt"
    script.write_text(f"sh sleep 300 >/dev/null 2>&1 & echo $! > {pidfile}\nb0 echo node\n")
    with open(script) as stdin:
        r = subprocess.run([*EMULATE, "cli", "--topo", "single-net", "--nodes", "2"], stdin=stdin,
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    pid = int(pidfile.read_text())
    try:
        assert os.path.exists(f"/proc/{pid}"), "teardown ended a process the host command started"
        assert b"NETLAB_RUN=" not in open(f"/proc/{pid}/environ", "rb").read()
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
