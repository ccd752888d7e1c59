"""emulate.py topo list | show NAME: the presets and their wiring (no root needed)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from beowulf_netlab.commands.args import add_axis, axis_type, spec_from
from beowulf_netlab.run.sweep import NETWORK
from beowulf_netlab.core.parser import Parser
from beowulf_netlab.run.store import check_writable
from beowulf_netlab.topologies.presets import PRESETS
from beowulf_netlab.topologies.render import wiring_data, wiring_png, wiring_text
from beowulf_netlab.topologies.settings import SIZES


def add_parser(sub) -> None:
    p = sub.add_parser("topo", help="list topologies or show one's wiring",
                       description="'topo list' names the presets; 'topo show NAME' prints the wiring. NAME may also be a "
                                   "topology file (beowulf_netlab/topologies/schema.json; the presets are beowulf_netlab/topologies/library/*.json).")
    tsub = p.add_subparsers(dest="topo_command", parser_class=Parser, metavar="list|show")
    tsub.add_parser("list", help="list topology presets", description="List topology presets.")
    ps = tsub.add_parser("show", help="print a topology's wiring", description="Print which node "
                         "sits on which wire, with addresses (no root needed).")
    ps.add_argument("topology", type=axis_type(NETWORK["topology"], single=True), metavar="NAME",
                    help="a preset (topo list) or a topology file's path (docs/topologies.md)")
    for name in SIZES:
        add_axis(ps, NETWORK[name], single=True)
    ps.add_argument("--png", metavar="FILE", default=None, help="also draw the wiring to a PNG file")
    ps.add_argument("--json", action="store_true", help="print the wiring as JSON instead (docs/json.md)")


def run(args) -> int:
    if args.topo_command in (None, "list"):
        for name, preset in PRESETS.items():
            print(f"{name:22s} {preset.summary}")
        return 0
    spec = spec_from(args)
    if args.png:
        check_writable(Path(args.png))
    if args.json:
        if args.png:
            wiring_png(spec, args.png)
        print(json.dumps(wiring_data(spec), indent=1))
        return 0
    sys.stdout.write(wiring_text(spec))
    if args.png:
        wiring_png(spec, args.png)
        print(f"wrote {args.png}")
    return 0
