"""emulate.py with no command: the main job, the quick comparison of every preset."""
from __future__ import annotations

from commands.args import require_root
from netlab.impls import BuildOptions
from pipeline.experiment import EXPERIMENTS_DIR, ROOT, load
from pipeline.session import run_one

QUICK = EXPERIMENTS_DIR / "quick-comparison.json"


def run(_args) -> int:
    require_root("")
    sweep, paper, _ = load(QUICK)
    print(f"Beowulf Netlab quick comparison ({QUICK.relative_to(ROOT)}): token exchange, "
          f"{len(sweep['topology'])} topologies at {sweep['rate_mbit'][0]:g} Mbit/s, "
          f"{sweep.total_points()} points of {sweep['duration']:g} s. Ctrl-C keeps finished points.")
    _, text = run_one(sweep, None, None, BuildOptions(), "", paper, name="quick-comparison")
    print(text)
    print("\nthe papers' claims with verdicts, figure by figure: 'sudo python3 emulate.py reproduce --quick'"
          " (about 10 minutes; the full run about 90; each figure on its paper's hardware and on today's"
          " hosts) writes results/reproduction-<time>-quick/report.html;"
          "\nevery paper figure alone: 'emulate.py experiment list'")
    return 0
