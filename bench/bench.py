#!/usr/bin/env python3
"""Benchmark: ratios measured in one run on this host (not a test; nothing asserted).

  sudo python3 bench/bench.py [--quick] [--only SECTION ...]

Prints, per preset and rate, one TCP flow's goodput / its physical limit, with
the fidelity gates' verdict on the point; the same flow at 100 Mbit/s while
another network crowds the host (the gates must flag it); the small-token round trip / its
frames' wire time; build+teardown time of each preset / plain Mininet with the
same hosts and links; and the emulator's ceiling on single-net, a mesh and the
32-node switched cluster: the highest aggregate before the gates flag a point.
A section or row that fails prints one line and the bench goes on; the last
line is the bench's own time.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beowulf_netlab.core.interpreter import reexec_with_mininet  # noqa: E402

reexec_with_mininet(__file__)

from mininet.log import setLogLevel  # noqa: E402
from mininet.net import Mininet  # noqa: E402
from mininet.node import Switch  # noqa: E402
from mininet.topo import Topo  # noqa: E402

from beowulf_netlab.netlab.capabilities import Capabilities, probe  # noqa: E402
from beowulf_netlab.netlab.manifest import claim, release  # noqa: E402
from beowulf_netlab.netlab.shaping import frame_time_s, tcp_goodput_limit_mbit  # noqa: E402
from beowulf_netlab.netlab.testbed import Testbed  # noqa: E402
from beowulf_netlab.run.gates import evaluate  # noqa: E402
from beowulf_netlab.run.monitor import Monitor  # noqa: E402
from beowulf_netlab.run.runner import tcp_counters, wire_capacities  # noqa: E402
from beowulf_netlab.topologies.presets import PRESETS, build_spec  # noqa: E402
from beowulf_netlab.topologies.spec import NetworkSpec  # noqa: E402
from beowulf_netlab.workloads import iperf, token  # noqa: E402


def one_line(e: BaseException) -> str:
    """An exception as one line: its type, its first line, and where it was raised."""
    where = traceback.extract_tb(e.__traceback__)[-1] if e.__traceback__ else None
    at = f" (at {os.path.basename(where.filename)}:{where.lineno})" if where else ""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:160] if text else ''}{at}"


def row(label: str, fn, *args) -> None:
    """Print fn's row; a failure is one line and the section goes on."""
    try:
        fn(*args)
    except KeyboardInterrupt:
        raise
    except Exception as e:   # a bench reports every failure and runs on
        print(f"  {label:22s} FAILED: {one_line(e)}", flush=True)


# -- measured as the runner measures a point: monitor, TCP counters, gates --
def gated_iperf(tb: Testbed, pairs: int, placement: str, seconds: int) -> dict:
    """One iperf3 point with its fidelity record and the gates' verdict (run.gates)."""
    spec = tb.spec
    hosts = [tb.host(n.name) for n in spec.nodes]
    wires = {w.name: tb.wire(w.name) for w in spec.wires}
    before = tcp_counters(hosts)
    with Monitor(wires) as mon:
        point = iperf.run_point(tb, None, {"pairs": pairs, "placement": placement}, {"duration": seconds})
    after = tcp_counters(hosts)
    point["fidelity"] = mon.report(point["window_s"])
    point["tcp"] = {**(tb.tcp or {}), **{k: v - before.get(k, 0) for k, v in after.items()}}
    point["gates"] = evaluate(point, point["fidelity"], wire_capacities(spec),
                              iperf.WORKLOAD.bounds, iperf.WORKLOAD.concurrent_pairs)
    return point


def verdict(point: dict) -> str:
    gates = point["gates"]
    return "gates ok" if gates["ok"] else "FLAGGED: " + "; ".join(gates["failed"])


# -- sections --
def goodput(caps: Capabilities, quick: bool) -> None:
    print("TCP goodput of one flow b0->b1 / its full-duplex physical limit (MSS 1448), and the gates' verdict")
    for rate in (10, 100):
        for name in PRESETS:
            row(name, goodput_row, caps, name, rate, 3 if quick else 6)


def goodput_row(caps: Capabilities, name: str, rate: float, seconds: int) -> None:
    with Testbed(build_spec(name, rate_mbit=rate), caps=caps) as tb:
        point = gated_iperf(tb, 1, "any", seconds)
        b0 = tb.spec.node("b0")
        limit = tcp_goodput_limit_mbit(rate) * (len(b0.wires) if b0.bonded else 1)
        print(f"  {name:22s} {rate:4d} Mbit/s  {point['goodput_mbit']:7.2f} of {limit:6.2f} Mbit/s  "
              f"ratio {point['goodput_mbit'] / limit:.3f}  host CPU {point['fidelity']['host_cpu_mean']:.0%}  "
              f"{verdict(point)}", flush=True)


# the other network: 8 iperf3 flows over a 1000 Mbit/s bonded pair, about 1.1 Gbit/s on this 2-core host
CROWD = ("bonded-dual-net", 1000, 8)


def crowded_goodput(caps: Capabilities, quick: bool) -> None:
    name, rate, pairs = CROWD
    print(f"one 100 Mbit/s flow b0->b1 while another network carries traffic ({name} at {rate} Mbit/s, "
          f"{pairs} flows): the emulator, not the model, is what slows it; the gates must say so")
    for preset in ("switched-cluster", "bonded-switched-mesh"):
        row(preset, crowded_row, caps, preset, 3 if quick else 6)


def crowded_row(caps: Capabilities, name: str, seconds: int) -> None:
    other, rate, pairs = CROWD
    with Testbed(build_spec(other, rate_mbit=rate), caps=caps) as bg, \
            Testbed(build_spec(name, rate_mbit=100), caps=caps) as tb:
        nodes = [bg.host(n.name) for n in bg.spec.nodes]
        carried: dict = {}
        crowd = threading.Thread(target=lambda: carried.update(flows=iperf.run_pairs(
            list(zip(nodes[0::2], nodes[1::2]))[:pairs], seconds=seconds + 5, base_port=6201)))
        crowd.start()
        try:
            time.sleep(2.5)   # the other network's flows past their slow start
            point = gated_iperf(tb, 1, "any", seconds)
        finally:
            crowd.join()
        b0 = tb.spec.node("b0")
        limit = tcp_goodput_limit_mbit(100) * (len(b0.wires) if b0.bonded else 1)
        other_total = sum(f.goodput_mbit for f in carried.get("flows", []))
        fid = point["fidelity"]
        print(f"  {name:22s} {point['goodput_mbit']:7.2f} of {limit:6.2f} Mbit/s  ratio "
              f"{point['goodput_mbit'] / limit:.3f}  (the other network: {other_total:.0f} Mbit/s; softirq "
              f"{max(fid['softirq_busy_mean'] or [0]):.0%} of a core)  {verdict(point)}", flush=True)


def small_token(caps: Capabilities) -> None:
    print("small-token round trip / wire time of its two frames (64 B token, 1 pair, 1 in flight)")
    for rate in (10, 100):
        row(f"single-net {rate}", small_token_row, caps, rate)


def small_token_row(caps: Capabilities, rate: float) -> None:
    with Testbed(build_spec("single-net", rate_mbit=rate), caps=caps) as tb:
        r = token.run_exchange([(tb.host("b0"), tb.host("b1"))], 64, 1, exchanges=2000)
        wire = 2 * frame_time_s(64 + 52 + 14, rate)
        print(f"  single-net {rate:4d} Mbit/s  median RTT {r['rtt_ms_median']:.3f} ms, "
              f"frames' wire time {wire * 1e3:.3f} ms, ratio {r['rtt_ms_median'] / 1e3 / wire:.2f}", flush=True)


class PlainBridge(Switch):
    """Mininet's LinuxBridge step for step, with iproute2 where it calls brctl (bridge-utils is
    not installed here): what plain Mininet pays for a bridge, through the switch's own shell
    as Mininet does it (the baseline is Mininet's code path, not this project's)."""

    def connected(self) -> bool:
        return True

    def start(self, _controllers) -> None:
        self.cmd("ifconfig", self, "down")
        self.cmd("ip link del", self)
        self.cmd("ip link add name", self, "type bridge")
        for intf in self.intfList():
            if self.name in intf.name:
                self.cmd("ip link set dev", intf, "master", self)
        self.cmd("ifconfig", self, "up")

    def stop(self, deleteIntfs: bool = True) -> None:
        self.cmd("ifconfig", self, "down")
        self.cmd("ip link del", self)
        super().stop(deleteIntfs)


class PlainTopo(Topo):
    """The preset's hosts, wires and switches, as plain Mininet makes them: hosts, plain
    bridges and links, no shaping, bonding, routes or TCP settings."""

    def build(self, spec: NetworkSpec, prefix: str) -> None:
        index = {w.name: i for i, w in enumerate(spec.wires)}
        for i, w in enumerate(spec.wires):
            self.addSwitch(f"{prefix}w{i}", cls=PlainBridge, dpid=f"{i + 1:016x}")
        for i, sw in enumerate(spec.switches):
            self.addSwitch(f"{prefix}s{i}", cls=PlainBridge, dpid=f"{0x1000 + i:016x}")
            for w in sw.wires:
                self.addLink(f"{prefix}s{i}", f"{prefix}w{index[w]}")
        for n in spec.nodes:
            self.addHost(n.name)
            for w in n.wires:
                self.addLink(n.name, f"{prefix}w{index[w]}")


def plain_seconds(spec: NetworkSpec) -> float:
    """Build + teardown of plain Mininet with the spec's hosts and links. Its names carry a
    claimed run prefix, so release() removes whatever a failed build left (not timed)."""
    manifest = claim()
    net = None
    try:
        t0 = time.monotonic()
        net = Mininet(topo=PlainTopo(spec, prefix=manifest.prefix), controller=None, switch=PlainBridge,
                      waitConnected=False)
        net.start()
        net.stop()
        return time.monotonic() - t0
    finally:
        if net is not None:
            manifest.record_nodes(net.hosts + net.switches)
        release(manifest)


def ours_seconds(spec: NetworkSpec, caps: Capabilities) -> float:
    t0 = time.monotonic()
    with Testbed(spec, caps=caps):
        pass
    return time.monotonic() - t0


def build_times(caps: Capabilities, quick: bool) -> None:
    repeats = 1 if quick else 3
    print(f"build+teardown of each preset / plain Mininet with the same hosts and links "
          f"(best of {repeats}, alternating)")
    setLogLevel("warning")
    for name in PRESETS:
        row(name, build_row, caps, name, repeats)


def build_row(caps: Capabilities, name: str, repeats: int) -> None:
    spec = build_spec(name)
    ours, plain = [], []
    for _ in range(repeats):
        ours.append(ours_seconds(spec, caps))
        plain.append(plain_seconds(spec))
    o, p = min(ours), min(plain)
    print(f"  {name:22s} {len(spec.nodes):3d} nodes {len(spec.wires):3d} wires  {o:6.2f} s vs {p:6.2f} s  "
          f"ratio {o / p:.2f}  ({o / len(spec.nodes) * 1e3:.0f} ms per node)", flush=True)


# topology, pairs, placement, wire rates to climb (Mbit/s)
CEILINGS = (
    ("single-net", 2, "any", (100, 200, 400, 700, 1000)),     # 1000: the fastest wire a spec allows
    ("switched-mesh", 8, "local-wire", (25, 50, 100, 200, 400, 1000)),
    ("switched-cluster", 16, "any", (25, 50, 100, 200, 400, 1000)),
)


def ceilings(caps: Capabilities, quick: bool) -> None:
    print("the emulator's ceiling: aggregate iperf3 goodput as the wires get faster, until the gates flag a point")
    for name, pairs, placement, rates in CEILINGS:
        row(name, ceiling_row, caps, name, pairs, placement, rates, 2 if quick else 4)


def shared_limit_mbit(point: dict, rate: float) -> float:
    """The flows' physical limit together: each flow gets its busiest wire's share
    (two flows on one shared wire split one wire's limit; full-duplex ports carry one each)."""
    load = point["wire_load"]
    return sum(tcp_goodput_limit_mbit(rate) / max(load.get(w, 1) for seg in f["path"] for w in seg)
               for f in point["flows"])


def ceiling_row(caps: Capabilities, name: str, pairs: int, placement: str, rates, seconds: int) -> None:
    """Climb the rates until the gates flag a point, then try once between the last two rungs."""
    def rung(rate: int) -> dict:
        with Testbed(build_spec(name, rate_mbit=rate), caps=caps) as tb:
            point = gated_iperf(tb, pairs, placement, seconds)
        total, limit = point["goodput_mbit"], shared_limit_mbit(point, rate)
        print(f"  {name:22s} {pairs:2d} flows, wires {rate:5d} Mbit/s: {total:7.1f} Mbit/s "
              f"({total / limit:.2f} of {limit:.0f}), host CPU {point['fidelity']['host_cpu_mean']:.0%}, "
              f"{verdict(point)}", flush=True)
        return point

    best, flagged = None, None
    for rate in rates:
        point = rung(rate)
        if not point["gates"]["ok"]:
            flagged = rate
            break
        best = (point["goodput_mbit"], rate)
    if best and flagged:
        between = round((best[1] * flagged) ** 0.5)
        point = rung(between)
        if point["gates"]["ok"] and point["goodput_mbit"] > best[0]:
            best = (point["goodput_mbit"], between)
    if best is None:
        said = "none: the first point was already flagged"
    elif flagged is None:
        said = (f"not reached: {best[0]:.0f} Mbit/s aggregate at the fastest wires tried "
                f"({best[1]} Mbit/s), no point flagged")
    else:
        said = f"{best[0]:.0f} Mbit/s aggregate (wires at {best[1]} Mbit/s), the highest before the gates flagged a point"
    print(f"  {name:22s} ceiling: {said}", flush=True)


SECTIONS = {"goodput": goodput, "crowded": crowded_goodput, "token": small_token, "build": build_times,
            "ceiling": ceilings}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="shorter flows, one build each")
    p.add_argument("--only", nargs="+", choices=list(SECTIONS), help="run only these sections")
    a = p.parse_args()
    if os.geteuid() != 0:
        print("bench.py: needs root: sudo python3 bench/bench.py", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    caps = probe()
    for name in a.only or SECTIONS:
        fn = SECTIONS[name]
        t = time.monotonic()
        try:
            fn(caps) if name == "token" else fn(caps, a.quick)
        except KeyboardInterrupt:
            raise
        except Exception as e:   # one section's failure must not hide the others
            print(f"  {name} FAILED: {one_line(e)}", flush=True)
        print(f"  ({name}: {time.monotonic() - t:.0f} s)", flush=True)
    print(f"bench: {time.monotonic() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
