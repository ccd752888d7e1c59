"""The safe reader and writer (beowulf_netlab/core/safefile.py) against what a student could plant for root:
links, FIFOs, devices, oversized files, and folders other users can change."""
from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from beowulf_netlab.core.errors import BadInput, RuntimeFailure  # noqa: E402
from beowulf_netlab.core.safefile import atomic_text, private_dir, read_bytes, write_atomic_bytes  # noqa: E402

NOBODY = 65534


def test_reads_a_regular_file_to_its_cap(tmp_path):
    f = tmp_path / "a.json"
    f.write_bytes(b"x" * 100)
    assert read_bytes(f, "answers file", 100) == b"x" * 100
    with pytest.raises(BadInput, match="larger than 99 bytes"):
        read_bytes(f, "answers file", 99)


@pytest.mark.parametrize("plant", ["symlink", "fifo", "device", "folder", "missing"])
def test_refuses_what_is_not_a_regular_file(tmp_path, plant):
    f = tmp_path / "answers.json"
    secret = tmp_path / "secret"
    secret.write_text("{}")
    if plant == "symlink":
        f.symlink_to(secret)
    elif plant == "fifo":
        os.mkfifo(f)          # a read of a FIFO with no writer would never end
    elif plant == "device":
        f.symlink_to("/dev/zero")
    elif plant == "folder":
        f.mkdir()
    with pytest.raises(BadInput) as e:
        read_bytes(f, "answers file", 1 << 20)
    assert str(f) in str(e.value) and "\n" not in str(e.value)


def test_dev_zero_itself_is_refused():
    with pytest.raises(BadInput, match="not a regular file"):
        read_bytes(Path("/dev/zero"), "results document", 1 << 20)


def test_the_writer_replaces_a_planted_link_and_never_writes_through_it(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("root's file")
    out = tmp_path / "grades.csv"
    out.symlink_to(victim)
    write_atomic_bytes(out, "new")
    assert victim.read_text() == "root's file"
    assert not out.is_symlink() and out.read_text() == "new"


def test_the_writer_ignores_a_planted_fixed_temporary_name(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("root's file")
    (tmp_path / ".report.md.tmp").symlink_to(victim)   # the old fixed name
    with atomic_text(tmp_path / "report.md") as f:
        f.write("report")
    assert victim.read_text() == "root's file" and (tmp_path / "report.md").read_text() == "report"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "doc.json"
    out.write_text("old")
    with pytest.raises(ZeroDivisionError):
        with atomic_text(out) as f:
            f.write("half")
            1 / 0
    assert out.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


def test_a_private_dir_is_made_0700(tmp_path):
    d = private_dir(tmp_path / "state" / "run", "state folder")
    assert stat.S_IMODE(d.stat().st_mode) == 0o700


def test_an_existing_folder_is_used_as_it_is(tmp_path):
    """Readable by others but writable only by its owner: safe to use, and never changed (a
    shared folder such as /var/tmp named by NETLAB_DISK_DIR keeps its mode and sticky bit)."""
    d = tmp_path / "state"
    d.mkdir()
    d.chmod(0o755)
    private_dir(d, "state folder")
    assert stat.S_IMODE(d.stat().st_mode) == 0o755
    shared = tmp_path / "vartmp"
    shared.mkdir()
    shared.chmod(0o1777)
    private_dir(shared, "disk folder")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777


@pytest.mark.parametrize("plant", ["symlink", "open-mode", "foreign-owner", "open-parent"])
def test_a_planted_private_dir_is_refused(tmp_path, plant):
    target = tmp_path / "beowulf-netlab"
    if plant == "symlink":
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir(mode=0o700)
        target.symlink_to(elsewhere)
    elif plant == "open-mode":
        target.mkdir()
        target.chmod(0o777)
    elif plant == "foreign-owner":
        if os.geteuid() != 0:
            pytest.skip("needs root to give a folder away")
        target.mkdir(mode=0o700)
        os.chown(target, NOBODY, NOBODY)
    else:
        parent = tmp_path / "shared"
        parent.mkdir()
        parent.chmod(0o777)             # writable by all, not sticky: anyone can swap our folder
        target = parent / "beowulf-netlab"
    with pytest.raises(RuntimeFailure, match="refusing") as e:
        private_dir(target, "disk folder", env="NETLAB_DISK_DIR")
    assert "NETLAB_DISK_DIR" in str(e.value)


def test_a_sticky_shared_parent_is_accepted(tmp_path):
    parent = tmp_path / "vartmp"
    parent.mkdir()
    parent.chmod(0o1777)
    assert private_dir(parent / "beowulf-netlab", "disk folder").is_dir()


def _tar(path: Path, members: list[tuple[str, str, bytes]]) -> Path:
    import io
    import tarfile
    with tarfile.open(path, "w:gz") as tar:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            if kind == "file":
                info.size = len(data)
                info.mode = 0o4755            # setuid: never restored, since nothing is unpacked
                tar.addfile(info, io.BytesIO(data))
            elif kind == "link":
                info.type, info.linkname = tarfile.SYMTYPE, data.decode()
                tar.addfile(info)
            elif kind == "device":
                info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 5
                tar.addfile(info)
    return path


def test_an_archive_gives_only_its_matching_regular_files(tmp_path):
    import re
    from beowulf_netlab.core.safefile import archive_members
    a = _tar(tmp_path / "lab-a.tgz", [
        ("results/a.json", "file", b"{}"),
        ("results/b.json", "link", b"/etc/shadow"),
        ("results/c.json", "device", b""),
        ("../results/d.json", "file", b"{}"),
        ("results/sub/e.json", "file", b"{}")])
    got = archive_members(a, "reproduction archive", re.compile(r"results/[a-z]+\.json"), 100, 1000, 20_000)
    assert got == {"results/a.json": b"{}"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab-a.tgz"]   # nothing unpacked


def test_an_archive_member_over_the_cap_is_refused(tmp_path):
    import re
    from beowulf_netlab.core.safefile import archive_members
    a = _tar(tmp_path / "bomb.tgz", [("results/a.json", "file", b" " * 5000)])   # compresses to little
    with pytest.raises(BadInput, match="larger than"):
        archive_members(a, "reproduction archive", re.compile(r"results/[a-z]+\.json"), 1000, 10_000, 20_000)
    (tmp_path / "not.tgz").write_bytes(b"garbage")
    with pytest.raises(BadInput, match="not a readable tar archive"):
        archive_members(tmp_path / "not.tgz", "reproduction archive", re.compile(r".*"), 1000, 10_000, 20_000)


def test_the_writer_writes_into_a_linked_folder(tmp_path):
    real = tmp_path / "data"
    real.mkdir()
    (tmp_path / "results").symlink_to(real)
    write_atomic_bytes(tmp_path / "results" / "doc.json", "{}")
    assert (real / "doc.json").read_text() == "{}"


def test_a_damaged_archive_is_one_bad_input(tmp_path):
    import re
    from beowulf_netlab.core.safefile import archive_members
    good = _tar(tmp_path / "a.tgz", [("results/a.json", "file", b"{}" * 5000)])
    data = good.read_bytes()
    (tmp_path / "cut.tgz").write_bytes(data[: len(data) // 2])
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF
    (tmp_path / "flip.tgz").write_bytes(bytes(flipped))
    for bad in ("cut.tgz", "flip.tgz"):
        with pytest.raises(BadInput):
            archive_members(tmp_path / bad, "reproduction archive", re.compile(r".*"), 1 << 20, 1 << 24, 1 << 24)


# -- archives read with a budget (issue 45, item 2) --

def _members_by_tarfile(path: Path) -> dict[str, bytes]:
    import tarfile
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isreg()}


@pytest.mark.parametrize("fmt", ["GNU_FORMAT", "PAX_FORMAT", "USTAR_FORMAT"])
@pytest.mark.parametrize("compression", ["", "gz", "bz2", "xz"])
def test_archives_are_read_as_tarfile_reads_them(tmp_path, fmt, compression):
    """The reader parses headers itself: every format and compression tarfile writes gives the
    same regular files, and links, folders, devices and FIFOs are passed over."""
    import io
    import re
    import tarfile
    from beowulf_netlab.core.safefile import archive_members
    long_dir = "results/" + "d" * 120
    names = [("results/a.json", b"{}"), ("results/empty.json", b""), (f"{long_dir}/b.json", b"x" * 5000),
             ("results/big.bin", bytes(range(256)) * 4096), ("results/a.json", b"[1]")]   # a duplicate: the last wins
    if fmt != "USTAR_FORMAT":
        names += [("results/" + "n" * 300 + ".json", b"long"), ("results/\u00e9t\u00e9.json", b"utf8")]
    path = tmp_path / f"a.tar{'.' + compression if compression else ''}"
    with tarfile.open(path, f"w:{compression}", format=getattr(tarfile, fmt)) as tar:
        d = tarfile.TarInfo("results")
        d.type = tarfile.DIRTYPE
        tar.addfile(d)
        for i, (name, data) in enumerate(names):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1_700_000_000.5 if fmt == "PAX_FORMAT" else 0
            tar.addfile(info, io.BytesIO(data))
            for kind in (tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE, tarfile.FIFOTYPE):
                other = tarfile.TarInfo(f"results/other{i}-{kind.decode()}.json")
                other.type, other.linkname = kind, name if fmt != "USTAR_FORMAT" else "results/a.json"
                tar.addfile(other)
    got = archive_members(path, "archive", re.compile(r".*"), 1 << 20, 1 << 24, 1 << 24)
    assert got == _members_by_tarfile(path)
    assert got["results/a.json"] == b"[1]" and got[f"{long_dir}/b.json"] == b"x" * 5000


def test_archives_gnu_tar_writes_are_read(tmp_path):
    """GNU tar's own output: long names (its L headers), pax, and a sparse file (its own
    header layout) that is passed over without losing the members after it."""
    import re
    import shutil
    import subprocess
    from beowulf_netlab.core.safefile import archive_members
    if shutil.which("tar") is None:
        pytest.skip("no tar here")
    src = tmp_path / "src"
    deep = src / "results" / ("x" * 90) / ("y" * 90)
    deep.mkdir(parents=True)
    (deep / "deep.json").write_text("{}")
    with open(src / "results" / "sparse.img", "wb") as f:
        for i in range(8):
            f.seek(i << 20)
            f.write(b"data")
    (src / "results" / "z.json").write_text("[]")
    for fmt in ("gnu", "posix", "oldgnu"):
        out = tmp_path / f"{fmt}.tgz"
        subprocess.run(["tar", "-C", str(src), f"--format={fmt}", "-S", "-czf", str(out), "results"], check=True)
        got = archive_members(out, "archive", re.compile(r".*\.json"), 1 << 20, 1 << 24, 1 << 26)
        assert got == {f"results/{'x' * 90}/{'y' * 90}/deep.json": b"{}", "results/z.json": b"[]"}, fmt


def _peak(call) -> tuple[Exception, float, int]:
    """(the exception call raised, seconds, peak bytes Python allocated)."""
    import time
    import tracemalloc
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        call()
    except Exception as e:   # noqa: BLE001 (returned to the test)
        raised = e
    else:
        raised = None
    took, peak = time.monotonic() - t0, tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return raised, took, peak


@pytest.mark.parametrize("bomb, word", [("long_name_bomb", "long-name header of 2147483648 bytes"),
                                        ("pax_bomb", "pax header of 2147483648 bytes")])
def test_a_header_bomb_is_refused_before_it_is_read(tmp_path, bomb, word):
    """2 MB of gzip whose first header announces 2 GiB of name: tarfile read it whole (2.1 GB of
    memory); refused here on the header's size, at once and with next to no memory."""
    import re
    import hostile_archives
    from beowulf_netlab.core.safefile import archive_members
    path = tmp_path / "bomb.tgz"
    path.write_bytes(getattr(hostile_archives, bomb)())
    assert path.stat().st_size < 3 << 20
    raised, took, peak = _peak(lambda: archive_members(path, "archive", re.compile(r".*"), 64 << 20,
                                                       256 << 20, 1 << 30))
    assert isinstance(raised, BadInput) and word in str(raised), raised
    assert took < 1 and peak < 1 << 20, (took, peak)


def test_a_skipped_member_is_inflated_only_to_the_budget(tmp_path):
    """A member nobody asked for that inflates to 2 GiB: counted as it streams, refused once the
    archive's expansion passes the budget, in a few MB of memory."""
    import re
    import hostile_archives
    from beowulf_netlab.core.safefile import archive_members
    path = tmp_path / "bomb.tgz"
    path.write_bytes(hostile_archives.skipped_bomb())
    raised, took, peak = _peak(lambda: archive_members(path, "archive", re.compile(r".*\.json"), 64 << 20,
                                                       256 << 20, 64 << 20))
    assert isinstance(raised, BadInput) and "expands to more than 64 MiB" in str(raised), raised
    assert took < 2 and peak < 8 << 20, (took, peak)
    # a kept member announcing 2 GiB is refused on its header
    path.write_bytes(hostile_archives.kept_bomb())
    raised, took, peak = _peak(lambda: archive_members(path, "archive", re.compile(r".*\.json"), 64 << 20,
                                                       256 << 20, 1 << 30))
    assert isinstance(raised, BadInput) and "results/a.json is larger than 64 MiB" in str(raised), raised
    assert took < 1 and peak < 2 << 20, (took, peak)


def test_an_archive_file_over_its_cap_is_refused_before_it_is_read(tmp_path):
    import re
    from beowulf_netlab.core.safefile import archive_members
    path = tmp_path / "big.tgz"
    with open(path, "wb") as f:
        f.truncate((256 << 20) + 1)
    with pytest.raises(BadInput, match="larger than 256 MiB"):
        archive_members(path, "archive", re.compile(r".*"), 1 << 20, 256 << 20, 1 << 30)


def test_damaged_headers_are_one_bad_input(tmp_path):
    import gzip
    import re
    import hostile_archives
    from beowulf_netlab.core.safefile import archive_members
    good = hostile_archives.header(b"results/a.json", 2) + b"{}".ljust(512, b"\0")
    cases = {
        "checksum": good[:148] + b"0000000\0" + good[156:],
        "size not a number": hostile_archives.header(b"results/a.json", 2)[:124] + b"zzzzzzzzzzz\0"
        + good[136:],
        "second header damaged": good + b"garbage".ljust(512, b"\0"),
        "ends inside a member": hostile_archives.header(b"results/a.json", 5000) + bytes(512),
        "pax record damaged": hostile_archives.header(b"PaxHeaders/a", 9, b"x") + b"99 path=a\n".ljust(512, b"\0")
        + good,
    }
    for why, data in cases.items():
        path = tmp_path / "bad.tgz"
        path.write_bytes(gzip.compress(data + bytes(1024)))
        with pytest.raises(BadInput, match="not a readable tar archive"):
            archive_members(path, "archive", re.compile(r".*"), 1 << 20, 1 << 24, 1 << 24)
    path.write_bytes(gzip.compress(good + bytes(1024)) + b"trailing bytes after the archive's end")
    assert archive_members(path, "archive", re.compile(r".*"), 1 << 20, 1 << 24, 1 << 24) == {"results/a.json": b"{}"}


# -- writes that hold a folder, not a name (issue 45, item 3) --

def _shared_with_link(tmp_path: Path) -> tuple[Path, Path]:
    """(a folder every user can write holding out -> secret, the secret folder)."""
    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)           # not sticky: anyone could have put, or swap, the link
    (shared / "out").symlink_to(secret)
    return shared, secret


def test_a_link_on_the_way_that_others_could_change_is_not_followed(tmp_path):
    from beowulf_netlab.run.store import check_writable
    shared, secret = _shared_with_link(tmp_path)
    with pytest.raises(OSError, match="symbolic link another user made or could change"):
        write_atomic_bytes(shared / "out" / "doc.json", "{}")
    with pytest.raises(OSError, match="symbolic link"):
        write_atomic_bytes(shared / "out" / "new" / "doc.json", "{}")   # nor made through it
    with pytest.raises(BadInput, match="cannot write .*symbolic link"):
        check_writable(shared / "out" / "doc.json")
    assert list(secret.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a link to another user")
def test_a_link_another_user_made_is_not_followed_even_in_roots_folder(tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    (tmp_path / "out").symlink_to(secret)
    os.lchown(tmp_path / "out", NOBODY, NOBODY)
    with pytest.raises(OSError, match="symbolic link another user made"):
        write_atomic_bytes(tmp_path / "out" / "doc.json", "{}")
    assert list(secret.iterdir()) == []


def test_a_folder_swapped_for_a_link_during_a_write_keeps_the_write(tmp_path):
    """The folder is held by a descriptor: a student who renames it away and plants a link in
    its place while root writes (check's two-minute window) gets the file in the old folder."""
    from beowulf_netlab.core.safefile import atomic_binary
    student, secret = tmp_path / "student", tmp_path / "secret"
    student.mkdir()
    secret.mkdir(mode=0o700)
    with atomic_binary(student / "report.json") as f:
        student.rename(tmp_path / "moved")
        student.symlink_to(secret)
        f.write(b"{}")
    assert list(secret.iterdir()) == []
    assert (tmp_path / "moved" / "report.json").read_bytes() == b"{}"


def test_missing_folders_are_made_one_at_a_time(tmp_path):
    from beowulf_netlab.core.safefile import open_folder, probe_folder
    write_atomic_bytes(tmp_path / "a" / "b" / "c" / "doc.json", "{}")
    assert (tmp_path / "a" / "b" / "c" / "doc.json").read_text() == "{}"
    probe_folder(tmp_path / "x" / "y")               # the nearest existing folder takes a file
    assert not (tmp_path / "x").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError):
        write_atomic_bytes(tmp_path / "file" / "doc.json", "{}")
    (tmp_path / "rel").symlink_to("a/b")             # a relative link root made: followed
    os.close(open_folder(tmp_path / "rel" / "c", make=False))
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(OSError):
        write_atomic_bytes(tmp_path / "loop" / "doc.json", "{}")


def test_topo_png_goes_through_the_safe_writer(tmp_path, capsys):
    """topo show --png replaces a link planted at the target (never writes through it) and
    refuses a folder another user could swap."""
    pytest.importorskip("matplotlib")
    from beowulf_netlab import commands
    secret = tmp_path / "shadow"
    secret.write_text("root's")
    secret.chmod(0o600)
    (tmp_path / "wiring.png").symlink_to(secret)
    assert commands.main(["topo", "show", "single-net", "--png", str(tmp_path / "wiring.png")]) == 0
    assert secret.read_text() == "root's"
    assert (tmp_path / "wiring.png").read_bytes().startswith(b"\x89PNG") and not (tmp_path / "wiring.png").is_symlink()
    shared, linked = _shared_with_link(tmp_path)
    assert commands.main(["topo", "show", "single-net", "--png", str(shared / "out" / "w.png")]) == 2
    assert "symbolic link another user" in capsys.readouterr().err
    assert list(linked.iterdir()) == []
