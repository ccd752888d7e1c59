#!/usr/bin/env python3
"""Benchmark the hardware profiles: ratios measured in one run (not a test).

  sudo python3 bench/hardware.py [--quick]

Per profile: one TCP flow at 10 and 100 Mbit/s against the era's figures the
profile cites (ttcp), and the model's own prediction; the small-token round
trip against lmbench's loopback latencies; then what the model costs: build
time of a 16-node network and host CPU during a 100 Mbit/s flow, with and
without a profile; last the era validation table (beowulf_netlab/claims/era-checks.json), as
the reproduction report shows it.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beowulf_netlab.core.interpreter import reexec_with_mininet  # noqa: E402

reexec_with_mininet(__file__)

from beowulf_netlab.netlab.contention import drop_probability, efficiency  # noqa: E402
from beowulf_netlab.netlab.testbed import Testbed  # noqa: E402
from beowulf_netlab.run.monitor import Monitor  # noqa: E402
from beowulf_netlab.netlab.hostcost import round_trip_us  # noqa: E402
from beowulf_netlab.topologies.hardware import load, profile_names  # noqa: E402
from beowulf_netlab.topologies.presets import build_spec  # noqa: E402
from beowulf_netlab.workloads import iperf, token  # noqa: E402

ERA = {  # figures the profiles cite as checks (beowulf_netlab/hardware/*.json)
    "prototype-1995": "ttcp 10 Mbit/s 486DX2-66 Linux 1.3: send 1.063, receive 0.998 MB/s; "
                      "lmbench lat_tcp loopback 1465-1592 us, lat_udp 351-368 us",
    "demonstration-1996": "no Fast Ethernet ttcp found; lmbench lat_tcp loopback 467-1291 us, "
                          "lat_udp 187-281 us",
}


def predicted_mbyte_s(cost, acks_per_segment: float = 0.5) -> float:
    return 1448 / (cost.packet_time_us(1514) + acks_per_segment * cost.packet_time_us(66))


def card_mbyte_s(card, rate_mbit: float) -> float:
    """What one sending card allows a stream of full frames (engine/src/model.rs): a carrier,
    then the Tx-done gap (and, with one buffer, the next frame's load) or the wire's 96-bit gap."""
    carrier = (1514 + 4 + 8) * 8 / rate_mbit
    between = card.tx_gap_us + (1514 * card.load_ns_per_byte / 1e3 if card.buffers == 1 else 0.0)
    return 1448 / (carrier + max(between, 96 / rate_mbit))


def single_flow(quick: bool) -> None:
    print("one TCP flow b0->b1 on single-net, MB/s (model: the CPU's 1448 B / (c(1514) + c(66)/2) "
          "or the card's, the smaller)")
    for name in profile_names():
        prof = load(name)
        for rate in (10, 100):
            with Testbed(build_spec("single-net", nodes=2, rate_mbit=rate, hardware=name)) as tb:
                with Monitor({"w0": tb.wire("w0")}) as mon:
                    [f] = iperf.run_pairs([(tb.host("b0"), tb.host("b1"))], seconds=3 if quick else 6, omit=1)
                rep = mon.report()
            bound = min([predicted_mbyte_s(prof.host_cost)] if prof.host_cost else []
                        + ([card_mbyte_s(prof.card, rate)] if prof.card else []), default=None)
            model = f"model {bound:.2f}" if bound else "model -"
            print(f"  {name:20s} {rate:4d} Mbit/s  {f.goodput_mbit / 8:6.3f} MB/s  {model}  "
                  f"host CPU {rep['host_cpu_mean']:.0%}{'  SUSPECT' if rep['suspect'] else ''}")
        if name in ERA:
            print(f"  {'':20s} era: {ERA[name]}")


def small_token() -> None:
    print("64 B token round trip, 1 pair, 1 in flight, single-net 10 Mbit/s "
          "(model: netlab.hostcost.round_trip_us, the card's latency included; this host's own path "
          "is not taken off here: networks built through the API keep it)")
    for name in profile_names():
        prof = load(name)
        with Testbed(build_spec("single-net", nodes=2, rate_mbit=10, hardware=name)) as tb:
            r = token.run_exchange([(tb.host("b0"), tb.host("b1"))], 64, 1, exchanges=1000)
            lone = tb.impls.get("host_cost") or ""
            latency = tb.spec.machine.card_latency_us
        how = ("the medium engine" if "engine" in lone else "netem" if "netem" in lone
               else "nothing (no netem, no engine: throughput cost only)")
        note = f"model {round_trip_us(prof.host_cost, 10, 64, latency):.0f} us, a lone packet's latency " \
               f"applied by {how}" if prof.host_cost else ""
        print(f"  {name:20s} median RTT {r['rtt_ms_median'] * 1e3:7.0f} us  {note}")


def model_cost(quick: bool) -> None:
    print("cost of the model: build+teardown of 16-node single-net, host CPU of one 100 Mbit/s flow")
    for name in ("none", "demonstration-1996"):
        t0 = time.monotonic()
        with Testbed(build_spec("single-net", nodes=16, rate_mbit=100, hardware=name)) as tb:
            built = time.monotonic() - t0
            with Monitor({"w0": tb.wire("w0")}) as mon:
                [f] = iperf.run_pairs([(tb.host("b0"), tb.host("b1"))], seconds=3 if quick else 6, omit=1)
            rep = mon.report()
        per_100 = rep["host_cpu_mean"] / max(f.goodput_mbit, 1e-9) * 100
        print(f"  {name:20s} build {built:5.2f} s  flow {f.goodput_mbit:6.1f} Mbit/s  host CPU "
              f"{rep['host_cpu_mean']:.0%} ({per_100:.1%} of the host per 100 Mbit/s carried)")


def contention_table() -> None:
    print("Metcalfe-Boggs efficiency F / (F + 64 W(Q)) the contention model charges")
    for frame in (84, 578, 1538):
        print(f"  {frame:5d} B frames: " + "  ".join(f"Q={q}: {efficiency(q, frame):.2f}" for q in (1, 2, 4, 8, 16)))
    print("  frames dropped after 16 collisions, (1 - A)^16:   "
          + "  ".join(f"Q={q}: {drop_probability(q):.1e}" for q in (1, 2, 4, 8, 16)))


def era_validation(quick: bool) -> None:
    """The era validation table (beowulf_netlab/claims/era-checks.json), measured by the experiments it names,
    exactly as `reproduce` measures and reads it (beowulf_netlab/judge/validation.py)."""
    import tempfile
    from pathlib import Path
    from beowulf_netlab.netlab.testbed import BuildOptions
    from beowulf_netlab.run.experiment import experiment_files, load as load_experiment
    from beowulf_netlab.run.session import Session
    from beowulf_netlab.judge.validation import experiments, readings, table
    docs = {}
    with tempfile.TemporaryDirectory(prefix="bench-era-") as tmp:
        names = experiments()
        sweeps = {n: load_experiment(experiment_files()[n], quick=quick)[0] for n in names}
        session = Session("bench", BuildOptions(), list(sweeps.values()), [])
        for n, sweep in sweeps.items():
            docs[n] = session.run(sweep, Path(tmp) / f"{n}.json", None, n, progress=False)
    print("\n".join(table(readings(docs))))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="shorter flows")
    a = p.parse_args()
    if os.geteuid() != 0:
        print("hardware.py: needs root: sudo python3 bench/hardware.py", file=sys.stderr)
        return 2
    single_flow(a.quick)
    small_token()
    model_cost(a.quick)
    contention_table()
    era_validation(a.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
