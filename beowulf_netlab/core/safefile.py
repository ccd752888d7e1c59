"""The one safe reader and writer of paths a user names, and the check of a private folder.

The tool runs as root on machines students share, so a path it is given may be a link a
student planted, a FIFO that never ends a read, /dev/zero, or a file swapped between a check
and a use. Division of labor:

- `read_bytes`: opens with O_NOFOLLOW (a final link is refused, not followed) and O_NONBLOCK
  (a FIFO cannot stall the open), then accepts only a regular file, read to a declared cap.
- `write_atomic_bytes` / `atomic_text`: pin the target's folder by a descriptor, create a
  fresh random name in it exclusively (O_EXCL|O_NOFOLLOW: never an existing file or link),
  write, then rename over the target relative to that descriptor. A link at the target is
  replaced, never written through; a half-written file is never seen. The folder is reached
  from / a component at a time (`open_folder`: O_DIRECTORY|O_NOFOLLOW, missing ones made),
  following only links root or this user made in folders no other user can change: a
  student's folder swapped for a link during a run is refused, not written through.
- `probe_folder`: whether a folder takes a new file, reached the same way (before a run).
- `archive_members`: the regular files of a tar archive whose names match, read in memory
  and capped (a lab host's archive may hold links, devices or a decompression bomb; nothing
  is unpacked, so none of it can land anywhere). Its headers are parsed here as the archive
  streams, every expanded byte counted against a budget: tarfile reads a long-name or pax
  header whole and inflates skipped members, so a 2 MB archive could take GBs.
- `fresh_dir`: a folder to fill from nothing (a hand-out bundle): missing or empty, never a
  link, so nothing already there is mixed in or overwritten.
- `private_dir`: the tool's own folders (run state, node disks): made 0700 when missing, and
  refused unless the folder and every folder above it is safe from other users (owned by root
  or this user, and not writable by others unless sticky, as /tmp and /var/tmp are). An
  existing folder is never changed: NETLAB_DISK_DIR may name one other users share.
"""
from __future__ import annotations

import bz2
import contextlib
import errno
import io
import lzma
import os
import re
import secrets
import stat
import zlib
from pathlib import Path
from typing import Iterator

from beowulf_netlab.core.errors import BadInput, RuntimeFailure
from beowulf_netlab.core.text import plain


def _open_regular(path: Path, what: str, limit: int) -> int:
    """A descriptor of the regular file at path, opened without following a final link and
    without waiting on a FIFO, at most limit bytes; BadInput saying why not."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ELOOP:   # the last component is a symbolic link
            raise BadInput(f"{what} {path} is a symbolic link; give the file it points to")
        raise BadInput(f"cannot read {what} {path}: {e.strerror}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{what} {path} is not a regular file")
        if st.st_size > limit:
            raise BadInput(f"{what} {path} is larger than {_size(limit)}")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(path: Path, what: str, limit: int) -> bytes:
    """The bytes of a regular file at path (at most limit), or BadInput saying why not."""
    fd = _open_regular(path, what, limit)
    try:
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


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_MAX_LINKS = 40   # as the kernel's own limit on links in one path


def _trusted_link(holder: os.stat_result, link: os.stat_result, euid: int) -> bool:
    """A link root follows: made by root or this user, in a folder no other user can change
    (so nobody can swap it between this check and its use)."""
    return _unsafe(holder, euid) is None and link.st_uid in (0, euid)


def _walk(path: Path, make: bool) -> tuple[int, list[str]]:
    """(a descriptor of the folder path, walked from / one component at a time with O_NOFOLLOW;
    the components still missing when make is false). A missing folder is made when make is
    true; a link is followed only when _trusted_link says so (results -> /data/results made by
    root), anything else raises OSError (ELOOP naming the link): a folder another user swaps
    for a link, before or during a run, never sends root's write elsewhere."""
    parts = list(Path(os.path.abspath(path)).parts[1:])
    euid, hops = os.geteuid(), 0
    fd = os.open("/", _DIR_FLAGS)
    try:
        while parts:
            name = parts.pop(0)
            if name in ("", "."):
                continue
            try:
                nfd = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not make:
                    return fd, [name, *parts]
                hops += 1
                if hops > _MAX_LINKS:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
                parts.insert(0, name)
                continue
            except OSError as e:
                if e.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if not stat.S_ISLNK(st.st_mode):
                    raise
                hops += 1
                if hops > _MAX_LINKS or not _trusted_link(os.fstat(fd), st, euid):
                    raise OSError(errno.ELOOP, f"{name} on the way is a symbolic link another user made or "
                                               "could change (give the folder it points to)", str(path))
                target = Path(os.readlink(name, dir_fd=fd))
                if target.is_absolute():
                    os.close(fd)
                    fd = os.open("/", _DIR_FLAGS)
                parts[:0] = list(target.parts[1:] if target.is_absolute() else target.parts)
                continue
            os.close(fd)
            fd = nfd
        return fd, []
    except BaseException:
        os.close(fd)
        raise


def open_folder(path: Path, make: bool = True) -> int:
    """A descriptor of the folder path (made when missing and make), reached as _walk does;
    OSError otherwise. The caller writes relative to it and closes it."""
    fd, missing = _walk(path, make)
    if missing:
        os.close(fd)
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    return fd


def probe_folder(path: Path) -> None:
    """OSError unless a new file can be made in folder path, or in the nearest folder of it that
    exists (the rest is made when written): tried for real, by a file made and removed there
    (permission bits say nothing for root or a read-only filesystem), reached as _walk does."""
    fd, _ = _walk(path, make=False)
    try:
        name = f".netlab-probe-{secrets.token_hex(6)}"
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                         dir_fd=fd))
        os.unlink(name, dir_fd=fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _pinned_dir(path: Path) -> Iterator[int]:
    """A descriptor of path's folder (made if missing), reached as _walk does: the temporary
    file and the rename happen in that one folder, whatever is renamed or linked meanwhile."""
    dfd = open_folder(path.parent)
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


def untrusted_program(path: Path) -> str | None:
    """Why root should not run the program at path (named by a variable, e.g. NETLAB_ENGINE), or
    None: every component of the path and the file itself owned by root or this user, a link only
    if its holder is, and nothing another user could write or swap (a sticky folder such as /tmp
    keeps others from replacing a file they do not own)."""
    euid = os.geteuid()
    path = Path(os.path.abspath(path))
    for part in [*reversed(path.parents), path]:
        try:
            st = os.lstat(part)
        except OSError as e:
            return f"{part}: {e.strerror}"
        if st.st_uid not in (0, euid):
            return f"{part} is owned by uid {st.st_uid}, not by root"
        if stat.S_ISLNK(st.st_mode):
            continue   # a link of root's: its target is checked as the path resolves
        if part == path:
            if not stat.S_ISREG(st.st_mode):
                return f"{part} is not a regular file"
            if st.st_mode & 0o022:
                return f"{part} is writable by other users"
        elif st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            return f"{part} is writable by other users"
    real = Path(os.path.realpath(path))
    return None if real == path else untrusted_program(real)


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
MAX_HEADER_BYTES = 64 << 10   # a long-name or pax header (a path is at most 4096 bytes)
_BLOCK = 512
_CHUNK = 1 << 20              # inflated at a time
_ZERO_BLOCK = bytes(_BLOCK)
_REGULAR, _NO_DATA = (b"0", b"\0", b"7"), (b"1", b"2", b"3", b"4", b"5", b"6")


class _Zlib:
    """zlib's decompressor (gzip framing) with the interface bz2's and lzma's share."""

    def __init__(self):
        self.d, self.tail = zlib.decompressobj(31), b""

    @property
    def needs_input(self) -> bool:
        return not self.tail

    @property
    def eof(self) -> bool:
        return self.d.eof

    @property
    def unused_data(self) -> bytes:
        return self.d.unused_data

    def decompress(self, data: bytes, max_length: int) -> bytes:
        out = self.d.decompress(self.tail + data, max_length)
        self.tail = self.d.unconsumed_tail
        return out


_MAGIC = ((b"\x1f\x8b", _Zlib), (b"BZh", bz2.BZ2Decompressor), (b"\xfd7zXZ\x00", lzma.LZMADecompressor))


class _Expanded:
    """An archive file's contents as they decompress, a chunk at a time: what was read of the
    file and what of its expansion was used are counted as they stream, headers and skipped
    members included, and BadInput ends the read past either budget (a bomb is never inflated
    whole: at most one chunk beyond the budget)."""

    def __init__(self, fd: int, where: str, file_limit: int, budget: int):
        self.fd, self.where, self.file_limit, self.budget = fd, where, file_limit, budget
        self.read_in = self.expanded = self.pos = 0
        self.buf = b""
        self.chunks = self._chunks()

    def _raw(self) -> Iterator[bytes]:
        while chunk := os.read(self.fd, 1 << 16):
            self.read_in += len(chunk)
            if self.read_in > self.file_limit:
                raise BadInput(f"{self.where} is larger than {_size(self.file_limit)}")
            yield chunk

    def _chunks(self) -> Iterator[bytes]:
        raw = self._raw()
        first = next(raw, b"")
        kind = next((k for magic, k in _MAGIC if first.startswith(magic)), None)
        if kind is None:
            if first:
                yield first
            yield from raw
            return
        d, data = kind(), first
        while True:
            if d.eof:             # a stream of several members (gzip, bzip2 and xz allow it)
                rest = d.unused_data or next(raw, b"")
                if not rest.strip(b"\0"):
                    return
                d, data = kind(), rest
            elif d.needs_input and not data:
                data = next(raw, None)
                if data is None:          # the file ended: what the decompressor still holds, then
                    while out := d.decompress(b"", _CHUNK):
                        yield out
                    if not d.eof:
                        raise EOFError("the compressed data ends early")
                    return
            out = d.decompress(data, _CHUNK)
            data = b""
            if out:
                yield out

    def _more(self) -> bool:
        """The next chunk into buf, counted; False at the end."""
        chunk = next(self.chunks, None)
        if chunk is None:
            return False
        self.buf, self.pos = chunk, 0
        return True

    def _count(self, n: int) -> None:
        self.expanded += n
        if self.expanded > self.budget:
            raise BadInput(f"{self.where} expands to more than {_size(self.budget)}")

    def read(self, n: int) -> bytes:
        """The next n bytes (fewer only at the end)."""
        parts = []
        while n and (self.pos < len(self.buf) or self._more()):
            piece = self.buf[self.pos:self.pos + n]
            self._count(len(piece))
            self.pos += len(piece)
            n -= len(piece)
            parts.append(piece)
        return b"".join(parts)

    def exactly(self, n: int) -> bytes:
        out = self.read(n)
        if len(out) < n:
            raise EOFError("the archive ends inside a member")
        return out

    def skip(self, n: int) -> None:
        """Pass over n bytes without keeping them (counted like the rest)."""
        while n:
            if self.pos >= len(self.buf) and not self._more():
                raise EOFError("the archive ends inside a member")
            step = min(n, len(self.buf) - self.pos)
            self._count(step)
            self.pos += step
            n -= step


def _number(field: bytes) -> int:
    """A tar header's number: octal, or base-256 (GNU) when the first byte's high bit is set."""
    if field[:1] == b"\x80":
        return int.from_bytes(field[1:], "big")
    if field[:1] == b"\xff":
        raise ValueError("a negative number in a header")
    text = field.split(b"\0", 1)[0].strip(b" ")
    if not text:
        return 0
    if not re.fullmatch(rb"[0-7]+", text):
        raise ValueError("a header field is not a number")
    return int(text, 8)


def _checked(block: bytes) -> None:
    stored = _number(block[148:156])
    rest = block[:148] + b" " * 8 + block[156:]
    if stored not in (sum(rest), sum(b - 256 if b > 127 else b for b in rest)):
        raise ValueError("a header's checksum is wrong (not a tar archive, or a damaged one)")


def _text(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def _pax(data: bytes) -> dict[bytes, bytes]:
    """The records ("LEN KEY=VALUE\n") of a pax extended header."""
    out, pos = {}, 0
    while pos < len(data) and data[pos:].strip(b"\0"):
        m = re.compile(rb"(\d{1,6}) ").match(data, pos)
        length = int(m.group(1)) if m else 0
        record = data[pos:pos + length]
        if not m or length <= len(m.group(0)) or len(record) < length or not record.endswith(b"\n"):
            raise ValueError("a damaged pax header")
        key, eq, value = record[len(m.group(0)):-1].partition(b"=")
        if not eq:
            raise ValueError("a damaged pax header")
        out[key] = value
        pos += length
    return out


def _padded(n: int) -> int:
    return -(-n // _BLOCK) * _BLOCK


def archive_members(path: Path, what: str, name_re: re.Pattern, limit_each: int, limit_total: int,
                    limit_expanded: int) -> dict[str, bytes]:
    """member name -> bytes, for each regular file of the tar archive at path (plain, gzip,
    bzip2 or xz) whose name name_re matches in full; anything else in it (links, devices,
    folders, other files) is skipped. The archive is read as a stream and its headers parsed
    here, not by tarfile (which reads a long-name or pax header whole, whatever its size): the
    file is at most limit_total bytes, everything it expands to (headers, skipped members,
    padding) at most limit_expanded, a kept member at most limit_each
    and a long-name or pax header at most MAX_HEADER_BYTES. BadInput when the archive is
    unreadable or breaks a limit; nothing is unpacked."""
    where = f"{what} {path}"
    budget = limit_expanded
    fd = _open_regular(path, what, limit_total)
    out: dict[str, bytes] = {}
    try:
        tar = _Expanded(fd, where, limit_total, budget)
        long_name, pax, count = None, {}, 0
        while True:
            block = tar.read(_BLOCK)
            if not block or block == _ZERO_BLOCK:
                break
            if len(block) < _BLOCK:
                raise EOFError("the archive ends inside a header")
            _checked(block)
            count += 1
            if count > MAX_ARCHIVE_MEMBERS:
                raise BadInput(f"{where} holds more than {MAX_ARCHIVE_MEMBERS} entries")
            kind, size = block[156:157], _number(block[124:136])
            if kind in (b"L", b"K", b"x", b"X", b"g"):
                if size > MAX_HEADER_BYTES:
                    raise BadInput(f"{where} has a {'long-name' if kind in b'LK' else 'pax'} header of "
                                   f"{size} bytes (at most {MAX_HEADER_BYTES})")
                data = tar.exactly(_padded(size))[:size]
                if kind == b"L":
                    long_name = _text(data)
                elif kind in (b"x", b"X"):
                    pax = _pax(data)
                elif kind == b"g":
                    _pax(data)           # global records: read, checked, not used
                continue                 # (K: a long link target, not used either)
            name = _text(block[:100])
            prefix = _text(block[345:500]) if kind != b"S" else ""
            if prefix:
                name = f"{prefix}/{name}"
            if long_name is not None:
                name = long_name
            if b"path" in pax:
                name = pax[b"path"].decode("utf-8", "surrogateescape")
            if b"size" in pax:
                if not re.fullmatch(rb"\d{1,20}", pax[b"size"]):
                    raise ValueError("a damaged pax size")
                size = int(pax[b"size"])
            long_name, pax = None, {}
            if kind == b"S" and block[482]:          # old GNU sparse: extension blocks first
                while tar.exactly(_BLOCK)[504]:
                    pass
            if kind in _NO_DATA or (kind == b"\0" and name.endswith("/")):
                continue                             # as tarfile: no data follows these
            if kind in _REGULAR and name_re.fullmatch(name):
                kept = sum(map(len, out.values())) - len(out.get(name, b""))
                if size > limit_each or kept + size > budget:
                    raise BadInput(f"{where}: {plain(name)} is larger than "
                                   f"{_size(min(limit_each, budget - kept))}")
                out[name] = tar.exactly(size)
                tar.skip(_padded(size) - size)
            else:
                tar.skip(_padded(size))
    except (EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as e:
        if isinstance(e, BadInput):
            raise
        raise BadInput(f"{where} is not a readable tar archive ({e})")
    finally:
        os.close(fd)
    return out
