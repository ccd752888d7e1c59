"""The 2001 cluster as data: full-duplex switch ports, the pc-2001 profile, time scaling."""
import pytest

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.netlab.disk_profiles import for_hardware
from beowulf_netlab.netlab.shaping import shared_wire_cmds
from beowulf_netlab.topologies import hardware
from beowulf_netlab.topologies.presets import build_spec
from beowulf_netlab.topologies import timescale
from beowulf_netlab.topologies.timescale import LINUX_RTO_MIN_MS, scale
from beowulf_netlab.workloads.placement import place


def test_every_node_has_its_own_full_duplex_port_on_one_switch():
    spec = build_spec("switched-cluster", nodes=32)
    assert spec.params["rate_mbit"] == 1000
    assert len(spec.wires) == 32 and all(w.full_duplex for w in spec.wires)
    assert all(len(spec.members(w.name)) == 1 for w in spec.wires)
    assert len(spec.switches) == 1 and set(spec.switches[0].wires) == {w.name for w in spec.wires}
    assert all(n.on_link_subnet for n in spec.nodes)


def test_a_pair_crosses_the_senders_port_then_the_receivers():
    spec = build_spec("switched-cluster", nodes=8)
    pairs = place(spec, 4, "any")
    assert [p.path for p in pairs] == [(("p0",), ("p1",)), (("p2",), ("p3",)), (("p4",), ("p5",)),
                                       (("p6",), ("p7",))]


def test_a_full_duplex_port_gives_each_direction_the_whole_rate():
    cmds = shared_wire_cmds("ifb0", 50.0, ["02:00:00:00:00:01"], full_duplex=True)
    classes = {c[c.index("classid") + 1]: c for c in cmds if c[:3] == ["tc", "class", "add"]}
    rate = lambda c: c[c.index("rate") + 1]  # noqa: E731
    ceil = lambda c: c[c.index("ceil") + 1]  # noqa: E731
    assert rate(classes["1:1"]) == "100000kbit"           # both directions together
    leaves = [c for k, c in classes.items() if k != "1:1"]
    assert len(leaves) == 2 and all(rate(c) == ceil(c) == "50000kbit" for c in leaves)
    shared = shared_wire_cmds("ifb0", 50.0, ["02:00:00:00:00:01"])
    assert rate([c for c in shared if "1:1" in c and "classid" in c][0]) == "50000kbit"


def test_contention_is_never_charged_on_a_full_duplex_port():
    spec = build_spec("switched-cluster", nodes=4, contention="on")
    assert not any(w.contention for w in spec.wires)


def test_pc_2001_caps_a_tcp_stream_near_the_ttcp_figure():
    cost = hardware.load("pc-2001").host_cost
    per_payload_s = (1514 + 66 / 2) * cost.per_byte_ns * 1e-9 + cost.per_packet_us * 1e-6
    assert 1448 / per_payload_s / 1e6 == pytest.approx(42, rel=0.01)
    assert hardware.load("pc-2001").disk["read_mbyte_s"] == 68.23


def test_time_scale_divides_every_rate_and_stretches_tcp_timers():
    real = build_spec("switched-cluster", nodes=4, hardware="pc-2001")
    slow = build_spec("switched-cluster", nodes=4, hardware="pc-2001", time_scale=20)
    assert slow.machine.time_scale == 20 and slow.params["rate_mbit"] == 1000
    # the spec keeps the real network; what runs in scaled time comes from the accessors
    assert slow.wires == real.wires and slow.nodes == real.nodes
    assert all(timescale.wire_rate(slow, w) == 50 for w in slow.wires)
    cost = timescale.host_cost(slow, slow.nodes[0])
    assert cost.budget_mbit == pytest.approx(real.nodes[0].host_cost.budget_mbit / 20)
    assert cost.per_packet_us == real.nodes[0].host_cost.per_packet_us * 20
    assert timescale.host_cost(real, real.nodes[0]) is real.nodes[0].host_cost
    assert timescale.rto_min_ms(slow, slow.nodes[0]) == LINUX_RTO_MIN_MS * 20
    assert timescale.rto_min_ms(real, real.nodes[0]) is None
    disk = for_hardware("hardware", hardware.load("pc-2001"), 20)
    assert disk.read_mbyte_s == pytest.approx(68.23 / 20) and disk.name == "pc-2001/D20"
    assert scale(real, 1) is real and "time_scale" not in real.params


@pytest.mark.parametrize("d", [0.5, 0, -3, 1001, float("nan"), True])
def test_time_scale_refuses_what_cannot_run(d):
    with pytest.raises(BadInput, match="--time-scale"):
        build_spec("switched-cluster", nodes=4, time_scale=d)


def test_a_scale_that_would_push_a_wire_under_the_shaper_floor_is_refused():
    with pytest.raises(BadInput, match="smaller --time-scale"):
        build_spec("single-net", nodes=4, rate_mbit=10, time_scale=500)


def test_every_verb_means_the_same_switched_cluster():
    """`topo`/`cli` built 32 nodes at 1000 Mbit/s and `run` 16 at 10 (issue 34): the preset's
    own defaults are now the sweep's when the flags are not given."""
    from beowulf_netlab.run.sweep import Sweep
    spec = build_spec("switched-cluster")
    sweep = Sweep.make("pfs", {"topology": ["switched-cluster"]})
    assert (sweep["nodes"], sweep["rate_mbit"]) == (len(spec.nodes), [spec.params["rate_mbit"]]) == (32, [1000.0])
    mixed = Sweep.make("token", {"topology": ["single-net", "switched-cluster"]})
    assert (mixed["nodes"], mixed["rate_mbit"]) == (None, None)     # they disagree: each its own
    assert {s.topology: (len(s.nodes), s.params["rate_mbit"]) for s in mixed.specs()} == \
        {"single-net": (16, 10.0), "switched-cluster": (32, 1000.0)}
    given = Sweep.make("pfs", {"topology": ["switched-cluster"], "nodes": 4})
    assert given["nodes"] == 4
