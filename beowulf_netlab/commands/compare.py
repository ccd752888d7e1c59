"""emulate.py compare A B: two stored results (documents or run directories) point by point."""
from __future__ import annotations

import json

from beowulf_netlab.judge.compare import compare, side, text


def add_parser(sub) -> None:
    p = sub.add_parser("compare", help="set two stored results side by side, point by point",
                       description="Read two stored results (results documents, or run directories such "
                                   "as reproduce's, whose results/*.json are matched by experiment) and "
                                   "print, for every point both measured, each side's median over its "
                                   "repeats, the difference and each side's spread (half the range of its "
                                   "repeats); '!' flags a difference larger than the two spreads together. "
                                   "Nothing is run.")
    p.add_argument("a", metavar="A", help="a results document (.json, .json.gz) or a run directory")
    p.add_argument("b", metavar="B", help="the other, of the same workload or experiments")
    p.add_argument("--json", action="store_true",
                   help="print the comparison as JSON instead (its keys: docs/json.md)")


def run(args) -> int:
    result = compare(side(args.a), side(args.b), args.a, args.b)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(text(result), end="")
    return 0
