"""Classroom exercises as data (exercises/<name>/): sheets, live checks, grading.

An exercise folder holds README.md (the sheet a student follows), check.json
(the network it starts from, what the checker measures, and every question
with its expected answer and tolerance) and solutions/answers.json (the
teacher's answers, an answers file the checker must accept). check.json
follows exercises/schema.json (SCHEMA below; a test keeps them equal).

An expected answer is one of:
- formula: arithmetic over numbers (+ - * / ** and parentheses), e.g. 10*1448/1538;
- measured: arithmetic over quantities measured live on the student's machine
  (`name` = the `value` of the points a `measure` entry selects), never
  hard-coded, so a slower or faster machine checks against its own numbers;
- choice: one of the listed options (compared case-insensitively).
Answers files: {"exercise": NAME, "student": WHO, "answers": {QUESTION_ID: value}}, where a
value may also be the template's {"question": TEXT, "unit" or "choices": ..., "answer": value}.

Each student's template lists a question's choices in an order of their own (choice_order: a
sha256 of exercise, name and question), so a neighbour's letter names another choice; a letter
is read in the order listed beside it, or, for a bare letter, in the order the name gives.
`check` writes NAME.check.json beside an answers file, with what it measured; `grade` judges a
student against that measurement when it is usable (own_check: the file is the student's to
edit, so it is read capped and typed, and compared with the teacher's measurement when there
is one), and `summarize` counts each question's verdicts and common wrong answers for the class.
"""
from __future__ import annotations

import ast
import collections
import csv
import hashlib
import math
import operator
import os
import re
import statistics
from pathlib import Path

from core.errors import BadInput
from core.jsonfile import check_schema, read_json, write_schema
from core.safefile import atomic_text, read_bytes
from core.text import csv_cell, plain
from run.sweep import Sweep, axes_for
from core.verdicts import Answer
from workloads import WORKLOADS

ROOT = Path(__file__).resolve().parent.parent
EXERCISES_DIR = ROOT / "exercises"
SCHEMA_FILE = EXERCISES_DIR / "schema.json"
PASS, FAIL, MISSING = Answer.PASS, Answer.WRONG, Answer.MISSING
MAX_ANSWER = 1e12          # larger numbers are typos (and would overflow the comparison)
MAX_ANSWERS_BYTES = 1 << 20        # an answers file is a few hundred bytes; a bigger one is refused
VERDICTS_SUFFIX = ".check.json"   # what `check` writes beside an answers file: not a submission

_TEXT = {"type": "string", "minLength": 1}
_QUANTITY = {
    "type": "object", "additionalProperties": False, "required": ["run", "value"],
    "description": "one number from the measured points",
    "properties": {"run": {**_TEXT, "description": "a measure entry's id"},
                   "where": {"type": "object", "description": "point key -> value: which points"},
                   "value": {**_TEXT, "description": "the point key to read, e.g. throughput_mbyte_s"},
                   "reduce": {"enum": ["max", "min", "mean", "sum"], "description": "default mean"}}}
SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "https://beowulf-netlab.invalid/exercises/schema.json",
    "title": "Beowulf Netlab exercise check file",
    "description": "What an exercise starts from, what its checker measures, and its questions "
                   "(judge/exercise.py).",
    "type": "object", "additionalProperties": False,
    "required": ["name", "title", "minutes", "start", "questions"],
    "properties": {
        "$schema": {"type": "string"},
        "name": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$", "description": "the folder's name"},
        "title": _TEXT,
        "minutes": {"type": "integer", "minimum": 1, "maximum": 120,
                    "description": "how long a student needs"},
        "teaches": {**_TEXT, "description": "one line: what the exercise teaches"},
        "start": {"type": "object", "additionalProperties": False, "required": ["topology"],
                  "description": "the network `exercise start` builds (emulate.py cli flags, underscores)",
                  "properties": {"topology": _TEXT, "nodes": {"type": "integer"},
                                 "rate_mbit": {"type": "number"}, "channels": {"type": "integer"},
                                 "hardware": _TEXT, "contention": {"enum": ["on", "off"]}}},
        "measure": {"type": "array", "description": "what `check` runs, one sweep each",
                    "items": {"type": "object", "additionalProperties": False,
                              "required": ["id", "workload", "sweep"],
                              "properties": {"id": _TEXT, "workload": {"enum": list(WORKLOADS)},
                                             "sweep": {"type": "object",
                                                       "description": "axis -> value(s), as in experiment files"}}}},
        "quantities": {"type": "object", "additionalProperties": _QUANTITY,
                       "description": "name -> a number measured live"},
        "questions": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["id", "text", "expected"],
            "properties": {
                "id": {"type": "string", "pattern": "^q[0-9]+$"},
                "text": _TEXT,
                "unit": {"type": "string"},
                "choices": {"type": "array", "items": _TEXT, "minItems": 2},
                "expected": {"type": "object", "additionalProperties": False,
                             "minProperties": 1, "maxProperties": 1,
                             "properties": {"formula": _TEXT, "measured": _TEXT, "choice": _TEXT}},
                "tolerance": {"type": "number", "minimum": 0, "maximum": 1,
                              "description": "relative tolerance for numbers"},
                "why_tolerance": _TEXT,
                "hint": {**_TEXT, "description": "shown with a wrong answer"}}}},
    },
}

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.Pow: operator.pow}


def evaluate(expr: str, names: dict[str, float] | None = None) -> float:
    """Arithmetic only: numbers, names from `names`, + - * / ** and unary minus."""
    names = names or {}

    def ev(node) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise BadInput(f"formula {expr!r}: unknown quantity {node.id!r}")
            return float(names[node.id])
        raise BadInput(f"formula {expr!r}: only numbers, quantities and + - * / ** are allowed")
    try:
        return ev(ast.parse(expr, mode="eval"))
    except OverflowError:
        raise BadInput(f"formula {expr!r} overflows")
    except SyntaxError:
        raise BadInput(f"formula {expr!r} is not arithmetic")
    except ZeroDivisionError:
        raise BadInput(f"formula {expr!r} divides by zero")


def exercise_dirs() -> dict[str, Path]:
    return {p.name: p for p in sorted(EXERCISES_DIR.iterdir()) if (p / "check.json").is_file()}


def load(name: str) -> dict:
    """An exercise's check.json, validated (schema, measures as sweeps, formulas)."""
    dirs = exercise_dirs()
    if name not in dirs:
        raise BadInput(f"no exercise {name!r}; 'emulate.py exercise list' shows: {', '.join(dirs)}")
    path = dirs[name] / "check.json"
    data = read_json(path, "exercise check file")
    check_schema(data, SCHEMA, f"exercise check file {path}")
    runs = {m["id"] for m in data.get("measure", [])}
    for qname, q in data.get("quantities", {}).items():
        if q["run"] not in runs:
            raise BadInput(f"exercise check file {path}: quantity {qname} reads unknown run {q['run']!r}")
    dummy = {k: 1.0 for k in data.get("quantities", {})}
    for q in data["questions"]:
        exp = q["expected"]
        if "formula" in exp:
            evaluate(exp["formula"])
        if "measured" in exp:
            evaluate(exp["measured"], dummy)
        if "choice" in exp and exp["choice"] not in q.get("choices", []):
            raise BadInput(f"exercise check file {path}: {q['id']}: the expected choice is not one of its choices")
    data["_dir"] = str(dirs[name])
    start_spec(data)
    return data


def start_spec(ex: dict):
    """The network `exercise start` builds."""
    from topologies.presets import build_spec
    opts = {k: v for k, v in ex["start"].items() if k != "topology"}
    return build_spec(ex["start"]["topology"], **opts)


def sweeps(ex: dict) -> dict[str, Sweep]:
    """The measure entries as checked sweeps."""
    out = {}
    for m in ex.get("measure", []):
        axes = {a.name: a for a in axes_for(m["workload"])}
        given = {}
        for key, value in m["sweep"].items():
            if key not in axes:
                raise BadInput(f"exercise {ex['name']}: measure {m['id']}: no setting {key}")
            given[key] = axes[key].from_json(value, f"exercise {ex['name']}: measure {m['id']}.{key}")
        sweep = Sweep.make(m["workload"], given)
        sweep.check()
        out[m["id"]] = sweep
    return out


def quantities(ex: dict, points: dict[str, list[dict]]) -> dict[str, float]:
    """name -> the number each quantity reads from the measured points (the exercise's own:
    points a run adds to check a calibration, `calibration_of`, are not the exercise's)."""
    out = {}
    for name, q in ex.get("quantities", {}).items():
        chosen = [p for p in points.get(q["run"], []) if not p.get("calibration_of")
                  and all(p.get(k) == v for k, v in q.get("where", {}).items())]
        values = [float(p[q["value"]]) for p in chosen if isinstance(p.get(q["value"]), (int, float))]
        if not values:
            raise BadInput(f"exercise {ex['name']}: quantity {name} selects no measured point")
        reduce = q.get("reduce", "mean")
        out[name] = {"max": max, "min": min, "sum": sum, "mean": statistics.mean}[reduce](values)
    return out


def doubts(ex: dict, points: dict[str, list[dict]]) -> list[str]:
    """Why the live measurement may be wrong: the fidelity gates (run.gates) that failed on
    points a quantity reads (a loaded host, a late medium engine). A reference measured on a
    point the judge would call not checkable must not pass or fail a student silently."""
    out: list[str] = []
    for name, q in ex.get("quantities", {}).items():
        for p in points.get(q["run"], []):
            if p.get("calibration_of") or not all(p.get(k) == v for k, v in q.get("where", {}).items()):
                continue
            for reason in (p.get("gates") or {}).get("failed", []):
                line = f"{name} ({q['run']} point {p.get('point_index', '?')}): {reason}"
                if line not in out:
                    out.append(line)
    return out


NO_UNIT = "none: a plain number"
TEMPLATE_HOW = ("replace each \"answer\": null with your answer: a number in the unit given, or one of "
                "the choices, its text or its letter (a, b, c as listed here); leave the rest as it is.{mine} "
                "Then: sudo python3 emulate.py exercise check {name} THIS_FILE, and hand in this file with "
                "the .check.json that check writes beside it")
PERSONAL_HOW = (" This file's order of the choices is yours: a neighbour's letters name other choices.")


def student_key(student) -> str:
    """A name as the choice order reads it: case and spacing do not matter; no name, or the
    template's placeholder, is no student (the listed order)."""
    key = " ".join(plain(student).split()).casefold() if isinstance(student, str) else ""
    return "" if key == TEMPLATE_STUDENT else key


def choice_order(ex_name: str, student, q: dict) -> list[str]:
    """A question's choices in this student's order: each choice's place is a sha256 of
    (exercise, student, question, its index), so the order is the same wherever it is computed
    (template, check, grade) and differs between neighbours; without a student, as listed."""
    key = student_key(student)
    if not key:
        return list(q["choices"])
    seed = f"{ex_name}\n{key}\n{q['id']}\n"
    ranked = sorted(range(len(q["choices"])), key=lambda i: hashlib.sha256(f"{seed}{i}".encode()).digest())
    return [q["choices"][i] for i in ranked]


def template(ex: dict, student: str | None = None) -> dict:
    """An answers file to fill in: each question's text, with its unit or its choices,
    beside a null answer (read_answers takes this form as well as a bare value). For a named
    student, the name is filled in and the choices are in that student's order."""
    answers = {}
    for q in ex["questions"]:
        entry = {"question": q["text"]}
        if "choices" in q:
            entry["choices"] = choice_order(ex["name"], student, q)
        else:
            entry["unit"] = q.get("unit") or NO_UNIT
        entry["answer"] = None
        answers[q["id"]] = entry
    how = TEMPLATE_HOW.format(name=ex["name"], mine=PERSONAL_HOW if student_key(student) else "")
    return {"exercise": ex["name"], "student": student if student_key(student) else TEMPLATE_STUDENT,
            "how": how, "answers": answers}


def _bare(path: Path, qid: str, value):
    """An answer as given: a bare value, or the template's {"question": ..., "answer": value}."""
    if not isinstance(value, dict):
        return value
    if "answer" not in value:
        raise BadInput(f"answers file {path}: {qid} is an object without \"answer\" "
                       "(fill in the template's \"answer\": null, or give the bare value)")
    return value["answer"]


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "`": "'",
                         "\u201c": '"', "\u201d": '"', "\u00a0": " "})
_LETTER = re.compile(r"^\(?([a-z])[).]?$")


def _plain_choice(text: str) -> str:
    """A choice as compared: case, typographic quotes and spacing do not matter."""
    return " ".join(text.translate(_QUOTES).lower().split())


def choice_of(q: dict, a, order: list[str] | None = None) -> str | None:
    """The choice an answer names (its text in any case or quote style, or its letter a, b, c
    in `order`, the student's, by default as listed), or None."""
    if not isinstance(a, str):
        return None
    want = _plain_choice(a)
    for c in q["choices"]:
        if _plain_choice(c) == want:
            return c
    order = order or q["choices"]
    m = _LETTER.match(want)
    if m and ord(m.group(1)) - ord("a") < len(order):
        return order[ord(m.group(1)) - ord("a")]
    return None


def listed_order(q: dict, entry) -> list[str] | None:
    """The choices as an answers file lists them beside the answer (the template's form), when
    they are exactly the question's choices in some order; else None. Reading a letter in this
    order gains an editor nothing: each letter still names one of the question's choices."""
    listed = entry.get("choices") if isinstance(entry, dict) else None
    if not isinstance(listed, list) or len(listed) != len(q["choices"]) \
            or not all(isinstance(c, str) for c in listed):
        return None
    by_text = {_plain_choice(c): c for c in q["choices"]}
    out = [by_text.get(_plain_choice(c)) for c in listed]
    return out if None not in out and len(set(out)) == len(out) else None


def _problem(q: dict, a, order: list[str] | None = None) -> str | None:
    """Why answer a to question q cannot be judged, or None."""
    if a is None:
        return "no answer"
    if "choices" in q:
        order = order or q["choices"]
        letters = ", ".join(f"{chr(ord('a') + i)}" for i in range(len(order)))
        return None if choice_of(q, a, order) else (f"takes one of: {' | '.join(order)} (its text or its "
                                                    f"letter {letters}), got {plain(a)!r}")
    if isinstance(a, bool) or not isinstance(a, (int, float)) or a != a or abs(a) > MAX_ANSWER:
        return f"takes a number{' in ' + q['unit'] if q.get('unit') else ''}, got {plain(a)!r}"
    return None


def read_answers(path: Path, ex: dict, partial: bool = False) -> dict:
    """An answers file, checked: BadInput (one line) for a file that is not one. A question left
    unanswered or answered in the wrong form is a BadInput too, unless `partial` (grading):
    then it is listed in the result's `problems` (question id -> why) and the rest is judged."""
    data = read_json(path, "answers file", limit=MAX_ANSWERS_BYTES)
    if not isinstance(data, dict) or not isinstance(data.get("answers"), dict):
        raise BadInput(f"answers file {path} must be an object with an 'answers' object "
                       f"(see 'emulate.py exercise show {ex['name']} --answers-template')")
    if data.get("exercise") not in (None, ex["name"]):
        raise BadInput(f"answers file {path} is for exercise {plain(data.get('exercise'))!r}, not {ex['name']}")
    ids = [q["id"] for q in ex["questions"]]
    unknown = sorted(set(data["answers"]) - set(ids))
    if unknown:
        raise BadInput(f"answers file {path}: no question {plain(', '.join(unknown))} in {ex['name']} "
                       f"(questions: {', '.join(ids)})")
    bare, malformed = {}, {}
    for qid, a in data["answers"].items():
        try:
            bare[qid] = _bare(path, qid, a)
        except BadInput as e:
            if not partial:
                raise
            bare[qid], malformed[qid] = None, str(e).split(f"{qid} ", 1)[-1]
    # a letter names a choice in the order the student saw: listed beside it, else their own
    orders, foreign = {}, []
    for q in ex["questions"]:
        if "choices" in q:
            own = choice_order(ex["name"], data.get("student"), q)
            listed = listed_order(q, data["answers"].get(q["id"]))
            orders[q["id"]] = listed or own
            if listed and student_key(data.get("student")) and listed not in (own, q["choices"]):
                foreign.append(q["id"])
    data = {**data, "answers": bare, "foreign_order": foreign}
    problems = {q["id"]: why for q in ex["questions"]
                if (why := malformed.get(q["id"]) or _problem(q, data["answers"].get(q["id"]), orders.get(q["id"])))}
    if problems and not partial:
        missing = [i for i, why in problems.items() if why == "no answer"]
        if missing:
            raise BadInput(f"answers file {path}: no answer to {', '.join(missing)}; answer every question "
                           "(a guess is better than nothing)")
        qid, why = next(iter(problems.items()))
        raise BadInput(f"answers file {path}: {qid} {why}")
    for q in ex["questions"]:
        if "choices" in q and q["id"] not in problems:
            data["answers"][q["id"]] = choice_of(q, data["answers"][q["id"]], orders[q["id"]])
    return {**data, "problems": problems}


def expected(q: dict, measured: dict[str, float]) -> float | str:
    exp = q["expected"]
    if "choice" in exp:
        return exp["choice"]
    if "formula" in exp:
        return evaluate(exp["formula"])
    return evaluate(exp["measured"], measured)


NO_MEASUREMENT = "no measurement to judge it against (no check file of the student's, and grade measured nothing)"


def judge(ex: dict, answers: dict, measured: dict[str, float] | None) -> list[dict]:
    """One verdict per question: pass or wrong, with the reference and a hint when wrong. With
    no measurement (None), a measured question cannot be judged: missing, saying why."""
    out = []
    problems = dict(answers.get("problems") or {})
    for q in ex["questions"]:
        if measured is None and "measured" in q["expected"]:
            got = answers["answers"].get(q["id"])
            out.append({"id": q["id"], "answer": got, "reference": None, "verdict": MISSING,
                        "problem": problems.get(q["id"], NO_MEASUREMENT), "source": "measured"})
            continue
        want = expected(q, measured or {})
        got = answers["answers"].get(q["id"])
        ref = round(want, 4) if isinstance(want, float) else want
        if q["id"] in problems:
            out.append({"id": q["id"], "answer": got, "reference": ref, "verdict": MISSING,
                        "problem": problems[q["id"]], "source": next(iter(q["expected"]))})
            continue
        if isinstance(want, str):
            ok = isinstance(got, str) and _plain_choice(got) == _plain_choice(want)
        else:
            tol = q.get("tolerance", 0.05)
            ok = isinstance(got, (int, float)) and abs(got - want) <= tol * abs(want) + 1e-12
        row = {"id": q["id"], "answer": got, "reference": ref,
               "verdict": PASS if ok else FAIL, "source": next(iter(q["expected"]))}
        if not ok and q.get("hint"):
            row["hint"] = q["hint"]
        out.append(row)
    return out


def submissions(folder: Path) -> list[Path]:
    """The answers files in a folder (check's own verdict files left out)."""
    return [p for p in sorted(folder.glob("*.json")) if not p.name.endswith(VERDICTS_SUFFIX)]


TEMPLATE_STUDENT = "your name"
CLASS_ROW, REFERENCE_ROW = "(class)", "(reference)"


def read_roster(path: Path) -> list[str]:
    """One student name a line (blank lines and # comments skipped)."""
    text = read_bytes(path, "roster", MAX_ANSWERS_BYTES).decode(errors="replace")
    return [n for line in text.splitlines() if (n := plain(line.split("#", 1)[0]).strip())]


OWN_CHECK, TEACHERS, NO_MEASURE = "own check", "teacher's", "none"
DISAGREE_FACTOR = 3       # an own check this many tolerances from the teacher's is said


def check_file_of(answers: Path) -> Path:
    """Where `check` writes its record beside an answers file (and grade looks for it)."""
    return answers.with_name(answers.stem + VERDICTS_SUFFIX)


def _record_problem(ex: dict, data, student) -> str | None:
    """Why a check record cannot be graded against (it is the student's file: anything may be
    in it), or None."""
    if not isinstance(data, dict):
        return "is not a JSON object"
    if data.get("exercise") != ex["name"]:
        return f"is for exercise {plain(data.get('exercise'))[:40]!r}"
    if student_key(data.get("student")) != student_key(student):
        return "names another student than the answers file"
    m = data.get("measured")
    if not isinstance(m, dict):
        return "holds no measurement (made by an older check: run check again)"
    if set(m) != set(ex.get("quantities", {})):
        return "does not hold this exercise's measured quantities"
    for k, v in m.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > MAX_ANSWER:
            return f"holds a {plain(k)} that is not a finite number"
    doubts = data.get("measurement_doubts", [])
    if not isinstance(doubts, list) or not all(isinstance(d, str) for d in doubts):
        return "holds measurement_doubts that are not a list of lines"
    for q in ex["questions"]:
        if "measured" in q["expected"]:
            try:
                ref = evaluate(q["expected"]["measured"], m)
            except BadInput as e:
                return f"gives {q['id']} no reference ({e})"
            if not isinstance(ref, float) or not math.isfinite(ref):
                return f"gives {q['id']} no finite reference"
    return None


def own_check(ex: dict, answers: Path, student) -> tuple[dict[str, float] | None, list[str]]:
    """The measurement the student's own `check` recorded beside their answers file, read as
    hostile (size-capped, never through a link, every value typed and finite), or None; and
    notes for the teacher (why it was not used, or that it failed a fidelity gate)."""
    path = check_file_of(answers)
    if not os.path.lexists(path):
        return None, []
    try:
        data = read_json(path, "check file", limit=MAX_ANSWERS_BYTES)
    except BadInput as e:
        return None, [f"own check not used: {e}"]
    why = _record_problem(ex, data, student)
    if why:
        return None, [f"own check not used: {plain(path.name)} {why}"]
    notes = ["own check's measurement failed a fidelity gate"] if data.get("measurement_doubts") else []
    return {k: float(v) for k, v in data["measured"].items()}, notes


def needs_measurement(ex: dict, folder: Path) -> list[str]:
    """The answers files that would need the teacher's measurement: readable ones without a
    usable check record of their own (none when the exercise measures nothing)."""
    if not ex.get("quantities"):
        return []
    out = []
    for path in submissions(folder):
        try:
            answers = read_answers(path, ex, partial=True)
        except BadInput:
            continue            # judged as unreadable, measured or not
        if own_check(ex, path, answers.get("student"))[0] is None:
            out.append(path.name)
    return out


def disagreements(ex: dict, own: dict[str, float], teachers: dict[str, float]) -> list[str]:
    """Measured questions whose reference from the student's own check is more than
    DISAGREE_FACTOR tolerances from the teacher's: a slow machine, or an edited file."""
    out = []
    for q in ex["questions"]:
        if "measured" in q["expected"]:
            mine, theirs = expected(q, own), expected(q, teachers)
            tol = q.get("tolerance", 0.05)
            if abs(mine - theirs) > DISAGREE_FACTOR * tol * abs(theirs) + 1e-12:
                out.append(f"{q['id']}: own check gives {mine:.4g}, the teacher's {theirs:.4g} (more than "
                           f"{DISAGREE_FACTOR}x its tolerance apart; judged on the own check)")
    return out


def _student(answers: dict) -> str:
    s = answers.get("student")
    return plain(s).strip() if isinstance(s, str) else ""


def grade(ex: dict, folder: Path, measured: dict[str, float] | None, out: Path,
          roster: list[str] | None = None) -> list[dict]:
    """Every *.json in folder, judged, into a CSV for the teacher: per question the student's
    answer and its verdict, the score out of the maximum, which measurement judged it (the
    student's own check beside the file when usable, else the teacher's `measured`, else none),
    and why a file or an answer could not be judged (an unanswered question costs that question,
    not the file). Then a row of the references, one of the class (per question: passed, wrong,
    missing, the common wrong answers), and a row for every roster name no file names. Returns
    the students' rows (with their raw answers under "_answers", not written)."""
    qs = ex["questions"]
    ids = [q["id"] for q in qs]
    rows = []
    for path in submissions(folder):
        row = {"file": path.name, "student": "", "max": len(qs), "_answers": {}}
        try:
            answers = read_answers(path, ex, partial=True)
            student = _student(answers)
            own, notes = own_check(ex, path, answers.get("student"))
            use = own if own is not None else measured
            row["measurement"] = OWN_CHECK if own is not None else TEACHERS if measured is not None else NO_MEASURE
            verdicts = judge(ex, answers, use)
            for v in verdicts:
                row[v["id"]] = v["verdict"]
                row[f"{v['id']}_answer"] = "" if v["answer"] is None else plain(v["answer"])
                row["_answers"][v["id"]] = v["answer"]
            row["score"] = sum(v["verdict"] == PASS for v in verdicts)
            unmeasured = [v["id"] for v in verdicts if v.get("problem") == NO_MEASUREMENT]
            blank = [v["id"] for v in verdicts if v.get("problem") == "no answer"]
            notes = ([f"no answer to {', '.join(blank)}"] if blank else []) + \
                [f"{v['id']}: {v['problem']}" for v in verdicts
                 if v["verdict"] == MISSING and v["id"] not in unmeasured + blank] + notes
            if unmeasured:
                notes.append(f"{', '.join(unmeasured)} not judged: {NO_MEASUREMENT}")
            if own is not None and measured is not None:
                notes += disagreements(ex, own, measured)
            if answers["foreign_order"]:
                notes.append(f"choices listed in another student's order ({', '.join(answers['foreign_order'])}): "
                             "a template made for someone else?")
            if student_key(student) == "":
                notes.insert(0, f"no student name (\"student\" is {student!r})")
            row["student"] = student
            row["problem"] = "; ".join(notes)
        except BadInput as e:
            row.update({i: MISSING for i in ids})
            row["score"] = 0
            row["problem"] = str(e)
        rows.append(row)
    names = [student_key(r["student"]) for r in rows if student_key(r["student"])]
    for r in rows:
        if student_key(r["student"]) and names.count(student_key(r["student"])) > 1:
            r["problem"] = "; ".join(filter(None, [r["problem"], "the same student name as another file"]))
    summary = summarize(ex, rows)
    used = {m: sum(r.get("measurement") == m for r in rows) for m in (OWN_CHECK, TEACHERS, NO_MEASURE)}
    extra = [{"file": REFERENCE_ROW, "measurement": TEACHERS if measured is not None else NO_MEASURE,
              **{f"{q['id']}_answer": _shown(expected(q, measured)) if measured is not None
                 or "measured" not in q["expected"] else "(each student's own check)" for q in qs}},
             {"file": CLASS_ROW, "student": f"{len(rows)} files", "max": len(qs),
              **{s["id"]: f"{s['passed']}/{s['total']} passed, {s['wrong']} wrong, {s['missing']} missing"
                 for s in summary},
              **{f"{s['id']}_answer": "common wrong: " + "; ".join(f"{a} ({n})" for a, n in s["common_wrong"])
                 for s in summary if s["common_wrong"]},
              "measurement": ", ".join(f"{m} {n}" for m, n in used.items()),
              "score": f"median {statistics.median([r['score'] for r in rows]):g}" if rows else ""}]
    extra += [{"file": "(none)", "student": name, "max": len(qs), "score": 0, "problem": "on the roster, no file"}
              for name in absent(rows, roster)]
    fields = ["file", "student", *(k for i in ids for k in (i, f"{i}_answer")), "score", "max", "measurement",
              "problem"]
    try:
        with atomic_text(out, mode=0o600, newline="") as f:   # the references and every answer
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            for row in rows + extra:
                w.writerow({k: csv_cell(v) for k, v in row.items() if not k.startswith("_")})
    except OSError as e:
        raise BadInput(f"cannot write {out}: {e.strerror}; choose another --out")
    return rows


def slug(name: str) -> str:
    """A student's name as a file name (the hand-out's): letters, digits, - and _ only."""
    return re.sub(r"[^\w-]+", "-", plain(name)).strip("-_")[:MAX_SLUG] or "student"


MAX_SLUG = 60


def absent(rows: list[dict], roster: list[str] | None) -> list[str]:
    """Roster names no graded file gives (case and spacing aside), nor is named after as the
    hand-out named it (a file handed in unreadable, or with "your name" left in, is not absent)."""
    graded = {student_key(r["student"]) for r in rows}
    files = {r["file"].casefold() for r in rows}
    return [name for name in roster or [] if student_key(name) not in graded
            and f"{slug(name)}.json".casefold() not in files]


COMMON_WRONG = 3     # the most frequent wrong answers shown per question


def _answer_key(a) -> str:
    """A wrong answer as counted: numbers to 3 significant figures (9.41 and 9.412 are one
    mistake), choices as their text."""
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return f"{float(f'{a:.3g}'):g}"
    return plain(a)


def summarize(ex: dict, rows: list[dict]) -> list[dict]:
    """Per question, over the graded rows: how many passed, were wrong, were missing (no answer,
    or one that cannot be judged), and the most common wrong answers with their counts."""
    out = []
    for q in ex["questions"]:
        verdicts = [r.get(q["id"]) for r in rows]
        wrong = collections.Counter(_answer_key(r["_answers"].get(q["id"])) for r in rows
                                    if r.get(q["id"]) == FAIL)
        out.append({"id": q["id"], "text": q["text"], "unit": q.get("unit", ""),
                    "source": next(iter(q["expected"])), "total": len(rows),
                    "passed": verdicts.count(PASS), "wrong": verdicts.count(FAIL),
                    "missing": len(rows) - verdicts.count(PASS) - verdicts.count(FAIL),
                    "common_wrong": [(a, n) for a, n in wrong.most_common(COMMON_WRONG)]})
    return out


def _shown(v) -> str | float:
    return round(v, 4) if isinstance(v, float) else v


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    print(f"wrote {SCHEMA_FILE}")
