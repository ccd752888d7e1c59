"""Tar archives a lab host could send the controller, built without tarfile (which refuses to
write most of them): a long-name or pax header announcing GBs, a skipped member that inflates
to GBs, all a few MB of gzip (members of zeros, compressed once and repeated)."""
from __future__ import annotations

import functools
import gzip
import zlib

ZEROS_MEMBER = 16 << 20


def header(name: bytes, size: int, kind: bytes = b"0") -> bytes:
    """One GNU tar header block (base-256 size when octal cannot hold it)."""
    b = bytearray(512)
    b[:len(name)] = name
    b[100:108], b[108:116], b[116:124] = b"0000644\0", b"0000000\0", b"0000000\0"
    b[124:136] = b"%011o\0" % size if size < 8 ** 11 else b"\x80" + size.to_bytes(11, "big")
    b[136:148] = b"00000000000\0"
    b[156:157] = kind
    b[257:265] = b"ustar  \0"
    b[148:156] = b" " * 8
    b[148:156] = b"%06o\0 " % sum(b)
    return bytes(b)


@functools.cache
def _zeros_member() -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return c.compress(bytes(ZEROS_MEMBER)) + c.flush()


def zeros_gz(n: int) -> bytes:
    """gzip of n zero bytes (a multiple of 16 MiB), as concatenated members."""
    return _zeros_member() * (n // ZEROS_MEMBER)


def long_name_bomb(size: int = 2 << 30) -> bytes:
    """A GNU long-name header of size bytes: tarfile reads it whole into memory."""
    return gzip.compress(header(b"././@LongLink", size, b"L")) + zeros_gz(size)


def pax_bomb(size: int = 2 << 30) -> bytes:
    return gzip.compress(header(b"./PaxHeaders/results", size, b"x")) + zeros_gz(size)


def skipped_bomb(size: int = 2 << 30, name: bytes = b"results/zero.bin") -> bytes:
    """A member nobody asked for that inflates to size bytes, then the end of the archive."""
    return gzip.compress(header(name, size)) + zeros_gz(size) + gzip.compress(bytes(1024))


def kept_bomb(size: int = 2 << 30) -> bytes:
    return skipped_bomb(size, b"results/a.json")
