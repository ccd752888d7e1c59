"""inspect and shell on a real running network, started the way a user would (the cli,
fed by a pipe that stays open), and nothing left behind once it ends."""
import json
import os
import re
import subprocess
import sys
import time

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.netlab.manifest import STATE_DIR  # noqa: E402
from tests.integration.hostsnap import diff, snapshot  # noqa: E402

EMULATE = [sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "emulate.py")]


def emulate(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([*EMULATE, *argv], capture_output=True, text=True, timeout=60)


def run_of(owner: int, deadline_s: float = 60) -> dict:
    """The manifest of the run `owner` started, once its nodes are recorded."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        for path in STATE_DIR.glob("run-*.json"):
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if data.get("owner_pid") == owner and data.get("addresses"):
                return data
        time.sleep(0.2)
    raise AssertionError(f"no run of pid {owner} with nodes within {deadline_s:g} s")


def test_inspect_lists_a_running_cli_and_shell_enters_its_node():
    before = snapshot()
    cli = subprocess.Popen([*EMULATE, "cli", "--topo", "single-net", "--nodes", "2"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        run = run_of(cli.pid)
        rid = run["run_id"]
        listed = emulate("inspect")
        assert listed.returncode == 0, listed.stderr
        row = next(line for line in listed.stdout.splitlines() if line.startswith(rid + " "))
        assert "alive" in row and str(cli.pid) in row and "single-net@10 (2 nodes)" in row and " cli " in row, row

        one = emulate("inspect", rid)
        assert one.returncode == 0, one.stderr
        b0 = run["addresses"]["b0"]
        assert re.search(rf"^\s+b0\s+{run['shells']['b0']}\s+{re.escape(b0)}\s+alive$", one.stdout, re.M), one.stdout

        inside = emulate("shell", "b0", "--run", rid, "--", "ip", "-br", "addr")
        assert inside.returncode == 0, inside.stderr
        assert re.search(rf"\b{re.escape(b0)}/\d+", inside.stdout), inside.stdout
        assert "bnl" not in inside.stdout      # the node's namespace, not the host's
        status = emulate("shell", "b1", "--run", rid, "--", "sh", "-c", "exit 7")
        assert status.returncode == 7          # the command's exit status is the verb's

        unknown = emulate("shell", "h9", "--run", rid, "--", "true")
        assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1 and "no node 'h9'" in unknown.stderr
    finally:
        cli.stdin.close()                      # end of the CLI's input: it exits and tears down
        cli.wait(timeout=60)
    assert cli.returncode == 0, cli.stderr
    gone = emulate("inspect", rid)
    assert gone.returncode == 2 and f"no run {rid}" in gone.stderr
    assert diff(before, snapshot()) == {}
