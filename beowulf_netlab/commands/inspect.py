"""emulate.py inspect [RUN]: the networks this tool built that run now (as containerlab inspect)."""
from __future__ import annotations

import json

from beowulf_netlab.netlab.running import as_data, details, find, run_id_arg, runs, table


def add_parser(sub) -> None:
    p = sub.add_parser("inspect", help="list the networks running now, or one run's nodes",
                       description="List the networks this tool built that are running now (or were "
                                   "killed and left behind: stale), from their run records in "
                                   "/run/beowulf-netlab: run id, state, owner pid, start time, nodes, "
                                   "network, command. With RUN: its nodes, each with its namespace's pid "
                                   "and address. Enter a node with 'emulate.py shell NODE'.")
    p.add_argument("run", nargs="?", default=None, metavar="RUN",
                   help="a run id as the list shows it (two hex digits, e.g. 3a)")
    p.add_argument("--json", action="store_true", help="print the runs (or the run's nodes) as JSON instead "
                   "(docs/json.md)")


def run(args) -> int:
    run_id = run_id_arg(args.run) if args.run is not None else None
    found = runs()
    if args.json:
        print(json.dumps(as_data(found, find(found, run_id) if run_id is not None else None), indent=1))
        return 0
    lines = details(find(found, run_id)) if run_id is not None else table(found)
    print("\n".join(lines))
    return 0
