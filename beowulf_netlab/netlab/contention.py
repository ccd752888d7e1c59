"""CSMA/CD contention on a shared wire, as an average cost per frame (--contention on).

The Metcalfe-Boggs model (Metcalfe and Boggs 1976, the papers' reference via
Boggs, Mogul and Kent 1988): with Q stations backlogged, each transmitting in
a contention slot with probability 1/Q, a slot is acquired with probability
A = (1 - 1/Q)^(Q-1), and a frame waits on average W = (1 - A) / A slots of
512 bit times (64 bytes on the wire: 51.2 us at 10 Mbit/s, 5.12 us at 100).
So a frame of F on-wire bytes costs F + 64 W, and the wire carries
F / (F + 64 W) of its rate: 1 at Q = 1, 0.94 for 1538-byte frames and Q = 16,
0.45 for minimum frames (84 bytes on the wire) and Q = 16.

How it is charged. A kernel cannot count backlogged stations per frame, and
this kernel refuses size tables below the root, so a controller thread samples
each wire's per-station HTB leaves every SAMPLE_S (a leaf holding a frame is
a backlogged station), and every UPDATE_S sets the wire class's rate to
rate x F / (F + 64 W) with Q the mean count and F the mean on-wire frame
size just carried, and each station's assured share to 1/n of that. The
kernel then enforces it frame by frame.
A frame that collides on 16 attempts in a row is dropped (IEEE 802.3's attempt
limit). In the model each attempt collides with probability 1 - A, so a frame is
lost with probability (1 - A)^16: 1.5e-5 at Q = 2, 3.4e-4 at Q = 8, 5e-4 at
Q = 16. The controller sets that probability with the rate, as one nftables rule
per wire in a bridge table of the run (`bnl<id>collisions`, removed with the run;
nftables' numgen draws per frame, so no netem or gact is needed): a frame leaving
the wire's IFB (charged, as a frame that tried 16 times was) is dropped before the
bridge forwards it, which TCP sees as a loss on the wire.
Not modelled: the capture effect and per-collision timing. Boggs, Mogul and Kent
measured real Ethernets doing better than this model under heavy load (its
"myths"): the model errs towards too much contention, and towards too many drops
(binary exponential backoff makes a 16th collision rarer than independent attempts do).
"""
from __future__ import annotations

import threading
import time

from beowulf_netlab.core.command import run
from beowulf_netlab.netlab.manifest import collision_table
from beowulf_netlab.netlab.shaping import MAX_FRAME_ON_WIRE, burst_bytes, class_stats, rate_arg

SLOT_BYTES = 64          # 512 bit times
ATTEMPTS = 16            # IEEE 802.3 attemptLimit: a frame is dropped after 16 collisions
DRAWS = 1_000_000        # nftables' numgen draws per frame: a loss probability in parts per million
SAMPLE_S = 0.05
UPDATE_S = 0.5
MIN_CHANGE = 0.01        # relative rate change worth a tc call


def acquisition(q: float) -> float:
    """A: probability that exactly one of q backlogged stations sends in a slot."""
    if q <= 1:
        return 1.0
    return (1 - 1 / q) ** (q - 1)


def wait_slots(q: float) -> float:
    """W: mean contention slots per frame."""
    a = acquisition(q)
    return (1 - a) / a


def efficiency(q: float, frame_wire_bytes: float = MAX_FRAME_ON_WIRE) -> float:
    """Fraction of the wire's rate left for frames of this on-wire size."""
    return frame_wire_bytes / (frame_wire_bytes + SLOT_BYTES * wait_slots(q))


def drop_probability(q: float) -> float:
    """A frame's chance of colliding on every one of its ATTEMPTS attempts."""
    return (1 - acquisition(q)) ** ATTEMPTS


def drop_ruleset(table: str, wires: dict[str, tuple[list[str], int]], create: bool = False) -> str:
    """nft -f input: one rule per wire dropping `ppm` frames in a million that enter the
    bridge from one of its ports (`wires`: name -> (ports, ppm)); every wire counts its
    drops in a named counter. The chain is flushed and refilled in one transaction."""
    lines = []
    if create:
        lines += [f"add table bridge {table}",
                  f"add chain bridge {table} drops {{ type filter hook forward priority 0; policy accept; }}"]
        lines += [f"add counter bridge {table} {name}" for name in wires]
    lines.append(f"flush chain bridge {table} drops")
    for name, (ports, ppm) in wires.items():
        if ppm > 0 and ports:
            names = ", ".join(f'"{p}"' for p in ports)
            lines.append(f"add rule bridge {table} drops iifname {{ {names} }} "
                         f"numgen random mod {DRAWS} < {ppm} counter name \"{name}\" drop")
    return "\n".join(lines) + "\n"


def parse_counters(text: str) -> dict[str, int]:
    """Packets per named counter from `nft list counters table bridge T`."""
    out, name = {}, None
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "counter":
            name = words[1]
        elif name and "packets" in words:
            out[name] = int(words[words.index("packets") + 1])
            name = None
    return out


def parse_leaves(text: str) -> tuple[dict[str, int], tuple[int, int]]:
    """From `tc -s class show`: backlog packets per leaf class, and the wire
    class's (bytes, packets) sent."""
    stats = class_stats(text)
    wire = stats.get("1:1", {"bytes": 0, "packets": 0})
    return ({c: v["backlog"] for c, v in stats.items() if v["leaf"]},
            (wire["bytes"], wire["packets"]))


def change_cmds(ifb: str, want_mbit: float, rate_mbit: float, leaves: list[str]) -> list[list[str]]:
    """tc argv setting the wire class to `want_mbit`, and every station leaf's assured
    share to want/n with `want` as its ceiling: an HTB leaf under its own rate sends
    without asking its parent, so lowering the parent alone would not bind while many
    stations are busy."""
    burst = str(burst_bytes(rate_mbit))
    cmds = [["tc", "class", "change", "dev", ifb, "parent", "1:", "classid", "1:1", "htb",
             "rate", rate_arg(want_mbit), "ceil", rate_arg(want_mbit), "burst", burst, "cburst", burst]]
    share = rate_arg(want_mbit / max(len(leaves), 1))
    for leaf in leaves:
        cmds.append(["tc", "class", "change", "dev", ifb, "parent", "1:1", "classid", leaf, "htb",
                     "rate", share, "ceil", rate_arg(want_mbit), "burst", burst, "cburst", burst,
                     "quantum", str(MAX_FRAME_ON_WIRE)])
    return cmds


class WireState:
    def __init__(self, name: str, wire):
        self.name = name
        self.wire = wire
        self.samples: list[int] = []
        self.leaves: dict[str, int] = {}       # the last sample: leaf -> backlog
        self.sent = (0, 0)                     # the last sample: the wire class's (bytes, packets)
        self.last = (0, 0)
        self.rate_mbit = wire.rate_mbit
        self.updates = 0
        self.q_sum = 0.0
        self.q_n = 0
        self.min_efficiency = 1.0
        self.ports = list(wire.port_names())
        self.history: list[tuple[float, float]] = [(time.monotonic(), wire.rate_mbit)]   # (since, rate)
        self.drop_ppm = 0                      # the frames in a million dropped after 16 attempts
        self.max_drop_ppm = 0


class ContentionControl:
    """The controller thread for every wire with contention (see module doc)."""

    def __init__(self, wires: dict, prefix: str):
        """wires: logical name -> SharedWire; prefix: the run's (names its nftables table)."""
        self.states = [WireState(name, w) for name, w in wires.items()]
        self.table = collision_table(prefix)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="contention", daemon=True)
        self.first_change: dict[str, list[str]] = {}
        self.first_drop_rules: str | None = None
        self.drops: dict[str, int] = {}

    def start(self) -> "ContentionControl":
        self._apply_drops(create=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._read_drops()
        run(["nft", "delete", "table", "bridge", self.table], check=False)

    def _read_drops(self) -> None:
        counted = parse_counters(run(["nft", "list", "counters", "table", "bridge", self.table], check=False))
        if counted:
            self.drops = counted

    def _apply_drops(self, create: bool = False) -> None:
        rules = drop_ruleset(self.table, {st.name: (st.ports, st.drop_ppm) for st in self.states}, create)
        run(["nft", "-f", "-"], stdin=rules, check=create)
        if self.first_drop_rules is None and any(st.drop_ppm for st in self.states):
            self.first_drop_rules = rules

    def _loop(self) -> None:
        next_update = time.monotonic() + UPDATE_S
        while not self._stop.wait(SAMPLE_S):
            for st in self.states:
                st.leaves, st.sent = parse_leaves(run(["tc", "-s", "class", "show", "dev", st.wire.ifb],
                                                      check=False))
                st.samples.append(sum(1 for n in st.leaves.values() if n > 0))
            if time.monotonic() >= next_update:
                next_update += UPDATE_S
                if any([self._update(st) for st in self.states]):
                    self._apply_drops()

    def _update(self, st: WireState) -> bool:
        """Set the wire's rate for the last interval's contention; True when its drop
        probability changed (the caller rewrites every wire's drop rule at once)."""
        nbytes, npkts = st.sent
        dbytes, dpkts = nbytes - st.last[0], npkts - st.last[1]
        st.last = (nbytes, npkts)
        busy = [s for s in st.samples if s > 0]
        st.samples = []
        q = sum(busy) / len(busy) if busy else 1.0
        frame = dbytes / dpkts if dpkts > 0 else MAX_FRAME_ON_WIRE
        eff = efficiency(q, frame)
        if busy:
            st.q_sum += q
            st.q_n += 1
            st.min_efficiency = min(st.min_efficiency, eff)
        ppm = round(drop_probability(q) * DRAWS)
        drops_changed = ppm != st.drop_ppm
        st.drop_ppm = ppm
        st.max_drop_ppm = max(st.max_drop_ppm, ppm)
        want = st.wire.rate_mbit * eff
        if abs(want - st.rate_mbit) / st.wire.rate_mbit < MIN_CHANGE:
            return drops_changed
        argv = change_cmds(st.wire.ifb, want, st.wire.rate_mbit, sorted(st.leaves))
        run(["tc", "-batch", "-"], stdin="\n".join(" ".join(a[1:]) for a in argv) + "\n", check=False)
        st.rate_mbit = want
        st.history.append((time.monotonic(), want))
        st.updates += 1
        self.first_change.setdefault(st.name, argv[0])
        return drops_changed

    def mean_rate_mbit(self, name: str, t0: float, t1: float) -> float | None:
        """The wire's rate as the controller held it, averaged over [t0, t1] (monotonic
        seconds): what the wire could carry then, for the gates' utilisation."""
        st = next((st for st in self.states if st.name == name), None)
        if st is None or t1 <= t0:
            return None
        total = 0.0
        for (since, rate), (until, _) in zip(st.history, [*st.history[1:], (float("inf"), 0.0)]):
            total += rate * max(0.0, min(until, t1) - max(since, t0))
        return total / (t1 - t0)

    def record(self) -> dict:
        """For the results: the model, and per wire what the controller did."""
        if not self._stop.is_set():
            self._read_drops()
        return {"model": "Metcalfe-Boggs average contention per frame, and a frame dropped after "
                         f"{ATTEMPTS} collisions with probability (1 - A)^{ATTEMPTS} (beowulf_netlab/netlab/contention.py)",
                "sample_s": SAMPLE_S, "update_s": UPDATE_S, "nft_table": f"bridge {self.table}",
                "example_drop_rules": self.first_drop_rules,
                "wires": {st.name: {"updates": st.updates,
                                         "mean_backlogged": round(st.q_sum / st.q_n, 2) if st.q_n else None,
                                         "min_efficiency": round(st.min_efficiency, 3),
                                         "max_drop_ppm": st.max_drop_ppm,
                                         "dropped_frames": self.drops.get(st.name),
                                         "example_argv": self.first_change.get(st.name)}
                          for st in self.states}}
