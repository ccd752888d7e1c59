"""The network card's gap between frames (--tx-gap-us): its arithmetic, its tc argv, its record."""
import pytest

from beowulf_netlab.netlab.nic import gap_bytes, nic_gaps, tx_gap_cmds
from beowulf_netlab.run.sweep import Sweep, network_fields, network_key
from beowulf_netlab.topologies.presets import build_spec
from beowulf_netlab.topologies.spec import SpecError


def test_the_gap_is_bytes_at_the_wires_real_rate():
    assert gap_bytes(70, 100) == 875          # 70 us at 12.5 bytes/us
    assert gap_bytes(40, 10) == 50
    assert gap_bytes(0, 100) == 0


def test_the_nic_shaper_runs_at_the_wire_rate_and_adds_the_gap_per_frame():
    cmds = tx_gap_cmds("b0-eth0", 100, 875, 100)
    text = [" ".join(c) for c in cmds]
    root, cls, leaf = text
    # the wire's own per-frame bytes (preamble, FCS, inter-frame gap) on the root
    assert "root handle 1:" in root and "overhead 24" in root and "mpu 84" in root
    # the gap as HTB's per-class overhead, at exactly the wire's rate
    assert "rate 100000kbit ceil 100000kbit" in cls and cls.endswith("overhead 875")
    assert "pfifo limit 100" in leaf


def test_the_bucket_never_banks_a_gap():
    """After idle time one frame may leave at once, never a second without at least half its
    gap: HTB sends while its bucket is not negative, so the bucket holds at most half a gap."""
    for rate, gap_us in ((10, 40), (10, 615), (100, 40), (100, 70)):
        extra = gap_bytes(gap_us, rate)
        cls = tx_gap_cmds("b0-eth0", rate, extra, 100)[1]
        burst = int(cls[cls.index("burst") + 1])
        assert 1 <= burst <= extra / 2, (rate, gap_us, burst)   # half a gap: never a frame's worth
        assert int(cls[cls.index("cburst") + 1]) == burst


def test_each_nic_gets_its_wires_shaped_rate_and_the_gap_at_the_real_rate():
    bonded = build_spec("bonded-dual-net", nodes=4, rate_mbit=100, channels=2, tx_gap_us=70)
    node = bonded.nodes[0]
    assert nic_gaps(bonded, node) == [(100, 875), (100, 875)]       # one shaper per card
    slow = build_spec("bonded-dual-net", nodes=4, rate_mbit=100, channels=2, tx_gap_us=70, time_scale=4)
    # D = 4: shaped at 25 Mbit/s with the same 875 bytes, so the gap lasts 280 us of scaled time
    assert nic_gaps(slow, slow.nodes[0]) == [(25, 875), (25, 875)]
    assert nic_gaps(build_spec("single-net", nodes=4, rate_mbit=100), node) == []


def test_the_machine_records_the_gap_and_time_scaling_keeps_its_bytes():
    spec = build_spec("single-net", nodes=4, rate_mbit=100, hardware="demonstration-1996", tx_gap_us=70)
    assert spec.machine.tx_gap_us == 70
    assert any("70 us between the frames" in n for n in spec.notes)
    assert network_key(spec).endswith("+txgap70us")
    assert network_fields(spec)["tx_gap_us"] == 70
    slow = build_spec("single-net", nodes=4, rate_mbit=100, tx_gap_us=70, time_scale=4)
    assert slow.machine.tx_gap_us == 70 and slow.wires[0].rate_mbit == 100   # the spec keeps real time


def test_no_gap_is_recorded_nowhere():
    spec = build_spec("single-net", nodes=4, rate_mbit=100)
    assert spec.machine.tx_gap_us == 0 and network_fields(spec)["tx_gap_us"] == 0   # recorded as none
    assert "txgap" not in network_key(spec)


@pytest.mark.parametrize("opts, msg", [
    ({"tx_gap_us": -1}, "--tx-gap-us must be a time in 0..10000 us"),
    ({"tx_gap_us": 20000}, "--tx-gap-us must be a time in 0..10000 us"),
    ({"tx_gap_us": 1000, "rate_mbit": 1000}, "use at most 524 us"),
    ({"tx_gap_us": 40, "relay_delay_ms": 5, "topology": "routed-mesh"}, "use one of them"),
])
def test_bad_gaps_are_refused(opts, msg):
    topo = opts.pop("topology", "single-net")
    with pytest.raises(SpecError, match=msg):
        build_spec(topo, **opts)


def test_the_sweep_takes_the_gap_as_one_setting():
    sweep = Sweep.make("token", {"tx_gap_us": 40.0, "topology": ["single-net"], "rate_mbit": [100.0]})
    [spec] = list(sweep.specs())
    assert spec.machine.tx_gap_us == 40
    assert sweep.parameters()["tx_gap_us"] == 40
    # absent when 0, as the points record it: documents without a gap are unchanged
    assert "tx_gap_us" not in Sweep.make("token", {"topology": ["single-net"]}).parameters()
