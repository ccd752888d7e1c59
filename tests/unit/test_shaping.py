"""Ethernet arithmetic and the tc/nft commands the wires and bonds are built from."""
from netlab import shaping
from netlab.bonding import kernel_bond_cmds, nft_bond_cmds


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
