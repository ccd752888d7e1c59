"""The I/O bus each 1996 profile declares (hardware/*.json `bus`): the arithmetic its `why` rests on,
read from the profile itself, so a changed constant that breaks the argument fails here."""
from __future__ import annotations

import pytest

from beowulf_netlab.netlab.disk_profiles import transfer_cost
from beowulf_netlab.topologies.hardware import load, profile_names

CHANNELS = 2            # the papers' bonded nodes: two cards each (IPPS'96, HPDC'96)
FULL_FRAME_WIRE_B = 1538   # a full frame on the wire: preamble, 1514 B, FCS, inter-frame gap
FULL_FRAME_B = 1514


def with_bus() -> list[str]:
    return [n for n in profile_names() if load(n).data.get("bus")]


def test_both_1996_profiles_declare_their_bus():
    assert {"prototype-1995", "demonstration-1996"} <= set(with_bus())


@pytest.mark.parametrize("name", with_bus())
def test_the_bus_is_held_as_its_profile_says(name):
    prof = load(name)
    bus, hc = prof.data["bus"], prof.data["host_cost"]
    ns_per_byte = 1e3 / bus["rate_mbyte_s"]
    if bus["model"] == "cpu":
        # every transfer on it is the CPU's, charged at least the bus's own time per byte
        assert hc["nic_per_byte_ns"] >= 0.99 * ns_per_byte
        _, pio = transfer_cost(prof, "pio")
        assert pio - hc["per_byte_ns"] >= ns_per_byte
    else:
        rate_mbyte = prof.rate_mbit / 8
        media = float(prof.disk["transfer"]["media_mbyte_s"])
        share = (CHANNELS * rate_mbyte + media) / bus["rate_mbyte_s"]
        assert share <= bus["max_share"]
        # one other master's burst, against a full frame's time on the wire
        burst_us = FULL_FRAME_B * ns_per_byte / 1e3
        frame_us = FULL_FRAME_WIRE_B * 8 / prof.rate_mbit
        assert burst_us / frame_us < 0.10
        assert burst_us < prof.card.tx_gap_us   # the gap's headline covers a whole burst
