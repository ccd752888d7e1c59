"""A results document as CSV: one row per point (columns from the point declarations,
run.point and each workload's fields) and, where flows have series, one row per sample
in a sibling file. Every MB/s is the real network's (x D on a time-scaled point), its measured
twin what the network carried; every column is made from a declaration, none listed here."""
from __future__ import annotations

import csv
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.fields import CSV_AFTER, CSV_BEFORE, CSV_LAST, MEASURED_PREFIX, names
from beowulf_netlab.core.safefile import atomic_text
from beowulf_netlab.core.text import csv_cell
from beowulf_netlab.run.environment import ENVIRONMENT_FIELDS
from beowulf_netlab.run.point import COMMON_FIELDS, filled
from beowulf_netlab.run.results import real_intervals
from beowulf_netlab.workloads.base import THROUGHPUT
from beowulf_netlab.topologies.timescale import time_scale_of
from beowulf_netlab.workloads import WORKLOADS


COMMON_CSV = names(COMMON_FIELDS, csv=CSV_BEFORE)    # before the workload's columns
COMMON_CSV_AFTER = names(COMMON_FIELDS, csv=CSV_AFTER)
# where every row came from: the point's and the environment's fields declared last (run.environment)
LAST_CSV = names(COMMON_FIELDS, csv=CSV_LAST)
PROVENANCE_CSV = names(ENVIRONMENT_FIELDS, csv=CSV_LAST)


def csv_columns(workload: str) -> list[str]:
    """The CSV's columns, from the declarations: each MB/s column holds the real network's figure
    and is followed by its measured twin (what a time-scaled network carried; core.fields), the
    throughput's also by the fidelity verdict (suspect); the run's provenance last. A calibration
    measurement names its calibration (it has no point index)."""
    wl = WORKLOADS[workload]
    out = []
    for name in (*COMMON_CSV, *wl.csv_columns, *COMMON_CSV_AFTER):
        out.append(name)
        if name in (THROUGHPUT.name, *wl.rate_keys):
            out.append(MEASURED_PREFIX + name)
        if name == THROUGHPUT.name:
            out.append("suspect")
    return [*out, *LAST_CSV, *PROVENANCE_CSV]


def write_csv(doc: dict, path: Path) -> None:
    """The point CSV at path, one row per point; the flows' series, where any point has them,
    go to its sibling (intervals_csv_path)."""
    provenance = {k: doc["environment"].get(k) for k in PROVENANCE_CSV}
    try:
        with atomic_text(path, newline="") as f:
            w = csv.DictWriter(f, fieldnames=csv_columns(doc["workload"]), extrasaction="ignore")
            w.writeheader()
            for p in doc["points"]:
                p = filled(p, doc["workload"])
                row = {**p, **provenance, "suspect": p["fidelity"].get("suspect") or ""}
                w.writerow({k: csv_cell(v) for k, v in row.items()})
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror}; choose another --out")
    write_intervals_csv(doc, intervals_csv_path(path))


INTERVALS_CSV = ("point_index", "calibration_of", "flow", "time_scale", "t_s", "mbit_s", "retransmits")


def intervals_csv_path(path: Path) -> Path:
    """The per-point CSV's sibling that holds the flows' series (x.csv: x-intervals.csv)."""
    return Path(path).with_name(Path(path).stem + "-intervals.csv")


def write_intervals_csv(doc: dict, path: Path) -> bool:
    """One row per sample of every flow's series (the point CSV has one row per point, so the
    series are apart): t_s and mbit_s as the real network's, like the point CSV's MB/s.
    False (nothing written) when no point has a series."""
    rows = [{"point_index": p.get("point_index"), "calibration_of": p.get("calibration_of"), "flow": flow,
             "time_scale": time_scale_of(p), "t_s": round(t, 6), "mbit_s": round(mbit, 6),
             "retransmits": retrans}
            for p in doc["points"] for flow, samples in real_intervals(p) for t, mbit, retrans in samples]
    if not rows:
        return False
    try:
        with atomic_text(path, newline="") as f:
            w = csv.DictWriter(f, fieldnames=INTERVALS_CSV)
            w.writeheader()
            for row in rows:
                w.writerow({k: csv_cell(v) for k, v in row.items()})
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror}; choose another --out")
    return True
