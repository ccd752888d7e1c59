"""Ethernet arithmetic and the tc/nft commands the wires and bonds are built from."""
import re
from pathlib import Path

import pytest

from beowulf_netlab.netlab import shaping
from beowulf_netlab.netlab.bond import kernel_bond_cmds, nft_bond_cmds
from beowulf_netlab.netlab.relay import relay_egress_cmds


def test_wire_bytes_adds_preamble_fcs_gap_and_pads():
    assert shaping.wire_bytes(1514) == 1538
    assert shaping.wire_bytes(42) == 84          # ARP: padded to 60 + 24


def test_goodput_limits():
    assert round(shaping.tcp_goodput_limit_mbit(10), 2) == 9.41
    assert round(shaping.tcp_goodput_limit_mbit(100), 1) == 94.1
    # ACKs share a half-duplex wire: one per segment costs about 5 %
    assert 8.8 < shaping.tcp_goodput_limit_mbit(10, acks_per_segment=1) < 8.95


def test_frame_time():
    assert abs(shaping.frame_time_s(1514, 10) - 1.2304e-3) < 1e-6


def test_a_lone_frame_is_delivered_at_its_last_bit_plus_the_path_not_after_its_gap():
    """The medium engine hands a frame to its receivers when its last bit arrives, the segment's
    path delay later (engine/src/model.rs sent()); the gap after it only holds the next carrier.
    A minimum frame at 10 Mbit/s: 72 B of carrier (57.6 us) + 1.14 us of cable + the hub's 1 us
    repeater = 59.74 us, not its 67.2 us wire time; at 100 Mbit/s the repeater is 46 bit times;
    a full-duplex port has none."""
    from beowulf_netlab.topologies import ethernet as E
    assert E.carrier_bytes(55) == 72 and E.carrier_bytes(1514) == 1526
    assert E.delivery_time_s(55, 10) * 1e6 == pytest.approx(59.74)
    assert E.frame_time_s(55, 10) * 1e6 == pytest.approx(67.2)
    assert E.delivery_time_s(55, 100) * 1e6 == pytest.approx(5.76 + 1.14 + 0.46)
    assert E.delivery_time_s(55, 10, full_duplex=True) * 1e6 == pytest.approx(57.6 + 1.14)
    # the constants are the engine's own
    model = (Path(__file__).resolve().parents[2] / "engine" / "src" / "model.rs").read_text()
    for name, value in (("REPEATER_BITS_10", E.REPEATER_BITS_10), ("REPEATER_BITS_100", E.REPEATER_BITS_100),
                        ("PREAMBLE", E.PREAMBLE_SFD), ("FCS", E.FCS), ("MIN_FRAME", E.MIN_FRAME)):
        assert re.search(rf"pub const {name}: u64 = {value};", model), name
    assert "rate_bps <= 10_000_000" in model   # REPEATER_BITS_10 up to 10 Mbit/s (path_ns)


def test_shared_wire_tree_has_a_leaf_per_station_and_a_default():
    cmds = shaping.shared_wire_cmds("ifb0", 10, ["02:00:00:00:00:01", "02:00:00:00:00:02"])
    text = [" ".join(c) for c in cmds]
    assert any("stab" in t and "overhead 24" in t and "mpu 84" in t for t in text)
    assert sum(" class add " in t for t in text) == 1 + 3
    assert sum("match ether src" in t for t in text) == 2
    assert any("rate 10000kbit ceil 10000kbit" in t for t in text)
    # a burst of about one frame: no banking idle time for free frames
    assert all(int(c[c.index("burst") + 1]) < 2000 for c in cmds if "burst" in c)


def test_redirect_uses_u32_match_all():
    cmds = shaping.redirect_ingress_cmds("p1", "ifb0")
    assert cmds[1][-6:] == ["action", "mirred", "egress", "redirect", "dev", "ifb0"]
    assert "u32" in cmds[1] and "matchall" not in cmds[1]


def test_kernel_bond_is_balance_rr():
    cmds = kernel_bond_cmds("b0-bond0", ["b0-eth0", "b0-eth1"], "10.0.0.1/16")
    assert cmds[0][:7] == ["ip", "link", "add", "b0-bond0", "type", "bond", "mode"]
    assert "balance-rr" in cmds[0]
    assert ["ip", "link", "set", "b0-eth1", "master", "b0-bond0"] in cmds


def test_nft_bond_round_robins_over_k_nics():
    cmds, nft = nft_bond_cmds(["e0", "e1", "e2"], "10.0.0.1", "10.0.0.0/16")
    assert "numgen inc mod 3 offset 1" in nft and "type route hook output" in nft
    rules = [c for c in cmds if c[:3] == ["ip", "rule", "add"]]
    assert [r[4] for r in rules] == ["1", "2", "3"]


def test_impaired_leaves_are_netem_with_the_queue_limit():
    from beowulf_netlab.topologies.spec import Impairment
    imp = Impairment(delay_ms=5, jitter_ms=1.5, loss_pct=0.5)
    cmds = shaping.shared_wire_cmds("ifb0", 10, ["02:00:00:00:00:01"], 50, imp)
    leaves = [c for c in cmds if c[:3] == ["tc", "qdisc", "add"]]
    assert len(leaves) == 2
    for c in leaves:
        assert c[c.index("netem"):] == ["netem", "limit", "50", "delay", "5000us", "1500us",
                                        "loss", "0.5%"]
    plain = shaping.shared_wire_cmds("ifb0", 10, ["02:00:00:00:00:01"], 50, Impairment())
    assert not any("netem" in c for c in plain)


def test_relay_egress_delays_only_what_it_forwards():
    cmds = relay_egress_cmds("b5-eth0", "10.0.0.6", 2.5)
    text = [" ".join(c) for c in cmds]
    assert any("match ip src 10.0.0.6/32 flowid 1:10" in t for t in text)
    assert any("prio 2 u32 match u32 0 0 flowid 1:20" in t for t in text)
    assert any("parent 1:20" in t and "netem limit 100 delay 2500us" in t for t in text)
    assert any("parent 1:10" in t and "pfifo" in t for t in text)
    # unclassified frames (ARP) take the undelayed class
    assert "default" in cmds[0] and cmds[0][cmds[0].index("default") + 1] == "10"
