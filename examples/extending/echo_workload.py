"""A toy workload (docs/extending.md, recipe 2): ping round trips between the first two nodes.

What a workload is to the runner (beowulf_netlab/workloads/base.py): its settings, each declared once
(core.settings: the flag, the experiment key, the point's field and its default come from it),
the fields its points measure (core.fields), how its points are drawn (Figure), a check before
anything is built and a run on a built network. Register it by adding WORKLOAD to
beowulf_netlab/workloads/__init__.py's WORKLOADS; tests/unit/test_extending.py registers it for a test only.
"""
from __future__ import annotations

import statistics

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.fields import Field
from beowulf_netlab.core.settings import Setting, axes, fields
from beowulf_netlab.workloads.base import Figure, Workload
from beowulf_netlab.workloads.ping import rtts_ms

SETTINGS = (
    Setting("echo_count", "int", [5], "pings per point (echo: the toy workload of docs/extending.md)",
            minimum=2, maximum=100, required=True, csv=True, schema={"minimum": 2}),
    Setting("echo_bytes", "size", 56, "ping payload bytes (echo)", many=False, minimum=16,
            maximum=1472, unit="bytes", absent=56),
)

FIELDS = (
    *fields(SETTINGS),
    Field("rtt_ms_median", ("number", "null"), "median round trip, ms", unit="ms", csv=True),
    Field("elapsed_s", "number", "the pings' time, s", unit="s"),
)


def check(spec, point: dict, settings: dict) -> None:
    if len(spec.nodes) < 2:
        raise BadInput("echo needs two nodes")


def run_point(tb, context, point: dict, settings: dict) -> dict:
    a, b = tb.spec.nodes[:2]
    rtts = rtts_ms(tb.host(a.name), b.ip, point["echo_count"], size=settings["echo_bytes"])
    median = statistics.median(rtts) if rtts else None
    elapsed = sum(rtts) / 1e3 if rtts else 0.0
    moved = 2 * settings["echo_bytes"] * len(rtts)
    return {"rtt_ms_median": median, "elapsed_s": elapsed,
            "throughput_mbyte_s": moved / elapsed / 1e6 if elapsed else 0.0}


WORKLOAD = Workload(
    name="echo", summary="a toy: ping round trips between two nodes (docs/extending.md)",
    axes=axes(SETTINGS), fields=FIELDS, check=check, run_point=run_point,
    figure=Figure("echo round trips", x="echo_count", x_label="pings",
                  metrics=(("rtt_ms_median", "median round trip, ms"),)),
    label=lambda pt: f"{pt['echo_count']} pings")
