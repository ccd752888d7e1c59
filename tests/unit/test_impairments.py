"""Impairment options: parsing, what they do to a spec, and the netem/require-kernel refusals."""
import pytest

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.values import parse_pct, parse_time_ms
from beowulf_netlab.netlab.capabilities import Capabilities
from beowulf_netlab.netlab.impls import BuildError, BuildOptions, choose_impls
from beowulf_netlab.topologies.presets import build_spec
from beowulf_netlab.topologies.spec import SpecError


@pytest.mark.parametrize("text, ms", [("5ms", 5.0), ("5", 5.0), ("250us", 0.25), ("0.1s", 100.0)])
def test_times(text, ms):
    assert parse_time_ms(text, "--delay") == pytest.approx(ms)


@pytest.mark.parametrize("text", ["", "5 parsecs", "-1ms", "ms", "nan", "inf", "1e3ms"])
def test_bad_times(text):
    with pytest.raises(BadInput, match="--delay"):
        parse_time_ms(text, "--delay")


def test_loss():
    assert parse_pct("1%", "--loss") == 1.0 and parse_pct("0.5", "--loss") == 0.5
    with pytest.raises(BadInput):
        parse_pct("lots", "--loss")


def test_impairments_reach_every_wire_and_relay_and_the_record():
    spec = build_spec("routed-mesh", nodes=4, delay_ms=5, jitter_ms=1, loss_pct=0.5, relay_delay_ms=2)
    assert all(w.impairment.delay_ms == 5 and w.impairment.loss_pct == 0.5 for w in spec.wires)
    assert all(n.forward_delay_ms == 2 for n in spec.nodes if n.forwarding)
    assert spec.params["delay_ms"] == 5 and spec.params["relay_delay_ms"] == 2
    plain = build_spec("routed-mesh", nodes=4)
    assert "delay_ms" not in plain.params and not plain.wires[0].impairment.active


@pytest.mark.parametrize("opts, word", [
    ({"delay_ms": 5, "jitter_ms": 6}, "--jitter"), ({"loss_pct": 100}, "--loss"),
    ({"delay_ms": 20000}, "--delay"), ({"relay_delay_ms": 1}, "no relays")])
def test_impossible_impairments(opts, word):
    with pytest.raises(SpecError, match=word):
        build_spec("single-net", nodes=2, **opts)


def caps(**kernel) -> Capabilities:
    c = Capabilities(kernel={"nft_numgen": True, "policy_routing": True, **kernel},
                     tools={"nft": "/usr/sbin/nft"}, ovs_daemon=True)
    c.ovs_kernel_datapath = kernel.get("ovs", False)
    return c


def test_impaired_spec_needs_netem():
    spec = build_spec("single-net", nodes=2, delay_ms=5)
    with pytest.raises(BuildError, match="need netem"):
        choose_impls(spec, caps(), BuildOptions(require_kernel=False))
    choose_impls(spec, caps(netem=True), BuildOptions(require_kernel=False))


def test_require_kernel_refuses_each_fallback():
    bonded = build_spec("bonded-dual-net", nodes=2)
    switched = build_spec("switched-mesh", nodes=4)
    strict = BuildOptions(require_kernel=True)
    assert choose_impls(bonded, caps(), BuildOptions(require_kernel=False))["bonding"] == "nft-numgen-rr"
    with pytest.raises(BuildError, match="bonding nft-numgen-rr"):
        choose_impls(bonded, caps(), strict)
    with pytest.raises(BuildError, match="switches lxbr"):
        choose_impls(switched, caps(), strict)
    assert choose_impls(bonded, caps(bonding=True), strict)["bonding"] == "kernel-balance-rr"
    assert choose_impls(switched, caps(ovs=True), strict)["switch"] == "ovs-kernel"
    with pytest.raises(BuildError, match="refuses fallbacks"):
        choose_impls(bonded, caps(bonding=True), BuildOptions(bonding="nft", require_kernel=True))
