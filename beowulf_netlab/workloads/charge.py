"""An agent's side of the charge channel (beowulf_netlab/netlab/hostcost.py): pay CPU work that is not a packet.

Division of labor: netlab.hostcost routes loopback datagrams to CHARGE_ADDR through the
node's CPU budget and says what one costs (`--charge ADDR,OVERHEAD,MESSAGE,DISK,PIECE,NS,LAT`:
budget bytes, the budget's real ns per byte, its netem delay per packet in us); this module,
imported by the agents beside it (stdlib only: it runs under the namespaces'
/usr/bin/python3), turns a cost into datagrams, sends them to itself and waits until each
is back, so the agent's work waits its turn on the node's CPU and the node's packets wait
behind it.
- message(): one TCP send or one completed receive (Linux 1.x TCP's cost beyond UDP);
- disk(n): n bytes the CPU moved to or from the disk for the process (a read's PIO and
  buffer copy), paid before the process goes on;
- behind(n): n bytes written back by the kernel while the process goes on (1.x's buffer
  cache and bdflush): a thread of the agent pays them on a socket of its own, and the
  process waits only when more than BEHIND_LIMIT bytes are still unpaid (the dirty
  buffers' limit); settle() waits for all of them (the copy's fsync).
Each datagram carries at most PIECE bytes (about 1 ms of the CPU), one at a time per
channel (the process's, and the write-back thread's), so a packet waits at most a piece
of each behind disk work (1.x served interrupts between sectors, 0.2-0.25 ms each under
PIO; a finer piece would cost the emulator's own CPU). A cost smaller than one datagram's
overhead is carried to the next.
HTB charges a packet after sending it: a datagram comes back once its turn has come
(the work queued before it), and its own cost then delays what is queued behind it. So
the payer also waits the datagram's cost after it is back, in which the budget works off
that debt: the work takes its turn, then its time. The trip itself (send, the redirect,
the wake-up: 10-30 us on the 2-core host, against 219-292 us of a 1996 message) is this
host's time, not the modelled CPU's: the wait is shortened by the floor a trip through an
idle budget costs, so a lone message takes its modelled time and a queued one its turn as
well (on the host's loopback a 219 us charge took 245 us without it, 231 with it). The floor
is measured once, by PROBES sent at start through the idle budget, never from the charges'
own trips: under steady disk charges each trip queues behind the last one's debt, so a floor
taken from them would grow, shorten each wait, and make the next datagram queue longer still.
But no wait is shortened by more than its own trip took (less the netem delay below): a trip
quicker than the start's probes would otherwise end a message before its cost, so a work paid
`since` a moment ends no earlier than that moment plus its cost.
On kernels with netem the budget
also delays every datagram by the per-packet latency (LAT), which the payer counts as
part of that time (else each piece would leave the CPU idle that long). The budget banks
up to one packet's cost while idle (beowulf_netlab/netlab/hostcost.py burst_bytes), so after idle time
the packets behind a charge may wait up to that credit less than its cost; the payer
never does.
The wait itself is never shorter than the cost: it sleeps until a margin before its end
(the sleeps' recent lateness, with timer slack asked down to 1 ns) and spins the rest, and
what it still overshoots comes off the next piece of the same work only (a long disk
transfer keeps its rate), never off the next message: an earlier version carried every
overshoot forward, so a lone round trip could come in far under its model (1.19 ms against
the prototype's 1.70) while the median held.
A message's work begins when the message arrived, not when this host woke its process: the
token agents ask the kernel to stamp what their sockets receive (recv_stamped) and pay each
message's cost `since` that stamp (a send's, since the work before it ended), so the host's
wake-up and the agent's own code between the two (12-60 us here, p2-p90 of 2,400 messages)
are counted inside the modelled cost, not added to it: a 1996 round trip then reads its model's
time on a quiet or a busy host. A prototype pair's 1 KB round trips (model 5.069 ms then, the
frames' wire times with their gaps; 5.054 with their delivery times, 0.3 % less) read
+1.3..+1.5 % over the model on a quiet host before, +2.6..+4.2 % with both cores kept busy by
other processes (CI's busy host: +7 %); with it, +0.3..+0.5 % quiet and +0.6..+1.7 % busy
(2026-11-29, three networks each). At most AHEAD_CAP_S is counted so: a stamp can be early (in about 2
% of the messages it read 150-500 us before the engine could have released the frame, and
the round trips' minimum fell 5-9 % under the model with no cap), and a longer gap is a late
host, whose time is added, as before.
"""
from __future__ import annotations

import ctypes
import select
import socket
import struct
import threading
import time

BEHIND_LIMIT = 1 << 20  # disk bytes written but not yet paid before the process waits (1.x
                        # woke bdflush and waited once a share of its few MB of buffers was dirty)
LOST_AFTER_S = 5.0      # a datagram not back by then was dropped by a full budget queue
SEQ_BYTES = 8           # each datagram opens with its number
PROBES = 8              # trips through the idle budget at start: the floor is their shortest
FLOOR_CAP_S = 50e-6     # never more: a longer "floor" is queueing behind other work, not the host
PR_SET_TIMERSLACK = 29  # prctl(2): a sleep may end this many ns late (Linux's default: 50 us)
EARLY_CAP_S = 100e-6    # a wait wakes at most this long before its end and spins the rest
EARLY_WEIGHT = 0.2      # each sleep's lateness moves the wake-up margin by this share


AHEAD_CAP_S = 100e-6    # at most this of the host's own time is counted inside a message's work
                        # (module doc: the agent's usual 12-60 us, not a stamp's rare 150-500 us)
SO_TIMESTAMPNS = 35     # socket(7): the kernel stamps what it receives (also the cmsg's type)
STAMP_SPACE = 64        # ancillary bytes for one stamp
CLOCK_BRACKET_NS = 20_000   # a stamp's clock conversion read in a longer bracket was interrupted: read again
CLOCK_READS = 3             # at most this many reads (any of them errs late, never early)


def stamp_arrivals(sock: socket.socket) -> None:
    """Ask the kernel to stamp what sock receives (recv_stamped reads it): a message's work
    begins in the model when it arrived, not when this host woke its process. Best effort."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    except OSError:
        pass


def recv_stamped(sock: socket.socket, size: int) -> tuple[bytes, float]:
    """Up to size bytes from sock, and when the kernel received the last of them on
    perf_counter's clock (Linux: CLOCK_MONOTONIC; the stamp is real time), or now where it gave
    no stamp. Raises BlockingIOError as recv does."""
    data, anc, _flags, _addr = sock.recvmsg(size, STAMP_SPACE)
    now = time.perf_counter()
    for level, kind, raw in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(raw) >= 16:
            sec, nsec = struct.unpack("qq", raw[:16])
            return data, min(now, (sec * 1_000_000_000 + nsec + _real_to_perf_ns()) / 1e9)
    return data, now


def _real_to_perf_ns() -> int:
    """perf_counter_ns minus time_ns, never less than it is: the real-time clock is read first and
    perf_counter after it, so a pause between the two reads (this process preempted) makes a
    stamp read late, never early (an earlier version read perf_counter first: a pause there made
    the stamp early by the pause, and the message's cost that much shorter, up to AHEAD_CAP_S).
    A read whose bracket exceeds CLOCK_BRACKET_NS is taken again (at most CLOCK_READS times)."""
    best = None
    for _ in range(CLOCK_READS):
        p0 = time.perf_counter_ns()
        r = time.time_ns()
        p1 = time.perf_counter_ns()
        if best is None or p1 - p0 < best[0]:
            best = (p1 - p0, p1 - r)
        if p1 - p0 <= CLOCK_BRACKET_NS:
            break
    return best[1]


def _tight_sleeps() -> None:
    """Ask the kernel to end this thread's sleeps within 1 ns of their time, not the default
    50 us of timer slack (a 1996 message costs 219-292 us: the slack alone was a fifth of it).
    Best effort: without prctl the sleeps are only later."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class ChargeError(OSError):
    """The charge channel failed (the agent reports it as its error)."""


class _Channel:
    """One socket on the charge channel: sends a cost as datagrams, one at a time, each
    numbered so that one back after its time-out is never taken for a later one."""

    def __init__(self, addr: str, overhead: int, piece: int, ns_per_byte: float, latency_us: float):
        self.overhead, self.piece, self.ns_per_byte, self.latency_s = overhead, piece, ns_per_byte, latency_us / 1e6
        self.debt = 0.0
        self.paid = self.lost = 0
        self.seq = 0
        self.late = 0.0        # seconds the last wait overshot, taken off the next (within one pay)
        self.overslept = 0.0   # seconds every wait overshot its end: the host's lateness, not the model's
        self.early = 20e-6     # how long before a wait's end it wakes to spin (its sleeps' lateness)
        self.ended = 0.0       # when the last work paid ended (pay's since begins no earlier)
        _tight_sleeps()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((addr, 0))
        self.sock.connect(self.sock.getsockname())
        trips = []
        for _ in range(PROBES):   # a lost probe (a full budget queue) ends them: no floor then
            t0 = time.perf_counter()
            if not self._trip(SEQ_BYTES):
                trips = []
                break
            trips.append(time.perf_counter() - t0)
        self.lost = 0              # a probe lost at start is not a charge lost
        # seconds of a trip through the idle budget: this host's, to come off each wait; a netem
        # leaf's delay (latency_s) is the budget's, not the host's (own_time takes it off already)
        self.floor = min(max(0.0, min(trips, default=0.0) - self.latency_s), FLOOR_CAP_S)

    def _trip(self, payload: int) -> bool:
        """One datagram of payload bytes sent and waited for; False if it never came back."""
        self.seq += 1
        self.sock.send(self.seq.to_bytes(SEQ_BYTES, "big") + bytes(payload - SEQ_BYTES))
        return self._back(self.seq)

    def own_time(self, budget_bytes: int) -> float:
        """Seconds a datagram's own cost takes once it is back, less the netem delay it waited."""
        return max(0.0, budget_bytes * self.ns_per_byte / 1e9 - self.latency_s)

    def pay(self, budget_bytes: float, since: float | None = None) -> float:
        """Pay one piece of work: it takes its turn, then its time; returns when it ended. A
        sleep's overshoot is carried only to the next piece of the same work (a disk transfer
        keeps its rate), never to the next work: a lone message is never shorter than its cost.
        since: when the work began in the model (perf_counter; a received message's kernel
        stamp): the host's own time from then to the charge's send (its wake-up, the agent's
        code) is counted inside the work's time, not added to it (module doc)."""
        self.late = 0.0
        self.debt += budget_bytes
        end = time.perf_counter()
        if since is not None:
            since = max(since, self.ended)     # one CPU: work begins once the last work ended
        while self.debt >= self.overhead:
            payload = max(SEQ_BYTES, int(min(self.debt, self.piece)) - self.overhead)
            sent = time.perf_counter()
            ahead = min(max(0.0, sent - since), AHEAD_CAP_S) if since is not None else 0.0
            since = None                   # the first piece only: the rest follow it at once
            self._trip(payload)
            back = time.perf_counter()
            self.debt -= payload + self.overhead
            self.paid += payload + self.overhead
            # never more off than this trip's own host time: a trip quicker than the start's
            # probes (warm caches) would otherwise end the work before its cost (module doc)
            floor = min(self.floor, max(0.0, back - sent - self.latency_s))
            end = back - floor - ahead + self.own_time(payload + self.overhead)
            now = time.perf_counter()
            self._wait(max(0.0, end - now))
            end = max(end, now)            # a host already past the work's end: now, never earlier
        self.ended = end
        return end

    def _back(self, seq: int) -> bool:
        """Wait for datagram seq (older ones, back after their time-out, are dropped); False
        (and counted lost) if it is not back in LOST_AFTER_S."""
        deadline = time.monotonic() + LOST_AFTER_S
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                self.lost += 1
                return False
            if int.from_bytes(self.sock.recv(self.piece)[:SEQ_BYTES], "big") == seq:
                return True

    def _wait(self, seconds: float) -> None:
        """Wait the datagram's own time, never less: sleep until `early` before the end (the
        sleeps' recent lateness, a moving mean), then spin to it, so a lone message ends at its
        cost plus at most a sleep's unusual lateness, not the usual one. What a wait still
        overshoots comes off the next piece of the same work (pay), so a long transfer keeps its
        rate."""
        want = seconds - self.late
        if want <= 0:
            self.late = min(-want, seconds)
            return
        t0 = time.perf_counter()
        end = t0 + want
        nap = want - self.early
        if nap > 0:
            time.sleep(nap)
            over = time.perf_counter() - t0 - nap
            self.early = min(EARLY_CAP_S, (1 - EARLY_WEIGHT) * self.early + EARLY_WEIGHT * max(0.0, over))
        while time.perf_counter() < end:
            pass
        over = max(0.0, time.perf_counter() - end)
        self.overslept += over
        self.late = min(over, seconds)


class Charge:
    def __init__(self, spec: str | None):
        self.channel: _Channel | None = None
        self.writer: _Channel | None = None
        self.message_bytes = self.disk_per_byte = 0.0
        self._thread: threading.Thread | None = None
        self._failed: BaseException | None = None
        if not spec:
            return
        try:
            addr, overhead, message, disk, piece, ns, lat = spec.split(",")
            self.message_bytes, self.disk_per_byte = float(message), float(disk)
            self._spec = (addr, int(overhead), int(piece), float(ns), float(lat))
        except ValueError:
            raise ChargeError(f"--charge {spec!r}: want ADDR,OVERHEAD,MESSAGE,DISK,PIECE,NS,LAT") from None
        self.channel = _Channel(*self._spec)
        self._unpaid = 0            # bytes written behind and not yet paid
        self._cv = threading.Condition()

    def message(self, count: int = 1, since: float | None = None) -> float:
        """count TCP sends or completed receives, begun at `since` (pay); when they ended in the
        model (now, without a charge channel)."""
        if self.channel and self.message_bytes:
            return self.channel.pay(count * self.message_bytes, since)
        return time.perf_counter()

    def disk(self, nbytes: int) -> None:
        """nbytes moved between the disk and memory for the process, which waits for it."""
        if self.channel and self.disk_per_byte:
            self.channel.pay(nbytes * self.disk_per_byte)

    def behind(self, nbytes: int) -> None:
        """nbytes written back by the kernel while the process goes on (module doc)."""
        if not (self.channel and self.disk_per_byte):
            return
        if self._thread is None:
            self.writer = _Channel(*self._spec)
            self._thread = threading.Thread(target=self._write_back, daemon=True)
            self._thread.start()
        with self._cv:
            self._unpaid += nbytes
            self._cv.notify_all()
            self._cv.wait_for(lambda: self._unpaid <= BEHIND_LIMIT or self._failed)
        self._raise()

    def settle(self) -> None:
        """Wait until everything written behind has been paid."""
        if self._thread is not None:
            with self._cv:
                self._cv.wait_for(lambda: self._unpaid == 0 or self._failed)
            self._raise()

    def _raise(self) -> None:
        if self._failed is not None:
            raise ChargeError(f"charge channel: {self._failed}")

    def _write_back(self) -> None:
        try:
            while True:
                with self._cv:
                    self._cv.wait_for(lambda: self._unpaid > 0)
                    n = min(self._unpaid, max(1, int(self.writer.piece / self.disk_per_byte)))
                self.writer.pay(n * self.disk_per_byte)
                with self._cv:
                    self._unpaid -= n
                    self._cv.notify_all()
        except BaseException as e:      # the process must not wait for a thread that is gone
            with self._cv:
                self._failed = e
                self._cv.notify_all()

    def record(self) -> dict:
        """What the agent reports: budget bytes paid, datagrams lost, and the seconds its waits
        ended past their time (recorded, not gated: with work queued the budget's HTB, not the
        wait, holds the CPU's time, so 64 B tokens four in flight on the demonstration profile
        read the same with 3 % and with 8 % of their time overslept)."""
        if not self.channel:
            return {}
        chans = [c for c in (self.channel, self.writer) if c]
        return {"charged_bytes": sum(c.paid for c in chans), "charges_lost": sum(c.lost for c in chans),
                "charges_late_s": round(sum(c.overslept for c in chans), 6)}
