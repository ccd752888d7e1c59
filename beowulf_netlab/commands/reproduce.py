"""emulate.py reproduce [--quick] [--curves]: run the papers' experiments and write the reproduction report."""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from beowulf_netlab.commands.args import add_build_args, build_options, shard_arg
from beowulf_netlab.core.errors import BadInput, NetlabError
from beowulf_netlab.judge.claims import load_claims, read_by_claims
from beowulf_netlab.run.experiment import experiment_files, load
from beowulf_netlab.judge.report import build, headline, headline_json
from beowulf_netlab.run.results import RESULTS_DIR
from beowulf_netlab.run.derive import configuration, configurations, takes_from
from beowulf_netlab.run.session import Session
from beowulf_netlab.run.sweep import Sweep
from beowulf_netlab.run import estimate
from beowulf_netlab.judge import tested
from beowulf_netlab.judge.repeats import doubtful, wanted
from beowulf_netlab.judge.sensitivity import load_variants, range_variants, variant_sweep
from beowulf_netlab.run import calibration
from beowulf_netlab.judge.heldout import EXPERIMENT as HELDOUT
from beowulf_netlab.judge.validation import experiments as era_experiments
from beowulf_netlab.topologies.hardware import NONE


def add_parser(sub) -> None:
    p = sub.add_parser("reproduce", help="run the papers' experiments and write a report with verdicts",
                       description="Run every experiment the claims file (beowulf_netlab/claims/claims.json) reads, and the "
                                   "era checks' (beowulf_netlab/claims/era-checks.json, on the 1996 profiles alone), one "
                                   "network at a time, then write a report directory: report.md, a "
                                   "self-contained report.html, figures/ and the results documents. "
                                   "Ctrl-C keeps the finished experiments and writes the report from them. "
                                   "Every experiment runs on the hardware profile its figure ran on and on "
                                   "today's hosts (--hardware). Points a claim reads run twice, and a third time where "
                                   "two leave its verdict in doubt (full run); the rest of each curve not at all, so "
                                   "the figures are partial: they hold those points, the calibrations' measurements "
                                   "and the points a figure that shares another's (IPPS'96 Figure 6) takes from its "
                                   "document (--curves: the rest once each, the whole curves drawn). Full run "
                                   "about 55 minutes on this 2-core host, 70 in a slow spell of it (12-16 of them the "
                                   "range ends, --ranges); --quick about "
                                   "7.")
    p.add_argument("--quick", action="store_true", help="each experiment's quick sweep (its 'quick' values), only the "
                   "points the claims read")
    p.add_argument("--curves", action="store_true",
                   help="draw every experiment's whole curves: the points no claim reads too, once each, as "
                        "full runs did before this option (without it the report says its curves are partial)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="report directory (default results/reproduction-<time>[-quick])")
    p.add_argument("--only", metavar="NAME[,...]", default=None,
                   help="run only these experiments (the report judges what it has)")
    p.add_argument("--hardware", choices=("both", "paper", "none"), default="both",
                   help="which machines: both (default: each experiment on the hardware profile its "
                        "figure ran on, and on today's hosts), paper, or none (today's hosts only)")
    p.add_argument("--contention", nargs="?", const="on", choices=("on", "off"), default=None,
                   metavar="on|off",
                   help="the CSMA/CD model on every shared wire of the paper's hardware, against each "
                        "profile's default (the 1996 machines: on); with --hardware paper; alone: on")
    p.add_argument("--sensitivity", action="store_true",
                   help="also run each variant of beowulf_netlab/claims/sensitivity.json (the choices the papers leave "
                        "open) on the paper's hardware; the report shows how each claim's verdict moves")
    p.add_argument("--ranges", action=argparse.BooleanOptionalAction, default=None,
                   help="run each hardware profile's ranged constants (the card's gap and latency: ranges the era "
                        "sources do not narrow) at both ends on the points the claims' checks read in the "
                        "experiments' quick sweeps, %d times each, so that a claim whose verdict differs "
                        "between the ends reads 'undetermined by the sources' (default: on for the full "
                        "run, off for --quick)" % RANGE_REPEATS)
    p.add_argument("--shard", type=shard_arg, default=None, metavar="I/N",
                   help="run only points I, I+N, ... of each experiment (merge shards with 'emulate.py merge')")
    p.add_argument("--plan", action="store_true",
                   help="print what the run would measure, experiment by experiment (points, networks, "
                        "estimated minutes, and what the time is made of), and exit: nothing built or run, "
                        "no root needed")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print only the report's headline as JSON on stdout at the "
                   "end (verdict counts per view, calibrations not met, the report's paths: docs/json.md); "
                   "everything else goes to stderr")
    add_build_args(p)


RANGE_REPEATS = 2   # runs of each range end's point: a verdict needs two; a third costs a fifth more run
FIRST_REPEATS = 2   # runs of a claimed point before its claims are judged: a third only where two
                    # leave a verdict in doubt (judge.repeats)


def first_pass(point: dict) -> bool:
    """The points a full run measures before judging: calibrations whole, each other point's
    first FIRST_REPEATS runs."""
    return bool(point.get("calibration_of")) or point["repeat"] < FIRST_REPEATS


def capped(sweep: Sweep) -> Sweep:
    """The sweep as its first pass measures it (for the time estimate)."""
    out = Sweep(sweep.workload, {**sweep.values, "repeats": min(sweep["repeats"], FIRST_REPEATS)}, sweep.shard)
    out.claimed, out.unread_runs = sweep.claimed, sweep.unread_runs
    return out


def planned(only: str | None) -> list[str]:
    """The experiments the claims read, then those the era checks read (beowulf_netlab/claims/era-checks.json),
    then the host path's held-out exchanges (judge.heldout)."""
    files = experiment_files()
    wanted = [name for c in load_claims() for name in c["experiments"]] + era_experiments() + [HELDOUT]
    names = [n for n in dict.fromkeys(wanted) if n in files]
    if only:
        chosen = [n.strip() for n in only.split(",")]
        unknown = [n for n in chosen if n not in names]
        if unknown:
            raise BadInput(f"--only: {', '.join(unknown)} is not an experiment the claims or era checks "
                           f"read; choose from {', '.join(names)}")
        names = [n for n in names if n in chosen]
    return names


def with_hardware(sweep, which: str, contention: str | None):
    """The experiment's sweep on the machines asked for (see --hardware); contention None:
    each profile's default."""
    paper = [h for h in sweep["hardware"] if h != NONE] or [NONE]
    hardware = {"both": [NONE, *paper], "paper": paper, "none": [NONE]}[which]
    values = {**sweep.values, "hardware": list(dict.fromkeys(hardware))}
    if contention is not None:
        if which != "paper":
            raise BadInput(f"--contention {contention} judges the paper's hardware only: add --hardware paper")
        values["contention"] = [contention]
    return Sweep(sweep.workload, values, sweep.shard)


def sources_first(names: list[str], shares: dict[str, list[str]]) -> list[str]:
    """names in their order, except that an experiment runs after those whose points it
    takes (same_points_as), so their documents exist when it starts."""
    out: list[str] = []

    def visit(name: str, path: tuple[str, ...] = ()) -> None:
        if name in out or name in path or name not in names:
            return
        for src in shares.get(name, []):
            visit(src, (*path, name))
        out.append(name)

    for name in names:
        visit(name)
    return out


def split_variants(docs: dict[str, dict]) -> tuple[dict[str, dict], dict[str, dict]]:
    """(the experiments' documents, the sensitivity variants' by variant id)."""
    main = {n: d for n, d in docs.items() if not n.startswith("sensitivity-")}
    return main, {n[len("sensitivity-"):]: d for n, d in docs.items() if n.startswith("sensitivity-")}


def third_repeats(session: Session, claims: list[dict], sweeps: dict[str, Sweep], out: Path,
                  progress: bool) -> None:
    """Judge every claim on the first pass's documents, then measure the later repeats of the
    points read by the claims whose verdict is in doubt (judge.repeats), each experiment's into
    its own document."""
    docs = {n: session.docs[n] for n in session.docs if not n.startswith("sensitivity-")}
    doubt = doubtful(claims, docs)
    named = sorted({c["id"] for chosen in doubt.values() for c in chosen})
    print(f"later repeats: {'claims ' + ', '.join(map(str, named)) if named else 'no claim'} in doubt after "
          f"{FIRST_REPEATS} repeats (judge.repeats)", file=sys.stderr, flush=True)
    for name, sweep in sweeps.items():
        want = wanted(claims, docs, name)

        def later(point: dict, want=want) -> bool:
            return not point.get("calibration_of") and not first_pass(point) and want(point)
        if name in session.docs and any(later(calibration.as_recorded(sweep, spec, pt))
                                        for spec, pts in sweep.schedule() for pt in pts):
            print(f"[later repeats] {name}", file=sys.stderr, flush=True)
            session.extend(name, sweep, out / "results" / f"{name}.json", later, progress=progress)


def run(args) -> int:
    if getattr(args, "plan", False):
        if getattr(args, "json", False):
            raise BadInput("--plan prints a table and runs nothing: drop --json")
        print("\n".join(plan_lines(plan(args), args.quick)))
        return 0
    if not getattr(args, "json", False):
        return _run(args)
    with contextlib.redirect_stdout(sys.stderr):    # --json: stdout holds the JSON alone
        out = _run(args)
    print(headline_json(out))
    return 0


def read_for(claims: list[dict], name: str, sweep: Sweep, takers: dict[str, Sweep]):
    """A predicate: does a claim read this point of experiment `name`, or a claim of an experiment
    that takes its points (same_points_as: takers, name -> its sweep) read that experiment's point
    of the same configuration? Measured here, that one measurement serves both."""
    own = read_by_claims(claims, name)
    axes = [a.name for a in sweep.spec_workload.axes if a.many]
    theirs = [(read_by_claims(claims, t), set(configurations(s))) for t, s in takers.items()
              if takes_from(s, sweep)]
    if not theirs:
        return own
    return lambda point: own(point) or any(reads(point) and configuration(point, axes) in held
                                           for reads, held in theirs)


def with_free(read, sweep: Sweep, sources: list[Sweep]):
    """read, and the configurations of sweep that an experiment it takes points from (same_points_as)
    measures in full anyway (its claims, or another's, read them): taken, they cost nothing and
    keep the figure's curves (IPPS'96 Figure 6's 10 Mbit/s curve is Figure 3's 2 MB one). Not
    with --shard: another shard's points of the source are not in this host's document."""
    axes = [a.name for a in sweep.spec_workload.axes if a.many]
    free = {key for src in sources if takes_from(sweep, src) and src["repeats"] >= sweep["repeats"]
            for key, runs in configurations(src).items() if runs >= src["repeats"]}
    if not free:
        return read
    return lambda point: read(point) or configuration(point, axes) in free


@dataclass
class Plan:
    """What a reproduce run measures, in order: nothing built, nothing run (_run runs it)."""
    sweeps: dict[str, tuple[Sweep, dict]]      # experiment -> (its sweep, its paper values)
    shares: dict[str, list[str]]               # experiment -> whose points it takes (same_points_as)
    era_only: set[str]                         # the era checks' and the held-out exchanges' (run whole)
    staged: set[str]                           # later repeats only where two leave a verdict in doubt
    ranges: list[dict]                         # the range-end variants (judge.sensitivity)
    variants: dict[str, tuple[Sweep, dict]]    # variant id -> (its sweep, its experiment's paper values)
    variant_shares: dict[str, list[str]]       # variant id -> the variants whose points it takes


def plan(args, claims: list[dict] | None = None) -> Plan:
    """The sweeps a reproduce run with these arguments measures, in order: each experiment's, the
    range ends' and (--sensitivity) the variants'; nothing built or run. The points no claim reads
    run once with --curves, else not at all (the calibrations' measurements are added whatever,
    run.calibration.with_calibrations). Without --curves an experiment whose points another takes
    (same_points_as) also measures those of them that the other's claims read (read_for), and the
    other schedules every point its sources measure anyway, to take them (with_free). A range end
    of such an experiment takes the points the same end of its source measured (variant_shares)."""
    names = planned(args.only)
    claims = load_claims() if claims is None else claims
    unread_runs = 1 if getattr(args, "curves", False) else 0
    sweeps, shares = {}, {}
    era_only_names = set(era_experiments() + [HELDOUT]) - {n for c in claims for n in c["experiments"]}
    loaded = {}
    for name in names:
        sweep, paper, meta = load(experiment_files()[name], quick=args.quick)
        era_only = name in era_only_names
        if era_only and args.hardware == "none":
            continue        # an era check compares a 1996 profile: nothing to run on today's hosts
        loaded[name] = (sweep, paper)
        shares[name] = meta.get("same_points_as") or []
    whole = {}
    for name, (sweep, _) in loaded.items():
        # an era check compares the era's profiles: it runs on them alone, every point repeated
        whole[name] = with_hardware(sweep, "paper" if name in era_only_names else args.hardware, args.contention)
    for name in sources_first(list(loaded), shares):   # an experiment after those it takes from
        sweep = Sweep(whole[name].workload, dict(whole[name].values), args.shard)
        if name in era_only_names:
            sweep.claimed = None
        elif unread_runs:       # --curves: as before, each experiment's own claims
            sweep.claimed = read_by_claims(claims, name)
        else:
            # the points another experiment takes and its claims read are measured here; those its
            # sources measure anyway are taken (with_free: not with --shard, whose sources' documents
            # hold another host's share of their points)
            takers = {t: whole[t] for t in loaded if name in shares[t] and t not in era_only_names}
            sweep.claimed = read_for(claims, name, sweep, takers)
            if args.shard is None:
                sweep.claimed = with_free(sweep.claimed, sweep, [sweeps[n][0] for n in shares[name] if n in sweeps])
        sweep.unread_runs = unread_runs     # the points no claim reads: once (--curves) or not at all
        if sweep.schedule():      # a shard may hold no point of a small experiment
            sweeps[name] = (sweep, loaded[name][1])
    shares = {n: shares[n] for n in sweeps}
    sweeps = {n: sweeps[n] for n in sources_first(list(sweeps), shares)}
    # the claims' experiments measure their later repeats only where the first leave a verdict
    # in doubt (judge.repeats); the era checks' run whole
    staged = {n for n, (s, _) in sweeps.items() if n not in era_only_names and s["repeats"] > FIRST_REPEATS}
    variants, variant_shares = {}, {}
    with_ranges = (not args.quick) if args.ranges is None else args.ranges
    ranges = [] if not with_ranges or args.hardware == "none" else \
        range_variants({n: [h for h in s["hardware"] if h != NONE] for n, (s, _) in sweeps.items()
                        if n not in era_only_names})
    for v in ranges:
        # each end on the experiment's quick sweep (its claims' checks read every point of it):
        # the full sweep's points at two ends of two constants would more than double the run
        vsweep = with_hardware(variant_sweep(v, True)[0], "paper", args.contention)
        vsweep.values["repeats"] = min(vsweep["repeats"], RANGE_REPEATS)
        vsweep.shard = args.shard
        checks = read_by_claims(claims, v["experiment"], checks_only=True)
        vsweep.claimed, vsweep.unread_runs = checks, 0     # only the points the claims' checks read
        if vsweep.schedule():
            variants[v["id"]] = (vsweep, sweeps[v["experiment"]][1])
    for v in ranges:
        # the same end of an experiment whose points this one takes measured them already
        if v["id"] in variants:
            variant_shares[v["id"]] = [w["id"] for w in ranges if w["id"] in variants and w["range"] == v["range"]
                                       and w["experiment"] in shares.get(v["experiment"], [])]
    if args.sensitivity:
        if args.hardware == "none":
            raise BadInput("--sensitivity runs on the paper's hardware: drop --hardware none")
        for v in load_variants():
            if v["experiment"] in sweeps:
                vsweep = with_hardware(variant_sweep(v, args.quick)[0], "paper", args.contention)
                vsweep.shard = args.shard
                vsweep.claimed = read_by_claims(claims, v["experiment"])
                vsweep.unread_runs = unread_runs
                if vsweep.schedule():
                    variants[v["id"]] = (vsweep, sweeps[v["experiment"]][1])
    return Plan(sweeps, shares, era_only_names, staged, ranges, variants, variant_shares)


def estimated(p: Plan, first_pass_only: bool = True) -> list[tuple[str, Sweep, list[str]]]:
    """The plan's sweeps in order for run.estimate: (name, sweep, whose points it takes); the
    staged experiments as their first pass measures them unless first_pass_only is False."""
    taken = {v: [f"sensitivity-{w}" for w in ws] for v, ws in p.variant_shares.items()}
    return ([(n, capped(s) if first_pass_only and n in p.staged else s, p.shares.get(n, []))
             for n, (s, _) in p.sweeps.items()]
            + [(f"sensitivity-{v}", s, taken.get(v, [])) for v, (s, _) in p.variants.items()])


def plan_lines(p: Plan, quick: bool) -> list[str]:
    """reproduce --plan: a row per experiment's first pass, the later repeats at most, the range
    ends per experiment and the variants; then the total and what it is made of (run.estimate:
    each point's declared window and this host's measured costs)."""
    first = dict(estimate.each_of_sweeps(estimated(p)))
    whole = dict(estimate.each_of_sweeps(estimated(p, first_pass_only=False)))
    rows: list[tuple[str, estimate.Estimate]] = [(n, first[n]) for n in p.sweeps]
    later = estimate.Estimate()
    for n in p.staged:
        later = later.add(estimate.Estimate(whole[n].points - first[n].points,
                                            whole[n].seconds - first[n].seconds))
    ranges: dict[str, estimate.Estimate] = {}
    for v in p.ranges:
        if v["id"] in p.variants:
            ranges[v["experiment"]] = ranges.get(v["experiment"], estimate.Estimate()).add(
                first[f"sensitivity-{v['id']}"])
    range_ids = {v["id"] for v in p.ranges}
    rows += [(f"range ends of {n}", e) for n, e in ranges.items()]
    rows += [(f"variant {v}", first[f"sensitivity-{v}"]) for v in p.variants if v not in range_ids]
    total = estimate.Estimate(seconds=estimate.COMMAND_S + estimate.REPORT_S)
    for _, e in rows:
        total = total.add(e)
    constants = sorted({v["range"]["constant"] for v in p.ranges})
    width = max(len(n) for n, _ in rows) + 2
    out = [f"reproduce{' --quick' if quick else ''} --plan: {len(p.sweeps)} experiments; nothing built or "
           "run (estimates: each point's declared window and this host's measured costs, run/estimate.py)",
           f"  {'what':<{width}}{'points':>7}{'networks':>10}{'minutes':>9}"]
    notes = {n: f"   (takes the points of {', '.join(p.shares[n])} that it reads)" for n in p.sweeps if p.shares.get(n)}
    out += [f"  {n:<{width}}{e.points:>7}{e.networks:>10}{e.seconds / 60:>9.1f}{notes.get(n, '')}" for n, e in rows]
    if later.points:
        out.append(f"  {'later repeats, at most':<{width}}{later.points:>7}{'':>10}{later.seconds / 60:>9.1f}"
                   f"   (only where {FIRST_REPEATS} leave a verdict in doubt: judge/repeats.py)")
    out.append(f"  {'total':<{width}}{total.points:>7}{total.networks:>10}{total.seconds / 60:>9.1f}"
               + (f"   (+ at most {later.seconds / 60:.1f} for later repeats)" if later.points else ""))
    overhead = estimate.POINT_S * total.points
    windows = total.seconds - total.network_seconds - overhead - estimate.COMMAND_S - estimate.REPORT_S
    out.append(f"Of the total, the points' workloads (their declared durations, their copies' bytes over "
               f"the wires and disks, their setup) take {windows / 60:.1f} min, building and tearing down "
               f"networks {total.network_seconds / 60:.1f}, the runner's own work per point "
               f"{overhead / 60:.1f}, the command and report {(estimate.COMMAND_S + estimate.REPORT_S) / 60:.1f}.")
    if p.ranges:
        out.append(f"Range ends: {', '.join(constants)} at both ends of the era sources' range, on the points "
                   f"the claims' checks read in each experiment's quick sweep, {RANGE_REPEATS} repeats each "
                   "(--no-ranges leaves them out).")
    out.append(f"Every point a claim reads runs {FIRST_REPEATS} times at least: one run's noise is unknown "
               "(docs/judging.md).")
    return out


def _run(args) -> int | Path:
    """Run, write the report, print its headline; with --json return its directory instead of 0."""
    claims = load_claims()
    p = plan(args, claims)
    sweeps, shares, staged, ranges, variants = p.sweeps, p.shares, p.staged, p.ranges, p.variants
    taken = {v: [f"sensitivity-{w}" for w in ws] for v, ws in p.variant_shares.items()}
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else RESULTS_DIR / f"reproduction-{stamp}{'-quick' if args.quick else ''}"
    session = Session("reproduce", build_options(args), [s for s, _ in (*sweeps.values(), *variants.values())],
                      [out / "report.html"], checked=True)
    total = sum(len(pts) for s, _ in (*sweeps.values(), *variants.values()) for _, pts in s.schedule())
    left = sum(s.left_out() for s, _ in sweeps.values())
    print(f"reproduce: {len(sweeps)} experiments, {total} points{' (quick)' if args.quick else ''}"
          + (f", {left} points no claim reads left out (partial curves; --curves draws them whole)" if left else "")
          + f"; report in {out}/", flush=True)
    ahead = estimate.of_sweeps(estimated(p))
    print(f"measuring {ahead.line()}", flush=True)
    t0 = time.monotonic()
    try:
        for k, (name, (sweep, paper)) in enumerate(sweeps.items(), 1):
            points = sum(len(p) for _, p in (capped(sweep) if name in staged else sweep).schedule())
            print(f"[{k}/{len(sweeps)}] {name}: {points} points", file=sys.stderr, flush=True)
            session.run(sweep, out / "results" / f"{name}.json", paper, name, progress=not args.no_progress,
                        same_points_as=shares.get(name), only=first_pass if name in staged else None)
        if staged:
            third_repeats(session, claims, {n: sweeps[n][0] for n in staged}, out, not args.no_progress)
        for k, (vid, (vsweep, paper)) in enumerate(variants.items(), 1):
            points = sum(len(p) for _, p in vsweep.schedule())
            print(f"[sensitivity {k}/{len(variants)}] {vid}: {points} points", file=sys.stderr, flush=True)
            vname = f"sensitivity-{vid}"
            session.run(vsweep, out / "sensitivity" / f"{vid}.json", paper, vname, progress=not args.no_progress,
                        same_points_as=taken.get(vid))
    except (KeyboardInterrupt, NetlabError):
        sys.stderr.write(f"\nstopped: writing the report from what finished ({len(session.docs)} "
                         "document(s), the last one partly)\n")
        main, varied = split_variants(session.docs)
        page = build(main, out, args.quick, elapsed_s=time.monotonic() - t0, sensitivity=varied,
                     ranges=ranges)
        sys.stderr.write(f"report: {page}\n")
        raise
    main, varied = split_variants(session.docs)
    elapsed = time.monotonic() - t0
    print("running the tests the tested claims name ...", file=sys.stderr, flush=True)
    page = build(main, out, args.quick, elapsed_s=elapsed, sensitivity=varied, tests=tested.run(claims),
                 ranges=ranges)
    print(headline((out / "report.md").read_text()))
    print(f"report: {page}\n        {out / 'report.md'}")
    if getattr(args, "json", False):
        return out
    return 0
