"""The agents' side of the charge channel (beowulf_netlab/workloads/charge.py), on the host's loopback: no
budget passes the datagrams here, so this checks the arithmetic (pieces, carry, totals)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "beowulf_netlab" / "workloads"))
from charge import Charge  # noqa: E402


def test_charge_pays_in_pieces_and_carries_what_is_under_one_datagram():
    c = Charge("127.0.0.99,405,1177.4,1.9573,4032,0.001,0")
    c.message()                              # 1177 bytes: one datagram, 0.4 carried
    assert c.channel.paid == 1177 and 0 <= c.channel.debt < 1
    c.channel.pay(100)                       # under one datagram's overhead: carried
    assert c.channel.paid == 1177 and 100 <= c.channel.debt < 101
    c.disk(65536)                            # 128 KB of budget: pieces of at most 4032
    assert c.channel.paid + c.channel.debt == pytest.approx(1177.4 + 100 + 65536 * 1.9573)
    assert c.channel.debt < 405 and c.channel.lost == 0
    rec = c.record()
    assert {k: rec[k] for k in ("charged_bytes", "charges_lost")} == {"charged_bytes": c.channel.paid, "charges_lost": 0}
    assert rec["charges_late_s"] >= 0


def test_write_behind_is_paid_by_a_thread_and_settled():
    c = Charge("127.0.0.99,405,0,2.0,4032,0.001,0")
    for _ in range(10):
        c.behind(65536)                      # 128 KB of budget each, paid by the writer
    c.settle()
    assert c._unpaid == 0 and c.writer.lost == 0
    assert c.writer.paid + c.writer.debt == pytest.approx(10 * 65536 * 2.0)
    assert c.record()["charged_bytes"] == c.writer.paid


def test_no_charge_spec_charges_nothing():
    c = Charge(None)
    c.message(5)
    c.disk(1 << 20)
    c.behind(1 << 20)
    c.settle()
    assert c.record() == {}


def test_the_payer_waits_a_datagrams_own_cost_less_the_netem_delay_it_waited():
    plain = Charge("127.0.0.99,405,0,2.0,4032,248,0").channel
    netem = Charge("127.0.0.99,405,0,2.0,4032,248,90").channel
    assert plain.own_time(4032) == pytest.approx(4032 * 248e-9)
    assert netem.own_time(4032) == pytest.approx(4032 * 248e-9 - 90e-6)
    assert netem.own_time(100) == 0.0          # a cost under the delay: nothing more to wait


def test_the_wait_is_shortened_by_the_trip_an_idle_budget_costs_this_host():
    """The datagram's trip (send, redirect, wake-up) is this host's time: the shortest of the
    probes' trips at start comes off each wait, at most FLOOR_CAP_S and at most the charge's own
    trip; the charges' own trips never move it (under steady charges each queues behind the last
    one's debt)."""
    import charge as C
    ch = Charge("127.0.0.99,405,1177.4,0,4032,248,0").channel
    assert 0 < ch.floor <= C.FLOOR_CAP_S and ch.lost == 0 and ch.paid == 0
    waits = []
    ch._wait = waits.append
    ch.floor = 12e-6
    ch.pay(1177.4)
    own = 1177 * 248e-9
    assert ch.floor == 12e-6                          # the charge's own trip did not move it
    # less the floor, or less the trip itself where it was quicker (loopback here: no budget)
    assert own - 12e-6 - 2e-3 < waits[0] <= own + 1e-6


def test_a_messages_work_counts_the_hosts_time_since_its_arrival_up_to_the_cap():
    """pay(since=): the host's own time between a message's arrival and its charge (its wake-up,
    the agent's code) is counted inside the work, at most AHEAD_CAP_S; the work never begins
    before the last work ended (one CPU); what it returns is the work's end in the model."""
    import time

    import charge as C
    ch = Charge("127.0.0.99,405,1177.4,0,4032,248,0").channel   # each wait a real 0.29 ms
    own = 1177 * 248e-9
    ch.floor = 0.0
    t = time.perf_counter()
    end = ch.pay(1177.4, since=t - 40e-6)             # arrived 40 us ago: counted inside
    assert t - 40e-6 + own - 1e-6 <= end <= time.perf_counter() + 1e-6
    t = time.perf_counter()
    end = ch.pay(1177.4, since=t - 5e-3)              # 5 ms ago: a late host; only the cap inside
    assert end >= t - C.AHEAD_CAP_S + own - 1e-6
    before = ch.ended
    end = ch.pay(1177.4, since=before - 1.0)          # before the last work ended: begins at its end
    assert end >= before + own - 1e-6


def test_a_stamped_receive_reads_when_the_kernel_had_the_bytes():
    """recv_stamped: the kernel's stamp on perf_counter's clock, never after the read; a socket
    without stamps reads as now."""
    import socket
    import time

    import charge as C
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.1", 0))
    C.stamp_arrivals(u)
    u.sendto(b"w", u.getsockname())   # the kernel turns its stamps on a moment after the first
    C.recv_stamped(u, 16)             # socket asks (a deferred static key): until then a read is
    time.sleep(0.05)                  # stamped when it reads, as recv_stamped's fallback
    sent = time.perf_counter()
    u.sendto(b"x", u.getsockname())
    time.sleep(0.02)
    data, at = C.recv_stamped(u, 16)
    assert data == b"x" and sent - 1e-3 <= at <= sent + 0.015     # stamped on arrival, not at the read
    a.send(b"y")
    data, at = C.recv_stamped(b, 16)                  # no stamp asked: now
    assert data == b"y" and abs(at - time.perf_counter()) < 0.01
    for s in (a, b, u):
        s.close()


class _FakeTime:
    """A virtual clock for charge.py's `time`: perf_counter (monotonic) and time_ns (real time,
    `offset_ns` ahead); `pause_before_real_ns` is added to the clock before each real-time read
    (the process preempted between two clock reads)."""

    def __init__(self, offset_ns: int = 1_700_000_000_000_000_000):
        self.ns = 10_000_000_000
        self.offset_ns = offset_ns
        self.pause_before_real_ns = 0

    def advance(self, seconds: float) -> None:
        self.ns += round(seconds * 1e9)

    def perf_counter(self) -> float:
        self.ns += 100                    # each read takes a moment: a spin reaches its end
        return self.ns / 1e9

    def perf_counter_ns(self) -> int:
        return self.ns

    def monotonic(self) -> float:
        return self.ns / 1e9

    def time_ns(self) -> int:
        self.ns += self.pause_before_real_ns
        return self.ns + self.offset_ns

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)


def _virtual_channel(monkeypatch, trip_s: float, latency_us: float = 0.0):
    """A charge channel on a virtual clock whose every datagram is back trip_s after it was sent
    (the probes at start included); its waits advance the clock."""
    import charge as C
    clock = _FakeTime()
    monkeypatch.setattr(C, "time", clock)

    def trip(self, payload):
        clock.advance(trip_s)
        return True
    monkeypatch.setattr(C._Channel, "_trip", trip)
    ch = Charge(f"127.0.0.99,405,1177.4,0,4032,248,{latency_us:g}").channel
    return C, clock, ch


def test_a_lone_message_never_ends_before_its_cost_when_its_trip_beats_the_floor(monkeypatch):
    """The floor (the start's quickest probe) comes off each wait, but never more than the
    charge's own trip took: a trip quicker than the probes' (warm caches) once ended a message
    that much before its cost (up to FLOOR_CAP_S a charge, three charges a token round trip)."""
    C, clock, ch = _virtual_channel(monkeypatch, trip_s=20e-6)
    assert ch.floor == pytest.approx(20e-6, abs=1e-6)
    own = 1177 * 248e-9
    for trip_s in (20e-6, 5e-6, 0.0):             # as quick as the probes, quicker, instant
        monkeypatch.setattr(C._Channel, "_trip", lambda self, payload, d=trip_s: clock.advance(d) or True)
        since = clock.perf_counter()
        end = ch.pay(1177.4, since=since)
        assert end >= since + own - 1e-9, trip_s   # never before its cost
        assert end <= since + own + 20e-6 + 1e-9   # and the floor still comes off a slow trip
        assert clock.perf_counter() >= end - 1e-9  # the payer waited until then


def test_a_netem_leafs_delay_is_not_taken_for_the_hosts_floor(monkeypatch):
    """On kernels with netem every probe waits the leaf's delay (LAT): the floor is the trips less
    LAT, not LAT itself (capped at FLOOR_CAP_S it once took 50 us off every charge there); a lone
    message still ends at its cost."""
    C, clock, ch = _virtual_channel(monkeypatch, trip_s=90e-6 + 12e-6, latency_us=90)
    assert ch.floor == pytest.approx(12e-6, abs=1e-6)
    since = clock.perf_counter()
    end = ch.pay(1177.4, since=since)
    assert since + 1177 * 248e-9 - 1e-9 <= end <= since + 1177 * 248e-9 + 1e-6


def test_a_stamp_is_never_read_early_when_the_reader_pauses_between_its_clocks(monkeypatch):
    """recv_stamped converts the kernel's real-time stamp to perf_counter's clock: a pause between
    the two clocks' reads (the process preempted) once made the stamp early by the pause, and the
    received message's cost that much shorter (up to AHEAD_CAP_S). Now it can only read late."""
    import socket
    import struct

    import charge as C
    clock = _FakeTime()
    monkeypatch.setattr(C, "time", clock)
    arrived_ns = clock.ns - 30_000                 # the kernel had the bytes 30 us ago
    stamp = arrived_ns + clock.offset_ns

    class Sock:
        def recvmsg(self, size, space):
            raw = struct.pack("qq", stamp // 1_000_000_000, stamp % 1_000_000_000)
            return b"x", [(socket.SOL_SOCKET, C.SO_TIMESTAMPNS, raw)], 0, None

    for pause_ns in (0, 300_000):                  # no pause; preempted 300 us before a real-time read
        clock.pause_before_real_ns = pause_ns
        _data, at = C.recv_stamped(Sock(), 16)
        assert at >= arrived_ns / 1e9 - 1e-9, pause_ns
    clock.pause_before_real_ns = 0
    _data, at = C.recv_stamped(Sock(), 16)
    assert at == pytest.approx(arrived_ns / 1e9, abs=1e-9)
