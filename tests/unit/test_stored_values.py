"""No measured number moves: every stored results document, read through the loader, gives
the same values at every point as it did before issue 46 (one declaration per setting).

The snapshot (tests/fixtures/stored-values.json.gz) holds, per document and point, the keys the
loader gave and a digest of every number under them (gates left out: they are recomputed from
the measurements on every read). Keys renamed since are read back under their old names
(`legacy`), keys added since (declared defaults filled by the loader) are ignored, so a digest
that differs means a number moved. Made once, before the change, with
`python3 -m tests.unit.test_stored_values --record` (only ever again for an intended change); a
fixture recorded again adds its documents with `--add-new PREFIX...` (the snapshot's documents
under each PREFIX dropped first), leaving every other document's digests as they were.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path


from beowulf_netlab.core.fields import MEASURED_PREFIX
from beowulf_netlab.run.results import load_data

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SNAPSHOT = FIXTURES / "stored-values.json.gz"


def stored_documents() -> dict[str, bytes]:
    """name -> bytes of every stored results document under tests/fixtures (gzip opened)."""
    out = {}
    for path in sorted(FIXTURES.rglob("*.json*")):
        if path == SNAPSHOT:
            continue
        data = path.read_bytes()
        data = gzip.decompress(data) if path.suffix == ".gz" else data
        try:
            doc = json.loads(data)
        except ValueError:
            continue
        if isinstance(doc, dict) and "points" in doc and "schema_version" in doc:
            out[path.relative_to(FIXTURES).as_posix()] = data
    return out


def leaves(x, path: str = ""):
    """(path, number) of every number under x."""
    if isinstance(x, bool) or x is None:
        return
    if isinstance(x, (int, float)):
        yield path, float(x)
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, f"{path}/{k}")
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from leaves(v, f"{path}/{i}")


def _twins(record: dict) -> set[str]:
    """The MB/s results of a record that have a measured twin (measured_in is no twin)."""
    return {k[len(MEASURED_PREFIX):] for k in record
            if k.startswith(MEASURED_PREFIX) and k[len(MEASURED_PREFIX):] in record}


def _unprefixed(record: dict) -> dict:
    """A record whose MB/s results go under their v5 names: as the network carried them."""
    twins = _twins(record)
    out = {k: v for k, v in record.items() if not (k.startswith(MEASURED_PREFIX) and k[len(MEASURED_PREFIX):] in twins)}
    out.update({k: record[MEASURED_PREFIX + k] for k in twins})
    return out


def legacy(point: dict) -> dict:
    """The point under the names it had when the snapshot was made (schema v5): each MB/s result
    as carried under its name, the real network's (x D) in `scaled` on a time-scaled point; the
    disks as they ran under `disk`."""
    old = _unprefixed(point)
    real = _twins(point)
    if point.get("time_scale", 1) != 1 and real:
        old["scaled"] = {k: point[k] for k in real}
    if isinstance(point.get("first_go"), dict):
        old["first_go"] = _unprefixed(point["first_go"])
    if "disks" in point:    # v5 kept the disks as they ran under disk
        old["disk"] = old.pop("disks")
        old.pop("disk_profile", None)
    return old


def digest(point: dict, keys: list[str]) -> str:
    found = sorted(leaf for k in keys if k in point for leaf in leaves(point[k], k))
    return hashlib.sha256(repr(found).encode()).hexdigest()[:16]


def record() -> dict:
    out = {}
    for name, data in stored_documents().items():
        doc = load_data(data, name)
        rows = []
        for p in doc["points"]:
            old = legacy(p)     # as the test reads it: under the names the snapshot keeps
            keys = sorted(k for k in old if k != "gates")
            rows.append([keys, digest(old, keys)])
        out[name] = rows
    return out


def test_every_stored_number_reads_as_before():
    want = json.loads(gzip.decompress(SNAPSHOT.read_bytes()))
    have = stored_documents()
    assert sorted(have) == sorted(want), "stored documents added or removed: record the snapshot again"
    for name, data in have.items():
        doc = load_data(data, name)
        assert len(doc["points"]) == len(want[name]), name
        for i, (p, (keys, sha)) in enumerate(zip(doc["points"], want[name])):
            old = legacy(p)
            missing = [k for k in keys if k not in old]
            assert not missing, f"{name} point {i}: keys gone: {missing}"
            assert digest(old, keys) == sha, f"{name} point {i}: a stored number moved"


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    with gzip.open(SNAPSHOT, "wt") as f:
        json.dump(record(), f, separators=(",", ":"))
    print(f"wrote {SNAPSHOT}")
elif __name__ == "__main__" and sys.argv[1:2] == ["--add-new"]:
    # a fixture recorded again (a new full run): its documents' numbers are new, everyone else's
    # stay as the snapshot has them; names given after --add-new are dropped first (documents gone)
    want = json.loads(gzip.decompress(SNAPSHOT.read_bytes()))
    gone = [n for n in want if any(n.startswith(prefix) for prefix in sys.argv[2:])]
    for name in gone:
        del want[name]
    new = {n: rows for n, rows in record().items() if n not in want}
    want.update(new)
    with gzip.open(SNAPSHOT, "wt") as f:
        json.dump(want, f, separators=(",", ":"))
    print(f"wrote {SNAPSHOT}: {len(gone)} dropped, {len(new)} added")
