"""emulate.py run WORKLOAD: a sweep from flags; and `execute`, which every sweep goes through."""
from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path

from commands.args import (NETWORK, add_axis, add_impairment_args, add_machine_args, add_output_args,
                           build_options, require_root)
from core.errors import BadInput, RuntimeFailure
from netlab.capabilities import probe
from netlab.impls import BuildOptions
from pipeline.report import plot, table
from pipeline.results import RESULTS_DIR, check_writable, new_document, write_atomic
from pipeline.sweep import Sweep
from workloads import WORKLOADS


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
    for name in ("topology", "rate_mbit", "channels", "nodes", "placement", "repeats"):
        add_axis(g, NETWORK[name])
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


def check_buildable_here(sweeps: list[Sweep], opts: BuildOptions):
    """Every network of every sweep can be built on this host, or one line (exit 2)
    before a results file exists: missing tools, netem, a forced bonding or switch
    implementation this kernel lacks, NETLAB_REQUIRE_KERNEL refusals. Returns the
    probed capabilities, so each network is not probed again."""
    from netlab.testbed import check_buildable   # imports Mininet
    caps = probe()
    for sweep in sweeps:
        for spec in sweep.specs():
            check_buildable(spec, caps, opts)
    return caps


def print_paper(paper: dict, log) -> None:
    if paper.get("notes"):
        print("\nthe papers, for comparison:", file=log)
        for line in paper["notes"]:
            print(f"  - {line}", file=log)


def execute(sweep: Sweep, out: Path | None, png: str | None, opts: BuildOptions, as_json: bool,
            progress: bool, paper: dict | None = None, name: str | None = None, verb: str = "run") -> int:
    """Check everything, then run the sweep and print its table. Nothing is
    created until every check has passed."""
    from pipeline.runner import run_sweep   # Mininet is imported only once a run is certain
    sweep.check()
    out = out or RESULTS_DIR / f"{time.strftime('%Y%m%d-%H%M%S')}-{name or sweep.workload}.json"
    png = png or str(out.with_suffix(".png"))
    check_writable(out)
    check_writable(Path(png))
    require_root(verb)
    caps = check_buildable_here([sweep], opts)
    doc = new_document(sweep.workload, sweep.parameters(), paper, name)
    doc["total_points"] = sweep.total_points()
    if sweep.shard:
        doc["shard"] = f"{sweep.shard[0]}/{sweep.shard[1]}"
    write_atomic(doc, out)
    log = sys.stderr if as_json else sys.stdout
    try:
        run_sweep(sweep, doc, out, opts, progress=progress, caps=caps)
    except KeyboardInterrupt:
        log.write(f"\ninterrupted: {len(doc['points'])} finished point(s) kept in {out}\n")
        raise
    except RuntimeFailure as e:
        raise type(e)(f"{e}; {len(doc['points'])} finished point(s) kept in {out}") from e
    pngs = plot(doc, png)
    if as_json:
        json.dump(doc, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    print(table(doc), file=log)
    print(f"\nresults: {out}\n         {out.with_suffix('.csv')}\nplot:    " + "\n         ".join(pngs),
          file=log)
    print_paper(paper or {}, log)
    return 0


def run(args) -> int:
    wl = WORKLOADS[args.workload]
    mine = {a.name for a in wl.axes} | {a.name for a in NETWORK.values()}
    others = sorted(a.name for w in WORKLOADS.values() for a in w.axes
                    if a.name not in mine and getattr(args, a.name, None) is not None)
    if others:
        raise BadInput(f"run {wl.name} does not take {', '.join('--' + o.replace('_', '-') for o in others)}")
    given = {name: getattr(args, name) for name in mine}
    if given.get("duration") is not None and given.get("exchanges") is not None:
        raise BadInput("give --duration or --exchanges, not both")
    if given.get("channels") is not None and "bonded-dual-net" not in (given.get("topology") or ["bonded-dual-net"]):
        raise BadInput("--channels applies to bonded-dual-net only: add it to --topology or drop --channels")
    sweep = Sweep.make(wl.name, given, args.shard)
    return execute(sweep, Path(args.out) if args.out else None, args.png, build_options(args),
                   args.json, not args.no_progress)
