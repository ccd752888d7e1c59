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
    # Through the real entry point (emulate.py, its re-exec under /usr/bin/python3), as root;
    # the full corpus of bad input is tests/unit/test_bad_input_corpus.py.
    (["cli", "--topo", "token-ring"], "single-net"),
    (["cli", "--topo", "single-net", "--rate", "0"], "--rate"),
    (["cli", "--topo", "routed-mesh", "--nodes", "15"], "perfect-square"),
    (["run", "filecopy", "--topo", "single-net", "--copies", "10", "--remote", "0-10"], "nodes"),
    (["run", "token", "--topo", "single-net", "--relay-delay", "1ms"], "no relays"),
    (["run", "token", "--topo", "single-net", "--token-size", "inf"], "--token-size"),
    (["experiment", "/etc/hostname"], "not valid JSON"),
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
