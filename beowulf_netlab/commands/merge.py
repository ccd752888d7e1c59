"""emulate.py merge SHARDS... --out FILE: join a campaign's shards into one document;
merge DIRS|ARCHIVES... --out DIR: join the shards of a whole reproduction into one report (archives
are read in memory, never unpacked)."""
from __future__ import annotations

import contextlib
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.jsonfile import MAX_FILE_BYTES
from beowulf_netlab.core.safefile import archive_members
from beowulf_netlab.core.text import plain, plain_lines
from beowulf_netlab.run.merge import merge
from beowulf_netlab.judge.report import build, headline, headline_json
from beowulf_netlab.judge.plot import plot
from beowulf_netlab.judge.table import table
from beowulf_netlab.run.store import check_writable, write_atomic
from beowulf_netlab.run.results import load, load_data
from beowulf_netlab.run.csvfile import write_csv


def add_parser(sub) -> None:
    m = sub.add_parser("merge", help="merge the results documents of a campaign's shards",
                       description="Merge the shards of one sweep (run with --shard I/N on several "
                                   "hosts) into one document; each point keeps the host that measured "
                                   "it. Refuses documents that are not shards of one sweep. Given "
                                   "report directories of 'reproduce --shard I/N' (one per host), or their "
                                   ".tgz archives (read in memory, never unpacked), merges "
                                   "each experiment's shards and writes one report from them.")
    m.add_argument("documents", nargs="+", help="the shards' results/*.json, or the shards' reproduction "
                                                "directories (each with results/*.json) or their "
                                                ".tgz archives (read, never unpacked)")
    m.add_argument("--out", required=True, metavar="FILE|DIR",
                   help="merged document to write (a CSV and plot go beside it); with directories, the "
                        "report directory to write")
    m.add_argument("--json", action="store_true", help="print what was merged as JSON instead (the document's "
                   "paths, points, hosts; with directories the report's headline): docs/json.md")


ARCHIVE_SUFFIXES = (".tgz", ".tar.gz", ".tar")
MEMBER_RE = re.compile(r"(?:\./)?results/([A-Za-z0-9][A-Za-z0-9._-]*)\.json")
MAX_ARCHIVE_BYTES = 256 << 20     # a host's archive as fetched (a full reproduction's: a few MB)
MAX_EXPANDED_BYTES = 1 << 30      # everything it expands to, headers and skipped members included


def _is_archive(p: str) -> bool:
    return p.endswith(ARCHIVE_SUFFIXES)


def run(args) -> int:
    if not args.json:
        return _run(args)
    record: dict = {}
    with contextlib.redirect_stdout(sys.stderr):    # --json: stdout holds the JSON alone
        _run(args, record)
    print(json.dumps(record, indent=1))
    return 0


def _run(args, record: dict | None = None) -> int:
    """Merge, print what was merged, and fill `record` with it (--json's form)."""
    archives = [Path(p) for p in args.documents if _is_archive(p)]
    dirs = [Path(p) for p in args.documents if not _is_archive(p) and Path(p).is_dir()]
    if (dirs or archives) and len(dirs) + len(archives) != len(args.documents):
        raise BadInput("merge: give results documents, or reproduction directories and archives, not both")
    if dirs or archives:
        return merge_reproductions(dirs, Path(args.out), archives, record)
    out = Path(args.out)
    check_writable(out)
    docs = [load(p) for p in args.documents]
    doc = merge(docs)
    write_atomic(doc, out)
    write_csv(doc, out.with_suffix(".csv"))
    pngs = plot(doc, str(out.with_suffix(".png")))
    print(plain_lines(table(doc)))   # shards come from other hosts: no control sequence reaches the terminal
    hosts = sorted({p.get("host", "?") for p in doc["points"]})
    print(f"\nmerged {len(doc['points'])} points from {len(docs)} shard(s) measured on {plain(', '.join(hosts))}"
          f"{'' if doc['complete'] else ' (INCOMPLETE: some points are missing)'}")
    print(f"results: {out}\nplot:    " + "\n         ".join(pngs))
    (record if record is not None else {}).update({"merge_version": 1, "results": str(out), "csv": str(out.with_suffix(".csv")), "plots": pngs,
                   "points": len(doc["points"]), "shards": len(docs), "complete": doc["complete"], "hosts": hosts})
    return 0


def merge_reproductions(dirs: list[Path], out: Path, archives: list[Path] = (), record: dict | None = None) -> int:
    """Each experiment's shards (results/<name>.json in the hosts' directories, or in the
    tar archives lab hosts sent: read in memory, never unpacked, regular files only) merged
    into out/results/, then one report from them, as a single machine's reproduce writes it."""
    check_writable(out / "report.html")
    shards: dict[str, list] = defaultdict(list)
    for d in dirs:
        found = sorted(f for f in (d / "results").glob("*.json") if MEMBER_RE.fullmatch(f"results/{f.name}"))
        if not found:
            raise BadInput(f"merge: {d} holds no results/*.json: give the directories 'reproduce "
                           "--shard I/N --out DIR' wrote")
        for f in found:
            shards[f.stem].append(f)
    for a in archives:
        members = archive_members(a, "reproduction archive", MEMBER_RE, MAX_FILE_BYTES, MAX_ARCHIVE_BYTES,
                                  MAX_EXPANDED_BYTES)
        if not members:
            raise BadInput(f"merge: {a} holds no results/*.json as regular files: give the archives "
                           "of the folders 'reproduce --shard I/N --out DIR' wrote")
        for name, data in sorted(members.items()):
            shards[MEMBER_RE.fullmatch(name).group(1)].append((f"{a}:{name}", data))
    docs = {}
    for name, files in shards.items():
        doc = merge([load_data(f[1], f"results document {f[0]}") if isinstance(f, tuple) else load(f)
                     for f in files])
        target = out / "results" / f"{name}.json"
        write_atomic(doc, target)
        write_csv(doc, target.with_suffix(".csv"))
        docs[name] = doc
        print(f"{name}: {len(doc['points'])} points from {len(files)} shard(s)"
              f"{'' if doc['complete'] else ' (INCOMPLETE: some points are missing)'}")
    quick = any("--quick" in (d.get("command") or "") for d in docs.values())
    page = build(docs, out, quick)
    hosts = sorted({p.get("host", "?") for d in docs.values() for p in d["points"]})
    print(plain_lines(headline((out / "report.md").read_text())))
    print(f"measured on {plain(', '.join(hosts))}\nreport: {page}\n        {out / 'report.md'}")
    (record if record is not None else {}).update({"merge_version": 1, **json.loads(headline_json(out)), "hosts": hosts,
                   "experiments": {n: {"points": len(d["points"]), "complete": d["complete"]} for n, d in docs.items()}})
    return 0
