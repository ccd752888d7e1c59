"""The card's receive ring each 1996 profile declares (hardware/*.json card.rx_ring), not emulated:
the arithmetic its `why` rests on, read from the profile itself at both ends of the ring and of
the interrupt's share of a received frame's cost, so a changed constant that breaks the argument
fails here (as tests/unit/test_bus.py does for the bus)."""
from __future__ import annotations

import math

import pytest

from beowulf_netlab.netlab.disk_profiles import transfer_cost
from beowulf_netlab.topologies.hardware import Profile, load, profile_names

FULL_FRAME_B = 1514        # as the host sees it
FULL_FRAME_WIRE_B = 1538   # on the wire: preamble, FCS, inter-frame gap
SEGMENT_B = 1448           # a full TCP segment's payload (no options: the 1996 profiles' TCP)
SECTOR_B = 512             # one IDE sector: multcount 0, one interrupt per sector, interrupts masked


def with_ring() -> list[str]:
    return [n for n in profile_names() if (load(n).data.get("card") or {}).get("rx_ring")]


def peak_waiting(every_us: float, frames: int, held_off_us: float, service_us: float) -> int:
    """Frames waiting in the rings at once (arrived, service not ended) when `frames` arrive one
    every `every_us` and the CPU, held off for `held_off_us` from the first, serves them in order."""
    free, ends = held_off_us, []
    for k in range(frames):
        free = max(k * every_us, free) + service_us
        ends.append(free)
    return max(sum(1 for j in range(k + 1) if ends[j] > k * every_us) for k in range(frames))


def ring_case(prof: Profile, channels: int, upper: bool) -> int:
    """Frames one card holds at the peak of one TCP window arriving back to back (on `channels`
    cards in turn), the CPU held off for one IDE sector's PIO and one frame's service; the
    interrupt serves a frame in its copy-out alone (a bus master's memcpy, or an ISA card's PIO)
    or, `upper`, in the whole per-packet cost of a received frame."""
    hc = prof.data["host_cost"]
    copy_ns = hc["nic_per_byte_ns"] or hc["per_byte_ns"]
    service = (hc["per_packet_us"] + FULL_FRAME_B * (hc["per_byte_ns"] + hc["nic_per_byte_ns"]) / 1e3 if upper
               else FULL_FRAME_B * copy_ns / 1e3)
    _, pio = transfer_cost(prof, "pio")
    sector = SECTOR_B * (pio - hc["per_byte_ns"]) / 1e3
    window = math.ceil(prof.tcp.window_clamp_bytes / SEGMENT_B)
    frame_us = FULL_FRAME_WIRE_B * 8 / prof.rate_mbit
    return math.ceil(peak_waiting(frame_us / channels, window, sector + service, service) / channels)


def test_both_1996_profiles_declare_their_ring():
    assert {"prototype-1995", "demonstration-1996"} <= set(with_ring())


@pytest.mark.parametrize("name", with_ring())
def test_the_ring_is_what_its_profile_says(name):
    prof = load(name)
    ring = prof.data["card"]["rx_ring"]
    assert ring["frames_low"] <= ring["frames_high"]
    cases = {(ch, up): ring_case(prof, ch, up) for ch in (1, 2) for up in (False, True)}
    if name == "prototype-1995":
        # at most 1 frame waits, bonded or not: never an overrun, even on an 8 KB card's 3
        assert max(cases.values()) == 1 < ring["frames_low"]
    else:
        # one flow's window: 3 waiting at the copy-out alone, 4 (the whole ring) at the upper end
        assert cases == {(1, False): 3, (1, True): 4, (2, False): 3, (2, True): 4}
        assert ring["frames_low"] == ring["frames_high"] == 4
    why = ring["why"]
    assert "tests/unit/test_receive_ring.py" in why and "not emulated" in why


def test_a_card_held_off_longer_than_its_ring_would_overrun():
    """The arithmetic can fail: frames every 123 us, held off 600 us, served in 100 us each."""
    assert peak_waiting(123, 10, 600, 100) == 6     # 5 before it serves, the 6th before the first is done
    assert peak_waiting(1230, 10, 700, 465) == 1
