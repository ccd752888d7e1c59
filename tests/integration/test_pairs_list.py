"""One run with --pairs-list on a small topology file (issue 44 item 4b): the named pairs run, in
their order, across the gateway where they say so, and every point records them."""
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.integration import require_testbed  # noqa: E402

require_testbed()

EMULATE = [sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "emulate.py")]
GATEWAY = str(Path(__file__).resolve().parents[2] / "examples" / "topologies" / "two-hubs-gateway.json")


def test_the_named_pairs_run_where_the_list_puts_them(tmp_path):
    out = tmp_path / "listed.json"
    proc = subprocess.run([*EMULATE, "run", "token", "--topo", GATEWAY, "--pairs-list", "a0:b0,a1:a2",
                           "--token-size", "8K", "--duration", "2", "--out", str(out), "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    (point,) = doc["points"]
    assert point["placement"] == "listed" and point["pairs_list"] == "a0:b0,a1:a2" and point["pairs"] == 2
    # a0 -> b0 crosses both hubs through the gateway; a1 -> a2 stays on hub h1, which both use
    assert point["pairs_placed"] == ["a0->b0 via gw [h1 + h2]", "a1->a2 [h1]"]
    assert point["wire_load"] == {"h1": 2, "h2": 1}
    assert [p["payload_bytes"] > 0 for p in point["per_pair"]] == [True, True]
    # the two pairs share hub h1: together at most what one 10 Mbit/s wire carries
    assert 0 < point["throughput_mbyte_s"] <= 10e6 / 8 * 1448 / 1538 / 1e6 * 1.02
    assert "listed" in proc.stdout
