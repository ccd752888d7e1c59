#!/usr/bin/python3
"""One file copy of the Disk/Net balance test, run inside an emulated host.

Modes (the papers' two kinds of copy, plus two probes for the disk tests):
  local  --src F --dst G     read F, write G on the same disk (POSIX read/write)
  send   --src F --host H    read F from this node's disk, send it over TCP
  recv   --dst G             receive one file over TCP, write it to this node's disk
  read   --src F             read F and discard it (disk read-rate probe)
  write  --dst G --size N    write N zero bytes (disk write-rate probe)

Every disk access uses O_DIRECT, so reads never come from the page cache and
writes are charged to this process (cgroup v1 throttles only I/O that a
process submits itself, not the kernel's later writeback). The agent opens its
files, prints "ready" and, except for recv, waits for a line on stdin so that
all copies start together; then it moves itself into its node's blkio cgroup
(--cgroup) and copies (recv: once the sender connects).
With --charge (charge.py) the node's CPU pays for the copy's work that is not a
packet: every byte read from or written to the disk (IDE PIO and the buffer
cache's copy, or the copy alone with DMA; writes behind the process, as 1.x's
buffer cache wrote them back), and each chunk sent or received whole over TCP
(Linux 1.x TCP's per-message cost), in the order the work is done.
It prints one JSON line: {"start", "end", "bytes"} (wall clock, seconds; with
--charge also "charged_bytes" and "charges_lost", charge.py) or {"error"}. Stdlib only: it runs under the namespaces' /usr/bin/python3.
"""
from __future__ import annotations

import argparse
import json
import mmap
import os
import socket
import sys
import time

sys.path.append(os.path.dirname(os.path.realpath(__file__)))   # run isolated (-I): its own folder, last
from charge import Charge      # noqa: E402 (beside this script)

ALIGN = 4096


def join_cgroup(path: str | None) -> None:
    """Move this process into its node's blkio cgroup. Done at the start line, after the
    files are open: blk-throttle starts a group's time slice at its first I/O and gives
    credit for the slice's whole length, so metadata read at open, up to a slice (100 ms)
    before the copy, let short copies run over their rate (1 MB all-local copies read
    12.6-13.6 MB/s against 11.7 in a full reproduction)."""
    if path:
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))


def open_direct(path: str, write: bool) -> int:
    flags = (os.O_WRONLY | os.O_CREAT | os.O_TRUNC) if write else os.O_RDONLY
    return os.open(path, flags | os.O_DIRECT, 0o644)


def read_chunk(fd: int, buf: mmap.mmap) -> int:
    """Fill the aligned buffer from fd; a short count only at end of file."""
    view = memoryview(buf)
    got = 0
    while got < len(buf):
        n = os.readv(fd, [view[got:]])
        if n == 0:
            break
        got += n
    view.release()
    return got


class DirectWriter:
    """Writes whole aligned chunks with O_DIRECT; the unaligned tail (if any)
    goes through the page cache and fsync, which O_DIRECT cannot take."""

    def __init__(self, path: str, chunk: int, charge: Charge):
        self.charge = charge
        self.fd = open_direct(path, write=True)
        self.buf = mmap.mmap(-1, chunk)
        self.view = memoryview(self.buf)
        self.fill = 0
        self.written = 0

    def room(self) -> memoryview:
        return self.view[self.fill:]

    def advance(self, n: int) -> None:
        self.fill += n
        if self.fill == len(self.buf):
            self._flush(self.fill)

    def put(self, data: memoryview) -> None:
        while len(data):
            n = min(len(data), len(self.buf) - self.fill)
            self.view[self.fill:self.fill + n] = data[:n]
            data = data[n:]
            self.advance(n)

    def _flush(self, n: int) -> None:
        done = 0
        while done < n:
            done += os.writev(self.fd, [self.view[done:n]])
        self.charge.behind(n)                # written back while the process goes on
        self.written += n
        self.fill = 0

    def close(self) -> int:
        aligned = self.fill - self.fill % ALIGN
        if aligned:
            tail = self.fill - aligned
            self._flush(aligned)
            self.view[:tail] = self.view[aligned:aligned + tail]
            self.fill = tail
        if self.fill:
            import fcntl
            fl = fcntl.fcntl(self.fd, fcntl.F_GETFL)
            fcntl.fcntl(self.fd, fcntl.F_SETFL, fl & ~os.O_DIRECT)
            self._flush(self.fill)
        os.fsync(self.fd)
        self.charge.settle()                 # the write-back has passed the CPU too
        os.close(self.fd)
        self.view.release()
        self.buf.close()
        return self.written


def wait_go(cgroup: str | None) -> None:
    """Ready; at the start line, into the node's cgroup (join_cgroup says why not before)."""
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        raise SystemExit(0)  # the orchestrator gave up before the start
    join_cgroup(cgroup)


def do_local(a) -> dict:
    src = open_direct(a.src, write=False)
    out = DirectWriter(a.dst, a.chunk, a.charge)
    buf = mmap.mmap(-1, a.chunk)
    wait_go(a.cgroup)
    start = time.time()
    while True:
        n = read_chunk(src, buf)
        if n == 0:
            break
        a.charge.disk(n)
        out.put(memoryview(buf)[:n])
        if n < len(buf):
            break
    total = out.close()
    os.close(src)
    return {"start": start, "end": time.time(), "bytes": total}


def do_send(a) -> dict:
    src = open_direct(a.src, write=False)
    buf = mmap.mmap(-1, a.chunk)
    sock = socket.create_connection((a.host, a.port), timeout=60)
    sock.settimeout(None)
    wait_go(a.cgroup)
    start = time.time()
    sent = 0
    while True:
        n = read_chunk(src, buf)
        if n == 0:
            break
        a.charge.disk(n)
        if a.corrupt_at is not None and sent <= a.corrupt_at < sent + n:
            i = a.corrupt_at - sent  # test hook: flip one byte in transit
            buf[i] = buf[i] ^ 0xFF
        a.charge.message()
        sock.sendall(memoryview(buf)[:n])
        sent += n
        if n < len(buf):
            break
    sock.shutdown(socket.SHUT_WR)
    sock.recv(1)  # the receiver closes once its data is on disk
    sock.close()
    os.close(src)
    return {"start": start, "end": time.time(), "bytes": sent}


def do_recv(a) -> dict:
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("0.0.0.0", a.port))
    lsock.listen(1)
    out = DirectWriter(a.dst, a.chunk, a.charge)
    print("ready", flush=True)
    conn, _ = lsock.accept()
    join_cgroup(a.cgroup)
    start = None
    while True:
        n = conn.recv_into(out.room())
        if n == 0:
            break
        if start is None:
            start = time.time()
        if out.fill + n == len(out.buf):
            a.charge.message()     # a chunk received whole, before it is written
        out.advance(n)
    if out.fill:
        a.charge.message()         # the last, short chunk (its sender paid its send too)
    total = out.close()
    end = time.time()
    conn.close()
    lsock.close()
    return {"start": start or end, "end": end, "bytes": total}


def do_read(a) -> dict:
    src = open_direct(a.src, write=False)
    buf = mmap.mmap(-1, a.chunk)
    wait_go(a.cgroup)
    start = time.time()
    total = 0
    while (n := read_chunk(src, buf)):
        a.charge.disk(n)
        total += n
        if n < len(buf):
            break
    os.close(src)
    return {"start": start, "end": time.time(), "bytes": total}


def do_write(a) -> dict:
    out = DirectWriter(a.dst, a.chunk, a.charge)
    wait_go(a.cgroup)
    start = time.time()
    left = a.size
    while left:
        n = min(left, len(out.buf) - out.fill)
        out.advance(n)  # the buffer holds zeros
        left -= n
    total = out.close()
    return {"start": start, "end": time.time(), "bytes": total}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=("local", "send", "recv", "read", "write"))
    p.add_argument("--src")
    p.add_argument("--dst")
    p.add_argument("--host")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--size", type=int, default=0)
    p.add_argument("--chunk", type=int, default=64 * 1024, help="bytes per read()/write() (multiple of 4096)")
    p.add_argument("--cgroup", help="blkio cgroup directory to join first")
    p.add_argument("--charge", help="ADDR,OVERHEAD,MESSAGE,DISK,PIECE,NS,LAT: the node's charge channel (charge.py)")
    p.add_argument("--corrupt-at", type=int, default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.chunk <= 0 or a.chunk % ALIGN:
        p.error("--chunk must be a positive multiple of 4096")
    try:
        a.charge = Charge(a.charge)
        result = {"local": do_local, "send": do_send, "recv": do_recv,
                  "read": do_read, "write": do_write}[a.mode](a)
    except OSError as e:
        print(json.dumps({"error": f"{a.mode}: {e}"}), flush=True)
        return 1
    print(json.dumps({**result, **a.charge.record()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
