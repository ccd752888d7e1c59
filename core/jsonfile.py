"""Reading a JSON file a user gave: one BadInput line for every way it can be wrong.

Files are read through core.safefile (no link followed, regular files only, capped), and
NaN or Infinity are refused: they pass a schema's `minimum` and break every sum after it.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.errors import BadInput
from core.safefile import read_bytes, write_atomic_bytes

MAX_FILE_BYTES = 64 << 20


def read_json(path: Path, what: str, limit: int = MAX_FILE_BYTES) -> Any:
    """A JSON file (at most limit bytes), or BadInput naming what is wrong with it."""
    return parse_json(read_bytes(Path(path), what, limit), f"{what} {path}")


def _non_finite(value: Any, where: str = "") -> str | None:
    """The key path of the first NaN or infinity in value, or None."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return where or "the top level"
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
    if bad is not None:
        raise BadInput(f"{where}: at {bad}: NaN and Infinity are not numbers JSON allows")
    return data


def check_schema(data: Any, schema: dict, what: str) -> None:
    """BadInput naming where `data` breaks `schema` (what: e.g. 'hardware profile FILE')."""
    import jsonschema
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as e:
        if e.context:   # anyOf/oneOf: name the likeliest alternative's own complaint
            e = jsonschema.exceptions.best_match(e.context)
        where = ".".join(str(p) for p in e.absolute_path) or "the top level"
        raise BadInput(f"{what}: at {where}: {e.message[:160]}")


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
