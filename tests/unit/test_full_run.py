"""The judge's fixture: the documents of one full `reproduce` on both views, range ends included
(tests/fixtures/full-run, gzip; the measurements, not the report), made by the current model.

Every reader of the judge is tested against what a real run measured: the claims' verdicts on
both views, what could not fail and what forced it, the ranges' decisions. When the model changes
(a hardware profile, the results schema) the fixture says it is stale, and is recorded again:
    sudo python3 emulate.py reproduce --out DIR && python3 -m tests.unit.test_full_run DIR
"""
from __future__ import annotations

import copy
import functools
import gzip
import json
import shutil
import sys
from pathlib import Path

import pytest

from beowulf_netlab.judge import claims as C
from beowulf_netlab.judge import sensitivity as S
from beowulf_netlab.run.calibration import load_calibrations
from beowulf_netlab.run.results import load_data
from beowulf_netlab.run.upgrade import MEASURED_SINCE
from beowulf_netlab.topologies.hardware import HARDWARE_DIR

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "full-run"


def _raw(path: Path) -> dict:
    with gzip.open(path, "rt") as f:
        return json.load(f)


def _read(path: Path) -> dict:
    """A stored document as every reader gets it: through the loader (upgraded, defaults filled)."""
    return load_data(gzip.decompress(path.read_bytes()), str(path))


@functools.lru_cache(maxsize=1)
def _documents() -> tuple[dict[str, dict], dict[str, dict]]:
    main = {d["name"]: d for d in map(_read, sorted((FIXTURE / "results").glob("*.json.gz")))}
    ends = {d["name"][len("sensitivity-"):]: d for d in map(_read, sorted((FIXTURE / "sensitivity").glob("*.json.gz")))}
    return main, ends


def documents() -> tuple[dict[str, dict], dict[str, dict]]:
    """(the experiments' documents by name, the range ends' by variant id)."""
    main, ends = _documents()
    return copy.deepcopy(main), copy.deepcopy(ends)   # readers may not share one caller's changes


pytestmark = pytest.mark.skipif(not (FIXTURE / "results").is_dir(), reason="no full-run fixture stored")


def _without_sources(x):
    """x without its `source` and `*_source` texts (a hardware profile's citations)."""
    if isinstance(x, dict):
        return {k: _without_sources(v) for k, v in x.items()
                if not (isinstance(v, str) and (k == "source" or k.endswith("_source")))}
    if isinstance(x, list):
        return [_without_sources(v) for v in x]
    return x


def test_the_fixture_is_as_new_as_the_model():
    """A fixture older than the results schema or than any hardware profile it ran on judges a
    model that no longer exists: record it again (module doc)."""
    stored = {p.name: _raw(p) for p in sorted(FIXTURE.glob("*/*.json.gz"))}
    for name, doc in stored.items():
        assert doc["schema_version"] >= MEASURED_SINCE, f"{name}: schema {doc['schema_version']}: record the fixture again"
        for key, net in doc["environment"].get("topologies", {}).items():
            ran = net.get("hardware_profile")
            if ran:
                now = json.loads((HARDWARE_DIR / f"{ran['name']}.json").read_text())
                now.pop("$schema", None)
                ran = {k: v for k, v in ran.items() if k != "$schema"}
                # the files a profile's texts cite moved into beowulf_netlab/ after the fixture was
                # recorded (issue 45): the same files under their new paths, not another model
                now, ran = (json.loads(json.dumps(d).replace("beowulf_netlab/", "")) for d in (now, ran))
                # a constant's `source` text says where it comes from, not what the model runs: a
                # sentence added to one (the card latency's note on the frames' delivery time) is
                # the same model; its numbers and every other text are still compared
                now, ran = (_without_sources(d) for d in (now, ran))
                # nor does the card's receive ring, declared after the fixture and not emulated
                # (card.rx_ring, tests/unit/test_receive_ring.py), or the card's list of what it
                # leaves out, which that declaration rewrote: what runs is unchanged
                for d in (now, ran):
                    for key in ("rx_ring", "not_modelled"):
                        (d.get("card") or {}).pop(key, None)
                assert ran == now, f"{name} {key}: beowulf_netlab/hardware/{ran['name']}.json changed since: record the fixture again"


def test_no_verdict_that_could_not_fail_is_counted_and_every_other_has_a_flip():
    main, _ = documents()
    claims, cals = C.load_claims(), load_calibrations()
    for which in C.views_present(main):
        for r in C.judge_all(claims, main, which, cals):
            can = r.get("can_fail") or {}
            if can.get("forced"):
                assert r["verdict"] != C.REPRODUCED and can.get("kind"), r
            elif can.get("analysed"):
                assert can.get("flip"), r


def test_the_ranges_decide_or_name_what_decides():
    """Every claim on the paper view that a ranged constant reaches gets a state; an undetermined
    one names its constant and both ends' verdicts."""
    main, ends = documents()
    variants = [v for v in S.range_variants_of(list(main)) if v["id"] in ends]
    assert variants, "the fixture holds no range end"
    states = S.decided(C.load_claims(), main, ends, variants, quick=False)
    assert states
    for cid, st in states.items():
        assert st["state"] in (S.DECIDED, S.UNDETERMINED, S.OPEN, S.NOT_RUN), (cid, st)
        if st["state"] == S.UNDETERMINED:
            assert st["constant"] and st["text"].count("->") >= 2, (cid, st)


def record(out: Path) -> None:
    """Store a reproduce directory's documents as the fixture (gzip, compact)."""
    if FIXTURE.exists():
        shutil.rmtree(FIXTURE)
    for sub in ("results", "sensitivity"):
        (FIXTURE / sub).mkdir(parents=True)
        for path in sorted((out / sub).glob("*.json")):
            doc = json.loads(path.read_text())
            if not sub == "sensitivity" or doc["name"].startswith("sensitivity-range-"):
                with gzip.open(FIXTURE / sub / f"{path.name}.gz", "wt", compresslevel=9) as f:
                    json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    record(Path(sys.argv[1]))
    print(f"wrote {FIXTURE}")
