"""The results document: one versioned JSON per run, its schema, reading and creating it.

Its format is beowulf_netlab/results/schema.json (generated from SCHEMA below; a test keeps
them equal), which describes every key, and beowulf_netlab/results/README.md. A point's keys
are declared where they are produced (run.point); the schema's point part
and the CSV's columns are made from those declarations. Documents are
validated whenever they are written (runner, merge) and read (plot, merge,
report); a document of an older schema version is upgraded on read, a newer
one refused (run.upgrade). Writing it is run.store's job, its CSV
run.csvfile's, and the environment it records run.environment's. Every point carries its parameters, its measurements and the
fidelity monitor's verdict; the environment records what the numbers came
from, including the exact tc/ip/nft argv applied to every wire and node.
"""
from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.fields import names, properties
from beowulf_netlab.core.jsonfile import MAX_FILE_BYTES, parse_json, read_json, validator  # noqa: F401 (read_json re-exported)
from beowulf_netlab.core.safefile import read_bytes, write_atomic_bytes
from beowulf_netlab.core.text import plain
from beowulf_netlab.run.environment import ENVIRONMENT_FIELDS, environment
from beowulf_netlab.run.gates import recompute
from beowulf_netlab.run.point import COMMON_FIELDS, filled, workload_fields
from beowulf_netlab.run.sweep import UNREAD_LEFT_OUT, UNREAD_ONCE
from beowulf_netlab.run.upgrade import SCHEMA_VERSION, upgrade
from beowulf_netlab.topologies.timescale import time_scale_of
from beowulf_netlab.workloads import WORKLOADS

PACKAGE = Path(__file__).resolve().parent.parent   # beowulf_netlab/, beside its data folders
ROOT = PACKAGE.parent   # the checkout's top, when this is a checkout
# run documents go to the checkout's top results/ (also under an editable install), never the
# package's results/ (the documents' schema and README only); a copy installed by `pip install .`
# has no checkout, and its package's folder is no place for them: the working folder's results/ then
RESULTS_DIR = ROOT / "results" if (ROOT / "pyproject.toml").exists() else Path("results")
SCHEMA_FILE = PACKAGE / "results" / "schema.json"


PAPER_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "description": "The paper's side of the comparison (see docs/papers.md).",
    "properties": {
        "source": {"type": "string", "description": "which paper and figure, with its docs/papers.md key"},
        "hardware": {"type": "string", "description": "the machine the paper's figure ran on"},
        "values": {"type": "object", "description": "named values of the paper: each an object with "
                   "value, status (verified | seed | derived) and what it refers to",
                   "additionalProperties": {"type": "object", "required": ["value", "status"],
                                            "properties": {"value": {"type": "number"},
                                                           "status": {"enum": ["verified", "seed",
                                                                               "derived"]},
                                                           "where": {"type": "string"},
                                                           "unit": {"type": "string", "description":
                                                                    "what the value is in (MB/s, x)"},
                                                           "measure": {
                                                               "type": "object", "required": ["kind"],
                                                               "description": "how a run reads the same "
                                                               "quantity, to print it beside the paper's "
                                                               "(never judged): {kind: value, select} or "
                                                               "{kind: ratio, a, b}, selections as in "
                                                               "beowulf_netlab/claims/claims.json"}}}},
        "notes": {"type": "array", "items": {"type": "string"},
                  "description": "lines printed beside the measured table"},
        "choices": {"type": "array", "items": {"type": "string"},
                    "description": "parameters the paper does not give, and what this file chose"},
        "reference_points": {"type": "array", "description": "the paper's values at a given x, drawn as "
                             "markers on the plots (x in the figure's x units)",
                             "items": {"type": "object", "required": ["x", "y", "label"],
                                       "additionalProperties": False,
                                       "properties": {"x": {"type": "number", "description": "x value"},
                                                      "y": {"type": "number", "description": "MB/s"},
                                                      "label": {"type": "string", "description": "legend text"}}}},
        "reference_lines": {"type": "array", "description": "horizontal lines drawn on the plots",
                            "items": {"type": "object", "required": ["label"],
                                      "additionalProperties": False,
                                      "anyOf": [{"required": ["y"]}, {"required": ["of"]}],
                                      "properties": {"y": {"type": "number", "description": "MB/s"},
                                                     "of": {"type": "object", "required": ["where", "scale"],
                                                            "additionalProperties": False,
                                                            "description": "instead of y: a line from this "
                                                                           "run, per hardware view: the median "
                                                                           "of the points `where` selects "
                                                                           "(MB/s of the real network) x scale",
                                                            "properties": {"where": {"type": "object",
                                                                                     "description": "point key -> value"},
                                                                           "scale": {"type": "number",
                                                                                     "description": "multiplies the median"}}},
                                                     "label": {"type": "string", "description": "legend text"},
                                                     "nodes": {"type": "integer", "minimum": 1,
                                                               "description": "the cluster size the value is "
                                                                              "for: not drawn beside a run "
                                                                              "of another size"}}}},
    },
}
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


def _obj(description: str, **props) -> dict:
    return {"type": "object", "description": description, "properties": props}


def _t(kind, description: str, **extra) -> dict:
    return {"type": kind, "description": description, **extra}


# every point's fields and each workload's own, from their declarations (run.point)
COMMON_POINT = properties(COMMON_FIELDS)
WORKLOAD_POINT = {name: properties(workload_fields(name)) for name in WORKLOADS}
REQUIRED_POINT = list(names(COMMON_FIELDS, required=True))
REQUIRED_BY_WORKLOAD = {name: list(names(workload_fields(name), required=True)) for name in WORKLOADS}

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "https://beowulf-netlab.invalid/results/schema.json",
    "title": "Beowulf Netlab results document",
    "description": f"One run of emulate.py (run, experiment, merge): schema version {SCHEMA_VERSION}.",
    "type": "object",
    "required": ["schema_version", "tool", "created", "workload", "parameters", "environment",
                 "complete", "points"],
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION, "description": "format version; older ones are "
                           "upgraded on read, newer ones refused"},
        "tool": _t("string", "always beowulf-netlab"),
        "created": _t("string", "local time the run started, ISO 8601"),
        "command": _t("string", "the command line that made the document"),
        "name": {"type": ["string", "null"], "pattern": NAME_PATTERN,
                 "description": "experiment name, if the run came from an experiment file"},
        "workload": {"enum": list(WORKLOADS), "description": "which workload the points measured"},
        "parameters": _t("object", "the sweep: every axis by its one name (as `emulate.py run` "
                         "flags, with underscores) and its value(s)"),
        "total_points": _t("integer", "points in the whole sweep, whatever this shard", minimum=0),
        "shard": _t("string", "I/N: this document holds points I, I+N, ... of the sweep",
                    pattern=r"^[1-9][0-9]*/[1-9][0-9]*$"),
        "shards": _t("array", "merged documents: the shards merged"),
        "same_points_as": _t("array", "experiments whose documents gave points of this one (each such "
                             "point names its source in measured_in)"),
        "unread_points": {"enum": [UNREAD_ONCE, UNREAD_LEFT_OUT],
                          "description": "how the points no claim reads (beowulf_netlab/claims/claims.json) ran: once "
                                         "each (experiment, reproduce --curves: the curves drawn whole) or not at all "
                                         "(reproduce, --quick: the curves hold only the points a claim or a "
                                         "calibration reads, and those that experiments sharing points measure "
                                         "anyway); absent: every point repeated, or a document from before it "
                                         "was recorded"},
        "complete": _t("boolean", "every point of the sweep (or shard) finished"),
        "paper": PAPER_SCHEMA,
        "calibrations": {"type": "array", "description": "every calibration point the points rest on, "
                         "judged from this document (beowulf_netlab/run/calibration.py): id, what, target, "
                         "tolerance, values, measured (median), spread, failed_gate (its measurements "
                         "left out because they failed a fidelity gate), verdict (met | missed | noisy | "
                         "not measured), reason", "items": {"type": "object",
                                                            "required": ["id", "verdict", "reason"]}},
        "calibration_not_measured": {"type": "array", "items": {"type": "string"},
                                     "description": "calibrations this sweep's settings could not measure"},
        "environment": {"type": "object", "description": "what the numbers came from",
                        "properties": properties(ENVIRONMENT_FIELDS),
                        "required": list(names(ENVIRONMENT_FIELDS, required=True))},
        "points": {"type": "array", "description": "one object per measured point",
                   "items": {"type": "object", "required": REQUIRED_POINT,
                             "properties": COMMON_POINT}},
    },
    "allOf": [{"if": {"properties": {"workload": {"const": w}}},
               "then": {"properties": {"points": {"items": {
                   "required": REQUIRED_BY_WORKLOAD[w], "properties": WORKLOAD_POINT[w]}}}}}
              for w in WORKLOADS],
}


def real_rate(point: dict, metric: str = "throughput_mbyte_s") -> float:
    """A point's MB/s as the real network's: every MB/s result's own name holds it (since v6; its
    measured twin holds what a time-scaled network carried, run.upgrade)."""
    return float(point[metric])


def real_intervals(point: dict) -> list[tuple[str, list[tuple[float, float, int | None]]]]:
    """Each flow's series (an iperf pair's `intervals`) as the real network's: (src->dst,
    [(t_s / D, mbit_s x D, retransmits or None)]); flows without one are left out."""
    d = time_scale_of(point)
    out = []
    for part in point.get("per_pair") or []:
        if isinstance(part, dict) and part.get("intervals"):
            name = f"{part.get('src', '?')}->{part.get('dst', '?')}"
            out.append((name, [(s[0] / d, s[1] * d, int(s[2]) if len(s) > 2 else None)
                               for s in part["intervals"]]))
    return out


_VALIDATOR = None


def _validator():
    global _VALIDATOR
    if _VALIDATOR is None:
        import jsonschema
        base = jsonschema.validators.validator_for(SCHEMA)
        checker = base.TYPE_CHECKER.redefine("array", lambda _c, x: isinstance(x, (list, tuple)))
        _VALIDATOR = validator(SCHEMA, type_checker=checker)     # core.jsonfile: names matched whole
    return _VALIDATOR


def validate(doc: dict, where: str = "the results document") -> None:
    """BadInput (one line) when doc does not match SCHEMA. A document in memory may hold tuples
    where its file will hold arrays (a flow's path): both are arrays here."""
    import jsonschema
    try:
        _validator().validate(doc)
    except jsonschema.ValidationError as e:
        path = ".".join(str(p) for p in e.absolute_path) or "the top level"
        shown = repr(e.instance)
        msg = e.message if len(shown) <= 60 else e.message.replace(shown, shown[:50] + "...")  # why, not what
        msg = msg if len(msg) <= 160 else msg[:157] + "..."
        raise BadInput(f"{where} does not match beowulf_netlab/results/schema.json at {plain(path)}: {plain(msg)}")


def load(path: str | Path) -> dict:
    """Read, upgrade and validate a results document; BadInput (one line) otherwise."""
    return load_data(read_bytes(Path(path), "results document", MAX_FILE_BYTES), f"results document {path}")


def load_data(data: bytes, where: str) -> dict:
    """A results document from its bytes (e.g. a member of a lab host's archive), upgraded and
    validated; `where` names it in every error."""
    doc = upgrade(parse_json(data, where), where)
    validate(doc, where)
    doc["points"] = [filled(p, doc["workload"]) for p in doc["points"]]   # every declared default, once
    for i, p in enumerate(doc["points"]):
        # judged from the measurements, never from a stored verdict (nor from its absence: an
        # older document's points get the gates its measurements allow)
        if isinstance(p.get("rate_mbit"), (int, float)):
            wl = WORKLOADS[p.get("workload") or doc["workload"]]
            try:
                p["gates"] = recompute(p, wl.bounds, wl.concurrent_pairs)
            except (TypeError, ValueError, KeyError, AttributeError, IndexError, ZeroDivisionError) as e:
                raise BadInput(f"{where}: point {i} holds a measurement of the wrong kind "
                               f"({type(e).__name__}: {str(e)[:80]}): not a document this tool wrote")
    return doc


def new_document(workload: str, parameters: dict, paper: dict | None = None,
                 name: str | None = None) -> dict:
    return {"schema_version": SCHEMA_VERSION, "tool": "beowulf-netlab",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "command": shlex.join(["emulate.py", *sys.argv[1:]]), "name": name,
            "workload": workload, "parameters": parameters, "environment": environment(),
            "paper": paper or {}, "complete": False, "points": []}


def write_schema() -> None:
    write_atomic_bytes(SCHEMA_FILE, json.dumps(SCHEMA, indent=2) + "\n")


if __name__ == "__main__":
    write_schema()
    print(f"wrote {SCHEMA_FILE}")
