"""emulate.py plot RESULTS...: redraw the table and figures of a saved document, or overlay
several runs of one workload (two hosts, two commits, before and after a change); --series
draws what happened within points instead: each flow's throughput over time."""
from __future__ import annotations

import argparse
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.judge.plot import image_format, plot, plot_series
from beowulf_netlab.judge.table import table
from beowulf_netlab.run.store import check_writable
from beowulf_netlab.run.results import load


def add_parser(sub) -> None:
    p = sub.add_parser("plot", help="redraw figures from saved results documents (several: overlaid)",
                       description="Redraw the plot (and table) from a results JSON of any schema "
                                   "version this tool knows. Given several documents of one workload, "
                                   "draws every run's curves in one figure, each named by its file "
                                   "(e.g. 'plot before.json after.json --png both.png').")
    p.add_argument("results", nargs="+", help="results/*.json documents (several: overlaid)")
    p.add_argument("--png", default=None, metavar="FILE",
                   help="output file, .png, .svg or .pdf by its extension (default: beside the first "
                        "document; -overlay.png for several; -series.png with --series)")
    p.add_argument("--series", action="store_true",
                   help="draw each flow's throughput over time instead (iperf points: one axes per point, "
                        "one line per flow, their sum and the wire's rate; several documents share a "
                        "point's axes, a line style per run); at most 12 points unless --point chooses")
    p.add_argument("--point", type=point_index, action="append", default=None, metavar="N",
                   help="with --series: draw point N (its point_index; the CSV's first column); "
                        "repeat the flag for several")


def point_index(text: str) -> int:
    """--point's value: a point index, a whole number from 0."""
    if not (text.strip().isascii() and text.strip().isdigit()) or len(text.strip()) > 9:
        raise argparse.ArgumentTypeError(f"--point takes a point index (a whole number from 0), got {text!r}")
    return int(text)


def overlay(docs: list[tuple[str, dict]]) -> dict:
    """One document whose points carry the run they came from (`run`: the plot and the table
    name every curve by it), and `run_notes`: each run's environment, for the plot's legend.
    The first document's paper values and figure are kept."""
    workloads = {d["workload"] for _, d in docs}
    if len(workloads) > 1:
        raise BadInput(f"plot: the documents are of different workloads ({', '.join(sorted(workloads))}): "
                       "overlay runs of one workload")
    labels = [name for name, _ in docs]
    first = docs[0][1]
    points = [{**p, "run": label} for label, (_, d) in zip(labels, docs) for p in d["points"]]
    notes = dict(zip(labels, environment_notes([d for _, d in docs])))
    return {**first, "points": points, "name": " vs ".join(labels), "run_notes": notes}


def run_labels(paths: list[str]) -> list[str]:
    """What tells the runs apart: their file names, or where those are equal, the nearest folder
    whose name differs (results/a/x.json, results/b/x.json: a, b); numbered as a last resort."""
    parts = [Path(p).resolve().with_suffix("").parts[::-1] for p in paths]
    for depth in range(min(len(q) for q in parts)):
        names = [q[depth] for q in parts]
        if len(set(names)) == len(names):
            return names
    return [f"run {i}" for i in range(1, len(paths) + 1)]


ENV_KEYS = (("commit", "project_commit"), ("version", "netlab_version"), ("kernel", "kernel"),
            ("cpus", "cpus"))


def environment_notes(docs: list[dict]) -> list[str]:
    """Each run's environment, as flent's legends carry theirs: when it ran, and the commit (or
    whichever of commit, version, kernel and CPUs differ between the runs)."""
    envs = [d.get("environment") or {} for d in docs]
    differ = [(name, key) for name, key in ENV_KEYS if len({str(e.get(key)) for e in envs}) > 1] \
        or [("commit", "project_commit")]
    out = []
    for doc, env in zip(docs, envs):
        said = [str(doc.get("created", ""))[:16].replace("T", " ")] + \
            [f"{name} {env.get(key)}" for name, key in differ if env.get(key) is not None]
        out.append(", ".join(s for s in said if s))
    return out


def run(args) -> int:
    if args.point and not args.series:
        raise BadInput("plot --point chooses the points --series draws: add --series")
    first = Path(args.results[0])
    several = len(args.results) > 1
    stem = first.stem + ("-overlay" if several else "") + ("-series" if args.series else "")
    png = args.png or str(first.with_name(stem + ".png"))
    docs = list(zip(run_labels(args.results), (load(r) for r in args.results)))
    doc = overlay(docs) if several else docs[0][1]
    check_writable(Path(png))
    image_format(png)            # before any work: .png, .svg or .pdf
    note = ""
    if args.series:
        pngs, note = plot_series(doc, png, args.point)
    else:
        pngs = plot(doc, png)
    print(table(doc))
    print("plot: " + "\n      ".join(pngs))
    if note:
        print(note)
    return 0
