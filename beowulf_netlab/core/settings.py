"""A setting, declared once: the command line, experiment files and the point's record all come from it.

A setting used to be two declarations matched by name: an `Axis` (what the command line and
experiment files take) and a `Field` (what a measured point records), and they drifted apart
(three descriptions of `pairs`; defaults restated by every reader). As ns-3's AddAttribute
states an attribute's name, help, type, bounds and default once, a `Setting` states them
once, with the setting's group and how a point records it; `axis` and `field` are made from
it, so the flags, the experiment schema, the results schema, the CSV columns, the man page
and the groups (`in_group`) cannot disagree.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from beowulf_netlab.core.fields import NO_DEFAULT, SETTING, Field
from beowulf_netlab.core.values import Axis

# a setting's group: which part of a run it sets (and which verbs' flags it is among)
TOPOLOGY = "topology"       # the network's shape: topology, and its own sizes (a topology file sets their defaults)
SIZE = "size"               # nodes, rate, channels: each topology file gives its own defaults
MACHINE = "machine"         # the papers' machines beyond their wires: profile, contention, time scale, card, queues
IMPAIRMENT = "impairment"   # netem's delay, jitter, loss and a relay's hold
SWEEP = "sweep"             # how the sweep runs its points: placement, repeats
WORKLOAD = "workload"       # a workload's own
GROUPS = (TOPOLOGY, SIZE, MACHINE, IMPAIRMENT, SWEEP, WORKLOAD)

AS_DEFAULT = type("AsDefault", (), {"__repr__": lambda self: "AS_DEFAULT"})()   # absent: the axis's one default

_JSON_TYPE = {"int": "integer", "size": "integer", "counts": "integer", "float": "number",
              "time_ms": "number", "pct": "number", "choice": "string", "text": "string"}


@dataclass(frozen=True)
class Setting:
    """One setting (module doc). The first fields are the Axis's; the rest say how a point records it."""
    name: str
    kind: str                       # int | float | size | time_ms | pct | choice | counts | text (core.values)
    default: Any
    help: str
    group: str = WORKLOAD
    many: bool = True
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    unit: str = ""
    aliases: tuple[str, ...] = ()
    validator: Callable[[str], Any] | None = None
    optional: bool = False
    # -- the point's record --
    recorded: bool = True           # a point carries it (impairments, repeats: the document's parameters only)
    record_type: str | tuple[str, ...] | None = None   # JSON type(s) in a point; None: from kind
    record_note: str = ""           # what the record adds to the help (what older documents meant)
    # what a point without the key ran with (an older document; a setting left unset): the loader
    # fills it in. AS_DEFAULT: the axis's one default; NO_DEFAULT: nothing (readers must find the key)
    absent: Any = NO_DEFAULT
    role: str = SETTING
    required: bool = False
    csv: str | bool = False
    short: str | None = None
    schema: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    omit_unset: bool = False        # in a document's parameters only when set (falsy: unset)

    def __post_init__(self) -> None:
        if self.group not in GROUPS:
            raise ValueError(f"setting {self.name}: group {self.group!r} is not one of {GROUPS}")

    @property
    def axis(self) -> Axis:
        """What the command line and experiment files take (core.values)."""
        return Axis(self.name, self.kind, self.default, self.help, many=self.many, minimum=self.minimum,
                    maximum=self.maximum, choices=tuple(self.choices), unit=self.unit, aliases=self.aliases,
                    validator=self.validator, optional=self.optional)

    @property
    def record_default(self) -> Any:
        """What a point that lacks the key ran with (`absent`; AS_DEFAULT: the axis's one default)."""
        if self.absent is not AS_DEFAULT:
            return self.absent
        d = self.default
        if isinstance(d, list):
            if len(d) != 1:
                raise ValueError(f"setting {self.name}: absent=AS_DEFAULT needs one default, not {d}")
            return d[0]
        return d

    @property
    def field(self) -> Field:
        """What a point records (core.fields); a setting a point does not carry has none."""
        if not self.recorded:
            raise ValueError(f"setting {self.name} is not recorded in a point")
        kind = self.record_type or _JSON_TYPE[self.kind]
        unit = "B" if self.kind == "size" else (self.unit or None)
        note = f"; {self.record_note}" if self.record_note else ""
        return Field(self.name, kind, self.help + note, self.role, unit=unit, required=self.required,
                     csv=self.csv, short=self.short, schema=dict(self.schema), default=self.record_default)


def axes(settings: Iterable[Setting]) -> tuple[Axis, ...]:
    return tuple(s.axis for s in settings)


def fields(settings: Iterable[Setting]) -> tuple[Field, ...]:
    """The point's fields of the settings a point records."""
    return tuple(s.field for s in settings if s.recorded)


def in_group(settings: Iterable[Setting], *groups: str) -> tuple[str, ...]:
    """The names of the settings in `groups`, in declaration order: every hand list of a group, made."""
    return tuple(s.name for s in settings if s.group in groups)
