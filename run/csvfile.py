"""A results document as CSV: one row per point (columns from the point declarations,
run.point and each workload's fields) and, where flows have series, one row per sample
in a sibling file. Every MB/s is the real network's (x D on a time-scaled point)."""
from __future__ import annotations

import csv
from pathlib import Path

from core.errors import BadInput
from core.fields import CSV_AFTER, CSV_BEFORE, names
from core.safefile import atomic_text
from core.text import csv_cell
from run.point import COMMON_FIELDS
from run.results import real_intervals, real_rate
from topologies.timescale import time_scale_of
from workloads import WORKLOADS


COMMON_CSV = names(COMMON_FIELDS, csv=CSV_BEFORE)    # before the workload's columns
COMMON_CSV_AFTER = names(COMMON_FIELDS, csv=CSV_AFTER)
# columns the CSV adds after throughput_mbyte_s: what the scaled network carried, the fidelity verdict
DERIVED_CSV = ("measured_throughput_mbyte_s", "suspect")


def csv_columns(workload: str) -> list[str]:
    """The CSV's columns: every MB/s column holds the real network's figure (x D on a time-scaled
    point, as the table and plot show it); measured_throughput_mbyte_s is what the scaled network
    carried. A calibration measurement names its calibration (it has no point index)."""
    columns = [*COMMON_CSV, *WORKLOADS[workload].csv_columns, *COMMON_CSV_AFTER]
    i = columns.index("throughput_mbyte_s") + 1
    return [*columns[:i], *DERIVED_CSV, *columns[i:]]


def write_csv(doc: dict, path: Path) -> None:
    """The point CSV at path, one row per point; the flows' series, where any point has them,
    go to its sibling (intervals_csv_path)."""
    try:
        with atomic_text(path, newline="") as f:
            w = csv.DictWriter(f, fieldnames=csv_columns(doc["workload"]), extrasaction="ignore")
            w.writeheader()
            for p in doc["points"]:
                disk = p.get("disk")
                row = {"time_scale": 1, "tx_gap_us": 0, "card_latency_us": 0, "queue_packets": 0, **p, "suspect": p["fidelity"].get("suspect") or "",
                       "disk": disk.get("profile") if isinstance(disk, dict) else disk,
                       "measured_throughput_mbyte_s": p.get("throughput_mbyte_s"),
                       **{k: real_rate(p, k) for k in WORKLOADS[doc["workload"]].rate_keys
                          if isinstance(p.get(k), (int, float))}}
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
