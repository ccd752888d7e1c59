"""Hardware profiles: the 1996 machines as data (beowulf_netlab/hardware/*.json).

The wires are 1996's; without a profile the hosts are today's, which pay
almost nothing per packet. A profile states what a node of one of the papers'
machines cost, every number with its source:
- disk: the sequential rate of the node's disk (read and write, MB/s);
- host_cost: one CPU budget per node, charged for every packet the node sends,
  receives or forwards: `per_packet_us` + `per_byte_ns` x bytes. netlab.hostcost
  makes the kernel enforce it; `per_message_us` per TCP send and completed
  receive, and the disk's transfers (disk.transfer), are paid on the same budget;
- card: the network card between the CPU and the wire: its transmit buffers (frames in
  flight), the time to load a frame into one (the CPU's PIO on an ISA card, DMA on a bus
  master), the Tx-done interrupt's gap before the next frame goes, and the card and driver
  path's own latency per packet; the medium engine times them (engine/src/model.rs), the tc
  wire applies the gap alone (netlab.nic). A constant the
  sources give only as a range is a RANGED object (value, low, high, source): reproduce runs
  the claims' points at both ends (beowulf_netlab/claims/sensitivity.json, `range`) and a verdict that moves
  inside the range is not decided by the sources;
- tcp: the TCP every node runs (congestion control and the features that differ
  between today's stacks and the papers'), set in each node's namespace and read
  back (netlab.node), never inherited from the host that happens to run it.
`none` is today's behaviour: no host cost, the disk from --disk, and a declared
modern Linux TCP (cubic, SACK, timestamps, window scaling: the kernel's defaults).
The schema is SCHEMA below (written to beowulf_netlab/hardware/schema.json, a test keeps them
equal); the file's stem is the profile's name, the `--hardware` value.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.jsonfile import check_schema, read_json, write_schema

HARDWARE_DIR = Path(__file__).resolve().parent.parent / "hardware"
SCHEMA_FILE = HARDWARE_DIR / "schema.json"
NONE = "none"
ERA = "era"        # the profile whose network rate is the wire's rate
MIN_DISK_MBYTE_S, MAX_DISK_MBYTE_S = 0.01, 10000   # a disk's rate (--disk, a profile's disk)

_TEXT = {"type": "string", "minLength": 1}
# A constant the era sources give only as a range (see the module doc): its headline value and
# the ends reproduce runs; `source` says why these ends (all the rows, or the bounds' reasons).
RANGED = {"type": "object", "additionalProperties": False, "required": ["value", "low", "high", "source"],
          "properties": {"value": {"type": "number", "minimum": 0}, "low": {"type": "number", "minimum": 0},
                         "high": {"type": "number", "minimum": 0}, "source": _TEXT}}
_BUFFERS = {"type": "array", "items": {"type": "integer", "minimum": 1024, "maximum": 1 << 30},
            "minItems": 3, "maxItems": 3}
SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "https://beowulf-netlab.invalid/hardware/schema.json",
    "title": "Beowulf Netlab hardware profile",
    "description": "What one node of a machine cost: its disk and its per-packet and per-byte "
                   "host cost, every number with its source (beowulf_netlab/topologies/hardware.py).",
    "type": "object", "additionalProperties": False,
    "required": ["name", "description", "machine", "disk", "host_cost", "tcp"],
    "properties": {
        "$schema": {"type": "string", "description": "path of this schema, for editors"},
        "name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9.-]*$",
                 "description": "the profile's name: the file's stem, the --hardware value"},
        "description": {**_TEXT, "description": "one line: the machine and the figures it ran"},
        "machine": {"type": "object", "additionalProperties": False, "required": ["cpu", "os"],
                    "description": "the machine as the papers describe it",
                    "properties": {"cpu": _TEXT, "bus": _TEXT, "memory_mb": {"type": "number"},
                                   "disk": _TEXT, "network": _TEXT, "os": _TEXT,
                                   "rate_mbit": {"type": "number", "exclusiveMinimum": 0,
                                                 "description": "the wire rate it was built for "
                                                                "(--hardware era picks by it)"}}},
        "disk": {"description": "null: the --disk setting",
                 "oneOf": [{"type": "null"}, {
                     "type": "object", "additionalProperties": False,
                     "required": ["read_mbyte_s", "write_mbyte_s", "derivation", "sources"],
                     "properties": {
                         "read_mbyte_s": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_DISK_MBYTE_S},
                         "write_mbyte_s": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_DISK_MBYTE_S},
                         "derivation": {**_TEXT, "description": "how the rate follows from the sources"},
                         "sources": {"type": "array", "items": _TEXT, "minItems": 1},
                         "calibration": {"type": ["string", "null"],
                                         "description": "the figure the rate was set from, if any"},
                         "transfer": {
                             "type": "object", "additionalProperties": False,
                             "required": ["default", "modes", "media_mbyte_s", "media_source", "source"],
                             "description": "how the disk's bytes reach memory, on the node's CPU budget "
                                            "(beowulf_netlab/netlab/disk_profiles.py derives the cost from the rates above, "
                                            "the calibration, and per_byte_ns): absent: not charged",
                             "properties": {
                                 "default": {"enum": ["pio", "dma"], "description": "--disk-transfer hardware"},
                                 "modes": {"type": "array", "items": {"enum": ["pio", "dma"]}, "minItems": 1,
                                           "uniqueItems": True, "description": "the modes the machine could run"},
                                 "media_mbyte_s": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_DISK_MBYTE_S,
                                                   "description": "the drive's own sequential rate: the "
                                                                  "throttle under PIO (where the CPU mostly sets the pace)"},
                                 "media_source": _TEXT,
                                 "source": {**_TEXT, "description": "why these modes and that default"}}}}}]},
        "collisions": {"type": "object", "additionalProperties": False, "required": ["default", "source"],
                       "description": "whether the machine's shared wires collide when --contention is not "
                                      "given (absent: off): CSMA/CD's cost per frame and its 16-collision "
                                      "drops (beowulf_netlab/netlab/contention.py); full-duplex ports never collide",
                       "properties": {"default": {"enum": ["on", "off"]},
                                      "source": {**_TEXT, "description": "why: what the machine's segments were"}}},
        "host_cost": {"description": "null: the host's own speed (nothing charged)",
                      "oneOf": [{"type": "null"}, {
                          "type": "object", "additionalProperties": False,
                          "required": ["per_packet_us", "per_byte_ns", "per_packet_source",
                                       "per_byte_source", "calibration", "influences"],
                          "properties": {
                              "per_packet_us": {"type": "number", "minimum": 0, "maximum": 100000,
                                                "description": "CPU time per packet sent, received or forwarded"},
                              "per_byte_ns": {"type": "number", "exclusiveMinimum": 0, "maximum": 100000,
                                              "description": "CPU time per byte of such a packet"},
                              "per_message_us": {"type": "number", "minimum": 0, "maximum": 100000,
                                                 "description": "CPU time of each TCP send and each completed "
                                                                "receive beyond the packets' (charged by the "
                                                                "agents through the charge channel)"},
                              "per_message_source": _TEXT,
                              "queue_packets": {"type": "integer", "minimum": 2, "maximum": 10000,
                                                "description": "packets waiting for the CPU before drops (the "
                                                               "kernel's receive backlog)"},
                              "queue_source": _TEXT,
                              "transmit_queue_frames": {"type": "integer", "minimum": 2, "maximum": 100000,
                                                        "description": "frames each card's device queue holds "
                                                                       "before drops (the medium engine's port "
                                                                       "queue); absent: the wire's queue"},
                              "transmit_queue_source": _TEXT,
                              "nic_per_byte_ns": {"type": "number", "minimum": 0, "maximum": 100000,
                                                  "description": "CPU time per byte the network card's path "
                                                                 "adds to every packet sent or received (a card "
                                                                 "whose bytes the CPU moves); 0: a bus-master card"},
                              "nic_source": {**_TEXT, "description": "why that card cost (its make, or that it is unknown)"},
                              "relay_copy_per_byte_ns": {"type": "number", "minimum": 0, "maximum": 100000,
                                                         "description": "CPU time per byte a relay spends copying "
                                                                        "each packet it forwards (Linux 1.2's ip_forward)"},
                              "relay_copy_source": _TEXT,
                              "per_packet_source": _TEXT, "per_byte_source": _TEXT,
                              "checks": {"type": "array", "items": _TEXT,
                                         "description": "era figures the model is compared with, not set from"},
                              "calibration": {"type": ["string", "null"],
                                              "description": "a figure the numbers were tuned to (a "
                                                             "claim named here is a calibration point: "
                                                             "met or missed, never evidence)"},
                              "influences": {"type": "array", "items": {"type": "integer"},
                                             "description": "claims (docs/papers.md) these numbers can move"},
                              "not_modelled": _TEXT}}]},
        "card": {"type": "object", "additionalProperties": False,
                 "required": ["buffers", "buffers_source", "load_ns_per_byte", "load_source", "tx_gap_us",
                              "latency_us"],
                 "description": "the network card's transmit path (absent: frames leave as the wire "
                                "allows, today's cards)",
                 "properties": {
                     "buffers": {"type": "integer", "minimum": 1, "maximum": 64,
                                 "description": "transmit buffers: frames the card holds in flight"},
                     "buffers_source": _TEXT,
                     "load_ns_per_byte": {"type": "number", "minimum": 0, "maximum": 100000,
                                          "description": "time to load a frame's byte into a free "
                                                         "buffer (PIO by the CPU, or DMA)"},
                     "load_source": _TEXT,
                     "tx_gap_us": {**RANGED, "description": "the Tx-done interrupt's gap after each "
                                                            "frame before the next may go (us)"},
                     "latency_us": {**RANGED, "description": "the card and driver path's own latency per "
                                                             "packet, at each end (us): beyond the CPU's "
                                                             "per-packet cost, it occupies no CPU"},
                     "rx_ring": {"type": "object", "additionalProperties": False,
                                 "required": ["frames_low", "frames_high", "source", "why"],
                                 "description": "the card's receive ring, full frames it holds before the CPU "
                                                "must copy them out (not emulated: tests/unit/test_receive_ring.py "
                                                "checks from the profile's numbers whether it could overrun)",
                                 "properties": {"frames_low": {"type": "integer", "minimum": 1, "maximum": 4096},
                                                "frames_high": {"type": "integer", "minimum": 1, "maximum": 4096},
                                                "source": _TEXT, "why": _TEXT}},
                     "not_modelled": _TEXT}},
        "bus": {"type": "object", "additionalProperties": False,
                "required": ["name", "rate_mbyte_s", "source", "model", "why"],
                "description": "the I/O bus the cards and the disk share: its era rate and how the model "
                               "holds it (tests/unit/test_bus.py checks the arithmetic against the profile)",
                "properties": {
                    "name": _TEXT,
                    "rate_mbyte_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 100000,
                                     "description": "the bus's peak transfer rate"},
                    "source": _TEXT,
                    "model": {"enum": ["cpu", "bounded"],
                              "description": "cpu: every transfer on it is the CPU's (PIO), so the node's CPU "
                                             "budget, which charges each at the bus's time or longer, is the "
                                             "bus's queue; bounded: bus-master transfers, not emulated, whose "
                                             "share of the bus and wait per frame `why` bounds"},
                    "max_share": {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
                                  "description": "bounded: the most of the bus the cards and the disk can "
                                                 "use together"},
                    "why": _TEXT}},
        "tcp": {"type": "object", "additionalProperties": False,
                "required": ["congestion_control", "sack", "dsack", "timestamps", "window_scaling",
                             "ecn", "frto", "recovery", "early_retrans", "rmem", "wmem", "reordering",
                             "window_clamp_bytes", "rto_min_ms", "source"],
                "description": "the TCP every node runs: each key is set in the node's namespace "
                               "(net.ipv4.tcp_<key>) and read back; the host's own setting never leaks in",
                "properties": {
                    "congestion_control": {"type": "string", "pattern": "^[a-z0-9_]+$",
                                           "description": "net.ipv4.tcp_congestion_control"},
                    "sack": {"enum": [0, 1], "description": "selective acknowledgements (RFC 2018)"},
                    "dsack": {"enum": [0, 1], "description": "duplicate SACK (RFC 2883)"},
                    "timestamps": {"enum": [0, 1], "description": "RFC 1323 timestamps"},
                    "window_scaling": {"enum": [0, 1], "description": "RFC 1323 window scaling"},
                    "ecn": {"enum": [0, 1, 2], "description": "explicit congestion notification "
                            "(2: answer it, never ask: Linux's default)"},
                    "frto": {"enum": [0, 1, 2], "description": "F-RTO spurious time-out detection"},
                    "recovery": {"type": "integer", "minimum": 0, "maximum": 7,
                                 "description": "loss detection bits (1 = RACK)"},
                    "early_retrans": {"type": "integer", "minimum": 0, "maximum": 4,
                                      "description": "tail loss probes (3 = on, Linux's default)"},
                    "rmem": {**_BUFFERS, "description": "net.ipv4.tcp_rmem: a socket's receive buffer "
                             "min, default and max (bytes); the advertised window follows from it"},
                    "wmem": {**_BUFFERS, "description": "net.ipv4.tcp_wmem: a socket's send buffer "
                             "min, default and max (bytes)"},
                    "reordering": {"type": "integer", "minimum": 1, "maximum": 300,
                                   "description": "net.ipv4.tcp_reordering: duplicate ACKs before a "
                                                  "fast retransmit (above any window: none)"},
                    "window_clamp_bytes": {"type": ["integer", "null"], "minimum": 536, "maximum": 1073725440,
                                           "description": "the largest window a node advertises "
                                                          "(route metric 'window' on every route); "
                                                          "null: the buffers alone decide"},
                    "rto_min_ms": {"type": "integer", "minimum": 1, "maximum": 60000,
                                   "description": "minimum retransmission time-out (route metric "
                                                  "'rto_min' on every route; x D on a time-scaled network)"},
                    "source": {**_TEXT, "description": "why these values: the stack the machine ran"},
                    "not_modelled": {**_TEXT, "description": "what of that stack is not set here"}}},
    },
}

# tcp keys -> the per-namespace sysctl that sets each
TCP_SYSCTLS = {key: f"net.ipv4.tcp_{key}" for key in
               ("congestion_control", "sack", "dsack", "timestamps", "window_scaling", "ecn",
                "frto", "recovery", "early_retrans", "rmem", "wmem", "reordering")}
# tcp keys set as metrics of every route of a node (ip route ... window N rto_min Xms)
TCP_ROUTE_METRICS = ("window_clamp_bytes", "rto_min_ms")
TCP_KEYS = (*TCP_SYSCTLS, *TCP_ROUTE_METRICS)


def describe_tcp(record: dict) -> str:
    """One line for tables and reports, from a TcpSettings record (as results keep it)."""
    feats = [name for key, name in (("sack", "SACK"), ("timestamps", "timestamps"),
                                    ("window_scaling", "window scaling")) if record.get(key)]
    out = f"{record.get('congestion_control')} ({', '.join(feats) if feats else 'no SACK, timestamps or window scaling'}"
    if isinstance(record.get("window_clamp_bytes"), int):
        out += f"; window at most {record['window_clamp_bytes']} B"
    if isinstance(record.get("reordering"), int) and record["reordering"] >= 100:
        out += "; no fast retransmit"
    if isinstance(record.get("rto_min_ms"), int):
        out += f"; minimum RTO {record['rto_min_ms']} ms"
    return out + ")"


@dataclass(frozen=True)
class TcpSettings:
    """The TCP a node runs (see the module doc); `sysctls` is what a namespace is given."""
    congestion_control: str
    sack: int
    dsack: int
    timestamps: int
    window_scaling: int
    ecn: int
    frto: int
    recovery: int
    early_retrans: int
    rmem: tuple[int, int, int]
    wmem: tuple[int, int, int]
    reordering: int
    window_clamp_bytes: int | None
    rto_min_ms: int

    def sysctls(self) -> dict[str, str]:
        return {TCP_SYSCTLS[k]: " ".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)
                for k, v in self.record().items() if k in TCP_SYSCTLS}

    def route_metrics(self) -> list[str]:
        """ip route arguments that set the window clamp and minimum RTO, in real time (a
        time-scaled node's RTO comes from topologies.timescale.rto_min_ms; netlab.node applies it)."""
        out = ["window", str(self.window_clamp_bytes)] if self.window_clamp_bytes else []
        return out + ["rto_min", f"{self.rto_min_ms:.0f}ms"]

    def record(self) -> dict:
        """Key -> value, as results documents keep it (buffers as lists)."""
        return {k: list(v) if isinstance(v, tuple) else v
                for k, v in ((k, getattr(self, k)) for k in TCP_KEYS)}



@dataclass(frozen=True)
class HostCost:
    """One CPU budget per node: per_packet_us + per_byte_ns x bytes per packet, per_byte_ns
    being every pass the CPU makes over a packet's bytes (the stack's copy and checksum, and
    the card's path when the CPU moves its bytes); a forwarded packet also costs
    relay_copy_per_byte_ns per byte (netlab.hostcost charges it on the forwarding class)."""
    per_packet_us: float
    per_byte_ns: float
    queue_packets: int = 100        # packets waiting for the CPU (the budget's backlog) before drops
    relay_copy_per_byte_ns: float = 0.0
    per_message_us: float = 0.0     # each TCP send or completed receive (the agents pay it)
    transmit_queue_frames: int = 0  # frames a card's device queue holds before drops; 0: the wire's queue

    @property
    def forward_budget_mbit(self) -> float:
        """The byte rate at which the budget carries forwarded packets alone: each passes the
        budget twice (received, sent) and pays the copy once, half on each pass."""
        return 8e3 / (self.per_byte_ns + self.relay_copy_per_byte_ns / 2)

    @property
    def budget_mbit(self) -> float:
        """The budget as a byte rate (1 / per-byte cost), in Mbit/s for tc."""
        return 8e3 / self.per_byte_ns

    @property
    def packet_bytes(self) -> int:
        """The per-packet cost in byte-equivalents at that rate."""
        return round(self.per_packet_us * 1e3 / self.per_byte_ns)

    def packet_time_us(self, nbytes: int) -> float:
        return self.per_packet_us + nbytes * self.per_byte_ns / 1e3


@dataclass(frozen=True)
class Card:
    """A node's network card (see the module doc): `buffers` frames in flight, each loaded at
    load_ns_per_byte once a buffer is free, tx_gap_us after each frame, latency_us on each packet
    at each end (the ranged values' headlines: ranged_constants has their ends)."""
    buffers: int = 1
    load_ns_per_byte: float = 0.0
    tx_gap_us: float = 0.0
    latency_us: float = 0.0


def card_of(data: dict) -> Card | None:
    """A profile's card from its file's `card` section; None without one."""
    c = data.get("card")
    if not c:
        return None
    return Card(int(c["buffers"]), float(c["load_ns_per_byte"]), float(c["tx_gap_us"]["value"]),
                float(c["latency_us"]["value"]))


def ranged_constants(data: dict) -> dict[str, tuple[float, float, float]]:
    """Every ranged constant of a profile's file: dotted name -> (value, low, high)."""
    out = {}
    for section, body in data.items():
        if isinstance(body, dict):
            for key, v in body.items():
                if isinstance(v, dict) and set(RANGED["required"]) <= set(v):
                    out[f"{section}.{key}"] = (float(v["value"]), float(v["low"]), float(v["high"]))
    return out


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    machine: dict
    disk: dict | None
    host_cost: HostCost | None
    tcp: TcpSettings
    data: dict
    card: Card | None = None

    @property
    def rate_mbit(self) -> float | None:
        return self.machine.get("rate_mbit")

    @property
    def collides(self) -> bool:
        """Do this machine's shared wires collide unless --contention says otherwise?"""
        return (self.data.get("collisions") or {}).get("default") == "on"

    def record(self) -> dict:
        """What a results document keeps: the whole profile as it ran."""
        return dict(self.data)


def hardware_of(spec_or_point) -> str:
    """The hardware profile a network spec (its machine) or a results point ran on: `none` when
    unset (documents before v3 and specs built without --hardware). The one home of that default."""
    machine = getattr(spec_or_point, "machine", None)
    if machine is not None:
        return machine.hardware or NONE
    return spec_or_point.get("hardware") or NONE


def profile_names() -> list[str]:
    """Every profile in beowulf_netlab/hardware/ (file stems), `none` first."""
    names = sorted(p.stem for p in HARDWARE_DIR.glob("*.json") if p.name != "schema.json")
    return sorted(names, key=lambda n: n != NONE)


def _validate(data, path: Path) -> None:
    check_schema(data, SCHEMA, f"hardware profile {path}")
    if data["name"] != path.stem:
        raise BadInput(f"hardware profile {path}: its name {data['name']!r} must be the file's stem")
    transfer = (data["disk"] or {}).get("transfer")
    if transfer and transfer["default"] not in transfer["modes"]:
        raise BadInput(f"hardware profile {path}: disk.transfer.default {transfer['default']!r} must be "
                       f"one of its modes {transfer['modes']}")
    for name, (value, low, high) in ranged_constants(data).items():
        if not low <= value <= high:
            raise BadInput(f"hardware profile {path}: {name} {value:g} lies outside its range {low:g}..{high:g}")
    if transfer and not data["host_cost"]:
        raise BadInput(f"hardware profile {path}: disk.transfer puts the disk on the CPU budget, "
                       "which needs a host_cost")


@lru_cache(maxsize=None)
def load(name: str) -> Profile:
    """A profile by name; BadInput naming the choices otherwise."""
    names = profile_names()
    if name not in names:
        raise BadInput(f"unknown hardware profile {name!r}; choose one of: {', '.join(names)} "
                       f"(or {ERA}), files in {HARDWARE_DIR}")
    path = HARDWARE_DIR / f"{name}.json"
    data = read_json(path, "hardware profile")
    _validate(data, path)
    hc = data["host_cost"]
    cost = HostCost(float(hc["per_packet_us"]), float(hc["per_byte_ns"]) + float(hc.get("nic_per_byte_ns", 0)),
                    int(hc.get("queue_packets", HostCost.queue_packets)), float(hc.get("relay_copy_per_byte_ns", 0)),
                    float(hc.get("per_message_us", 0)), int(hc.get("transmit_queue_frames", 0))) if hc else None
    tcp = TcpSettings(**{k: tuple(v) if isinstance(v, list) else v
                         for k, v in ((k, data["tcp"][k]) for k in TCP_KEYS)})
    return Profile(name, data["description"], data["machine"], data["disk"], cost, tcp, data, card_of(data))


def resolve(name: str, rate_mbit: float) -> Profile:
    """`era` -> the profile built for this wire rate; any other name -> that profile."""
    if name != ERA:
        return load(name)
    for candidate in profile_names():
        prof = load(candidate)
        if prof.rate_mbit is not None and float(prof.rate_mbit) == float(rate_mbit):
            return prof
    built = ", ".join(f"{n} ({load(n).rate_mbit:g})" for n in profile_names() if load(n).rate_mbit)
    raise BadInput(f"--hardware {ERA}: no profile was built for {rate_mbit:g} Mbit/s; profiles and "
                   f"their rates: {built}; name one instead")


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    print(f"wrote {SCHEMA_FILE}")
