"""The project installs like a package (issue 32): one version, pyproject.toml that names the
`beowulf-netlab` command and reads that version, a build that installs into a fresh venv and
runs there away from the checkout, and CITATION.cff / LICENSE that say who and what (no root).
Issue 44/45: one top-level name, beowulf_netlab; the old ones are a checkout's shims."""
from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from beowulf_netlab import commands
from beowulf_netlab.core.version import NAME, RELEASED, __version__, version_line

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "beowulf_netlab"
OLD_NAMES = ["core", "topologies", "netlab", "workloads", "run", "judge", "commands", "labvm"]
VERSION_LINE = re.compile(r"^beowulf-netlab \d+\.\d+\.\d+( \(commit [0-9a-f]{4,40}(-dirty)?\))?$")


def pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_version_is_printed(capsys):
    with pytest.raises(SystemExit) as e:
        commands.main(["--version"])
    assert e.value.code == 0
    out = capsys.readouterr().out.strip()
    assert VERSION_LINE.match(out), out
    assert out.startswith(f"beowulf-netlab {__version__}")


def test_emulate_py_prints_the_version():
    r = subprocess.run([sys.executable, str(ROOT / "emulate.py"), "--version"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert VERSION_LINE.match(r.stdout.strip()), r.stdout
    assert r.stdout.strip() == version_line()


def test_version_names_the_commit_in_a_checkout_only(monkeypatch, tmp_path):
    import beowulf_netlab.core.version as v
    monkeypatch.setattr(v, "ROOT", tmp_path)     # no .git: an installed copy
    assert v.version_line() == f"beowulf-netlab {__version__}"


def test_version_is_a_literal_setuptools_reads_without_importing():
    tree = ast.parse((PKG / "core" / "version.py").read_text())
    found = [ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
             and any(getattr(t, "id", None) == "__version__" for t in n.targets)]
    assert found == [__version__]
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_pyproject_names_the_command_and_the_version_source():
    meta = pyproject()
    project = meta["project"]
    assert project["name"] == NAME
    assert project["scripts"] == {"beowulf-netlab": "beowulf_netlab.__main__:console"}
    assert "version" in project["dynamic"] and "version" not in project
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "beowulf_netlab.core.version.__version__"}
    assert project["requires-python"] == ">=3.9"
    assert meta["build-system"]["build-backend"] == "setuptools.build_meta"


def test_dependencies_are_requirements_txt_less_test_and_debian_only():
    reqs = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    wanted = sorted(r for r in reqs if not r.startswith(("pytest", "mininet")))
    assert sorted(pyproject()["project"]["dependencies"]) == wanted


def test_every_package_of_the_checkout_is_installed():
    """A new subpackage (a folder with __init__.py) or a data folder the code reads beside its
    subpackages must be listed, or an installed copy lacks it; and nothing but beowulf_netlab's
    own: no other top-level name (no py-modules: emulate.py and the old names' shims are a
    checkout's)."""
    setuptools = pyproject()["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    on_disk = {"beowulf_netlab." + p.name for p in PKG.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert on_disk | {"beowulf_netlab"} == listed, on_disk ^ listed
    assert {f"beowulf_netlab.{d}" for d in ("claims", "experiments", "hardware", "exercises", "results")} <= listed
    assert "py-modules" not in setuptools
    assert {n.split(".")[0] for n in [*listed, *setuptools["package-data"]]} == {"beowulf_netlab"}


def test_the_package_data_ships_no_solutions():
    """Issue 44: the wheel shipped beowulf_netlab/exercises/*/solutions (the answer key and the measured answers)
    into every installed copy. The package-data globs, expanded over the checkout, match every
    exercise's check.json and sheet and nothing under a solutions/ folder."""
    globs = pyproject()["tool"]["setuptools"]["package-data"]["beowulf_netlab.exercises"]
    shipped = {p.relative_to(ROOT).as_posix() for g in globs for p in (PKG / "exercises").glob(g)}
    assert not [p for p in shipped if "solutions" in p.split("/")], shipped
    for folder in (PKG / "exercises").glob("*/check.json"):
        name = folder.parent.name
        assert {f"beowulf_netlab/exercises/{name}/check.json", f"beowulf_netlab/exercises/{name}/README.md"} <= shipped, name
        assert (folder.parent / "solutions" / "key.json").is_file()          # the checkout has them


def test_console_entry_is_the_packages_main():
    """The console script is beowulf_netlab.__main__.console: the same re-run under
    /usr/bin/python3, then commands.main, under the name beowulf-netlab; emulate.py, a checkout's
    launcher, only hands over to the same module (`launch`)."""
    tree = ast.parse((PKG / "__main__.py").read_text())
    assert {"console", "launch"} <= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    launcher = ast.parse((ROOT / "emulate.py").read_text())
    assert not [n for n in launcher.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert any(isinstance(n, ast.ImportFrom) and n.module == "beowulf_netlab.__main__"
               and [a.name for a in n.names] == ["launch"] for n in ast.walk(launcher))


def test_python_m_beowulf_netlab_is_the_command_line():
    """`python3 -m beowulf_netlab`, emulate.py, and __main__.py run by path, isolated, from another
    folder (the re-run under /usr/bin/python3 of an installed copy: the package by its path)."""
    for argv, cwd in ((["-m", "beowulf_netlab"], ROOT), ([str(ROOT / "emulate.py")], ROOT),
                      (["-I", str(PKG / "__main__.py")], "/")):
        r = subprocess.run([sys.executable, *argv, "--version"], capture_output=True, text=True,
                           timeout=60, cwd=cwd)
        assert r.returncode == 0 and r.stdout.strip() == version_line(), (argv, r.stdout, r.stderr)
    r = subprocess.run([sys.executable, "-m", "beowulf_netlab", "report", "--help"], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.startswith("usage: python3 -m beowulf_netlab report"), r.stdout[:200]


@pytest.mark.parametrize("old", OLD_NAMES)
def test_an_old_name_still_imports_from_a_checkout_with_a_warning(old):
    """`import core` (or `from netlab.x import y`) from a checkout is the new subpackage itself,
    module for module, with a DeprecationWarning that names the new import; the shims are at the
    checkout's top only (pyproject.toml lists none: test_every_package_of_the_checkout_is_installed)."""
    assert (ROOT / f"{old}.py").is_file()
    sub = {"core": "errors", "topologies": "spec", "netlab": "record", "workloads": "placement",
           "run": "sweep", "judge": "table", "commands": "args", "labvm": "qemu"}[old]
    code = (f"import sys, warnings; sys.path.insert(0, {str(ROOT)!r}); warnings.simplefilter('error')\n"
            f"try:\n    import {old}\nexcept DeprecationWarning as e:\n    print('warned:', e)\n"
            f"warnings.simplefilter('ignore')\n"
            f"import {old}, {old}.{sub}, beowulf_netlab.{old}.{sub} as new\n"
            f"from {old}.{sub} import __name__ as name\n"
            f"print({old} is sys.modules['beowulf_netlab.{old}'], {old}.{sub} is new, name)")
    r = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60, cwd="/")
    assert r.returncode == 0, r.stderr[-2000:]
    warned, same = r.stdout.strip().splitlines()
    assert warned.startswith(f"warned: `{old}` is an old name of `beowulf_netlab.{old}`") and \
        f"import beowulf_netlab.{old}" in warned, warned
    assert same == f"True True beowulf_netlab.{old}.{sub}", same


def test_the_package_never_imports_the_old_names():
    """Importing the whole command line by the new name puts no old name in sys.modules."""
    code = ("import sys; from beowulf_netlab import commands; "
            f"print(sorted(n for n in sys.modules if n.split('.')[0] in {OLD_NAMES!r}))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "[]", (r.stdout, r.stderr[-1000:])


def test_citation_cff_says_who_and_what():
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    for key in ("cff-version", "message", "title", "authors", "version", "date-released", "license"):
        assert key in cff, key
    assert cff["cff-version"] == "1.2.0"
    assert str(cff["version"]) == __version__
    assert str(cff["date-released"]) == RELEASED
    assert cff["authors"] == [{"name": "Beowulf Netlab contributors"}]
    assert cff["license"] == "MIT"
    dois = {r["doi"] for r in cff["references"]}
    assert dois == {"10.1109/IPPS.1996.508045", "10.1109/HPDC.1996.546233"}   # docs/papers.md §1
    for ref in cff["references"]:
        assert ref["type"] == "conference-paper" and ref["title"] and ref["authors"] and ref["year"] == 1996
        assert all("family-names" in a and "given-names" in a for a in ref["authors"])


def test_license_is_mit():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 Beowulf Netlab contributors" in text


def test_results_documents_record_the_version():
    pytest.importorskip("jsonschema")
    from beowulf_netlab.run.results import new_document, validate
    doc = new_document("token", {})
    assert doc["environment"]["netlab_version"] == __version__
    validate(doc)
    del doc["environment"]["netlab_version"]   # documents written before it still read
    validate(doc)


# ---- a fresh venv: build, install, run away from the checkout --------------------------------

def _venv_missing() -> str | None:
    """Why a venv install cannot be tried here, or None."""
    for mod in ("venv", "ensurepip", "setuptools", "wheel", "pip"):
        if importlib.util.find_spec(mod) is None:
            return f"{sys.executable} has no {mod} (Debian: python3-venv, python3-setuptools, python3-wheel)"
    return None


def _source_copy(dest: Path) -> Path:
    """What pyproject.toml packages, copied beside it: the build runs there, not in the checkout
    (an in-tree build leaves build/ with copies of the code)."""
    names = ["beowulf_netlab", "pyproject.toml", "README.md", "LICENSE"]
    for name in names:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, dest / name)
    return dest


@pytest.mark.skipif(_venv_missing() is not None, reason=_venv_missing() or "")
@pytest.mark.parametrize("editable", [False, True], ids=["wheel", "editable"])
def test_installs_into_a_fresh_venv_and_runs(editable, tmp_path):
    src = _source_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NETLAB_NO_REEXEC", "NETLAB_PROG")}
    env["PIP_NO_INDEX"] = "1"   # no network: nothing is fetched
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    pip = [str(venv / "bin" / "pip"), "--disable-pip-version-check"]
    if not editable:   # the wheel first: its files are exactly what an installed copy gets
        r = subprocess.run([*pip, "wheel", "--no-build-isolation", "--no-deps", "--no-cache-dir",
                            "--wheel-dir", str(tmp_path / "dist"), str(src)],
                           capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        wheel, = (tmp_path / "dist").glob("*.whl")
        names = zipfile.ZipFile(wheel).namelist()
        # one top-level name (and its dist-info): no emulate, no old names, no data folder of its own
        assert {n.split("/")[0] for n in names} == {"beowulf_netlab", f"beowulf_netlab-{__version__}.dist-info"}, \
            sorted({n.split("/")[0] for n in names})
        assert "beowulf_netlab/__main__.py" in names and "beowulf_netlab/_old_names.py" in names
        assert "beowulf_netlab/exercises/shared-hub/check.json" in names
        assert "beowulf_netlab/results/schema.json" in names and "beowulf_netlab/judge/templates/report.html.j2" in names
        assert not [n for n in names if "solutions" in n.split("/")], names
        entry = zipfile.ZipFile(wheel).read(f"beowulf_netlab-{__version__}.dist-info/entry_points.txt").decode()
        assert "beowulf-netlab = beowulf_netlab.__main__:console" in entry, entry
    r = subprocess.run([*pip, "install", "--no-build-isolation", "--no-deps", "--no-cache-dir",
                        *(["--editable", str(src)] if editable else [str(wheel)])],
                       capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    if editable:   # a finder for beowulf_netlab alone: never the checkout's folder on sys.path (its shims)
        paths = [line for p in venv.rglob("*.pth") if "site-packages" in p.parts
                 for line in p.read_text().splitlines() if line.strip() and not line.startswith(("import", "#"))]
        assert not [line for line in paths if Path(line.strip()).resolve() == src.resolve()], paths
    exe = venv / "bin" / "beowulf-netlab"

    def run(*argv: str) -> str:
        # from an empty folder: the checkout must play no part
        r = subprocess.run([str(exe), *argv], capture_output=True, text=True, timeout=120, env=env,
                           cwd=tmp_path)
        assert r.returncode == 0, (argv, r.stdout[-1000:], r.stderr[-1000:])
        return r.stdout

    assert run("--version").strip() == f"beowulf-netlab {__version__}"   # no .git in the copy
    assert "bonded-dual-net" in run("topo")
    assert "message-size" in run("exercise", "list")                       # beowulf_netlab/exercises/ found
    if not editable:                             # the wheel's files: no answer key, no solutions
        installed = [p for p in venv.rglob("beowulf_netlab/exercises/*/*") if "site-packages" in p.parts]
        assert any(p.name == "check.json" for p in installed), installed
        assert not [p for p in venv.rglob("solutions") if "site-packages" in p.parts]
    assert run("report", "--help").startswith("usage: beowulf-netlab report")
    assert run("--help").startswith("usage: beowulf-netlab")
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import beowulf_netlab.core, beowulf_netlab.hardware as h; "
                            "print(beowulf_netlab.core.__file__); print(list(h.__path__)[0])"],
                           capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path).stdout.split()
    base = src if editable else venv
    assert all(Path(p).resolve().is_relative_to(base.resolve()) for p in where), where


def test_an_installed_copys_commit_is_recorded_as_unknown(monkeypatch, tmp_path):
    """Outside a git checkout (an installed copy) a result records 'unknown', never git's error
    text (a fresh venv's run recorded "fatal: not a git repository ...")."""
    from beowulf_netlab.core import version
    from beowulf_netlab.run import environment
    monkeypatch.setattr(version, "ROOT", tmp_path)
    assert environment.environment()["project_commit"] == "unknown"


def test_root_runs_no_engine_another_user_could_swap(monkeypatch, tmp_path):
    """NETLAB_ENGINE names a binary root will run: refused (with why) in a folder or as a file
    another user can write, accepted where only root can change it."""
    import os
    import shutil
    from beowulf_netlab.netlab import medium
    folder = tmp_path / "own"
    folder.mkdir(mode=0o755)
    binary = folder / medium.ENGINE_NAME
    shutil.copy("/bin/true", binary)
    os.chmod(binary, 0o755)
    monkeypatch.setenv(medium.ENGINE_ENV, str(binary))
    os.chmod(tmp_path, 0o755)
    assert medium.engine_available()
    os.chmod(binary, 0o777)
    assert not medium.engine_available() and "writable by other users" in medium.engine_hint()
    os.chmod(binary, 0o755)
    os.chmod(folder, 0o777)
    assert not medium.engine_available() and "writable by other users" in medium.engine_hint()
