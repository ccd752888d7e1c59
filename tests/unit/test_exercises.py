"""Exercises as data: every check file loads, formulas are arithmetic only, answers
files are checked, solutions pass and wrong answers fail (measured values injected)."""
import csv
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("jsonschema")

from core.errors import BadInput  # noqa: E402
from pipeline import exercise  # noqa: E402

NAMES = list(exercise.exercise_dirs())


def test_schema_file_is_current():
    assert json.loads(exercise.SCHEMA_FILE.read_text()) == exercise.SCHEMA, \
        "exercises/schema.json is stale: run python3 -m pipeline.exercise"


def test_at_least_six_exercises_with_sheets_and_solutions():
    assert len(NAMES) >= 6
    for name in NAMES:
        folder = exercise.EXERCISES_DIR / name
        sheet = (folder / "README.md").read_text()
        assert "## Tasks" in sheet and "## Questions" in sheet
        ex = exercise.load(name)
        for q in ex["questions"]:
            assert f"**{q['id']}**" in sheet, (name, q["id"])   # the sheet asks every question
            assert "hint" in q, (name, q["id"])
        assert (folder / "solutions" / "answers.json").is_file()
        assert exercise.sweeps(ex) or not ex.get("measure")


def fake_measured(ex: dict) -> dict[str, float]:
    """Quantities as the stored solution assumed them (solutions/measured.json)."""
    return json.loads((exercise.EXERCISES_DIR / ex["name"] / "solutions" / "measured.json").read_text())


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_and_a_plausible_wrong_answer_fails(name):
    ex = exercise.load(name)
    path = exercise.EXERCISES_DIR / name / "solutions" / "answers.json"
    answers = exercise.read_answers(path, ex)
    measured = fake_measured(ex)
    assert all(v["verdict"] == exercise.PASS for v in exercise.judge(ex, answers, measured))
    wrong = exercise.read_answers(exercise.EXERCISES_DIR / name / "solutions" / "wrong.json", ex)
    verdicts = exercise.judge(ex, wrong, measured)
    failed = [v for v in verdicts if v["verdict"] != exercise.PASS]
    assert failed and all("hint" in v for v in failed)


def test_formulas_are_arithmetic_only():
    assert exercise.evaluate("10 * 1448 / 1538") == pytest.approx(9.4148, abs=1e-3)
    assert exercise.evaluate("a / b", {"a": 6, "b": 3}) == 2
    for bad in ("__import__('os')", "open('x')", "a.b", "[1]", "1 if 2 else 3", "1/0", "2 +", "10.0 ** 400"):
        with pytest.raises(BadInput):
            exercise.evaluate(bad, {"a": 1})


@pytest.mark.parametrize("content,word", [
    ("{", "not valid JSON"),
    ("[]", "an 'answers' object"),
    ('{"answers": 3}', "an 'answers' object"),
    ('{"exercise": "channel-bonding", "answers": {}}', "is for exercise"),
    ('{"answers": {"q1": 9.41}}', "no answer to"),
    ('{"answers": {"q1": 9.41, "q2": 9, "q3": 9, "q4": 1, "q5": 18, "q6": 0.03}}', "q4 takes one of"),
    ('{"answers": {"q1": "nine", "q2": 9, "q3": 9, "q4": "x", "q5": 18, "q6": 0.03}}', "q1 takes a number"),
    ('{"answers": {"q1": true, "q2": 9, "q3": 9, "q4": "x", "q5": 18, "q6": 0.03}}', "q1 takes a number"),
    ('{"answers": {"q1": 9, "q2": 9, "q3": 9, "q4": "x", "q5": 18, "q6": 0.03, "q9": 1}}', "no question q9"),
    ('{"answers": {"q1": 9, "q2": 9, "q3": 9, "q4": "one of: the hub drops frames", "q5": 18, "q6": 0.03}}',
     "q4 takes one of"),
    ('{"answers": {"q1": 1' + '0' * 400 + ', "q2": 9, "q3": 9, "q4": "the hub drops frames", "q5": 18, "q6": 0.03}}',
     "q1 takes a number"),
])
def test_bad_answers_files_are_one_bad_input(tmp_path, content, word):
    path = tmp_path / "a.json"
    path.write_text(content)
    with pytest.raises(BadInput, match=re.escape(word)):
        exercise.read_answers(path, exercise.load("shared-hub"))


def test_grade_writes_one_row_per_submission(tmp_path):
    ex = exercise.load("shared-hub")
    sol = exercise.EXERCISES_DIR / "shared-hub" / "solutions"
    (tmp_path / "alice.json").write_text((sol / "answers.json").read_text())
    (tmp_path / "bob.json").write_text((sol / "wrong.json").read_text())
    (tmp_path / "carol.json").write_text('{"answers": {"q1": 9.41}}')
    (tmp_path / "dave.json").write_text("not json")
    (tmp_path / "alice.check.json").write_text("{}")      # check's own verdicts: not a submission
    out = tmp_path / "grades.csv"
    exercise.grade(ex, tmp_path, fake_measured(ex), out)
    rows = {r["file"]: r for r in csv.DictReader(out.open())}
    n = len(ex["questions"])
    assert set(rows) == {"alice.json", "bob.json", "carol.json", "dave.json"}
    assert rows["alice.json"]["score"] == str(n) and rows["alice.json"]["problem"] == ""
    assert 0 < int(rows["bob.json"]["score"]) < n
    assert rows["carol.json"]["score"] == "0" and "no answer to" in rows["carol.json"]["problem"]
    assert "not valid JSON" in rows["dave.json"]["problem"]
    assert list(rows["alice.json"])[:3] == ["file", "student", "q1"]


def test_template_lists_every_question():
    for name in NAMES:
        ex = exercise.load(name)
        assert set(exercise.template(ex)["answers"]) == {q["id"] for q in ex["questions"]}


def sheet_commands(name: str) -> dict[str, list[str]]:
    text = (exercise.EXERCISES_DIR / name / "README.md").read_text()
    out = {"cli": [], "sh": []}
    for kind, body in re.findall(r"```(cli|sh)\n(.*?)```", text, re.S):
        out[kind] += [line for line in body.splitlines() if line.strip()]
    return out


def test_every_sheet_has_commands():
    for name in NAMES:
        cmds = sheet_commands(name)
        assert cmds["cli"], name
        for line in cmds["sh"]:
            assert line.startswith("sudo python3 emulate.py "), line


def test_grade_refuses_an_empty_folder_before_measuring(tmp_path, capsys, monkeypatch):
    import os

    import commands
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert commands.main(["exercise", "grade", "shared-hub", str(tmp_path)]) == 2
    assert "no *.json" in capsys.readouterr().err


@pytest.mark.parametrize("change,word", [
    (lambda d: d["questions"][0].update(expected={"formula": "__import__('os')"}), "only numbers"),
    (lambda d: d["questions"][3].update(expected={"choice": "a token ring"}), "not one of its choices"),
    (lambda d: d["quantities"]["one_flow"].update(run="nope"), "unknown run"),
    (lambda d: d.update(minutes=0), "minutes"),
    (lambda d: d["start"].update(topology="token-ring"), "token-ring"),
])
def test_a_bad_check_file_is_one_bad_input(tmp_path, monkeypatch, change, word):
    data = json.loads((exercise.EXERCISES_DIR / "shared-hub" / "check.json").read_text())
    change(data)
    (tmp_path / "shared-hub").mkdir()
    (tmp_path / "shared-hub" / "check.json").write_text(json.dumps(data))
    monkeypatch.setattr(exercise, "EXERCISES_DIR", tmp_path)
    with pytest.raises(BadInput, match=re.escape(word)):
        exercise.load("shared-hub")
