"""playbooks/campaign.yml: shards of one sweep on two lab hosts, merged back.

On the host suite both inventory hosts are this machine (ansible_connection=local,
run one after another). The lab-VM stage runs the second test with an
inventory of the VM and this machine (NETLAB_LAB_INVENTORY): two kernels.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

import pytest
from tests.integration import require_testbed  # noqa: E402

require_testbed()


ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NAME = "ci-campaign-test"
needs_ansible = pytest.mark.skipif(not shutil.which("ansible-playbook"),
                                   reason="ansible not installed (./setup.sh)")


def run_campaign(inventory: str, hosts: list[str], tmp_path, extra: list[str] = ()):
    """Run the playbook on a 4-point sweep; the merged document must be the union of the shards."""
    exp = tmp_path / f"{NAME}.json"
    exp.write_text(json.dumps({
        "name": NAME, "description": "two tiny networks, four points", "workload": "token",
        "sweep": {"topology": ["single-net", "bonded-dual-net"], "rate_mbit": [100], "nodes": 4,
                  "pairs": [1], "token_size": [1024, 8192], "tokens_in_flight": [1], "duration": 1},
        "paper": {"source": "none (test)", "notes": ["test"]}}))
    out_dir = os.path.join(ROOT, "results", "campaign")
    before = set(glob.glob("/tmp/netlab-campaign-*"))
    try:
        r = subprocess.run(["ansible-playbook", "-i", inventory, "playbooks/campaign.yml",
                            "-e", f"netlab_experiment={exp}", "-e", "netlab_parallel=1", *extra],
                           cwd=ROOT, capture_output=True, text=True, timeout=1800)
        assert r.returncode == 0, r.stdout[-3000:]
        shards = [json.load(open(os.path.join(out_dir, NAME, f"{h}.json"))) for h in hosts]
        merged = json.load(open(os.path.join(out_dir, f"{NAME}.json")))
        assert [len(s["points"]) for s in shards] == [2, 2]
        union = sorted((p for s in shards for p in s["points"]), key=lambda p: p["point_index"])
        assert merged["points"] == union
        assert [p["point_index"] for p in merged["points"]] == [0, 1, 2, 3]
        assert {p["host"] for p in merged["points"]} == set(hosts)
        assert merged["complete"] is True
        # each host's files lived in a fresh private folder (mktemp -d), removed at the end
        assert set(glob.glob("/tmp/netlab-campaign-*")) == before
        subprocess.run([sys.executable, os.path.join(ROOT, "emulate.py"), "plot",
                        os.path.join(out_dir, f"{NAME}.json")], check=True, capture_output=True)
        return shards, merged
    finally:
        shutil.rmtree(os.path.join(out_dir, NAME), ignore_errors=True)
        for suffix in (".json", ".csv", ".png"):
            if os.path.exists(os.path.join(out_dir, NAME + suffix)):
                os.unlink(os.path.join(out_dir, NAME + suffix))


@needs_ansible
def test_campaign_merges_two_hosts_shards(tmp_path):
    inv = tmp_path / "lab.ini"
    inv.write_text("[lab]\n" + "".join(
        f"{h} ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n"
        for h in ("lab-a", "lab-b")))
    run_campaign(str(inv), ["lab-a", "lab-b"], tmp_path, ["-e", f"netlab_dir={ROOT}"])


@needs_ansible
@pytest.mark.skipif(not os.environ.get("NETLAB_LAB_INVENTORY"),
                    reason="lab-VM stage only (NETLAB_LAB_INVENTORY names the VM + localhost inventory)")
def test_campaign_over_lab_vm_and_localhost(tmp_path):
    shards, merged = run_campaign(os.environ["NETLAB_LAB_INVENTORY"], ["labvm", "localhost"], tmp_path)
    # two kernels measured the points, and the VM's stock kernel bonded with the driver
    by_host = {s["points"][0]["host"]: s["environment"] for s in shards}
    assert by_host["labvm"]["kernel"] != by_host["localhost"]["kernel"]
    # the key grows with the machine model (+contention now that hubs collide by default)
    bonded = [v for k, v in by_host["labvm"]["topologies"].items() if k.startswith("bonded-dual-net@100x2")]
    assert bonded and all(v["bonding_impl"] == "kernel-balance-rr" for v in bonded), \
        sorted(by_host["labvm"]["topologies"])


def run_reproduction(inventory: str, hosts: tuple[str, ...], extra: list[str] = ()) -> dict:
    """-e netlab_reproduce=quick: each host runs its shard of `reproduce --quick` (here one small
    experiment), the results come back and `merge` writes one report from every shard."""
    base = os.path.join(ROOT, "results", "campaign", "reproduction")
    try:
        r = subprocess.run(["ansible-playbook", "-i", inventory, "playbooks/campaign.yml",
                            "-e", "netlab_reproduce=quick", "-e", "netlab_only=ipps96-fig4-channels-100",
                            "-e", "netlab_parallel=1", *extra],
                           cwd=ROOT, capture_output=True, text=True, timeout=1800)
        assert r.returncode == 0, r.stdout[-3000:]
        # the hosts' archives were read by merge, never unpacked on the controller
        assert sorted(os.listdir(base)) == sorted([*(f"{h}.tgz" for h in hosts), "report"])
        merged = json.load(open(os.path.join(base, "report", "results", "ipps96-fig4-channels-100.json")))
        assert merged["complete"] is True and merged["shards"] == ["1/2", "2/2"]
        assert {p["host"] for p in merged["points"] if not p.get("calibration_of")} == set(hosts)
        assert [p["point_index"] for p in merged["points"] if not p.get("calibration_of")] \
            == list(range(merged["total_points"]))
        page = open(os.path.join(base, "report", "report.html")).read()
        assert "ipps96-fig4-channels-100" in page and "Claims" in page
        return merged
    finally:
        shutil.rmtree(base, ignore_errors=True)


@needs_ansible
def test_a_reproduction_sharded_over_two_hosts_gives_one_report(tmp_path):
    inv = tmp_path / "lab.ini"
    hosts = ("lab-a", "lab-b")
    inv.write_text("[lab]\n" + "".join(
        f"{h} ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n" for h in hosts))
    before = set(glob.glob("/tmp/netlab-campaign-*"))
    run_reproduction(str(inv), hosts, ["-e", f"netlab_dir={ROOT}"])
    assert set(glob.glob("/tmp/netlab-campaign-*")) == before


@needs_ansible
@pytest.mark.skipif(not os.environ.get("NETLAB_LAB_INVENTORY"),
                    reason="lab-VM stage only (NETLAB_LAB_INVENTORY names the VM + localhost inventory)")
def test_a_reproduction_over_lab_vm_and_localhost():
    """The same over two kernels: the VM's shard and this machine's, one report (the verdicts of
    a merge equal a single machine's: tests/unit/test_merge.py, on stored documents)."""
    merged = run_reproduction(os.environ["NETLAB_LAB_INVENTORY"], ("labvm", "localhost"))
    kernels = {h["kernel"] for h in merged["environment"]["hosts"].values()}
    assert len(kernels) == 2, kernels
