#!/usr/bin/env python3
"""Benchmark: ratios measured in one run on this host (not a test; nothing asserted).

  sudo python3 bench/bench.py [--quick]

Prints, per preset and rate, TCP goodput / physical limit; the small-token
round trip / its frames' wire time; build+teardown time of each 16-node preset
/ plain Mininet with the same hosts and links; and the highest aggregate rate
before the fidelity monitor marks points suspect.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from core.interpreter import reexec_with_mininet  # noqa: E402

reexec_with_mininet(__file__)

from mininet.log import setLogLevel  # noqa: E402
from mininet.net import Mininet  # noqa: E402
from mininet.topo import Topo  # noqa: E402

from netlab.shaping import frame_time_s, tcp_goodput_limit_mbit  # noqa: E402
from netlab.testbed import Testbed  # noqa: E402
from netlab.wire import Bridge  # noqa: E402
from pipeline.monitor import Monitor  # noqa: E402
from topologies.presets import PRESETS, build_spec  # noqa: E402
from workloads import iperf, token  # noqa: E402


class PlainTopo(Topo):
    """Same hosts and links as a preset, as plain Mininet would make them: plain
    bridges (iproute2, so no bridge-utils) and no shaping."""

    def build(self, spec):
        for w in spec.wires:
            self.addSwitch(f"bnlpw{w.name}"[:10], cls=Bridge)
        for n in spec.nodes:
            self.addHost(n.name)
            for w in n.wires:
                self.addLink(n.name, f"bnlpw{w}"[:10])


def goodput(quick: bool):
    print("TCP goodput of one flow b0->b1 / full-duplex physical limit (MSS 1448)")
    for rate in (10, 100):
        for name in PRESETS:
            with Testbed(build_spec(name, rate_mbit=rate)) as tb:
                pairs = [(tb.host("b0"), tb.host("b1"))]
                [f] = iperf.run_pairs(pairs, seconds=3 if quick else 6, omit=1)
                limit = tcp_goodput_limit_mbit(rate) * (len(tb.spec.node("b0").wires)
                                                        if tb.spec.node("b0").bonded else 1)
                print(f"  {name:22s} {rate:4d} Mbit/s  {f.goodput_mbit:7.2f} Mbit/s  ratio {f.goodput_mbit / limit:.3f}")


def small_token():
    print("small-token round trip / wire time of its two frames (64 B token, 1 pair, 1 in flight)")
    for rate in (10, 100):
        with Testbed(build_spec("single-net", rate_mbit=rate)) as tb:
            r = token.run_exchange([(tb.host("b0"), tb.host("b1"))], 64, 1, exchanges=2000)
            wire = 2 * frame_time_s(64 + 52 + 14, rate)
            print(f"  single-net {rate:4d} Mbit/s  median RTT {r['rtt_ms_median']:.3f} ms, "
                  f"frames' wire time {wire * 1e3:.3f} ms, ratio {r['rtt_ms_median'] / 1e3 / wire:.2f}")


def build_times():
    print("build+teardown of each 16-node preset / plain Mininet, same hosts and links (Linux bridges)")
    setLogLevel("warning")
    for name in PRESETS:
        spec = build_spec(name)
        t0 = time.monotonic()
        with Testbed(spec):
            pass
        ours = time.monotonic() - t0
        t0 = time.monotonic()
        net = Mininet(topo=PlainTopo(spec), controller=None, switch=Bridge, waitConnected=False)
        net.start()
        net.stop()
        plain = time.monotonic() - t0
        print(f"  {name:22s} {ours:6.2f} s vs {plain:6.2f} s  ratio {ours / plain:.2f}  "
              f"({ours / len(spec.nodes) * 1e3:.0f} ms per host)")


def fidelity_ceiling(quick: bool):
    print("highest aggregate rate before points turn suspect (single-net, 2 iperf3 flows)")
    best = None
    for rate in (100, 200, 400, 700, 1000):
        with Testbed(build_spec("single-net", rate_mbit=rate)) as tb:
            h = tb.host
            with Monitor({"w0": tb.wire("w0")}) as mon:
                flows = iperf.run_pairs([(h("b0"), h("b1")), (h("b2"), h("b3"))],
                                        seconds=2 if quick else 4, omit=1)
            rep = mon.report()
            total = sum(f.goodput_mbit for f in flows)
            print(f"  wire {rate:5d} Mbit/s: {total:7.1f} Mbit/s ({total / tcp_goodput_limit_mbit(rate):.2f} of limit), "
                  f"host CPU {rep['host_cpu_mean']:.0%}, {'SUSPECT: ' + rep['suspect'] if rep['suspect'] else 'ok'}")
            if rep["suspect"]:
                break
            best = total
    print(f"  highest trustworthy aggregate: {best:.1f} Mbit/s" if best else "  none")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="shorter flows")
    a = p.parse_args()
    if os.geteuid() != 0:
        print("bench.py: needs root: sudo python3 bench/bench.py", file=sys.stderr)
        return 2
    goodput(a.quick)
    small_token()
    build_times()
    fidelity_ceiling(a.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
