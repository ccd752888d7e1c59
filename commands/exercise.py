"""emulate.py exercise list | show | handout | start | check | grade: classroom exercises (exercises/*/)."""
from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

from commands.args import add_build_args, build_options, require_root
from core.errors import BadInput
from core.safefile import write_atomic_bytes
from core.text import plain
from judge import classpage
from judge import exercise as ex_mod
from judge import handout as handout_mod
from judge.exercise import PASS
from run.results import RESULTS_DIR
from judge.sheet import page as sheet_page
from run.session import Session, open_cli


def add_parser(sub) -> None:
    p = sub.add_parser("exercise", help="classroom exercises: sheets, live checks, grading",
                       description="Exercises live in exercises/<name>/: README.md (the sheet), check.json "
                                   "(questions and how each is checked), solutions/ (the teacher's). "
                                   "'check' measures on this machine what the answers depend on "
                                   "(at most about 2 minutes), so a student's numbers are judged "
                                   "against the same machine's.")
    verbs = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    verbs.add_parser("list", help="the exercises, with minutes and what each teaches")
    show = verbs.add_parser("show", help="print an exercise's sheet")
    show.add_argument("name")
    show.add_argument("--answers-template", action="store_true",
                      help="print an answers file to fill in instead (JSON)")
    show.add_argument("--solutions", action="store_true", help="print the teacher's answers too")
    show.add_argument("--html", default=None, metavar="FILE",
                      help="write the sheet as one page to hand out or project (with room for the "
                           "answers; never the solutions)")
    hand = verbs.add_parser("handout", help="write the students' bundle: sheets and answers templates",
                            description="Write a folder to give the class: per exercise its sheet as a page "
                                        "and as Markdown, and an answers template; with --roster, one "
                                        "template per student, the name filled in and the choices in that "
                                        "student's own order. Never the solutions, nor check.json.")
    hand.add_argument("names", nargs="*", metavar="NAME", help="exercises (default: all)")
    hand.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder")
    hand.add_argument("--roster", default=None, metavar="FILE",
                      help="the class's names, one a line: one answers template each")
    start = verbs.add_parser("start", help="build the exercise's network and open the CLI with its tasks")
    start.add_argument("name")
    check = verbs.add_parser("check", help="measure, then judge an answers file (exit 0: all pass, 1: not)")
    check.add_argument("name")
    check.add_argument("answers", help="answers file (JSON; see show NAME --answers-template)")
    check.add_argument("--out", default=None, metavar="FILE",
                       help="verdicts as JSON (default: ANSWERS with .check.json; for a file inside "
                            "exercises/, results/exercises/NAME-FILE.check.json)")
    check.add_argument("--reveal", action="store_true",
                       help="also print each question's reference value (teachers: a student who sees "
                            "it has the answer)")
    grade = verbs.add_parser("grade", help="judge every *.json in a folder, write a CSV (and a page)",
                             description="Each student is judged against the measurement their own check "
                                         "recorded beside their file (NAME.check.json) when it is usable, "
                                         "else against one measurement taken here (root, about 2 minutes); "
                                         "when every student's own check is usable, nothing is measured "
                                         "and no root is needed.")
    grade.add_argument("name")
    grade.add_argument("folder", help="folder of answers files, one per student")
    grade.add_argument("--out", default=None, metavar="FILE", help="CSV (default: FOLDER/grades.csv)")
    grade.add_argument("--roster", default=None, metavar="FILE",
                       help="the class's names, one a line: a name no answers file gives gets a row "
                            "saying so")
    grade.add_argument("--html", default=None, metavar="FILE",
                       help="also write the class's results as a page: per question passed, wrong, missing "
                            "and the common wrong answers; every student's row")
    when = grade.add_mutually_exclusive_group()
    when.add_argument("--measure", action="store_true",
                      help="measure here even when every student has an own check (to compare them: an "
                           "own check far from this machine's is said in the problem column)")
    when.add_argument("--no-measure", action="store_true",
                      help="never measure (no root): a student without a usable own check gets no verdict "
                           "on the measured questions")
    for q in (start, check, grade):
        add_build_args(q)


def default_verdicts(answers: Path, name: str) -> Path:
    """Beside the answers file, unless that is inside the project's exercises/ (the stored
    solutions): check then writes under results/exercises/, not into what is handed out."""
    inside = ex_mod.EXERCISES_DIR.resolve() in answers.resolve().parents
    if inside:
        return RESULTS_DIR / "exercises" / f"{name}-{answers.stem}{ex_mod.VERDICTS_SUFFIX}"
    return answers.with_name(answers.stem + ex_mod.VERDICTS_SUFFIX)


def sheet(ex: dict) -> str:
    return (Path(ex["_dir"]) / "README.md").read_text()


def tasks(ex: dict) -> str:
    """The sheet's Tasks section, printed when the CLI opens."""
    text = sheet(ex)
    m = re.search(r"^## Tasks\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    return f"*** {ex['title']}: tasks (the whole sheet: emulate.py exercise show {ex['name']})\n" + \
        (m.group(1).strip() if m else text)


def measure(ex: dict, verb: str, opts, out: Path) -> tuple[dict[str, float], list[str]]:
    """Every check first (out writable, root, each network buildable here), then run the
    exercise's measure sweeps on this machine; the quantities its questions read, and why
    they may be wrong (judge.exercise.doubts), said on stderr too."""
    sweeps = ex_mod.sweeps(ex)
    session = Session(verb, opts, list(sweeps.values()), [out], checked=True)
    points = {}
    with tempfile.TemporaryDirectory(prefix="bnl-exercise-") as tmp:
        for rid, sweep in sweeps.items():
            print(f"measuring {rid} ({sweep.workload}) on this machine ...", file=sys.stderr, flush=True)
            doc = session.run(sweep, Path(tmp) / f"{rid}.json", {}, f"exercise-{ex['name']}-{rid}")
            points[rid] = doc["points"]
    doubts = ex_mod.doubts(ex, points)
    if doubts:
        print(f"warning: {len(doubts)} measured quantit{'y' if len(doubts) == 1 else 'ies'} failed a fidelity "
              f"gate, so the verdicts below may be wrong; run the check again on a quieter machine: "
              f"{doubts[0]}", file=sys.stderr, flush=True)
    return ex_mod.quantities(ex, points), doubts


def run(args) -> int:
    if args.action == "list":
        for name in ex_mod.exercise_dirs():
            ex = ex_mod.load(name)
            print(f"{name:18s} {ex['minutes']:3d} min  {ex['title']}: {ex.get('teaches', '')}")
        return 0
    if args.action == "handout":
        names = list(dict.fromkeys(args.names)) or list(ex_mod.exercise_dirs())
        for name in names:
            ex_mod.load(name)            # an unknown name is one line before anything is written
        roster = ex_mod.read_roster(Path(args.roster)) if args.roster else None
        written = handout_mod.write(names, Path(args.out), roster)
        print(f"hand-out: {len(written)} files for {len(names)} exercise(s)"
              + (f", {len(roster)} students" if roster else "") + f" in {args.out} (no solutions)")
        return 0
    ex = ex_mod.load(args.name)
    if args.action == "show":
        if args.answers_template:
            print(json.dumps(ex_mod.template(ex), indent=2))
            return 0
        if args.html:
            if args.solutions:
                raise BadInput("exercise show: --html writes the sheet to hand out, never the solutions; "
                               "drop --solutions")
            out = Path(args.html)
            try:
                write_atomic_bytes(out, sheet_page(ex["name"], sheet(ex)))
            except OSError as e:
                raise BadInput(f"cannot write {out}: {e.strerror}; choose another --html")
            print(f"sheet: {out}")
            return 0
        print(sheet(ex))
        if args.solutions:
            sol = Path(ex["_dir"]) / "solutions"
            for f in sorted(sol.iterdir()):
                print(f"\n--- solutions/{f.name} ---\n{f.read_text()}")
        return 0
    opts = build_options(args)
    if args.action == "start":
        spec = ex_mod.start_spec(ex)
        require_root(f"exercise start {args.name}")
        return open_cli(spec, opts, before=tasks(ex))
    if args.action == "check":
        path = Path(args.answers)
        answers = ex_mod.read_answers(path, ex)
        out = Path(args.out) if args.out else default_verdicts(path, ex["name"])
        measured, doubts = measure(ex, f"exercise check {args.name}", opts, out)
        verdicts = ex_mod.judge(ex, answers, measured)
        if not args.reveal:   # what a student sees: the verdict and the hint, not the answer
            verdicts = [{k: v for k, v in verdict.items() if k != "reference"} for verdict in verdicts]
        for v in verdicts:
            line = f"{v['id']}: {v['verdict']:5s} your answer {plain(v['answer'])}" + \
                (f", reference {v['reference']}" if "reference" in v else "")
            print(line + (f"  hint: {v['hint']}" if "hint" in v else ""))
        passed = sum(v["verdict"] == PASS for v in verdicts)
        print(f"{passed}/{len(verdicts)} correct; verdicts in {out}"
              + (" (measured on a point that failed a fidelity gate: see the warning)" if doubts else ""))
        try:
            # what grade judges this student against (their own machine's numbers); the measured
            # questions' references follow from it, which check prints only with --reveal
            write_atomic_bytes(out, json.dumps({"exercise": ex["name"], "student": answers.get("student"),
                                                "measured": measured,
                                                "measurement_doubts": doubts,
                                                "verdicts": verdicts}, indent=1) + "\n")
        except OSError as e:
            raise BadInput(f"cannot write {out}: {e.strerror}; choose another --out")
        return 0 if passed == len(verdicts) else 1
    if args.action == "grade":
        folder = Path(args.folder)
        if not folder.is_dir():
            raise BadInput(f"grade: {folder} is not a folder of answers files")
        if not ex_mod.submissions(folder):
            raise BadInput(f"grade: {folder} holds no *.json answers files")
        out = Path(args.out) if args.out else folder / "grades.csv"
        roster = ex_mod.read_roster(Path(args.roster)) if args.roster else None   # before measuring
        need = ex_mod.needs_measurement(ex, folder)
        measured, doubts = None, []
        if args.measure or (need and not args.no_measure):
            measured, doubts = measure(ex, f"exercise grade {args.name}", opts, out)
        elif not need and ex.get("quantities") and not args.no_measure:
            print("every student's own check is usable: grading on those, measuring nothing "
                  "(--measure compares them with this machine)", file=sys.stderr, flush=True)
        rows = ex_mod.grade(ex, folder, measured, out, roster=roster)
        for s in ex_mod.summarize(ex, rows):
            print(f"{s['id']}: {s['passed']}/{s['total']} passed, {s['wrong']} wrong, {s['missing']} missing"
                  + (f"; common wrong: {'; '.join(f'{plain(a)} ({n})' for a, n in s['common_wrong'])}"
                     if s["common_wrong"] else ""))
        if args.html:
            classpage.write(Path(args.html), classpage.render(ex, rows, measured, roster))
            print(f"class page: {args.html}")
        scores = sorted(r["score"] for r in rows)
        print(f"{len(rows)} submissions graded (median {scores[len(scores) // 2]}/{len(ex['questions'])}"
              f"{', ' + str(sum(bool(r['problem']) for r in rows)) + ' with a problem' if any(r['problem'] for r in rows) else ''}"
              f"): {out}"
              + (f" (the measurement failed {len(doubts)} fidelity gate(s): grade again on a quieter machine)"
                 if doubts else ""))
        return 0
    raise AssertionError(args.action)
