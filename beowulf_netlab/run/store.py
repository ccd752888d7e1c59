"""Writing results documents: an output path refused before anything runs, and a document
replaced in one step, validated first (never a half-written file, never NaN)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.safefile import probe_folder, write_atomic_bytes
from beowulf_netlab.run.results import validate


def check_writable(path: Path) -> None:
    """Refuse an output path before anything runs (BadInput naming the fix). Missing
    directories are created later; the nearest existing one must take a new file
    (tried for real: permission bits say nothing for root or read-only filesystems),
    reached without an untrusted link on the way (core.safefile.probe_folder)."""
    path = Path(path)
    if path.exists() and path.is_dir():
        raise BadInput(f"output {path} is a directory: give a file name")
    try:
        probe_folder(path.parent)
    except OSError as e:
        raise BadInput(f"cannot write {path}: {path.parent} does not take new files "
                       f"({getattr(e, 'strerror', None) or e}); choose another --out/--png")


def write_atomic(doc: dict, path: Path, new_point: dict | None = None) -> None:
    """Validate, then replace path with doc in one step (never a half-written file).
    With new_point (the one point appended since the last write of this document),
    the earlier points and the networks' records are not validated again: the
    document with only the new point is (validating every point at every write cost
    0.1 s per point at 50 points, and the networks' applied argv 0.3 s per write at
    four networks); the last write, without new_point, validates the whole."""
    if new_point is not None:
        env = doc.get("environment")
        validate({**doc, "points": [new_point],
                  **({"environment": {**env, "topologies": {}}} if isinstance(env, dict) else {})})
    else:
        validate(doc)
    try:
        # the writes after each point are compact (json's C encoder: indenting a document of
        # a few MB took 0.1 s a write); the last is indented for people
        indent = 1 if new_point is None else None
        try:
            text = json.dumps(doc, indent=indent, default=str, allow_nan=False)
        except ValueError:   # a NaN or infinity, which no reader accepts: recorded as not measured
            text = json.dumps(_finite(doc), indent=indent, default=str, allow_nan=False)
        write_atomic_bytes(path, text)
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror}; choose another --out")


def _finite(value: Any) -> Any:
    """value with every NaN and infinity replaced by None."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
