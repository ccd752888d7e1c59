"""labvm's pure parts: accelerator choice, image recipe, the inventory it writes."""
import os
from pathlib import Path

import pytest

from beowulf_netlab.labvm import image, qemu


def test_accelerator_is_tcg_without_a_real_hypervisor_module(monkeypatch):
    real = os.path.exists
    monkeypatch.setattr(os.path, "exists", lambda p: False if "kvm_" in p else real(p))
    assert qemu.accelerator() == ["-accel", "tcg,thread=multi", "-cpu", "max"]
    monkeypatch.setattr(os.path, "exists", lambda p: True if p in ("/dev/kvm", "/sys/module/kvm_intel")
                        else real(p))
    assert qemu.accelerator()[:2] == ["-accel", "kvm"]


def test_guest_gets_the_playbooks_packages_and_the_stamp_follows_them():
    pytest.importorskip("yaml")
    pkgs = image.testbed_packages()
    assert {"mininet", "openvswitch-switch", "iperf3"} <= set(pkgs)
    assert image.recipe_stamp(pkgs) == image.recipe_stamp(list(reversed(pkgs)))
    assert image.recipe_stamp(pkgs) != image.recipe_stamp(pkgs + ["tcpdump"])


def test_inventory_line_reaches_the_forwarded_port():
    vm = qemu.VM(image.Image(Path("/cache/x")))
    vm.port = 40022
    line = vm.inventory_line("labvm")
    assert line.startswith("labvm ansible_host=127.0.0.1 ansible_port=40022 ansible_user=root")
    assert "ansible_ssh_private_key_file=/cache/x/id_ed25519" in line
    # the guest's key made at build is checked on every connection (issue 33)
    assert "StrictHostKeyChecking=yes" in line and "UserKnownHostsFile=/cache/x/known_hosts" in line
    assert "HostKeyAlias=netlab-labvm" in line and "StrictHostKeyChecking=no" not in line


def test_the_image_cache_is_roots_own(tmp_path, monkeypatch):
    """It holds the guest's root key: made 0700, refused when another user could change it
    (issue 45, LOW: it was made with a plain mkdir)."""
    from beowulf_netlab.core.errors import RuntimeFailure
    monkeypatch.setattr(image, "CACHE", tmp_path / "cache" / "labvm")
    made = image.cache()
    assert made.is_dir() and (made.stat().st_mode & 0o777) == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setattr(image, "CACHE", shared / "labvm")
    with pytest.raises(RuntimeFailure, match="writable by other users"):
        image.cache()
    assert not (shared / "labvm").exists()


def test_one_lab_vm_command_at_a_time(tmp_path):
    """A second lab VM command on the host is refused while the first holds the cache's lock (two
    guests booted a minute apart shared one cache and host key); the lock goes with its holder."""
    import os
    from beowulf_netlab.labvm.__main__ import _one_at_a_time
    first = _one_at_a_time(tmp_path)
    assert first is not None and _one_at_a_time(tmp_path) is None
    os.close(first)
    again = _one_at_a_time(tmp_path)
    assert again is not None
    os.close(again)


def test_every_test_a_tcg_guest_leaves_out_exists():
    """A deselect naming no test deselects nothing, silently: each entry names a test file, and a
    function (with its parameters' ids, where given) in it."""
    import ast
    import re
    from pathlib import Path
    from beowulf_netlab.labvm.stage import ENGINE_TESTS, TCG_DESELECT, TCG_HOST_ONLY, TCG_ONCE
    from beowulf_netlab.topologies.presets import PRESETS
    root = Path(__file__).resolve().parents[2]
    for entry in (*TCG_DESELECT, *TCG_ONCE, *TCG_HOST_ONLY, *ENGINE_TESTS):
        path, _, name = entry.partition("::")
        assert (root / path).is_file(), entry
        if name:
            func, _, params = name.partition("[")
            tree = ast.parse((root / path).read_text())
            assert func in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}, entry
            if params:
                topo, rate = re.fullmatch(r"(.+)-(\d+)\]", params).groups()
                assert topo in PRESETS and rate in ("10", "100"), entry
