"""The lab-VM files are valid for the tools that read them (skipped where a tool is absent;
CI installs ansible-lint and vagrant)."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.mark.skipif(not shutil.which("ansible-lint"), reason="ansible-lint not installed")
def test_playbooks_pass_ansible_lint():
    r = subprocess.run(["ansible-lint", "-q", "--nocolor", "playbooks/"], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(not shutil.which("ansible-playbook"), reason="ansible not installed")
def test_setup_playbook_syntax():
    r = subprocess.run(["ansible-playbook", "--syntax-check", "-i", "playbooks/inventory.ini",
                        "playbooks/setup.yml"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(not shutil.which("vagrant"), reason="vagrant not installed")
@pytest.mark.parametrize("vms", ["1", "3"])
def test_vagrantfile_validates(vms):
    r = subprocess.run(["vagrant", "validate", "--ignore-provider"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120, env={**os.environ, "NETLAB_VMS": vms})
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("Ignoring provider config") == int(vms)


def test_the_campaign_sizes_what_it_fetches_as_merge_reads_it():
    """Each fetch from a lab host is sized first (issue 45), with the caps merge reads at."""
    yaml = pytest.importorskip("yaml")
    from beowulf_netlab.commands.merge import MAX_ARCHIVE_BYTES
    from beowulf_netlab.core.jsonfile import MAX_FILE_BYTES
    with open(os.path.join(ROOT, "playbooks", "campaign.yml")) as f:
        plays = yaml.safe_load(f)
    hosts = plays[0]
    assert hosts["vars"]["netlab_max_shard_bytes"] == MAX_FILE_BYTES
    assert hosts["vars"]["netlab_max_archive_bytes"] == MAX_ARCHIVE_BYTES
    tasks = hosts["tasks"]
    for i, task in enumerate(tasks):
        if "ansible.builtin.fetch" in task:
            sized, refused = tasks[i - 2], tasks[i - 1]
            assert sized["ansible.builtin.stat"]["path"] == task["ansible.builtin.fetch"]["src"], task["name"]
            assert sized["ansible.builtin.stat"]["follow"] is False
            assert any("size <=" in cond for cond in refused["ansible.builtin.assert"]["that"]), task["name"]
