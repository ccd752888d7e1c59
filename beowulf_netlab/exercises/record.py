#!/usr/bin/env python3
"""Record an exercise's measured solution again: run `exercise check` N times on this host (one
network at a time), store the runs (solutions/runs.json), their median (solutions/measured.json)
and the measured answers the median gives (solutions/answers.json), and print each measured
question's spread against its tolerance (a tolerance must be at least 1.5 x the largest deviation
from the median; tests/unit/test_exercises.py checks it). Tolerances and their `why_tolerance`
texts (solutions/key.json, the answer key) are the teacher's to set: this script only reports.

  sudo python3 beowulf_netlab/exercises/record.py message-size shared-hub --runs 6
  python3 beowulf_netlab/exercises/record.py shared-hub --from-runs      # answers again from the stored runs
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]   # the checkout's top
sys.path.insert(0, str(ROOT))

from beowulf_netlab.judge import exercise  # noqa: E402


def sig(x: float, digits: int = 4) -> float:
    return float(f"{x:.{digits}g}")


def record(name: str, runs: int, note: str, from_runs: bool = False) -> None:
    ex = exercise.load(name)
    sol = exercise.EXERCISES_DIR / name / "solutions"
    measured: list[dict] = []
    if from_runs:   # a question changed, not the measurement: answers from the stored runs
        measured = json.loads((sol / "runs.json").read_text())["runs"]
        answer(ex, sol, measured, json.loads((sol / "measured.json").read_text()))
        return
    with tempfile.TemporaryDirectory() as d:
        for i in range(runs):
            out = Path(d) / f"run{i}.json"
            r = subprocess.run([sys.executable, "-I", str(ROOT / "emulate.py"), "exercise", "check", name,
                                str(sol / "answers.json"), "--out", str(out)], capture_output=True, text=True)
            if not out.exists():
                sys.exit(f"{name}: check run {i} wrote nothing: {r.stderr.strip()[-500:]}")
            m = json.loads(out.read_text())["measured"]
            measured.append({k: sig(v) for k, v in m.items()})
            print(f"{name} run {i + 1}/{runs}: {measured[-1]}", flush=True)
    median = {k: sig(statistics.median(r[k] for r in measured)) for k in measured[0]}
    (sol / "runs.json").write_text(json.dumps({
        "how": f"sudo python3 beowulf_netlab/exercises/record.py {name} --runs {runs} (exercise check {name} "
               f"solutions/answers.json, {runs} runs, one network at a time on the host{note}); "
               "measured.json holds their median",
        "host": "this project's 2-core host", "recorded": datetime.date.today().isoformat(),
        "runs": measured}, indent=1) + "\n")
    (sol / "measured.json").write_text(json.dumps(median, indent=1) + "\n")
    answer(ex, sol, measured, median)


def answer(ex: dict, sol: Path, measured: list[dict], median: dict) -> None:
    """The measured answers the median gives, and each one's spread over the runs."""
    name = ex["name"]
    answers = json.loads((sol / "answers.json").read_text())
    for q in ex["questions"]:
        formula = q["expected"].get("measured")
        if formula is None:
            continue
        want = exercise.evaluate(formula, median)
        values = [exercise.evaluate(formula, r) for r in measured]
        dev = max(abs(v - want) / abs(want) for v in values) if want else 0.0
        answers["answers"][q["id"]] = sig(want)
        ok = q["tolerance"] >= 1.5 * dev
        print(f"{name} {q['id']}: median {sig(want)}, runs {sig(min(values))}-{sig(max(values))}, largest "
              f"deviation {dev:.1%}, tolerance {q['tolerance']:.1%} {'ok' if ok else 'TOO TIGHT (needs >= ' + format(1.5 * dev, '.1%') + ')'}",
              flush=True)
    answers["student"] = (f"teacher's solution (measured values: the median of {len(measured)} check runs on "
                          "this project's host, solutions/runs.json; yours come from your machine)")
    (sol / "answers.json").write_text(json.dumps(answers, indent=2) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="+")
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--note", default="", help="what changed, for runs.json's 'how'")
    ap.add_argument("--from-runs", action="store_true", help="measure nothing: answers from runs.json")
    args = ap.parse_args()
    if os.geteuid() != 0 and not args.from_runs:
        sys.exit("record.py: run as root (it builds networks)")
    for name in args.names:
        record(name, args.runs, f", {args.note}" if args.note else "", args.from_runs)


if __name__ == "__main__":
    main()
