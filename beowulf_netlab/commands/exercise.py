"""emulate.py exercise list | show | handout | start | check | grade: classroom exercises (beowulf_netlab/exercises/*/)."""
from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

from beowulf_netlab.commands.args import add_build_args, build_options, require_root
from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.safefile import write_atomic_bytes
from beowulf_netlab.core.text import plain
from beowulf_netlab.judge import binding, classpage
from beowulf_netlab.judge import exercise as ex_mod
from beowulf_netlab.judge import handout as handout_mod
from beowulf_netlab.judge.exercise import PASS
from beowulf_netlab.run.results import RESULTS_DIR
from beowulf_netlab.judge.sheet import page as sheet_page
from beowulf_netlab.run.session import Session, open_cli


def exercise_names() -> list[str]:
    """The exercises' names, for completion (read when a completion script is made)."""
    return sorted(ex_mod.exercise_dirs())


def add_parser(sub) -> None:
    p = sub.add_parser("exercise", help="classroom exercises: sheets, live checks, grading",
                       description="Exercises live in beowulf_netlab/exercises/<name>/: README.md (the sheet), check.json "
                                   "(the questions, what check measures; no answers) and solutions/ (the "
                                   "teacher's: the answer key, never on a student's machine). 'check' reads "
                                   "an answers file as grading will and measures on this machine what the "
                                   "answers depend on (at most about 2 minutes); 'grade', in the teacher's "
                                   "checkout, judges each student against their own machine's measurement.")
    verbs = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    verbs.add_parser("list", help="the exercises, with minutes and what each teaches")
    show = verbs.add_parser("show", help="print an exercise's sheet")
    show.add_argument("name").completes = exercise_names
    show.add_argument("--answers-template", action="store_true",
                      help="print an answers file to fill in instead (JSON)")
    show.add_argument("--solutions", action="store_true",
                      help="print the teacher's answers too (a teacher's checkout only)")
    show.add_argument("--html", default=None, metavar="FILE",
                      help="write the sheet as one page to hand out or project (with room for the "
                           "answers; never the solutions)")
    hand = verbs.add_parser("handout", help="write the students' bundle: sheets and answers templates",
                            description="Write a folder to give the class: per exercise its sheet as a page "
                                        "and as Markdown, and an answers template; with --roster, one "
                                        "template per student, the name and a hand-out code filled in and "
                                        "the choices in the order that code deals, and the codes file for "
                                        "the teacher beside the folder (grade --codes reads it). Never the "
                                        "solutions.")
    hand.add_argument("names", nargs="*", metavar="NAME", help="exercises (default: all)").completes = exercise_names
    hand.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder")
    hand.add_argument("--roster", default=None, metavar="FILE",
                      help="the class's names, one a line: one answers template each")
    hand.add_argument("--codes", default=None, metavar="FILE",
                      help="where the teacher's codes file goes (default: DIR.codes.json beside DIR; "
                           "never inside it)")
    start = verbs.add_parser("start", help="build the exercise's network and open the CLI with its tasks")
    start.add_argument("name").completes = exercise_names
    check = verbs.add_parser("check", help="read an answers file as grading will, measure, write the record "
                                           "to hand in (exit 0: every answer readable and the measurement "
                                           "trusted, 1: not)",
                             description="On a student's machine (no answer key): says how each answer reads "
                                         "(answered, blank, unreadable), measures, and writes a sealed record "
                                         "of the measurement bound to the student, the answers file and this "
                                         "machine; nothing of right or wrong. In a teacher's checkout (the key "
                                         "in solutions/): judges too (exit 0: all pass).")
    check.add_argument("name").completes = exercise_names
    check.add_argument("answers", help="answers file (JSON; see show NAME --answers-template)")
    check.add_argument("--out", default=None, metavar="FILE",
                       help="the record as JSON (default: ANSWERS with .check.json; for a file inside "
                            "beowulf_netlab/exercises/, results/exercises/NAME-FILE.check.json)")
    check.add_argument("--reveal", action="store_true",
                       help="also print each question's reference value (a teacher's checkout only; "
                            "grade does not take the record it writes)")
    grade = verbs.add_parser("grade", help="judge every *.json in a folder, write a CSV (and a page)",
                             description="A teacher's checkout only (the answer key). Each student is judged "
                                         "against the measurement their own check recorded beside their file "
                                         "(NAME.check.json) when it is usable, else against one measurement "
                                         "taken here (root, about 2 minutes); when every student's own check "
                                         "is usable, nothing is measured and no root is needed. A record "
                                         "edited, from a classmate's machine session, or (with --codes) of a "
                                         "code dealt to someone else is flagged.")
    grade.add_argument("name").completes = exercise_names
    grade.add_argument("folder", help="folder of answers files, one per student")
    grade.add_argument("--out", default=None, metavar="FILE", help="CSV (default: FOLDER/grades.csv)")
    grade.add_argument("--roster", default=None, metavar="FILE",
                       help="the class's names, one a line: a name no answers file gives gets a row "
                            "saying so")
    grade.add_argument("--codes", default=None, metavar="FILE",
                       help="the codes file handout wrote: each file's code must be the one dealt to "
                            "the student it names")
    grade.add_argument("--html", default=None, metavar="FILE",
                       help="also write the class's results as a page: per question passed, wrong, blank, "
                            "unreadable, not judged and the common wrong answers; every student's row")
    grade.add_argument("--json", action="store_true",
                       help="print the class's results as JSON instead: per question and per student "
                            "(docs/json.md); what else grade says goes to stderr")
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
    """Beside the answers file, unless that is inside the project's beowulf_netlab/exercises/ (the stored
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


MEASURE_AGAIN = 2   # goes after the first when a point a question reads failed a fidelity gate


def measure(ex: dict, verb: str, opts, out: Path) -> tuple[dict[str, float], list[str]]:
    """Every check first (out writable, root, each network buildable here), then run the
    exercise's measure sweeps on this machine; the quantities its questions read, and why
    they may be wrong (judge.exercise.doubts), said on stderr too. A sweep whose points a
    question reads failed a fidelity gate is measured again, at most MEASURE_AGAIN times (a
    passing stall of a shared host is not the student's answer's fault); the last go counts."""
    sweeps = ex_mod.sweeps(ex)
    session = Session(verb, opts, list(sweeps.values()), [out], checked=True)
    points = {}
    with tempfile.TemporaryDirectory(prefix="bnl-exercise-") as tmp:
        for rid, sweep in sweeps.items():
            print(f"measuring {rid} ({sweep.workload}) on this machine ...", file=sys.stderr, flush=True)
            for go in range(1 + MEASURE_AGAIN):
                doc = session.run(sweep, Path(tmp) / f"{rid}.json", {}, f"exercise-{ex['name']}-{rid}")
                points[rid] = doc["points"]
                failed = ex_mod.doubts(ex, {rid: doc["points"]})
                if not failed or go == MEASURE_AGAIN:
                    break
                print(f"  {rid}: {failed[0]}; measuring it again ({go + 2} of at most {1 + MEASURE_AGAIN})",
                      file=sys.stderr, flush=True)
    doubts = ex_mod.doubts(ex, points)
    if doubts:
        print(f"warning: {len(doubts)} measured quantit{'y' if len(doubts) == 1 else 'ies'} failed a fidelity "
              f"gate in {1 + MEASURE_AGAIN} goes, so the verdicts below may be wrong; run the check again on a "
              f"quieter machine: "
              f"{doubts[0]}", file=sys.stderr, flush=True)
    return ex_mod.quantities(ex, points), doubts


def answer_line(q: dict, answers: dict, read: str) -> str:
    """How one answer reads on a student's machine: what grading will take it as, nothing more."""
    if read != "answered":
        return read
    got = answers["answers"][q["id"]]
    if "choices" in q:
        return f"answered: {plain(got)}"
    written = answers["written"].get(q["id"])
    return f"answered {got:g}" + (f" {q['unit']}" if q.get("unit") else "") + \
        (f" (written {plain(written)!r})" if written is not None else "")


def run(args) -> int:
    if args.action == "list":
        for name in ex_mod.exercise_dirs():
            ex = ex_mod.load(name)
            print(f"{name:18s} {ex['minutes']:3d} min  {ex['title']}: {ex.get('teaches', '')}")
        return 0
    if args.action == "handout":
        names = list(dict.fromkeys(args.names)) or list(ex_mod.exercise_dirs())
        exercises = [ex_mod.load(name) for name in names]   # an unknown name: one line, nothing written
        roster = ex_mod.read_roster(Path(args.roster)) if args.roster else None
        codes = Path(args.codes) if args.codes else binding.codes_path(Path(args.out))
        written = handout_mod.write(exercises, Path(args.out), roster, codes)
        kept = [p for p in written if p == codes]
        print(f"hand-out: {len(written) - len(kept)} files for {len(names)} exercise(s)"
              + (f", {len(roster)} students" if roster else "") + f" in {args.out} (no solutions)")
        if kept:
            print(f"codes: {codes} (yours, not the class's: grade --codes {codes} tells whose hand-out "
                  "each file is)")
        return 0
    ex = ex_mod.load(args.name)
    if args.action == "show":
        if args.solutions and not args.html:
            ex_mod.require_key(ex, "exercise show --solutions")
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
        if args.reveal:
            ex_mod.require_key(ex, "exercise check --reveal")
        path = Path(args.answers)
        answers = ex_mod.read_answers(path, ex, partial=True)     # read as grade reads it
        out = Path(args.out) if args.out else default_verdicts(path, ex["name"])
        measured, doubts = measure(ex, f"exercise check {args.name}", opts, out)
        if ex_mod.has_key(ex):
            verdicts = ex_mod.judge(ex, answers, measured)
            if not args.reveal:
                verdicts = [{k: v for k, v in verdict.items() if k != "reference"} for verdict in verdicts]
            for v in verdicts:
                if v["verdict"] in ex_mod.UNJUDGED:
                    line = f"{v['id']}: {v['verdict']}: {v['problem']}"
                else:
                    line = f"{v['id']}: {v['verdict']:5s} your answer {plain(v['answer'])}"
                line += f", reference {v['reference']}" if "reference" in v else ""
                print(line + (f"  hint: {v['hint']}" if "hint" in v else ""))
            ok = sum(v["verdict"] == PASS for v in verdicts) == len(verdicts)
            summary = f"{sum(v['verdict'] == PASS for v in verdicts)}/{len(verdicts)} correct"
        else:
            verdicts = None
            read = ex_mod.reading(ex, answers)
            for q in ex["questions"]:
                print(f"{q['id']}: {answer_line(q, answers, read[q['id']])}")
            answered = sum(r == "answered" for r in read.values())
            ok = answered == len(read) and not doubts
            summary = (f"{answered}/{len(read)} answered, as grading will read them; the verdicts are your "
                       "teacher's (the answer key is not on this machine)")
        record = ex_mod.check_record(ex, answers, measured, doubts, verdicts=verdicts, revealed=args.reveal)
        try:
            write_atomic_bytes(out, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        except OSError as e:
            raise BadInput(f"cannot write {out}: {e.strerror}; choose another --out")
        print(f"{summary}; record in {out}"
              + (" (measured on a point that failed a fidelity gate: see the warning)" if doubts else "")
              + ("" if verdicts is not None else f": hand it in with {path.name}"))
        return 0 if ok else 1
    if args.action == "grade":
        folder = Path(args.folder)
        if not folder.is_dir():
            raise BadInput(f"grade: {folder} is not a folder of answers files")
        if not ex_mod.submissions(folder):
            raise BadInput(f"grade: {folder} holds no *.json answers files")
        out = Path(args.out) if args.out else folder / "grades.csv"
        ex_mod.require_key(ex, "exercise grade")
        roster = ex_mod.read_roster(Path(args.roster)) if args.roster else None   # before measuring
        codes = binding.read_codes(Path(args.codes)) if args.codes else None
        need = ex_mod.needs_measurement(ex, folder)
        measured, doubts = None, []
        if args.measure or (need and not args.no_measure):
            measured, doubts = measure(ex, f"exercise grade {args.name}", opts, out)
        elif not need and ex.get("quantities") and not args.no_measure:
            print("every student's own check is usable: grading on those, measuring nothing "
                  "(--measure compares them with this machine)", file=sys.stderr, flush=True)
        if codes is None:
            print("no --codes: whose hand-out each file is was not checked (records from one machine session, "
                  "and edited ones, still are)", file=sys.stderr, flush=True)
        rows = ex_mod.grade(ex, folder, measured, out, roster=roster, codes=codes)
        if args.json:
            if args.html:
                classpage.write(Path(args.html), classpage.render(ex, rows, measured, roster))
            print(json.dumps(grade_data(ex, rows, out, args.html, len(doubts)), indent=1))
            return 0
        for s in ex_mod.summarize(ex, rows):
            print(f"{s['id']}: {ex_mod.counts_line(s)}"
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


GRADE_VERSION = 1   # `exercise grade --json`'s version (docs/json.md)


def grade_data(ex: dict, rows: list[dict], csv: Path, html: str | None, doubts: int) -> dict:
    """`exercise grade --json`: the CSV's rows and the per-question counts as grade prints them."""
    questions = [q["id"] for q in ex["questions"]]
    return {"grade_version": GRADE_VERSION, "exercise": ex["name"], "csv": str(csv), "html": html,
            "measurement_gates_failed": doubts,
            "questions": [{k: (v if k != "common_wrong" else [{"answer": a, "students": n} for a, n in v])
                           for k, v in s.items()} for s in ex_mod.summarize(ex, rows)],
            "students": [{"file": r.get("file"), "student": r.get("student"), "score": r.get("score"),
                          "max": r.get("max"), "problem": r.get("problem") or None,
                          "answers": {q: r.get(q) for q in questions}} for r in rows]}
