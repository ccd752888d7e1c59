"""The run part of a measured point, declared by the side that records it, and the whole point.

run.runner records, beside the network (topologies.point) and the workload's
own fields (each Workload's `fields`), which point and repeat ran where, what the
monitors saw and what the gates said; run.derive and run.calibration
add where a point was taken from. This module declares those fields (core.fields)
and puts the three parts together: the results schema and CSV (run.results),
the keys that tell repeats apart (judge.claims) and the network's settings
(run.derive) are all made from these declarations, never listed by hand.
"""
from __future__ import annotations

from beowulf_netlab.core.fields import (CSV_AFTER, CSV_BEFORE, MEASURED_PREFIX, RECORD, SETTING, Field, by_name, fill_defaults,
                                        prop, with_twins)
from beowulf_netlab.core.settings import SWEEP, Setting
from beowulf_netlab.netlab.tcpstat import TCP_RECORD
from beowulf_netlab.run.monitor import FIDELITY, NUMBERS
from beowulf_netlab.topologies.point import NETWORK_FIELDS
from beowulf_netlab.workloads import WORKLOADS
from beowulf_netlab.workloads.base import THROUGHPUT, when
from beowulf_netlab.workloads.placement import PLACEMENTS

# how a sweep runs its points (run.sweep takes them as axes beside the network's)
PLACEMENT = Setting("placement", "choice", list(PLACEMENTS), "which nodes talk: any (non-mesh presets), "
                    "local-wire or remote-wire (meshes); each topology runs the ones it has", SWEEP,
                    choices=PLACEMENTS, record_type="string", required=True, csv=CSV_BEFORE,
                    record_note="a point records the one it ran, or listed (the pairs --pairs-list named)")
REPEATS = Setting("repeats", "int", 1, "runs of every point", SWEEP, many=False, minimum=1, maximum=100,
                  recorded=False)
SWEEP_SETTINGS = (PLACEMENT, REPEATS)




# what the gates read of a flow (beowulf_netlab/run/gates.py): typed, since a document from another host
# is input like any other
FLOW = {"type": "object", "required": ["path", "bytes"], "properties": {
    "path": prop("array", "segments of parallel wires the transfer crossed, in order",
                 items={"type": "array", "items": {"type": "string"}}),
    "via": prop("array", "what joins its segments in turn: a relay (a node forwarding in software) or a "
                "switch (token flows; absent: unrecorded)", items={"type": "string", "enum": ["relay", "switch"]}),
    "bytes": prop("integer", "payload bytes it moved", minimum=0),
    "start": when("started"), "end": when("ended"),
    "backlogged": prop("boolean", "data was always queued for its path (the stalled-transport gate's premise)")}}

# which row of the sweep: the CSV's first columns
INDEX_FIELDS = (
    Field("point_index", "integer", "index of the point in the whole sweep (shards merge by it)", RECORD,
          csv=CSV_BEFORE, schema={"minimum": 0}),
    Field("calibration_of", "string", "this point measures a calibration (beowulf_netlab/claims/calibrations.json id) "
          "that the sweep's own points did not measure twice; it is not a sweep point "
          "(no point_index) and tables leave it out", RECORD, csv=CSV_BEFORE),
)

RUN_FIELDS = (
    Field("workload", "string", "the workload (equals the document's)", SETTING, required=True,
          schema={"enum": list(WORKLOADS)}),
    PLACEMENT.field,
    Field("repeat", "integer", "which repeat of the point (0-based)", RECORD, required=True, csv=CSV_BEFORE,
          schema={"minimum": 0}),
    THROUGHPUT,
    Field("host", "string", "machine that measured the point (NETLAB_HOST_LABEL or hostname)", RECORD,
          csv=CSV_AFTER),
    Field("wire_load", "object", "the placement plan's load: wire -> pairs (or remote copies) crossing it"),
    Field("medium", "object", "what the medium engine did during the point (wire_impl engine only)", schema={
        "properties": dict(
            lag=prop("object", "release lateness: count, p50_us, p99_us (1 us buckets, upper edges), "
                     "max_us (exact when the point set the engine's running maximum, else its bucket's upper "
                     "edge; in older documents always the edge); the gate's bounds are LAG_P50_BOUND_US and "
                     "LAG_P99_BOUND_US in beowulf_netlab/netlab/medium.py"),
            late_arrival_lag=prop(["object", "null"], "how late the engine read the frames it took late "
                                  "(late_arrivals; each is delayed by that much): count, p50_us, p99_us, "
                                  "max_us as in lag; null or absent: unknown (an older engine or "
                                  "document)"),
            socket_drops=prop(["integer", "null"], "frames the kernel dropped on the engine's sockets "
                              "before it read them (PACKET_STATISTICS), all ports; null or absent: unknown"),
            send_errors=prop(["integer", "null"], "deliveries the engine failed to send, all ports; null "
                             "or absent: unknown (per wire in wires)"),
            oversize=prop(["integer", "null"], "frames refused as over 802.3's maximum (1514 B as a host "
                          "sees them, 1518 tagged), never carried, all ports; null or absent: unknown"),
            runts=prop(["integer", "null"], "frames refused as shorter than an Ethernet header, all "
                       "ports; null or absent: unknown"),
            engine_cpu=prop("number", "the engine process's CPU over the point, in cores (it also "
                            "runs the receiving nodes' stacks as it releases frames)"),
            engine_spin=prop("number", "of engine_cpu, the share spent spinning to a release"),
            late_arrivals=prop("integer", "frames read after the model had passed their arrival time"),
            sched=prop(["string", "null"], "the engine's scheduling policy (fifo:PRIO or other)"),
            wires=prop("object", "wire -> frames, collisions, busy (share of the point its "
                       "delivered carriers used), collision_time (share collisions used), backoff_idle (share the "
                       "medium lay idle while colliders backed off; the rate a hub could carry is "
                       "its rate x (1 - collision_time - backoff_idle)), "
                       "drops_queue, drops_collisions (16 attempts), deferrals, send_errors"))}),
    TCP_RECORD,
    Field("measured_in", "string", "this point was not measured for this experiment: it is the point of "
          "that experiment (its name) with the same configuration, measured earlier in the "
          "same reproduction (experiment files' same_points_as; beowulf_netlab/run/derive.py)", RECORD),
    Field("contended_rate_mbit", "object", "with the collision model on: wire -> the rate its controller held, "
          "averaged over the point (Mbit/s; beowulf_netlab/netlab/contention.py): the utilisation in "
          "fidelity and the gates are of it", unit="Mbit/s", schema=NUMBERS),
    Field("cpu_busy", "object", "node -> fraction of its hardware profile's CPU budget its packets and charges (a TCP "
          "message's or a disk transfer's cost) used "
          "while the point ran (only on a profile with a host cost)", schema=NUMBERS),
    FIDELITY,
    Field("flows", "array", "what the workload moved over the network: each transfer's path (segments "
          "of parallel wires), bytes, and start/end (s) where known", schema={"items": FLOW}),
    Field("gates", "object", "the fidelity gates (beowulf_netlab/run/gates.py): a point that fails one makes the "
          "claims that read it not checkable", schema={
              "properties": dict(
                  ok=prop("boolean", "every gate passed"),
                  failed={**prop("array", "why each failed gate failed"), "items": {"type": "string"}},
                  span_over_longest=prop(["number", "null"], "token pairs: all pairs' span / the "
                                         "longest pair's time (1.0 = all ran at once)")),
              "required": ["ok", "failed"]}),
    Field("remeasured", "array", "why an earlier go at this point failed its gates: a passing stall of "
          "the host (run.gates.host_stalled). The point was measured once more; this record is the second "
          "go's, the first go's figures are in first_go", RECORD, schema={"items": {"type": "string"}}),
    Field("not_remeasured", "string", "a point that failed only as a passing stall would (run.gates.host_stalled) "
          "but was not measured again: SECOND_GOES second goes on its network (run.runner) had failed too, "
          "so its stalls are the network's", RECORD),
    Field("first_go", "object", "on a re-measured point: the first go's figures (the workload's rates, "
          "elapsed time, round trip), the engine's lag and its gates, kept beside the second go's",
          RECORD, schema={"properties": dict(
              gates=prop("object", "the first go's gates"),
              lag=prop(["object", "null"], "the first go's release lag (netlab.medium)"))}),
)

# every point's fields, in their CSV order: index, network, run
# (each MB/s result with its measured twin, core.fields.with_twins)
COMMON_FIELDS = with_twins((*INDEX_FIELDS, *NETWORK_FIELDS, *RUN_FIELDS))
by_name(COMMON_FIELDS)   # refuses a name declared twice at import


def workload_fields(workload: str) -> tuple[Field, ...]:
    """A workload's own fields, each MB/s result with its measured twin."""
    return with_twins(WORKLOADS[workload].fields)


def point_fields(workload: str) -> dict[str, Field]:
    """name -> Field of every key a point of `workload` may carry (each declared once)."""
    return by_name(COMMON_FIELDS, workload_fields(workload))


def filled(point: dict, workload: str) -> dict:
    """The point with every declared default it lacks filled in: what the loader hands every
    reader and the runner records, so no reader restates a default."""
    return fill_defaults(point, point_fields(point.get("workload") or workload).values())


def recorded(point: dict, workload: str, time_scale: float) -> dict:
    """A point as the runner records it, through the declarations: each MB/s result (`rate`) under
    its own name as the real network's figure (x D) and under its measured twin as the network
    carried it, then every declared default filled (filled)."""
    out = dict(point)
    for f in workload_fields(workload) + tuple(f for f in COMMON_FIELDS if f.rate):
        if f.rate and isinstance(out.get(f.name), (int, float)):
            out[MEASURED_PREFIX + f.name] = out[f.name]
            out[f.name] = out[f.name] * time_scale if time_scale != 1 else out[f.name]
    return filled(out, workload)


def all_fields() -> list[Field]:
    """Every declaration: the common fields, then each workload's (a name several workloads
    declare comes once per workload)."""
    return [*COMMON_FIELDS, *(f for w in WORKLOADS for f in workload_fields(w))]


_FIRST = {f.name: f for f in reversed(all_fields())}   # the first declaration of each name wins


def field_named(name: str) -> Field | None:
    """The first declaration of `name` (workloads that share a name share its meaning: a test)."""
    return _FIRST.get(name)


# keys that are results, not parameters: points differing only in these are repeats of one point
RESULT_KEYS = frozenset(f.name for f in all_fields() if not f.identity)
# the settings that name the network a point ran on (run.derive matches networks by them)
NETWORK_KEYS = tuple(f.name for f in NETWORK_FIELDS if f.role == SETTING)
