#!/usr/bin/env python3
"""Benchmark: the frame-timed medium engine (netlab.medium), measured in one run on whatever host
runs it (not a test; nothing asserted). One emulated network at a time.

  sudo python3 bench/engine.py              # everything, about 4 minutes
  sudo python3 bench/engine.py --only ping,hub

Prints:
- ping: a lone frame's round trip (1400- and 56-byte pings) on one wire at 10 and 100 Mbit/s,
  engine against tc wire, beside two frames' wire time and the host's own time (a tc wire at
  1000 Mbit/s, where HTB delays nothing);
- hub: 2, 8 and 16 stations saturating one 10 Mbit/s hub with 64 B and 1518 B frames (UDP,
  1.5 x the wire offered), CSMA/CD on: the wire's efficiency (delivered frames' time, preamble and gap counted, over the
  elapsed time), collisions and excessive-collision drops per frame, beside Metcalfe-Boggs
  (netlab.contention) and the model alone in virtual time (engine/examples/hub.rs);
- load: the engine's CPU share and release lag at the papers' loads (8 token pairs on one 10
  and one 100 Mbit/s wire, the 4x4 switched mesh at 10, local-wire);
- ceiling: frames per second the engine releases within its gates (run.gates.engine_late: the lag
  bounds at 100 Mbit/s, late arrivals, socket drops, a busy core), one sender of 64 B frames on a
  100 Mbit/s wire (148,810/s saturate it), offered rate stepped up by a generator that is not the
  limit (engine/examples/blast.rs: sendmmsg on its own core, its offered rate printed beside), per
  core of the engine's CPU; then one sender on two wires (bonded-dual-net), past one wire's
  rate; and the pure part's own ceiling without I/O (examples/ceiling.rs).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beowulf_netlab.core.interpreter import reexec_with_mininet  # noqa: E402

reexec_with_mininet(__file__)

from mininet.log import setLogLevel  # noqa: E402

from beowulf_netlab.netlab.capabilities import probe  # noqa: E402
from beowulf_netlab.netlab.contention import efficiency as metcalfe_boggs  # noqa: E402
from beowulf_netlab.netlab.medium import point_record  # noqa: E402
from beowulf_netlab.run.gates import engine_late, lag_bounds_us  # noqa: E402
from beowulf_netlab.netlab.shaping import wire_bytes  # noqa: E402
from beowulf_netlab.netlab.testbed import BuildOptions, Testbed  # noqa: E402
from beowulf_netlab.topologies.presets import build_spec  # noqa: E402
from beowulf_netlab.workloads import iperf, ping  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wire_ms(l2: int, rate: float) -> float:
    """One frame's carrier (preamble to FCS) in ms: what a lone frame must wait for."""
    return (max(l2, 60) + 12) * 8 / (rate * 1e6) * 1e3


def pings(caps) -> None:
    print("== a lone frame's round trip (median of 50 pings, min in brackets) ==", flush=True)
    host_ms = {}
    for size in (1400, 56):
        with Testbed(build_spec("single-net", nodes=2, rate_mbit=1000), BuildOptions(wire="tc"), caps) as tb:
            rtt = ping.rtts_ms(tb.host("b0"), tb.host("b1").address, 51, 0.05, size=size)
            host_ms[size] = statistics.median(rtt)
    for rate in (10, 100):
        for size in (1400, 56):
            floor = 2 * wire_ms(size + 8 + 20 + 14, rate)
            row = []
            for impl in ("engine", "tc"):
                with Testbed(build_spec("single-net", nodes=2, rate_mbit=rate), BuildOptions(wire=impl), caps) as tb:
                    rtt = ping.rtts_ms(tb.host("b0"), tb.host("b1").address, 51, 0.05, size=size)
                    row.append(f"{impl} {statistics.median(rtt):.3f} ({min(rtt):.3f})")
            print(f"{rate:3d} Mbit/s, {size:4d}-byte ping: {' | '.join(row)} ms; two wire times {floor:.3f}, "
                  f"+ host's own {host_ms[size]:.3f} = {floor + host_ms[size]:.3f} ms", flush=True)


def hub(caps, seconds: float) -> None:
    print("== stations saturating one 10 Mbit/s hub, CSMA/CD per frame (UDP, 1.5 x the wire offered) ==",
          flush=True)
    print("stations frame  efficiency  Metcalfe-Boggs  collisions/frame  dropped(16)  engine CPU  lag p99",
          flush=True)
    for frame, payload in ((64, 18), (1518, 1472)):
        for n in (2, 8, 16):
            spec = build_spec("single-net", nodes=n, rate_mbit=10, contention=True)
            l2 = payload + 8 + 20 + 14
            with Testbed(spec, BuildOptions(wire="engine"), caps) as tb:
                rec = iperf.medium_under_flood(tb, n, 1.5 * 10e6 / 8 / wire_bytes(l2) / n, payload, seconds)
            w = rec["wires"]["w0"]
            eff = w["busy"] * wire_bytes(l2) / (wire_bytes(l2) - 12)   # carriers plus their gaps
            mb = metcalfe_boggs(n, wire_bytes(l2))
            print(f"{n:8d} {frame:5d}  {eff:10.3f}  {mb:14.3f}  {w['collisions'] / max(w['frames'], 1):16.3f}  "
                  f"{100 * w['drops_collisions'] / max(w['frames'] + w['drops_collisions'], 1):10.2f}%  "
                  f"{rec['engine_cpu']:10.0%}  {rec['lag']['p99_us']:5.0f} us", flush=True)
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    if not os.path.exists(cargo):   # sudo's PATH has no rustup cargo: say so, skip the model's row
        print("the model alone: skipped (no cargo on PATH; run as root without sudo, or put cargo on PATH)")
        return
    model = subprocess.run([cargo, "run", "-q", "--release", "--example", "hub"], cwd=os.path.join(ROOT, "engine"),
                           capture_output=True, text=True)
    if model.returncode == 0:
        print("the model alone, in virtual time (20 s, always-ready stations):\n" + model.stdout, flush=True)


def load(seconds: float) -> None:
    print("== the engine at the papers' loads (token exchange, 8 KB tokens, 4 in flight) ==", flush=True)
    runs = [("single-net", "10", "16", "any"), ("single-net", "100", "16", "any"),
            ("switched-mesh", "10", "16", "local-wire")]
    for topo, rate, nodes, placement in runs:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            subprocess.run([sys.executable, "-I", os.path.join(ROOT, "emulate.py"), "run", "token", "--topology", topo,
                            "--rate-mbit", rate, "--nodes", nodes, "--placement", placement, "--pairs", "8",
                            "--token-size", "8192", "--tokens-in-flight", "4", "--duration", str(seconds),
                            "--wire", "engine", "--out", out], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            p = json.load(open(out))["points"][0]
        m = p["medium"]
        frames = sum(w["frames"] for w in m["wires"].values())
        print(f"{topo} @{rate}: {p['throughput_mbyte_s']:.2f} MB/s, {frames / seconds:,.0f} frames/s, engine CPU "
              f"{m['engine_cpu']:.0%}, lag p50 {m['lag']['p50_us']:.0f} / p99 {m['lag']['p99_us']:.0f} / max "
              f"{m['lag']['max_us']:.0f} us, gates {'ok' if p['gates']['ok'] else p['gates']['failed']}", flush=True)


def cargo_example(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["cargo", "run", "-q", "--release", "--example", name, "--", *args],
                          cwd=os.path.join(ROOT, "engine"), capture_output=True, text=True)


def ceiling(caps, seconds: float) -> None:
    """Frames/s the engine carries within the gates, per core of its own CPU, beside what the
    generator offered (so a reader sees the generator was not the limit), and the pure part's
    own ceiling without I/O."""
    bounds = lag_bounds_us({"rate_mbit": 100})
    print(f"== the engine's ceiling: 64 B frames at 100 Mbit/s, one sender (engine on core 0, generator "
          f"engine/examples/blast.rs on core 1); gates: lag p50 <= {bounds['p50']:g} us, p99 <= "
          f"{bounds['p99']:.0f} us, late arrivals, socket drops, work < a core ==", flush=True)
    model = cargo_example("ceiling", "2")
    if model.returncode == 0:
        for line in model.stdout.splitlines():
            m = json.loads(line)
            print(f"without I/O (shell.rs Core + model, {m['stations']} stations at {m['rate_mbit']} Mbit/s, saturated): "
                  f"{m['frames_per_core_s']:,.0f} frames/s per core", flush=True)
    build = subprocess.run(["cargo", "build", "-q", "--release", "--example", "blast"], cwd=os.path.join(ROOT, "engine"),
                           capture_output=True, text=True)
    blast = os.path.join(ROOT, "engine", "target", "release", "examples", "blast")
    if build.returncode != 0:
        print(f"cannot build the generator: {build.stderr.strip()[-300:]}", flush=True)
        return
    # one wire, then two (one sender's two cards: bonded-dual-net's wires), to show the headroom past one
    for topo, wires, steps in (("single-net", 1, (50, 100, 140, 160, 200, 300)),
                               ("bonded-dual-net", 2, (200, 280, 320, 400))):
        ceiling_series(caps, seconds, blast, bounds, topo, wires, steps)


def ceiling_series(caps, seconds: float, blast: str, bounds: dict, topo: str, wires: int, steps) -> None:
    wire_fps = wires * 100e6 / (84 * 8)   # saturated 100 Mbit/s wires of minimum frames: 148,810/s each
    print(f"-- {topo}: b0 sends on {wires} wire(s) of 100 Mbit/s ({wire_fps:,.0f} frames/s saturate them)", flush=True)
    print("offered (generator)  released  of wires  engine CPU (spin)  per core  lag p50/p99  late  drops  gates",
          flush=True)
    best = None
    for kfps in steps:
        with Testbed(build_spec(topo, nodes=2, rate_mbit=100), BuildOptions(wire="engine"), caps) as tb:
            os.sched_setaffinity(tb.medium.proc.pid, {0})
            b0, b1 = tb.host("b0"), tb.host("b1")
            gen = b0.popen([blast, "--ifname", ",".join(b0.nics()), "--rate", str(kfps * 1000),
                            "--seconds", str(seconds + 2), "--dst", b1.MAC(), "--src", b0.MAC(), "--cpu", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(1)
            before = tb.medium.snapshot(max_age_s=0)
            time.sleep(seconds)
            rec = point_record(before, tb.medium.snapshot(max_age_s=0))
            out, err = gen.communicate(timeout=seconds + 30)
        try:
            offered = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            print(f"generator failed: {err.strip()[-300:]}", flush=True)
            continue
        fps = sum(w["frames"] for w in rec["wires"].values()) / seconds
        cpu, spin = rec["engine_cpu"], rec["engine_spin"]
        late = rec["late_arrival_lag"] or {}
        verdict = engine_late(rec, bounds)
        if verdict is None and (best is None or fps > best[0]):
            best = (fps, cpu, spin, offered["offered_fps"])
        refused = f" (the generator's sends refused: {offered['refused']})" if offered["refused"] else ""
        print(f"{kfps:4d}k: {offered['offered_fps']:9,.0f}/s {fps:10,.0f}/s  {fps / wire_fps:6.1%}  {cpu:5.0%} ({spin:4.0%})  "
              f"{fps / max(cpu, 1e-3):9,.0f}  {rec['lag']['p50_us']:3.0f}/{rec['lag']['p99_us']:3.0f} us  "
              f"{late.get('count', 0):5d}  {rec['socket_drops'] or 0:5d}  {verdict or 'ok'}{refused}", flush=True)
    if best:
        fps, cpu, spin, offered = best
        print(f"ceiling within the gates: {fps:,.0f} frames/s ({fps / wire_fps:.1%} of {wires} saturated wire(s)) "
              f"with {offered:,.0f}/s offered, at {cpu:.0%} of a core: {fps / max(cpu, 1e-3):,.0f} frames/s per core "
              f"of the engine's CPU, {fps / max(cpu - spin, 1e-3):,.0f} per core of its work (CPU less its spin to "
              f"releases)", flush=True)
    else:
        print("no step kept within the gates", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="ping,hub,load,ceiling")
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    setLogLevel("error")
    caps = probe()
    print(f"host: {os.uname().nodename}, kernel {os.uname().release}, {os.cpu_count()} cores", flush=True)
    parts = set(args.only.split(","))
    if "ping" in parts:
        pings(caps)
    if "hub" in parts:
        hub(caps, args.seconds)
    if "load" in parts:
        load(args.seconds)
    if "ceiling" in parts:
        ceiling(caps, args.seconds)


if __name__ == "__main__":
    main()
