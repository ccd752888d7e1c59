"""emulate.py merge SHARDS... --out FILE: join a campaign's shards into one document;
merge DIRS... --out DIR: join the shards of a whole reproduction into one report."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from core.errors import BadInput
from pipeline.merge import merge
from pipeline.report import build
from pipeline.plot import plot
from pipeline.table import table
from pipeline.results import check_writable, load, write_atomic, write_csv


def add_parser(sub) -> None:
    m = sub.add_parser("merge", help="merge the results documents of a campaign's shards",
                       description="Merge the shards of one sweep (run with --shard I/N on several "
                                   "hosts) into one document; each point keeps the host that measured "
                                   "it. Refuses documents that are not shards of one sweep. Given "
                                   "report directories of 'reproduce --shard I/N' (one per host), merges "
                                   "each experiment's shards and writes one report from them.")
    m.add_argument("documents", nargs="+", help="the shards' results/*.json, or the shards' reproduction "
                                                "directories (each with results/*.json)")
    m.add_argument("--out", required=True, metavar="FILE|DIR",
                   help="merged document to write (a CSV and plot go beside it); with directories, the "
                        "report directory to write")


def run(args) -> int:
    dirs = [Path(p) for p in args.documents if Path(p).is_dir()]
    if dirs and len(dirs) != len(args.documents):
        raise BadInput("merge: give results documents or reproduction directories, not both")
    if dirs:
        return merge_reproductions(dirs, Path(args.out))
    out = Path(args.out)
    check_writable(out)
    docs = [load(p) for p in args.documents]
    doc = merge(docs)
    write_atomic(doc, out)
    write_csv(doc, out.with_suffix(".csv"))
    pngs = plot(doc, str(out.with_suffix(".png")))
    print(table(doc))
    hosts = sorted({p.get("host", "?") for p in doc["points"]})
    print(f"\nmerged {len(doc['points'])} points from {len(docs)} shard(s) measured on {', '.join(hosts)}"
          f"{'' if doc['complete'] else ' (INCOMPLETE: some points are missing)'}")
    print(f"results: {out}\nplot:    " + "\n         ".join(pngs))
    return 0


def merge_reproductions(dirs: list[Path], out: Path) -> int:
    """Each experiment's shards (results/<name>.json in the hosts' directories) merged into
    out/results/, then one report from them, as a single machine's reproduce writes it."""
    check_writable(out / "report.html")
    shards: dict[str, list[Path]] = defaultdict(list)
    for d in dirs:
        found = sorted((d / "results").glob("*.json"))
        if not found:
            raise BadInput(f"merge: {d} holds no results/*.json: give the directories 'reproduce "
                           "--shard I/N --out DIR' wrote")
        for f in found:
            shards[f.stem].append(f)
    docs = {}
    for name, files in shards.items():
        doc = merge([load(f) for f in files])
        target = out / "results" / f"{name}.json"
        write_atomic(doc, target)
        write_csv(doc, target.with_suffix(".csv"))
        docs[name] = doc
        print(f"{name}: {len(doc['points'])} points from {len(files)} shard(s)"
              f"{'' if doc['complete'] else ' (INCOMPLETE: some points are missing)'}")
    quick = any("--quick" in (d.get("command") or "") for d in docs.values())
    page = build(docs, out, quick)
    hosts = sorted({p.get("host", "?") for d in docs.values() for p in d["points"]})
    print((out / "report.md").read_text().split("## Figures")[0])
    print(f"measured on {', '.join(hosts)}\nreport: {page}\n        {out / 'report.md'}")
    return 0
