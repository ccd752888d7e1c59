"""What every workload offers the runner: the same small surface.

A Workload names its own axes (with their one default each), checks a point
against a network before anything is built, runs one point on a built
testbed, and lists the CSV columns that tell its points apart. The runner
looks workloads up in `workloads.WORKLOADS`; it never branches on their names.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from core.values import Axis

PAIRS = Axis("pairs", "int", [4], "process pairs communicating at once (no node in two pairs)",
             minimum=1, maximum=512)


@dataclass(frozen=True)
class Workload:
    name: str
    summary: str
    axes: tuple[Axis, ...]                      # its own axes; `many` ones make points
    x_axis: str                                 # the point key tables and plots put across
    csv_columns: tuple[str, ...]                # its point keys, after the common columns
    check: Callable[[Any, dict, dict], None]    # (spec, point, settings); raises BadInput
    run_point: Callable[[Any, Any, dict, dict], dict]   # (testbed, context, point, settings)
    prepare: Callable[[Any, list[dict], dict], Any] | None = None  # per network: e.g. disks
    label: Callable[[dict], str] = lambda pt: ""        # progress-bar text for a point
    normalize: Callable[[dict], dict] | None = None     # unused axes of a point -> None (deduplicated)
    rate_keys: tuple[str, ...] = ("throughput_mbyte_s",)  # MB/s results a time-scaled run also gives x D
    # (what, measured MB/s, most the model allows) for the fidelity gates: a disk-bound figure
    # above its disks' rate is an artefact (pipeline.gates); None: the flows' gates suffice
    bounds: Callable[[dict], list[tuple[str, float, float]]] | None = None

    def axis(self, name: str) -> Axis:
        return next(a for a in self.axes if a.name == name)
