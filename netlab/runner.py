"""Run a sweep: build each network once, run every point on it, tear it down.

Data flows one way: sweep -> spec -> Testbed -> workload -> points -> document.
The document is rewritten (atomically) after every point, so an interrupted
sweep keeps what it finished.
"""
from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

from netlab.monitor import Monitor
from netlab.network import BuildOptions, Testbed
from netlab.report import human_size
from netlab.results import write_atomic, write_csv
from netlab.sweep import Sweep
from workloads.placement import place


class Progress:
    """A one-line progress bar on stderr (plain lines when not a terminal)."""

    def __init__(self, total: int, enabled: bool = True):
        self.total, self.done, self.enabled = total, 0, enabled
        self.tty = sys.stderr.isatty()

    def step(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        line = f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {label}"
        if self.tty:
            sys.stderr.write("\r" + line[:110].ljust(110))
            if self.done == self.total:
                sys.stderr.write("\n")
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def filecopy_plan(spec, pt: dict):
    from workloads.filecopy import plan
    return plan(spec, pt["copies"], pt["remote"], pt["placement"])


def make_disks(tb: Testbed, sweep: Sweep, points: list[dict]):
    """Disks for every node that some point of this network copies on."""
    from netlab.disk_profiles import parse_disk
    from netlab.disks import DiskSet
    from workloads.filecopy import nodes_used
    nodes = {n for pt in points for n in nodes_used(filecopy_plan(tb.spec, pt))}
    order = [n.name for n in tb.spec.nodes if n.name in nodes]
    return DiskSet(tb.manifest, parse_disk(sweep.disk), order, max(sweep.file_sizes)).create()


def run_filecopy_point(tb: Testbed, disks, pt: dict) -> dict:
    from workloads import filecopy
    copies = filecopy_plan(tb.spec, pt)
    wires = [tb.wire(w.name) for w in tb.spec.wires]
    with Monitor(wires) as mon:
        res = filecopy.run_point(tb, disks, copies, pt["file_size"])
    return {**res, "copies_placed": [c.describe() for c in copies], "disk": disks.record(),
            "fidelity": mon.report()}


def run_point(tb: Testbed, workload: str, pt: dict, sweep: Sweep, disks=None) -> dict:
    from workloads import iperf, token
    if workload == "filecopy":
        return run_filecopy_point(tb, disks, pt)
    pairs = place(tb.spec, pt["pairs"], pt["placement"])
    hosts = [(tb.host(p.src), tb.host(p.dst)) for p in pairs]
    wires = [tb.wire(w.name) for w in tb.spec.wires]
    with Monitor(wires) as mon:
        if workload == "token":
            res = token.run_point(hosts, pt["token_size"], pt["tokens_in_flight"],
                                  duration=sweep.duration, exchanges=sweep.exchanges)
        else:
            flows = iperf.run_pairs(hosts, seconds=sweep.duration or 5, omit=1)
            total = sum(f.goodput_mbit for f in flows)
            res = {"throughput_mbyte_s": total / 8, "goodput_mbit": total,
                   "per_pair": [f.__dict__ for f in flows]}
    return {**res, "pairs_placed": [p.describe() for p in pairs], "fidelity": mon.report()}


def run_sweep(sweep: Sweep, doc: dict, out: Path, opts: BuildOptions, progress: bool = True,
              on_point=None) -> dict:
    bar = Progress(sweep.total_points(), progress)
    csv_path = out.with_suffix(".csv")
    host = os.environ.get("NETLAB_HOST_LABEL") or platform.node()
    for spec, points in sweep.schedule():
        with Testbed(spec, opts) as tb:
            env = tb.environment()
            doc["environment"]["topologies"][f"{spec.topology}@{spec.params['rate_mbit']:g}"] = {
                k: v for k, v in env.items() if k != "capabilities"}
            doc["environment"].setdefault("capabilities", env["capabilities"])
            disks = make_disks(tb, sweep, points) if sweep.workload == "filecopy" else None
            for pt in points:
                result = run_point(tb, sweep.workload, pt, sweep, disks)
                point = {"topology": spec.topology, "rate_mbit": spec.params["rate_mbit"],
                         "channels": spec.params.get("channels"), "nodes": len(spec.nodes),
                         "workload": sweep.workload, **pt, **result,
                         "bonding_impl": env["bonding_impl"], "switch_impl": env["switch_impl"],
                         "host": host}
                doc["points"].append(point)
                write_atomic(doc, out)
                write_csv(doc, csv_path)
                if on_point:
                    on_point(point)
                size = f" {pt['token_size']}B" if "token_size" in pt else ""
                if "file_size" in pt:
                    size = f" {human_size(pt['file_size'])} remote={pt['remote']}"
                bar.step(f"{spec.topology} {pt['placement']}{size}: "
                         f"{point['throughput_mbyte_s']:.2f} MB/s")
    doc["complete"] = True
    write_atomic(doc, out)
    return doc
