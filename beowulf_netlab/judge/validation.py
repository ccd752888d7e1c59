"""The era validation table: each 1996 profile against figures measured on such machines
outside the papers. Never judged as a claim, never tuned to.

A claim tests the papers; a calibration point is what a constant was set from.
An era check is neither: it is an independent measurement of a machine of the
same kind (lmbench's Linux 10baseT rows, the de4x5 driver's ttcp), with a band
declared before running (`why_band` says where it comes from). The table reads
where this run's median falls (in, below or above the band) and says nothing
about the papers' claims; a reading outside the band points at a mechanism the
model lacks, never at a constant to change: where the sources name candidates but size none,
the check says which (`lacks`), and the report sets them beside a reading outside its band.
beowulf_netlab/claims/era-checks.json lists the checks (schema SCHEMA, written to
beowulf_netlab/claims/era-checks.schema.json); each names the experiment whose points measure
it, the points (`where`) and the value read (`metric`).
"""
from __future__ import annotations

import statistics
from pathlib import Path

from beowulf_netlab.core.jsonfile import TEXT, check_schema, list_file_schema, read_json, write_schema
from beowulf_netlab.run.gates import trusted
from beowulf_netlab.core.verdicts import Reading
from beowulf_netlab.topologies.hardware import hardware_of

PACKAGE = Path(__file__).resolve().parent.parent   # beowulf_netlab/, beside its data folders
CHECKS_FILE = PACKAGE / "claims" / "era-checks.json"
SCHEMA_FILE = PACKAGE / "claims" / "era-checks.schema.json"

IN_BAND, BELOW, ABOVE, NOT_MEASURED = Reading.IN_BAND, Reading.BELOW, Reading.ABOVE, Reading.NOT_MEASURED

SCHEMA = list_file_schema(
    "Beowulf Netlab era checks",
    "Figures measured on 1995-96 machines outside the papers, each with a band declared "
    "before running; read, never judged (beowulf_netlab/judge/validation.py).",
    "checks",
    ["id", "profile", "what", "era_value", "unit", "band", "why_band", "source", "measure"],
    {
            "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9.-]*$"},
            "profile": {**TEXT, "description": "the hardware profile compared (beowulf_netlab/hardware/<name>.json)"},
            "what": {**TEXT, "description": "the era measurement, in words"},
            "era_value": {"type": "number", "exclusiveMinimum": 0},
            "unit": TEXT,
            "band": {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0},
                     "minItems": 2, "maxItems": 2, "description": "[low, high] in unit: where the "
                     "profile's reading is expected, declared before running"},
            "why_band": TEXT, "source": TEXT,
            "lacks": {**TEXT, "description": "mechanisms the model lacks that would move this reading, "
                      "which no era source sizes: the report names them beside a reading outside the band"},
            "measure": {"description": "null: no workload here measures it (say why in not_measured)",
                        "oneOf": [{"type": "null"}, {
                            "type": "object", "additionalProperties": False,
                            "required": ["experiment", "where", "metric"],
                            "properties": {
                                "experiment": {**TEXT, "description": "beowulf_netlab/experiments/<name>.json"},
                                "where": {"type": "object", "description": "point key -> value"},
                                "metric": {**TEXT, "description": "the point's key read"},
                                "scale": {"type": "number", "exclusiveMinimum": 0,
                                          "description": "unit per metric unit (ms -> us: 1000)"}}}]},
            "not_measured": {**TEXT, "description": "why a check without a measure is not measured"}})


def load_checks(path: Path = CHECKS_FILE) -> list[dict]:
    data = read_json(path, "era checks file")
    check_schema(data, SCHEMA, f"era checks file {path}")
    return data["checks"]


def experiments(checks: list[dict] | None = None) -> list[str]:
    """The experiments the checks read, in file order."""
    checks = load_checks() if checks is None else checks
    return list(dict.fromkeys(c["measure"]["experiment"] for c in checks if c["measure"]))


def read(check: dict, docs: dict[str, dict]) -> dict:
    """One check's reading from the documents of a run (name -> results document)."""
    out = {"id": check["id"], "profile": check["profile"], "what": check["what"],
           "era_value": check["era_value"], "unit": check["unit"], "band": check["band"],
           "why_band": check["why_band"], "source": check["source"], "lacks": check.get("lacks"),
           "values": [], "measured": None,
           "spread": None}
    m = check["measure"]
    if m is None:
        return {**out, "reads": NOT_MEASURED, "reason": check.get("not_measured", "no workload measures it")}
    doc = docs.get(m["experiment"])
    points = [p for p in (doc or {}).get("points", [])
              if hardware_of(p) == check["profile"] and not p.get("calibration_of")
              and all(p.get(k) == v for k, v in m["where"].items())
              and isinstance(p.get(m["metric"]), (int, float))]
    values = [p[m["metric"]] * m.get("scale", 1) for p in points if trusted(p)]
    dropped = len(points) - len(values)
    if not values:
        return {**out, "reads": NOT_MEASURED,
                "reason": f"every one of its {dropped} points failed a fidelity gate" if dropped
                else f"this run has no point of {m['experiment']} on {check['profile']}"}
    median = statistics.median(values)
    spread = (max(values) - min(values)) / 2 / median if median > 0 else 0.0
    lo, hi = check["band"]
    reads = IN_BAND if lo <= median <= hi else BELOW if median < lo else ABOVE
    return {**out, "values": [round(v, 4) for v in values], "measured": round(median, 4),
            "spread": round(spread, 4), "reads": reads,
            "reason": f"median {median:.3g} {check['unit']} of {len(values)} run(s); band {lo:g}-{hi:g}"
                      + (f" ({dropped} that failed a fidelity gate left out)" if dropped else "")}


def readings(docs: dict[str, dict], checks: list[dict] | None = None) -> list[dict]:
    checks = load_checks() if checks is None else checks
    return [read(c, docs) for c in checks]


def table(rows: list[dict]) -> list[str]:
    """Plain-text lines (bench/hardware.py prints them)."""
    out = ["era validation (never judged, never tuned to): profile, era figure, band, this run"]
    for r in rows:
        got = "-" if r["measured"] is None else f"{r['measured']:.3g} {r['unit']} (+-{r['spread']:.1%}, {len(r['values'])} runs)"
        out.append(f"  {r['profile']:16s} {r['id']:26s} era {r['era_value']:g} {r['unit']}, band "
                   f"{r['band'][0]:g}-{r['band'][1]:g}: {got}: {r['reads']}")
    return out


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    print(f"wrote {SCHEMA_FILE}")
