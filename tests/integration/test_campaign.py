"""playbooks/campaign.yml: shards of one sweep on two inventory hosts, merged back.

Both inventory hosts are this machine (ansible_connection=local, run one after
another); the lab-VM stage is where they are separate kernels.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NAME = "ci-campaign-test"


@pytest.mark.skipif(not shutil.which("ansible-playbook"), reason="ansible not installed (./setup.sh)")
def test_campaign_merges_two_hosts_shards(tmp_path):
    exp = tmp_path / f"{NAME}.json"
    exp.write_text(json.dumps({
        "name": NAME, "description": "two tiny networks, four points", "workload": "token",
        "sweep": {"topologies": ["single-net", "bonded-dual-net"], "rates": [100], "nodes": 4,
                  "pairs": [1], "token_sizes": [1024, 8192], "tokens_in_flight": [1], "duration": 1},
        "paper": {"source": "none (test)", "notes": ["test"]}}))
    inv = tmp_path / "lab.ini"
    inv.write_text("[lab]\n" + "".join(
        f"{h} ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n"
        for h in ("lab-a", "lab-b")))
    out_dir = os.path.join(ROOT, "results", "campaign")
    try:
        r = subprocess.run(["ansible-playbook", "-i", str(inv), "playbooks/campaign.yml",
                            "-e", f"netlab_experiment={exp}", "-e", f"netlab_dir={ROOT}",
                            "-e", "netlab_parallel=1"],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout[-3000:]
        shards = [json.load(open(os.path.join(out_dir, NAME, f"{h}.json"))) for h in ("lab-a", "lab-b")]
        merged = json.load(open(os.path.join(out_dir, f"{NAME}.json")))
        assert [len(s["points"]) for s in shards] == [2, 2]
        union = sorted((p for s in shards for p in s["points"]), key=lambda p: p["point_index"])
        assert merged["points"] == union
        assert [p["point_index"] for p in merged["points"]] == [0, 1, 2, 3]
        assert {p["host"] for p in merged["points"]} == {"lab-a", "lab-b"}
        assert merged["complete"] is True
        subprocess.run([sys.executable, os.path.join(ROOT, "emulate.py"), "plot",
                        os.path.join(out_dir, f"{NAME}.json")], check=True, capture_output=True)
    finally:
        shutil.rmtree(os.path.join(out_dir, NAME), ignore_errors=True)
        for suffix in (".json", ".csv", ".png"):
            if os.path.exists(os.path.join(out_dir, NAME + suffix)):
                os.unlink(os.path.join(out_dir, NAME + suffix))
        for h in ("lab-a", "lab-b"):
            path = f"/tmp/netlab-campaign-{NAME}-{h}.json"
            if os.path.exists(path):
                os.unlink(path)
