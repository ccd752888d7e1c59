#!/usr/bin/env python3
"""The papers' token exchange, one pair: run inside the host namespaces.

  token_agent.py serve  --port P [--corrupt-after N] [--udp] [--charge SPEC]
  token_agent.py client --host IP --port P --size S [--tokens T] [--wait-go] [--udp] [--charge SPEC]
                        (--exchanges N | --duration D)
  token_agent.py daemon   (one per node for a network's life: forks the roles on command, forker.py)

The client sends T tokens of S bytes over one TCP connection; the server reads
each token completely and sends it straight back; the client checks every
returned token byte for byte against what it sent and sends it again, until N
round trips completed (or D seconds passed). Sockets are nonblocking, driven by
a selector, as the papers' processes used nonblocking send/receive. With
--charge (charge.py) each TCP send of a token and each completed receive of one
costs the node's CPU Linux 1.x TCP's per-message cost, paid before the send or
after the receive, as the syscall would have.

The client prints one JSON line: round trips, payload bytes moved (S per token
per direction, i.e. 2*S per round trip), elapsed seconds from the first byte
sent to the last byte received (and that interval in wall-clock time, so the
pairs' overlap can be checked), round-trip latencies, and with --charge what it
paid ("charged_bytes", "charges_lost"); a TCP server prints what it paid when
its client has gone. Exit status 3 and an
"error" field when a token came back wrong.
"""
from __future__ import annotations

import argparse
import json
import os
import selectors
import socket
import statistics
import sys
import time

sys.path.append(os.path.dirname(os.path.realpath(__file__)))   # run isolated (-I): its own folder, last
from charge import Charge, ChargeError, recv_stamped, stamp_arrivals      # noqa: E402 (beside this script)

CHUNK = 65536


class Corrupted(Exception):
    pass


def _pump(conn: socket.socket, sel: selectors.BaseSelector, outbuf: bytearray,
          timeout: float | None = None) -> tuple[bytes | None, float]:
    """One selector round: send what we can of outbuf, return what arrived (b"" when the peer
    closed, None when nothing came) and when the kernel had it (charge.recv_stamped)."""
    sel.modify(conn, selectors.EVENT_READ | (selectors.EVENT_WRITE if outbuf else 0))
    data, at = None, 0.0
    for _key, mask in sel.select(timeout):
        if mask & selectors.EVENT_WRITE and outbuf:
            try:
                del outbuf[:conn.send(outbuf)]
            except BlockingIOError:
                pass
        if mask & selectors.EVENT_READ:
            try:
                data, at = recv_stamped(conn, CHUNK)
            except BlockingIOError:
                pass
    return data, at


def _flush(conn: socket.socket, outbuf: bytearray) -> None:
    """Send what the socket takes now: a message leaves after its own send's cost, not after
    the costs of the messages queued behind it."""
    try:
        del outbuf[:conn.send(outbuf)]
    except BlockingIOError:
        pass


def serve(port: int, corrupt_after: int | None, charge: Charge) -> int:
    """Echo each complete token. One connection, then exit, printing what the charge channel
    was paid (nothing without --charge)."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    print("ready", flush=True)
    conn, _ = ls.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    stamp_arrivals(conn)
    size = int.from_bytes(_recv_exact(conn, 4), "big")
    conn.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ)
    inbuf = bytearray()
    outbuf = bytearray()
    echoed = 0
    while True:
        data, at = _pump(conn, sel, outbuf)
        if data == b"":
            print(json.dumps(charge.record()), flush=True)
            return 0
        if data:
            inbuf += data
            while len(inbuf) >= size:  # a whole token: straight back
                token = bytearray(inbuf[:size])
                del inbuf[:size]
                echoed += 1
                charge.message(2, since=at)   # the receive completed, the send: from its arrival
                if corrupt_after is not None and echoed > corrupt_after:
                    token[len(token) // 2] ^= 0xFF
                outbuf += token
                _flush(conn, outbuf)


def _summary(wall0: float, elapsed: float, size: int, tokens: int, rtts: list[float]) -> dict:
    """The client's JSON result: one round trip per completed token (S bytes each way)."""
    done = len(rtts)
    return {"start": wall0, "end": wall0 + elapsed, "round_trips": done, "token_size": size,
            "tokens_in_flight": tokens, "payload_bytes": 2 * size * done, "elapsed_s": elapsed,
            "rtt_ms_median": statistics.median(rtts) * 1e3 if rtts else None,
            "rtt_ms_min": min(rtts) * 1e3 if rtts else None,
            "rtt_ms_max": max(rtts) * 1e3 if rtts else None}


def serve_udp(port: int) -> int:
    """Echo every datagram straight back; an empty one ends the exchange."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    print("ready", flush=True)
    while True:
        data, peer = s.recvfrom(65535)
        if not data:
            return 0
        s.sendto(data, peer)


def client_udp(host: str, port: int, size: int, exchanges: int | None, duration: float | None,
               wait_go: bool = False, timeout: float = 1.0) -> dict:
    """One datagram of `size` bytes each way, one in flight; a datagram not back within
    `timeout` counts as lost and is sent again (its time is not a round trip)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((host, port))
    s.settimeout(timeout)
    if wait_go:
        print("ready", flush=True)
        if sys.stdin.readline().strip() != "go":
            raise ConnectionError("no start signal")
    token = os.urandom(size)
    rtts: list[float] = []
    lost = 0
    limit = exchanges if exchanges is not None else float("inf")
    wall0 = time.time()
    t0 = time.perf_counter()
    deadline = t0 + duration if duration is not None else float("inf")
    while len(rtts) < limit and time.perf_counter() < deadline:
        sent = time.perf_counter()
        s.send(token)
        try:
            back = s.recv(65535)
        except socket.timeout:
            lost += 1
            continue
        if back != token:
            raise Corrupted(f"datagram {len(rtts) + 1} came back wrong")
        rtts.append(time.perf_counter() - sent)
    elapsed = time.perf_counter() - t0
    s.send(b"")
    return {**_summary(wall0, elapsed, size, 1, rtts), "lost": lost}


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("peer closed")
        buf += chunk
    return buf


def _connect(host: str, port: int, within: float = 10.0) -> socket.socket:
    """Connect, retrying while the server is still starting (the runner starts servers
    and clients together rather than waiting for every server first)."""
    deadline = time.monotonic() + within
    while True:
        try:
            return socket.create_connection((host, port), timeout=within)
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def client(host: str, port: int, size: int, tokens: int, exchanges: int | None,
           duration: float | None, wait_go: bool = False, charge: Charge | None = None) -> dict:
    charge = charge or Charge(None)
    conn = _connect(host, port)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    stamp_arrivals(conn)
    conn.sendall(size.to_bytes(4, "big"))
    if wait_go:  # the start line: every pair begins together
        print("ready", flush=True)
        if sys.stdin.readline().strip() != "go":
            raise ConnectionError("no start signal")
    conn.setblocking(False)
    # Each in-flight slot carries its own random content, checked on return.
    slots = [os.urandom(size) for _ in range(tokens)]
    outbuf = bytearray()
    inbuf = bytearray()
    sent_at: list[float] = []      # send time of each token in flight, FIFO (TCP keeps order)
    rtts: list[float] = []
    done = 0
    launched = 0
    limit = exchanges if exchanges is not None else float("inf")
    wall0 = time.time()
    t0 = time.perf_counter()
    deadline = t0 + duration if duration is not None else float("inf")

    def launch(slot: int, since: float | None = None) -> None:
        nonlocal launched
        since = time.perf_counter() if since is None else since
        sent_at.append(since)      # a round trip counts the send's cost, as lmbench's does
        charge.message(since=since)   # the send's own cost, before its bytes leave
        outbuf.extend(slots[slot])
        _flush(conn, outbuf)
        launched += 1

    for s in range(min(tokens, int(min(limit, 1 << 62)))):
        launch(s)
    next_slot = 0
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ | selectors.EVENT_WRITE)
    while done < launched:
        data, at = _pump(conn, sel, outbuf, timeout=30)
        if data == b"":
            raise ConnectionError("server closed the connection early")
        if data:
            inbuf += data
            while len(inbuf) >= size:
                token = bytes(inbuf[:size])
                del inbuf[:size]
                slot = next_slot
                next_slot = (next_slot + 1) % tokens
                if token != slots[slot]:
                    bad = next(i for i in range(size) if token[i] != slots[slot][i])
                    raise Corrupted(f"token {done + 1} (slot {slot}) came back wrong at "
                                    f"byte {bad} of {size}")
                now = charge.message(since=at)   # the completed receive, from its arrival
                rtts.append(now - sent_at.pop(0))
                done += 1
                if launched < limit and now < deadline:
                    launch(slot, since=now)
    elapsed = time.perf_counter() - t0
    conn.close()
    return {**_summary(wall0, elapsed, size, tokens, rtts), **charge.record()}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["daemon"]:
        from forker import daemon      # beside this script
        return daemon(main)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="role", required=True)
    s = sub.add_parser("serve", help="echo tokens on one connection")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--corrupt-after", type=int, default=None,
                   help="testing only: flip a byte in every token after the Nth")
    s.add_argument("--udp", action="store_true", help="echo datagrams instead of a TCP stream")
    s.add_argument("--charge", help="ADDR,OVERHEAD,MESSAGE,DISK,PIECE,NS,LAT: the node's charge channel (charge.py)")
    c = sub.add_parser("client", help="send tokens and check what comes back")
    c.add_argument("--host", required=True)
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--size", type=int, required=True)
    c.add_argument("--tokens", type=int, default=1)
    c.add_argument("--wait-go", action="store_true",
                   help="print 'ready' once connected, start when a 'go' line arrives on stdin")
    c.add_argument("--udp", action="store_true", help="one datagram each way, 1 in flight")
    c.add_argument("--charge", help="ADDR,OVERHEAD,MESSAGE,DISK,PIECE,NS,LAT: the node's charge channel (charge.py)")
    g = c.add_mutually_exclusive_group(required=True)
    g.add_argument("--exchanges", type=int)
    g.add_argument("--duration", type=float)
    a = p.parse_args(argv)
    try:
        if a.role == "serve":
            return serve_udp(a.port) if a.udp else serve(a.port, a.corrupt_after, Charge(a.charge))
        if a.udp:
            print(json.dumps(client_udp(a.host, a.port, a.size, a.exchanges, a.duration, a.wait_go)))
            return 0
        print(json.dumps(client(a.host, a.port, a.size, a.tokens, a.exchanges, a.duration, a.wait_go,
                                Charge(a.charge))))
        return 0
    except Corrupted as e:
        print(json.dumps({"error": f"corrupted echo: {e}"}))
        return 3
    except ChargeError as e:
        print(json.dumps({"error": str(e)}))
        return 4
    except (OSError, ConnectionError) as e:
        print(json.dumps({"error": f"connection: {e}"}))
        return 4


if __name__ == "__main__":
    sys.exit(main())
