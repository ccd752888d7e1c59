"""`emulate.py run token|iperf`, `emulate.py plot`, and the no-argument main job."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from topologies.spec import SpecError

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "experiments" / "quick-comparison.json"
DEFAULT_SIZES = [64 << i for i in range(9)]  # 64 B ... 16 KB


def size_list(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        part = part.strip().upper()
        mult = 1
        if part.endswith("K"):
            mult, part = 1024, part[:-1]
        elif part.endswith("M"):
            mult, part = 1024 * 1024, part[:-1]
        try:
            value = int(float(part) * mult)
        except ValueError:
            raise argparse.ArgumentTypeError(f"sizes are bytes with an optional K/M suffix, got {text!r}")
        if value <= 0:
            raise argparse.ArgumentTypeError(f"sizes must be > 0 bytes, got {text!r}")
        out.append(value)
    return out


def int_list(name: str, minimum: int = 1):
    def parse(text: str) -> list[int]:
        try:
            values = [int(x) for x in text.split(",")]
        except ValueError:
            raise argparse.ArgumentTypeError(f"--{name} takes whole numbers, comma-separated, got {text!r}")
        if any(v < minimum for v in values):
            raise argparse.ArgumentTypeError(f"--{name} values must be >= {minimum}, got {text!r}")
        return values
    return parse


def remote_list(text: str) -> list[int]:
    """'0-7', '0,2,7' or a mix ('0-3,7')."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        try:
            a, b = int(lo), int(hi) if hi else int(lo)
        except ValueError:
            raise argparse.ArgumentTypeError(f"--remote takes counts like 0-7 or 0,3,7, got {text!r}")
        if a < 0 or b < a:
            raise argparse.ArgumentTypeError(f"--remote ranges run low-high from 0, got {part!r}")
        out += [v for v in range(a, b + 1) if v not in out]
    return out


def shard_arg(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes I/N (this host runs every N-th point from the I-th), got {text!r}")
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"--shard I/N needs 1 <= I <= N, got {text!r}")
    return i, n


def disk_arg(text: str):
    from netlab.disk_profiles import parse_disk
    try:
        parse_disk(text)
    except SpecError as e:
        raise argparse.ArgumentTypeError(str(e))
    return text


def rate_list(text: str) -> list[float]:
    from netlab.main import rate_arg
    return [rate_arg(x) for x in text.split(",")]


def topo_list(text: str) -> list[str]:
    from netlab.main import topo_arg
    return [topo_arg(x) for x in text.split(",")]


def placement_list(text: str) -> list[str]:
    from workloads.placement import PLACEMENTS
    values = text.split(",")
    for v in values:
        if v not in PLACEMENTS:
            raise argparse.ArgumentTypeError(f"--placement takes {', '.join(PLACEMENTS)}, got {v!r}")
    return values


def add_output_args(p, default_name: str) -> None:
    """Where results go and how a sweep runs: shared by `run` and `experiment`."""
    from netlab.main import add_build_args
    p.add_argument("--out", default=None, help=f"results file (default results/<time>-{default_name}.json)")
    p.add_argument("--json", action="store_true", help="print the results document to stdout")
    p.add_argument("--png", default=None, help="plot file (default beside the results)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--shard", type=shard_arg, default=None, metavar="I/N",
                   help="run only points I, I+N, ... of the sweep (campaigns; merge with 'emulate.py merge')")
    add_build_args(p)


def add_run_parser(sub) -> None:
    p = sub.add_parser("run", help="run a workload sweep over topologies",
                       description="Build each topology once, run every sweep point, save a results "
                                   "document under results/ (JSON + CSV), print a table. Every sweep "
                                   "flag takes one value or a comma list.")
    p.add_argument("workload", choices=("token", "iperf", "filecopy"),
                   help="token: the papers' token exchange; iperf: iperf3 capacity baseline; "
                        "filecopy: the Disk/Net balance test (simultaneous file copies over emulated disks)")
    p.add_argument("--topo", type=topo_list, default=None, help="topologies (default: all presets)")
    p.add_argument("--rate", type=rate_list, default=[10.0], help="Mbit/s (default 10)")
    p.add_argument("--channels", type=int_list("channels"), default=[None], help="bonded-dual-net wires")
    p.add_argument("--nodes", type=int, default=None, help="nodes per topology (default 16)")
    p.add_argument("--token-size", type=size_list, default=DEFAULT_SIZES,
                   help="token bytes, K suffix allowed (default 64,128,...,16K)")
    p.add_argument("--tokens-in-flight", type=int_list("tokens-in-flight"), default=[1],
                   help="tokens each pair keeps in flight (default 1)")
    p.add_argument("--pairs", type=int_list("pairs"), default=[4], help="process pairs (default 4)")
    p.add_argument("--placement", type=placement_list, default=["any", "local-wire", "remote-wire"],
                   help="any | local-wire | remote-wire (meshes; for filecopy: where remote copies' "
                        "pairs go); default: any elsewhere, both on meshes")
    f = p.add_argument_group("filecopy")
    f.add_argument("--copies", type=int, default=7, help="simultaneous copies (default 7, as the papers)")
    f.add_argument("--remote", type=remote_list, default=list(range(8)),
                   help="how many copies are remote: counts or ranges, e.g. 0-7 (default) or 0,7")
    f.add_argument("--file-size", type=size_list, default=[2 << 20],
                   help="file sizes, K/M suffix (binary), e.g. 1M,2M,4M,8M,16M (default 2M)")
    f.add_argument("--disk", type=disk_arg, default="ide-1995",
                   help="disk profile: ide-1995 (1.67 MB/s each way, from the papers' all-local "
                        "copies), none (unthrottled), or MB/s as R or R/W")
    p.add_argument("--repeats", type=int_list("repeats"), default=[1], help="runs of each point")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--duration", type=float, default=None, help="seconds per point (default 2; iperf 5)")
    g.add_argument("--exchanges", type=int, default=None, help="token round trips per pair instead")
    from netlab.main import add_impairment_args
    add_impairment_args(p)
    add_output_args(p, "<workload>")

    e = sub.add_parser("experiment", help="run a paper figure's experiment file (experiments/*.json)",
                       description="Run an experiment file: its topologies, rates and sweep axes, with "
                                   "the paper's values printed beside the measured table. 'list' shows them.")
    e.add_argument("name", help="'list', an experiment name (e.g. ipps96-fig5-demonstration), or a file")
    add_output_args(e, "<name>")

    m = sub.add_parser("merge", help="merge the results documents of a campaign's shards",
                       description="Merge shards of one sweep (run with --shard on several hosts) into one "
                                   "document; each point keeps the host that measured it.")
    m.add_argument("documents", nargs="+", help="the shards' results/*.json")
    m.add_argument("--out", required=True, help="merged document to write (a CSV and plot go beside it)")

    pp = sub.add_parser("plot", help="redraw figures from a saved results document",
                        description="Redraw the plot (and table) from a results JSON.")
    pp.add_argument("results", help="a results/*.json document")
    pp.add_argument("--png", default=None, help="output file (default: beside the document)")


def _sweep_from_args(a):
    from netlab.sweep import Sweep
    if a.exchanges is not None and a.exchanges < 1:
        raise SpecError("--exchanges must be >= 1")
    if a.duration is not None and a.duration <= 0:
        raise SpecError("--duration must be > 0 seconds")
    duration = a.duration if a.exchanges is None else None
    if duration is None and a.exchanges is None:
        duration = 2.0 if a.workload == "token" else 5.0
    from topologies.presets import PRESETS
    return Sweep(workload=a.workload, topologies=a.topo or list(PRESETS), rates=a.rate,
                 channels=a.channels, placements=a.placement, pairs=a.pairs,
                 token_sizes=a.token_size, tokens_in_flight=a.tokens_in_flight,
                 repeats=a.repeats[0], duration=duration, exchanges=a.exchanges, nodes=a.nodes,
                 copies=a.copies, remote=a.remote, file_sizes=a.file_size, disk=a.disk, shard=a.shard,
                 delay_ms=a.delay or 0.0, jitter_ms=a.jitter or 0.0, loss_pct=a.loss or 0.0,
                 relay_delay_ms=a.relay_delay or 0.0)


def check_sweep(sweep) -> None:
    """Refuse impossible points before any network is built."""
    from netlab.disk_profiles import parse_disk
    from workloads.filecopy import plan
    from workloads.placement import place
    if sweep.workload == "filecopy":
        parse_disk(sweep.disk)
    for spec in sweep.specs():
        for pt in sweep.points_per_network(spec):
            if sweep.workload == "filecopy":
                plan(spec, pt["copies"], pt["remote"], pt["placement"])
            else:
                place(spec, pt["pairs"], pt["placement"])


def _check_netem(sweep) -> None:
    """Impaired sweeps fail here, before a results file exists, on kernels without netem."""
    from netlab.impls import check_netem
    from topologies.impairments import needs_netem
    specs = [s for s in sweep.specs() if needs_netem(s)]
    if specs:
        from netlab.capabilities import probe_kernel
        have = probe_kernel(["netem"])["netem"]
        for spec in specs:
            check_netem(spec, have)


def sweep_total(sweep) -> int:
    """Points in the whole sweep, whatever this host's shard."""
    import dataclasses
    return dataclasses.replace(sweep, shard=None).total_points()


def execute(sweep, out: Path | None, png: str | None, opts, as_json: bool, progress: bool,
            paper: dict | None = None, name: str | None = None) -> int:
    from netlab.main import require_root
    from netlab.report import plot, table
    from netlab.results import RESULTS_DIR, new_document, write_atomic
    from netlab.runner import run_sweep
    check_sweep(sweep)
    require_root("run")
    _check_netem(sweep)
    out = out or RESULTS_DIR / f"{time.strftime('%Y%m%d-%H%M%S')}-{name or sweep.workload}.json"
    params = sweep.parameters()
    doc = new_document(sweep.workload, params, paper)
    doc["total_points"] = sweep_total(sweep)
    if sweep.shard:
        doc["shard"] = f"{sweep.shard[0]}/{sweep.shard[1]}"
    write_atomic(doc, out)
    log = sys.stderr if as_json else sys.stdout
    try:
        run_sweep(sweep, doc, out, opts, progress=progress)
    except KeyboardInterrupt:
        log.write(f"\ninterrupted: {len(doc['points'])} finished point(s) kept in {out}\n")
        raise
    png = png or str(out.with_suffix(".png"))
    pngs = plot(doc, png)
    if as_json:
        json.dump(doc, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    print(table(doc), file=log)
    print(f"\nresults: {out}\n         {out.with_suffix('.csv')}\nplot:    " + "\n         ".join(pngs),
          file=log)
    return 0


def cmd_run(a) -> int:
    from netlab.main import UsageError
    from netlab.network import BuildOptions
    try:
        sweep = _sweep_from_args(a)
        check_sweep(sweep)
    except SpecError as e:
        raise UsageError(str(e))
    return execute(sweep, Path(a.out) if a.out else None, a.png,
                   BuildOptions(switch=a.switch, bonding=a.bonding, verbose=a.verbose),
                   a.json, not a.no_progress)


def cmd_merge(a) -> int:
    from netlab.main import UsageError
    from netlab.merge import merge
    from netlab.report import plot, table
    from netlab.results import load, write_atomic, write_csv
    try:
        docs = [load(p) for p in a.documents]
        doc = merge(docs)
    except (OSError, ValueError) as e:  # MergeError is a ValueError
        raise UsageError(f"cannot merge: {e}")
    out = Path(a.out)
    write_atomic(doc, out)
    write_csv(doc, out.with_suffix(".csv"))
    pngs = plot(doc, str(out.with_suffix(".png")))
    print(table(doc))
    hosts = sorted({p.get("host", "?") for p in doc["points"]})
    print(f"\nmerged {len(doc['points'])} points from {len(docs)} shard(s) measured on {', '.join(hosts)}"
          f"{'' if doc['complete'] else ' (INCOMPLETE: some points are missing)'}")
    print(f"results: {out}\nplot:    " + "\n         ".join(pngs))
    return 0


def cmd_plot(a) -> int:
    from netlab.main import UsageError
    from netlab.report import plot, table
    from netlab.results import load
    try:
        doc = load(a.results)
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read results document {a.results}: {e}")
    png = a.png or str(Path(a.results).with_suffix(".png"))
    pngs = plot(doc, png)
    print(table(doc))
    print("plot: " + "\n      ".join(pngs))
    return 0


def load_experiment(path: Path) -> tuple:
    """An experiment file (experiments/*.json) -> (Sweep, paper values)."""
    from netlab.sweep import Sweep
    data = json.loads(path.read_text())
    s = data["sweep"]
    return Sweep(workload=data["workload"], topologies=s["topologies"], rates=s.get("rates", [10.0]),
                 channels=s.get("channels", [None]), placements=s.get("placements", ["any"]),
                 pairs=s.get("pairs", [4]), token_sizes=s.get("token_sizes", [1024]),
                 tokens_in_flight=s.get("tokens_in_flight", [1]), repeats=s.get("repeats", 1),
                 duration=s.get("duration", 2.0), exchanges=s.get("exchanges"), nodes=s.get("nodes"),
                 copies=s.get("copies", 7), remote=s.get("remote", list(range(8))),
                 file_sizes=s.get("file_sizes", [2 << 20]), disk=s.get("disk", "ide-1995"),
                 delay_ms=s.get("delay_ms", 0.0), jitter_ms=s.get("jitter_ms", 0.0),
                 loss_pct=s.get("loss_pct", 0.0), relay_delay_ms=s.get("relay_delay_ms", 0.0)), \
        data.get("paper", {})


def experiment_files() -> dict[str, Path]:
    return {p.stem: p for p in sorted((ROOT / "experiments").glob("*.json"))}


def _print_paper(paper: dict, as_json: bool) -> None:
    if paper.get("notes"):
        log = sys.stderr if as_json else sys.stdout
        print("\nthe papers, for comparison:", file=log)
        for line in paper["notes"]:
            print(f"  - {line}", file=log)


def cmd_experiment(a) -> int:
    from netlab.main import UsageError
    from netlab.network import BuildOptions
    files = experiment_files()
    if a.name == "list":
        for name, path in files.items():
            desc = json.loads(path.read_text()).get("description", "")
            print(f"{name:28s} {desc}")
        return 0
    path = files.get(a.name) or Path(a.name)
    if not path.is_file():
        raise UsageError(f"no experiment {a.name!r}; 'emulate.py experiment list' shows "
                         f"{', '.join(files)}")
    try:
        sweep, paper = load_experiment(path)
        sweep.shard = a.shard
        check_sweep(sweep)
    except (KeyError, ValueError, TypeError) as e:
        raise UsageError(f"experiment file {path} is malformed: {e}")
    except SpecError as e:
        raise UsageError(f"experiment file {path}: {e}")
    rc = execute(sweep, Path(a.out) if a.out else None, a.png,
                 BuildOptions(switch=a.switch, bonding=a.bonding, verbose=a.verbose),
                 a.json, not a.no_progress, paper, name=path.stem)
    _print_paper(paper, a.json)
    return rc


def cmd_default(_args) -> int:
    """The main job: a quick comparison of every preset at 10 Mbit/s."""
    from netlab.main import require_root
    from netlab.network import BuildOptions
    require_root("")
    sweep, paper = load_experiment(QUICK)
    print(f"Beowulf Netlab quick comparison ({QUICK.relative_to(ROOT)}): token exchange, "
          f"{len(sweep.topologies)} topologies at {sweep.rates[0]:g} Mbit/s, "
          f"{sweep.total_points()} points of {sweep.duration:g} s. Ctrl-C keeps finished points.")
    rc = execute(sweep, None, None, BuildOptions(), False, True, paper)
    _print_paper(paper, False)
    print("\nmore: 'emulate.py experiment list' (paper figures, incl. the Disk/Net file-copy test)")
    return rc
