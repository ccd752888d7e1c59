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

from beowulf_netlab import commands  # noqa: E402
from beowulf_netlab.core.errors import BadInput  # noqa: E402
from examples import synthetic_class  # noqa: E402
from beowulf_netlab.judge import binding, classpage, handout  # noqa: E402
from beowulf_netlab.judge import exercise as ex_mod  # noqa: E402

HUB = "shared-hub"
SOLUTIONS = ex_mod.EXERCISES_DIR / HUB / "solutions"
TEACHER = json.loads((SOLUTIONS / "measured.json").read_text())


def hub() -> dict:
    return ex_mod.load(HUB)


def choice_questions(ex: dict) -> list[dict]:
    return [q for q in ex["questions"] if "choices" in q]


# -- choice order --------------------------------------------------------------------------------

def codes_for(n: int) -> list[str]:
    """Hand-out codes as the hand-out deals them to a class of n, in roster order."""
    return [v["code"] for v in binding.deal([HUB], [f"student {i}" for i in range(n)])["exercises"][HUB].values()]


def test_a_students_choice_order_is_their_codes_and_neighbours_differ():
    ex = hub()
    codes = codes_for(32)
    for q in choice_questions(ex):
        orders = [ex_mod.dealt_order(ex, c, q) for c in codes]
        assert all(sorted(o) == sorted(q["choices"]) for o in orders)
        same = sum(a == b for a, b in zip(orders, orders[1:]))
        assert same == 0, (q["id"], same)                     # next on the roster: another order
        assert len({tuple(o) for o in orders}) == 6, q["id"]  # every order of three occurs
        assert ex_mod.dealt_order(ex, None, q) == q["choices"]            # no code: the sheet's order
        assert ex_mod.dealt_order(ex, "not a code", q) == q["choices"]


def all_choice_questions() -> list[tuple[str, dict]]:
    return [(name, q) for name in ex_mod.exercise_dirs() for q in choice_questions(ex_mod.load(name))]


def test_the_right_choice_takes_every_place_equally_over_a_class_of_30():
    """Issue 44: the right choice was last in 12 of 18 questions in the order every student saw.
    Over 30 students' dealt orders, for every multiple-choice question of every exercise, no place
    holds the right choice more than its fair share (30 / choices) plus one; and summed over all
    questions no place more than its share plus 2 %."""
    codes = codes_for(30)
    table, total = {}, {}
    for name, q in all_choice_questions():
        ex = ex_mod.load(name)
        right, n = q["expected"]["choice"], len(q["choices"])
        places = [ex_mod.dealt_order(ex, c, q).index(right) for c in codes]
        table[f"{name} {q['id']}"] = [places.count(i) for i in range(n)]
        assert max(table[f"{name} {q['id']}"]) <= -(-30 // n) + 1, (name, q["id"], table[f"{name} {q['id']}"])
        for i in range(n):
            total.setdefault(i, [0, 0.0])
            total[i][0] += places.count(i)
            total[i][1] += 30 / n
    for i, (count, fair) in total.items():
        assert count <= fair * 1.02 + 1, (i, count, fair)


def test_the_sheets_order_does_not_tell_the_right_choice():
    """The order the sheet and the generic template list (the one a student without a personal
    template sees): over all questions, no place holds the right choice more than its fair share
    plus one (it was last in 12 of 18)."""
    counts, fair = {}, {}
    for _, q in all_choice_questions():
        n = len(q["choices"])
        place = q["choices"].index(q["expected"]["choice"])
        counts[place] = counts.get(place, 0) + 1
        for i in range(n):
            fair[i] = fair.get(i, 0) + 1 / n
    assert all(counts.get(i, 0) <= fair[i] + 1 for i in fair), (counts, fair)


def test_a_letter_is_read_in_the_order_the_student_saw(tmp_path):
    ex = hub()
    q = choice_questions(ex)[0]
    right = q["expected"]["choice"]
    code = codes_for(5)[3]
    order = ex_mod.dealt_order(ex, code, q)
    letter = "abc"[order.index(right)]
    bare = {"exercise": HUB, "student": "Grace Hopper", "code": code, "answers": {q["id"]: letter}}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(bare))
    read = ex_mod.read_answers(path, ex, partial=True)
    assert read["answers"][q["id"]] == right and read["foreign_order"] == []
    # listed beside the answer (the template's form): that order, whatever the code deals
    listed = list(reversed(order))
    path.write_text(json.dumps({**bare, "answers": {q["id"]: {"choices": listed, "answer": "a"}}}))
    read = ex_mod.read_answers(path, ex, partial=True)
    assert read["answers"][q["id"]] == listed[0]
    if listed != q["choices"]:
        assert read["foreign_order"] == [q["id"]]
    # a list that is not the question's choices is ignored: the code's order counts
    path.write_text(json.dumps({**bare, "answers": {q["id"]: {"choices": ["x", "y", "z"], "answer": letter}}}))
    assert ex_mod.read_answers(path, ex, partial=True)["answers"][q["id"]] == right


def test_a_personal_template_names_the_student_and_lists_their_codes_order():
    ex = hub()
    code = codes_for(3)[2]
    mine = ex_mod.template(ex, "Edsger Dijkstra", code)
    assert mine["student"] == "Edsger Dijkstra" and mine["code"] == code and "is yours" in mine["how"]
    for q in choice_questions(ex):
        assert mine["answers"][q["id"]]["choices"] == ex_mod.dealt_order(ex, code, q)
    assert ex_mod.template(ex) == ex_mod.template(ex, "your name")     # the class's generic one
    assert "code" not in ex_mod.template(ex)


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
    for name in names:                   # no hint either: they are the key's
        for q in ex_mod.load(name)["questions"]:
            assert q["hint"] not in bundle, (name, q["id"])
    # the codes: beside the bundle (the teacher's, owner-only), one per student and exercise
    codes_file = binding.codes_path(out)
    assert codes_file.parent == out.parent and codes_file.stat().st_mode & 0o777 == 0o600
    codes = binding.read_codes(codes_file)["exercises"]
    ada = json.loads((out / HUB / "answers" / "Ada-Lovelace.json").read_text())
    assert ada == ex_mod.template(hub(), "Ada Lovelace", codes[HUB]["ada lovelace"]["code"])
    assert len({c["code"] for per in codes.values() for c in per.values()}) == 3 * len(names)


def test_handout_refuses_a_codes_file_inside_the_bundle(tmp_path, capsys):
    roster = tmp_path / "roster.txt"
    roster.write_text("Ada Lovelace\n")
    out = tmp_path / "bundle"
    assert commands.main(["exercise", "handout", HUB, "--out", str(out), "--roster", str(roster),
                          "--codes", str(out / "codes.json")]) == 2
    assert "inside the bundle" in capsys.readouterr().err and not out.exists()


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


def vm_files() -> list[str]:
    """What a student's lab VM gets of this project: rsync, dry, with the Vagrantfile's own
    excludes (the project's and the never-synced ones), as `vagrant up` syncs /vagrant."""
    text = (ROOT / "Vagrantfile").read_text()
    never = json.loads(re.search(r"NETLAB_NEVER_SYNCED = (\[.*?\])", text).group(1))
    base = re.findall(r'"([^"]+)"', re.search(r"rsync__exclude: \[(.*?)\*NETLAB_NEVER_SYNCED", text, re.S).group(1))
    r = subprocess.run(["rsync", "-a", "--dry-run", "--out-format=%n", *[f"--exclude={e}" for e in base + never],
                        f"{ROOT}/", "/nonexistent-netlab-dest/"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [line for line in r.stdout.splitlines() if not line.endswith("/")]


def test_the_vagrantfile_never_syncs_solutions():
    """The lab VMs get the project by rsync with the Vagrantfile's excludes (and a class's
    hand-out, NETLAB_HANDOUT, with the same): run rsync with them over this project, dry, and no
    path under a solutions/ folder, nor tests/ (they quote answers, and need the key to pass),
    may be listed. beowulf_netlab/labvm/ (CI's VM, python3 -m beowulf_netlab.labvm) copies the whole project on purpose: its
    tests grade the solutions."""
    text = (ROOT / "Vagrantfile").read_text()
    never = json.loads(re.search(r"NETLAB_NEVER_SYNCED = (\[.*?\])", text).group(1))
    assert {"beowulf_netlab/exercises/*/solutions/", "solutions/", "/tests/"} <= set(never)
    assert text.count("*NETLAB_NEVER_SYNCED") == 1 and "rsync__exclude: NETLAB_NEVER_SYNCED" in text
    assert 'synced_folder NETLAB_HANDOUT, "/home/vagrant/handout"' in text
    if not shutil.which("rsync"):
        pytest.skip("rsync is not installed")
    listed = vm_files()
    assert any(line.endswith("shared-hub/check.json") for line in listed)    # rsync did list the tree
    assert not [line for line in listed if "solutions" in line.split("/") or line.startswith("tests/")]


def reference_texts() -> dict[str, str]:
    """Every reference value as it would be written (text -> which question): each formula and
    measured answer (the stored median's and every recorded run's) to 3, 4 and 5 significant
    figures and as a percentage, each formula's text, and each right choice beside its
    question id."""
    out: dict[str, str] = {}
    for name in ex_mod.exercise_dirs():
        ex = ex_mod.load(name)
        sol = ex_mod.EXERCISES_DIR / name / "solutions"
        runs = [json.loads((sol / "measured.json").read_text())] + json.loads((sol / "runs.json").read_text())["runs"]
        for q in ex["questions"]:
            exp, where = q["expected"], f"{name} {q['id']}"
            if "choice" in exp:
                out[f"{q['id']}: {exp['choice']}"] = where
                out[f"\"{q['id']}\": \"{exp['choice']}\""] = where
                continue
            if len(exp.get("formula", "")) >= 8:
                out[exp["formula"]] = where
            if len(exp.get("measured", "")) >= 8:
                out[exp["measured"]] = where
            for measured in runs if "measured" in exp else runs[:1]:
                value = ex_mod.expected(q, measured)
                for digits in (3, 4, 5):
                    for shown in (f"{value:.{digits}g}", f"{100 * value:.{digits}g} %" if value < 1 else ""):
                        if len(re.sub(r"\D", "", shown).lstrip("0")) >= 3:       # "0.5" is not one
                            out[shown] = where
    return out


# What of a lab VM may state a number that happens to equal a reference: data that is no exercise's
# (the main job's measured figures, engine constants, papers' tables), checked by hand once.
NOT_EXERCISE_DATA = ("README.md", "docs/measured.json", *(f"beowulf_netlab/{d}/" for d in (
                         "netlab", "run", "workloads", "claims", "hardware", "experiments", "results", "topologies")),
                     "bench/", "engine/", "docs/papers.md",
                     "docs/emulation.md", "docs/time-scale.md", "docs/judging.md", "docs/platform.md")


@pytest.mark.skipif(not shutil.which("rsync"), reason="rsync is not installed")
def test_nothing_a_student_vm_holds_states_a_reference():
    """Issue 44: every file of the project a lab VM gets, read as a student would, states no
    reference value: no formula or measured answer (3-5 significant figures or as a percentage,
    against the stored median and every recorded run), no formula, no right choice beside its
    question (check.json's median 0.153 for shared-hub q3 passed check; docs/teacher.md showed a
    7/7 answer set). Numbers in data that is no exercise's are left to NOT_EXERCISE_DATA, except
    the README's classroom section, which is read."""
    refs = reference_texts()
    pattern = re.compile("|".join(rf"(?<![\w.]){re.escape(r)}(?![\d])" for r in sorted(refs, key=len, reverse=True)))
    found = []
    for rel in vm_files():
        path = ROOT / rel
        if path.suffix not in (".json", ".md", ".py", ".txt", ".html", ".j2", ".yml", ".sh", ".cff", ""):
            continue
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        if rel.startswith(NOT_EXERCISE_DATA):
            if rel != "README.md":
                continue
            text = re.search(r"^## Classroom exercises\n(.*?)(?=^## )", text, re.S | re.M).group(1)
        found += [f"{rel}: {m.group(0)!r} ({refs[m.group(0)]})" for m in pattern.finditer(text)]
    assert found == []


def test_the_docs_screenshot_is_of_a_made_up_class():
    """docs/class-page.png showed every shared-hub reference; it is now the made-up exercise's
    page (examples/made-up-exercise), made by python3 -m tests.unit.test_class docs."""
    assert (ROOT / "docs" / "class-page.png").stat().st_size > 10_000
    teacher = (ROOT / "docs" / "teacher.md").read_text()
    assert "made-up" in teacher and "![" in teacher


@pytest.mark.skipif(not shutil.which("vagrant"), reason="vagrant not installed")
def test_the_vagrantfile_takes_a_handout_folder(tmp_path):
    env = {**os.environ, "NETLAB_HANDOUT": str(tmp_path)}
    r = subprocess.run(["vagrant", "validate", "--ignore-provider"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["vagrant", "validate", "--ignore-provider"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, env={**env, "NETLAB_HANDOUT": str(tmp_path / "none")})
    assert r.returncode != 0 and "is not a folder" in r.stdout + r.stderr


# -- check on a student's machine ------------------------------------------------------------------

HOST = {"machine_id": "m" * 32, "boot_id": "b" * 32, "hostname": "netlab1"}


@pytest.fixture
def student_vm(tmp_path, monkeypatch):
    """beowulf_netlab/exercises/ as a lab VM holds it (no solutions/), with check's measurement faked (no root,
    no network) as the stored solution's median."""
    import beowulf_netlab.commands.exercise as verb
    vm = tmp_path / "vm-exercises"
    shutil.copytree(ex_mod.EXERCISES_DIR, vm, ignore=shutil.ignore_patterns("solutions"))
    monkeypatch.setattr(ex_mod, "EXERCISES_DIR", vm)
    monkeypatch.setattr(verb, "measure", lambda ex, what, opts, out: (dict(TEACHER), []))
    monkeypatch.setattr(binding, "machine", lambda: dict(HOST))
    return vm


def solution(student: str = "Ada", **answers) -> dict:
    data = json.loads((SOLUTIONS / "answers.json").read_text())
    return {**data, "student": student, "answers": {**data["answers"], **answers}}


def test_check_on_a_students_machine_says_how_answers_read_and_nothing_of_right_or_wrong(
        student_vm, tmp_path, capsys):
    assert not ex_mod.has_key(hub())
    mine = tmp_path / "ada.json"
    mine.write_text(json.dumps(solution(q2=None, q5="18,8 Mbit/s", q6="1,538")))
    assert commands.main(["exercise", "check", HUB, str(mine)]) == 1     # a blank, an unreadable
    out = capsys.readouterr().out
    for word in ("pass", "wrong", "correct", "reference", "hint"):
        assert word not in out, word
    assert re.search(r"^q2: blank$", out, re.M) and re.search(r"^q6: unreadable: .*two ways", out, re.M)
    assert "q5: answered 18.8 Mbit/s (written '18,8 Mbit/s')" in out
    assert "5/7 answered" in out and "hand it in with ada.json" in out
    record = json.loads((tmp_path / "ada.check.json").read_text())
    assert "verdicts" not in record and record["measured"] == TEACHER and record["student"] == "Ada"
    assert record["machine"] == HOST and record["seal"] == binding.seal(record)
    assert record["answers"]["q2"] == "blank" and record["answers"]["q6"].startswith("unreadable")
    text = (tmp_path / "ada.check.json").read_text()
    for q in json.loads((SOLUTIONS / "key.json").read_text())["questions"].values():
        assert q.get("hint", "-") not in text and json.dumps(q["expected"])[1:-1] not in text
    mine.write_text(json.dumps(solution()))
    assert commands.main(["exercise", "check", HUB, str(mine)]) == 0     # all read, measured cleanly


def test_check_reads_a_partial_file_as_grade_does(student_vm, tmp_path, capsys, monkeypatch):
    """check refused a partial file (exit 2) that grade accepted: now both read it the same way."""
    partial = tmp_path / "p.json"
    partial.write_text(json.dumps({"exercise": HUB, "student": "Ada", "answers": {"q1": "812,7"}}))
    assert commands.main(["exercise", "check", HUB, str(partial)]) == 1
    record = json.loads((tmp_path / "p.check.json").read_text())
    read = record["answers"]
    monkeypatch.setattr(ex_mod, "EXERCISES_DIR", SOLUTIONS.parent.parent)      # the teacher's, with the key
    row = ex_mod.grade(hub(), tmp_path, None, tmp_path / "g.csv")[0]
    for qid, how in read.items():
        assert (how == "answered") == (row[qid] in (ex_mod.PASS, ex_mod.FAIL)), (qid, how, row[qid])
        assert (how == "blank") == (row[qid] == ex_mod.BLANK), (qid, how, row[qid])
    assert row["measurement"] == ex_mod.OWN_CHECK and row["q1"] == ex_mod.PASS


@pytest.mark.parametrize("argv", [["check", HUB, "{a}", "--reveal"], ["grade", HUB, "{d}"],
                                  ["show", HUB, "--solutions"]])
def test_what_needs_the_key_is_refused_on_a_students_machine(student_vm, tmp_path, capsys, argv):
    """--reveal printed every reference, and grade took the record it wrote: without the key
    (a student's machine) it, grade and show --solutions are one line, exit 2, before measuring."""
    import beowulf_netlab.commands.exercise as verb
    (tmp_path / "a.json").write_text(json.dumps(solution()))
    verb.measure = lambda *a: pytest.fail("measured before refusing")
    args = [a.replace("{a}", str(tmp_path / "a.json")).replace("{d}", str(tmp_path)) for a in argv]
    assert commands.main(["exercise", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "only in a teacher's checkout" in err
    assert not (tmp_path / "a.check.json").exists()


def test_check_in_a_teachers_checkout_judges_and_its_reveal_record_is_not_graded(tmp_path, monkeypatch, capsys):
    import beowulf_netlab.commands.exercise as verb
    monkeypatch.setattr(verb, "measure", lambda ex, what, opts, out: (dict(TEACHER), []))
    mine = tmp_path / "ada.json"
    mine.write_text(json.dumps(solution()))
    assert commands.main(["exercise", "check", HUB, str(mine)]) == 0
    printed = capsys.readouterr().out
    assert "7/7 correct" in printed and "reference" not in printed
    record = json.loads((tmp_path / "ada.check.json").read_text())
    assert all(v["verdict"] == ex_mod.PASS and "reference" not in v for v in record["verdicts"])
    assert ex_mod.own_check(hub(), mine, ex_mod.read_answers(mine, hub()))[0] == TEACHER
    assert commands.main(["exercise", "check", HUB, str(mine), "--reveal"]) == 0
    assert "reference" in capsys.readouterr().out
    own, notes, _ = ex_mod.own_check(hub(), mine, ex_mod.read_answers(mine, hub()))
    assert own is None and "check --reveal" in notes[0]


# -- numbers as students write them --------------------------------------------------------------------

@pytest.mark.parametrize("text,unit,value", [
    ("812,7", "frames/s", 812.7), ("0,153", "", 0.153), ("812.7 frames/s", "frames/s", 812.7),
    ("18,83 Mbit/s", "Mbit/s", 18.83), ("18.8 Mbps", "Mbit/s", 18.8), ("2.4 MB/s", "MB/s", 2.4),
    ("1,234.5", "", 1234.5), ("1.234,5", "", 1234.5), ("1,234,567", "", 1234567.0), ("15.3 %", "", 0.153),
    ("  -0,5 ", "", -0.5), ("40 \u00b5s", "us", 40.0), ("3e2", "", 300.0), (812.7, "frames/s", 812.7),
])
def test_numbers_are_read_where_unambiguous(text, unit, value):
    got, why = ex_mod.read_number(text, unit)
    assert why is None and got == pytest.approx(value), (text, why)


@pytest.mark.parametrize("text,unit,word", [
    ("1,538", "frames/s", "two ways"), ("812,744", "", "two ways"), ("18.8 MB/s", "Mbit/s", "in MB/s"),
    ("18.8 Mb/s", "MB/s", "in Mbit/s"), ("15 %", "Mbit/s", "asks Mbit/s"), ("about 800", "", "takes a number"),
    ("1.2.3", "", "two ways"), ("8 parsecs", "", "'parsecs'"), (True, "", "takes a number"), ("nan", "", "number"),
])
def test_numbers_that_could_be_read_two_ways_or_in_another_unit_are_unreadable(text, unit, word):
    got, why = ex_mod.read_number(text, unit)
    assert got is None and word in why, (text, why)


# -- grading against a student's own record ------------------------------------------------------------

def one_student(folder: Path, record=None, answers: dict | None = None, name: str = "ada", **change) -> Path:
    """An answers file in folder and, unless record is False, a check record beside it: check's
    own (sealed) for record=None, changed by **change and sealed again (what check could have
    written), or the text given."""
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(answers or solution()))
    if record is False:
        return path
    if record is None:
        made = ex_mod.check_record(hub(), ex_mod.read_answers(path, hub(), partial=True), dict(TEACHER), [],
                                   host=dict(HOST))
        made.update(change)
        made["seal"] = binding.seal(made)
        record = made
    ex_mod.check_file_of(path).write_text(record if isinstance(record, str) else json.dumps(record))
    return path


@pytest.mark.parametrize("record,change,word", [
    ("not json", {}, "not valid JSON"),
    ("[]", {}, "not a JSON object"),
    (None, {"exercise": "channel-bonding"}, "is for exercise"),
    (None, {"student": "Mallory"}, "another student"),
    (None, {"code": "3-0badc0de"}, "another hand-out code"),
    (None, {"measured": None}, "holds no measurement"),
    (None, {"measured": {"one_flow": 7.6}}, "quantities"),
    (None, {"measured": {**TEACHER, "extra": 1}}, "quantities"),
    (None, {"measured": {**TEACHER, "one_flow": "7.6"}}, "not a finite number"),
    (None, {"measured": {**TEACHER, "one_flow": True}}, "not a finite number"),
    (None, {"measured": {**TEACHER, "one_flow": 1e300}}, "not a finite number"),
    (None, {"measurement_doubts": "x"}, "measurement_doubts"),
    (None, {"machine": "netlab1"}, "names no machine"),
    (None, {"revealed": True}, "check --reveal"),
    (None, {"format": 1}, "older check"),
    ('{"exercise": "shared-hub", "student": "Ada", "measured": {"one_flow": NaN, "two_flows": 7}}', {}, "NaN"),
    ("{" + " " * (ex_mod.MAX_ANSWERS_BYTES + 1) + "}", {}, "larger than"),
])
def test_an_unusable_own_check_is_said_and_the_teachers_measurement_judges(tmp_path, record, change, word):
    path = one_student(tmp_path / "class", record, **change)
    rows = ex_mod.grade(hub(), path.parent, TEACHER, tmp_path / "grades.csv")
    assert rows[0]["measurement"] == ex_mod.TEACHERS and word in rows[0]["problem"], rows[0]["problem"]
    assert "own check not used" in rows[0]["problem"] and rows[0]["score"] == len(hub()["questions"])
    assert ex_mod.needs_measurement(hub(), path.parent) == ["ada.json"]


def test_an_edited_record_is_flagged_and_not_used(tmp_path):
    """A measurement changed by hand (to make a wrong answer pass): the seal no longer matches."""
    path = one_student(tmp_path / "class")
    record = json.loads(ex_mod.check_file_of(path).read_text())
    record["measured"] = {k: v * 1.3 for k, v in record["measured"].items()}
    ex_mod.check_file_of(path).write_text(json.dumps(record))
    row = ex_mod.grade(hub(), path.parent, TEACHER, tmp_path / "g.csv")[0]
    assert row["measurement"] == ex_mod.TEACHERS and "edited after check" in row["problem"]


def test_a_copied_record_with_the_name_changed_is_flagged(tmp_path):
    """Issue 44: a student who copied a classmate's answers and check record and put their own name
    in both got 7/7 unflagged. Now the record's seal, its machine session (the classmate's) and,
    with the codes file, the hand-out code (dealt to the classmate) each flag it; the classmate's
    file is flagged too, for the teacher to ask both."""
    klass = tmp_path / "class"
    codes = binding.deal([HUB], ["Ada Lovelace", "Bob Smith"])
    ada_code = codes["exercises"][HUB]["ada lovelace"]["code"]
    ada = one_student(klass, None, {**solution("Ada Lovelace"), "code": ada_code}, name="ada")
    bob = klass / "bob.json"
    bob.write_text(json.dumps({**json.loads(ada.read_text()), "student": "Bob Smith"}))
    copied = json.loads(ex_mod.check_file_of(ada).read_text())
    ex_mod.check_file_of(bob).write_text(json.dumps({**copied, "student": "Bob Smith"}))
    rows = {r["file"]: r for r in ex_mod.grade(hub(), klass, TEACHER, tmp_path / "g.csv", codes=codes)}
    problem = rows["bob.json"]["problem"]
    assert "edited after check" in problem                                   # the name in the record
    assert "dealt to Ada Lovelace" in problem                                # the code in the answers
    assert "same machine session as ada.json" in problem and "the same hand-out code as ada.json" in problem
    assert "same machine session as bob.json" in rows["ada.json"]["problem"]
    # the name changed in the answers only, the record resealed by someone who knows how: the
    # record's session and the code still tell
    ex_mod.check_file_of(bob).write_text(json.dumps(
        {**copied, "student": "Bob Smith", "answers_sha256": ex_mod.read_answers(bob, hub())["sha256"],
         "seal": binding.seal({**copied, "student": "Bob Smith",
                               "answers_sha256": ex_mod.read_answers(bob, hub())["sha256"]})}))
    rows = {r["file"]: r for r in ex_mod.grade(hub(), klass, TEACHER, tmp_path / "g.csv", codes=codes)}
    assert rows["bob.json"]["measurement"] == ex_mod.OWN_CHECK
    assert "same machine session as ada.json" in rows["bob.json"]["problem"]
    assert "dealt to Ada Lovelace" in rows["bob.json"]["problem"]


def test_answers_changed_after_their_check_are_said(tmp_path):
    path = one_student(tmp_path / "class")
    path.write_text(json.dumps(solution(q1=800)))
    row = ex_mod.grade(hub(), path.parent, TEACHER, tmp_path / "g.csv")[0]
    assert row["measurement"] == ex_mod.OWN_CHECK and "changed after its check" in row["problem"]


def test_an_own_check_that_is_a_link_or_a_fifo_is_not_read(tmp_path):
    klass = tmp_path / "class"
    path = one_student(klass, False)
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"exercise": HUB}))
    ex_mod.check_file_of(path).symlink_to(secret)
    os.mkfifo(klass / "bob.check.json")
    one_student(klass, False, name="bob")
    rows = {r["file"]: r for r in ex_mod.grade(hub(), klass, TEACHER, tmp_path / "g.csv")}
    assert "symbolic link" in rows["ada.json"]["problem"] and rows["ada.json"]["measurement"] == ex_mod.TEACHERS
    assert "not a regular file" in rows["bob.json"]["problem"]


def test_an_own_check_far_from_the_teachers_is_said_and_still_judges(tmp_path):
    slow = {k: v * 0.6 for k, v in TEACHER.items()}
    ex = hub()
    answers = {"exercise": HUB, "student": "Ada",
               "answers": {q["id"]: ex_mod.expected(q, slow) for q in ex["questions"]}}
    path = one_student(tmp_path / "class", None, answers, measured=slow)
    row = ex_mod.grade(ex, path.parent, TEACHER, tmp_path / "g.csv")[0]
    assert row["measurement"] == ex_mod.OWN_CHECK and row["score"] == len(ex["questions"])
    assert "q2: own check gives" in row["problem"] and "3x its tolerance" in row["problem"]
    near = {k: v * 1.02 for k, v in TEACHER.items()}
    path = one_student(tmp_path / "class", None, answers, measured=near)
    row = ex_mod.grade(ex, path.parent, TEACHER, tmp_path / "g.csv")[0]
    assert "tolerance" not in row["problem"]


def test_without_any_measurement_the_measured_questions_are_not_judged(tmp_path):
    path = one_student(tmp_path / "class", False)
    row = ex_mod.grade(hub(), path.parent, None, tmp_path / "g.csv")[0]
    measured = [q["id"] for q in hub()["questions"] if "measured" in q["expected"]]
    assert row["measurement"] == ex_mod.NO_MEASURE
    assert all(row[i] == ex_mod.NOT_JUDGED for i in measured)
    assert row["score"] == len(hub()["questions"]) - len(measured)
    assert f"{', '.join(measured)} not judged" in row["problem"]
    rows = {r["file"]: r for r in csv.DictReader((tmp_path / "g.csv").open())}
    assert rows["(reference)"][f"{measured[0]}_answer"] == "(each student's own check)"


def test_blank_unreadable_and_not_judged_are_counted_apart(tmp_path):
    klass = tmp_path / "class"
    one_student(klass, False, solution("Ada", q1=None), name="ada")
    one_student(klass, False, solution("Bob", q1="1,538"), name="bob")
    (klass / "eve.json").write_text("{")
    rows = ex_mod.grade(hub(), klass, None, tmp_path / "g.csv")
    s = {x["id"]: x for x in ex_mod.summarize(hub(), rows)}
    assert (s["q1"]["blank"], s["q1"]["unreadable"], s["q1"]["passed"]) == (1, 2, 0)
    assert s["q2"]["not_judged"] == 2 and s["q2"]["unreadable"] == 1
    assert ex_mod.counts_line(s["q1"]) == "0/3 passed, 0 wrong, 1 blank, 2 unreadable, 0 not judged"


# -- the synthetic class of 30 ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    return synthetic_class.make(tmp_path_factory.mktemp("class"))


def test_the_synthetic_class_graded_against_the_teachers_measurement(klass, tmp_path):
    ex = klass["exercise"]
    roster = ex_mod.read_roster(klass["roster"])
    codes = binding.read_codes(klass["codes"])
    rows = {r["file"]: r for r in ex_mod.grade(ex, klass["class"], TEACHER, tmp_path / "g.csv", roster, codes)}
    n = len(ex["questions"])
    assert len(rows) == 30 and len(roster) == 32
    plan = dict(zip(synthetic_class.roster(), synthetic_class.PLAN))
    files = handout.file_names(roster)
    by_kind: dict[str, list[dict]] = {}
    for name, kind in plan.items():
        by_kind.setdefault(kind, []).append(rows[files[name]])
    for kind in ("right", "right-curly", "letters", "bare-letters", "your-name", "neighbour", "copied"):
        assert all(r["score"] == n for r in by_kind[kind]), (kind, [r["problem"] for r in by_kind[kind]])
    assert all(0 < r["score"] < n for r in by_kind["partial"])
    assert all(r["score"] < n for r in by_kind["wrong"])
    assert by_kind["blank"][0]["score"] == 0 and "no answer to q1" in by_kind["blank"][0]["problem"]
    written = by_kind["written"][0]
    assert "unreadable" in written["problem"] and written["score"] == n - written["problem"].count(" unreadable: ")
    assert all("no student name" in r["problem"] for r in by_kind["your-name"])
    assert "dealt to" in by_kind["neighbour"][0]["problem"]
    assert "not valid JSON" in by_kind["not-json"][0]["problem"]
    assert "3x its tolerance" in rows[klass["slow"]]["problem"]
    assert sum("3x its tolerance" in r["problem"] for r in rows.values()) == 1
    assert "edited after check" in rows[klass["edited"]]["problem"]
    copied = rows[klass["copied"]]["problem"]
    assert "edited after check" in copied and "same machine session" in copied and "dealt to" in copied
    assert "same machine session" in rows[klass["copied_from"]]["problem"]
    flagged = {f for f, r in rows.items() if "flagged" in r["problem"]}
    assert flagged == {klass["copied"], klass["copied_from"], files[synthetic_class.roster()[plan_index("neighbour")]]}
    usable = set(klass["checked"]) - {klass["edited"], klass["copied"]}
    assert {r["file"] for r in rows.values() if r.get("measurement") == ex_mod.OWN_CHECK} == usable
    assert ex_mod.absent(list(rows.values()), roster) == synthetic_class.roster()[30:]
    table = {r["file"] if r["file"] != "(none)" else r["student"]: r
             for r in csv.DictReader((tmp_path / "g.csv").open())}
    assert table["(class)"]["measurement"] == f"own check {len(usable)}, teacher's {29 - len(usable)}, none 0"
    assert re.fullmatch(r"\d+/30 passed, \d+ wrong, \d+ blank, \d+ unreadable, 0 not judged", table["(class)"]["q1"])
    assert table["(class)"]["q6_answer"].startswith("common wrong: ")
    assert {"Renée Péter", "Ole Dahl"} <= set(table)


def plan_index(kind: str) -> int:
    return synthetic_class.PLAN.index(kind)


def test_a_class_whose_every_student_checked_is_graded_without_root(tmp_path, monkeypatch, capsys):
    import beowulf_netlab.commands.exercise as verb
    made = synthetic_class.make(tmp_path / "c", all_checked=True)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(verb, "measure", lambda *a: pytest.fail("measured with every own check present"))
    page = tmp_path / "class.html"
    assert commands.main(["exercise", "grade", HUB, str(made["class"]), "--roster", str(made["roster"]),
                          "--codes", str(made["codes"]), "--html", str(page)]) == 0
    out = capsys.readouterr()
    assert "measuring nothing" in out.err and re.search(r"^q1: \d+/30 passed", out.out, re.M)
    rows = list(csv.DictReader((made["class"] / "grades.csv").open()))
    students = [r for r in rows if not r["file"].startswith("(")]
    assert {r["measurement"] for r in students} == {ex_mod.OWN_CHECK, ""}      # "" = the file not JSON
    assert sum("flagged" in r["problem"] for r in students) == 1               # the neighbour's template
    assert page.stat().st_mode & 0o777 == 0o600 and "Ole Dahl" in page.read_text()
    # --no-measure grades a class that lacks records, without root either
    partial = synthetic_class.make(tmp_path / "p")
    assert commands.main(["exercise", "grade", HUB, str(partial["class"]), "--no-measure"]) == 0
    assert "no --codes" in capsys.readouterr().err
    rows = [r for r in csv.DictReader((partial["class"] / "grades.csv").open()) if not r["file"].startswith("(")]
    assert sum(r["measurement"] == ex_mod.NO_MEASURE for r in rows) == 29 - len(
        set(partial["checked"]) - {partial["edited"], partial["copied"]})


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


# -- the docs' class: a made-up exercise -------------------------------------------------------------

MADE_UP = ROOT / "examples" / "made-up-exercise"


def made_up_class(out: Path) -> tuple[dict, list[dict], dict[str, float], list[str]]:
    """The synthetic class on the made-up exercise, graded against its made-up measurement: what
    docs/teacher.md and docs/class-page.png show, so no doc gives a real answer away."""
    made = synthetic_class.make(out, str(MADE_UP))
    roster = ex_mod.read_roster(made["roster"])
    rows = ex_mod.grade(made["exercise"], made["class"], made["base"], out / "grades.csv", roster,
                        binding.read_codes(made["codes"]))
    return made, rows, made["base"], roster


def test_the_made_up_class_grades_and_shares_nothing_with_a_real_exercise(tmp_path):
    made, rows, _, _ = made_up_class(tmp_path)
    assert made["exercise"]["name"] not in ex_mod.exercise_dirs() and len(rows) == 30
    assert sum(r["score"] == len(made["exercise"]["questions"]) for r in rows) >= 10
    assert "dealt to" in {r["file"]: r for r in rows}[made["copied"]]["problem"]
    real = {q["text"] for name in ex_mod.exercise_dirs() for q in ex_mod.load(name)["questions"]}
    assert not real & {q["text"] for q in made["exercise"]["questions"]}


def main(argv: list[str]) -> int:
    """docs/class-page.png (or the path given): the made-up class's page at 1000 px."""
    from tests.unit.test_report_page import screenshot
    import tempfile
    if BROWSER is None:
        print("chromium-headless-shell is not installed", file=sys.stderr)
        return 2
    dest = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "class-page.png"
    with tempfile.TemporaryDirectory() as tmp:
        made, rows, measured, roster = made_up_class(Path(tmp) / "class")
        page = Path(tmp) / "class.html"
        classpage.write(page, classpage.render(made["exercise"], rows, measured, roster, when="2026-11-27 15:15"))
        screenshot(page, 1000, dest, height=1700)
    print(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
