"""Placeholder until the experiment runner lands."""
from __future__ import annotations


def add_run_parser(sub) -> None:
    sub.add_parser("run", help="run an experiment (not yet available)")


def cmd_default(args) -> int:
    from netlab.main import make_parser
    make_parser().print_help()
    return 0


def cmd_run(args) -> int:
    raise SystemExit("emulate.py run: not yet available")
