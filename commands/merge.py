"""emulate.py merge SHARDS... --out FILE: join a campaign's shards into one document."""
from __future__ import annotations

from pathlib import Path

from pipeline.merge import merge
from pipeline.plot import plot
from pipeline.table import table
from pipeline.results import check_writable, load, write_atomic, write_csv


def add_parser(sub) -> None:
    m = sub.add_parser("merge", help="merge the results documents of a campaign's shards",
                       description="Merge the shards of one sweep (run with --shard I/N on several "
                                   "hosts) into one document; each point keeps the host that measured "
                                   "it. Refuses documents that are not shards of one sweep.")
    m.add_argument("documents", nargs="+", help="the shards' results/*.json")
    m.add_argument("--out", required=True, metavar="FILE",
                   help="merged document to write (a CSV and plot go beside it)")


def run(args) -> int:
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
