"""Experiment files (beowulf_netlab/experiments/*.json): a paper figure as data.

A file names its workload, gives values for the sweep's axes by their one
name (`rate_mbit`, `token_size`, ... as in `emulate.py run --help`), and
carries the paper's values for comparison. It is checked in three steps, each
failing with one line naming the file and the fix: JSON syntax; the JSON
schema (beowulf_netlab/experiments/schema.json, generated from the axes by `schema()`, a test
keeps the file equal to it; unknown keys are refused); then the same value
checks as the command line, and the placement of every point.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.jsonfile import schema_error
from beowulf_netlab.core.safefile import write_atomic_bytes
from beowulf_netlab.core.text import plain
from beowulf_netlab.run.results import NAME_PATTERN, PAPER_SCHEMA, read_json
from beowulf_netlab.run.sweep import Sweep, axes_for
from beowulf_netlab.workloads import WORKLOADS

PACKAGE = Path(__file__).resolve().parent.parent   # beowulf_netlab/, beside its data folders
ROOT = PACKAGE.parent
EXPERIMENTS_DIR = PACKAGE / "experiments"
SCHEMA_FILE = EXPERIMENTS_DIR / "schema.json"

def schema() -> dict:
    """The JSON schema of experiment files (written to beowulf_netlab/experiments/schema.json)."""
    rules = []
    for name in WORKLOADS:
        props = {a.name: a.json_schema() for a in axes_for(name)}
        values = {"type": "object", "additionalProperties": False, "properties": props}
        rules.append({"if": {"properties": {"workload": {"const": name}}},
                      "then": {"properties": {"sweep": values, "quick": values}}})
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://beowulf-netlab.invalid/experiments/schema.json",
        "title": "Beowulf Netlab experiment file",
        "description": "One paper figure as data: a workload, values for its sweep axes (the names "
                       "of `emulate.py run` flags, with underscores), and the paper's values.",
        "type": "object", "additionalProperties": False, "required": ["workload", "sweep"],
        "properties": {
            "$schema": {"type": "string", "description": "path of this schema, for editors"},
            "name": {"type": "string", "pattern": NAME_PATTERN,
                     "description": "the experiment's name (the file's stem; letters, digits, . _ -)"},
            "description": {"type": "string", "description": "one line shown by 'experiment list'"},
            "workload": {"enum": list(WORKLOADS), "description": "which workload runs: "
                         + "; ".join(f"{w.name}: {w.summary}" for w in WORKLOADS.values())},
            "sweep": {"type": "object", "description": "axis name -> value or list of values; "
                      "unset axes take their defaults"},
            "quick": {"type": "object", "description": "axis values that replace the sweep's in a "
                      "quick run (emulate.py reproduce --quick, experiment --quick)"},
            "paper": PAPER_SCHEMA,
            "same_points_as": {"type": "array", "items": {"type": "string", "pattern": NAME_PATTERN},
                               "description": "experiments that measure some of this one's points "
                                              "with the same configuration: when they ran earlier in "
                                              "the same reproduction, those points are taken from their "
                                              "documents (each marked measured_in) instead of measured "
                                              "again (beowulf_netlab/run/derive.py)"},
        },
        "allOf": rules,
    }


def _where(error) -> str:
    return ".".join(str(p) for p in error.absolute_path) or "the top level"


def validate(data: Any, path: Path) -> None:
    import jsonschema
    e = schema_error(data, schema())      # core.jsonfile: names matched whole
    if e is None:
        return
    if e.context:   # anyOf/oneOf: the likeliest alternative's own complaint
        e = jsonschema.exceptions.best_match(e.context)
    msg = e.message if len(e.message) <= 160 else e.message[:157] + "..."
    raise BadInput(f"experiment file {path}: at {plain(_where(e))}: {plain(msg)} (see beowulf_netlab/experiments/schema.json)")


def load(path: Path, shard: tuple[int, int] | None = None, quick: bool = False,
         override: dict[str, Any] | None = None) -> tuple[Sweep, dict, dict]:
    """An experiment file -> (checked Sweep, paper values, file's own fields).
    With quick, the file's `quick` values replace those of its sweep; `override`
    (parsed axis values, e.g. --hardware from the command line) replaces both."""
    data = read_json(path, "experiment file")
    validate(data, path)
    given = {}
    axes = {a.name: a for a in axes_for(data["workload"])}
    if quick and "quick" not in data:
        raise BadInput(f"experiment file {path} has no quick sweep (a 'quick' section): run it without --quick")
    values = {**data["sweep"], **(data.get("quick", {}) if quick else {})}
    for key, value in values.items():
        given[key] = axes[key].from_json(value, f"experiment file {path}: sweep.{key}")
    given.update({k: v for k, v in (override or {}).items() if v is not None})
    try:
        sweep = Sweep.make(data["workload"], given, shard)
        sweep.check()
    except BadInput as e:
        raise BadInput(f"experiment file {path}: {e}")
    return sweep, data.get("paper", {}), {k: data.get(k) for k in ("name", "description", "same_points_as")}


def experiment_files() -> dict[str, Path]:
    return {p.stem: p for p in sorted(EXPERIMENTS_DIR.glob("*.json")) if p != SCHEMA_FILE}


def paper_figure(path: Path, name: str) -> bool:
    """Whether the experiment file at path, named name, is a paper figure: only
    beowulf_netlab/experiments/NAME.json is, or a copy of it (the campaign sends one to each host). A file of
    its own that takes a figure's name would be run, recorded and judged as that figure:
    BadInput saying to give it a name of its own."""
    figure = experiment_files().get(name)
    if figure is None:
        return False
    if Path(path).resolve() == figure.resolve() or \
            read_json(path, "experiment file") == read_json(figure, "experiment file"):
        return True
    raise BadInput(f"experiment file {path} is named {name!r}, a paper figure's name, but is not "
                   f"{figure.relative_to(ROOT)}: give it a name of its own")


def find(name: str) -> Path:
    """An experiment by name (beowulf_netlab/experiments/NAME.json) or a file path."""
    files = experiment_files()
    if name in files:
        return files[name]
    path = Path(name)
    if path.suffix == ".json" or "/" in name:
        return path
    raise BadInput(f"no experiment {name!r}; 'emulate.py experiment list' shows: {', '.join(files)}")


def write_schema() -> None:
    write_atomic_bytes(SCHEMA_FILE, json.dumps(schema(), indent=2) + "\n")


if __name__ == "__main__":
    write_schema()
    print(f"wrote {SCHEMA_FILE}")
