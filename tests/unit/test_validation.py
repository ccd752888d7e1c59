"""The era validation table: data that names measurable points, read against declared bands."""
import json

import pytest

pytest.importorskip("jsonschema")

from beowulf_netlab.judge import validation  # noqa: E402
from beowulf_netlab.run.experiment import experiment_files, load  # noqa: E402
from beowulf_netlab.topologies.hardware import profile_names  # noqa: E402


def test_schema_file_is_the_schema_in_code():
    assert json.loads(validation.SCHEMA_FILE.read_text()) == validation.SCHEMA, \
        "beowulf_netlab/claims/era-checks.schema.json is stale: run python3 -m beowulf_netlab.judge.validation"


def test_every_check_names_a_point_its_experiment_runs():
    """A check whose `where` matches no point of its experiment would read 'not measured' forever."""
    for check in validation.load_checks():
        assert check["profile"] in profile_names()
        lo, hi = check["band"]
        assert lo < hi and check["why_band"] and check["source"]
        m = check["measure"]
        if m is None:
            assert check.get("not_measured"), check["id"]
            continue
        for quick in (False, True):
            sweep = load(experiment_files()[m["experiment"]], quick=quick)[0]
            assert check["profile"] in sweep["hardware"], check["id"]
            points = [{**spec.params, "topology": spec.topology, **pt, **sweep.settings()}
                      for spec, pts in sweep.schedule() for pt in pts]
            assert any(all(p.get(k) == v for k, v in m["where"].items()) for p in points), (check["id"], quick)


def _docs(values, key="throughput_mbyte_s", **where):
    pts = [{"hardware": "prototype-1995", "topology": "single-net", "rate_mbit": 10, "pairs": 1,
            **where, key: v} for v in values]
    return {"era-validation-stream": {"points": pts}}


def test_a_reading_is_in_below_or_above_its_band_and_never_a_verdict():
    check = next(c for c in validation.load_checks() if c["id"] == "lmbench-bw-tcp-10baset")
    assert validation.read(check, _docs([0.9, 0.92]))["reads"] == validation.IN_BAND
    assert validation.read(check, _docs([1.15, 1.14]))["reads"] == validation.ABOVE
    assert validation.read(check, _docs([0.5, 0.52]))["reads"] == validation.BELOW
    assert validation.read(check, {})["reads"] == validation.NOT_MEASURED
    # another profile's points are not this check's
    other = {"era-validation-stream": {"points": [{**p, "hardware": "none"} for p in
                                                  _docs([0.9])["era-validation-stream"]["points"]]}}
    assert validation.read(check, other)["reads"] == validation.NOT_MEASURED
    r = validation.read(check, _docs([1.0, 1.1, 1.05]))
    assert r["measured"] == 1.05 and r["spread"] == pytest.approx(0.0476, abs=1e-3)
    assert not {"verdict", "reproduced"} & set(r), "an era check is read, never judged"


def test_a_latency_reads_in_its_unit():
    check = next(c for c in validation.load_checks() if c["id"] == "lmbench-lat-tcp-10baset")
    docs = {"era-validation-latency": {"points": [
        {"hardware": "prototype-1995", "topology": "single-net", "rate_mbit": 10, "pairs": 1, "token_size": 1,
         "tokens_in_flight": 1, "transport": "tcp", "rtt_ms_median": v} for v in (0.5, 0.52)]}}
    r = validation.read(check, docs)
    assert r["measured"] == pytest.approx(510) and r["reads"] == validation.BELOW
    assert "us" in validation.table([r])[1]
