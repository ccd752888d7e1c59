"""Every value a user gives, parsed and bounded in one place.

An Axis is one setting with ONE name used everywhere: the flag
(`--token-size`), the experiment-file key (`token_size`) and the key in
results documents (`token_size`). It carries its default, its bounds and its
help text, so `--help`, the experiment schema and the checks cannot disagree.
A `many` axis takes a comma list on the command line and a list (or one
value) in a file; the sweep runs every combination.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable

from beowulf_netlab.core.errors import BadInput

MAX_LIST = 64            # values in one axis
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMG]?)(?:i?B)?\s*$", re.I)
_TIME = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(us|ms|s)?\s*$")
_PCT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*%?\s*$")
_MULT = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def human_size(n: int) -> str:
    """Sizes as the papers write them: 8K, 2M (binary multiples), else bytes."""
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}M"
    return f"{n // 1024}K" if n >= 1024 and n % 1024 == 0 else str(n)


def parse_size(text: str, what: str) -> int:
    """'64', '8K', '2M', '1.5K' -> bytes (K = 1024). No exponents, no infinities."""
    m = _SIZE.match(str(text))
    if not m:
        raise BadInput(f"{what} takes bytes with an optional K/M/G suffix (e.g. 8K, 2M), got {text!r}")
    value = float(m.group(1)) * _MULT[m.group(2).upper()]
    if value != int(value):
        raise BadInput(f"{what} must be a whole number of bytes, got {text!r}")
    return int(value)


def parse_time_ms(text: str, what: str) -> float:
    """'5ms', '5' (ms), '250us', '0.1s' -> milliseconds."""
    m = _TIME.match(str(text))
    if not m:
        raise BadInput(f"{what} takes a time such as 5ms, 250us or 0.1s, got {text!r}")
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3, None: 1.0}[m.group(2)]


def parse_pct(text: str, what: str) -> float:
    """'1%' or '1' -> 1.0 (percent)."""
    m = _PCT.match(str(text))
    if not m:
        raise BadInput(f"{what} takes a percentage such as 1% or 0.5, got {text!r}")
    return float(m.group(1))


def parse_int(text: str, what: str) -> int:
    t = str(text).strip()
    if not re.fullmatch(r"[+-]?[0-9]{1,12}", t):
        raise BadInput(f"{what} takes a whole number, got {text!r}")
    return int(t)


def parse_float(text: str, what: str) -> float:
    t = str(text).strip()
    if not re.fullmatch(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", t):
        raise BadInput(f"{what} takes a number, got {text!r}")
    return float(t)


def parse_counts(text: str, what: str, maximum: int) -> list[int]:
    """'0-7', '0,2,7' or a mix ('0-3,7'); each bound checked before expanding."""
    out: list[int] = []
    for part in split_list(text, what):
        lo, sep, hi = part.partition("-")
        a = parse_int(lo, what)
        b = parse_int(hi, what) if sep else a
        if not 0 <= a <= b:
            raise BadInput(f"{what} ranges run low-high from 0 (e.g. 0-7), got {part!r}")
        if b > maximum:
            raise BadInput(f"{what} values must be at most {maximum}, got {part!r}")
        out += [v for v in range(a, b + 1) if v not in out]
    return out


def split_list(text: str, what: str) -> list[str]:
    parts = [p.strip() for p in str(text).split(",")]
    if any(p == "" for p in parts):
        raise BadInput(f"{what} takes one value or a comma list without blanks, got {text!r}")
    if len(parts) > MAX_LIST:
        raise BadInput(f"{what} takes at most {MAX_LIST} values, got {len(parts)}")
    return parts


@dataclass(frozen=True)
class Axis:
    """One setting (see module doc). kind: int | float | size | time_ms | pct | choice | counts | text."""
    name: str
    kind: str
    default: Any
    help: str
    many: bool = True
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    unit: str = ""
    aliases: tuple[str, ...] = ()
    validator: Callable[[str], Any] | None = None   # text kind: raises BadInput
    optional: bool = False                          # None allowed (unset)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def bounds_text(self) -> str:
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.minimum is None and self.maximum is None:
            return ""
        show = human_size if self.kind == "size" else \
            (lambda v: str(int(v)) if float(v).is_integer() else f"{v:g}")
        return f"{show(self.minimum)}..{show(self.maximum)}{' ' + self.unit if self.unit else ''}"

    def help_text(self) -> str:
        default = self.default
        if isinstance(default, list):
            shown = ",".join(human_size(v) if self.kind == "size" else f"{v:g}" if isinstance(v, float)
                             else str(v) for v in default)
        elif default is None:
            shown = "unset"
        else:
            shown = human_size(default) if self.kind == "size" else f"{default:g}" \
                if isinstance(default, float) else str(default)
        bounds = self.bounds_text()
        listing = "; comma list" if self.many else ""
        return f"{self.help} [{bounds + '; ' if bounds else ''}default {shown}{listing}]"

    # -- values --
    def _bound(self, value, what: str, shown: str):
        if self.minimum is not None and value < self.minimum or \
                self.maximum is not None and value > self.maximum:
            raise BadInput(f"{what} must be in {self.bounds_text()}, got {shown}")
        return value

    def parse_one(self, text: str, what: str | None = None) -> Any:
        """One value as typed on the command line."""
        what = what or self.flag
        kind = self.kind
        if kind == "int":
            value = parse_int(text, what)
        elif kind == "float":
            value = parse_float(text, what)
        elif kind == "size":
            value = parse_size(text, what)
        elif kind == "time_ms":
            value = parse_time_ms(text, what)
        elif kind == "pct":
            value = parse_pct(text, what)
        elif kind == "choice":
            if text not in self.choices:
                raise BadInput(f"{what} takes {', '.join(self.choices)}, got {text!r}")
            return text
        elif kind == "text":
            if self.validator:
                self.validator(text)
            return text
        else:
            raise AssertionError(kind)
        return self._bound(value, what, str(text).strip())

    def parse_text(self, text: str) -> Any:
        """The command-line form: one value, or a comma list for a many axis."""
        if self.kind == "counts":
            return parse_counts(text, self.flag, int(self.maximum or 0))
        if not self.many:
            if "," in str(text) and not (self.kind == "text" and self.validator):   # a list in one value: its validator reads it
                raise BadInput(f"{self.flag} takes one value, got {text!r}")
            return self.parse_one(text)
        return [self.parse_one(p) for p in split_list(text, self.flag)]

    def from_json(self, value: Any, where: str) -> Any:
        """The experiment-file form (already schema-checked): same bounds as the flag."""
        what = where if where == self.flag else f"{where} ({self.flag})"
        if value is None and self.optional:
            return None
        if self.many:
            values = value if isinstance(value, list) else [value]
            if not values or len(values) > MAX_LIST:
                raise BadInput(f"{what} takes 1 to {MAX_LIST} values, got {len(values)}")
            out = [self._json_one(v, what) for v in values]
            twice = next((v for i, v in enumerate(out) if v in out[:i]), None)
            if twice is not None:
                raise BadInput(f"{what} lists {twice!r} twice")
            return out
        return self._json_one(value, what)

    def _json_one(self, value: Any, what: str) -> Any:
        kind = self.kind
        if kind in ("choice", "text"):
            if not isinstance(value, str):
                raise BadInput(f"{what} takes a string, got {value!r}")
            return self.parse_one(value, what)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadInput(f"{what} takes a number, got {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise BadInput(f"{what} must be finite, got {value!r}")
        if kind in ("int", "size", "counts"):
            if value != int(value):
                raise BadInput(f"{what} takes a whole number, got {value!r}")
            value = int(value)
        else:
            value = float(value)
        return self._bound(value, what, repr(value))

    def json_schema(self) -> dict:
        """This axis in beowulf_netlab/experiments/schema.json."""
        if self.kind in ("choice",):
            one: dict = {"type": "string", "enum": list(self.choices)}
        elif self.kind == "text":
            one = {"type": "string", "minLength": 1}
        elif self.kind in ("int", "size", "counts"):
            one = {"type": "integer"}
        else:
            one = {"type": "number"}
        if self.minimum is not None and "type" in one and one["type"] != "string":
            one["minimum"] = self.minimum
        if self.maximum is not None and "type" in one and one["type"] != "string":
            one["maximum"] = self.maximum
        if self.many:
            schema: dict = {"oneOf": [one, {"type": "array", "items": one, "minItems": 1,
                                            "maxItems": MAX_LIST}]}
        else:
            schema = dict(one)
        if self.optional:
            schema = {"oneOf": [schema, {"type": "null"}]} if self.many else \
                {**schema, "type": [schema["type"], "null"]}
        schema["description"] = f"{self.help_text()} (flag {self.flag})"
        return schema
