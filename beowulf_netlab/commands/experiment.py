"""emulate.py experiment list | NAME: run a paper figure's experiment file."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from beowulf_netlab.commands.args import add_machine_args, add_output_args, build_options, machine_values
from beowulf_netlab.judge.claims import load_claims, read_by_claims
from beowulf_netlab.run.experiment import experiment_files, find, load, paper_figure
from beowulf_netlab.run.results import read_json
from beowulf_netlab.run.session import run_one
from beowulf_netlab.judge.summary import summary


def experiment_names() -> list[str]:
    """'list' and the experiments' names, for completion (a file is offered too)."""
    return ["list", *experiment_files()]


def add_parser(sub) -> None:
    e = sub.add_parser("experiment", help="run a paper figure's experiment file (beowulf_netlab/experiments/*.json)",
                       description="Run an experiment file: its topologies, rates and sweep axes, with "
                                   "the paper's values printed beside the measured table. 'list' shows "
                                   "them. Files follow beowulf_netlab/experiments/schema.json. Each file names the "
                                   "hardware profile its figure ran on, and runs on it; --hardware "
                                   "(e.g. none: today's hosts) and --contention replace the file's values. The points some claim "
                                   "(beowulf_netlab/claims/claims.json) reads run the file's repeats (3; --quick 2), the "
                                   "rest of each curve once.")
    name = e.add_argument("name", help="'list', an experiment name (e.g. ipps96-fig5-demonstration), or a file")
    name.completes, name.or_file = experiment_names, True
    e.add_argument("--quick", action="store_true", help="the file's quick sweep (its 'quick' values)")
    add_machine_args(e, from_file=True)
    add_output_args(e, "<name>")


def run(args) -> int:
    if args.name == "list":
        for name, path in experiment_files().items():
            data = read_json(path, "experiment file")
            print(f"{name:28s} {data.get('description', '') if isinstance(data, dict) else ''}")
        return 0
    path = find(args.name)
    sweep, paper, meta = load(path, args.shard, quick=args.quick, override=machine_values(args))
    name = meta.get("name") or path.stem
    if paper_figure(path, name):   # a paper figure: repeats where the claims read, once elsewhere
        sweep.claimed = read_by_claims(load_claims(), name)
    log = sys.stderr if args.json else sys.stdout
    doc, out, png = run_one(sweep, Path(args.out) if args.out else None, args.png, build_options(args),
                            f"experiment {args.name}", paper, name=name,
                            progress=not args.no_progress, log=log)
    text = summary(doc, out, png, paper)
    if args.json:
        print(json.dumps(doc, indent=1, default=str))
    print(text, file=log)
    return 0
