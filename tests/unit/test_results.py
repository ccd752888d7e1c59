"""The results document: schema, CSV and plot, from a document made here."""
import csv

import pytest

from netlab.report import plot, table
from netlab.results import new_document, validate, write_atomic, write_csv


def make_doc():
    doc = new_document("token", {"token_sizes": [1024, 8192]})
    for topo, tput in (("single-net", 1.1), ("bonded-dual-net", 2.0)):
        for size in (1024, 8192):
            doc["points"].append({"topology": topo, "rate_mbit": 10.0, "workload": "token",
                                  "placement": "any", "pairs": 4, "token_size": size,
                                  "tokens_in_flight": 1, "repeat": 0, "throughput_mbyte_s": tput,
                                  "fidelity": {"suspect": None}})
    return doc


def test_document_validates_and_round_trips(tmp_path):
    pytest.importorskip("jsonschema")
    import json
    doc = make_doc()
    validate(doc)
    path = tmp_path / "r.json"
    write_atomic(doc, path)
    validate(json.loads(path.read_text()))


def test_schema_rejects_a_point_without_throughput():
    jsonschema = pytest.importorskip("jsonschema")
    doc = make_doc()
    del doc["points"][0]["throughput_mbyte_s"]
    with pytest.raises(jsonschema.ValidationError):
        validate(doc)


def test_csv_and_plot_and_table(tmp_path):
    pytest.importorskip("matplotlib")
    doc = make_doc()
    write_csv(doc, tmp_path / "r.csv")
    rows = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert len(rows) == 4 and rows[0]["throughput_mbyte_s"] == "1.1"
    plot(doc, str(tmp_path / "r.png"))
    assert (tmp_path / "r.png").stat().st_size > 5000
    text = table(doc)
    assert "single-net" in text and "8K" in text and "2.00" in text
