"""Sensitivity: how each claim's verdict moves across the choices the papers leave open.

The papers do not say how many tokens a pair kept in flight, how much a copy
moved per read and write, or how many pairs ran at 100 Mbit/s; each experiment
fixes one value beforehand (never picked to pass). claims/sensitivity.json
lists other values (schema SCHEMA, written to claims/sensitivity.schema.json);
`reproduce --sensitivity` runs each variant of its experiment on the paper's
hardware and the report shows, per claim that reads it, the verdict of the run
beside the verdict with the variant. Reported, never chosen from: the claims'
verdicts stay those of the experiments as written.
"""
from __future__ import annotations

from pathlib import Path

from core.errors import BadInput
from core.jsonfile import TEXT, check_schema, list_file_schema, read_json, write_schema
from judge.claims import PAPER, judge_all
from run.experiment import experiment_files, load
from run.sweep import axes_for

ROOT = Path(__file__).resolve().parent.parent
VARIANTS_FILE = ROOT / "claims" / "sensitivity.json"
SCHEMA_FILE = ROOT / "claims" / "sensitivity.schema.json"

SCHEMA = list_file_schema(
    "Beowulf Netlab sensitivity variants",
    "Other values of the choices the papers leave open, each run as a variant of one "
    "experiment; the report shows how the claims reading it move (judge/sensitivity.py).",
    "variants",
    ["id", "experiment", "set", "why"],
    {
            "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9.-]*$"},
            "experiment": {**TEXT, "description": "experiments/<name>.json"},
            "set": {"type": "object", "minProperties": 1,
                    "description": "axis -> value(s), as in an experiment file's sweep; replaces the "
                                   "experiment's (and its quick) values"},
            "why": {**TEXT, "description": "why this value is open: what the papers leave unsaid"}})


def load_variants(path: Path = VARIANTS_FILE) -> list[dict]:
    data = read_json(path, "sensitivity file")
    check_schema(data, SCHEMA, f"sensitivity file {path}")
    return data["variants"]


def variant_sweep(variant: dict, quick: bool):
    """The variant's experiment with its `set` values in place of the file's (quick ones too)."""
    path = experiment_files().get(variant["experiment"])
    if path is None:
        raise BadInput(f"sensitivity file {VARIANTS_FILE}: variant {variant['id']} names no experiment "
                       f"{variant['experiment']!r}")
    axes = {a.name: a for a in axes_for(read_json(path, "experiment file")["workload"])}
    where = f"sensitivity file {VARIANTS_FILE}: variant {variant['id']}"
    unknown = [k for k in variant["set"] if k not in axes]
    if unknown:
        raise BadInput(f"{where}: {', '.join(unknown)} is not a setting of {variant['experiment']}'s workload")
    override = {k: axes[k].from_json(v, f"{where}: set.{k}") for k, v in variant["set"].items()}
    return load(path, quick=quick, override=override)


def rows(claims: list[dict], docs: dict[str, dict], variant_docs: dict[str, dict],
         variants: list[dict] | None = None) -> list[dict]:
    """Per variant that ran, per claim reading its experiment: the run's verdict and the
    variant's, on the paper's hardware (the variant's document replaces the experiment's)."""
    variants = load_variants() if variants is None else variants
    base = {r["id"]: r for r in judge_all(claims, docs, PAPER)}
    out = []
    for v in variants:
        vdoc = variant_docs.get(v["id"])
        if vdoc is None:
            continue
        reading = [c for c in claims if v["experiment"] in c["experiments"]]
        moved = {r["id"]: r for r in judge_all(reading, {**docs, v["experiment"]: vdoc}, PAPER)}
        for c in reading:
            b, m = base.get(c["id"]), moved[c["id"]]
            out.append({"variant": v["id"], "set": v["set"], "why": v["why"], "claim": c["id"],
                        "verdict": b["verdict"] if b else "not judged", "variant_verdict": m["verdict"],
                        "variant_reason": m.get("reason", ""), "moved": not b or b["verdict"] != m["verdict"]})
    return out


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    print(f"wrote {SCHEMA_FILE}")
