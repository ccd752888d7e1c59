"""The agents' side of the charge channel (workloads/charge.py), on the host's loopback: no
budget passes the datagrams here, so this checks the arithmetic (pieces, carry, totals)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "workloads"))
from charge import PIECE, Charge  # noqa: E402


def test_charge_pays_in_pieces_and_carries_what_is_under_one_datagram():
    c = Charge("127.0.0.99,405,1177.4,1.9573")
    c.message()                              # 1177 bytes: one datagram, 0.4 carried
    assert c.paid == 1177 and 0 <= c.debt < 1
    c.pay(100)                               # under one datagram's overhead: carried
    assert c.paid == 1177 and 100 <= c.debt < 101
    c.disk(65536)                            # 128 KB of budget: 8 pieces of at most PIECE
    assert c.paid + c.debt == pytest.approx(1177.4 + 100 + 65536 * 1.9573)   # nothing lost or added
    assert c.debt < 405 and c.lost == 0
    assert c.record() == {"charged_bytes": c.paid, "charges_lost": 0}
    assert PIECE >= 405


def test_no_charge_spec_charges_nothing():
    c = Charge(None)
    c.message(5)
    c.disk(1 << 20)
    assert c.paid == 0 and c.record() == {}


def test_write_behind_charges_are_collected_and_settled():
    c = Charge("127.0.0.99,405,0,2.0")
    for _ in range(10):
        c.disk(65536, behind=True)            # 128 KB of budget each: 8 datagrams
    assert c.outstanding <= 80
    c.settle()
    assert c.outstanding == 0 and c.lost == 0
    assert c.paid + c.debt == pytest.approx(10 * 65536 * 2.0)
