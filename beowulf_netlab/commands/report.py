"""emulate.py report RESULTS...: rebuild the reproduction report from saved documents."""
from __future__ import annotations

from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.judge.report import build, headline, headline_json
from beowulf_netlab.judge.sensitivity import range_variants_of
from beowulf_netlab.run.experiment import experiment_files
from beowulf_netlab.run.store import check_writable
from beowulf_netlab.run.results import load, read_json


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="rebuild the reproduction report from saved results",
                       description="Judge the papers' claims (beowulf_netlab/claims/claims.json) against saved results "
                                   "documents of experiments (from 'reproduce' or 'experiment') without "
                                   "running anything, and write report.md and report.html.")
    p.add_argument("results", nargs="+", help="results documents (e.g. results/reproduction-*/results/*.json, "
                   "and its sensitivity/*.json for the variants and range ends)")
    p.add_argument("--out", metavar="DIR", default=None, help="report directory (default: beside the first document)")
    p.add_argument("--json", action="store_true", help="print the headline as JSON instead: verdict counts per "
                   "view, calibrations not met, the report's paths (docs/json.md)")


def run(args) -> int:
    docs, varied = {}, {}
    files = experiment_files()
    for path in args.results:
        doc = load(path)
        name = doc.get("name")
        if not name:
            raise BadInput(f"results document {path} was not made from an experiment file (it has no "
                           "name): run it with 'emulate.py experiment' or 'emulate.py reproduce'")
        if name.startswith("sensitivity-"):     # a variant's (reproduce's sensitivity/ folder)
            varied[name[len("sensitivity-"):]] = doc
            continue
        if name in docs:
            raise BadInput(f"two documents of experiment {name}: give one (merge shards first)")
        if name in files and read_json(files[name], "experiment file").get("workload") != doc["workload"]:
            raise BadInput(f"results document {path} is named {name} but measured {doc['workload']}, "
                           f"not that experiment's workload")
        docs[name] = doc
    first = Path(args.results[0]).resolve()
    out = Path(args.out) if args.out else (first.parent.parent if first.parent.name == "results"
                                           and first.parent.parent.name.startswith("reproduction")
                                           else first.parent / "report")
    check_writable(out / "report.html")
    quick = any("--quick" in (d.get("command") or "") for d in docs.values())
    ranges = [v for v in range_variants_of(list(docs)) if v["id"] in varied]
    page = build(docs, out, quick, sensitivity=varied or None, ranges=ranges)
    if args.json:
        print(headline_json(out))
        return 0
    print(headline((out / "report.md").read_text()))
    print(f"report: {page}\n        {out / 'report.md'}")
    return 0
