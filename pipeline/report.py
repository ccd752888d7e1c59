"""Turn a results document into what people read: a table and plots.

Reads only validated results documents (pipeline.results.load or a run's own
document); the x axis of token and iperf tables comes from the workload.
"""
from __future__ import annotations

import json
import os
import statistics

from collections import defaultdict

from core.errors import BadInput
from core.values import human_size
from pipeline.results import real_rate
from topologies.hardware import describe_tcp
from workloads import WORKLOADS


CURVE_AXES = ("pairs", "tokens_in_flight", "file_size", "copies")


def varying(doc: dict) -> list[str]:
    """Point axes that take more than one value in the document (besides the x axis)."""
    x_axis = WORKLOADS[doc["workload"]].x_axis
    return [k for k in CURVE_AXES if k != x_axis
            and len({json.dumps(p.get(k), sort_keys=True) for p in doc["points"]}) > 1]


def curve_key(p: dict, extra: list[str] = ()) -> str:
    """One curve: topology, placement and rate, and any axis in `extra` (those that vary);
    a time-scaled point's curve names its D (its rates are shown x D: real_rate)."""
    key = p["topology"]
    if p.get("channels") and p["topology"] == "bonded-dual-net":
        key += f" x{p['channels']}"
    if p["placement"] != "any":
        key += f" ({p['placement']})"
    for k in extra:
        if k in p:
            shown = human_size(p[k]) if k == "file_size" else p[k]
            key += f" {dict(pairs='P', tokens_in_flight='T', file_size='', copies='C')[k]}={shown}"
    key = f"{key} @{p['rate_mbit']:g}Mb"
    if p.get("hardware", "none") != "none":
        key += f" [{p['hardware']}]"
    key += f" D={p['time_scale']:g}" if p.get("time_scale") else ""
    return key + (" +CSMA/CD" if p.get("contention") == "on" else "")


def title(doc: dict, what: str) -> str:
    """The figure's title: the paper figure it rebuilds, else the workload."""
    source = (doc.get("paper") or {}).get("source", "")
    head = source.split(";")[0] if source else f"Beowulf Netlab {doc['workload']}"
    env = doc["environment"]
    return f"{head} - {what}\n(measured: kernel {env.get('kernel', '')}, commit {env.get('project_commit', '')})"


def save(fig, path: str, dpi: int) -> None:
    """Write a figure (creating its directory); an unwritable place is bad input."""
    import matplotlib.pyplot as plt
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        fig.savefig(path, dpi=dpi, bbox_inches="tight")
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror or e}; choose another --png/--out")
    finally:
        plt.close(fig)


SUSPECT_NOTE = "* failed a fidelity gate (see the document's gates): the emulator, not the network, may have set it"


def trusted(p: dict) -> bool:
    """The point passed its fidelity gates (older documents: the monitor's verdict)."""
    gates = p.get("gates")
    return gates["ok"] if gates else not p["fidelity"].get("suspect")


def _finish(lines: list[str], suspect: set) -> str:
    """A table's text, with the footnote when any cell is marked."""
    return "\n".join(lines + ([SUSPECT_NOTE] if suspect else []))


def _mean(vals: list[float]) -> float:
    """The figure a cell or a plotted point shows: the median of the repeats."""
    return statistics.median(vals)


def _cell(vals: list[float], digits: int = 2) -> str:
    """'1.14' for one run, '1.14+-2%' for repeats (half their range, relative to the median)."""
    med = statistics.median(vals)
    if len(vals) < 2 or med <= 0:
        return f"{med:.{digits}f}"
    return f"{med:.{digits}f}+-{(max(vals) - min(vals)) / 2 / med:.0%}"


def _line(ax, pts: dict, **style) -> None:
    """One curve: the median of each x's repeats, error bars from their smallest to largest."""
    xs = sorted(pts)
    meds = [statistics.median(pts[x]) for x in xs]
    lo = [m - min(pts[x]) for m, x in zip(meds, xs)]
    hi = [max(pts[x]) - m for m, x in zip(meds, xs)]
    ax.errorbar(xs, meds, yerr=[lo, hi], marker="o", capsize=3, **style)


def filecopy_table(doc: dict) -> str:
    """Aggregate MB/s per network and file size (rows) vs remote copies (columns)."""
    cells: dict = defaultdict(list)
    suspect: set = set()
    for p in doc["points"]:
        key = (f"{curve_key(p)} {human_size(p['file_size'])}", p["remote"])
        cells[key].append(real_rate(p))
        if not trusted(p):
            suspect.add(key)
    rows = list(dict.fromkeys(k for k, _ in cells))
    remotes = sorted({r for _, r in cells})
    width = max([len(r) for r in rows] + [16]) + 2
    disk = (doc["points"][0].get("disk") or {}) if doc["points"] else {}
    disk = disk if isinstance(disk, dict) else {"profile": disk}
    lines = [f"filecopy aggregate throughput, MB/s (10^6 bytes/s), {doc['points'][0]['copies'] if doc['points'] else '?'}"
             f" copies, disk {disk.get('profile', '?')} ({disk.get('throttle', '?')})",
             "remote copies".ljust(width) + "".join(str(r).rjust(12) for r in remotes)]
    for row in rows:
        line = row.ljust(width)
        for r in remotes:
            vals = cells.get((row, r))
            line += (_cell(vals) + ("*" if (row, r) in suspect else "") if vals else "-").rjust(12)
        lines.append(line)
    return _finish(lines, suspect)


def _reference_lines(ax, doc: dict) -> None:
    """The paper's values, as dashed lines beside the measured curves."""
    for ref in (doc.get("paper") or {}).get("reference_lines", []):
        ax.axhline(ref["y"], linestyle="--", linewidth=1, color="grey")
        ax.annotate(ref["label"], (0, ref["y"]), xytext=(2, 2), textcoords="offset points",
                    fontsize=6, color="dimgrey")


def _filecopy_plot(doc: dict, path: str) -> list[str]:
    """Like IPPS'96 Figures 3/5 (one panel per network, a curve per file size)
    and HPDC'96 Figure 4 (a curve per network, one file size)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for p in doc["points"]:
        data[curve_key(p)][p["file_size"]][p["remote"]].append(real_rate(p))
    nets = list(data)
    cols = min(3, len(nets)) or 1
    rows = (len(nets) + cols - 1) // cols or 1
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.8 * rows), squeeze=False)
    for ax, net in zip(axes.flat, nets):
        for size in sorted(data[net]):
            _line(ax, data[net][size], label=human_size(size))
        _reference_lines(ax, doc)
        ax.set_title(net, fontsize=9)
        ax.set_xlabel("remote copies")
        ax.set_ylabel("aggregate MB/s")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, title="file size", title_fontsize=7, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    for ax in list(axes.flat)[len(nets):]:
        ax.axis("off")
    fig.suptitle(title(doc, "Disk/Net balance, file copies by size"), fontsize=9)
    fig.tight_layout()
    save(fig, path, 100)
    written = [path]
    sizes = sorted({p["file_size"] for p in doc["points"]})
    if len(nets) > 1 and sizes:
        size = 2 << 20 if (2 << 20) in sizes else sizes[len(sizes) // 2]
        fig, ax = plt.subplots(figsize=(8, 5))
        for net in nets:
            pts = data[net].get(size)
            if pts:
                _line(ax, pts, label=net)
        _reference_lines(ax, doc)
        ax.set_xlabel("remote (internode) copies")
        ax.set_ylabel("aggregate MB/s")
        ax.set_ylim(bottom=0)
        ax.set_title(title(doc, f"Disk/Net balance, {human_size(size)} files, by network"), fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        fig.tight_layout()
        second = path[:-4] + "-networks.png" if path.endswith(".png") else path + "-networks.png"
        save(fig, second, 100)
        written.append(second)
    return written


def _scale_note(doc: dict) -> str:
    ds = sorted({p.get("time_scale", 1) for p in doc["points"]})
    return "" if ds == [1] else (f" (time-scaled by D = {', '.join(f'{d:g}' for d in ds)}: measured x D, "
                                 "the real network's figures)")


def pfs_table(doc: dict) -> str:
    """The baselines per node, then aggregate read/write per stripe size and local fraction,
    all as the real network's MB/s (x D); '*' marks suspect points."""
    lines = [f"pfs: MB/s (10^6 bytes/s){_scale_note(doc)}"]
    suspect: set = set()
    nets = list(dict.fromkeys(curve_key(p) for p in doc["points"]))
    for net in nets:
        pts = [p for p in doc["points"] if curve_key(p) == net]
        lines.append(f"{net}, {pts[0]['nodes']} nodes")
        for test, what in (("ttcp", "ttcp per node"), ("bonnie", "bonnie per node, read/write")):
            base = [p for p in pts if p["test"] == test]
            if base:
                mark = "*" if not all(trusted(p) for p in base) else ""
                suspect |= {mark} - {""}
                vals = (f"{_mean([real_rate(p, 'read_mbyte_s') for p in base]):.1f} / "
                        f"{_mean([real_rate(p, 'write_mbyte_s') for p in base]):.1f}" if test == "bonnie"
                        else f"{_mean([real_rate(p) for p in base]):.1f}")
                lines.append(f"  {what:32s}{vals}{mark}")
        runs = [p for p in pts if p["test"] == "pfs"]
        fracs = sorted({p["local_fraction"] for p in runs}, reverse=True)
        if runs:
            lines.append("  aggregate read/write, by local fraction (measured local share):")
            lines.append("  " + "stripe".ljust(10) + "".join(f"{f:g}".rjust(20) for f in fracs))
            for size in sorted({p["stripe_size"] for p in runs}):
                row = "  " + human_size(size).ljust(10)
                for f in fracs:
                    cell = [p for p in runs if p["stripe_size"] == size and p["local_fraction"] == f]
                    if not cell:
                        row += "-".rjust(20)
                        continue
                    mark = "" if all(trusted(p) for p in cell) else "*"
                    suspect |= {mark} - {""}
                    share = _mean([p.get("local_fraction_measured") or 0.0 for p in cell])
                    row += (f"{_mean([real_rate(p, 'read_mbyte_s') for p in cell]):.0f}/"
                            f"{_mean([real_rate(p, 'write_mbyte_s') for p in cell]):.0f} ({share:.2f}){mark}"
                            ).rjust(20)
                lines.append(row)
    return _finish(lines, suspect)


def _pfs_plot(doc: dict, path: str) -> list[str]:
    """Aggregate read and write (x D) against the local fraction, one curve per stripe size,
    beside what the nodes' disks and the network alone could carry."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5.5))
    runs = [p for p in doc["points"] if p["test"] == "pfs"]
    colours = plt.get_cmap("tab10")
    for i, size in enumerate(sorted({p["stripe_size"] for p in runs})):
        for metric, style in (("read_mbyte_s", "-"), ("write_mbyte_s", "--")):
            pts = defaultdict(list)
            for p in runs:
                if p["stripe_size"] == size:
                    pts[p["local_fraction"]].append(real_rate(p, metric))
            _line(ax, pts, linestyle=style, color=colours(i % 10),
                  label=f"{metric.split('_')[0]}, stripe {human_size(size)}")
    nodes = max((p["nodes"] for p in doc["points"]), default=0)
    for test, label, colour in (("ttcp", "network alone: nodes x ttcp (measured)", "grey"),
                                ("bonnie", "disks alone: nodes x bonnie (measured)", "brown")):
        base = [real_rate(p) for p in doc["points"] if p["test"] == test]
        if base:
            ax.axhline(nodes * _mean(base), color=colour, ls=":", lw=1.5)
            ax.annotate(label, (1, nodes * _mean(base)), xycoords=("axes fraction", "data"),
                        xytext=(-4, -10), textcoords="offset points", ha="right", fontsize=7, color=colour)
    _reference_lines(ax, doc)
    ax.set_xlabel("local fraction (file view: share of each rank's blocks in its own node's stripe)")
    return _finish_plot(fig, ax, path, f"aggregate MB/s{' (measured x D)' if _scale_note(doc) else ''}",
                        title(doc, f"parallel file system, {nodes} nodes{_scale_note(doc)}"))


def _finish_plot(fig, ax, path: str, ylabel: str, heading: str) -> list[str]:
    """The common end of a one-panel figure: labels from 0, grid, legend outside, saved."""
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(heading, fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    save(fig, path, 110)
    return [path]


def sweep_points(doc: dict) -> dict:
    """The document without its calibration measurements (they are reported on their own)."""
    return {**doc, "points": [p for p in doc["points"] if not p.get("calibration_of")]}


def table(doc: dict) -> str:
    """Median throughput (MB/s) per curve and x, +-half the range of its repeats; '*' marks
    suspect points; the TCP the nodes ran is named under the table."""
    doc = sweep_points(doc)
    return _table(doc) + tcp_note(doc)


def tcp_note(doc: dict) -> str:
    seen = {}
    for p in doc["points"]:
        t = p.get("tcp")
        key = p.get("hardware", "none")
        if t and key not in seen:
            seen[key] = describe_tcp(t)
        elif not t:
            seen.setdefault(key, "not recorded (the host's own)")
    if not seen:
        return ""
    return "\nTCP: " + "; ".join(f"{v} on hardware {k}" for k, v in seen.items())


def _table(doc: dict) -> str:
    if doc["workload"] == "filecopy":
        return filecopy_table(doc)
    if doc["workload"] == "pfs":
        return pfs_table(doc)
    cells: dict = defaultdict(list)
    suspect: set = set()
    sizes: set = set()
    x_axis = WORKLOADS[doc["workload"]].x_axis
    extra = varying(doc)
    for p in doc["points"]:
        x = p[x_axis]
        sizes.add(x)
        cells[(curve_key(p, extra), x)].append(real_rate(p))
        if not trusted(p):
            suspect.add((curve_key(p, extra), x))
    curves = list(dict.fromkeys(curve_key(p, extra) for p in doc["points"]))
    xs = sorted(sizes)
    label = x_axis.replace("_", " ")
    width = max([len(c) for c in curves] + [len(label)]) + 2
    runs = max((len(v) for v in cells.values()), default=1)
    lines = [f"{doc['workload']} throughput, MB/s (10^6 bytes/s of payload)"
             + (f"; median of {runs} runs +- half their range" if runs > 1 else ""),
             label.ljust(width) + "".join((human_size(x) if x_axis == "token_size" else str(x)).rjust(12)
                                          for x in xs)]
    for c in curves:
        row = c.ljust(width)
        for x in xs:
            vals = cells.get((c, x))
            cell = _cell(vals) + ("*" if (c, x) in suspect else "") if vals else "-"
            row += cell.rjust(12)
        lines.append(row)
    return _finish(lines, suspect)


def _paper_marks(ax, doc: dict) -> None:
    """The paper's values at an x, as labelled markers beside the measured curves."""
    for ref in (doc.get("paper") or {}).get("reference_points", []):
        ax.plot([ref["x"]], [ref["y"]], marker="*", markersize=12, color="black", linestyle="none")
        ax.annotate(ref["label"], (ref["x"], ref["y"]), xytext=(6, -3), textcoords="offset points",
                    fontsize=7)


def plot(doc: dict, path: str) -> list[str]:
    """Throughput against the figure's x axis (token size or pairs), one curve per
    topology/placement (and per varying axis), the paper's values overlaid.
    Returns the files written."""
    doc = sweep_points(doc)
    if doc["workload"] == "filecopy":
        return _filecopy_plot(doc, path)
    if doc["workload"] == "pfs":
        return _pfs_plot(doc, path)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict = defaultdict(lambda: defaultdict(list))
    x_axis = WORKLOADS[doc["workload"]].x_axis
    extra = varying(doc)
    for p in doc["points"]:
        series[curve_key(p, extra)][p[x_axis]].append(real_rate(p))
    fig, ax = plt.subplots(figsize=(10, 5.5))
    for name, pts in series.items():
        _line(ax, pts, label=name)
    _reference_lines(ax, doc)
    _paper_marks(ax, doc)
    if x_axis == "token_size":
        sizes = sorted({p["token_size"] for p in doc["points"]})
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.set_xticklabels([f"{human_size(x)}B" for x in sizes])
        ax.minorticks_off()
        ax.set_xlabel("token size")
    else:
        ax.set_xlabel(x_axis.replace("_", " "))
    return _finish_plot(fig, ax, path, "aggregate throughput, MB/s of payload",
                        title(doc, f"{doc['workload']} throughput"))
