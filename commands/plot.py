"""emulate.py plot RESULTS: redraw the table and figures of a saved document."""
from __future__ import annotations

from pathlib import Path

from pipeline.plot import plot
from pipeline.table import table
from pipeline.results import check_writable, load


def add_parser(sub) -> None:
    p = sub.add_parser("plot", help="redraw figures from a saved results document",
                       description="Redraw the plot (and table) from a results JSON of any schema "
                                   "version this tool knows.")
    p.add_argument("results", help="a results/*.json document")
    p.add_argument("--png", default=None, metavar="FILE", help="output file (default: beside the document)")


def run(args) -> int:
    png = args.png or str(Path(args.results).with_suffix(".png"))
    doc = load(args.results)
    check_writable(Path(png))
    pngs = plot(doc, png)
    print(table(doc))
    print("plot: " + "\n      ".join(pngs))
    return 0
