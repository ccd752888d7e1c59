"""A synthetic class of 30 for one exercise, then its grades: what docs/teacher.md shows and
tests/unit/test_class.py grades without root.

    python3 examples/synthetic_class.py OUT [--exercise shared-hub | --exercise FOLDER]
                                        [--all-checked] [--teacher-measured FILE]

writes OUT/roster.txt (32 names: 2 never hand in), OUT/handout/ (the bundle `exercise handout`
writes: each student's template with their code, choices in the order it deals) and
OUT/handout.codes.json (the teacher's codes), and OUT/class/: 30 answers files, right, wrong,
partial, blank, unreadable ("123,4" reads; "1,538" and a wrong unit do not), letter answers in the
student's own order, typographic quotes, two "your name" left in, one template made for a
neighbour, one file that is not JSON, and one student who copied a classmate's answers and
check record and put their own name in both; a third of the students with the record their own
`check` wrote (NAME.check.json, their machine's measurement a few per cent from the solution's),
one from a machine 40 % slower, one edited after check. With --all-checked every student has a
record of their own, none edited or copied, so `exercise grade` measures nothing and needs no root.

--exercise takes an exercise's name or a folder: examples/made-up-exercise is a made-up one,
so the pages and outputs the docs show give away no real answer.

Then it grades: with every record present, through `emulate.py exercise grade` (no root); with
--teacher-measured FILE (e.g. beowulf_netlab/exercises/NAME/solutions/measured.json), in-process against that
measurement; otherwise it prints the command that measures (root). The class is the same for the
same arguments (one seeded random generator).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from beowulf_netlab.judge import binding, handout  # noqa: E402
from beowulf_netlab.judge import exercise as ex_mod  # noqa: E402

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
        + ["wrong"] * 4 + ["partial"] * 3 + ["blank", "your-name", "your-name", "neighbour", "not-json", "written"]
        + ["copied"])
CHECKED = {0, 2, 4, 7, 10, 12, 15, 17, 19, 22}        # plan positions with their own check record
SLOW = 19                                             # ... of which this one's machine is 40 % slower
EDITED = 22                                           # ... and this one was edited after check
COPIED_FROM = 0                                       # whose answers and record "copied" hands in as theirs


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


def written(value: float, i: int, unit: str) -> str:
    """A number as a student may write it: a decimal comma ("123,4"), its unit after it ("45.67
    Mbit/s", or "12.5 %" without one), or a unit no question asks (unreadable), in turn."""
    if i % 3 == 0:
        for digits in (4, 5, 6):
            text = f"{value:.{digits}g}".replace(".", ",")
            if ex_mod.read_number(text, unit)[1] is None:     # not "1,234": that could be 1234
                return text
    if i % 3 == 1:
        return f"{value:.4g} {unit}" if unit else f"{100 * value:.3g} %"
    return f"{value:.4g} parsecs"


def answers_for(ex: dict, kind: str, name: str, right: dict, rng: random.Random,
                owner: str, code: str | None) -> dict:
    """One student's answers file as they would hand it in (the template made for `owner`, with
    `code`: their own, or a neighbour's)."""
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
        if kind == "written" and isinstance(r, float):
            r = written(r, i, q.get("unit", ""))
        chosen[q["id"]] = r
    # "your name" left in: the class's generic template (answers-template.json), not their own
    template = ex_mod.template(ex, None if kind == "your-name" else owner, None if kind == "your-name" else code)
    template["student"] = student
    for q in qs:
        a = chosen[q["id"]]
        if "choices" in q and isinstance(a, str):
            listed = template["answers"][q["id"]]["choices"]
            if kind in ("letters", "neighbour", "bare-letters"):
                a = "abcdefgh"[listed.index(a)]
                a = f"({a})" if kind == "bare-letters" else a
            elif kind == "right-curly":
                a = a.translate(CURLY).capitalize()
        if kind == "bare-letters":
            template["answers"][q["id"]] = a
        else:
            template["answers"][q["id"]]["answer"] = a
    if kind == "bare-letters":
        return {"exercise": ex["name"], "student": student, "code": code, "answers": template["answers"]}
    return template


def machine_of(name: str) -> dict[str, str]:
    """A student's lab VM as its check record names it: an id and a boot of its own."""
    digest = hashlib.sha256(name.encode()).hexdigest()
    return {"machine_id": digest[:32], "boot_id": digest[32:], "hostname": "netlab1"}


def check_record(ex: dict, measured: dict[str, float], path: Path) -> dict:
    """What `check` writes beside an answers file on the student's VM (no key: no verdicts)."""
    read = ex_mod.read_answers(path, ex, partial=True)
    return ex_mod.check_record(ex, read, measured, [], host=machine_of(path.stem),
                               when="2026-11-27T14:05:00+00:00")


def load(exercise: str) -> dict:
    """An exercise by name (beowulf_netlab/exercises/) or folder (examples/made-up-exercise)."""
    folder = Path(exercise)
    return ex_mod.load_folder(folder) if (folder / "check.json").is_file() else ex_mod.load(exercise)


def make(out: Path, name: str = "shared-hub", all_checked: bool = False, seed: int = 1996) -> dict:
    """Write the class into out (new or empty); return what was made: paths, which students
    checked and whose record was slow, edited or copied."""
    rng = random.Random(seed)
    ex = load(name)
    base = json.loads((Path(ex["_dir"]) / "solutions" / "measured.json").read_text())
    names = roster()
    out.mkdir(parents=True, exist_ok=True)
    (out / "roster.txt").write_text("# the class, one a line\n" + "\n".join(names) + "\n")
    codes_file = out / "handout.codes.json"
    handout.write([ex], out / "handout", names, codes_file)
    codes = {k: v["code"] for k, v in json.loads(codes_file.read_text())["exercises"][ex["name"]].items()}
    files = handout.file_names(names)
    klass = out / "class"
    klass.mkdir()
    checked = []
    for i, kind in enumerate(PLAN):
        student = names[i]
        path = klass / files[student]
        if kind == "not-json":
            path.write_text('{"exercise": "' + ex["name"] + '", "student": "' + student + '", "answers": {"q1": 81')
            continue
        if kind == "copied" and not all_checked:     # a classmate's answers and record, their name put in both
            source = klass / files[names[COPIED_FROM]]
            answers = json.loads(source.read_text())
            path.write_text(json.dumps({**answers, "student": student}, indent=1, ensure_ascii=False) + "\n")
            record = json.loads(ex_mod.check_file_of(source).read_text())
            ex_mod.check_file_of(path).write_text(json.dumps({**record, "student": student}, indent=1,
                                                             ensure_ascii=False) + "\n")
            checked.append(path.name)
            continue
        has_check = all_checked or i in CHECKED
        own = {k: round(v * (1 + rng.uniform(-0.03, 0.03)), 3) for k, v in base.items()} if has_check else base
        if has_check and i == SLOW:
            own = {k: round(v * 0.6, 3) for k, v in own.items()}      # a much slower machine
        owner = names[(i + 1) % len(names)] if kind == "neighbour" else student
        answers = answers_for(ex, kind, student, reference(ex, own), rng, owner, codes[ex_mod.student_key(owner)])
        path.write_text(json.dumps(answers, indent=1, ensure_ascii=False) + "\n")
        if has_check:
            record = check_record(ex, own, path)
            if i == EDITED and not all_checked:    # changed by hand after check: the seal no longer matches
                record["measured"] = {k: round(v * 1.2, 3) for k, v in record["measured"].items()}
            ex_mod.check_file_of(path).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
            checked.append(path.name)
    return {"exercise": ex, "roster": out / "roster.txt", "codes": codes_file, "class": klass, "checked": checked,
            "slow": files[names[SLOW]], "edited": files[names[EDITED]], "copied": files[names[PLAN.index("copied")]],
            "copied_from": files[names[COPIED_FROM]], "base": base}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="a new or empty folder")
    p.add_argument("--exercise", default="shared-hub", help="a name, or a folder (examples/made-up-exercise)")
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
          f"{len(made['checked'])} check records in {klass}; roster {made['roster']}; codes {made['codes']}")
    ex = made["exercise"]
    grade_argv = ["exercise", "grade", ex["name"], str(klass), "--roster", str(made["roster"]),
                  "--codes", str(made["codes"]), "--html", str(out / "class.html")]
    if args.teacher_measured:
        measured = json.loads(Path(args.teacher_measured).read_text())
        roster_names = ex_mod.read_roster(made["roster"])
        rows = ex_mod.grade(ex, klass, measured, klass / "grades.csv", roster=roster_names,
                            codes=binding.read_codes(made["codes"]))
        from beowulf_netlab.judge import classpage
        classpage.write(out / "class.html", classpage.render(ex, rows, measured, roster_names))
        for s in ex_mod.summarize(ex, rows):
            print(f"{s['id']}: {ex_mod.counts_line(s)}"
                  + (f"; common wrong: {'; '.join(f'{a} ({n})' for a, n in s['common_wrong'])}"
                     if s["common_wrong"] else ""))
        print(f"grades: {klass / 'grades.csv'}; class page: {out / 'class.html'}")
        return 0
    if ex_mod.needs_measurement(ex, klass):
        print("some students have no check record: the grade measures once (root):\n"
              "  sudo python3 emulate.py " + " ".join(grade_argv))
        return 0
    import subprocess                 # the command line, as a teacher runs it (no root needed here)
    return subprocess.run([sys.executable, "-I", str(ROOT / "emulate.py"), *grade_argv]).returncode


if __name__ == "__main__":
    sys.exit(main())
