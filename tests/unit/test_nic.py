"""The network card's gap between frames (--tx-gap-us): its arithmetic, its tc argv, its record."""
import pytest

from netlab.nic import gap_bytes, tx_gap_cmds
from pipeline.runner import network_key
from pipeline.sweep import Sweep, network_fields
from topologies.presets import build_spec
from topologies.spec import SpecError


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


def test_a_full_frame_and_its_gap_take_frame_plus_gap_time():
    # what the shaper charges a 1514-byte frame: (1514 + 24 + 875) bytes at 12.5 bytes/us
    assert abs((1514 + 24 + gap_bytes(70, 100)) / 12.5 - (123.04 + 70)) < 0.1


def test_the_machine_records_the_gap_and_time_scaling_keeps_its_bytes():
    spec = build_spec("single-net", nodes=4, rate_mbit=100, hardware="demonstration-1996", tx_gap_us=70)
    assert spec.machine.tx_gap_us == 70
    assert any("70 us between the frames" in n for n in spec.notes)
    assert network_key(spec).endswith("+txgap70us")
    assert network_fields(spec)["tx_gap_us"] == 70
    slow = build_spec("single-net", nodes=4, rate_mbit=100, tx_gap_us=70, time_scale=4)
    # the machine keeps real time; netlab.topo shapes at 25 Mbit/s with the same 875 bytes (280 us)
    assert slow.machine.tx_gap_us == 70 and slow.wires[0].rate_mbit == 25
    assert gap_bytes(slow.machine.tx_gap_us, slow.wires[0].rate_mbit * slow.machine.time_scale) == 875


def test_no_gap_is_recorded_nowhere():
    spec = build_spec("single-net", nodes=4, rate_mbit=100)
    assert spec.machine.tx_gap_us == 0 and "tx_gap_us" not in network_fields(spec)
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
