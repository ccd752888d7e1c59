"""Reading a JSON file a user gave: one BadInput line for every way it can be wrong."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.errors import BadInput

MAX_FILE_BYTES = 64 << 20


def read_json(path: Path, what: str) -> Any:
    """A JSON file, or BadInput naming what is wrong with it."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise BadInput(f"{what} {path} is larger than {MAX_FILE_BYTES >> 20} MiB")
        text = path.read_text()
    except OSError as e:
        raise BadInput(f"cannot read {what} {path}: {e.strerror}")
    except UnicodeDecodeError:
        raise BadInput(f"{what} {path} is not UTF-8 text")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{what} {path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})")
    except RecursionError:
        raise BadInput(f"{what} {path} nests too deeply to be a {what}")


def check_schema(data: Any, schema: dict, what: str) -> None:
    """BadInput naming where `data` breaks `schema` (what: e.g. 'hardware profile FILE')."""
    import jsonschema
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as e:
        where = ".".join(str(p) for p in e.absolute_path) or "the top level"
        raise BadInput(f"{what}: at {where}: {e.message[:160]}")


def write_schema(path: Path, schema: dict) -> None:
    """Publish a schema kept in code as the JSON file users' editors read."""
    path.write_text(json.dumps(schema, indent=2) + "\n")
