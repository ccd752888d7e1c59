"""This host's own round-trip path taken off the engine's delays (run.hostpath): the arithmetic,
the engine's configuration it yields, which pair it probes, and where it does nothing. No root."""
from types import SimpleNamespace

from beowulf_netlab.netlab.impls import BuildOptions
from beowulf_netlab.netlab.medium import engine_config, one_way_hold_us
from beowulf_netlab.run.hostpath import KEEP, hold_ports, probe_pair, per_pass_us, subtract_host_path
from beowulf_netlab.topologies.presets import build_spec


def ports(spec) -> list[tuple[str, str, str | None]]:
    return [(f"p{i}", w.name, n.name) for w in spec.wires for i, n in enumerate(spec.members(w.name))]


def test_a_quarter_of_the_path_outside_the_engine_comes_off_each_delay():
    # demonstration-like: the model holds a 1-byte frame about 150 us, a round trip reads 360
    path, less = per_pass_us(rtt_us=360.0, hold_us=150.0, smallest_delay_us=69.0)
    assert path == 60.0 and less == 15.0


def test_the_subtraction_is_never_negative_nor_more_than_the_delay():
    assert per_pass_us(280.0, 150.0, 69.0) == (-20.0, 0.0)      # a probe faster than the hold
    assert per_pass_us(1400.0, 150.0, 69.0, charged_us=1040.0) == (60.0, 15.0)   # the charges are the model's
    assert per_pass_us(1000.0, 150.0, 69.0) == (700.0, 69.0)    # a stalled probe: at most the delay


def test_the_config_shortens_every_node_delay_and_no_switch_port():
    spec = build_spec("switched-mesh", nodes=4, rate_mbit=100, hardware="demonstration-1996")
    w = spec.wires[0]
    ps = [("n", w.name, spec.members(w.name)[0].name), ("s", w.name, None)]
    full = round(spec.node(spec.members(w.name)[0].name).host_cost.per_packet_us * 1000)
    card = 177000                 # the card's latency is the model's time, never the host's: it stays
    node, switch = engine_config(spec, ps, less_ns=15000).splitlines()[-2:]
    assert f"tx_delay_ns={full - 15000 + card} rx_delay_ns={full - 15000 + card} " in node
    assert "tx_delay_ns=0 rx_delay_ns=0 " in switch
    node = engine_config(spec, ps, less_ns=10 ** 9).splitlines()[-2]
    assert f"tx_delay_ns={card} rx_delay_ns={card} " in node and "ps_per_byte=38000" in node   # the bytes' time stays


def snap(**ports) -> dict:
    return {"ports": {n: {"frames_in": f, "held_ns": h} for n, (f, h) in ports.items()}}


def test_a_frames_hold_is_its_deliveries_summed_over_the_frames_put_in():
    zero = snap(a=(0, 0), b=(0, 0), s=(0, 0))
    # direct: 400 frames between a and b, each held 150 us at the other end
    direct = snap(a=(200, 200 * 150_000), b=(200, 200 * 150_000), s=(0, 0))
    assert one_way_hold_us(zero, direct, ["a", "b"], ["a", "b", "s"]) == 150.0
    # half of them cross a switch: held 80 us into its port, then 70 us out of it to the node
    via = snap(a=(200, 200 * 150_000 - 100 * 80_000), b=(200, 200 * 150_000 - 100 * 80_000), s=(0, 200 * 80_000))
    assert one_way_hold_us(zero, via, ["a", "b"], ["a", "b", "s"]) == 150.0
    assert one_way_hold_us(zero, zero, ["a", "b"], ["a", "b", "s"]) is None


def test_the_probe_pair_is_two_costed_nodes_on_one_wire():
    spec = build_spec("single-net", nodes=4, rate_mbit=10, hardware="prototype-1995")
    assert probe_pair(SimpleNamespace(spec=spec, engine_ports=ports(spec))) == ("b0", "b1")
    today = build_spec("single-net", nodes=4, rate_mbit=10)
    assert probe_pair(SimpleNamespace(spec=today, engine_ports=ports(today))) is None


def test_nothing_is_probed_without_an_engine_or_with_keep():
    spec = build_spec("single-net", nodes=2, rate_mbit=10, hardware="prototype-1995")
    keep = SimpleNamespace(spec=spec, engine_ports=ports(spec), medium=object(),
                           opts=BuildOptions(host_path=KEEP))
    tc = SimpleNamespace(spec=spec, engine_ports=[], medium=None, opts=BuildOptions())
    assert subtract_host_path(keep) is None and subtract_host_path(tc) is None
    assert BuildOptions().host_path == "subtract"


def test_a_failed_probe_leaves_the_delays_and_says_why(monkeypatch):
    from beowulf_netlab.core.errors import RuntimeFailure
    from beowulf_netlab.run import hostpath

    def fail(*_a, **_k):
        raise RuntimeFailure("token agent on b1 did not start")
    spec = build_spec("single-net", nodes=2, rate_mbit=10, hardware="prototype-1995")
    retimed = []
    medium = SimpleNamespace(snapshot=lambda max_age_s: {"held": {"frames": 0, "sum_ns": 0}})
    tb = SimpleNamespace(spec=spec, engine_ports=ports(spec), medium=medium, opts=BuildOptions(),
                         host=lambda n: n, retime_medium=retimed.append, host_path=None)
    monkeypatch.setattr(hostpath.token, "run_exchange", fail)
    rec = subtract_host_path(tb)
    assert retimed == [] and rec["less_per_pass_us"] == 0.0 and "did not start" in rec["why"]
    assert tb.host_path is rec


def test_a_frames_way_crosses_the_switch_ports_of_the_wires_only_one_of_the_pair_sits_on():
    # the bonded switched mesh: b0 and b1 share row wire r0 (its row switch port receives each
    # of their frames there, a hub repeating it, and the switch drops it); their column frames
    # cross the column switch from c0 to c1
    spec = build_spec("bonded-switched-mesh", nodes=4, rate_mbit=10, hardware="prototype-1995")
    engine_ports = [(f"{n.name}-{w}", w, n.name) for w in ("r0", "r1", "c0", "c1")
                    for n in spec.members(w)] + [(f"sw-{w}", w, None) for w in ("r0", "r1", "c0", "c1")]
    senders, receivers = hold_ports(engine_ports, ("b0", "b1"))
    assert sorted(senders) == ["b0-c0", "b0-r0", "b1-c1", "b1-r0"]
    assert sorted(receivers) == sorted(senders + ["sw-c0", "sw-c1"])
    # one shared hub, no switch: the pair's own ports
    single = [("p0", "w0", "b0"), ("p1", "w0", "b1"), ("p2", "w0", "b2")]
    assert hold_ports(single, ("b0", "b1")) == (["p0", "p1"], ["p0", "p1"])
