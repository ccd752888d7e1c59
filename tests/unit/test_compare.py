"""emulate.py compare A B on stored fixtures, as a person runs it: the table, --json, one-line refusals."""
import json
import shutil

import pytest

from beowulf_netlab import commands

FIXTURES = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures"
QUICK = FIXTURES / "reproduction"
FULL = FIXTURES / "repeats-run"   # a full run that stays (the judge's own fixture is recorded again)


def _run(argv, capsys) -> tuple[int, str, str]:
    rc = commands.main(["compare", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_two_reproductions_matched_by_experiment(capsys):
    """The quick run's directory (documents at its top) against the full run's (results/, gzip):
    every shared point once, with both medians, the difference and both spreads."""
    rc, out, _ = _run([str(QUICK), str(FULL)], capsys)
    assert rc == 0
    assert "hpdc96-fig3-topologies (x: token size)" in out and "hpdc96-fig4-disknet (x: remote)" in out
    row = next(line for line in out.splitlines() if line.startswith("bonded-dual-net x2 @10Mb") and " 1K " in line)
    # the quick run's 2 repeats 1.56+-0.25 against the full run's 2.25+-0.02: beyond both spreads
    assert row.split()[-7:] == ["1.56", "2.25", "+0.69", "+44.0%", "+-0.25", "+-0.02", "!"]
    assert "not compared:" in out


def test_json_is_the_table_as_data(capsys):
    rc, out, _ = _run(["--json", str(QUICK), str(FULL)], capsys)
    assert rc == 0
    doc = json.loads(out)
    assert set(doc) == {"compare_version", "a", "b", "unit", "rows", "only_in_a", "only_in_b", "beyond_spreads"}
    assert doc["compare_version"] == 1 and doc["unit"] == "MB/s"
    row = next(r for r in doc["rows"] if r["experiment"] == "hpdc96-fig3-topologies"
               and r["curve"] == "bonded-dual-net x2 @10Mb" and r["x"] == "1K")
    assert set(row) == {"experiment", "curve", "x_axis", "x", "a", "b", "difference", "relative", "beyond_spreads"}
    assert set(row["a"]) == {"median", "spread", "runs", "trusted"} and row["a"]["runs"] == 2
    assert row["beyond_spreads"] is True
    assert row["difference"] == pytest.approx(row["b"]["median"] - row["a"]["median"], abs=1e-5)
    assert doc["beyond_spreads"] == sum(1 for r in doc["rows"] if r["beyond_spreads"])


def test_a_document_against_itself_differs_nowhere(capsys):
    one = str(QUICK / "ipps96-fig2-channels-10.json")
    rc, out, _ = _run(["--json", one, one], capsys)
    rows = json.loads(out)["rows"]
    assert rc == 0 and rows and all(r["difference"] == 0 and r["beyond_spreads"] in (False, None) for r in rows)
    assert all(r["beyond_spreads"] is False for r in rows if r["a"]["runs"] > 1)


def test_one_run_on_both_sides_is_never_flagged(capsys):
    rc, out, _ = _run([str(FIXTURES / "v1-token.json"), str(FIXTURES / "v1-token.json")], capsys)
    assert rc == 0 and "1 run" in out and " !" not in out.split("\n! ")[0]


@pytest.mark.parametrize("a,b,says", [
    ("reproduction/hpdc96-fig5-demand.json", "v1-iperf.json", "measured token"),
    ("nowhere.json", "v1-iperf.json", "does not exist"),
    ("v1-token.json", "v2-token.json", "share no point"),
    ("README.md", "v2-token.json", "not valid JSON"),
    ("reproduction", "v1-iperf.json", "share no experiment"),
])
def test_unreadable_or_mismatched_inputs_are_one_line(a, b, says, capsys):
    rc, out, err = _run([str(FIXTURES / a), str(FIXTURES / b)], capsys)
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1 and says in err


def test_a_folder_without_documents_is_one_line(tmp_path, capsys):
    rc, _, err = _run([str(tmp_path), str(QUICK)], capsys)
    assert rc == 2 and "holds no results documents" in err
    shutil.copy(QUICK / "hpdc96-fig5-demand.json", tmp_path / "a.json")
    shutil.copy(QUICK / "hpdc96-fig5-demand.json", tmp_path / "b.json")
    rc, _, err = _run([str(tmp_path), str(QUICK)], capsys)
    assert rc == 2 and "two documents of hpdc96-fig5-demand" in err
