"""Reading a JSON file a user gave: one BadInput line for every way it can be wrong.

Files are read through core.safefile (no link followed, regular files only, capped), and
NaN or Infinity are refused: they pass a schema's `minimum` and break every sum after it; so
is an integer beyond 64 bits (or too long for Python to read: 4,300 digits), which no field
holds and float() would fail on. Schemas are checked by `validator`, whose `pattern` matches
as JSON Schema's ECMA-262 regexes do: `$` is the end of the text, not also the place before
a final newline (a name "b0\n" passed and reached Mininet's shell commands).
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.safefile import read_bytes, write_atomic_bytes
from beowulf_netlab.core.text import plain

MAX_FILE_BYTES = 64 << 20
MAX_INT_BITS = 63                   # the largest integer a file may hold: 2**63 - 1


def read_json(path: Path, what: str, limit: int = MAX_FILE_BYTES) -> Any:
    """A JSON file (at most limit bytes), or BadInput naming what is wrong with it."""
    return parse_json(read_bytes(Path(path), what, limit), f"{what} {path}")


def _non_finite(value: Any, where: str = "") -> str | None:
    """Where the first NaN, infinity or integer beyond MAX_INT_BITS in value is (its key path,
    with why after a ': '), or None."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return f"{where or 'the top level'}: NaN and Infinity are not numbers JSON allows"
    if isinstance(value, int) and abs(value).bit_length() > MAX_INT_BITS:
        return f"{where or 'the top level'}: an integer beyond 64 bits (at most 2**{MAX_INT_BITS} - 1)"
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        if (found := _non_finite(v, f"{where}.{k}" if where else str(k))) is not None:
            return found
    return None


def parse_json(data: bytes, where: str) -> Any:
    """JSON text (UTF-8 bytes), or BadInput naming `where` (e.g. 'results document FILE')."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise BadInput(f"{where} is not UTF-8 text")
    try:
        data = json.loads(text)
        bad = _non_finite(data)
    except json.JSONDecodeError as e:
        raise BadInput(f"{where} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})")
    except RecursionError:
        raise BadInput(f"{where} nests too deeply to be read")
    except ValueError:   # Python's limit on an integer's digits (int_max_str_digits)
        raise BadInput(f"{where} holds an integer too long to read (a number of thousands of digits)")
    if bad is not None:
        raise BadInput(f"{where}: at {plain(bad)}")
    return data


def whole(pattern: str) -> str:
    """pattern with each `$` outside a character class as `\\Z`: the end of the text, as `$`
    is in JSON Schema's regexes (ECMA-262), not also before a final newline as in Python's."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            out.append(c)
            i += 1
            for lead in ("^", "]"):          # [^]...] and []...]: the ] is a character
                if pattern[i:i + 1] == lead:
                    out.append(lead)
                    i += 1
            continue
        elif c == "$":
            c = "\\Z"
        out.append(c)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=None)
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(whole(pattern))


def _pattern(validator, pattern: str, instance: Any, schema: dict):
    """jsonschema's `pattern` keyword, with `$` as the end of the text (see whole)."""
    import jsonschema
    if validator.is_type(instance, "string") and not _compiled(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def validator(schema: dict, type_checker=None):
    """The jsonschema validator of schema that every file and document is checked with: its
    `pattern` matches whole (see whole); type_checker replaces the draft's where given."""
    import jsonschema
    base = jsonschema.validators.validator_for(schema)
    extra = {"type_checker": type_checker} if type_checker is not None else {}
    return jsonschema.validators.extend(base, {"pattern": _pattern}, **extra)(schema)


def schema_error(data: Any, schema: dict):
    """The error jsonschema.validate would raise for data (through validator), or None."""
    import jsonschema
    return jsonschema.exceptions.best_match(validator(schema).iter_errors(data))


def check_schema(data: Any, schema: dict, what: str) -> None:
    """BadInput naming where `data` breaks `schema` (what: e.g. 'hardware profile FILE')."""
    import jsonschema
    e = schema_error(data, schema)
    if e is None:
        return
    if e.context:   # anyOf/oneOf: name the likeliest alternative's own complaint
        e = jsonschema.exceptions.best_match(e.context)
    where = ".".join(str(p) for p in e.absolute_path) or "the top level"
    raise BadInput(f"{what}: at {plain(where)}: {plain(e.message[:160])}")


def write_schema(path: Path, schema: dict) -> None:
    """Publish a schema kept in code as the JSON file users' editors read."""
    write_atomic_bytes(path, json.dumps(schema, indent=2) + "\n")


TEXT = {"type": "string", "minLength": 1}   # a text field of a data file: never empty


def list_file_schema(title: str, description: str, key: str, required: list[str], properties: dict) -> dict:
    """The schema of a data file that is one list of records under `key` (calibrations, era
    checks, sensitivity variants): each record an object of exactly these properties."""
    return {"$schema": "http://json-schema.org/draft-07/schema#", "title": title, "description": description,
            "type": "object", "additionalProperties": False, "required": [key],
            "properties": {"$schema": {"type": "string"}, key: {"type": "array", "items": {
                "type": "object", "additionalProperties": False, "required": required,
                "properties": properties}}}}
