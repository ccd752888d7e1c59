"""beowulf_netlab/results/README.md, made from the declarations: the document's keys (run.results' schema), the
environment's (run.environment), every point field (run.point, each workload's) and every
CSV's columns (run.csvfile), so the page cannot drift from what a run writes (a unit test
keeps the file current). `python3 -m beowulf_netlab.run.readme` writes it (after `python3 -m beowulf_netlab.run.results`, the schema).
"""
from __future__ import annotations

from beowulf_netlab.core.fields import NO_DEFAULT, Field
from beowulf_netlab.core.safefile import write_atomic_bytes
from beowulf_netlab.core.text import md_cell
from beowulf_netlab.run.csvfile import INTERVALS_CSV, csv_columns
from beowulf_netlab.netlab.record import NETWORK_RECORD
from beowulf_netlab.run.environment import ENVIRONMENT_FIELDS
from beowulf_netlab.run.point import COMMON_FIELDS, workload_fields
from beowulf_netlab.run.results import PACKAGE, SCHEMA
from beowulf_netlab.run.upgrade import SCHEMA_VERSION
from beowulf_netlab.workloads import WORKLOADS

INTRO = f"""# results/

Run documents land here: `<time>-<workload>.json` (the results document), a `.csv` beside it,
and `.png` figures. They are not committed; redraw a figure with
`python3 emulate.py plot results/<file>.json`.

This page is made from the declarations (`python3 -m beowulf_netlab.run.readme`); a unit test
keeps it current. Each setting is declared once (beowulf_netlab/core/settings.py: its flag, experiment-file key,
point field, schema entry and CSV column are made from it); each other key of a point beside
what produces it (beowulf_netlab/core/fields.py).

## The results document (schema version {SCHEMA_VERSION})

`beowulf_netlab/results/schema.json` is the JSON schema, with a description of every key; documents are
checked against it whenever the tool writes one (after every point of a run, and by `merge`) and
whenever it reads one (`plot`, `merge`, `report`). Older documents are upgraded on read
(beowulf_netlab/run/upgrade.py): v1's sweep parameters get their current names; v1-v2 points get `hardware: none`
and `contention: off` (what they ran on); v1-v3 points `tcp: null` (the host's own TCP,
unrecorded); v1-v4 points `contention_default: off`; v1-v5 points one meaning per name: each MB/s
result's own name holds the real network's figure (v5 kept it under `scaled` on a time-scaled
point and the slowed one under the name) and its `measured_` twin what the network carried in its
own time (equal at D = 1). A newer version than the tool knows is refused with a message to update
the checkout. The loader then fills every declared default a point lacks (the "absent reads as"
column below), so no reader restates one. Readers are tested against stored documents
(`tests/fixtures/`).
"""

SERIES = """## Flows over time

Each iperf flow also keeps its throughput over time (`per_pair[].intervals`, with iperf3's
reporting interval `per_pair[].interval_s`, chosen so a run gives about 25 samples; at most 200
a flow): per interval `[t_end_s, mbit_s, retransmits]`, the receiving server's goodput in the
interval ending `t_end_s` after the omitted slow start and the sender's retransmitted segments in
it (`[t_end_s, mbit_s]` where the sender reported none). These are as measured: on a time-scaled
point, t / D and Mbit/s x D are the real network's. They do not go into the point CSV: a sibling
`<name>-intervals.csv` has one row per sample ({columns}, times and rates the real network's),
and `emulate.py plot <file>.json --series [--point N]` draws them.
"""


def _type(f: Field) -> str:
    return " or ".join(f.type) if isinstance(f.type, tuple) else f.type


def _default(f: Field) -> str:
    return "" if f.default is NO_DEFAULT else f"`{'null' if f.default is None else f.default}`"


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def _fields_table(fields: list[tuple[Field, str]]) -> list[str]:
    out = [_row("key", "type", "unit", "role", "absent reads as", "workloads", "what it holds"),
           _row(*["---"] * 7)]
    for f, where in fields:
        out.append(_row(f"`{f.name}`", _type(f), f.unit or "", f.role + (", required" if f.required else ""),
                        _default(f), where, md_cell(f.description)))
    return out


def point_rows() -> list[tuple[Field, str]]:
    """Every point field once: the common ones (all workloads), then each workload's own (a name
    several workloads declare alike is one row naming them)."""
    rows: list[tuple[Field, str]] = [(f, "all") for f in COMMON_FIELDS]
    own: dict[str, tuple[Field, list[str]]] = {}
    for name in WORKLOADS:
        for f in workload_fields(name):
            own.setdefault(f.name, (f, []))[1].append(name)
    return rows + [(f, ", ".join(ws)) for f, ws in own.values()]


def readme() -> str:
    """The page's text."""
    lines = [INTRO, "| key | what it holds |", "|---|---|"]
    for key, prop in SCHEMA["properties"].items():
        said = md_cell(prop.get("description", ""))
        lines.append(_row(f"`{key}`", f"{SCHEMA_VERSION} ({said})" if key == "schema_version" else said))
    lines += ["", "### `environment`", ""]
    lines += _fields_table([(f, "") for f in ENVIRONMENT_FIELDS])
    lines += ["", "### `environment.topologies.<network>`", "", "What each network built recorded of itself "
              "(beowulf_netlab/netlab/record.py, beside beowulf_netlab/netlab/testbed.py).", ""]
    lines += _fields_table([(f, "") for f in NETWORK_RECORD])
    lines += ["", "### `points[]`", "", "Role: setting (what the sweep asked for), resolved (what it became on "
              "this host), measured (a result), record (bookkeeping). Points equal in every setting and "
              "resolved key are repeats of one point.", ""]
    lines += _fields_table(point_rows())
    lines += ["", "## The CSV", "", "One row per point; every MB/s column is the real network's figure, its "
              "`measured_` twin what the network carried (on a time-scaled point, the slowed figure); "
              "`suspect` is the fidelity monitor's verdict; the last columns say where the row came from "
              "(the wire's implementation, the host's kernel, this tool's commit and version).", ""]
    for name in WORKLOADS:
        lines.append(f"- {name}: `{', '.join(csv_columns(name))}`")
    lines += ["", SERIES.format(columns="`" + ", ".join(INTERVALS_CSV) + "`").rstrip()]
    return "\n".join(lines) + "\n"


README_FILE = PACKAGE / "results" / "README.md"

if __name__ == "__main__":
    write_atomic_bytes(README_FILE, readme())
    print(f"wrote {README_FILE}")
