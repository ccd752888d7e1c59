"""Two stored results set side by side, point by point (`emulate.py compare A B`).

A side is one results document or a run directory (reproduce's: its results/*.json, or
any folder of documents; .json.gz too, as tests/fixtures/full-run stores them). Points
match when they sit on the same curve (configuration, hardware view, metric: judge.table's
series, so a row is named as tables and plots name it) at the same x, in documents of the
same experiment (two single files match whatever their names). Each side's figure is the
median of its repeats, its spread half their range (as tables show it); a difference
larger than the two spreads together is flagged, since only then do the repeats say the
two runs differ. With one run on both sides nothing can be said either way: such a row
is marked so, never flagged. The JSON form (`--json`) is `compare()`'s dict, whose keys
are documented in docs/json.md.
"""
from __future__ import annotations

import statistics
import zlib
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.safefile import read_bytes
from beowulf_netlab.run.results import MAX_FILE_BYTES, load_data
from beowulf_netlab.judge.table import figure_of, levels, series, sweep_points, x_label

JSON_VERSION = 1          # the --json form's version: a key's meaning never changes under one number
MAX_DOCUMENTS = 200       # documents read from one run directory


def _read(path: Path) -> dict:
    """One results document, plain or gzip (bounded as a plain one is)."""
    data = read_bytes(path, "results document", MAX_FILE_BYTES)
    if path.name.endswith(".gz"):
        d = zlib.decompressobj(31)
        try:
            data = d.decompress(data, MAX_FILE_BYTES)
        except zlib.error as e:
            raise BadInput(f"results document {path} is not gzip: {e}")
        if d.unconsumed_tail:
            raise BadInput(f"results document {path} inflates beyond {MAX_FILE_BYTES >> 20} MB")
    return load_data(data, f"results document {path}")


def side(path: str) -> dict[str, dict]:
    """A side's documents by experiment name: one file (named '' so two files always match)
    or a directory's (its results/ folder if it has one), by each document's name or stem."""
    p = Path(path)
    if not p.is_dir():
        if not p.exists():
            raise BadInput(f"compare: {path} does not exist: give a results document or a run directory")
        return {"": _read(p)}
    folder = p / "results" if (p / "results").is_dir() else p
    files = sorted(f for f in folder.iterdir() if f.name.endswith((".json", ".json.gz")) and f.is_file()
                   and not f.name.startswith("."))
    if not files:
        raise BadInput(f"compare: {path} holds no results documents (*.json, or results/*.json in a "
                       "reproduction directory)")
    if len(files) > MAX_DOCUMENTS:
        raise BadInput(f"compare: {path} holds {len(files)} documents (at most {MAX_DOCUMENTS})")
    out: dict[str, dict] = {}
    for f in files:
        doc = _read(f)
        name = doc.get("name") or f.name.split(".json")[0]
        if name in out:
            raise BadInput(f"compare: {path} holds two documents of {name}: merge shards first")
        out[name] = doc
    return out


def _figures(doc: dict) -> dict[tuple, dict]:
    """(curve, x) -> the repeats' values and whether all were trusted: the same rows a table shows."""
    doc = sweep_points(doc)
    fig = figure_of(doc)
    out: dict[tuple, dict] = {}
    for s in series(doc):
        for x, vals in s.values.items():
            out[(s.name, x_label(fig, x))] = {"x": x, "values": vals, "trusted": x not in s.suspect}
    for view, net, label, vals, ok in levels(doc):
        hw = f" [{view}]" if view != "none" else ""
        out[(f"{net}{hw} {label}", "level")] = {"x": None, "values": vals, "trusted": ok}
    return out


def _stat(vals: list[float], trusted: bool) -> dict:
    med = statistics.median(vals)
    return {"median": round(med, 6), "spread": round((max(vals) - min(vals)) / 2, 6), "runs": len(vals),
            "trusted": trusted}


def compare(a: dict[str, dict], b: dict[str, dict], a_name: str = "A", b_name: str = "B") -> dict:
    """Every point the two sides share, with both figures, the difference and the flag."""
    pairs = [(n, a[n], b[n]) for n in a if n in b]
    if not pairs and len(a) == 1 and len(b) == 1:
        pairs = [(next(iter(a)) or next(iter(b)), *a.values(), *b.values())]
    if not pairs:
        raise BadInput(f"compare: {a_name} and {b_name} share no experiment ({a_name}: "
                       f"{', '.join(sorted(a)) or 'one document'}; {b_name}: {', '.join(sorted(b)) or 'one document'})")
    rows, only_a, only_b = [], 0, 0
    for name, da, db in pairs:
        if da["workload"] != db["workload"]:
            raise BadInput(f"compare: {name or 'the documents'}: {a_name} measured {da['workload']}, "
                           f"{b_name} {db['workload']}: nothing to compare")
        fa, fb = _figures(da), _figures(db)
        x_axis = figure_of(da).x_label.split(" (")[0]
        only_a += len(fa.keys() - fb.keys())
        only_b += len(fb.keys() - fa.keys())
        for key in (k for k in fa if k in fb):
            sa = _stat(fa[key]["values"], fa[key]["trusted"])
            sb = _stat(fb[key]["values"], fb[key]["trusted"])
            diff = sb["median"] - sa["median"]
            repeated = sa["runs"] > 1 or sb["runs"] > 1
            rows.append({"experiment": name, "curve": key[0], "x_axis": x_axis, "x": key[1],
                         "a": sa, "b": sb, "difference": round(diff, 6),
                         "relative": round(diff / sa["median"], 6) if sa["median"] else None,
                         "beyond_spreads": (abs(diff) > sa["spread"] + sb["spread"]) if repeated else None})
    if not rows:
        raise BadInput(f"compare: {a_name} and {b_name} share no point (the same configuration, view and "
                       "x): they measured different sweeps")
    return {"compare_version": JSON_VERSION, "a": a_name, "b": b_name, "unit": "MB/s", "rows": rows,
            "only_in_a": only_a, "only_in_b": only_b,
            "beyond_spreads": sum(1 for r in rows if r["beyond_spreads"])}


def _value(s: dict) -> str:
    return f"{s['median']:.2f}" + ("" if s["trusted"] else "*")


def _spread(s: dict) -> str:
    return f"+-{s['spread']:.2f}" if s["runs"] > 1 else "1 run"


def text(result: dict) -> str:
    """The table a person reads: one row per shared point, flagged rows marked '!'."""
    rows = result["rows"]
    head = ("curve", "x", "A", "B", "B-A", "B/A-1", "spread A", "spread B", "")
    cells = [(r["curve"], str(r["x"]), _value(r["a"]), _value(r["b"]), f"{r['difference']:+.2f}",
              f"{r['relative']:+.1%}" if r["relative"] is not None else "-", _spread(r["a"]), _spread(r["b"]),
              "!" if r["beyond_spreads"] else "?" if r["beyond_spreads"] is None else "")
             for r in rows]
    widths = [max(len(c[i]) for c in (head, *cells)) for i in range(len(head))]
    lines = [f"A: {result['a']}", f"B: {result['b']}",
             f"{len(rows)} points in both, MB/s (10^6 bytes/s): the median of each side's runs, its spread "
             "half their range"]
    by_experiment: dict[str, list] = {}
    for r, c in zip(rows, cells):
        by_experiment.setdefault(r["experiment"], []).append(c)
    axis = {r["experiment"]: r["x_axis"] for r in rows}
    for name, group in by_experiment.items():
        lines += ["", f"{name} (x: {axis[name]})" if name else f"x: {axis[name]}"]
        lines.append("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths))).rstrip())
        for c in group:
            lines.append("  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                                   for i, (v, w) in enumerate(zip(c, widths))).rstrip())
    lines += ["", f"! {result['beyond_spreads']} point(s) differ by more than their two spreads together "
              "(the repeats say the runs differ); ? one run on both sides: no spread to judge by"]
    if any(not r["a"]["trusted"] or not r["b"]["trusted"] for r in rows):
        lines.append("* failed a fidelity gate on that side (see its document's gates)")
    if result["only_in_a"] or result["only_in_b"]:
        lines.append(f"not compared: {result['only_in_a']} point(s) only in A, {result['only_in_b']} only in B")
    return "\n".join(lines) + "\n"
