"""One error family, mapped once: every failure is one line with its exit code;
agents' failures and corruption become that family (no root: plain processes)."""
import subprocess
import sys

import pytest

from beowulf_netlab import commands
from beowulf_netlab.core.command import CommandFailed, run
from beowulf_netlab.core.errors import BadInput, DataCorrupted, RuntimeFailure
from beowulf_netlab.workloads.agent import Agent, Agents, WorkloadFailed


@pytest.mark.parametrize("error, code, label", [
    (BadInput("bad value"), 2, "error"),
    (RuntimeFailure("a step failed"), 1, "run FAILED"),
    (DataCorrupted("checksum mismatch"), 1, "run FAILED"),
    (CommandFailed("tc failed"), 1, "run FAILED"),
    (ValueError("unexpected"), 1, "internal error"),
    (KeyError("x"), 1, "internal error"),
])
def test_main_maps_every_error_to_one_line(error, code, label, monkeypatch, capsys):
    def boom(_args):
        raise error
    monkeypatch.setattr(commands.doctor, "run", boom)
    assert commands.main(["doctor"]) == code
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and label in err and "Traceback" not in err


def test_interrupt_is_130(monkeypatch, capsys):
    def interrupted(_args):
        raise KeyboardInterrupt
    monkeypatch.setattr(commands.clean, "run", interrupted)
    assert commands.main(["clean"]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_command_runner_names_the_command():
    with pytest.raises(CommandFailed, match="ls /no/such/path failed"):
        run(["ls", "/no/such/path"])
    with pytest.raises(CommandFailed, match="not-a-program"):
        run(["not-a-program-here"])
    assert run(["ls", "/no/such/path"], check=False) == ""


def agent(code: str) -> Agent:
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return Agent("test agent", proc)


def test_agent_result_and_errors():
    assert agent("print('ready'); print('{\"x\": 1}')").result(10) == {"x": 1}
    with pytest.raises(DataCorrupted, match="corrupted echo"):
        agent("import json; print(json.dumps({'error': 'corrupted echo: token 3'}))").result(10)
    with pytest.raises(WorkloadFailed, match="connection refused"):
        agent("import json; print(json.dumps({'error': 'connection refused'}))").result(10)
    with pytest.raises(WorkloadFailed, match="exit 3.*boom"):
        agent("import sys; sys.stderr.write('boom\\n'); sys.exit(3)").result(10)
    with pytest.raises(WorkloadFailed, match="did not finish"):
        agent("import time; time.sleep(30)").result(0.5)


def test_agent_ready_and_group_cleanup():
    a = agent("print('ready', flush=True); input(); print('{}')")
    a.wait_ready(10)
    a.go()
    assert a.result(10) == {}
    with pytest.raises(WorkloadFailed, match="did not start"):
        agent("import time; time.sleep(30)").wait_ready(0.3)

    class Host:
        def popen(self, argv, **kw):
            return subprocess.Popen(argv, **kw)
    with Agents() as group:
        sleeper = group.start(Host(), [sys.executable, "-c", "import time; time.sleep(60)"], "sleeper")
    assert sleeper.proc.poll() is not None, "leaving the group kills its agents"
