"""emulate.py with no command: the main job, the quick comparison of every preset,
set beside the papers' values with a reading of what limited each row."""
from __future__ import annotations

from beowulf_netlab.commands.args import require_root
from beowulf_netlab.netlab.impls import BuildOptions
from beowulf_netlab.judge.claims import beside_paper, show
from beowulf_netlab.run.experiment import EXPERIMENTS_DIR, ROOT, load
from beowulf_netlab.run.session import run_one
from beowulf_netlab.judge.summary import summary
from beowulf_netlab.judge.table import readings

QUICK = EXPERIMENTS_DIR / "quick-comparison.json"
NAME = "quick-comparison"


def paper_lines(doc: dict) -> list[str]:
    """The paper's values with this run's beside them (never judged: one run, today's hosts)."""
    rows = beside_paper(doc, NAME)
    if not rows:
        return []
    width = max(len(r["where"]) for r in rows) + 2
    lines = ["", "beside the papers (their 486DX4-100 prototypes; this run: today's hosts, one run, so "
             "nothing is judged here):",
             "  " + "".ljust(width) + "paper".rjust(16) + "this run".rjust(12)]
    for r in rows:
        unit = f" {r['unit']}" if r["unit"] else ""
        paper = f"{r['paper']:g}{unit} ({r['status']})"
        got = f"{show(r['measured'])}{unit}" if r["measured"] is not None else "not measured"
        lines.append("  " + r["where"].ljust(width) + paper.rjust(16) + got.rjust(12))
    return lines


def run(_args) -> int:
    require_root("")
    sweep, paper, _ = load(QUICK)
    print(f"Beowulf Netlab quick comparison ({QUICK.relative_to(ROOT)}): the token exchange of HPDC'96 "
          f"on {len(sweep['topology'])} topologies at {sweep['rate_mbit'][0]:g} Mbit/s, "
          f"{sweep.total_points()} points of {sweep['duration']:g} s (about 2.5 minutes). "
          "Ctrl-C keeps finished points.")
    doc, out, png = run_one(sweep, None, None, BuildOptions(), "", paper, name=NAME)
    text = summary(doc, out, png, paper)
    print(text)
    print("\n".join(paper_lines(doc)))
    print("\nwhat limited each row at its peak (this run's monitors: the busiest wire it used, a CPU, "
          "or round trips when no wire was full):")
    print("\n".join("  " + line for line in readings(doc)))
    print("\nnext:"
          "\n  the papers' claims judged on their hardware and on today's hosts, with repeats:"
          "\n    sudo python3 emulate.py reproduce --quick    (about 7 minutes; writes "
          "results/reproduction-<time>-quick/report.html)"
          "\n  one paper figure at a time:   sudo python3 emulate.py experiment list"
          "\n  a network to explore by hand: sudo python3 emulate.py exercise list")
    return 0
