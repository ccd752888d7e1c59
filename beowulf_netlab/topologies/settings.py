"""The network's settings, each declared once (core.settings): what the command line and
experiment files take, and what a point records of the network it ran on.

The groups (core.settings) replace the hand lists the verbs kept: the sizes a topology file
gives its own defaults for, the machine flags, netem's impairments. run.sweep makes its axes
from these, topologies.point its fields, commands.args its flags.
"""
from __future__ import annotations

from beowulf_netlab.core.fields import CSV_BEFORE, NO_DEFAULT
from beowulf_netlab.core.settings import AS_DEFAULT, IMPAIRMENT, MACHINE, SIZE, TOPOLOGY, Setting, in_group
from beowulf_netlab.topologies.hardware import ERA, NONE, profile_names
from beowulf_netlab.topologies.presets import PRESETS, check_topology
from beowulf_netlab.topologies.spec import (DEFAULT_CHANNELS, DEFAULT_NODES, DEFAULT_RATE_MBIT, MAX_CARD_LATENCY_US,
                                            MAX_CHANNELS, MAX_DELAY_MS, MAX_NODES, MAX_RATE_MBIT, MAX_TX_GAP_US,
                                            MIN_RATE_MBIT)
from beowulf_netlab.topologies.timescale import DEFAULT_TIME_SCALE, MAX_TIME_SCALE

NETWORK_SETTINGS = (
    Setting("topology", "text", list(PRESETS), "topology presets (" + ", ".join(PRESETS) + "; emulate.py "
            "topo list) or topology files' paths (beowulf_netlab/topologies/schema.json)", TOPOLOGY,
            aliases=("--topo",), validator=check_topology, required=True, csv=CSV_BEFORE,
            record_note="a point records the one it ran on"),
    Setting("rate_mbit", "float", [DEFAULT_RATE_MBIT], "wire rate in Mbit/s (10 = Ethernet, 100 = Fast "
            "Ethernet); unset: each topology's own (its file's: switched-cluster 1000)", SIZE,
            minimum=MIN_RATE_MBIT, maximum=MAX_RATE_MBIT, unit="Mbit/s", aliases=("--rate",),
            required=True, csv=CSV_BEFORE, schema={"exclusiveMinimum": 0}),
    Setting("channels", "int", [DEFAULT_CHANNELS], "bonded-dual-net: wires per node (1 = single-net); "
            "unset: the topology's own", SIZE, minimum=1, maximum=MAX_CHANNELS,
            record_type=("integer", "null"), record_note="null on a topology that takes none (meshes)",
            absent=None, csv=CSV_BEFORE),
    Setting("nodes", "int", DEFAULT_NODES, "nodes per network (a perfect square for meshes); unset: each "
            "topology's own (its file's: switched-cluster 32)", SIZE, many=False,
            minimum=2, maximum=MAX_NODES, absent=NO_DEFAULT, csv=CSV_BEFORE, schema={"minimum": 2}),
    Setting("hardware", "choice", [NONE], "the nodes' machine: a hardware profile (beowulf_netlab/hardware/*.json: disk "
            "and per-packet host cost), none = today's host, era = the profile built for the wire rate",
            MACHINE, choices=(*profile_names(), ERA), record_type="string",
            record_note="a point records the profile it ran (era resolved); v1/v2 documents read as none",
            absent=AS_DEFAULT, required=True, csv=CSV_BEFORE),
    Setting("contention", "choice", ["auto"], "CSMA/CD on every shared wire: frame by frame on the medium "
            "engine (deferral, collisions, jam, backoff, a drop after 16 attempts), its average cost per "
            "frame on the tc wire (Metcalfe-Boggs, beowulf_netlab/netlab/contention.py); auto: as the hardware profile "
            "says (on for every profile's hubs, today's hosts' too: collisions are the medium's; off: a "
            "perfect arbiter, the idealised comparison)", MACHINE,
            choices=("auto", "off", "on"), record_type="string",
            record_note="a point records on or off (auto resolved); v1/v2 documents read as off",
            absent="off", required=True, csv=CSV_BEFORE, schema={"enum": ["off", "on"]}),
    Setting("time_scale", "float", [DEFAULT_TIME_SCALE], "run D times slower than real: every rate "
            "(wires, disks, host costs) / D, TCP's minimum RTO x D; results record the real network's "
            "figures, and what the slowed network carried as measured_* (beowulf_netlab/topologies/timescale.py)", MACHINE,
            minimum=1, maximum=MAX_TIME_SCALE, absent=AS_DEFAULT, csv=CSV_BEFORE, schema={"minimum": 1}),
    Setting("tx_gap_us", "float", None, "every network card waits this long after each frame it sends "
            "before the next may go (its Tx-done interrupt; the card's buffers and load time are the "
            "profile's: beowulf_netlab/netlab/nic.py); unset: the hardware profile's card (a range no era source "
            "narrows, whose ends reproduce runs: beowulf_netlab/claims/sensitivity.json), 0 without a profile", MACHINE,
            many=False, minimum=0, maximum=MAX_TX_GAP_US, unit="us", omit_unset=True,
            record_note="a point records the gap its cards ran with, us in real time (0: none)",
            absent=0.0, csv=CSV_BEFORE, schema={"minimum": 0}),
    Setting("card_latency_us", "float", None, "every network card's own latency per packet at each end "
            "(its driver path beyond the CPU's per-packet cost; the medium engine applies it); unset: the "
            "hardware profile's card (a range no era source narrows, whose ends reproduce runs: "
            "beowulf_netlab/claims/sensitivity.json), 0 without a profile", MACHINE,
            many=False, minimum=0, maximum=MAX_CARD_LATENCY_US, unit="us", omit_unset=True,
            record_note="a point records the latency its cards ran with, us in real time (0: none)",
            absent=0.0, csv=CSV_BEFORE, schema={"minimum": 0}),
    Setting("queue_packets", "int", 0, "the queues a packet waits in, in frames: each card's transmit "
            "queue on its wire and each node's CPU budget backlog (beowulf_netlab/netlab/hostcost.py); 0: as built (a 1996 "
            "profile's kernel's: a device queue that never drops and a 300-frame backlog; else 100 frames; "
            "beowulf_netlab/claims/sensitivity.json runs 30 and 300)", MACHINE,
            many=False, minimum=0, maximum=10000, unit="frames", omit_unset=True, absent=AS_DEFAULT,
            csv=CSV_BEFORE, schema={"minimum": 0}),
    Setting("delay_ms", "time_ms", 0.0, "netem: one-way delay per wire crossing, e.g. 5ms", IMPAIRMENT,
            many=False, minimum=0, maximum=MAX_DELAY_MS, unit="ms", aliases=("--delay",), recorded=False,
            omit_unset=True),
    Setting("jitter_ms", "time_ms", 0.0, "netem: delay variation, at most the delay", IMPAIRMENT,
            many=False, minimum=0, maximum=MAX_DELAY_MS, unit="ms", aliases=("--jitter",), recorded=False,
            omit_unset=True),
    Setting("loss_pct", "pct", 0.0, "netem: frame loss per wire crossing, e.g. 1%", IMPAIRMENT, many=False,
            minimum=0, maximum=99.99, unit="%", aliases=("--loss",), recorded=False, omit_unset=True),
    Setting("relay_delay_ms", "time_ms", 0.0, "routed-mesh: each relay holds every packet it forwards "
            "this long (netem)", IMPAIRMENT, many=False, minimum=0, maximum=MAX_DELAY_MS, unit="ms",
            aliases=("--relay-delay",), recorded=False, omit_unset=True),
)
NETWORK = {s.name: s for s in NETWORK_SETTINGS}

# the groups, made from the declarations (commands.args, run.sweep and the presets ask these)
SIZES = in_group(NETWORK_SETTINGS, SIZE)                 # a topology file gives its own defaults
MACHINE_SETTINGS = in_group(NETWORK_SETTINGS, MACHINE)
IMPAIRMENTS = in_group(NETWORK_SETTINGS, IMPAIRMENT)
SPEC_SETTINGS = in_group(NETWORK_SETTINGS, SIZE, MACHINE, IMPAIRMENT)   # what build_spec takes beside the name
