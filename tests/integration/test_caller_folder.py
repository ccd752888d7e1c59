"""No code from where the caller stands (issue 45, item 1), live as root.

Another user (nobody) owns a world-writable folder and plants packages there that the tool's
interpreters would import (mpi4py/ for the MPI ranks, json/, charge.py and forker.py beside
the agents, sitecustomize.py); root then runs the pfs workload, the token agents and the
file-copy agents from that folder. Each planted module writes a marker when imported:
none may exist afterwards, and nothing may be left in the caller's folder.
"""
import os
import pwd
import subprocess
import sys

import pytest

from tests.integration import require_testbed  # noqa: E402

require_testbed()

from beowulf_netlab.netlab.pfs import missing_tools  # noqa: E402

EMULATE = [sys.executable, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "emulate.py"))]
MODULES = ("mpi4py", "json", "charge", "forker", "socket", "argparse", "selectors", "statistics",
           "shlex", "zlib", "mmap")


@pytest.fixture
def caller(tmp_path):
    """A folder owned by nobody and writable by everyone, full of planted modules."""
    folder, marker = tmp_path / "caller", tmp_path / "caller" / "MARKER"
    folder.mkdir()
    code = f"open({str(marker)!r}, 'a').write(__name__ + ' ran as uid %d\\n' % __import__('os').getuid())\n"
    for name in MODULES:
        (folder / name).mkdir()
        (folder / name / "__init__.py").write_text(code)
        (folder / f"{name}.py").write_text(code)    # a module beats nothing; a package beats a module
    (folder / "sitecustomize.py").write_text(code)
    (folder / "usercustomize.py").write_text(code)
    nobody = pwd.getpwnam("nobody")
    os.chmod(tmp_path, 0o755)
    for p in [folder, *folder.rglob("*")]:
        os.chown(p, nobody.pw_uid, nobody.pw_gid)
    os.chmod(folder, 0o777)
    before = sorted(p.name for p in folder.iterdir())
    yield folder
    assert not marker.exists(), marker.read_text()
    assert sorted(p.name for p in folder.iterdir()) == before, "the run left something in the caller's folder"


def run_from(folder, tmp_path, *argv, timeout=900):
    r = subprocess.run([*EMULATE, *argv, "--no-progress", "--out", str(tmp_path / "out.json")], cwd=folder,
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r


@pytest.mark.skipif(bool(missing_tools()), reason="the pfs workload needs Open MPI, mpi4py and GlusterFS")
def test_pfs_ranks_ignore_a_planted_mpi4py(caller, tmp_path):
    run_from(caller, tmp_path, "run", "pfs", "--topo", "switched-cluster", "--nodes", "4", "--rate", "1000",
             "--hardware", "pc-2001", "--time-scale", "40", "--test", "bonnie,pfs", "--volume", "4M")


def test_token_agents_ignore_planted_modules(caller, tmp_path):
    run_from(caller, tmp_path, "run", "token", "--topo", "single-net", "--nodes", "4", "--pairs", "2",
             "--token-size", "64", "--duration", "1", "--hardware", "demonstration-1996")


def test_copy_agents_ignore_planted_modules(caller, tmp_path):
    run_from(caller, tmp_path, "run", "filecopy", "--topo", "single-net", "--nodes", "4", "--copies", "2",
             "--remote", "1", "--file-size", "1M", "--hardware", "demonstration-1996")
