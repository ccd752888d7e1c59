"""What a built network records of itself (Testbed.environment, and the runner's timing), as a
results document keeps it per network under environment.topologies: declared here, beside
netlab.testbed, so the results schema and beowulf_netlab/results/README.md are made from it (run.environment)
rather than from prose. Pure data.
"""
from __future__ import annotations

from beowulf_netlab.core.fields import RECORD, Field
from beowulf_netlab.topologies.settings import NETWORK as SETTINGS

_ARGV = {"type": "object", "additionalProperties": {
    "type": "array", "items": {"type": "object", "required": ["argv", "rc"],
                               "properties": {"argv": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                                              "rc": {"type": "integer"}}}}}

NETWORK_RECORD = (
    Field("bonding_impl", ("string", "null"), "kernel-balance-rr | nft-numgen-rr | null (not bonded)", RECORD),
    Field("switch_impl", ("string", "null"), "ovs-kernel | ovs-user | lxbr | null (no switches)", RECORD),
    Field("wire_impl", "string", "engine (the frame-timed medium engine) | tc (bridge + HTB)", RECORD),
    Field("medium", ("object", "null"), "the engine's record: engine, version, sched, cpu_latency_us (the "
          "idle-state latency it held the cores to; null: not held), prop_ns, lag_p99_bound_us, config "
          "(its configuration lines); null on the tc wire", RECORD),
    Field("host_path", ("object", "null"), "this host's own round trip, timed at build and taken off the "
          "engine's per-packet delays (run.hostpath): pair, round_trips, rtt_us (the shortest), "
          "rtt_median_us, hold_us, charged_us (the four messages' modelled cost, in the probe's round "
          "trips since its charges are paid; absent before), path_us (the shortest's, less the holds and "
          "charges, taken off), median_path_us, "
          "less_per_pass_us; null: nothing taken off; absent before it", RECORD),
    Field("netem", ("string", "null"), "kernel sch_netem where netem ran (impairments, or the per-packet "
          "latency on the tc wire), else null", RECORD),
    SETTINGS["hardware"].field,   # the network's settings as it ran: their one declaration
    Field("host_cost_impl", ("string", "null"), "ifb-htb | ifb-htb+netem-latency | ifb-htb+engine-latency | "
          "null (no host cost)", RECORD),
    Field("latency_modelled", ("boolean", "null"), "a lone packet after idle time was delayed by the "
          "per-packet cost (with netem or the engine); null without a profile", RECORD),
    SETTINGS["tx_gap_us"].field,
    SETTINGS["queue_packets"].field,
    Field("hardware_profile", ("object", "null"), "the profile as it ran (beowulf_netlab/hardware/<name>.json)", RECORD),
    Field("collision_controller", ("object", "null"), "the tc wire's contention controller's record (v1-v5 "
          "documents: contention, renamed on read: that name is the setting's): per wire its "
          "rate updates, mean backlog, lowest efficiency, highest 16-collision drop rate max_drop_ppm "
          "and dropped_frames; or null", RECORD),
    Field("collisions_modelled", "boolean", "some shared wire collided (the controller or the engine)", RECORD),
    Field("build_s", "number", "seconds the network took to build", RECORD),
    Field("timing", "object", "where this network's wall time went, seconds: build_s, prepare_s, points_s, "
          "teardown_s, points; engine_cpu_s: the medium engine's CPU over the network's life (the runner's); "
          "passes: how many times a run built it (each pass's seconds and points added up)",
          RECORD),
    Field("tcp", ("object", "null"), "the TCP its nodes ran, as read back (netlab.tcpstat)", RECORD),
    Field("tcp_host_default", ("string", "null"), "the host's own congestion control, which no node inherits",
          RECORD),
    Field("require_kernel", "boolean", "the run refused a fallback implementation (--require-kernel)", RECORD),
    Field("applied_commands", "object", "owner -> [{argv, rc, stdin?, batch?}]: every tc/ip/nft/ethtool/sysctl "
          "argv applied (batch {argv, line}: the ip/tc -batch process and line that applied it)", RECORD,
          schema=_ARGV),
)
