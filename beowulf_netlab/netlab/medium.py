"""The frame-timed medium: one engine process per network carries every shared wire's frames.

Division of labor: `engine/` (Rust) is the medium itself, a pure virtual-time model of each
segment (one carrier at a time, 802.3 framing, per-frame CSMA/CD, cards' queues and gaps, the
hosts' per-packet latency) inside a thin AF_PACKET shell; this module writes its configuration
from the NetworkSpec (`engine_config`, pure), starts and stops it (`Medium`), takes snapshots
of its counters, and turns two snapshots into a point's record (`point_record`, pure).

Why an engine and not a qdisc. HTB lets a frame leave when its wire time *starts*, so a lone
frame pays no wire time at all, and this kernel has no netem to add it: a 1400-byte ping over a
10 Mbit/s wire came back in 0.15 ms, where two frames' wire time is 2.35 ms. The engine receives
every frame a station puts on a wire (the kernel's receive timestamp is its arrival time),
computes when its last bit arrives in virtual time, and releases it then, on every kernel alike.

What a port's numbers are:
- a node's card: its queue is its device queue, the profile's host_cost.transmit_queue_frames (its
  kernel's: Linux 1.2.13 re-queued a busy card's frames without a limit, so a 1996 node never drops
  there: its sockets' buffers hold it back), else the wire's `queue_packets`; the sender's CPU time for the
  packet (the profile's per_packet_us + the frame's bytes x per_byte_ns) delays a frame before
  it queues and the receiver's after it arrives (a lone packet pays them: the CPU budget's HTB
  in the node lets a packet go when its CPU time starts, sets the throughput and carries the
  charge channel; the engine adds the time that packet's CPU work takes); the card's gap
  (--tx-gap-us, else the profile's card) spaces its frames from each frame's end on the wire, and
  the profile's card holds `buffers` frames, each loaded at load_ns_per_byte once a buffer is
  free (topologies.hardware.Card), and its own latency per packet (card_latency_us) adds to the
  sender's and the receiver's delays: time, not CPU;
- a switch's port: no latency, no gap; its output queue is the wire's queue.
A wire is a hub: every frame goes to every other port of its segment, as a repeater sends it, and
each node's card keeps its own (a third node sees a pair's traffic; a full-duplex wire has two
ports). The engine keeps no address table; a switch is a bridge or OVS outside it. Between two
ports of a hub a frame takes the cable's PROP_NS and the hub's repeater delay (the engine's
default, engine/src/model.rs), which also widen the collision window.
Not modelled: the card's receive ring (frames wait for the receiver's CPU in its budget, whose
backlog is the kernel's, netlab.hostcost; each profile's card.rx_ring says why it may be left out,
tests/unit/test_receive_ring.py checks it); the tc wire applies the gap alone (netlab.nic), not the
buffers, the load, the latency or the device queue.

The engine's releases are late by the host's timer lateness (the lag), which it records per
frame; throughput does not drift with it (departures are computed in virtual time), but round
trips include it, so every point records the lag distribution and a gate fails a point whose
median or 99th percentile exceeds its bound (LAG_P50_BOUND_US, LAG_P99_BOUND_US; run.gates).
What else a point records of the engine's keeping up (`point_record`): the frames it read after
its model had passed their arrival time (taken late, each delaying that frame: how late, as a
histogram), the frames the kernel dropped on its sockets before it read them (`socket_drops`),
its failed sends (`send_errors`), and the frames it refused (`oversize`: over 802.3's maximum,
never carried; `runts`). A key an older engine did not write is None: unknown, not zero.

Captures (`Medium(captures={wire: file})`): the engine writes each named wire's frames as pcapng
(engine/src/pcapng.rs: stamped when each frame's last bit left the wire, collisions and drops as
comments, at most `capture_limit` bytes of frames) into a root-only folder of the state directory
(it runs as root, so it creates each file new and never through a link); when it stops, each
file is copied to where the caller asked (core.safefile: never written through a link there). An
engine restarted on the same ports (run.hostpath's retimed delays) starts its captures again:
what they hold is what the network carried from the last start on.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from beowulf_netlab.core.errors import RuntimeFailure
from beowulf_netlab.core.safefile import private_dir, read_bytes, untrusted_program, write_atomic_bytes
from beowulf_netlab.topologies.ethernet import PROP_NS
from beowulf_netlab.topologies.spec import NetworkSpec
from beowulf_netlab.topologies.timescale import host_cost, scaled_time, wire_rate

REPO = Path(__file__).resolve().parents[2]   # the checkout's top (beowulf_netlab/'s parent)
ENGINE_NAME = "beowulf-medium"       # its process name (run.monitor watches its CPU)
ENGINE_BIN = REPO / "engine" / "target" / "release" / ENGINE_NAME   # a checkout's cargo build
# An installed copy has no engine/ (pip installs the Python package only): this names a build
# of it, e.g. a checkout's, `sudo NETLAB_ENGINE=/path/to/beowulf-medium beowulf-netlab ...`
ENGINE_ENV = "NETLAB_ENGINE"

# Propagation between two stations of a segment (PROP_NS, declared with the Ethernet arithmetic in
# topologies.ethernet: 1140 ns of cable). The engine adds the hub's repeater delay to it (its
# default, declared in engine/src/model.rs and mirrored by topologies.ethernet.path_ns: 10 bit
# times at 10 Mbit/s, 46 at 100; each segment's is in its statistics and the record).
# The engine runs under SCHED_FIFO at this priority where the kernel allows it: a real-time
# policy keeps its wake-ups prompt while the nodes keep both cores busy (platform.md: p99 timer
# lateness 0.47 ms against 32 ms under SCHED_OTHER).
FIFO_PRIORITY = 10
# Rates the engine carries by default (real Mbit/s); above, or on a time-scaled network, the tc
# wire runs (impls.wire_impl).
ENGINE_MAX_RATE_MBIT = 100.0
# A point fails its gate when the engine's releases were later than these (run.gates): the
# median, which shifts every round trip, by more than a seventh of a minimum frame's wire time at
# 10 Mbit/s (67.2 us), or the 99th percentile by more than three of them (a sixth of a full
# frame's 1.23 ms). Measured on the 2-core host (bench/engine.py, reproduce --quick): p50 1-2 us;
# p99 17-57 us with one or a few busy wires, 100-133 us when many frames fall due at once (each
# release runs the receiving node's stack in the engine's thread, so the frames of one instant
# wait for each other: 8 bonded pairs of 1 KB tokens on the prototype read 124 us); a saturated
# host reads p99 0.26-1.7 ms (8 pairs of 64 B tokens at 100 Mbit/s; the demonstration system's
# disk copies at 100 Mbit/s).
LAG_P50_BOUND_US = 10.0
LAG_P99_BOUND_US = 200.0
# The engine arms its timer ahead of a release by twice its wake-ups' mean lateness, spinning the
# rest, but never more than this ahead (engine/src/main.rs).
MAX_EARLY_US = 100
# While it runs the engine asks the kernel (PM QoS, /dev/cpu_dma_latency) to keep idle cores out
# of idle states slower to leave than this: on this host a halted virtual CPU woke the engine's
# timer 24-50 us late (median), a polling one 14 us, and the spin that hides the rest cost half as
# much (bench/engine.py: single-net at 100 Mbit/s, engine CPU 57 % -> 34 %).
CPU_LATENCY_US = 0
START_TIMEOUT_S = 5.0
# A capture's bound on its frames' bytes (the engine's --capture-limit): some 300,000 minimum
# frames or 43,000 full ones; past it the engine counts the frames it leaves out (pcapng.rs).
CAPTURE_LIMIT_BYTES = 64 << 20
SNAPSHOT_TIMEOUT_S = 2.0


def engine_path() -> Path:
    """The engine's binary: $NETLAB_ENGINE where set, else the checkout's build (setup.sh builds
    it with cargo)."""
    given = os.environ.get(ENGINE_ENV)
    return Path(given) if given else ENGINE_BIN


def engine_available() -> bool:
    """The engine is built (or named by $NETLAB_ENGINE): an executable file called beowulf-medium
    (its process name is how the monitor finds it)."""
    path = engine_path()
    if os.environ.get(ENGINE_ENV) and untrusted_program(path):
        return False   # root runs it: never a binary another user could write or swap
    return path.name == ENGINE_NAME and path.is_file() and os.access(path, os.X_OK)


def engine_hint() -> str:
    """How to get the engine where it is absent, said plainly: a checkout builds it with
    ./setup.sh; an installed copy has no engine/ and no setup.sh, so it names cargo's command for
    a checkout and the variable that points at the binary."""
    given = os.environ.get(ENGINE_ENV)
    why = given and untrusted_program(Path(given))
    if why:
        return f"{ENGINE_ENV}={given} is not run as root: {why} (copy the build into a folder only root can change)"
    if given:
        return (f"{ENGINE_ENV}={given} is no executable file named {ENGINE_NAME}: point it at a build "
                f"(cargo build --release --manifest-path CHECKOUT/engine/Cargo.toml makes "
                f"CHECKOUT/engine/target/release/{ENGINE_NAME})")
    if (REPO / "engine" / "Cargo.toml").is_file():
        return "build it: ./setup.sh"
    return (f"this installed copy has no engine/: build it in a checkout with cargo build --release "
            f"--manifest-path CHECKOUT/engine/Cargo.toml, then run with "
            f"{ENGINE_ENV}=CHECKOUT/engine/target/release/{ENGINE_NAME} (sudo {ENGINE_ENV}=... beowulf-netlab ...)")


def engine_config(spec: NetworkSpec, ports: list[tuple[str, str, str | None]], seed: int = 1,
                  less_ns: int = 0) -> str:
    """The engine's configuration (engine/src/config.rs) for `spec`: `ports` lists each
    root-namespace port as (interface, wire name, node name or None for a switch's port).
    Its rates and times are in scaled time (topologies.timescale). less_ns: each node's
    per-packet delay less this, never below zero (this host's own path per pass, measured on
    the built network: run.hostpath), except on the frames a relay forwards."""
    d = spec.machine.time_scale
    lines = [f"seed {int(seed)}"]
    card = spec.machine.profile.card if spec.machine.profile is not None else None
    for w in spec.wires:
        lines.append(f"segment {w.name} rate_bps={round(wire_rate(spec, w) * 1e6)} "
                     f"duplex={'full' if w.full_duplex else 'half'} csma={int(w.contention)} "
                     f"prop_ns={round(scaled_time(PROP_NS, d))}")
    for intf, wire, node in ports:
        w = spec.wire(wire)
        delay = gap = per_byte = load = 0
        buffers, queue = 1, w.queue_packets
        relay = ""
        if node is not None:
            n = spec.node(node)
            cost = host_cost(spec, n)
            if cost is not None:
                queue = cost.transmit_queue_frames or queue
                per_packet = round(cost.per_packet_us * 1e3)
                taken = min(per_packet, max(0, int(less_ns)))
                delay = per_packet - taken + round(scaled_time(spec.machine.card_latency_us * 1e3, d))
                per_byte = round(cost.per_byte_ns * 1e3)
                if n.forwarding:
                    # a frame the node forwards: Linux 1.2's copy, as its model's round trip has it,
                    # and its two passes' whole per-packet time (the host path measured is an
                    # endpoint's; a kernel's forwarding takes less, so none of it comes off)
                    relay = (f" fwd_ps_per_byte={round(cost.relay_copy_per_byte_ns * 1e3)} "
                             f"fwd_delay_ns={2 * taken} own={n.ip}")
            gap = round(scaled_time(spec.machine.tx_gap_us * 1e3, d))
            if card is not None:
                buffers, load = card.buffers, round(scaled_time(card.load_ns_per_byte * 1e3, d))
        lines.append(f"port {intf} segment={wire} queue={queue} tx_delay_ns={delay} "
                     f"rx_delay_ns={delay} ps_per_byte={per_byte} tx_gap_ns={gap} "
                     f"load_ps_per_byte={load} buffers={buffers}{relay}")
    return "\n".join(lines) + "\n"


def first_segment(config: list[str]) -> tuple[str, list[str], list[str]] | None:
    """The first wire of an engine configuration as written by engine_config: (its name, its
    segment line, its ports' lines), or None. Readers of a stored configuration (the report)
    ask here; the format is this module's and engine/src/config.rs's alone."""
    seg = next((ln.split()[1] for ln in config if ln.startswith("segment ")), None)
    if seg is None:
        return None
    return (seg, [ln for ln in config if ln.startswith(f"segment {seg} ")],
            [ln for ln in config if ln.startswith("port ") and f" segment={seg} " in ln])


def _write_private(path: Path, text: str) -> None:
    """A file of the run's own in the tool's root-only state directory (never through a link)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


class Medium:
    """One running engine (see module doc). `snapshot()` asks it for its counters."""

    def __init__(self, config: str, state_dir: Path, prefix: str, captures: dict[str, Path] | None = None,
                 capture_limit: int = CAPTURE_LIMIT_BYTES):
        self.config_path = state_dir / f"{prefix}-medium.conf"
        self.stats_path = state_dir / f"{prefix}-medium.json"
        self.config = config
        self.captures = {wire: Path(dest) for wire, dest in (captures or {}).items()}
        self.capture_dir = state_dir / f"{prefix}-capture"
        self.capture_limit = int(capture_limit)
        self.captured: dict[str, dict] = {}   # per wire, what the engine last said of its capture
        self.proc: subprocess.Popen | None = None
        self._last: dict | None = None
        self._last_t = 0.0

    def start(self) -> "Medium":
        state = self.config_path.parent
        private_dir(state, "state folder", env="NETLAB_STATE_DIR")
        for p in (self.stats_path, Path(f"{self.stats_path}.tmp")):
            if p.is_symlink() or p.exists():
                p.unlink()
        _write_private(self.config_path, self.config)
        self.proc = subprocess.Popen([str(engine_path()), "--config", str(self.config_path), "--stats",
                                      str(self.stats_path), "--fifo", str(FIFO_PRIORITY),
                                      "--max-early-us", str(MAX_EARLY_US),
                                      "--cpu-latency-us", str(CPU_LATENCY_US), *self._capture_args()],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, close_fds=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace").strip() if self.proc.stderr else ""
                raise RuntimeFailure(f"the medium engine did not start: {err or 'exit ' + str(self.proc.returncode)}"
                                     f" ({engine_hint().replace('build it', 'rebuild it')}; or run with --wire tc)")
            if self._read():
                return self
            time.sleep(0.005)
        self.stop()
        raise RuntimeFailure("the medium engine did not open its ports within "
                             f"{START_TIMEOUT_S:g} s; run with --wire tc")

    def _capture_file(self, wire: str) -> Path:
        return self.capture_dir / f"{wire}.pcapng"

    def _capture_args(self) -> list[str]:
        """--capture WIRE=FILE for each capture, in a root-only folder made here, emptied of
        an earlier start's files (the engine creates each anew)."""
        if not self.captures:
            return []
        private_dir(self.capture_dir, "capture folder", env="NETLAB_STATE_DIR")
        args = []
        for wire in self.captures:
            f = self._capture_file(wire)
            if f.is_symlink() or f.exists():
                f.unlink()
            args += ["--capture", f"{wire}={f}"]
        return args + ["--capture-limit", str(self.capture_limit)]

    def _deliver_captures(self, last: dict | None) -> None:
        """Each capture the engine wrote, to where the caller asked; its folder removed."""
        self.captured = dict((last or {}).get("captures") or {})
        for wire, dest in self.captures.items():
            f = self._capture_file(wire)
            try:
                write_atomic_bytes(dest, read_bytes(f, f"the capture of {wire}", self.capture_limit + (1 << 20)))
                self.captured.setdefault(wire, {})["out"] = str(dest)
                f.unlink()
            except Exception as e:   # noqa: BLE001 -- said in the record, never fatal to a teardown
                self.captured.setdefault(wire, {})["error"] = str(e)
        if self.captures:
            try:
                self.capture_dir.rmdir()
            except OSError:
                pass

    def restart(self, config: str) -> "Medium":
        """The same ports under another configuration (run.hostpath's retimed delays): the
        engine stopped and started again, its counters from zero."""
        self.stop(deliver=False)
        self.config, self._last = config, None
        return self.start()

    def _read(self) -> dict | None:
        try:
            return json.loads(self.stats_path.read_text())
        except (OSError, ValueError):
            return None

    def snapshot(self, max_age_s: float = 0.02) -> dict:
        """The engine's counters now (a snapshot younger than max_age_s is reused: the monitor
        reads every wire at once)."""
        if self._last is not None and time.monotonic() - self._last_t <= max_age_s:
            return self._last
        if self.proc is None or self.proc.poll() is not None:
            raise RuntimeFailure("the medium engine has stopped; its wires carry nothing "
                                 "(see 'emulate.py doctor', or run with --wire tc)")
        seq = (self._read() or {}).get("seq", 0)
        os.kill(self.proc.pid, signal.SIGUSR1)
        deadline = time.monotonic() + SNAPSHOT_TIMEOUT_S
        while time.monotonic() < deadline:
            d = self._read()
            if d is not None and d.get("seq", 0) > seq:
                self._last, self._last_t = d, time.monotonic()
                return d
            time.sleep(0.001)
        raise RuntimeFailure("the medium engine did not answer for its counters within "
                             f"{SNAPSHOT_TIMEOUT_S:g} s")

    def stop(self, deliver: bool = True) -> dict | None:
        """End the engine; its last counters, if it wrote them. Its captures go where they were
        asked for (unless `deliver` is False: a restart begins them again)."""
        if self.proc is None:
            return None
        proc, self.proc = self.proc, None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr:
            proc.stderr.close()
        last = self._read()
        for p in (self.config_path, self.stats_path):
            try:
                p.unlink()
            except OSError:
                pass
        if deliver:
            self._deliver_captures(last)
        return last

    def record(self) -> dict:
        """What ran, for the network's environment: the engine, its scheduling, its constants."""
        d = self.snapshot(max_age_s=10)
        return {"engine": d.get("engine"), "version": d.get("version"), "sched": d.get("sched"),
                "cpu_latency_us": d.get("cpu_latency_us"),
                "prop_ns": PROP_NS,
                "repeater_ns": {name: seg.get("repeater_ns") for name, seg in d.get("segments", {}).items()},
                "lag_p50_bound_us": LAG_P50_BOUND_US,
                "lag_p99_bound_us": LAG_P99_BOUND_US, "max_early_us": MAX_EARLY_US,
                "config": self.config.splitlines()}

    def wire_bytes(self, wire: str) -> int:
        return int(self.snapshot()["segments"][wire]["wire_bytes"])

    def port_counters(self, wire: str) -> dict[str, dict]:
        return {name: p for name, p in self.snapshot()["ports"].items() if p["segment"] == wire}


def one_way_hold_us(before: dict, after: dict, senders: list[str], receivers: list[str]) -> float | None:
    """How long a frame the `senders` ports put in spent inside the engine on its way, on
    average between two snapshots (us): every delivery to a `receivers` port (the other end's,
    and any switch port a frame crosses on the way: each crossing is one more delivery) from its
    frame's arrival to its release, over the frames the senders put in. None when they put none.
    Meant for an otherwise idle network whose switches know the senders' addresses (a flooded
    frame is delivered more than once)."""
    frames = sum(after["ports"][p]["frames_in"] - before["ports"][p]["frames_in"] for p in senders)
    if frames <= 0:
        return None
    held = sum(after["ports"][p]["held_ns"] - before["ports"][p]["held_ns"] for p in receivers)
    return held / frames / 1e3


LAST_BUCKET = 2000   # the engine's last 1 us bucket holds every lag of 2 ms or more (engine/src/shell.rs)
PORT_TOTALS = ("socket_drops", "send_errors", "oversize", "runts")


def lag_percentiles(buckets: dict[int, int]) -> dict[str, float]:
    """p50, p99 and max (us, each bucket's upper edge: 1 us buckets) of a lag histogram."""
    total = sum(buckets.values())
    if total <= 0:
        return {"count": 0, "p50_us": 0.0, "p99_us": 0.0, "max_us": 0.0}
    out, seen = {}, 0
    wanted = [("p50_us", 0.50), ("p99_us", 0.99)]
    for b in sorted(buckets):
        seen += buckets[b]
        while wanted and seen >= wanted[0][1] * total:
            out[wanted.pop(0)[0]] = float(b + 1)
    out["max_us"] = float(max(b for b, c in buckets.items() if c > 0) + 1)
    out["count"] = total
    return out


def interval_lag(before: dict | None, after: dict | None) -> dict | None:
    """The distribution of what one of the engine's histograms (its `lag`, `late_arrival_lag`)
    recorded between two snapshots: count, p50_us, p99_us (bucket upper edges) and max_us, exact
    when the interval set the engine's running max_ns, else its bucket's upper edge (never above
    max_ns; past the last bucket, max_ns: an upper bound); no percentile above max_us. None when
    a snapshot lacks the histogram."""
    if not before or not after or "buckets" not in before or "buckets" not in after:
        return None
    b0 = {b: c for b, c in before["buckets"]}
    delta = {b: c - b0.get(b, 0) for b, c in after["buckets"] if c - b0.get(b, 0) > 0}
    out = lag_percentiles(delta)
    top, was = after.get("max_ns"), before.get("max_ns")
    if delta and top is not None:
        if was is None or top > was:
            out["max_us"] = round(top / 1e3, 3)
        else:
            edge = float(max(delta) + 1) if max(delta) < LAST_BUCKET else float("inf")
            out["max_us"] = round(min(edge, top / 1e3), 3)
        for k in ("p50_us", "p99_us"):   # an upper edge, never above the largest lag itself
            out[k] = min(out[k], out["max_us"])
    return out


def port_totals(before: dict, after: dict, ports: list[str] | None = None) -> dict[str, int | None]:
    """Each of PORT_TOTALS summed over `ports` (all by default) between two snapshots; None
    where a snapshot lacks it (an engine older than the counter)."""
    names = list(after["ports"]) if ports is None else ports
    out: dict[str, int | None] = {}
    for k in PORT_TOTALS:
        pairs = [(before["ports"].get(n, {}), after["ports"][n]) for n in names]
        known = all(k in p0 and k in p1 for p0, p1 in pairs)
        out[k] = sum(p1[k] - p0[k] for p0, p1 in pairs) if known else None
    return out


def point_record(before: dict, after: dict) -> dict:
    """What the engine did during a point, from two snapshots: the release lag's distribution,
    the engine's CPU share, its late arrivals and how late they were, the frames the kernel
    dropped on its sockets, failed to send or it refused, and per wire the frames, collisions,
    drops and busy share. A key a snapshot lacks (an older engine) is None: unknown."""
    span = max(after["uptime_s"] - before["uptime_s"], 1e-9)
    wires = {}
    for name, s1 in after["segments"].items():
        s0 = before["segments"].get(name, {})
        ports = [(p, after["ports"][n]) for n, p in before["ports"].items() if p["segment"] == name]
        dd = {k: sum(p1[k] - p0[k] for p0, p1 in ports)
              for k in ("drops_queue", "drops_collisions", "deferrals", "send_errors")}
        wires[name] = {"frames": s1["frames"] - s0.get("frames", 0),
                       "collisions": s1["collisions"] - s0.get("collisions", 0),
                       "busy": round((s1["busy_ns"] - s0.get("busy_ns", 0)) / 1e9 / span, 4),
                       "collision_time": round((s1["collision_ns"] - s0.get("collision_ns", 0)) / 1e9 / span, 4),
                       "backoff_idle": round((s1.get("backoff_idle_ns", 0) - s0.get("backoff_idle_ns", 0))
                                             / 1e9 / span, 4),
                       **dd}
    return {"lag": interval_lag(before["lag"], after["lag"]),
            "late_arrival_lag": interval_lag(before.get("late_arrival_lag"), after.get("late_arrival_lag")),
            **port_totals(before, after),
            "engine_cpu": round((after["cpu_s"] - before["cpu_s"]) / span, 4),
            # of which spent spinning to a release (time kept, not work done)
            "engine_spin": round((after.get("spin_s", 0) - before.get("spin_s", 0)) / span, 4),
            "late_arrivals": after["late_arrivals"] - before["late_arrivals"],
            "sched": after.get("sched"), "wires": wires}
