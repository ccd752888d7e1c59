"""Bad input: one line on stderr naming the fix, exit 2, nothing created."""
import os
import subprocess
import sys

import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from tests.integration.hostsnap import diff, snapshot

EMULATE = [sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "emulate.py")]


@pytest.mark.parametrize("args, word", [
    (["cli", "--topo", "token-ring"], "unknown topology"),
    (["cli", "--topo", "single-net", "--rate", "0"], "--rate"),
    (["cli", "--topo", "single-net", "--rate", "-5"], "--rate"),
    (["cli", "--topo", "single-net", "--rate", "1001"], "--rate"),
    (["cli", "--topo", "single-net", "--rate", "fast"], "--rate"),
    (["cli", "--topo", "single-net", "--nodes", "1"], "--nodes"),
    (["cli", "--topo", "bonded-dual-net", "--channels", "0"], "--channels"),
    (["cli", "--topo", "routed-mesh", "--nodes", "15"], "perfect-square"),
    (["cli"], "--topo"),
    (["topo", "show", "nope"], "unknown topology"),
    (["run", "filecopy", "--topo", "single-net", "--copies", "10", "--remote", "0-10"], "nodes"),
    (["run", "filecopy", "--topo", "single-net", "--copies", "3", "--remote", "4"], "--remote"),
    (["run", "filecopy", "--topo", "single-net", "--file-size", "0"], "--file-size"),
    (["run", "filecopy", "--topo", "single-net", "--disk", "floppy"], "--disk"),
    (["run", "filecopy", "--topo", "single-net", "--remote", "3-1"], "--remote"),
    (["run", "filecopy", "--topo", "single-net", "--copies", "0"], "--copies"),
    (["cli", "--topo", "single-net", "--delay", "5 parsecs"], "--delay"),
    (["cli", "--topo", "single-net", "--delay", "5ms", "--jitter", "6ms"], "--jitter"),
    (["cli", "--topo", "single-net", "--loss", "100%"], "--loss"),
    (["run", "token", "--topo", "single-net", "--relay-delay", "1ms"], "no relays"),
])
def test_bad_input_is_one_line_and_exit_2(args, word):
    before = snapshot()
    r = subprocess.run([*EMULATE, *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0], r.stderr
    assert diff(before, snapshot()) == {}


def test_without_root_is_refused_before_anything_is_made():
    before = snapshot()
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        *EMULATE, "cli", "--topo", "single-net"],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert r.returncode == 2, r
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "sudo" in lines[0], r.stderr
    assert diff(before, snapshot()) == {}
