"""Every write goes through core.safefile (issue 45, item 3), or is allowed here with why.

core.safefile reaches a folder one component at a time and writes relative to it, so a link
planted at the target or on the way (a student's folder swapped during a run) is never written
through. A writer elsewhere (open(..., "w"), write_text, savefig to a path, os.open with
O_CREAT...) would follow links again: the scan counts them in every source file, and a count
above the allowed one fails with where it is. The allowed ones write in root's private folders
(made by private_dir), kernel files (cgroups), or are tools run by hand, not the tool as root
on a user's path.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SKIP = ("tests/", "build/", "engine/", ".git/")
WRITE_MODES = set("wax+")
METHODS = {"write_text", "write_bytes", "savefig", "touch", "symlink_to", "hardlink_to", "mkfifo"}
FUNCTIONS = {("os", "replace"), ("os", "rename"), ("os", "symlink"), ("os", "link"), ("os", "mkfifo"),
             ("os", "truncate"), ("shutil", "copy"), ("shutil", "copy2"), ("shutil", "copyfile"),
             ("shutil", "copytree"), ("shutil", "move"), ("tempfile", "NamedTemporaryFile"),
             ("tempfile", "mkstemp")}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"}

ALLOWED = {
    "beowulf_netlab/core/safefile.py": (3, "the safe writer itself: its temporary (O_EXCL|O_NOFOLLOW, relative to the "
                            "folder's descriptor), the rename, the probe file"),
    "beowulf_netlab/judge/plot.py": (1, "savefig into core.safefile.atomic_binary's file object"),
    "beowulf_netlab/topologies/render.py": (1, "savefig into core.safefile.atomic_binary's file object"),
    "beowulf_netlab/commands/__init__.py": (1, "os.devnull for a closed stdout"),
    "beowulf_netlab/workloads/pfs.py": (1, "mpirun's log in the run's private disk folder (private_dir)"),
    "beowulf_netlab/workloads/filecopy.py": (1, "a copy's source file on a node disk, in the run's private disk folder"),
    "beowulf_netlab/workloads/copy_agent.py": (1, "an agent in a node: its cgroup's procs file"),
    "beowulf_netlab/workloads/pfs_agent.py": (4, "an MPI rank: its cgroup's procs file, its files on the node disk and "
                                  "the parallel file system"),
    "beowulf_netlab/netlab/disk.py": (6, "node disk images (O_EXCL|O_NOFOLLOW) in the private disk folder; cgroup files"),
    "beowulf_netlab/netlab/pfs.py": (3, "GlusterFS volume files in the run's private folder; a cgroup's procs file"),
    "beowulf_netlab/netlab/manifest.py": (1, "the run id's lock, O_EXCL|O_NOFOLLOW in the private state folder"),
    "beowulf_netlab/labvm/__main__.py": (1, "the lab VM cache's lock file, O_NOFOLLOW in the root-only cache (private_dir)"),
    "beowulf_netlab/netlab/medium.py": (1, "the engine's configuration, O_NOFOLLOW in the private state folder"),
    # whole files (None): tools run by hand, in folders of their own
    "beowulf_netlab/labvm/image.py": (None, "the lab VM's image build in its cache"),
    "beowulf_netlab/labvm/qemu.py": (None, "the lab VM's QEMU log in its cache"),
    "beowulf_netlab/labvm/stage.py": (None, "an Ansible inventory, a fresh temporary file"),
    "beowulf_netlab/exercises/record.py": (None, "records an exercise's solutions in the project"),
    "examples/synthetic_class.py": (None, "an example writing a made-up class into a folder it makes"),
}


def _mode(call: ast.Call) -> ast.AST | None:
    if len(call.args) > 1:
        return call.args[1]
    return next((k.value for k in call.keywords if k.arg == "mode"), None)


def _writes_by_mode(call: ast.Call, first: int = 1) -> bool:
    mode = call.args[first] if len(call.args) > first else \
        next((k.value for k in call.keywords if k.arg == "mode"), None)
    if mode is None:
        return False
    return not (isinstance(mode, ast.Constant) and isinstance(mode.value, str) and not WRITE_MODES & set(mode.value))


def writers(path: Path) -> list[str]:
    """Where path's code writes a file other than through core.safefile."""
    rel = path.relative_to(ROOT).as_posix()
    found = []
    for node in ast.walk(ast.parse(path.read_text(), rel)):
        if not isinstance(node, ast.Call):
            continue
        f, what = node.func, None
        if isinstance(f, ast.Name) and f.id == "open" and _writes_by_mode(node):
            what = "open(..., write mode)"
        elif isinstance(f, ast.Attribute):
            owner = f.value.id if isinstance(f.value, ast.Name) else None
            if f.attr in METHODS:
                what = f.attr
            elif f.attr == "open" and owner == "os" and len(node.args) > 1 and any(
                    isinstance(n, ast.Attribute) and n.attr in WRITE_FLAGS for n in ast.walk(node.args[1])):
                what = "os.open with a write flag"
            elif f.attr == "open" and owner not in ("os", "tarfile", "gzip") and _writes_by_mode(node, 0):
                what = "Path.open(write mode)"
            elif (owner, f.attr) in FUNCTIONS:
                what = f"{owner}.{f.attr}"
        if what:
            found.append(f"{rel}:{node.lineno}: {what}")
    return found


def test_every_writer_is_core_safefile_or_allowed():
    counts: dict[str, list[str]] = {}
    for path in ROOT.rglob("*.py"):
        if path.relative_to(ROOT).as_posix().startswith(SKIP):
            continue
        for line in writers(path):
            counts.setdefault(line.split(":")[0], []).append(line)
    allowed = {rel: float("inf") if n is None else n for rel, (n, _) in ALLOWED.items()}
    over = [line for rel, lines in counts.items() if len(lines) > allowed.get(rel, 0) for line in lines]
    assert over == [], ("writers outside core.safefile (use write_atomic_bytes / atomic_binary / atomic_text, "
                        "or allow one here with why):\n" + "\n".join(over))
    stale = {rel: n for rel, (n, _) in ALLOWED.items() if n is not None and len(counts.get(rel, [])) < n}
    assert stale == {}, f"allowed writers no longer there: lower their counts {stale}"


def test_the_scan_sees_each_kind_of_writer(tmp_path, monkeypatch):
    import sys
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    f = tmp_path / "w.py"
    f.write_text("import os, shutil\nfrom pathlib import Path\n"
                 "open('a', 'w')\nopen('a')\nopen('a', 'rb')\nopen('a', mode='ab')\nPath('a').write_text('x')\n"
                 "fig.savefig('a.png')\nos.open('a', os.O_WRONLY | os.O_CREAT)\nos.open('a', os.O_RDONLY)\n"
                 "shutil.copy('a', 'b')\nPath('a').open('w')\nopen('a', m)\n")
    assert [int(line.split(":")[1]) for line in writers(f)] == [3, 6, 7, 8, 9, 11, 12, 13]
