"""emulate.py reproduce [--quick]: run the papers' experiments and write the reproduction report."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from commands.args import add_build_args, build_options, require_root, shard_arg
from core.errors import BadInput
from pipeline.claims import load_claims
from pipeline.experiment import experiment_files, load
from pipeline.reproduction import build
from pipeline.results import RESULTS_DIR, check_writable, new_document, write_atomic


def add_parser(sub) -> None:
    p = sub.add_parser("reproduce", help="run the papers' experiments and write a report with verdicts",
                       description="Run every experiment the claims file (claims/claims.json) reads, one "
                                   "network at a time, then write a report directory: report.md, a "
                                   "self-contained report.html, figures/ and the results documents. "
                                   "Ctrl-C keeps the finished experiments and writes the report from them. "
                                   "Full run about 25 minutes on 2 cores; --quick about 5.")
    p.add_argument("--quick", action="store_true", help="each experiment's quick sweep (its 'quick' values)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="report directory (default results/reproduction-<time>[-quick])")
    p.add_argument("--only", metavar="NAME[,...]", default=None,
                   help="run only these experiments (the report judges what it has)")
    p.add_argument("--shard", type=shard_arg, default=None, metavar="I/N",
                   help="run only points I, I+N, ... of each experiment (merge shards with 'emulate.py merge')")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_build_args(p)


def planned(only: str | None) -> list[str]:
    files = experiment_files()
    wanted = [name for c in load_claims() for name in c["experiments"]]
    names = [n for n in dict.fromkeys(wanted) if n in files]
    if only:
        chosen = [n.strip() for n in only.split(",")]
        unknown = [n for n in chosen if n not in names]
        if unknown:
            raise BadInput(f"--only: {', '.join(unknown)} is not an experiment the claims read; "
                           f"choose from {', '.join(names)}")
        names = [n for n in names if n in chosen]
    return names


def run(args) -> int:
    from pipeline.runner import run_sweep   # Mininet only once a run is certain
    names = planned(args.only)
    sweeps = {name: load(experiment_files()[name], args.shard, quick=args.quick) for name in names}
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else RESULTS_DIR / f"reproduction-{stamp}{'-quick' if args.quick else ''}"
    check_writable(out / "report.html")
    require_root("reproduce")
    total = sum(s.total_points() for s, _, _ in sweeps.values())
    print(f"reproduce: {len(names)} experiments, {total} points{' (quick)' if args.quick else ''}; "
          f"report in {out}/", flush=True)
    docs: dict[str, dict] = {}
    t0 = time.monotonic()
    try:
        for k, (name, (sweep, paper, _meta)) in enumerate(sweeps.items(), 1):
            print(f"[{k}/{len(names)}] {name}: {sweep.total_points()} points", file=sys.stderr, flush=True)
            doc = new_document(sweep.workload, sweep.parameters(), paper, name)
            doc["total_points"] = sweep.total_points()
            if sweep.shard:
                doc["shard"] = f"{sweep.shard[0]}/{sweep.shard[1]}"
            path = out / "results" / f"{name}.json"
            write_atomic(doc, path)
            docs[name] = doc
            run_sweep(sweep, doc, path, build_options(args), progress=not args.no_progress)
    except KeyboardInterrupt:
        sys.stderr.write(f"\ninterrupted: writing the report from {len(docs)} experiment(s) so far\n")
        page = build(docs, out, args.quick, elapsed_s=time.monotonic() - t0)
        print(f"report: {page}")
        raise
    page = build(docs, out, args.quick, elapsed_s=time.monotonic() - t0)
    print((out / "report.md").read_text().split("## Figures")[0])
    print(f"report: {page}\n        {out / 'report.md'}")
    return 0
