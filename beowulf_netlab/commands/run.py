"""emulate.py run WORKLOAD: a sweep from flags, run by run.session like every sweep."""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from beowulf_netlab.commands.args import add_axis, add_impairment_args, add_machine_args, add_output_args, build_options
from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.run.session import run_one
from beowulf_netlab.judge.summary import summary
from beowulf_netlab.core.settings import SIZE, SWEEP, TOPOLOGY, in_group
from beowulf_netlab.run.sweep import NETWORK, SETTINGS, Sweep
from beowulf_netlab.topologies.presets import PRESETS, preset
from beowulf_netlab.workloads import WORKLOADS


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run a workload sweep over topologies",
                       description="Build each topology once, run every sweep point, save a results "
                                   "document under results/ (JSON + CSV), print a table. Flags marked "
                                   "'comma list' take one value or several; every combination runs. "
                                   "Each flag's name, with underscores, is also its key in experiment "
                                   "files and results.")
    p.add_argument("workload", choices=list(WORKLOADS), help="; ".join(
        f"{w.name}: {w.summary}" for w in WORKLOADS.values()))
    g = p.add_argument_group("network")
    own = [f"{w.name}: {','.join(w.topologies)}" for w in WORKLOADS.values() if w.topologies]
    for name in in_group(SETTINGS, TOPOLOGY, SIZE, SWEEP):
        add_axis(g, NETWORK[name], note=f" (unset, {'; '.join(own)})" if name == "topology" and own else "")
    owners: dict[str, list] = {}
    for wl in WORKLOADS.values():
        for axis in wl.axes:
            owners.setdefault(axis.name, []).append((wl.name, axis))
    for wl in WORKLOADS.values():
        g = p.add_argument_group(wl.name)
        for axis in wl.axes:
            shared = owners[axis.name]
            if shared[0][0] != wl.name:
                continue   # a shared axis (pairs, duration) is one flag, under its first workload
            if len({repr(a.default) for _, a in shared}) > 1:
                others = ", ".join(f"{n}: {a.help_text().split('[')[-1].rstrip(']')}" for n, a in shared[1:])
                axis = dataclasses.replace(axis, help=f"{axis.help} (bounds and default here for {wl.name}; "
                                                      f"{others})")
            if len(shared) > 1:
                axis = dataclasses.replace(axis, help=f"{axis.help} [also {', '.join(n for n, _ in shared[1:])}]")
            add_axis(g, axis)
    add_machine_args(p)
    add_impairment_args(p)
    add_output_args(p, "<workload>")
    p.add_argument("--capture", action="append", default=None, metavar="WIRE",
                   help="write WIRE's frames as the medium engine carried them to a pcapng file beside the "
                        "results (<results>-<topology>-<rate>mbit-<nodes>n-WIRE.pcapng, one per network built): "
                        "each frame stamped when its last bit left the wire, collisions and drops as packet "
                        "comments (repeatable; needs the engine: see 'emulate.py capture')")


def run(args) -> int:
    wl = WORKLOADS[args.workload]
    mine = {a.name for a in wl.axes} | {a.name for a in NETWORK.values()}
    others = sorted({a.name for w in WORKLOADS.values() for a in w.axes
                     if a.name not in mine and getattr(args, a.name, None) is not None})
    if others:
        raise BadInput(f"run {wl.name} does not take {', '.join('--' + o.replace('_', '-') for o in others)}")
    given = {name: getattr(args, name) for name in mine}
    if given.get("duration") is not None and given.get("exchanges") is not None:
        raise BadInput("give --duration or --exchanges, not both")
    if given.get("channels") is not None:   # asked of each topology (a bonded file of the user's takes it too)
        topologies = given.get("topology") or wl.topologies or NETWORK["topology"].default
        if not any("channels" in preset(t).options for t in topologies):
            takers = ", ".join(n for n, p in PRESETS.items() if "channels" in p.options)
            raise BadInput(f"--channels applies to a topology that takes it ({takers}, or a topology file "
                           "whose options set channels): add one to --topology or drop --channels")
    sweep = Sweep.make(wl.name, given, args.shard)
    log = sys.stderr if args.json else sys.stdout
    opts = build_options(args)
    if args.capture:
        opts = dataclasses.replace(opts, capture=tuple(dict.fromkeys(args.capture)))
    doc, out, png = run_one(sweep, Path(args.out) if args.out else None, args.png, opts, "run",
                            progress=not args.no_progress, log=log)
    text = summary(doc, out, png, None)
    if args.json:
        print(json.dumps(doc, indent=1, default=str))
    print(text, file=log)
    return 0
