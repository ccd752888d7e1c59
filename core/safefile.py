"""The one safe reader and writer of paths a user names, and the check of a private folder.

The tool runs as root on machines students share, so a path it is given may be a link a
student planted, a FIFO that never ends a read, /dev/zero, or a file swapped between a check
and a use. Division of labor:

- `read_bytes`: opens with O_NOFOLLOW (a final link is refused, not followed) and O_NONBLOCK
  (a FIFO cannot stall the open), then accepts only a regular file, read to a declared cap.
- `write_atomic_bytes` / `atomic_text`: pin the target's folder by a descriptor, create a
  fresh random name in it exclusively (O_EXCL|O_NOFOLLOW: never an existing file or link),
  write, then rename over the target relative to that descriptor. A link at the target is
  replaced, never written through; a half-written file is never seen.
- `archive_members`: the regular files of a tar archive whose names match, read in memory
  and capped (a lab host's archive may hold links, devices or a decompression bomb; nothing
  is unpacked, so none of it can land anywhere).
- `fresh_dir`: a folder to fill from nothing (a hand-out bundle): missing or empty, never a
  link, so nothing already there is mixed in or overwritten.
- `private_dir`: the tool's own folders (run state, node disks): made 0700 when missing, and
  refused unless the folder and every folder above it is safe from other users (owned by root
  or this user, and not writable by others unless sticky, as /tmp and /var/tmp are). An
  existing folder is never changed: NETLAB_DISK_DIR may name one other users share.
"""
from __future__ import annotations

import contextlib
import io
import lzma
import os
import re
import secrets
import stat
import tarfile
import zlib
from pathlib import Path
from typing import Iterator

from core.errors import BadInput, RuntimeFailure
from core.text import plain


def read_bytes(path: Path, what: str, limit: int) -> bytes:
    """The bytes of a regular file at path (at most limit), or BadInput saying why not."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == 40:   # ELOOP: the last component is a symbolic link
            raise BadInput(f"{what} {path} is a symbolic link; give the file it points to")
        raise BadInput(f"cannot read {what} {path}: {e.strerror}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{what} {path} is not a regular file")
        if st.st_size > limit:
            raise BadInput(f"{what} {path} is larger than {_size(limit)}")
        chunks, total = [], 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - total)):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:   # it grew while being read
                raise BadInput(f"{what} {path} is larger than {_size(limit)}")
        return b"".join(chunks)
    except OSError as e:
        raise BadInput(f"cannot read {what} {path}: {e.strerror}")
    finally:
        os.close(fd)


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} bytes"


@contextlib.contextmanager
def _pinned_dir(path: Path) -> Iterator[int]:
    """A descriptor of path's folder (made if missing), its last component not a link."""
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    # the folder itself may be a link (results -> /data/results): what protects the target is the
    # temporary's O_EXCL|O_NOFOLLOW and the rename within this one folder
    dfd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield dfd
    finally:
        os.close(dfd)


@contextlib.contextmanager
def atomic_binary(path: Path, mode: int = 0o644) -> Iterator[io.BufferedWriter]:
    """A file object whose contents replace path in one step when the block ends without
    an error (and are discarded otherwise). OSError goes to the caller, which names the flag."""
    path = Path(path)
    with _pinned_dir(path) as dfd:
        tmp = f".{path.name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode,
                     dir_fd=dfd)
        try:
            with os.fdopen(fd, "wb") as f:
                yield f
            os.replace(tmp, path.name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise


@contextlib.contextmanager
def atomic_text(path: Path, mode: int = 0o644, newline: str | None = None) -> Iterator[io.TextIOWrapper]:
    """As atomic_binary, as UTF-8 text."""
    with atomic_binary(path, mode) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline=newline)
        yield text
        text.flush()
        text.detach()


def write_atomic_bytes(path: Path, data: bytes | str, mode: int = 0o644) -> None:
    """Replace path with data in one step (str as UTF-8), never through a link at path."""
    with atomic_binary(path, mode) as f:
        f.write(data.encode() if isinstance(data, str) else data)


def fresh_dir(path: Path, what: str) -> Path:
    """path as an empty folder: made when missing; BadInput when it is a link (to wherever), or
    anything but a folder, or a folder that holds something (a bundle is written whole or not)."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        try:
            path.mkdir(parents=True)
        except OSError as e:
            raise BadInput(f"cannot make the {what} {path}: {e.strerror}")
        return path
    except OSError as e:
        raise BadInput(f"cannot use the {what} {path}: {e.strerror}")
    if stat.S_ISLNK(st.st_mode):
        raise BadInput(f"the {what} {path} is a symbolic link; give a new folder")
    if not stat.S_ISDIR(st.st_mode):
        raise BadInput(f"the {what} {path} exists and is not a folder; give a new folder")
    try:
        with os.scandir(path) as entries:
            full = next(entries, None) is not None
    except OSError as e:
        raise BadInput(f"cannot use the {what} {path}: {e.strerror}")
    if full:
        raise BadInput(f"the {what} {path} is not empty; give a new or empty folder")
    return path


def _unsafe(st: os.stat_result, euid: int) -> str | None:
    """Why a folder with this lstat is not safe for root to use, or None."""
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if st.st_uid not in (0, euid):
        return f"is owned by uid {st.st_uid}, not by root"
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        return "is writable by other users"
    return None


def private_dir(path: Path, what: str, env: str | None = None) -> Path:
    """path as a folder only this user can change (made 0700 if missing); RuntimeFailure naming
    what to do when it, or a folder above it, could be changed by another user."""
    path = Path(os.path.abspath(path))
    euid = os.geteuid()
    how = f" (or set {env} to another folder)" if env else ""
    for anc in reversed(path.parents):
        try:
            st = os.lstat(anc)
        except FileNotFoundError:
            break
        except OSError as e:
            raise RuntimeFailure(f"cannot check {anc} above the {what} {path}: {e.strerror}")
        why = _unsafe(st, euid)
        if why and not (stat.S_ISLNK(st.st_mode) and anc == Path("/") / anc.name and _is_root_link(anc)):
            raise RuntimeFailure(f"refusing the {what} {path}: {anc} {why}{how}")
    try:
        path.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError as e:
        raise RuntimeFailure(f"cannot make the {what} {path}: {e.strerror}{how}")
    st = os.lstat(path)
    why = _unsafe(st, euid)
    if why is None and st.st_uid != euid:
        why = f"is owned by uid {st.st_uid}, not by this user"
    if why:
        raise RuntimeFailure(f"refusing the {what} {path}: it {why}; remove it{how}")
    return path


def _is_root_link(p: Path) -> bool:
    """A root-owned link directly under / (merged-/usr systems' /bin, /lib, /var/run...)."""
    try:
        return os.lstat(p).st_uid == 0 and _unsafe(os.stat(p), os.geteuid()) is None
    except OSError:
        return False


MAX_ARCHIVE_MEMBERS = 10_000


def archive_members(path: Path, what: str, name_re: re.Pattern, limit_each: int,
                    limit_total: int) -> dict[str, bytes]:
    """member name -> bytes, for each regular file of the (gzip) tar archive at path whose name
    name_re matches in full; anything else in it (links, devices, folders, other files) is
    skipped. BadInput when the archive is unreadable or breaks a limit."""
    raw = read_bytes(path, what, limit_total)
    out: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:*") as tar:
            for i, member in enumerate(tar):
                if i >= MAX_ARCHIVE_MEMBERS:
                    raise BadInput(f"{what} {path} holds more than {MAX_ARCHIVE_MEMBERS} entries")
                if not member.isreg() or not name_re.fullmatch(member.name):
                    continue
                if member.size > limit_each or total + member.size > limit_total:
                    raise BadInput(f"{what} {path}: {plain(member.name)} is larger than "
                                   f"{_size(min(limit_each, limit_total - total))}")
                f = tar.extractfile(member)
                data = f.read(limit_each + 1) if f else b""
                total += len(data)
                out[member.name] = data
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as e:
        raise BadInput(f"{what} {path} is not a readable tar archive ({e})")
    return out

