"""A class, end to end, without root (issue 32): the hand-out bundle (no solutions, never into
a used folder or through a link), each student's own choice order and how letters are read,
`check`'s record of what it measured, grading each student against their own record read as
hostile (and said when it is far from the teacher's), the class summary in the CSV and as a
page (every student's text escaped; rendered in headless Chromium), the Vagrantfile never
syncing solutions/, and the synthetic class of 30 (examples/synthetic_class.py) graded."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytest.importorskip("jsonschema")
pytest.importorskip("jinja2")

import commands  # noqa: E402
from core.errors import BadInput  # noqa: E402
from examples import synthetic_class  # noqa: E402
from judge import classpage, handout  # noqa: E402
from judge import exercise as ex_mod  # noqa: E402

HUB = "shared-hub"
SOLUTIONS = ex_mod.EXERCISES_DIR / HUB / "solutions"
TEACHER = json.loads((SOLUTIONS / "measured.json").read_text())


def hub() -> dict:
    return ex_mod.load(HUB)


def choice_questions(ex: dict) -> list[dict]:
    return [q for q in ex["questions"] if "choices" in q]


# -- choice order --------------------------------------------------------------------------------

def test_a_students_choice_order_is_theirs_and_neighbours_differ():
    ex = hub()
    q = choice_questions(ex)[0]
    mine = ex_mod.choice_order(HUB, "Ada Lovelace", q)
    assert sorted(mine) == sorted(q["choices"])
    assert ex_mod.choice_order(HUB, "  ada   LOVELACE ", q) == mine       # case and spacing aside
    assert ex_mod.choice_order(HUB, "your name", q) == q["choices"]       # no student: as listed
    assert ex_mod.choice_order(HUB, None, q) == q["choices"]
    names = synthetic_class.roster()
    for q in choice_questions(ex):
        orders = [ex_mod.choice_order(HUB, n, q) for n in names]
        same = sum(a == b for a, b in zip(orders, orders[1:]))
        assert same <= len(names) // 3, (q["id"], same)       # 3 choices: 1 in 6 by chance
        assert len({tuple(o) for o in orders}) == 6, q["id"]  # every order occurs in a class of 32


def test_a_letter_is_read_in_the_order_the_student_saw(tmp_path):
    ex = hub()
    q = choice_questions(ex)[0]
    right = q["expected"]["choice"]
    order = ex_mod.choice_order(HUB, "Grace Hopper", q)
    letter = "abc"[order.index(right)]
    bare = {"exercise": HUB, "student": "Grace Hopper", "answers": {q["id"]: letter}}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(bare))
    read = ex_mod.read_answers(path, ex, partial=True)
    assert read["answers"][q["id"]] == right and read["foreign_order"] == []
    # listed beside the answer (the template's form): that order, whatever the name gives
    listed = list(reversed(order))
    path.write_text(json.dumps({**bare, "answers": {q["id"]: {"choices": listed, "answer": "a"}}}))
    read = ex_mod.read_answers(path, ex, partial=True)
    assert read["answers"][q["id"]] == listed[0]
    if listed != q["choices"]:
        assert read["foreign_order"] == [q["id"]]
    # a list that is not the question's choices is ignored: the student's own order counts
    path.write_text(json.dumps({**bare, "answers": {q["id"]: {"choices": ["x", "y", "z"], "answer": letter}}}))
    assert ex_mod.read_answers(path, ex, partial=True)["answers"][q["id"]] == right


def test_a_personal_template_names_the_student_and_lists_their_order():
    ex = hub()
    mine = ex_mod.template(ex, "Edsger Dijkstra")
    assert mine["student"] == "Edsger Dijkstra" and "is yours" in mine["how"]
    for q in choice_questions(ex):
        assert mine["answers"][q["id"]]["choices"] == ex_mod.choice_order(HUB, "Edsger Dijkstra", q)
    assert ex_mod.template(ex) == ex_mod.template(ex, "your name")     # the class's generic one


# -- the hand-out ----------------------------------------------------------------------------------

def test_handout_writes_sheets_and_templates_and_nothing_of_the_teachers(tmp_path, capsys):
    roster = tmp_path / "roster.txt"
    roster.write_text("Ada Lovelace\n# a comment\nAlan Turing\n\nZoë O'Brien\n")
    out = tmp_path / "bundle"
    assert commands.main(["exercise", "handout", "--out", str(out), "--roster", str(roster)]) == 0
    assert "no solutions" in capsys.readouterr().out
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    names = list(ex_mod.exercise_dirs())
    assert "README.md" in files
    for name in names:
        for f in (handout.SHEET_HTML, handout.SHEET_MD, handout.TEMPLATE, "answers/Ada-Lovelace.json",
                  "answers/Alan-Turing.json", "answers/Zoë-O-Brien.json"):
            assert f"{name}/{f}" in files
    assert len(files) == 1 + 6 * len(names)
    assert not any("solutions" in f or f.endswith("check.json") for f in files)
    bundle = "\n".join((out / f).read_text() for f in files)
    for name in names:
        for sol in (ex_mod.EXERCISES_DIR / name / "solutions").iterdir():
            for value in re.findall(r'"(q\d+)": ("[^"]{12,}"|[\d.]{5,})', sol.read_text()):
                if value[1].startswith('"'):
                    continue          # a choice's text: every choice is on the sheet
                assert value[1] not in bundle, (name, sol.name, value)
        for q in ex_mod.load(name)["questions"]:
            for kind in ("formula", "measured"):
                expr = q["expected"].get(kind, "")
                if len(expr) >= 8 and re.search(r"[-+*/]", expr):      # not a bare count such as "1"
                    assert expr not in bundle, (name, q["id"])
    assert '"expected"' not in bundle and "why_tolerance" not in bundle
    ada = json.loads((out / HUB / "answers" / "Ada-Lovelace.json").read_text())
    assert ada == ex_mod.template(hub(), "Ada Lovelace")


@pytest.mark.parametrize("make,word", [
    (lambda d: (d.mkdir(), (d / "x").write_text("")), "not empty"),
    (lambda d: d.symlink_to(d.parent), "symbolic link"),
    (lambda d: d.write_text(""), "not a folder"),
])
def test_handout_refuses_a_used_folder_or_a_link(tmp_path, capsys, make, word):
    out = tmp_path / "bundle"
    make(out)
    before = sorted(tmp_path.rglob("*"))
    assert commands.main(["exercise", "handout", HUB, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert word in err and len(err.strip().splitlines()) == 1
    assert sorted(tmp_path.rglob("*")) == before


def test_handout_refuses_a_name_twice_and_an_unknown_exercise(tmp_path, capsys):
    roster = tmp_path / "roster.txt"
    roster.write_text("Ada Lovelace\nada  lovelace\n")
    assert commands.main(["exercise", "handout", "--out", str(tmp_path / "b"), "--roster", str(roster)]) == 2
    assert "twice" in capsys.readouterr().err and not (tmp_path / "b").exists()
    assert commands.main(["exercise", "handout", "ethernet-101", "--out", str(tmp_path / "b")]) == 2
    assert "exercise list" in capsys.readouterr().err and not (tmp_path / "b").exists()


def test_the_vagrantfile_never_syncs_solutions():
    """The lab VMs get the project by rsync with the Vagrantfile's excludes (and a class's
    hand-out, NETLAB_HANDOUT, with the same): run rsync with them over this project, dry, and no
    path under a solutions/ folder may be listed. labvm/ (CI's VM, python3 -m labvm) copies the
    whole project on purpose: its tests grade the solutions."""
    text = (ROOT / "Vagrantfile").read_text()
    never = json.loads(re.search(r"NETLAB_NEVER_SYNCED = (\[.*?\])", text).group(1))
    assert "exercises/*/solutions/" in never
    assert text.count("*NETLAB_NEVER_SYNCED") == 1 and "rsync__exclude: NETLAB_NEVER_SYNCED" in text
    assert 'synced_folder NETLAB_HANDOUT, "/home/vagrant/handout"' in text
    if not shutil.which("rsync"):
        pytest.skip("rsync is not installed")
    r = subprocess.run(["rsync", "-a", "--dry-run", "--out-format=%n", *[f"--exclude={e}" for e in never],
                        "--exclude=.git/", f"{ROOT}/exercises/", "/nonexistent-netlab-dest/"],
                       capture_output=True, text=True, timeout=60)
    listed = r.stdout.splitlines()
    assert any(line.endswith("check.json") for line in listed), r.stderr    # rsync did list the tree
    assert not [line for line in listed if "solutions" in line]


@pytest.mark.skipif(not shutil.which("vagrant"), reason="vagrant not installed")
def test_the_vagrantfile_takes_a_handout_folder(tmp_path):
    env = {**os.environ, "NETLAB_HANDOUT": str(tmp_path)}
    r = subprocess.run(["vagrant", "validate", "--ignore-provider"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["vagrant", "validate", "--ignore-provider"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, env={**env, "NETLAB_HANDOUT": str(tmp_path / "none")})
    assert r.returncode != 0 and "is not a folder" in r.stdout + r.stderr


# -- check's record ------------------------------------------------------------------------------------

def test_check_records_what_it_measured_but_prints_no_reference(tmp_path, monkeypatch, capsys):
    import commands.exercise as verb
    monkeypatch.setattr(verb, "measure", lambda ex, what, opts, out: (dict(TEACHER), []))
    mine = tmp_path / "ada.json"
    mine.write_text(json.dumps({**json.loads((SOLUTIONS / "answers.json").read_text()), "student": "Ada"}))
    assert commands.main(["exercise", "check", HUB, str(mine)]) == 0
    printed = capsys.readouterr().out
    assert "reference" not in printed
    record = json.loads((tmp_path / "ada.check.json").read_text())
    assert record["measured"] == TEACHER and record["student"] == "Ada"
    assert all("reference" not in v for v in record["verdicts"])
    own, notes = ex_mod.own_check(hub(), mine, "Ada")
    assert own == TEACHER and notes == []


# -- grading against a student's own record ------------------------------------------------------------

def one_student(folder: Path, record, answers: dict | None = None, name: str = "ada") -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(answers or {**json.loads((SOLUTIONS / "answers.json").read_text()),
                                           "student": "Ada"}))
    if record is not None:
        ex_mod.check_file_of(path).write_text(record if isinstance(record, str) else json.dumps(record))
    return path


def good_record(**change) -> dict:
    return {"exercise": HUB, "student": "Ada", "measured": dict(TEACHER), "measurement_doubts": [],
            "verdicts": [], **change}


@pytest.mark.parametrize("record,word", [
    ("not json", "not valid JSON"),
    ("[]", "not a JSON object"),
    (good_record(exercise="channel-bonding"), "is for exercise"),
    (good_record(student="Mallory"), "another student"),
    (good_record(measured=None), "holds no measurement"),
    (good_record(measured={"one_flow": 7.6}), "quantities"),
    (good_record(measured={**TEACHER, "extra": 1}), "quantities"),
    (good_record(measured={**TEACHER, "one_flow": "7.6"}), "not a finite number"),
    (good_record(measured={**TEACHER, "one_flow": True}), "not a finite number"),
    (good_record(measured={**TEACHER, "one_flow": 1e300}), "not a finite number"),
    ('{"exercise": "shared-hub", "student": "Ada", "measured": {"one_flow": NaN, "two_flows": 7}}', "NaN"),
    (good_record(measurement_doubts="x"), "measurement_doubts"),
    ("{" + " " * (ex_mod.MAX_ANSWERS_BYTES + 1) + "}", "larger than"),
])
def test_an_unusable_own_check_is_said_and_the_teachers_measurement_judges(tmp_path, record, word):
    path = one_student(tmp_path / "class", record)
    rows = ex_mod.grade(hub(), path.parent, TEACHER, tmp_path / "grades.csv")
    assert rows[0]["measurement"] == ex_mod.TEACHERS and word in rows[0]["problem"], rows[0]["problem"]
    assert "own check not used" in rows[0]["problem"] and rows[0]["score"] == len(hub()["questions"])
    assert ex_mod.needs_measurement(hub(), path.parent) == ["ada.json"]


def test_an_own_check_that_is_a_link_or_a_fifo_is_not_read(tmp_path):
    klass = tmp_path / "class"
    path = one_student(klass, None)
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(good_record()))
    ex_mod.check_file_of(path).symlink_to(secret)
    os.mkfifo(klass / "bob.check.json")
    one_student(klass, None, name="bob")
    rows = {r["file"]: r for r in ex_mod.grade(hub(), klass, TEACHER, tmp_path / "g.csv")}
    assert "symbolic link" in rows["ada.json"]["problem"] and rows["ada.json"]["measurement"] == ex_mod.TEACHERS
    assert "not a regular file" in rows["bob.json"]["problem"]


def test_an_own_check_far_from_the_teachers_is_said_and_still_judges(tmp_path):
    slow = {k: v * 0.6 for k, v in TEACHER.items()}
    ex = hub()
    answers = {"exercise": HUB, "student": "Ada",
               "answers": {q["id"]: ex_mod.expected(q, slow) for q in ex["questions"]}}
    path = one_student(tmp_path / "class", good_record(measured=slow), answers)
    row = ex_mod.grade(ex, path.parent, TEACHER, tmp_path / "g.csv")[0]
    assert row["measurement"] == ex_mod.OWN_CHECK and row["score"] == len(ex["questions"])
    assert "q2: own check gives" in row["problem"] and "3x its tolerance" in row["problem"]
    near = {k: v * 1.02 for k, v in TEACHER.items()}
    ex_mod.check_file_of(path).write_text(json.dumps(good_record(measured=near)))
    row = ex_mod.grade(ex, path.parent, TEACHER, tmp_path / "g.csv")[0]
    assert "tolerance" not in row["problem"]


def test_without_any_measurement_the_measured_questions_are_not_judged(tmp_path):
    path = one_student(tmp_path / "class", None)
    row = ex_mod.grade(hub(), path.parent, None, tmp_path / "g.csv")[0]
    measured = [q["id"] for q in hub()["questions"] if "measured" in q["expected"]]
    assert row["measurement"] == ex_mod.NO_MEASURE
    assert all(row[i] == ex_mod.MISSING for i in measured)
    assert row["score"] == len(hub()["questions"]) - len(measured)
    assert f"{', '.join(measured)} not judged" in row["problem"]
    rows = {r["file"]: r for r in csv.DictReader((tmp_path / "g.csv").open())}
    assert rows["(reference)"][f"{measured[0]}_answer"] == "(each student's own check)"


# -- the synthetic class of 30 ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    return synthetic_class.make(tmp_path_factory.mktemp("class"))


def test_the_synthetic_class_graded_against_the_teachers_measurement(klass, tmp_path):
    ex = klass["exercise"]
    roster = ex_mod.read_roster(klass["roster"])
    rows = {r["file"]: r for r in ex_mod.grade(ex, klass["class"], TEACHER, tmp_path / "g.csv", roster)}
    n = len(ex["questions"])
    assert len(rows) == 30 and len(roster) == 32
    plan = dict(zip(synthetic_class.roster(), synthetic_class.PLAN))
    files = handout.file_names(roster)
    by_kind: dict[str, list[dict]] = {}
    for name, kind in plan.items():
        by_kind.setdefault(kind, []).append(rows[files[name]])
    for kind in ("right", "right-curly", "letters", "bare-letters", "your-name", "neighbour"):
        assert all(r["score"] == n for r in by_kind[kind]), (kind, [r["problem"] for r in by_kind[kind]])
    assert all(0 < r["score"] < n for r in by_kind["partial"])
    assert all(r["score"] < n for r in by_kind["wrong"])
    assert by_kind["blank"][0]["score"] == 0 and "no answer to q1" in by_kind["blank"][0]["problem"]
    assert all("no student name" in r["problem"] for r in by_kind["your-name"])
    assert "another student's order" in by_kind["neighbour"][0]["problem"]
    assert "not valid JSON" in by_kind["not-json"][0]["problem"]
    tampered = rows[klass["tampered"]]
    assert tampered["measurement"] == ex_mod.OWN_CHECK and "3x its tolerance" in tampered["problem"]
    assert sum("3x its tolerance" in r["problem"] for r in rows.values()) == 1
    assert {r["file"] for r in rows.values() if r.get("measurement") == ex_mod.OWN_CHECK} == set(klass["checked"])
    assert ex_mod.absent(list(rows.values()), roster) == synthetic_class.roster()[30:]
    table = {r["file"] if r["file"] != "(none)" else r["student"]: r
             for r in csv.DictReader((tmp_path / "g.csv").open())}
    assert table["(class)"]["measurement"] == "own check 10, teacher's 19, none 0"
    assert re.fullmatch(r"\d+/30 passed, \d+ wrong, \d+ missing", table["(class)"]["q1"])
    assert table["(class)"]["q6_answer"].startswith("common wrong: ")
    assert {"Renée Péter", "Ole Dahl"} <= set(table)


def test_a_class_whose_every_student_checked_is_graded_without_root(tmp_path, monkeypatch, capsys):
    import commands.exercise as verb
    made = synthetic_class.make(tmp_path / "c", all_checked=True)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(verb, "measure", lambda *a: pytest.fail("measured with every own check present"))
    page = tmp_path / "class.html"
    assert commands.main(["exercise", "grade", HUB, str(made["class"]), "--roster", str(made["roster"]),
                          "--html", str(page)]) == 0
    out = capsys.readouterr()
    assert "measuring nothing" in out.err and re.search(r"^q1: \d+/30 passed", out.out, re.M)
    rows = list(csv.DictReader((made["class"] / "grades.csv").open()))
    students = [r for r in rows if not r["file"].startswith("(")]
    assert {r["measurement"] for r in students} == {ex_mod.OWN_CHECK, ""}      # "" = the file not JSON
    assert page.stat().st_mode & 0o777 == 0o600 and "Ole Dahl" in page.read_text()
    # --no-measure grades a class that lacks records, without root either
    partial = synthetic_class.make(tmp_path / "p")
    assert commands.main(["exercise", "grade", HUB, str(partial["class"]), "--no-measure"]) == 0
    rows = [r for r in csv.DictReader((partial["class"] / "grades.csv").open()) if not r["file"].startswith("(")]
    assert sum(r["measurement"] == ex_mod.NO_MEASURE for r in rows) == 19


# -- the class page ----------------------------------------------------------------------------------

HOSTILE = ['<script>alert("x")</script>', '<img src=x onerror=alert(1)>', "Zoë O'Brien & \"co\"",
           "</td></tr></table><h1>owned</h1>", "x" * 400]


def hostile_class(folder: Path) -> list[dict]:
    folder.mkdir()
    sol = json.loads((SOLUTIONS / "answers.json").read_text())
    for i, name in enumerate(HOSTILE):
        answers = dict(sol["answers"])
        answers["q1"] = 3 + i
        answers["q4"] = name                     # a choice that is not one: quoted in the problem
        (folder / f"s{i}.json").write_text(json.dumps({"exercise": HUB, "student": name, "answers": answers}))
    return ex_mod.grade(hub(), folder, TEACHER, folder / "grades.csv", roster=["<b>absent</b>"])


def test_the_class_page_escapes_everything_students_wrote(tmp_path):
    html = classpage.render(hub(), hostile_class(tmp_path / "class"), TEACHER, ["<b>absent</b>"])
    assert "<script" not in html and "<img" not in html and "<h1>owned" not in html and "<b>absent" not in html
    assert "&lt;script&gt;" in html and "&lt;b&gt;absent&lt;/b&gt;" in html
    assert "x" * 400 not in html                           # shortened on the page (the CSV has it all)
    for q in hub()["questions"]:
        assert f'id="{q["id"]}"' in html


BROWSER = next((b for b in (shutil.which("chromium-headless-shell"), "/usr/bin/chromium-headless-shell",
                            "/usr/lib/chromium/chromium-headless-shell") if b and Path(b).exists()), None)


@pytest.mark.skipif(BROWSER is None, reason="chromium-headless-shell is not installed (./setup.sh)")
@pytest.mark.parametrize("width", [420, 1400])
def test_the_class_page_renders_in_a_real_browser(klass, tmp_path, width):
    """The synthetic class's page and a hostile one, probed as the report page is
    (tests/unit/test_report_page.py): no sideways overflow on a phone, no script ran, no error."""
    from tests.unit.test_report_page import probe
    ex = klass["exercise"]
    roster = ex_mod.read_roster(klass["roster"])
    rows = ex_mod.grade(ex, klass["class"], TEACHER, tmp_path / "g.csv", roster)
    for name, page_rows in (("class", rows), ("hostile", hostile_class(tmp_path / "h"))):
        page = tmp_path / f"{name}.html"
        classpage.write(page, classpage.render(ex, page_rows, TEACHER, roster))
        found, console = probe(page, width, tmp_path)
        assert found["viewport"] and found["inner"] == width
        assert found["scroll"] <= found["inner"], (name, found["over"])
        assert not found["over"], (name, found["over"])
        assert not found["errors"] and not console, (name, found["errors"], console)
        assert found["fontPx"] >= 14
