"""Every exercise on a real network: the sheet's commands run on its topology (its last CLI
task closes the network) and print no answer to a question to compute, and
`exercise check` accepts the teacher's solution and rejects a plausible wrong
answer on this machine's own measurements (at most about 2 minutes each), against
which no answer read or derived from the sheet passes a measured question."""
from tests.integration import require_testbed  # noqa: E402

require_testbed()

import csv  # noqa: E402
import json  # noqa: E402
import warnings  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from beowulf_netlab.judge import exercise  # noqa: E402
from tests.integration.hostsnap import diff, snapshot  # noqa: E402
from tests.unit.test_exercises import in_unit, passes, passing_without_measuring, sheet_commands  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EMULATE = [sys.executable, str(ROOT / "emulate.py")]
NAMES = list(exercise.exercise_dirs())
BAD_OUTPUT = ("Unknown command", "command not found", "No such file", "Traceback", "error:")
RATE_KEYS = {"goodput_mbit": "Mbit/s", "throughput_mbyte_s": "MB/s"}


def formula_answered_by(ex: dict, values: list[tuple[float, str]]) -> list[str]:
    """Questions to compute (formulas with a rate unit) that a printed rate answers."""
    return [f"{ex['name']} {q['id']}: {v:g} {u} printed" for v, u in values for q in ex["questions"]
            if "formula" in q["expected"] and q.get("unit") and in_unit(v, u, q) is not None
            and passes(q, in_unit(v, u, q), {})]


@pytest.mark.parametrize("name", NAMES)
def test_every_command_of_the_sheet_runs(name, tmp_path):
    cmds = sheet_commands(name)
    before = snapshot()
    r = subprocess.run([*EMULATE, "exercise", "start", name], input="\n".join(cmds["cli"]) + "\n",
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    assert "## Tasks" not in r.stdout and "1." in r.stdout          # the tasks were printed
    assert cmds["cli"][-1] == "exit"                                 # the sheet closes the network
    for bad in BAD_OUTPUT:
        assert bad not in r.stdout, (bad, r.stdout[-3000:])
    ex = exercise.load(name)
    printed = [(float(n), "Mbit/s") for n in re.findall(r"([\d.]+) Mbits/sec", r.stdout)]
    for line in cmds["sh"]:
        argv = shlex.split(line)
        assert argv[:3] == ["sudo", "python3", "emulate.py"], line
        out = tmp_path / "sheet.json"
        s = subprocess.run([*EMULATE, *argv[3:], "--out", str(out)], capture_output=True, text=True,
                           timeout=300, cwd=ROOT)
        assert s.returncode == 0, s.stderr[-2000:]
        doc = json.loads(out.read_text())
        assert doc["complete"]
        printed += [(float(p[k]), u) for p in doc["points"] for k, u in RATE_KEYS.items()
                    if isinstance(p.get(k), (int, float))]
    assert formula_answered_by(ex, printed) == []
    assert diff(before, snapshot()) == {}


@pytest.mark.parametrize("name", NAMES)
def test_check_accepts_the_solution_and_rejects_a_wrong_answer(name, tmp_path):
    """One live measurement: the solution passes, wrong.json does not, nor does any answer a
    student could read or derive from the sheet without measuring."""
    ex = exercise.load(name)
    sol = exercise.EXERCISES_DIR / name / "solutions"
    out = tmp_path / "verdicts.json"
    for go in range(2):
        r = subprocess.run([*EMULATE, "exercise", "check", name, str(sol / "answers.json"), "--out", str(out),
                            "--reveal"], capture_output=True, text=True, timeout=300)
        if r.returncode == 0:
            break
        # once, in a whole suite run beside a core kept busy, message-size's 4-in-flight point read
        # 5 % slow with every gate green (q3 3.11 against 3.31-3.38); five runs beside the same load
        # alone read 3.29-3.30: a second measurement, never a wider tolerance
        warnings.warn(f"{name}: check failed once, measured again: {r.stdout[-600:]}")
    assert r.returncode == 0, r.stdout + r.stderr[-1500:]
    measured = json.loads(out.read_text())["measured"]
    wrong = exercise.judge(ex, exercise.read_answers(sol / "wrong.json", ex), measured)
    assert any(v["verdict"] != exercise.PASS for v in wrong), wrong
    assert passing_without_measuring(ex, measured) == []


def test_grade_scores_a_class_on_one_measurement(tmp_path):
    sol = exercise.EXERCISES_DIR / "shared-hub" / "solutions"
    sub = tmp_path / "class"
    sub.mkdir()
    (sub / "solution.json").write_text((sol / "answers.json").read_text())
    (sub / "wrong.json").write_text((sol / "wrong.json").read_text())
    r = subprocess.run([*EMULATE, "exercise", "grade", "shared-hub", str(sub)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    with open(sub / "grades.csv", newline="") as f:
        rows = {row["file"]: row for row in csv.DictReader(f)}
    n = len(exercise.load("shared-hub")["questions"])
    assert rows["solution.json"]["score"] == str(n), (rows, r.stderr[-1500:])
    assert int(rows["wrong.json"]["score"]) < n, rows
    assert rows["(class)"]["score"] and rows["(reference)"]["q1_answer"]


def test_check_exits_0_on_the_solution_and_1_on_a_wrong_answer(tmp_path):
    sol = exercise.EXERCISES_DIR / "channel-bonding" / "solutions"
    for answers, rc in (("answers.json", 0), ("wrong.json", 1)):
        out = tmp_path / f"{answers}.verdicts.json"
        r = subprocess.run([*EMULATE, "exercise", "check", "channel-bonding", str(sol / answers),
                            "--out", str(out)], capture_output=True, text=True, timeout=200)
        assert r.returncode == rc, r.stdout + r.stderr[-1500:]
        verdicts = json.loads(out.read_text())["verdicts"]
        assert all(v["verdict"] == "pass" for v in verdicts) == (rc == 0)
        assert rc == 0 or "hint:" in r.stdout


def test_a_students_check_measures_and_records_without_the_key(tmp_path):
    """Issue 44 on a real network: beowulf_netlab/exercises/ as a lab VM holds it (no solutions/), a partial
    answers file. check measures, prints how each answer reads and nothing of right or wrong,
    exits 1 (a blank), and writes a sealed record that the teacher's grade then judges against."""
    import shutil
    from beowulf_netlab.judge import binding
    vm = tmp_path / "vm-exercises"
    shutil.copytree(exercise.EXERCISES_DIR, vm, ignore=shutil.ignore_patterns("solutions"))
    sol = exercise.EXERCISES_DIR / "shared-hub" / "solutions"
    answers = json.loads((sol / "answers.json").read_text())
    answers["student"] = "Ada Lovelace"
    answers["answers"]["q1"] = f"{answers['answers']['q1']:.1f}".replace(".", ",")   # a decimal comma
    answers["answers"]["q7"] = None
    klass = tmp_path / "class"
    klass.mkdir()
    mine = klass / "ada.json"
    mine.write_text(json.dumps(answers))
    code = ("import sys; from pathlib import Path; import beowulf_netlab.judge.exercise as e; e.EXERCISES_DIR = Path(sys.argv[1]); "
            "from beowulf_netlab import commands; sys.exit(commands.main(sys.argv[2:]))")
    r = subprocess.run([sys.executable, "-c", code, str(vm), "exercise", "check", "shared-hub", str(mine)],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 1, r.stdout + r.stderr[-1500:]
    for word in ("pass", "wrong", "correct", "reference", "hint"):
        assert word not in r.stdout, (word, r.stdout)
    assert "q7: blank" in r.stdout and "6/7 answered" in r.stdout, r.stdout
    record = json.loads((klass / "ada.check.json").read_text())
    assert binding.record_problem(record) is None and "verdicts" not in record
    assert set(record["measured"]) == set(exercise.load("shared-hub")["quantities"])
    ex = exercise.load("shared-hub")                    # the teacher's checkout, with the key
    row = exercise.grade(ex, klass, None, tmp_path / "g.csv")[0]
    assert row["measurement"] == exercise.OWN_CHECK and row["q7"] == exercise.BLANK
    assert row["score"] == len(ex["questions"]) - 1, row
