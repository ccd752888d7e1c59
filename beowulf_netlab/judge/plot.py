"""A results document as a figure, drawn as the papers drew theirs.

Division of labor: `judge.table` groups the points into the series the
workload's `Figure` declares; this module draws them: one axes per hardware view
with every configuration on it (a colour each, the same on every view), one line
style per view, the paper's values, error bars from the repeats, gate-failed points
marked, and lines only between neighbours that were both measured. `plot_series` draws
what happened within points instead: each flow's throughput over time (an iperf
point's per-interval series), the wire's rate beside it.
"""
from __future__ import annotations

import hashlib
import math
from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.safefile import atomic_binary
from beowulf_netlab.core.values import human_size
from beowulf_netlab.topologies.ethernet import tcp_goodput_limit_mbit
from beowulf_netlab.judge.forced import matches
from beowulf_netlab.run.results import real_intervals, real_rate
from beowulf_netlab.judge.table import (PAPER_VIEW_STYLE, TODAY_VIEW_STYLE, Series, config_key, figure_of, levels, median,
                            scale_note, series, sweep_points)
from beowulf_netlab.topologies.hardware import hardware_of
from beowulf_netlab.topologies.timescale import time_scale_of
from beowulf_netlab.workloads import WORKLOADS

METRIC_MARKERS = ("o", "s", "^", "D")
# a configuration's colour comes from this fixed list by its name's hash (configuration_colours):
# tab10 without its red (a red cross marks a point that failed a gate) and its grey (the levels'),
# then five of other hues and darkness, each told apart from the rest at a glance; never reordered,
# so a colour stays its configuration's
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf",
           "#000075", "#800000", "#469990", "#c71585", "#b8860b")


def _home(config: str) -> int:
    """The configuration's own slot: its name hashed (sha256: the same on every host and version)."""
    return int.from_bytes(hashlib.sha256(config.encode()).digest()[:8], "big") % len(PALETTE)


def configuration_colours(configs: list[str]) -> dict[str, str]:
    """A colour per configuration (judge.table.config_key: topology, placement, rate, ...; not the
    hardware view, which the line style tells), the same in every figure, file and report: its home
    slot, or, when a configuration that sorts before it (by home slot, then name: never by the
    order a file lists them) holds that slot in the same figure, the next free one (so only a
    figure that holds such a neighbour moves it). Beyond the palette's size colours repeat."""
    out: dict[str, str] = {}
    taken: set[int] = set()
    for c in sorted(set(configs), key=lambda c: (_home(c), c)):
        slot = _home(c)
        if len(taken) < len(PALETTE):
            while slot in taken:
                slot = (slot + 1) % len(PALETTE)
        taken.add(slot)
        out[c] = PALETTE[slot]
    return out


def title(doc: dict, what: str) -> str:
    """The figure's title: the paper figure it rebuilds, else the workload."""
    source = (doc.get("paper") or {}).get("source", "")
    head = source.split(";")[0] if source else f"Beowulf Netlab {doc['workload']}"
    env = doc["environment"]
    if len({p.get("run") for p in doc["points"]}) > 1:     # overlaid runs (plot A B): each has its own
        return f"{head} - {what}\n(overlaid runs: each one's environment is in the legend)"
    return f"{head} - {what}\n(measured: kernel {env.get('kernel', '')}, commit {env.get('project_commit', '')})"


FORMATS = ("png", "svg", "pdf")   # a plot's format is its file name's extension


def image_format(path: str) -> str:
    """The format a plot is written in: its name's extension (png without one); another
    extension is bad input, so `x.svg` never holds PNG bytes."""
    ext = Path(path).suffix.lower().lstrip(".")
    if not ext:
        return "png"
    if ext not in FORMATS:
        raise BadInput(f"{path}: a plot is written as .png, .svg or .pdf (its name's extension says which)")
    return ext


def save(fig, path: str, dpi: int) -> None:
    """Write a figure (creating its directory) in its name's format; an unwritable place is bad input."""
    import matplotlib.pyplot as plt
    fmt = image_format(path)
    try:
        with atomic_binary(Path(path)) as f:   # never through a link planted at path
            fig.savefig(f, dpi=dpi, bbox_inches="tight", format=fmt)
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror or e}; choose another --png/--out")
    finally:
        plt.close(fig)


def neighbours(a, b, step: str | None) -> bool:
    """Whether a line may join two measured xs: nothing the sweep defines lies between them."""
    if step == "one":
        return abs(b - a) <= 1
    if step == "double":
        return a > 0 and b > 0 and abs(math.log2(b / a)) <= 1.0001
    return True


def runs(xs: list, step: str | None) -> list[list]:
    """The sorted xs cut where two neighbours are not adjacent: each run is one line."""
    out: list[list] = []
    for x in sorted(xs):
        if out and neighbours(out[-1][-1], x, step):
            out[-1].append(x)
        else:
            out.append([x])
    return out


def view_title(view: str) -> str:
    return "today's hosts (--hardware none)" if view == "none" else f"the paper's hardware: {view}"


COINCIDE = 0.015          # curves this close at every x are drawn as one on top of the other


def coincides(a: Series, b: Series) -> bool:
    """Same xs, and every median within COINCIDE of the other's: drawn over it, it would hide it."""
    if sorted(a.values) != sorted(b.values):
        return False
    return all(abs(median(a.values[x]) - median(b.values[x]))
               <= COINCIDE * max(abs(median(a.values[x])), abs(median(b.values[x])), 1e-12) for x in a.values)


def _draw(ax, s: Series, colour, marker: str, style: str, step: str | None, over: bool = False) -> None:
    """One curve. `over`: it lies on an earlier one, so it is drawn as alternate dashes and small
    markers in its own colour, and both stay visible."""
    xs = sorted(s.values)
    meds = [median(s.values[x]) for x in xs]
    lo = [m - min(s.values[x]) for m, x in zip(meds, xs)]
    hi = [max(s.values[x]) - m for m, x in zip(meds, xs)]
    hollow = marker != METRIC_MARKERS[0]
    size = (8 if hollow else 5) * (0.55 if over else 1)
    ax.errorbar(xs, meds, yerr=[lo, hi], fmt=marker, color=colour, capsize=3, markersize=size,
                markerfacecolor="white" if hollow else colour, linestyle="none", zorder=3 if over else 2)
    at = dict(zip(xs, meds))
    for run in runs(xs, step):
        if len(run) > 1:
            ax.plot(run, [at[x] for x in run], linestyle=(3, (3, 3)) if over else style, color=colour,
                    linewidth=1.4, zorder=3 if over else 2)
    bad = sorted(x for x in s.suspect if x in s.values)
    if bad:
        ax.plot(bad, [median(s.values[x]) for x in bad], linestyle="none", marker="x", color="red",
                markersize=11, markeredgewidth=2, zorder=5)


def _lines(doc: dict) -> tuple[list[dict], list[dict]]:
    """(the paper's reference lines drawn, those left out): a line for a cluster size (`nodes`)
    is drawn only beside points of that size (a quick run's 4 nodes are not the paper's 32)."""
    sizes = {p.get("nodes") for p in doc["points"]}
    lines = (doc.get("paper") or {}).get("reference_lines", [])
    drawn = [r for r in lines if "nodes" not in r or r["nodes"] in sizes]
    return drawn, [r for r in lines if r not in drawn]


def line_level(doc: dict, ref: dict, view: str) -> float | None:
    """A reference line's level on one hardware view: its paper value `y`, or, for a line `of`
    this run (e.g. all-local / 4), the median of the view's points it selects x its scale."""
    if "y" in ref:
        return ref["y"]
    of = ref["of"]
    first_run = doc["points"][0].get("run") if doc["points"] else None   # overlaid: the first document's
    values = [real_rate(p) for p in doc["points"] if hardware_of(p) == view and not p.get("calibration_of")
              and p.get("run") == first_run and isinstance(p.get("throughput_mbyte_s"), (int, float))
              and matches(p, of["where"])]
    return median(values) * of["scale"] if values else None


def _paper(ax, doc: dict, view: str = "none") -> bool:
    """The paper's values: levels as dotted lines, points as black stars; False if it gives none."""
    paper = doc.get("paper") or {}
    for ref in _lines(doc)[0]:
        y = line_level(doc, ref, view)
        if y is None:
            continue
        ax.axhline(y, linestyle=":", linewidth=1.2, color="black")
        ax.annotate(ref["label"] + (f" ({y:.3g} here)" if "of" in ref else ""), (0.01, y),
                    xycoords=("axes fraction", "data"), xytext=(2, 2),
                    textcoords="offset points", fontsize=6.5, color="black")
    for ref in paper.get("reference_points", []):
        ax.plot([ref["x"]], [ref["y"]], marker="*", markersize=13, color="black", linestyle="none", zorder=6)
        ax.annotate(ref["label"], (ref["x"], ref["y"]), xytext=(-8, 5), textcoords="offset points",
                    ha="right", fontsize=6.5)
    return bool(_lines(doc)[0] or paper.get("reference_points"))


def plot(doc: dict, path: str) -> list[str]:
    """Write the document's figure to `path`; returns the files written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    doc = sweep_points(doc)
    decl = figure_of(doc)
    curves = series(doc)
    lv = levels(doc)
    views = sorted({s.view for s in curves} | {v for v, *_ in lv}, key=lambda v: (v == "none", v)) or ["none"]
    # overlaid runs (plot A B): one colour per configuration across runs, one marker per run
    runs_of = {s.config: s.config[1:].split("] ", 1) if s.config.startswith("[") else ["", s.config]
               for s in curves}
    configs = list(dict.fromkeys(runs_of[s.config][1] for s in curves))
    run_names = list(dict.fromkeys(runs_of[s.config][0] for s in curves))
    colour: dict[str, str] = dict(configuration_colours(configs))
    colour.update({s.config: colour[runs_of[s.config][1]] for s in curves})
    metrics = list(dict.fromkeys(s.metric_label for s in curves))
    overlaid = len(run_names) > 1
    cols = min(len(views), 3)
    rows = math.ceil(len(views) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.6 * cols, 4.2 * rows), squeeze=False, sharey=True)
    has_paper = False
    on_top: dict[str, dict[str, str]] = {}   # configuration -> view -> the one it lies on there
    for ax, view in zip(axes.flat, views):
        style = TODAY_VIEW_STYLE if view == "none" else PAPER_VIEW_STYLE
        drawn: list[Series] = []
        for s in curves:
            if s.view == view:
                which = run_names.index(runs_of[s.config][0]) if overlaid else metrics.index(s.metric_label)
                under = next((d for d in drawn if coincides(d, s)), None)
                on_top.setdefault(runs_of[s.config][1], {})[view] = \
                    runs_of[under.config][1] if under is not None else ""
                _draw(ax, s, colour[s.config], METRIC_MARKERS[which % 4], style, decl.x_step, over=under is not None)
                drawn.append(s)
        here = [(label, median(vals), ok) for v, _, label, vals, ok in lv if v == view]
        for i, (label, y, ok) in enumerate(sorted(here, key=lambda t: t[1])):
            ax.axhline(y, color="dimgrey", linestyle="-." if ok else ":", linewidth=1)
            # labels of near-equal levels are staggered, so each stays legible
            ax.annotate(f"{label}{'' if ok else ' (failed a gate)'}", (0.99, y),
                        xycoords=("axes fraction", "data"), xytext=(0, 3 + 9 * i), textcoords="offset points",
                        ha="right", fontsize=6.5, color="dimgrey")
        has_paper = _paper(ax, doc, view) or has_paper
        ax.set_title(view_title(view), fontsize=9)
        ax.set_xlabel(decl.x_label, fontsize=8)
        ax.grid(True, alpha=0.3)
        if decl.x_scale == "log2":
            xs = sorted({x for s in curves for x in s.values})
            ax.set_xscale("log", base=2)
            ax.set_xticks(xs)
            ax.set_xticklabels([f"{human_size(x)}B" for x in xs], fontsize=7)
            ax.minorticks_off()
    for ax in list(axes.flat)[:len(views)]:
        ax.autoscale_view()
        ax.set_ylim(bottom=0)      # after every panel is drawn: the shared axis holds all of them
    for ax in axes[:, 0]:
        ax.set_ylabel(decl.y_label + (" x D" if scale_note(doc) else ""), fontsize=8)
    for ax in list(axes.flat)[len(views):]:
        ax.axis("off")
    def lies_on(c: str) -> str:
        """The configuration c lies on in every view it is drawn in, else ''."""
        under = set((on_top.get(c) or {"": ""}).values())
        return under.pop() if len(under) == 1 and "" not in under and c not in under else ""
    handles = [Line2D([], [], color=colour[c], marker="s", markersize=8, linestyle="none",
                      label=c + (f"\n  same values as {lies_on(c)}" if lies_on(c) else ""))
               for c in configs]
    if overlaid:
        handles += [Line2D([], [], color="black", marker=METRIC_MARKERS[i % 4], linestyle="none",
                           markerfacecolor="black" if i == 0 else "white",
                           label=f"run {r}" + (f" ({doc['run_notes'][r]})" if (doc.get("run_notes") or {}).get(r) else ""))
                    for i, r in enumerate(run_names)]
    elif len(metrics) > 1:
        handles += [Line2D([], [], color="black", marker=METRIC_MARKERS[i % 4], linestyle="none",
                           markerfacecolor="black" if i == 0 else "white", label=m or "value")
                    for i, m in enumerate(metrics)]
    handles += [Line2D([], [], color="black", linestyle=PAPER_VIEW_STYLE, label="the paper's hardware (solid)")
                for v in views if v != "none"][:1]
    if "none" in views:
        handles.append(Line2D([], [], color="black", linestyle=TODAY_VIEW_STYLE, label="today's hosts (dashed)"))
    if any(len(v) > 1 for s in curves for v in s.values.values()):   # no bars to explain otherwise
        handles.append(Line2D([], [], color="grey", linestyle="none", marker="|", markersize=10,
                              label="bars: smallest..largest repeat"))
    if any(s.suspect for s in curves):
        handles.append(Line2D([], [], color="red", marker="x", linestyle="none", markersize=9,
                              markeredgewidth=2, label="failed a fidelity gate (not trusted)"))
    if has_paper:
        handles.append(Line2D([], [], color="black", marker="*", linestyle=":", markersize=11,
                              label="the paper's values (stars, dotted lines)"))
    elif doc.get("paper") and not _lines(doc)[1]:
        handles.append(Line2D([], [], color="none", label="the paper gives no values for this figure"))
    left = _lines(doc)[1]
    if left:
        sizes = ", ".join(sorted({str(p.get("nodes")) for p in doc["points"]}))
        handles.append(Line2D([], [], color="none", label=f"the paper's {left[0]['nodes']}-node values are not "
                                                           f"drawn beside {sizes} nodes"))
    fig.suptitle(title(doc, decl.what + scale_note(doc)), fontsize=9)
    fig.tight_layout()
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2 if cols < 2 else 3,
               fontsize=7.5, frameon=False)
    save(fig, path, 110)
    return [path]


SERIES_PANELS = 12                  # points drawn by default in one series figure
RUN_STYLES = ("-", "--", ":", "-.")


def _series_key(p: dict):
    """A point's identity across overlaid runs: its index in the sweep (a calibration point,
    which has none, its calibration and repeat)."""
    return p["point_index"] if "point_index" in p else f"{p.get('calibration_of')} #{p['repeat']}"


def series_panels(doc: dict, chosen: list[int] | None = None,
                  most: int = SERIES_PANELS) -> tuple[list[list[dict]], str]:
    """The points to draw over time, grouped by point (one group per axes, one point per run in
    it), and a note of what was left out; BadInput when none has a series or a chosen one is
    not there."""
    with_series = [p for p in doc["points"] if real_intervals(p)]
    if not with_series:
        raise BadInput("plot --series: no point of the document has a flow's throughput over time "
                       "(iperf points record one; documents from before it do not): drop --series")
    groups: dict = {}
    for p in with_series:
        groups.setdefault(_series_key(p), []).append(p)
    if chosen:
        missing = [c for c in chosen if c not in groups]
        if missing:
            have = ", ".join(str(k) for k in list(groups)[:20]) + (", ..." if len(groups) > 20 else "")
            raise BadInput(f"plot --point {missing[0]}: no point of that index has a series "
                           f"(points with one: {have})")
        return [groups[c] for c in dict.fromkeys(chosen)], ""
    keys = list(groups)
    note = "" if len(keys) <= most else (f"series: drew the first {most} of {len(keys)} points; "
                                          "choose others with --point N")
    return [groups[k] for k in keys[:most]], note


def _panel_title(p: dict) -> str:
    head = f"point {p['point_index']}" if "point_index" in p else f"calibration {p.get('calibration_of')}"
    label = WORKLOADS[p["workload"]].label(p) if p.get("workload") in WORKLOADS else ""
    hw = hardware_of(p)
    return (f"{head}: {config_key({**p, 'run': None})}, {label}, repeat {p['repeat']}"
            + ("" if hw == "none" else f"\n{view_title(hw)}"))


def _gate_note(group: list[dict]) -> str:
    """Which of a panel's runs failed a fidelity gate (their flows are not trusted)."""
    failed = [p.get("run", "") for p in group if (p.get("gates") or {}).get("ok") is False]
    if not failed:
        return ""
    runs = ", ".join(r for r in failed if r)
    return f"\nfailed a fidelity gate{f' (run {runs})' if runs else ''}: not trusted"


def _references(ax, p: dict) -> float:
    """The wire's rate (dashed; a bonded node's channels together too) and the most TCP payload
    one wire carries (dotted), labelled above the wire's line, where flows seldom reach; returns
    the highest."""
    rate = float(p["rate_mbit"])
    limit = tcp_goodput_limit_mbit(rate)
    ax.axhline(limit, color="dimgrey", linestyle=":", linewidth=1)
    lines = [(rate, f"{rate:g} Mbit/s wire; at most {limit:.3g} of TCP payload")]
    channels = p["channels"]   # None: a topology that takes none
    if channels is not None and channels > 1:
        lines.append((rate * channels, f"{channels} channels together: {rate * channels:g} Mbit/s"))
    for y, label in lines:
        ax.axhline(y, color="dimgrey", linestyle=(0, (6, 3)), linewidth=1)
        ax.annotate(label, (0.005, y), xycoords=("axes fraction", "data"), xytext=(2, 2),
                    textcoords="offset points", fontsize=6.5, color="dimgrey")
    return max(rate * channels, limit)


def plot_series(doc: dict, path: str, chosen: list[int] | None = None) -> tuple[list[str], str]:
    """Each chosen point's flows over time: one axes per point, one line per flow (a colour per
    flow), their sum, the wire's rate; overlaid runs (plot A B --series) share a point's axes, a
    line style per run. Rates and times are the real network's (x D, / D on a time-scaled
    point). Returns (the files written, a note of points left out or '')."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    panels, note = series_panels(doc, chosen)
    run_names = list(dict.fromkeys(p.get("run", "") for group in panels for p in group))
    style = {r: RUN_STYLES[i % len(RUN_STYLES)] for i, r in enumerate(run_names)}
    cols = 1 if len(panels) == 1 else 2
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(7.2 * cols, 3.9 * rows), squeeze=False, sharey=True)
    palette = plt.get_cmap("tab10")
    top, retransmitted, summed = 0.0, False, False
    for ax, group in zip(axes.flat, panels):
        flows = list(dict.fromkeys(name for p in group for name, _ in real_intervals(p)))
        colour = {f: palette(i % palette.N) for i, f in enumerate(flows)}
        for p in group:
            top = max(top, _references(ax, p))
            ls = style[p.get("run", "")]
            drawn = real_intervals(p)
            for name, samples in drawn:
                ts, ys = [s[0] for s in samples], [s[1] for s in samples]
                ax.plot(ts, ys, linestyle=ls, color=colour[name], linewidth=1.4, marker="o", markersize=2.5,
                        label=name if p is group[0] else None)
                hit = [(t, y) for t, y, r in samples if r]
                if hit:
                    retransmitted = True
                    ax.plot(*zip(*hit), linestyle="none", marker="x", color=colour[name], markersize=6,
                            markeredgewidth=1.5)
                top = max(top, max(ys))
            if len(drawn) > 1:   # the flows report on one grid (one -i, started together)
                n = min(len(samples) for _, samples in drawn)
                total = [sum(samples[i][1] for _, samples in drawn) for i in range(n)]
                ax.plot([drawn[0][1][i][0] for i in range(n)], total, linestyle=ls, color="black",
                        linewidth=1.1)
                summed = True
                top = max(top, max(total, default=0))
        ax.set_title(_panel_title(group[0]) + _gate_note(group), fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize=6.5, ncol=min(4, len(flows)), frameon=True, framealpha=0.8,
                  title="flows", title_fontsize=6.5)
    scaled = any(time_scale_of(p) != 1 for group in panels for p in group)
    for ax in list(axes.flat)[:len(panels)]:
        ax.set_xlabel("s since slow start ended" + (" (measured / D)" if scaled else ""), fontsize=8)
        ax.set_xlim(left=0)
    for ax in axes[:, 0]:
        ax.set_ylim(0, top * 1.4)   # room above the wire's rate for the flows' legend
        ax.set_ylabel("Mbit/s received per interval" + (" (measured x D)" if scaled else ""), fontsize=8)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    handles = []
    if summed:
        handles.append(Line2D([], [], color="black", linewidth=1.1, label="all flows together (sum)"))
    if len(run_names) > 1:
        handles += [Line2D([], [], color="black", linestyle=style[r], label=f"run {r}") for r in run_names]
    if retransmitted:
        handles.append(Line2D([], [], color="black", marker="x", linestyle="none", markersize=6,
                              label="an interval in which the sender retransmitted"))
    handles.append(Line2D([], [], color="dimgrey", linestyle=(0, (6, 3)), label="the wire's rate (dashed), "
                          "the most TCP payload it carries (dotted)"))
    fig.suptitle(title(doc, "throughput over time, one line per flow" + scale_note(doc)), fontsize=9)
    fig.tight_layout()
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=7.5,
               frameon=False)
    save(fig, path, 110)
    return [path], note
