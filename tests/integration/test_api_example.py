"""The scripting example of docs/api.md runs as written and measures what a wire must give."""
import json
import os
import subprocess
import sys

from tests.integration import require_testbed  # noqa: E402

require_testbed()

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_the_api_example_runs_and_two_flows_share_one_wire():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "script_a_network.py")],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    # two flows on one 10 Mbit/s shared wire sum to at most the wire, not 20 (and something flowed)
    assert 1.0 < out["sum_mbit"] < 10.5 and all(f > 0.1 for f in out["two_flows_mbit"]), out
    if out["wire"] == "engine":   # a 1400-byte ping takes at least its two frames' wire time
        assert out["ping_1400B_avg_ms"] >= 2.3, out
