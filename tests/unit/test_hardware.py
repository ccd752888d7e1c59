"""Hardware profiles, the host-cost argv and the contention model: pure logic, no root."""
import json

import pytest

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.netlab.contention import acquisition, efficiency, parse_leaves, wait_slots
from beowulf_netlab.netlab.disk_profiles import PROFILES, for_hardware
from beowulf_netlab.netlab.hostcost import CHARGE_ADDR, IFB, charge_arg, cpu_cmds
from beowulf_netlab.topologies import hardware
from beowulf_netlab.topologies.presets import build_spec

jsonschema = pytest.importorskip("jsonschema")


def test_schema_file_is_current():
    assert json.loads(hardware.SCHEMA_FILE.read_text()) == hardware.SCHEMA, \
        "beowulf_netlab/hardware/schema.json is stale: run python3 -m beowulf_netlab.topologies.hardware"


def test_every_profile_loads_and_states_its_sources():
    names = hardware.profile_names()
    assert names[0] == "none" and {"prototype-1995", "demonstration-1996"} <= set(names)
    for name in names:
        prof = hardware.load(name)
        if prof.host_cost:
            data = prof.data["host_cost"]
            assert data["per_packet_source"] and data["per_byte_source"] and data["influences"]
        if prof.disk:
            assert prof.disk["derivation"] and prof.disk["sources"]


def test_prototype_disk_is_the_demonstration_disk_over_1_62():
    proto = hardware.load("prototype-1995").disk
    demo = hardware.load("demonstration-1996").disk
    assert demo["read_mbyte_s"] == pytest.approx(11.7 / 7, abs=0.01)
    assert proto["read_mbyte_s"] == pytest.approx(11.7 / 1.62 / 7, abs=0.01)
    dma = for_hardware("hardware", hardware.load("demonstration-1996"), transfer="dma")
    assert dma.read_mbyte_s == pytest.approx(11.7 / 7, abs=0.01) and dma.transfer == "dma"
    # none keeps today's default disk, so every earlier file-copy result is unchanged
    assert for_hardware("hardware", hardware.load("none")) == PROFILES["ide-1995"]
    assert for_hardware("2/3", hardware.load("prototype-1995")).write_mbyte_s == 3


def test_host_cost_arithmetic():
    cost = hardware.HostCost(per_packet_us=90, per_byte_ns=59)
    assert cost.budget_mbit == pytest.approx(8e3 / 59)
    assert cost.packet_bytes == round(90e3 / 59)
    # what the kernel charges (packet_bytes + L at budget_mbit) is the profile's time
    charged_us = (cost.packet_bytes + 1514) * 8 / cost.budget_mbit
    assert charged_us == pytest.approx(cost.packet_time_us(1514), rel=1e-3)


def test_cpu_cmds_redirect_both_directions_of_every_nic_to_one_budget():
    cost = hardware.load("prototype-1995").host_cost
    cmds = cpu_cmds(["b0-eth0", "b0-eth1"], cost, netem=False)
    redirects = [c for c in cmds if "mirred" in c]
    assert sorted((c[4], c[5]) for c in redirects) == [("b0-eth0", "egress"), ("b0-eth0", "ingress"),
                                                      ("b0-eth1", "egress"), ("b0-eth1", "ingress"),
                                                      ("lo", "egress")]
    # loopback passes the budget only for the charge channel's datagrams
    lo = next(c for c in redirects if c[4] == "lo")
    assert lo[lo.index("dst") + 1] == f"{CHARGE_ADDR}/32"
    assert all(c[-1] == IFB for c in redirects)
    assert sum(1 for c in cmds if c[:3] == ["ip", "link", "add"]) == 1
    root = next(c for c in cmds if "root" in c)
    assert root[root.index("overhead") + 1] == str(cost.packet_bytes)
    assert not any("netem" in c for c in cmds)
    assert any("netem" in c for c in cpu_cmds(["b0-eth0"], cost, netem=True))


def test_build_spec_gives_every_node_the_profiles_cost():
    spec = build_spec("routed-mesh", nodes=16, rate_mbit=10, hardware="prototype-1995")
    assert spec.machine.hardware == "prototype-1995"
    assert all(n.host_cost == hardware.load("prototype-1995").host_cost for n in spec.nodes)
    plain = build_spec("routed-mesh", nodes=16, rate_mbit=10)
    assert plain.machine.hardware == "none" and all(n.host_cost is None for n in plain.nodes)
    # collisions are the medium's: today's hosts' hubs collide too, unless --contention off
    assert all(w.contention == (not w.full_duplex) for w in plain.wires)
    assert not any(w.contention for w in build_spec("single-net", contention="off").wires)
    assert all(w.contention for w in build_spec("single-net", contention="on").wires)


def test_the_machine_is_resolved_once_into_the_spec():
    """Hardware, contention (and the profile's default) and D live in spec.machine, typed,
    and nowhere else in the spec: every reader goes through hardware_of / time_scale_of."""
    from beowulf_netlab.topologies.timescale import time_scale_of
    spec = build_spec("bonded-dual-net", rate_mbit=10, hardware="era", contention="off", time_scale=4)
    m = spec.machine
    assert (m.hardware, m.contention, m.contention_default, m.time_scale) == ("prototype-1995", False, True, 4.0)
    assert hardware.hardware_of(spec) == "prototype-1995" and time_scale_of(spec) == 4.0
    assert not {"hardware", "contention", "contention_default", "time_scale"} & set(spec.params)
    assert spec.params["rate_mbit"] == 10 and all(w.rate_mbit == 10 for w in spec.wires)   # real: D in the machine
    auto = build_spec("single-net", rate_mbit=10, hardware="prototype-1995").machine
    assert auto.contention and auto.contention_default
    assert hardware.hardware_of({"hardware": "pc-2001"}) == "pc-2001" and hardware.hardware_of({}) == "none"


def test_era_picks_the_profile_built_for_the_rate():
    assert build_spec("single-net", rate_mbit=10, hardware="era").machine.hardware == "prototype-1995"
    assert build_spec("single-net", rate_mbit=100, hardware="era").machine.hardware == "demonstration-1996"
    assert build_spec("switched-cluster", nodes=4, hardware="era").machine.hardware == "pc-2001"
    with pytest.raises(BadInput, match="no profile was built for 50"):
        build_spec("single-net", rate_mbit=50, hardware="era")
    with pytest.raises(BadInput, match="unknown hardware profile"):
        hardware.load("pentium-pro")


def test_a_profile_file_is_checked(tmp_path, monkeypatch):
    bad = {"name": "x", "description": "d", "machine": {"cpu": "c", "os": "o"}, "disk": None,
           "host_cost": {"per_packet_us": -1, "per_byte_ns": 1, "per_packet_source": "s",
                         "per_byte_source": "s", "calibration": None, "influences": []},
           "tcp": hardware.load("none").data["tcp"]}
    (tmp_path / "x.json").write_text(json.dumps(bad))
    (tmp_path / "y.json").write_text("{")
    monkeypatch.setattr(hardware, "HARDWARE_DIR", tmp_path)
    hardware.load.cache_clear()
    try:
        with pytest.raises(BadInput, match="host_cost"):
            hardware.load("x")
        with pytest.raises(BadInput, match="not valid JSON"):
            hardware.load("y")
        (tmp_path / "x.json").write_text(json.dumps({**bad, "host_cost": None, "tcp": {}}))
        hardware.load.cache_clear()
        with pytest.raises(BadInput, match="congestion_control"):
            hardware.load("x")
        (tmp_path / "x.json").write_text(json.dumps({**bad, "host_cost": None,
                                                     "collisions": {"default": "yes", "source": "s"}}))
        hardware.load.cache_clear()
        with pytest.raises(BadInput, match="collisions"):
            hardware.load("x")
    finally:
        hardware.load.cache_clear()


def test_metcalfe_boggs_numbers():
    assert acquisition(1) == 1 and wait_slots(1) == 0 and efficiency(1) == 1
    assert acquisition(16) == pytest.approx((15 / 16) ** 15)
    assert acquisition(1000) == pytest.approx(1 / 2.718281828, rel=0.01)   # tends to 1/e
    assert efficiency(16, 1538) == pytest.approx(0.94, abs=0.005)
    assert efficiency(16, 84) == pytest.approx(0.45, abs=0.02)
    assert efficiency(16, 84) < efficiency(4, 84) < efficiency(2, 84) < 1


def test_parse_leaves_counts_backlogged_stations():
    text = """class htb 1:1 root rate 10Mbit ceil 10Mbit burst 1600b cburst 1600b
 Sent 5000 bytes 40 pkt (dropped 0, overlimits 0 requeues 0)
 backlog 0b 3p requeues 0
class htb 1:100 parent 1:1 leaf 100: prio 0 rate 3333Kbit ceil 10Mbit
 Sent 3000 bytes 20 pkt (dropped 0, overlimits 0 requeues 0)
 backlog 3000b 2p requeues 0
class htb 1:101 parent 1:1 leaf 101: prio 0 rate 3333Kbit ceil 10Mbit
 Sent 2000 bytes 20 pkt (dropped 0, overlimits 0 requeues 0)
 backlog 0b 0p requeues 0
"""
    backlog, wire = parse_leaves(text)
    assert backlog == {"1:100": 2, "1:101": 0} and wire == (5000, 40)


def test_every_profile_pins_its_tcp():
    """Each view declares its TCP; today's is Linux's own default, never the host's."""
    none = hardware.load("none").tcp
    assert none.congestion_control == "cubic" and none.sack == none.timestamps == none.window_scaling == 1
    for name in ("prototype-1995", "demonstration-1996"):
        tcp = hardware.load(name).tcp
        assert tcp.congestion_control == "reno" and not (tcp.sack or tcp.timestamps or tcp.window_scaling)
    for name in hardware.profile_names():
        sysctls = hardware.load(name).tcp.sysctls()
        assert sysctls["net.ipv4.tcp_congestion_control"] and len(sysctls) == 12
        assert len(sysctls["net.ipv4.tcp_rmem"].split()) == 3
        assert "source" in hardware.load(name).data["tcp"]
    spec = build_spec("single-net", hardware="prototype-1995")
    assert {n.tcp.congestion_control for n in spec.nodes} == {"reno"}
    assert {n.tcp.congestion_control for n in build_spec("single-net").nodes} == {"cubic"}


def test_the_1996_profiles_run_the_era_tcp():
    """Linux 1.2.13/1.3.89 (era-machines.md M5): 32767-byte buffers, a 14,335 B window,
    a 200 ms minimum RTO on every route; no fast retransmit on the 1.2.x prototype."""
    proto, demo = hardware.load("prototype-1995").tcp, hardware.load("demonstration-1996").tcp
    for tcp in (proto, demo):
        assert tcp.window_clamp_bytes == (32767 // 2) - 2048 == 14335
        assert tcp.rmem[2] == tcp.wmem[2] == 32767 and tcp.rto_min_ms == 200
        assert tcp.route_metrics() == ["window", "14335", "rto_min", "200ms"]
        assert tcp.sysctls()["net.ipv4.tcp_rmem"] == "4096 32767 32767"
    # no window of 14,335 B (9 full segments) can produce the duplicate ACKs 1.2.x never acted on
    assert proto.reordering > 14335 // 1460 + 1 and demo.reordering == 3
    assert proto.recovery == proto.early_retrans == proto.sack == 0
    # a time-scaled network waits D times longer; today's view clamps nothing
    from beowulf_netlab.topologies import timescale
    from beowulf_netlab.topologies.presets import build_spec
    spec = build_spec("single-net", nodes=2, hardware="prototype-1995", time_scale=20)
    assert timescale.rto_min_ms(spec, spec.nodes[0]) == 4000
    assert hardware.load("none").tcp.route_metrics() == ["rto_min", "200ms"]
    assert "window at most 14335 B" in hardware.describe_tcp(proto.record())
    assert "no fast retransmit" in hardware.describe_tcp(proto.record())
    assert "no fast retransmit" not in hardware.describe_tcp(demo.record())


def test_disk_transfer_costs_are_derived_from_the_all_local_calibration_alone():
    """PIO: a local copy crosses the CPU twice per byte, so all-local copies on an otherwise idle
    CPU run at the calibrated rate; the throttle holds the drive's media rate, which PIO never
    reaches. DMA: the calibrated rate, the CPU pays the buffer copy alone."""
    for name in ("prototype-1995", "demonstration-1996"):
        prof = hardware.load(name)
        pio = for_hardware("hardware", prof)
        assert pio.transfer == "pio" and pio.name == f"{name}-pio"
        per_copy = prof.disk["read_mbyte_s"]
        assert 1e3 / (2 * pio.cpu_ns_per_byte) == pytest.approx(per_copy)       # MB/s of a local copy
        assert pio.read_mbyte_s == prof.disk["transfer"]["media_mbyte_s"] > per_copy
        assert pio.cpu_ns_per_byte > prof.data["host_cost"]["per_byte_ns"]      # PIO on top of the copy
    dma = for_hardware("hardware", hardware.load("demonstration-1996"), transfer="dma")
    assert dma.cpu_ns_per_byte == hardware.load("demonstration-1996").data["host_cost"]["per_byte_ns"]
    with pytest.raises(BadInput, match="ran pio"):      # the 486's IDE had no DMA path
        for_hardware("hardware", hardware.load("prototype-1995"), transfer="dma")
    # no transfer model without a host cost or with the user's own rate
    assert for_hardware("hardware", hardware.load("none"), transfer="pio").transfer is None
    assert for_hardware("2", hardware.load("prototype-1995")).transfer is None
    # agents that pay no charges (the MPI tests) take the calibrated rate, nothing on the CPU
    plain = for_hardware("hardware", hardware.load("prototype-1995"), transfer=None)
    assert plain.transfer is None and plain.read_mbyte_s == hardware.load("prototype-1995").disk["read_mbyte_s"]
    scaled = for_hardware("hardware", hardware.load("prototype-1995"), time_scale=10)
    assert scaled.cpu_ns_per_byte == pytest.approx(10 * for_hardware("hardware", hardware.load("prototype-1995")).cpu_ns_per_byte)


def test_per_message_cost_is_lmbench_tcp_minus_udp_over_four_events():
    """(median lat_tcp - median lat_udp) / 4 from the rows each profile cites."""
    from statistics import median
    rows = {"prototype-1995": ([1592, 1465], [368, 351]),
            "demonstration-1996": ([1149, 467, 477, 1196, 1291], [187, 276, 281, 272])}
    for name, (tcp, udp) in rows.items():
        cost = hardware.load(name).host_cost
        assert cost.per_message_us == pytest.approx((median(tcp) - median(udp)) / 4, abs=0.5)
        for row in tcp + udp:
            assert str(row) in hardware.load(name).data["host_cost"]["per_message_source"]


def test_charge_arg_states_costs_in_budget_bytes_that_time_scaling_leaves_alone():
    from dataclasses import replace
    cost = hardware.load("prototype-1995").host_cost
    arg = charge_arg(cost, cost.per_message_us * 1e3, 485.4)
    addr, overhead, message, disk, piece, ns, lat = arg[1].split(",")
    assert addr == CHARGE_ADDR and int(overhead) == cost.packet_bytes + 42 and int(piece) == round(1e6 / 248) and float(ns) == 248 and float(lat) == 0
    assert float(message) == pytest.approx(292e3 / 248, abs=0.1) and float(disk) == pytest.approx(485.4 / 248, abs=1e-3)
    slow = replace(cost, per_byte_ns=cost.per_byte_ns * 10, per_packet_us=cost.per_packet_us * 10)
    # the costs keep their budget bytes; a piece stays CHARGE_PIECE_US of real time
    assert charge_arg(slow, 10 * cost.per_message_us * 1e3, 4854)[1].split(",")[:4] == arg[1].split(",")[:4]
    assert charge_arg(cost) == []
    assert charge_arg(cost, 1e3, latency_us=90)[1].endswith(",90")     # netem's delay, for the payer


def test_a_transfer_model_is_checked_against_its_profile(tmp_path):
    """default among the modes, and a host cost to pay it on."""
    data = json.loads((hardware.HARDWARE_DIR / "demonstration-1996.json").read_text())
    data["disk"]["transfer"]["modes"] = ["dma"]        # the default pio not among them
    with pytest.raises(BadInput, match="must be one of its modes"):
        hardware._validate(data, tmp_path / "demonstration-1996.json")
    data = json.loads((hardware.HARDWARE_DIR / "demonstration-1996.json").read_text())
    data["host_cost"] = None
    with pytest.raises(BadInput, match="needs a host_cost"):
        hardware._validate(data, tmp_path / "demonstration-1996.json")


def test_a_card_charges_its_cpu_only_for_the_frames_it_accepts():
    """A hub repeats every frame to every card; the 1996 card drops those for other addresses in
    hardware, so the budget's ingress filters take only the card's own address and groups."""
    cost = hardware.load("prototype-1995").host_cost
    cmds = cpu_cmds(["b0-eth0"], cost, netem=False, macs={"b0-eth0": "0a:1b:2c:3d:4e:5f"})
    ingress = [" ".join(c) for c in cmds if "mirred" in c and c[5] == "ingress"]
    assert len(ingress) == 2, ingress
    assert any("match u16 0x0a1b 0xffff at -14 match u32 0x2c3d4e5f 0xffffffff at -12" in c for c in ingress)
    assert any("match u8 0x01 0x01 at -14" in c for c in ingress)
    egress = [c for c in cmds if "mirred" in c and c[5] == "egress" and c[4] == "b0-eth0"]
    assert len(egress) == 1 and "0" in egress[0]     # every frame it sends
    with pytest.raises(ValueError):
        cpu_cmds(["b0-eth0"], cost, netem=False, macs={"b0-eth0": "garbage"})
