"""What the kernel, the medium engine and the agents get for a network, time-scaled or not, is
pinned in a golden file (tests/fixtures/timescale-kernel-view.json) written from the code
before issue 34 moved time scaling out of the spec (topologies.timescale): every tc/ip/nft
argv the pure builders make from what netlab.topo hands each wire and node, the engine's
config text, each node's agent charges and disk, the file system's timeouts, the gates' wire capacities and the
workloads' estimated path rates. A refactor of where D is applied must leave all of it
byte-identical. Regenerate (only for an intended kernel change): python3 -m tests.unit.test_timescale_golden
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("mininet.topo")

from beowulf_netlab.netlab.bond import kernel_bond_cmds, nft_bond_cmds   # noqa: E402
from beowulf_netlab.netlab.disk_profiles import for_spec                   # noqa: E402
from beowulf_netlab.netlab.hostcost import cpu_cmds                         # noqa: E402
from beowulf_netlab.netlab.impls import BuildOptions, wire_impl             # noqa: E402
from beowulf_netlab.netlab.medium import engine_config                      # noqa: E402
from beowulf_netlab.netlab.nic import tx_gap_cmds                           # noqa: E402
from beowulf_netlab.netlab.pfs import timeouts                              # noqa: E402
from beowulf_netlab.netlab.node import BeowulfHost                          # noqa: E402
from beowulf_netlab.netlab.relay import relay_egress_cmds                   # noqa: E402
from beowulf_netlab.netlab.shaping import shared_wire_cmds                  # noqa: E402
from beowulf_netlab.netlab.testbed import network_name                      # noqa: E402
from beowulf_netlab.netlab.topo import SpecTopo, switch_node, wire_node     # noqa: E402
from beowulf_netlab.run.runner import wire_capacities                  # noqa: E402
from beowulf_netlab.run.sweep import network_fields, network_key       # noqa: E402
from beowulf_netlab.topologies.presets import build_spec                    # noqa: E402
from beowulf_netlab.topologies.spec import QUEUE_PACKETS, SUBNET           # noqa: E402
from beowulf_netlab.workloads.base import path_rate_bytes_s                 # noqa: E402

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "timescale-kernel-view.json"
PREFIX = "bnl00"

SPECS = {
    "single-net-1996-D1": dict(name="single-net", nodes=4, rate_mbit=10, hardware="prototype-1995"),
    "single-net-1996-D4": dict(name="single-net", nodes=4, rate_mbit=10, hardware="prototype-1995",
                               time_scale=4),
    "single-net-impaired-D4": dict(name="single-net", nodes=4, rate_mbit=10, delay_ms=2, jitter_ms=1,
                                   loss_pct=0.5, time_scale=4),
    "routed-mesh-relay-D8": dict(name="routed-mesh", nodes=9, rate_mbit=10, relay_delay_ms=0.3,
                                 hardware="prototype-1995", time_scale=8),
    "routed-mesh-copy-D2": dict(name="routed-mesh", nodes=4, rate_mbit=10, hardware="demonstration-1996",
                                time_scale=2),
    "switched-cluster-pc2001-D10": dict(name="switched-cluster", nodes=4, hardware="pc-2001", time_scale=10),
    "bonded-dual-net-D1": dict(name="bonded-dual-net", nodes=4, rate_mbit=10, channels=2,
                               hardware="prototype-1995"),
    "bonded-dual-net-gap-D4": dict(name="bonded-dual-net", nodes=4, rate_mbit=100, channels=2,
                                   hardware="demonstration-1996", tx_gap_us=70, time_scale=4),
    "switched-mesh-D3": dict(name="switched-mesh", nodes=4, rate_mbit=10, time_scale=3),
}


def _host_view(info: dict, name: str, nics: list[str], spec) -> dict:
    """Every argv BeowulfHost.config would apply from the params netlab.topo gave it, and its
    agents' charges (BeowulfHost's own methods on a stand-in, no namespace)."""
    host = SimpleNamespace(name=name, address=info["ip"].split("/")[0], **{
        k: info.get(k) for k in ("host_cost", "tcp", "rto_min_ms", "cpu_netem", "forward_delay_ms",
                                 "tx_gaps", "bonded", "forwarding", "routes")})
    host.routes = list(host.routes or [])
    host.forward_delay_ms = float(host.forward_delay_ms or 0.0)
    host.rto_min_applied = lambda: BeowulfHost.rto_min_applied(host)
    cmds: list[list[str]] = []
    if host.tcp is not None:
        cmds.append(["sysctl", *[f"{k}={v}" for k, v in host.tcp.sysctls().items()]])
    if host.forward_delay_ms:
        cmds += [c for nic in nics for c in relay_egress_cmds(nic, host.address, host.forward_delay_ms)]
    if host.tx_gaps:
        queue = host.host_cost.queue_packets if host.host_cost else QUEUE_PACKETS
        cmds += [c for nic, (rate, extra) in zip(nics, host.tx_gaps) for c in tx_gap_cmds(nic, rate, extra, queue)]
    if host.bonded and len(nics) > 1:
        cmds += kernel_bond_cmds(f"{name}-bond0", nics, f"{host.address}/{SUBNET.prefixlen}")
        ip_cmds, nft = nft_bond_cmds(nics, host.address, str(SUBNET))
        cmds += ip_cmds + [["nft", "-f", "-", nft]]
    else:
        cmds += BeowulfHost._address_cmds(host, nics)
    for netem in (False, True):
        if host.host_cost is not None:
            cmds += cpu_cmds(nics, host.host_cost, netem,
                             relay_address=host.address if host.forwarding else None)
    cmds.append(["ip", "route", "change", "ROUTE", *BeowulfHost._route_metrics(host)])
    disk = for_spec("hardware", spec)
    agents = {}
    for netem in (False, True):
        host.cpu_netem = netem
        agents[f"netem={netem}"] = [BeowulfHost.charge_args(host),
                                    BeowulfHost.charge_args(host, per_message=False,
                                                            disk_ns_per_byte=disk.cpu_ns_per_byte)]
    cost = host.host_cost
    return {"argv": cmds, "agents": agents, "rto_min_applied": BeowulfHost.rto_min_applied(host),
            "host_cost": None if cost is None else [cost.per_packet_us, cost.per_byte_ns, cost.queue_packets,
                                                    cost.relay_copy_per_byte_ns, cost.per_message_us,
                                                    cost.budget_mbit, cost.packet_bytes]}


def kernel_view(options: dict) -> dict:
    """What every builder makes of one spec (see module doc)."""
    options = dict(options)
    spec = build_spec(options.pop("name"), **options)
    topo = SpecTopo(spec, prefix=PREFIX)
    engine_topo = SpecTopo(spec, prefix=PREFIX, engine=True)
    out: dict = {"network_name": network_name(spec), "network_key": network_key(spec),
                 "network_fields": network_fields(spec), "notes": list(spec.notes),
                 "wire_impl": wire_impl(spec, SimpleNamespace(medium_engine=True), BuildOptions()),
                 "gate_capacities": wire_capacities(spec),
                 "disk": for_spec("hardware", spec).record(),
                 "disk_no_transfer": for_spec("hardware", spec, transfer=None).record(),
                 "pfs_timeouts": timeouts(spec.machine.time_scale),
                 "wires": {}, "nodes": {}}
    for w in spec.wires:
        info = topo.nodeInfo(wire_node(PREFIX, w.name))
        macs = [f"02:00:00:00:00:{n.index:02x}" for n in spec.members(w.name)]
        out["wires"][w.name] = {
            "rate_mbit": info["rate_mbit"],
            "argv": shared_wire_cmds(f"{PREFIX}w{w.name}i", info["rate_mbit"], macs, info["queue_packets"],
                                     info["impairment"], info["full_duplex"]),
            "path_rate_bytes_s": path_rate_bytes_s(spec, ((w.name,),), {w.name: 2}),
        }
    for n in spec.nodes:
        nics = [f"{n.name}-eth{k}" for k in range(len(n.wires))]
        out["nodes"][n.name] = _host_view(topo.nodeInfo(n.name), n.name, nics, spec)
        assert engine_topo.nodeInfo(n.name).get("tx_gaps") == []
    ports = [(f"{n.name}-eth{k}", w, n.name) for n in spec.nodes for k, w in enumerate(n.wires)]
    ports += [(f"{switch_node(PREFIX, s.name)}-{w}", w, None) for s in spec.switches for w in s.wires]
    out["engine_config"] = engine_config(spec, ports, seed=7)
    return json.loads(json.dumps(out))   # tuples as lists, as the golden file holds them


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("case", sorted(SPECS))
def test_the_kernel_engine_and_agents_get_what_they_got_before(case, golden):
    have = kernel_view(SPECS[case])
    want = golden[case]
    for key in want:
        assert have[key] == want[key], (case, key)
    assert set(have) == set(want)


if __name__ == "__main__":
    views = {k: kernel_view(v) for k, v in sorted(SPECS.items())}   # one case a line
    GOLDEN.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True, separators=(',', ':'))}"
                                         for k, v in views.items()) + "\n}\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
