"""Classroom exercises as data (beowulf_netlab/exercises/<name>/): sheets, live checks, grading.

An exercise folder holds README.md (the sheet a student follows), check.json (the network it
starts from, what the checker measures, and every question's text with its unit or choices:
no answer, no tolerance, no hint, for every lab VM holds it) and solutions/ (the teacher's,
never on a student's machine: key.json, the answer key; answers.json, an answers file the key
must pass). check.json follows beowulf_netlab/exercises/schema.json and key.json beowulf_netlab/exercises/key-schema.json
(SCHEMA and KEY_SCHEMA below; a test keeps them equal). `load` joins the key to the questions
when it is there (a teacher's checkout); `has_key` says whether it is.

An expected answer (the key's) is one of:
- formula: arithmetic over numbers (+ - * / ** and parentheses), e.g. 10*1448/1538;
- measured: arithmetic over quantities measured live on the student's machine
  (`name` = the `value` of the points a `measure` entry selects), never
  hard-coded, so a slower or faster machine checks against its own numbers;
- choice: one of the listed options (compared case-insensitively).
Answers files: {"exercise": NAME, "student": WHO, "code": CODE, "answers": {QUESTION_ID: value}},
where a value may also be the template's {"question": TEXT, "unit" or "choices": ..., "answer":
value}; a number may be written as text with a decimal comma or the question's unit ("123,4
frames/s"), where that is unambiguous.

A personal template lists the choices in the order its hand-out code deals (dealt_order: over a
class each choice, the right one too, takes every place equally often), so a neighbour's letter
names another choice; a letter is read in the order listed beside it, else the code's. On a
student's machine `check` judges nothing: it reads the answers as `grade` will (answered, blank,
unreadable), measures, and writes a sealed record (judge.binding) beside the answers file;
`grade`, in the teacher's checkout, judges each student against that record when it is usable
(own_check: it is the student's file, so it is read capped and typed), and `summarize` counts
each question's verdicts and common wrong answers for the class.
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

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.jsonfile import check_schema, parse_json, read_json, write_schema
from beowulf_netlab.core.safefile import atomic_text, read_bytes
from beowulf_netlab.core.text import csv_cell, plain
from beowulf_netlab.core.verdicts import Answer
from beowulf_netlab.judge import binding
from beowulf_netlab.judge.binding import TEMPLATE_STUDENT, student_key
from beowulf_netlab.run.sweep import Sweep, axes_for
from beowulf_netlab.workloads import WORKLOADS

PACKAGE = Path(__file__).resolve().parent.parent   # beowulf_netlab/, beside its data folders
EXERCISES_DIR = PACKAGE / "exercises"
SCHEMA_FILE = EXERCISES_DIR / "schema.json"
KEY_SCHEMA_FILE = EXERCISES_DIR / "key-schema.json"
KEY_FILE = Path("solutions") / "key.json"      # in an exercise's folder: the teacher's only
KEYED = ("expected", "tolerance", "why_tolerance", "hint")   # what a question has from the key
PASS, FAIL = Answer.PASS, Answer.WRONG
BLANK, UNREADABLE, NOT_JUDGED = Answer.BLANK, Answer.UNREADABLE, Answer.NOT_JUDGED
UNJUDGED = (BLANK, UNREADABLE, NOT_JUDGED)     # the verdicts that are neither pass nor wrong
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
    "description": "What an exercise starts from, what its checker measures, and its questions, without "
                   "their answers: every lab VM holds this file (the answers: solutions/key.json, "
                   "key-schema.json; beowulf_netlab/judge/exercise.py).",
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
            "required": ["id", "text"],
            "properties": {
                "id": {"type": "string", "pattern": "^q[0-9]+$"},
                "text": _TEXT,
                "unit": {"type": "string"},
                "choices": {"type": "array", "items": _TEXT, "minItems": 2}}}},
    },
}
KEY_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "https://beowulf-netlab.invalid/exercises/key-schema.json",
    "title": "Beowulf Netlab exercise answer key",
    "description": "An exercise's answers, tolerances and hints (beowulf_netlab/exercises/NAME/solutions/key.json): the "
                   "teacher's, never on a student's machine (beowulf_netlab/judge/exercise.py).",
    "type": "object", "additionalProperties": False, "required": ["exercise", "questions"],
    "properties": {
        "$schema": {"type": "string"},
        "exercise": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$"},
        "questions": {"type": "object", "description": "question id -> its answer", "additionalProperties": {
            "type": "object", "additionalProperties": False, "required": ["expected"],
            "properties": {
                "expected": {"type": "object", "additionalProperties": False,
                             "minProperties": 1, "maxProperties": 1,
                             "properties": {"formula": _TEXT, "measured": _TEXT, "choice": _TEXT}},
                "tolerance": {"type": "number", "minimum": 0, "maximum": 1,
                              "description": "relative tolerance for numbers"},
                "why_tolerance": _TEXT,
                "hint": {**_TEXT, "description": "shown to the teacher with a wrong answer"}}}},
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
    """An exercise's check.json, validated (schema, measures as sweeps), with its answer key
    joined to the questions when the key is here (a teacher's checkout: has_key)."""
    dirs = exercise_dirs()
    if name not in dirs:
        raise BadInput(f"no exercise {name!r}; 'emulate.py exercise list' shows: {', '.join(dirs)}")
    return load_folder(dirs[name])


def load_folder(folder: Path) -> dict:
    """An exercise from its folder (load; examples/made-up-exercise is one outside beowulf_netlab/exercises/)."""
    folder = Path(folder)
    path = folder / "check.json"
    data = read_json(path, "exercise check file")
    check_schema(data, SCHEMA, f"exercise check file {path}")
    runs = {m["id"] for m in data.get("measure", [])}
    for qname, q in data.get("quantities", {}).items():
        if q["run"] not in runs:
            raise BadInput(f"exercise check file {path}: quantity {qname} reads unknown run {q['run']!r}")
    ids = [q["id"] for q in data["questions"]]
    if len(set(ids)) != len(ids):
        raise BadInput(f"exercise check file {path}: a question id is used twice ({', '.join(ids)})")
    data["_dir"] = str(folder)
    data["_key"] = None
    key = folder / KEY_FILE
    if os.path.lexists(key):
        _join_key(data, key)
    start_spec(data)
    return data


def _join_key(data: dict, path: Path) -> None:
    """The answer key's entries into the questions, each checked (formulas arithmetic, a choice
    one of the question's, a number for a question without choices)."""
    key = read_json(path, "answer key")
    check_schema(key, KEY_SCHEMA, f"answer key {path}")
    if key["exercise"] != data["name"]:
        raise BadInput(f"answer key {path} is for exercise {key['exercise']!r}, not {data['name']}")
    ids = [q["id"] for q in data["questions"]]
    if set(key["questions"]) != set(ids):
        raise BadInput(f"answer key {path} answers {', '.join(sorted(key['questions']))}; the check file asks "
                       f"{', '.join(ids)}")
    dummy = {k: 1.0 for k in data.get("quantities", {})}
    for q in data["questions"]:
        q.update(key["questions"][q["id"]])
        exp = q["expected"]
        if "formula" in exp:
            evaluate(exp["formula"])
        if "measured" in exp:
            evaluate(exp["measured"], dummy)
        if ("choice" in exp) != ("choices" in q):
            raise BadInput(f"answer key {path}: {q['id']}: a question with choices takes a choice, any other a "
                           "formula or a measured quantity")
        if "choice" in exp and exp["choice"] not in q["choices"]:
            raise BadInput(f"answer key {path}: {q['id']}: the expected choice is not one of its choices")
    data["_key"] = str(path)


def has_key(ex: dict) -> bool:
    """Whether the answer key is here (a teacher's checkout), so answers can be judged."""
    return bool(ex.get("_key"))


def require_key(ex: dict, what: str) -> None:
    """BadInput (one line) when the answer key is not here: what needs it cannot run."""
    if not has_key(ex):
        raise BadInput(f"{what}: the answer key is only in a teacher's checkout (beowulf_netlab/exercises/{ex['name']}/"
                       f"{KEY_FILE.as_posix()} is not here)")


def start_spec(ex: dict):
    """The network `exercise start` builds."""
    from beowulf_netlab.topologies.presets import build_spec
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
TEMPLATE_HOW = ("replace each \"answer\": null with your answer: a number in the unit given (\"123.4\"; a decimal "
                "comma or the unit written after it are read too: \"123,4 frames/s\"), or one of the choices, its "
                "text or its letter (a, b, c as listed here); leave the rest as it is.{mine} Then: sudo python3 "
                "emulate.py exercise check {name} THIS_FILE, and hand in this file with the .check.json that "
                "check writes beside it")
PERSONAL_HOW = (" This file's order of the choices is yours: a neighbour's letters name other choices; leave "
                "\"code\" as it is.")


def arrangement(choices: list[str], t: int) -> list[str]:
    """The t-th order of the choices: listed choice x goes to place (x + t) mod n when t // n is
    even, to (t - x) mod n when it is odd (rotations, then reflections). Each block of n t's
    (kn to kn + n - 1) puts every choice in every place once, whichever is right, so a class dealt
    consecutive t's sees the right choice in each place equally often, to within one (the two
    blocks the class only partly covers, at its ends)."""
    n = len(choices)
    out = [""] * n
    for x, c in enumerate(choices):
        out[(x + t) % n if (t // n) % 2 == 0 else (t - x) % n] = c
    return out


def dealt_order(ex: dict, code, q: dict) -> list[str]:
    """q's choices in the order a hand-out code deals (judge.binding), or as the sheet lists them
    without a code. The code's index plus the question's place among the multiple-choice ones,
    so one student's questions do not all move alike."""
    i = binding.code_index(code)
    if i is None:
        return list(q["choices"])
    mc = [x["id"] for x in ex["questions"] if "choices" in x]
    return arrangement(q["choices"], i + mc.index(q["id"]))


def template(ex: dict, student: str | None = None, code: str | None = None) -> dict:
    """An answers file to fill in: each question's text, with its unit or its choices, beside a
    null answer (read_answers takes this form as well as a bare value). For a named student the
    name is filled in; with a hand-out code, the code too and the choices in the order it deals."""
    answers = {}
    for q in ex["questions"]:
        entry = {"question": q["text"]}
        if "choices" in q:
            entry["choices"] = dealt_order(ex, code, q)
        else:
            entry["unit"] = q.get("unit") or NO_UNIT
        entry["answer"] = None
        answers[q["id"]] = entry
    named = bool(student_key(student))
    how = TEMPLATE_HOW.format(name=ex["name"], mine=PERSONAL_HOW if code else "")
    out = {"exercise": ex["name"], "student": student if named else TEMPLATE_STUDENT}
    if code:
        out["code"] = code
    return {**out, "how": how, "answers": answers}


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


# A unit as a student may write it -> the unit it is (B is a byte, b a bit: matched as written).
UNIT_SPELLINGS = {
    "Mbit/s": ("Mbit/s", "Mbits/s", "Mb/s", "Mbps", "Mbit/sec", "Mbits/sec", "Mbit/s."),
    "MB/s": ("MB/s", "MByte/s", "MBytes/s", "MBps", "MB/sec", "Mbyte/s", "Mbytes/s"),
    "frames/s": ("frames/s", "frame/s", "frames/sec", "frames per second", "fps"),
    "us": ("us", "\u00b5s", "\u03bcs", "usec", "microseconds", "microsecond"),
}
_NUMBER = re.compile(r"([-+\u2212]?)(\d[\d.,]*)((?:[eE][-+]?\d+)?)\s*(.*)", re.S)
NO_ANSWER = "no answer"


def _grouped(groups: list[str]) -> bool:
    """Digits that read as thousands groups: 1-3 digits (not a lone 0) then groups of 3."""
    return 1 <= len(groups[0]) <= 3 and groups[0] != "0" and all(len(g) == 3 for g in groups[1:])


def _digits(text: str) -> str | None:
    """Digits with separators as Python reads a number ("123,4" -> "123.4", "1,234.5" -> "1234.5"),
    or None when which separator is the decimal one cannot be told ("1,538": 1538 or 1.538?)."""
    commas, dots = text.count(","), text.count(".")
    if not commas and dots <= 1:
        return text
    if commas and dots:
        point = "," if text.rfind(",") > text.rfind(".") else "."
        whole, frac = text.rsplit(point, 1)
        groups = whole.split("." if point == "," else ",")
        return "".join(groups) + "." + frac if point not in whole and _grouped(groups) else None
    sep = "," if commas else "."
    parts = text.split(sep)
    if len(parts) == 2 and sep == ",":
        return None if _grouped(parts) else f"{parts[0]}.{parts[1]}"   # "0,125" and "123,4" are decimals
    return "".join(parts) if _grouped(parts) else None


def read_number(a, unit: str = "") -> tuple[float | None, str | None]:
    """An answer to a question to compute as a number, or why it is not one. Text is read where
    that is unambiguous: a decimal comma ("123,4"), thousands separators ("1,234.5", "1.234,5"),
    the question's unit after it in a common spelling ("45.6 Mbps"), a percentage for a question
    without a unit ("12.5 %" is 0.125). "1,538" (1538 or 1.538?) and another unit are not."""
    asks = f" in {unit}" if unit else ""
    if isinstance(a, bool) or not isinstance(a, (int, float, str)):
        return None, f"takes a number{asks}, got {plain(a)!r}"
    if isinstance(a, str):
        m = _NUMBER.fullmatch(a.strip())
        if not m:
            return None, f"takes a number{asks}, got {plain(a)!r}"
        sign, body, exp, rest = m.groups()
        digits = _digits(body)
        if digits is None:
            first, _, last = body.rpartition("," if "," in body else ".")
            whole = re.sub(r"[.,]", "", first) + last
            return None, f"{plain(a)!r} could be read two ways ({whole} or {re.sub(r'[.,]', '', first)}.{last}?): " \
                         "write it with a decimal point and no other separator"
        try:
            value = float(("-" if sign in ("-", "\u2212") else "") + digits + exp)
        except ValueError:
            return None, f"takes a number{asks}, got {plain(a)!r}"
        rest = rest.strip()
        if rest == "%" and not unit:
            value /= 100
        elif rest:
            same = " ".join(rest.split())
            named = unit if same == unit or (same.casefold() == unit.casefold() and "b" not in unit.lower()) else \
                next((u for u, spellings in UNIT_SPELLINGS.items()
                      if rest in spellings or (u in ("frames/s", "us") and rest.lower() in spellings)), None)
            if named is None or named != unit:
                said = f"in {named}" if named else f"with {plain(rest)!r} after it"
                return None, f"is a number {said}; the question asks {unit or 'a plain number'}: give it " \
                             f"{'in ' + unit if unit else 'without a unit'}"
    elif isinstance(a, int) and abs(a) > MAX_ANSWER:
        return None, f"takes a number{asks}, got {plain(a)!r}"
    else:
        value = float(a)
    if value != value or abs(value) > MAX_ANSWER:
        return None, f"takes a number{asks}, got {plain(a)!r}"
    return value, None


def _problem(q: dict, a, order: list[str] | None = None) -> str | None:
    """Why answer a to question q cannot be judged, or None."""
    if a is None or (isinstance(a, str) and not a.strip()):
        return NO_ANSWER
    if "choices" in q:
        order = order or q["choices"]
        letters = ", ".join(f"{chr(ord('a') + i)}" for i in range(len(order)))
        return None if choice_of(q, a, order) else (f"takes one of: {' | '.join(order)} (its text or its "
                                                    f"letter {letters}), got {plain(a)!r}")
    return read_number(a, q.get("unit", ""))[1]


def read_answers(path: Path, ex: dict, partial: bool = False) -> dict:
    """An answers file, checked: BadInput (one line) for a file that is not one. A question left
    unanswered or answered in a form that cannot be read is a BadInput too, unless `partial`
    (check and grade): then it is listed in the result's `problems` (question id -> why) and the
    rest is read. Numbers written as text are read (read_number), their text kept in `written`;
    `sha256` is the file's, which a check record names."""
    raw = read_bytes(path, "answers file", MAX_ANSWERS_BYTES)
    data = parse_json(raw, f"answers file {path}")
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
    # a letter names a choice in the order the student saw: listed beside it, else their code's
    orders, foreign = {}, []
    for q in ex["questions"]:
        if "choices" in q:
            own = dealt_order(ex, data.get("code"), q)
            listed = listed_order(q, data["answers"].get(q["id"]))
            orders[q["id"]] = listed or own
            if listed and listed not in (own, q["choices"]):
                foreign.append(q["id"])
    problems = {q["id"]: why for q in ex["questions"]
                if (why := malformed.get(q["id"]) or _problem(q, bare.get(q["id"]), orders.get(q["id"])))}
    if problems and not partial:
        missing = [i for i, why in problems.items() if why == NO_ANSWER]
        if missing:
            raise BadInput(f"answers file {path}: no answer to {', '.join(missing)}; answer every question "
                           "(a guess is better than nothing)")
        qid, why = next(iter(problems.items()))
        raise BadInput(f"answers file {path}: {qid} {why}")
    written = {}
    for q in ex["questions"]:
        qid = q["id"]
        if qid in problems:
            continue
        if "choices" in q:
            bare[qid] = choice_of(q, bare[qid], orders[qid])
        else:
            if isinstance(bare[qid], str):
                written[qid] = bare[qid]
            bare[qid] = read_number(bare[qid], q.get("unit", ""))[0]
    return {**data, "answers": bare, "foreign_order": foreign, "problems": problems, "written": written,
            "sha256": hashlib.sha256(raw).hexdigest()}


def reading(ex: dict, answers: dict) -> dict[str, str]:
    """Question id -> how its answer reads, as grade will read it: "answered", "blank" or
    "unreadable: why". What a student's check says: nothing of right or wrong."""
    out = {}
    for q in ex["questions"]:
        why = answers["problems"].get(q["id"])
        out[q["id"]] = "answered" if why is None else str(BLANK) if why == NO_ANSWER else f"{UNREADABLE}: {why}"
    return out


def expected(q: dict, measured: dict[str, float]) -> float | str:
    if "expected" not in q:
        raise BadInput(f"question {q['id']}: its answer is only in a teacher's checkout (solutions/key.json)")
    exp = q["expected"]
    if "choice" in exp:
        return exp["choice"]
    if "formula" in exp:
        return evaluate(exp["formula"])
    return evaluate(exp["measured"], measured)


NO_MEASUREMENT = "no measurement to judge it against (no check file of the student's, and grade measured nothing)"


def judge(ex: dict, answers: dict, measured: dict[str, float] | None) -> list[dict]:
    """One verdict per question: pass or wrong, with the reference and a hint when wrong; blank or
    unreadable for an answer that cannot be judged, saying why; not judged for a measured question
    with no measurement (None) to judge it against. Needs the answer key."""
    require_key(ex, "exercise: judging answers")
    out = []
    problems = dict(answers.get("problems") or {})
    for q in ex["questions"]:
        got = answers["answers"].get(q["id"])
        source = next(iter(q["expected"]))
        unmeasured = measured is None and source == "measured"
        want = None if unmeasured else expected(q, measured or {})
        ref = round(want, 4) if isinstance(want, float) else want
        row = {"id": q["id"], "answer": got, "reference": ref, "source": source}
        why = problems.get(q["id"])
        if why is not None:
            out.append({**row, "verdict": BLANK if why == NO_ANSWER else UNREADABLE, "problem": why})
            continue
        if unmeasured:
            out.append({**row, "verdict": NOT_JUDGED, "problem": NO_MEASUREMENT})
            continue
        if isinstance(want, str):
            ok = isinstance(got, str) and _plain_choice(got) == _plain_choice(want)
        else:
            tol = q.get("tolerance", 0.05)
            ok = isinstance(got, (int, float)) and abs(got - want) <= tol * abs(want) + 1e-12
        row["verdict"] = PASS if ok else FAIL
        if not ok and q.get("hint"):
            row["hint"] = q["hint"]
        out.append(row)
    return out


def submissions(folder: Path) -> list[Path]:
    """The answers files in a folder (check's own records left out)."""
    return [p for p in sorted(folder.glob("*.json")) if not p.name.endswith(VERDICTS_SUFFIX)]


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


def check_record(ex: dict, answers: dict, measured: dict[str, float], doubts: list[str], *,
                 verdicts: list[dict] | None = None, revealed: bool = False, host: dict | None = None,
                 when: str | None = None) -> dict:
    """The record `check` writes for these answers (judge.binding.make): bound to the student,
    their code, the answers file and this machine; verdicts only where the key is (a teacher's)."""
    return binding.make(ex["name"], answers.get("student"), answers.get("code"), answers["sha256"],
                        measured, doubts, reading(ex, answers), verdicts=verdicts, revealed=revealed,
                        host=host, when=when)


def _record_problem(ex: dict, data, answers: dict) -> str | None:
    """Why a check record cannot be graded against (it is the student's file: anything may be
    in it), or None."""
    if not isinstance(data, dict):
        return "is not a JSON object"
    if data.get("exercise") != ex["name"]:
        return f"is for exercise {plain(data.get('exercise'))[:40]!r}"
    why = binding.record_problem(data)
    if why:
        return why
    if student_key(data.get("student")) != student_key(answers.get("student")):
        return "names another student than the answers file"
    if data.get("code") != answers.get("code"):
        return "names another hand-out code than the answers file"
    m = data.get("measured")
    if not isinstance(m, dict):
        return "holds no measurement"
    if set(m) != set(ex.get("quantities", {})):
        return "does not hold this exercise's measured quantities"
    for k, v in m.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > MAX_ANSWER:
            return f"holds a {plain(k)} that is not a finite number"
    doubts = data.get("measurement_doubts", [])
    if not isinstance(doubts, list) or not all(isinstance(d, str) for d in doubts):
        return "holds measurement_doubts that are not a list of lines"
    for q in ex["questions"]:
        if "measured" in q.get("expected", {}):
            try:
                ref = evaluate(q["expected"]["measured"], m)
            except BadInput as e:
                return f"gives {q['id']} no reference ({e})"
            if not isinstance(ref, float) or not math.isfinite(ref):
                return f"gives {q['id']} no finite reference"
    return None


def own_check(ex: dict, path: Path, answers: dict) -> tuple[dict[str, float] | None, list[str], dict | None]:
    """The measurement the student's own `check` recorded beside their answers file, read as
    hostile (size-capped, never through a link, every value typed and finite, its seal and whose
    it is checked), or None; notes for the teacher (why it was not used, that it failed a
    fidelity gate, that the answers changed since); and the record as read, whatever it holds,
    for grade to compare with the class's (judge.binding.shared)."""
    rec_path = check_file_of(path)
    if not os.path.lexists(rec_path):
        return None, [], None
    try:
        data = read_json(rec_path, "check file", limit=MAX_ANSWERS_BYTES)
    except BadInput as e:
        return None, [f"own check not used: {e}"], None
    raw = data if isinstance(data, dict) else None
    why = _record_problem(ex, data, answers)
    if why:
        return None, [f"own check not used: {plain(rec_path.name)} {why}"], raw
    notes = ["own check's measurement failed a fidelity gate"] if data.get("measurement_doubts") else []
    if data.get("answers_sha256") != answers.get("sha256"):
        notes.append("the answers file changed after its check")
    return {k: float(v) for k, v in data["measured"].items()}, notes, raw


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
        if own_check(ex, path, answers)[0] is None:
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


def _judged_row(ex: dict, path: Path, measured: dict[str, float] | None, codes: dict | None,
                row: dict) -> dict | None:
    """Fill one student's row (verdicts, score, which measurement, problems); the check record
    as read, if any."""
    answers = read_answers(path, ex, partial=True)
    student = _student(answers)
    own, notes, record = own_check(ex, path, answers)
    use = own if own is not None else measured
    row["measurement"] = OWN_CHECK if own is not None else TEACHERS if measured is not None else NO_MEASURE
    row["_code"] = answers.get("code")
    verdicts = judge(ex, answers, use)
    for v in verdicts:
        row[v["id"]] = v["verdict"]
        row[f"{v['id']}_answer"] = "" if v["answer"] is None else plain(v["answer"])
        row["_answers"][v["id"]] = v["answer"]
    row["score"] = sum(v["verdict"] == PASS for v in verdicts)
    blank = [v["id"] for v in verdicts if v["verdict"] == BLANK]
    unmeasured = [v["id"] for v in verdicts if v["verdict"] == NOT_JUDGED]
    notes = binding.code_notes(ex["name"], student, answers.get("code"), codes) + \
        ([f"no answer to {', '.join(blank)}"] if blank else []) + \
        [f"{v['id']} unreadable: {v['problem']}" for v in verdicts if v["verdict"] == UNREADABLE] + notes
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
    return record


def grade(ex: dict, folder: Path, measured: dict[str, float] | None, out: Path,
          roster: list[str] | None = None, codes: dict | None = None) -> list[dict]:
    """Every *.json in folder, judged, into a CSV for the teacher: per question the student's
    answer and its verdict, the score out of the maximum, which measurement judged it (the
    student's own check beside the file when usable, else the teacher's `measured`, else none),
    and why a file or an answer could not be judged (a blank or unreadable answer costs that
    question, not the file), with what binds a file to its student flagged (judge.binding: a
    code dealt to another, with `codes`; a record edited, or from a classmate's machine
    session). Then a row of the references, one of the class (per question: passed, wrong,
    blank, unreadable, not judged, the common wrong answers), and a row for every roster name
    no file names. Returns the students' rows (raw answers under "_answers", not written)."""
    require_key(ex, "exercise grade")
    qs = ex["questions"]
    ids = [q["id"] for q in qs]
    rows, records = [], {}
    for path in submissions(folder):
        row = {"file": path.name, "student": "", "max": len(qs), "_answers": {}}
        try:
            record = _judged_row(ex, path, measured, codes, row)
            if record is not None:
                records[path.name] = record
        except BadInput as e:
            row.update({i: UNREADABLE for i in ids})
            row["score"] = 0
            row["problem"] = str(e)
        rows.append(row)
    names = [student_key(r["student"]) for r in rows if student_key(r["student"])]
    flags = binding.shared(records, {r["file"]: r.get("_code") for r in rows})
    for r in rows:
        extra = list(flags.get(r["file"], []))
        if student_key(r["student"]) and names.count(student_key(r["student"])) > 1:
            extra.append("the same student name as another file")
        r["problem"] = "; ".join(filter(None, [r["problem"], *extra]))
    summary = summarize(ex, rows)
    used = {m: sum(r.get("measurement") == m for r in rows) for m in (OWN_CHECK, TEACHERS, NO_MEASURE)}
    extra = [{"file": REFERENCE_ROW, "measurement": TEACHERS if measured is not None else NO_MEASURE,
              **{f"{q['id']}_answer": _shown(expected(q, measured)) if measured is not None
                 or "measured" not in q["expected"] else "(each student's own check)" for q in qs}},
             {"file": CLASS_ROW, "student": f"{len(rows)} files", "max": len(qs),
              **{s["id"]: counts_line(s) for s in summary},
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


COUNTED = {PASS: "passed", FAIL: "wrong", BLANK: "blank", UNREADABLE: "unreadable", NOT_JUDGED: "not_judged"}


def counts_line(s: dict) -> str:
    """One question's counts as grade prints them."""
    return (f"{s['passed']}/{s['total']} passed, {s['wrong']} wrong, {s['blank']} blank, "
            f"{s['unreadable']} unreadable, {s['not_judged']} not judged")


def summarize(ex: dict, rows: list[dict]) -> list[dict]:
    """Per question, over the graded rows: how many passed, were wrong, were blank, unreadable
    (an answer, or a whole file, that cannot be read) or not judged (no measurement), and the
    most common wrong answers with their counts."""
    out = []
    for q in ex["questions"]:
        verdicts = [r.get(q["id"], UNREADABLE) for r in rows]
        wrong = collections.Counter(_answer_key(r["_answers"].get(q["id"])) for r in rows
                                    if r.get(q["id"]) == FAIL)
        out.append({"id": q["id"], "text": q["text"], "unit": q.get("unit", ""),
                    "source": next(iter(q["expected"])), "total": len(rows),
                    **{name: verdicts.count(v) for v, name in COUNTED.items()},
                    "common_wrong": [(a, n) for a, n in wrong.most_common(COMMON_WRONG)]})
    return out


def _shown(v) -> str | float:
    return round(v, 4) if isinstance(v, float) else v


if __name__ == "__main__":
    write_schema(SCHEMA_FILE, SCHEMA)
    write_schema(KEY_SCHEMA_FILE, KEY_SCHEMA)
    print(f"wrote {SCHEMA_FILE} and {KEY_SCHEMA_FILE}")
