"""A session on the testbed: sweeps run into results documents, or the CLI on one network.

Why one module: run, experiment, reproduce, the exercises' checks and the quick
job all go the same way, so the way lives once here. Every check comes first,
in order (the sweep, the output paths, root, whether this host can build every
network), before anything is created and before Mininet is imported, so a bad
input gets its one line on any python3; Mininet is imported only once a run is
certain (`Session.run`, `open_cli`). The commands parse arguments and print.
"""
from __future__ import annotations

import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from beowulf_netlab.core.errors import BadInput, RuntimeFailure
from beowulf_netlab.netlab.capabilities import Capabilities, probe
from beowulf_netlab.netlab.impls import BuildOptions
from beowulf_netlab.run import estimate
from beowulf_netlab.run.derive import shared_points, take_networks
from beowulf_netlab.run.results import RESULTS_DIR, new_document
from beowulf_netlab.run.store import check_writable, write_atomic
from beowulf_netlab.run.sweep import Sweep, network_key


def require_root(command: str) -> None:
    """Namespaces and qdiscs need root: say so (BadInput), naming the command to rerun."""
    if os.geteuid() != 0:
        line = " ".join(["emulate.py", *command.split()])
        raise BadInput(f"{line} needs root to create namespaces and qdiscs: run it as "
                       f"'sudo python3 {line}'")


def check_buildable_here(sweeps: list[Sweep], opts: BuildOptions) -> Capabilities:
    """Every network of every sweep can be built on this host, or one line (exit 2)
    before a results file exists: missing tools, netem, a forced bonding or switch
    implementation this kernel lacks, NETLAB_REQUIRE_KERNEL refusals. Returns the
    probed capabilities, so each network is not probed again."""
    from beowulf_netlab.netlab.impls import check_buildable
    caps = probe()
    for sweep in sweeps:
        for spec in sweep.specs():
            check_buildable(spec, caps, opts)
    return caps


class Session:
    """Checks everything a set of sweeps needs before anything exists, then runs
    them one at a time. `docs` holds each document from the moment its run starts (its file
    is written with its first point), so an interrupted caller still has the partial one."""

    def __init__(self, verb: str, opts: BuildOptions, sweeps: list[Sweep], outputs: list[Path],
                 checked: bool = False):
        """checked: the sweeps were checked when read (reproduce applies a shard to each
        experiment afterwards, and a shard may hold few points of a small one)."""
        if not checked:
            for sweep in sweeps:
                sweep.check()
        for path in outputs:
            check_writable(Path(path))
        require_root(verb)
        self.opts = opts
        self.caps = check_buildable_here(sweeps, opts)
        self.docs: dict[str, dict] = {}

    def run(self, sweep: Sweep, out: Path, paper: dict | None = None, name: str | None = None,
            progress: bool = True, same_points_as: list[str] | None = None, only=None) -> dict:
        """Create sweep's results document at out, run every point into it, return it.
        same_points_as: documents of this session whose points with the same configuration
        are taken instead of measured again (run.derive); only: which points this pass measures
        (run.runner.run_sweep; `extend` measures others later)."""
        from beowulf_netlab.run.runner import run_sweep   # imports Mininet: the run is certain now
        doc = new_document(sweep.workload, sweep.parameters(), paper, name)
        doc["total_points"] = sweep.total_points()
        if sweep.unread_points():
            doc["unread_points"] = sweep.unread_points()
        if sweep.shard:
            doc["shard"] = f"{sweep.shard[0]}/{sweep.shard[1]}"
        sources = {n: self.docs[n] for n in (same_points_as or []) if n in self.docs}
        shared = shared_points(sweep, sources) if sources else []
        if shared:
            doc["points"] = shared
            doc["same_points_as"] = sorted({p["measured_in"] for p in shared})
            keys = {network_key(spec) for spec in sweep.specs()}
            for src in doc["same_points_as"]:     # the networks those points were measured on
                take_networks(doc, self.docs[src], keys)
            write_atomic(doc, out)
        # otherwise the file is first written with the first point measured (run.runner): a run
        # refused before it (a network this host cannot build, a gate) leaves no results file
        # (it left an empty document at --out, over whatever was there)
        self.docs[name or sweep.workload] = doc
        run_sweep(sweep, doc, out, self.opts, progress=progress, caps=self.caps,
                  have={p["point_index"] for p in shared}, sources=sources, only=only)
        return doc

    def extend(self, name: str, sweep: Sweep, out: Path, only, progress: bool = True) -> dict:
        """Measure more of a sweep this session already ran into its document (`name`): the
        points `only` picks that the document does not hold yet."""
        from beowulf_netlab.run.runner import run_sweep
        doc = self.docs[name]
        held = {p["point_index"] for p in doc["points"] if "point_index" in p}
        run_sweep(sweep, doc, out, self.opts, progress=progress, caps=self.caps, have=held, only=only)
        return doc


def run_one(sweep: Sweep, out: Path | None, png: str | None, opts: BuildOptions, verb: str,
            paper: dict | None = None, name: str | None = None, progress: bool = True,
            log: TextIO = sys.stdout) -> tuple[dict, Path, str]:
    """run, experiment and the quick job: one sweep into out (default
    results/<time>-<name>.json). Returns the document, where it is and where its plot goes
    (default beside it; judge.summary draws it and says what was measured).
    Ctrl-C and failures say how many points were kept, and where."""
    out = out or RESULTS_DIR / f"{time.strftime('%Y%m%d-%H%M%S')}-{name or sweep.workload}.json"
    png = png or str(out.with_suffix(".png"))
    if opts.capture and not opts.capture_out:   # --capture WIRE: beside the results
        opts = dataclasses.replace(opts, capture_out=str(out.with_suffix("")))
    session = Session(verb, opts, [sweep], [out, Path(png)])
    log.write(f"measuring {estimate.of_sweep(sweep).line()}\n")
    log.flush()
    key = name or sweep.workload
    try:
        doc = session.run(sweep, out, paper, name, progress)
    except KeyboardInterrupt:
        if session.docs.get(key, {}).get("points"):
            log.write(f"\ninterrupted: {len(session.docs[key]['points'])} finished point(s) kept in {out}\n")
        raise
    except RuntimeFailure as e:
        if not session.docs.get(key, {}).get("points"):
            raise
        raise type(e)(f"{e}; {len(session.docs[key]['points'])} finished point(s) kept in {out}") from e
    return doc, out, png


def open_cli(spec, opts: BuildOptions, before: str = "") -> int:
    """Build spec, print `before` (an exercise's tasks) and a banner, run Mininet's
    CLI, tear down. The caller has checked its input and root."""
    from mininet.log import lg

    from beowulf_netlab.netlab.console import run_cli
    from beowulf_netlab.netlab.testbed import Testbed
    from beowulf_netlab.run.hostpath import subtract_host_path
    for handler in lg.handlers:  # node output is the CLI's product: stdout, in order
        handler.setStream(sys.stdout)
    with Testbed(spec, opts) as tb:
        subtract_host_path(tb)
        env = tb.environment()
        if before:
            print(before)
        print(f"*** {spec.topology}: {len(spec.nodes)} nodes, {len(spec.wires)} wire(s) at "
              f"{spec.params['rate_mbit']:g} Mbit/s; bonding: {env['bonding_impl'] or '-'}; "
              f"switches: {env['switch_impl'] or '-'}; hardware: {env['hardware']}; "
              f"built in {env['build_s']:.1f} s")
        print("*** try: b0 ping -c1 b1 | b1 iperf3 -s -D | b0 iperf3 -c b1 -t 5 | wires | exit",
              flush=True)
        run_cli(tb.net)
    return 0
