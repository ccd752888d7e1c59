"""What a run says when it ends: its table, where its files are, its plot, the calibration
points its numbers rest on and the papers' notes (run, experiment and the quick job)."""
from __future__ import annotations

from pathlib import Path

from beowulf_netlab.core.text import plain
from beowulf_netlab.run.calibration import MET, table_lines
from beowulf_netlab.judge.plot import plot
from beowulf_netlab.run.csvfile import intervals_csv_path
from beowulf_netlab.run.results import real_intervals
from beowulf_netlab.judge.table import table


def summary(doc: dict, out: Path, png: str, paper: dict | None = None) -> str:
    """Draw the document's plot at png and return what to print."""
    pngs = plot(doc, png)
    series_csv = intervals_csv_path(out.with_suffix(".csv"))   # the flows' series, where any
    lines = [table(doc), "", f"results: {out}", f"         {out.with_suffix('.csv')}",
             *([f"         {series_csv} (each flow over time: plot --series draws it)"]
               if any(real_intervals(p) for p in doc["points"]) else []),
             "plot:    " + "\n         ".join(pngs)]
    lines += calibration_lines(doc)
    notes = (paper or {}).get("notes")
    if notes:
        # an experiment file's own words: each one line, nothing a terminal would run
        lines += ["", "the papers, for comparison:", *(f"  - {plain(line)}" for line in notes)]
    return "\n".join(lines)


def calibration_lines(doc: dict) -> list[str]:
    """What the end of a run says about the calibration points its numbers rest on:
    one line each, and a loud warning when one was not met."""
    results = doc.get("calibrations") or []
    lines = table_lines(results) + [f"CALIBRATION NOT MEASURED: {c}" for c in doc.get("calibration_not_measured", [])]
    if any(v["verdict"] != MET for v in results) or doc.get("calibration_not_measured"):
        lines.append("WARNING: a calibration point was not met: every number resting on it is untrusted "
                     "(claims reading it are not checkable); rerun on a quiet machine")
    return [""] + lines if lines else []
