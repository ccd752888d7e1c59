"""The CSMA/CD model's pure parts: the 16-collision drop and its nftables rules."""
import pytest


def test_a_frame_is_dropped_after_16_collisions_as_the_model_says():
    from beowulf_netlab.netlab.contention import drop_probability
    assert drop_probability(1) == 0.0                         # alone on the wire: never collides
    assert drop_probability(2) == pytest.approx(0.5 ** 16)    # 1.5e-5
    assert drop_probability(16) == pytest.approx((1 - (15 / 16) ** 15) ** 16)
    assert 4e-4 < drop_probability(16) < 6e-4
    assert drop_probability(4) < drop_probability(8) < drop_probability(16)


def test_drop_rules_name_each_wire_s_ports_and_count_per_wire():
    from beowulf_netlab.netlab.contention import drop_ruleset, parse_counters
    text = drop_ruleset("bnl0acollisions", {"w0": (["bnl0aw0p0", "bnl0aw0p1"], 340), "w1": (["x"], 0)},
                        create=True)
    assert "add table bridge bnl0acollisions" in text and "hook forward" in text
    assert 'iifname { "bnl0aw0p0", "bnl0aw0p1" } numgen random mod 1000000 < 340 counter name "w0" drop' in text
    assert "add counter bridge bnl0acollisions w1" in text and '"w1" drop' not in text   # 0 ppm: no rule
    assert text.index("flush chain") < text.index("add rule")    # refilled in one transaction
    listed = ("table bridge bnl0acollisions {\n\tcounter w0 {\n\t\tpackets 12 bytes 900\n\t}\n"
              "\tcounter w1 {\n\t\tpackets 0 bytes 0\n\t}\n}\n")
    assert parse_counters(listed) == {"w0": 12, "w1": 0}
