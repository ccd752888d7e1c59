"""playbooks/setup.yml is idempotent: on a provisioned host a second run changes nothing."""
import os
import re
import shutil
import subprocess

import pytest
from tests.integration import require_testbed  # noqa: E402

require_testbed()


ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.mark.skipif(not shutil.which("ansible-playbook"), reason="ansible not installed (./setup.sh)")
def test_second_provisioning_run_changes_nothing():
    r = subprocess.run(["ansible-playbook", "-i", "playbooks/inventory.ini", "playbooks/setup.yml"],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:]
    recap = re.search(r"localhost\s*:\s*ok=\d+\s+changed=(\d+).*failed=(\d+)", r.stdout)
    assert recap and recap.group(1) == "0" and recap.group(2) == "0", r.stdout[-1500:]
