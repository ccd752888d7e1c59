"""A point's field, declared once by what produces it.

What a measured point IS and what it MEASURED used to be listed by hand in several
places (the results schema, the CSV columns, the keys that tell repeats apart, the
keys that name a network); a key missing from one list silently changed another's
behaviour. Each producer now declares its fields as `Field`s (topologies.point: the
network; run.point: the run; each workload: its own), and every list is made
from those declarations.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

# a field's role: what two points equal in it say about each other
SETTING = "setting"     # identity: what the sweep asked for (an axis, the workload)
RESOLVED = "resolved"   # identity: what a setting became on this host (an implementation, a default)
MEASURED = "measured"   # a result: differs between repeats of one point
RECORD = "record"       # bookkeeping: which repeat, index, host, source; differs between repeats too
ROLES = (SETTING, RESOLVED, MEASURED, RECORD)

NO_DEFAULT = type("NoDefault", (), {"__repr__": lambda self: "NO_DEFAULT"})()   # a field every reader must find

# where a field sits in a results CSV: not a column, before the workload's columns, after them,
# last (provenance: where the row came from)
CSV_BEFORE = "before"
CSV_AFTER = "after"
CSV_LAST = "last"


@dataclass(frozen=True)
class Field:
    """One key a point may carry: its JSON type(s), what it means, and how readers treat it."""
    name: str
    type: str | tuple[str, ...]         # JSON type(s): "number", ("integer", "null"), ...
    description: str
    role: str = MEASURED
    unit: str | None = None             # "MB/s", "Mbit/s", "s", "B" (bytes: shown as sizes)
    required: bool = False              # every point of its workload carries it
    rate: bool = False                  # a MB/s result: the real network's; its measured twin as carried
    csv: str | bool = False             # a CSV column; common fields say CSV_BEFORE, CSV_AFTER or CSV_LAST
    short: str | None = None            # its prefix in a curve's name (P=); None: "name="
    # what a point without the key means (an older document, a setting left at its default): the
    # loader fills it (fill_defaults), so no reader restates it; NO_DEFAULT: none
    default: Any = field(default=NO_DEFAULT, hash=False, compare=False)
    schema: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)  # JSON-schema extras

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"field {self.name}: role {self.role!r} is not one of {ROLES}")

    @property
    def identity(self) -> bool:
        """Part of what a point is: points equal in every identity field are repeats of one."""
        return self.role in (SETTING, RESOLVED)


MEASURED_PREFIX = "measured_"   # a MB/s result as the network carried it in its own time


def measured_twin(f: Field) -> Field:
    """A MB/s result (`rate`) under its own name as the network carried it: on a time-scaled point
    the slowed figure, while `f.name` is always the real network's (x D). One name, one quantity."""
    return Field(MEASURED_PREFIX + f.name, f.type, f"{f.description}: as the network carried it in its "
                 f"own time (on a time-scaled point the slowed figure; {f.name} is the real network's, "
                 "x D; equal in real time)", MEASURED, unit=f.unit, schema=f.schema)


def with_twins(fields: Iterable[Field]) -> tuple[Field, ...]:
    """The fields and, after them, the measured twin of each MB/s result."""
    fields = tuple(fields)
    return (*fields, *(measured_twin(f) for f in fields if f.rate))


def schema_property(f: Field) -> dict:
    """The field as a JSON-schema property."""
    kind = list(f.type) if isinstance(f.type, tuple) else f.type
    return {"type": kind, "description": f.description, **f.schema}


def properties(fields: Iterable[Field]) -> dict[str, dict]:
    return {f.name: schema_property(f) for f in fields}


def names(fields: Iterable[Field], **where: Any) -> tuple[str, ...]:
    """The names of the fields whose attributes equal `where` (e.g. required=True)."""
    return tuple(f.name for f in fields if all(getattr(f, k) == v for k, v in where.items()))


def by_name(*groups: Iterable[Field]) -> dict[str, Field]:
    """name -> Field over groups that together make one point; ValueError on a name
    declared twice (a point's key has one meaning)."""
    out: dict[str, Field] = {}
    for group in groups:
        for f in group:
            if f.name in out:
                raise ValueError(f"point field {f.name} is declared twice")
            out[f.name] = f
    return out


def defaults(fields: Iterable[Field]) -> dict[str, Any]:
    """name -> declared default of every field that has one."""
    return {f.name: f.default for f in fields if f.default is not NO_DEFAULT}


def fill_defaults(point: dict, fields: Iterable[Field]) -> dict:
    """The point with every declared default it lacks filled in (a reader then never restates one)."""
    return {**point, **{k: v for k, v in defaults(fields).items() if k not in point}}


def prop(kind: str | list[str], description: str, **extra: Any) -> dict:
    """A nested JSON-schema property (inside a field's `schema`)."""
    return {"type": kind, "description": description, **extra}
