"""Older results documents read as the current version: each schema version's change, once.

A document of a newer version than this tool's is refused with what to do; every older
one is brought up step by step (v1 -> v2 -> ... -> SCHEMA_VERSION) before it is
validated, so readers only ever see the current format (run.results.load_data).
"""
from __future__ import annotations

from typing import Any

from core.errors import BadInput

SCHEMA_VERSION = 5
V1_RENAMES = {"topologies": "topology", "rates": "rate_mbit", "placements": "placement",
              "token_sizes": "token_size", "file_sizes": "file_size"}



def upgrade(doc: Any, where: str) -> dict:
    """A document of any known version, as the current version."""
    if not isinstance(doc, dict):
        raise BadInput(f"{where} is not a results document (a JSON object was expected)")
    version = doc.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise BadInput(f"{where} has schema version {version}, newer than this tool's "
                       f"{SCHEMA_VERSION}: update this checkout (git pull) to read it")
    if version == 1:
        doc = dict(doc)
        params = doc.get("parameters") if isinstance(doc.get("parameters"), dict) else {}
        doc["parameters"] = {V1_RENAMES.get(k, k): v for k, v in params.items()}
        doc.setdefault("complete", False)
        version = 2
    if version == 2:   # v3: every point names its hardware profile and contention model
        doc = dict(doc)
        if isinstance(doc.get("parameters"), dict):
            doc["parameters"] = {"hardware": ["none"], "contention": ["off"], **doc["parameters"]}
        if isinstance(doc.get("points"), list):
            doc["points"] = [{"hardware": "none", "contention": "off", **p} if isinstance(p, dict) else p
                             for p in doc["points"]]
        version = 3
    if version == 3:   # v4: every point records its TCP (null: the host's, unrecorded)
        doc = dict(doc)
        if isinstance(doc.get("points"), list):
            doc["points"] = [{"tcp": None, **p} if isinstance(p, dict) else p for p in doc["points"]]
        version = 4
    if version == 4:   # v5: every point records its profile's collisions default (off until v5)
        doc = dict(doc)
        if isinstance(doc.get("points"), list):
            doc["points"] = [{"contention_default": "off", **p} if isinstance(p, dict) else p
                             for p in doc["points"]]
        doc["schema_version"] = SCHEMA_VERSION
    return doc
