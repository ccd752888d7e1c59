#!/usr/bin/env python3
"""Benchmark: the stock kernel's implementations against this project's fallbacks,
measured in one run on whatever host runs it (not a test; nothing asserted).

  sudo python3 bench/kernel_vs_fallback.py            # on a host
  sudo python3 -m beowulf_netlab.labvm run 'python3 bench/kernel_vs_fallback.py'   # in the lab VM

Prints, for each implementation the host has:
- one TCP flow over bonded-dual-net (2 x 10 Mbit/s): goodput and its ratio to
  two wires' TCP limit, kernel balance-rr driver vs the nftables fallback;
- one TCP flow across an OVS switch at 100 Mbit/s (switched-mesh, remote wire):
  kernel vs userspace datapath;
- netem: configured vs measured ping round trip over one wire and through a relay.
Each line says which implementation ran and the host's kernel.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beowulf_netlab.core.interpreter import reexec_with_mininet  # noqa: E402

reexec_with_mininet(__file__)

from mininet.log import setLogLevel  # noqa: E402

from beowulf_netlab.netlab.capabilities import probe  # noqa: E402
from beowulf_netlab.netlab.testbed import BuildOptions, Testbed  # noqa: E402
from beowulf_netlab.netlab.shaping import tcp_goodput_limit_mbit  # noqa: E402
from beowulf_netlab.topologies.presets import build_spec  # noqa: E402
from beowulf_netlab.workloads import iperf, ping  # noqa: E402


def flow_mbit(tb: Testbed, src: str, dst: str, seconds: float) -> tuple[float, int]:
    res = iperf.run_pairs([(tb.host(src), tb.host(dst))], seconds=seconds)[0]
    return res.goodput_mbit, res.retransmits


def bonding(caps, seconds: float) -> None:
    limit = 2 * tcp_goodput_limit_mbit(10, acks_per_segment=1)
    for impl in ("kernel", "nft"):
        opts = BuildOptions(bonding=impl, require_kernel=False)
        try:
            with Testbed(build_spec("bonded-dual-net", nodes=2, rate_mbit=10), opts, caps) as tb:
                mbit, rexmit = flow_mbit(tb, "b0", "b1", seconds)
                tx = tb.host("b0").channel_tx_packets()
                print(f"bonded-dual-net 2x10, 1 TCP flow, {tb.impls['bonding']:18s}: {mbit:6.2f} Mbit/s "
                      f"= {mbit / limit:.2f} of 2 wires' TCP limit (1 ACK per segment); retransmits {rexmit}; "
                      f"per-NIC tx packets {sorted(tx.values())}", flush=True)
        except Exception as e:  # noqa: BLE001 -- an implementation this host lacks
            print(f"bonded-dual-net --bonding {impl}: not available here ({e})", flush=True)


def ovs(caps, seconds: float) -> None:
    limit = tcp_goodput_limit_mbit(100, acks_per_segment=1)
    spec = build_spec("switched-mesh", nodes=4, rate_mbit=100)
    src = spec.nodes[0]
    dst = next(n for n in spec.nodes if not set(n.wires) & set(src.wires))  # through a switch
    for impl in ("ovs", "ovs-user"):
        if impl == "ovs" and not caps.ovs_kernel_datapath:
            print("switched-mesh OVS kernel datapath: not available here (no openvswitch module)")
            continue
        opts = BuildOptions(switch=impl, require_kernel=False)
        try:
            with Testbed(spec, opts, caps) as tb:
                mbit, rexmit = flow_mbit(tb, src.name, dst.name, seconds)
                print(f"switched-mesh 100, 1 TCP flow {src.name}->{dst.name}, {tb.impls['switch']:10s}: "
                      f"{mbit:6.2f} Mbit/s = {mbit / limit:.2f} of the wire's TCP limit (1 ACK per segment); "
                      f"retransmits {rexmit}", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"switched-mesh --switch {impl}: not available here ({e})", flush=True)


def netem(caps) -> None:
    if not caps.kernel.get("netem"):
        print("netem: absent on this kernel (delay/jitter/loss/relay-delay are refused)")
        return
    opts = BuildOptions(require_kernel=False)
    with Testbed(build_spec("single-net", nodes=2, rate_mbit=100, delay_ms=25.0), opts, caps) as tb:
        rtts = ping.rtts_ms(tb.host("b0"), tb.host("b1").address, 21)
        med = statistics.median(rtts)
        print(f"netem wire delay 25 ms (RTT 50 ms): median {med:.2f} ms ({(med / 50 - 1) * 100:+.1f} %), "
              f"min {min(rtts):.2f}, max {max(rtts):.2f}, n={len(rtts)}", flush=True)
    spec = build_spec("routed-mesh", nodes=4, rate_mbit=100, relay_delay_ms=25.0)
    relayed = next(r.dst for r in spec.node("b0").routes if r.via)
    with Testbed(spec, opts, caps) as tb:
        rtts = ping.rtts_ms(tb.host("b0"), relayed, 21)
        med = statistics.median(rtts)
        print(f"netem relay delay 25 ms (RTT 50 ms via one relay): median {med:.2f} ms "
              f"({(med / 50 - 1) * 100:+.1f} %), n={len(rtts)}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="seconds per TCP flow (default 10)")
    a = ap.parse_args()
    setLogLevel("warning")
    caps = probe()
    print(f"host kernel {caps.kernel_release}; bonding {caps.bonding_impl}; switches {caps.switch_impl}; "
          f"netem {'yes' if caps.kernel.get('netem') else 'no'}", flush=True)
    bonding(caps, a.seconds)
    ovs(caps, a.seconds)
    netem(caps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
