"""A synthetic class of 30 for one exercise, then its grades: what docs/teacher.md shows and
tests/unit/test_class.py grades without root.

    python3 examples/synthetic_class.py OUT [--exercise shared-hub] [--all-checked]
                                        [--teacher-measured FILE]

writes OUT/roster.txt (32 names: 2 never hand in), OUT/handout/ (the bundle `exercise handout`
writes: each student's template, choices in their own order) and OUT/class/: 30 answers files,
right, wrong, partial, blank, letter answers in the student's own order, typographic quotes, two
"your name" left in, one template made for a neighbour, one file that is not JSON; a third of the
students with the record their own `check` wrote (NAME.check.json, their machine's measurement a
few per cent from the solution's), one of them edited. With --all-checked every student has a
record, so `exercise grade` measures nothing and needs no root.

Then it grades: with every record present, through `emulate.py exercise grade` (no root); with
--teacher-measured FILE (e.g. exercises/NAME/solutions/measured.json), in-process against that
measurement; otherwise it prints the command that measures (root). The class is the same for the
same arguments (one seeded random generator).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge import exercise as ex_mod  # noqa: E402
from judge import handout  # noqa: E402

FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Radia", "Ken",
         "Margaret", "Dennis", "Sophie", "Linus", "Hedy", "Tim", "Karen", "Vint", "Shafi", "Niklaus",
         "Zoë", "Seán", "Mary", "Bjarne", "Adele", "Leslie", "Anita", "Guido", "Jean", "Whitfield",
         "Renée", "Ole"]
LAST = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Perlman",
        "Thompson", "Hamilton", "Ritchie", "Wilson", "Torvalds", "Lamarr", "Berners-Lee", "Spärck Jones",
        "Cerf", "Goldwasser", "Wirth", "O'Brien", "Ó Ceallaigh", "Kenneth", "Stroustrup", "Goldberg",
        "Lamport", "Borg", "van Rossum", "Sammet", "Diffie", "Péter", "Dahl"]
CLASS_SIZE, NEVER_HANDED_IN = 30, 2
CURLY = str.maketrans({"'": "\u2019"})

# what each of the 30 does, in roster order (the kinds the docs list)
PLAN = (["right"] * 7 + ["right-curly"] * 3 + ["letters"] * 4 + ["bare-letters"] * 2
        + ["wrong"] * 5 + ["partial"] * 3 + ["blank", "your-name", "your-name", "neighbour", "not-json", "wrong"])
CHECKED = {0, 2, 4, 7, 10, 12, 15, 17, 19, 22}        # plan positions with their own check record
TAMPERED = 19                                         # ... of which this one was edited


def roster() -> list[str]:
    return [f"{FIRST[i]} {LAST[i]}" for i in range(CLASS_SIZE + NEVER_HANDED_IN)]


def reference(ex: dict, measured: dict[str, float]) -> dict[str, object]:
    return {q["id"]: ex_mod.expected(q, measured) for q in ex["questions"]}


def wrong_value(q: dict, right, rng: random.Random):
    """A plausible mistake: for a choice another choice, for a number a common slip (a frame
    without its preamble and gap, a ratio upside down, one station instead of two)."""
    if "choices" in q:
        return rng.choice([c for c in q["choices"] if c != right])
    return rng.choice([right * 1538 / 1500, right / 2, right * 2, 1 / right if right else 1.0])


def answers_for(ex: dict, kind: str, name: str, right: dict, rng: random.Random,
                neighbour: str) -> dict:
    """One student's answers file as they would hand it in."""
    student = "your name" if kind == "your-name" else name
    qs = ex["questions"]
    chosen = {}
    for i, q in enumerate(qs):
        r = right[q["id"]]
        if isinstance(r, float):     # a student's figure: right to within a third of the tolerance
            r = round(r * (1 + rng.uniform(-1, 1) * q.get("tolerance", 0.05) / 3), 4)
        if kind == "wrong" and i % 2 == rng.randrange(2):
            r = wrong_value(q, right[q["id"]], rng)
            r = round(r, 4) if isinstance(r, float) else r
        if kind == "partial" and i >= len(qs) // 2:
            r = None
        if kind == "blank":
            r = None
        chosen[q["id"]] = r
    # "your name" left in: the class's generic template (answers-template.json), not their own
    template = ex_mod.template(ex, None if kind == "your-name" else neighbour if kind == "neighbour" else name)
    template["student"] = student
    for q in qs:
        a = chosen[q["id"]]
        if "choices" in q and isinstance(a, str):
            listed = template["answers"][q["id"]]["choices"]
            if kind in ("letters", "neighbour"):
                a = "abcdefgh"[listed.index(a)]
            elif kind == "bare-letters":
                a = "(" + "abcdefgh"[ex_mod.choice_order(ex["name"], name, q).index(a)] + ")"
            elif kind == "right-curly":
                a = a.translate(CURLY).capitalize()
        if kind == "bare-letters":
            template["answers"][q["id"]] = a
        else:
            template["answers"][q["id"]]["answer"] = a
    if kind == "bare-letters":
        return {"exercise": ex["name"], "student": student, "answers": template["answers"]}
    return template


def check_record(ex: dict, measured: dict[str, float], student: str, answers: dict) -> dict:
    """What `check` writes beside an answers file (the judge's own, no references)."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "a.json"
        path.write_text(json.dumps(answers))
        read = ex_mod.read_answers(path, ex, partial=True)
    verdicts = [{k: v for k, v in v.items() if k != "reference"} for v in ex_mod.judge(ex, read, measured)]
    return {"exercise": ex["name"], "student": student, "measured": measured, "measurement_doubts": [],
            "verdicts": verdicts}


def make(out: Path, name: str = "shared-hub", all_checked: bool = False, seed: int = 1996) -> dict:
    """Write the class into out (new or empty); return what was made: paths, which students
    checked and which record was edited."""
    rng = random.Random(seed)
    ex = ex_mod.load(name)
    base = json.loads((ex_mod.EXERCISES_DIR / name / "solutions" / "measured.json").read_text())
    names = roster()
    out.mkdir(parents=True, exist_ok=True)
    (out / "roster.txt").write_text("# the class, one a line\n" + "\n".join(names) + "\n")
    handout.write([name], out / "handout", names)
    files = handout.file_names(names)
    klass = out / "class"
    klass.mkdir()
    checked, tampered = [], None
    for i, kind in enumerate(PLAN):
        student = names[i]
        path = klass / files[student]
        if kind == "not-json":
            path.write_text('{"exercise": "' + name + '", "student": "' + student + '", "answers": {"q1": 81')
            continue
        has_check = all_checked or i in CHECKED
        own = {k: round(v * (1 + rng.uniform(-0.03, 0.03)), 3) for k, v in base.items()} if has_check else base
        if has_check and i == TAMPERED:
            own = {k: round(v * 0.6, 3) for k, v in own.items()}      # edited: a slower "machine"
            tampered = path.name
        answers = answers_for(ex, kind, student, reference(ex, own), rng, names[(i + 1) % len(names)])
        path.write_text(json.dumps(answers, indent=1, ensure_ascii=False) + "\n")
        if has_check:
            record = check_record(ex, own, answers["student"], answers)
            ex_mod.check_file_of(path).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
            checked.append(path.name)
    return {"exercise": ex, "roster": out / "roster.txt", "class": klass, "checked": checked,
            "tampered": tampered, "base": base}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="a new or empty folder")
    p.add_argument("--exercise", default="shared-hub")
    p.add_argument("--all-checked", action="store_true", help="every student hands in their own check record")
    p.add_argument("--teacher-measured", default=None, metavar="FILE",
                   help="grade in-process against this measurement (JSON: quantity -> number)")
    args = p.parse_args(argv)
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        p.error(f"{out} is not empty")
    made = make(out, args.exercise, args.all_checked)
    klass = made["class"]
    print(f"{len(list(klass.glob('*.json'))) - len(made['checked'])} answers files and "
          f"{len(made['checked'])} check records in {klass}; roster {made['roster']}")
    grade_argv = ["exercise", "grade", args.exercise, str(klass), "--roster", str(made["roster"]),
                  "--html", str(out / "class.html")]
    if args.teacher_measured:
        ex = made["exercise"]
        measured = json.loads(Path(args.teacher_measured).read_text())
        rows = ex_mod.grade(ex, klass, measured, klass / "grades.csv",
                            roster=ex_mod.read_roster(made["roster"]))
        from judge import classpage
        classpage.write(out / "class.html", classpage.render(ex, rows, measured,
                                                             ex_mod.read_roster(made["roster"])))
        for s in ex_mod.summarize(ex, rows):
            print(f"{s['id']}: {s['passed']}/{s['total']} passed, {s['wrong']} wrong, {s['missing']} missing"
                  + (f"; common wrong: {'; '.join(f'{a} ({n})' for a, n in s['common_wrong'])}"
                     if s["common_wrong"] else ""))
        print(f"grades: {klass / 'grades.csv'}; class page: {out / 'class.html'}")
        return 0
    if ex_mod.needs_measurement(made["exercise"], klass):
        print("some students have no check record: the grade measures once (root):\n"
              "  sudo python3 emulate.py " + " ".join(grade_argv))
        return 0
    import subprocess                 # the command line, as a teacher runs it (no root needed here)
    return subprocess.run([sys.executable, "-I", str(ROOT / "emulate.py"), *grade_argv]).returncode


if __name__ == "__main__":
    sys.exit(main())
