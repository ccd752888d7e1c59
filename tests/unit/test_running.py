"""inspect and shell's reading of run manifests (netlab.running, commands.shell): synthetic
manifests in a temp folder, no root, no network."""
import json
import os
import subprocess
import time

import pytest

from beowulf_netlab.commands.shell import split
from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.netlab import running
from beowulf_netlab.netlab.manifest import Manifest, _stat


@pytest.fixture
def sleeper():
    """A live process standing in for a node's shell."""
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    proc.kill()
    proc.wait()


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def write(state, run_id: str, owner: int, shells: dict[str, int], created: float | None = None) -> Manifest:
    m = Manifest(run_id=run_id, path=state / f"run-{run_id}.json", owner_pid=owner,
                 created=created or time.time(), command="emulate.py cli --topo single-net --nodes 2",
                 topology="single-net@10 (2 nodes)")
    for i, (node, pid) in enumerate(shells.items()):
        m.shells[node] = pid
        st = _stat(pid)
        m.shell_starts[node] = st[2] if st else "0"
        m.addresses[node] = f"10.0.0.{i + 1}"
    m.shells["bnl" + run_id + "w0"] = os.getpid()    # a wire's shell: not a node
    m.save()
    return m


def test_alive_and_stale_runs_are_told_apart(tmp_path, sleeper):
    write(tmp_path, "3a", os.getpid(), {"b0": sleeper.pid, "b1": sleeper.pid}, created=1000)
    write(tmp_path, "5f", dead_pid(), {"b0": dead_pid()}, created=2000)
    found = running.runs(tmp_path)
    assert [(r.run_id, r.state) for r in found] == [("3a", "alive"), ("5f", "stale")]
    lines = running.table(found)
    assert lines[0].split() == ["RUN", "STATE", "PID", "STARTED", "NODES", "NETWORK", "COMMAND"]
    assert lines[1].startswith("3a   alive") and "single-net@10 (2 nodes)" in lines[1]
    assert lines[1].endswith("emulate.py cli --topo single-net --nodes 2")


def test_a_node_whose_pid_was_reused_is_gone(tmp_path, sleeper):
    m = write(tmp_path, "3a", os.getpid(), {"b0": sleeper.pid, "b1": sleeper.pid})
    data = json.loads(m.path.read_text())
    data["shell_starts"]["b1"] = "1"           # another process now holds that pid
    m.path.write_text(json.dumps(data))
    [run] = running.runs(tmp_path)
    assert run.node_pid("b0") == sleeper.pid and run.node_pid("b1") is None
    text = "\n".join(running.details(run))
    assert f"b0    {sleeper.pid}  10.0.0.1  alive" in text and "10.0.0.2  gone" in text
    assert "shell b0 --run 3a" in text
    with pytest.raises(BadInput, match="node b1 of run 3a is gone"):
        running.node_of(run, "b1")


def test_details_list_the_nodes_only(tmp_path, sleeper):
    write(tmp_path, "3a", os.getpid(), {"b0": sleeper.pid})
    [run] = running.runs(tmp_path)
    assert run.nodes() == ["b0"]
    with pytest.raises(BadInput, match=r"run 3a has no node 'h1'; its nodes: b0"):
        running.node_of(run, "h1")


def test_shell_chooses_the_only_live_run_or_asks(tmp_path, sleeper):
    write(tmp_path, "3a", os.getpid(), {"b0": sleeper.pid})
    write(tmp_path, "5f", dead_pid(), {"b0": dead_pid()})
    assert running.choose(running.runs(tmp_path), None).run_id == "3a"
    with pytest.raises(BadInput, match="run 5f is stale"):
        running.choose(running.runs(tmp_path), "5f")
    with pytest.raises(BadInput, match="no run 77"):
        running.choose(running.runs(tmp_path), "77")
    write(tmp_path, "4b", os.getpid(), {"b0": sleeper.pid})
    with pytest.raises(BadInput, match=r"2 networks are running: pick one with --run: 3a .*; 4b "):
        running.choose(running.runs(tmp_path), None)


def test_no_run_at_all(tmp_path):
    assert running.runs(tmp_path / "absent") == []
    assert running.table([]) == ["no network built by this tool is running"]
    with pytest.raises(BadInput, match="no network is running"):
        running.choose([], None)


def test_damaged_manifests_are_skipped(tmp_path, sleeper):
    write(tmp_path, "3a", os.getpid(), {"b0": sleeper.pid})
    (tmp_path / "run-99.json").write_text("{half")
    (tmp_path / "run-98.json").write_text("[]")
    assert [r.run_id for r in running.runs(tmp_path)] == ["3a"]


def test_unreadable_records_are_one_line(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every folder")
    locked = tmp_path / "state"
    locked.mkdir(mode=0o700)
    locked.chmod(0)
    try:
        with pytest.raises(BadInput, match="run it as root"):
            running.runs(locked)
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("text, rid", [("3a", "3a"), ("bnl3a", "3a"), ("3A", "3a"), (" 0f ", "0f")])
def test_run_ids(text, rid):
    assert running.run_id_arg(text) == rid


@pytest.mark.parametrize("text", ["", "3", "3ab", "zz", "bnl", "../x", "-1"])
def test_bad_run_ids(text):
    with pytest.raises(BadInput, match="two hex digits"):
        running.run_id_arg(text)


def test_enter_is_nsenter_into_the_nodes_namespaces():
    assert running.enter_argv(1234, ["ip", "-br", "addr"]) == [
        "nsenter", "--target", "1234", "--net", "--mount", "--uts", "--", "ip", "-br", "addr"]


@pytest.mark.parametrize("argv, given, want", [
    (["--", "ip", "-br", "addr"], None, (None, ["ip", "-br", "addr"])),
    (["--run", "3a", "--", "ls", "--run"], None, ("3a", ["ls", "--run"])),
    (["--run=bnl3a"], None, ("3a", [])),
    (["ip", "addr"], "4b", ("4b", ["ip", "addr"])),
    ([], None, (None, [])),
])
def test_shell_splits_its_options_from_the_command(argv, given, want):
    assert split(argv, given) == want


@pytest.mark.parametrize("argv, given, word", [
    (["--bogus", "--", "ls"], None, "unrecognized '--bogus'"),
    (["--run", "3a", "--"], "4b", "given twice"),
    (["--run", "q", "--", "ls"], None, "--run: a run id"),
])
def test_shell_bad_options(argv, given, word):
    with pytest.raises(BadInput, match=word):
        split(argv, given)
