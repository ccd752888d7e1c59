"""No code from where the caller stands (issue 45, item 1).

Root runs the tool from any folder, often one another user can write. `python3 -m X` puts the
working folder first on sys.path and `python3 script` the script's folder, so every
interpreter the tool starts is isolated (-I, or -P where PYTHONPATH is the caller's own) and
runs in a folder of its own. The source scan keeps every new launch to that; the run below
shows what the flag does against a planted package.
"""
import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from beowulf_netlab.core.command import OWN_FOLDER, PYTHON, python

ROOT = Path(__file__).resolve().parent.parent.parent
SKIP = ("tests/", "build/", "engine/", ".git/")
ISOLATING = {"-I", "-P"}
# where sys.executable may be named for something other than an argv's first word
NAMES_ALLOWED = {"beowulf_netlab/core/command.py": "defines PYTHON, the one interpreter the tool starts",
                 "beowulf_netlab/core/interpreter.py": "compares it with /usr/bin/python3 before re-running"}
INTERPRETER_NAMES = {"PYTHON", "SYSTEM_PYTHON"}


def sources() -> list[Path]:
    return [p for p in ROOT.rglob("*.py") if not p.relative_to(ROOT).as_posix().startswith(SKIP)]


def _is_interpreter(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "executable":
        return isinstance(node.value, ast.Name) and node.value.id == "sys"
    if isinstance(node, ast.Name):
        return node.id in INTERPRETER_NAMES
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return os.path.basename(node.value).startswith("python")
    return False


def unsafe_launches(path: Path) -> list[str]:
    """Argv literals in path that start an interpreter without -I or -P right after it, and
    uses of sys.executable outside such an argv."""
    rel = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(), rel)
    found, in_argv = [], set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and _is_interpreter(node.elts[0]):
            in_argv.add(id(node.elts[0]))
            second = node.elts[1] if len(node.elts) > 1 else None
            if not (isinstance(second, ast.Constant) and second.value in ISOLATING):
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node)[:100]}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _is_interpreter(node) and id(node) not in in_argv
                and rel not in NAMES_ALLOWED):
            found.append(f"{rel}:{node.lineno}: sys.executable outside an isolated argv")
    return found


def test_every_interpreter_the_tool_starts_is_isolated():
    bad = [line for p in sources() for line in unsafe_launches(p)]
    assert bad == [], "interpreters started without -I/-P (use core.command.python):\n" + "\n".join(bad)


def test_the_scan_sees_a_bare_launch(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    f = tmp_path / "w.py"
    f.write_text("import sys\nPYTHON = 'x'\nA = [sys.executable, '-m', 'mpi4py']\nB = [PYTHON, 'a.py']\n"
                 "C = ['/usr/bin/python3', '-I', 'a.py']\nD = sys.executable\n")
    assert [ln.split(":")[1] for ln in unsafe_launches(f)] == ["3", "4", "6"]


def test_the_helper_isolates():
    assert python("-m", "mpi4py", "a.py") == [PYTHON, "-I", "-m", "mpi4py", "a.py"]
    assert OWN_FOLDER == "/" and os.stat(OWN_FOLDER).st_uid == 0


def plant(folder: Path, marker: Path) -> None:
    """Packages a student could leave where root stands: each writes marker when imported."""
    code = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for pkg in ("mpi4py", "json", "charge", "forker", "argparse", "socket", "selectors", "statistics"):
        (folder / pkg).mkdir()
        (folder / pkg / "__init__.py").write_text(code)
    (folder / "sitecustomize.py").write_text(code)


def test_a_planted_package_runs_without_the_flag_and_not_with_it(tmp_path):
    """The control first: the plant works on a bare `-m`; then the helper's argv ignores it."""
    caller, marker = tmp_path / "caller", tmp_path / "marker"
    caller.mkdir()
    plant(caller, marker)
    subprocess.run([sys.executable, "-m", "json.tool", "--help"], cwd=caller, capture_output=True,
                   timeout=60)
    assert marker.exists(), "the planted json/ should run on a bare -m (the control)"
    marker.unlink()
    subprocess.run(python("-m", "json.tool", "--help"), cwd=caller, capture_output=True, timeout=60)
    subprocess.run(python("-m", "mpi4py", "-c", "pass"), cwd=caller, capture_output=True, timeout=60)
    assert not marker.exists(), marker.read_text()


def test_the_token_agent_runs_isolated_from_a_planted_folder(tmp_path):
    """The agent finds its neighbours (charge.py, forker.py) in its own folder, not the caller's."""
    caller, marker = tmp_path / "caller", tmp_path / "marker"
    caller.mkdir()
    plant(caller, marker)
    agent = str(ROOT / "beowulf_netlab" / "workloads" / "token_agent.py")
    daemon = subprocess.Popen(python(agent, "daemon"), cwd=caller, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert daemon.stdout.readline().strip() == b"ready", daemon.stderr.read()
    finally:
        daemon.stdin.close()
        daemon.wait(10)
    r = subprocess.run(python(str(ROOT / "beowulf_netlab" / "workloads" / "copy_agent.py"), "--help"), cwd=caller,
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert not marker.exists(), marker.read_text()


class FakeHost:
    def __init__(self):
        self.calls = []

    def popen(self, argv, **kwargs):
        self.calls.append((argv, kwargs))
        return subprocess.Popen(["true"], **kwargs)

    popen_netns = popen


def test_agents_start_in_a_folder_of_their_own():
    from beowulf_netlab.workloads.agent import Agents
    host = FakeHost()
    with Agents() as agents:
        agents.start(host, ["true"], "a")
        agents.start(host, ["true"], "b", host_mounts=True)
    assert [kw["cwd"] for _, kw in host.calls] == [OWN_FOLDER, OWN_FOLDER]


def test_mpi_ranks_run_isolated_in_the_runs_private_folder():
    from beowulf_netlab.workloads.pfs import AGENT, Context, mpirun, own_folder
    ctx = Context(disks=None, pfs=None, launcher="/var/lib/netlab/disks/nl3/mpi-rsh-agent.sh",
                  hosts=[type("H", (), {"address": "10.0.0.1"})()])
    argv = mpirun(ctx, ["--serve"])
    assert argv[argv.index("--wdir") + 1] == own_folder(ctx) == "/var/lib/netlab/disks/nl3"
    i = argv.index(PYTHON)
    assert argv[i:i + 4] == [PYTHON, "-I", "-m", "mpi4py"] and argv[i + 4] == AGENT


@pytest.mark.parametrize("script", ["token_agent.py", "copy_agent.py"])
def test_agents_put_their_own_folder_last(script):
    """Appended, not prepended: beowulf_netlab/workloads/token.py must not shadow the standard library's token."""
    assert "sys.path.append(os.path.dirname(os.path.realpath(__file__)))" in (ROOT / "beowulf_netlab" / "workloads" / script).read_text()


def test_a_venv_on_the_system_interpreter_counts_as_another_interpreter(monkeypatch):
    """A venv's bin/python3 links to /usr/bin/python3 but has its own site-packages, without the
    distribution's Mininet: the tool must re-run under the system interpreter from there too."""
    from beowulf_netlab.core import interpreter
    monkeypatch.setattr(interpreter.sys, "executable", interpreter.SYSTEM_PYTHON)
    monkeypatch.setattr(interpreter.sys, "prefix", "/usr")
    monkeypatch.setattr(interpreter.sys, "base_prefix", "/usr")
    assert not interpreter.elsewhere()
    monkeypatch.setattr(interpreter.sys, "prefix", "/home/s/v")
    assert interpreter.elsewhere()
