"""A results document as a figure, drawn as the papers drew theirs.

Division of labor: `pipeline.table` groups the points into the series the
workload's `Figure` declares; this module draws them: one axes per hardware view
with every configuration on it (a colour each, the same on every view), one line
style per view, the paper's values, error bars from the repeats, gate-failed points
marked, and lines only between neighbours that were both measured.
"""
from __future__ import annotations

import math
from pathlib import Path

from core.errors import BadInput
from core.safefile import atomic_binary
from core.values import human_size
from pipeline.table import (PAPER_VIEW_STYLE, TODAY_VIEW_STYLE, Series, figure_of, levels, median,
                            scale_note, series, sweep_points)

METRIC_MARKERS = ("o", "s", "^", "D")


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
        with atomic_binary(Path(path)) as f:   # never through a link planted at path
            fig.savefig(f, dpi=dpi, bbox_inches="tight", format="png")
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


def _draw(ax, s: Series, colour, marker: str, style: str, step: str | None) -> None:
    xs = sorted(s.values)
    meds = [median(s.values[x]) for x in xs]
    lo = [m - min(s.values[x]) for m, x in zip(meds, xs)]
    hi = [max(s.values[x]) - m for m, x in zip(meds, xs)]
    hollow = marker != METRIC_MARKERS[0]
    ax.errorbar(xs, meds, yerr=[lo, hi], fmt=marker, color=colour, capsize=3, markersize=8 if hollow else 5,
                markerfacecolor="white" if hollow else colour, linestyle="none")
    at = dict(zip(xs, meds))
    for run in runs(xs, step):
        if len(run) > 1:
            ax.plot(run, [at[x] for x in run], linestyle=style, color=colour, linewidth=1.4)
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


def _paper(ax, doc: dict) -> bool:
    """The paper's values: levels as dotted lines, points as black stars; False if it gives none."""
    paper = doc.get("paper") or {}
    for ref in _lines(doc)[0]:
        ax.axhline(ref["y"], linestyle=":", linewidth=1.2, color="black")
        ax.annotate(ref["label"], (0.01, ref["y"]), xycoords=("axes fraction", "data"), xytext=(2, 2),
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
    palette = plt.get_cmap("tab10" if len(configs) <= 10 else "tab20")
    colour = {c: palette(i % palette.N) for i, c in enumerate(configs)}
    colour.update({s.config: colour[runs_of[s.config][1]] for s in curves})
    metrics = list(dict.fromkeys(s.metric_label for s in curves))
    overlaid = len(run_names) > 1
    cols = min(len(views), 3)
    rows = math.ceil(len(views) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.6 * cols, 4.2 * rows), squeeze=False, sharey=True)
    has_paper = False
    for ax, view in zip(axes.flat, views):
        style = TODAY_VIEW_STYLE if view == "none" else PAPER_VIEW_STYLE
        for s in curves:
            if s.view == view:
                which = run_names.index(runs_of[s.config][0]) if overlaid else metrics.index(s.metric_label)
                _draw(ax, s, colour[s.config], METRIC_MARKERS[which % 4], style, decl.x_step)
        here = [(label, median(vals), ok) for v, _, label, vals, ok in lv if v == view]
        for i, (label, y, ok) in enumerate(sorted(here, key=lambda t: t[1])):
            ax.axhline(y, color="dimgrey", linestyle="-." if ok else ":", linewidth=1)
            # labels of near-equal levels are staggered, so each stays legible
            ax.annotate(f"{label}{'' if ok else ' (failed a gate)'}", (0.99, y),
                        xycoords=("axes fraction", "data"), xytext=(0, 3 + 9 * i), textcoords="offset points",
                        ha="right", fontsize=6.5, color="dimgrey")
        has_paper = _paper(ax, doc) or has_paper
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
    handles = [Line2D([], [], color=colour[c], marker="s", markersize=8, linestyle="none", label=c) for c in configs]
    if overlaid:
        handles += [Line2D([], [], color="black", marker=METRIC_MARKERS[i % 4], linestyle="none",
                           markerfacecolor="black" if i == 0 else "white", label=f"run {r}")
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
