"""A results document as text: one table per document, and what limited each row.

Division of labor: the workload declares how its points are shown
(`workloads.base.Figure`: x axis, series, metrics, levels); this module groups a
document's points into those series (shared with `judge.plot`, which draws
them) and writes the table; `judge.report` builds the claims report. Nothing
here asks a workload's name.
"""
from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from beowulf_netlab.core.values import human_size
from beowulf_netlab.topologies.ethernet import MSS
from beowulf_netlab.run.gates import trusted  # noqa: F401 (re-exported: readers ask the table)
from beowulf_netlab.run.point import field_named
from beowulf_netlab.run.results import real_rate
from beowulf_netlab.topologies.hardware import describe_tcp, hardware_of
from beowulf_netlab.workloads import WORKLOADS
from beowulf_netlab.workloads.base import Figure
from beowulf_netlab.topologies.timescale import time_scale_of

SUSPECT_NOTE = "* failed a fidelity gate (see the document's gates): the emulator, not the network, may have set it"
PAPER_VIEW_STYLE = "-"      # the paper's hardware (a profile): solid lines
TODAY_VIEW_STYLE = "--"     # today's hosts (hardware none): dashed


def figure_of(doc: dict) -> Figure:
    return WORKLOADS[doc["workload"]].figure


def sweep_points(doc: dict) -> dict:
    """The document without its calibration measurements (they are reported on their own)."""
    return {**doc, "points": [p for p in doc["points"] if not p.get("calibration_of")]}


def _matches(p: dict, where) -> bool:
    return all(p.get(k) == v for k, v in where)


def varying(doc: dict) -> list[str]:
    """The figure's optional series keys that take more than one value in the document."""
    fig = figure_of(doc)
    return [k for k in fig.split_if_varying if k != fig.x
            and len({json.dumps(p.get(k), sort_keys=True) for p in doc["points"]}) > 1]


def _short(k: str) -> str:
    """A series key's prefix in a curve's name, as its field declares it (P=), else k=."""
    f = field_named(k)
    return f.short if f is not None and f.short is not None else k + "="


def _shown(k: str, v) -> str:
    f = field_named(k)
    return human_size(v) if f is not None and f.unit == "B" else str(v)


def config_key(p: dict, extra: list[str] = ()) -> str:
    """One configuration: topology, placement and rate, and the series keys in `extra`;
    a time-scaled point names its D (its rates are shown x D: real_rate). No hardware:
    the same configuration keeps its colour on every hardware view."""
    key = (f"[{p['run']}] " if p.get("run") else "") + p["topology"]   # overlaid runs (plot A B)
    if (channels := p.get("channels")) is not None and channels > 1:   # bonded: asked of the point, not its name
        key += f" x{channels}"
    if p["placement"] != "any":
        key += f" ({p['placement']})"
    for k in extra:
        if k in p and p[k] is not None:
            key += f" {_short(k)}{_shown(k, p[k])}"
    key = f"{key} @{p['rate_mbit']:g}Mb"
    key += f" D={time_scale_of(p):g}" if time_scale_of(p) != 1 else ""   # real time: unnamed
    key += f" +gap {p['tx_gap_us']:g}us" if p.get("tx_gap_us") else ""
    return key + (" +CSMA/CD" if p.get("contention") == "on" else "")


def view_of(p: dict) -> str:
    return hardware_of(p)


def curve_key(p: dict, extra: list[str] = ()) -> str:
    """A configuration on one hardware view (table rows name both)."""
    hw = view_of(p)
    return config_key(p, extra) + (f" [{hw}]" if hw != "none" else "")


@dataclass
class Series:
    """One curve: a configuration on a hardware view, one metric; x -> the repeats' values,
    and the xs where some repeat failed a gate."""
    config: str
    view: str
    metric: str
    metric_label: str
    values: dict = field(default_factory=lambda: defaultdict(list))
    suspect: set = field(default_factory=set)

    @property
    def name(self) -> str:
        hw = f" [{self.view}]" if self.view != "none" else ""
        return f"{self.config}{hw}" + (f" {self.metric_label}" if self.metric_label else "")


def series(doc: dict, metrics: tuple[tuple[str, str], ...] | None = None) -> list[Series]:
    """The document's curves as its workload's figure declares them, in order of appearance."""
    fig = figure_of(doc)
    extra = list(fig.series) + varying(doc)
    out: dict[tuple, Series] = {}
    for p in doc["points"]:
        if fig.on_curve and not _matches(p, fig.on_curve):
            continue
        for metric, label in (metrics if metrics is not None else fig.metrics):
            if p.get(metric) is None:
                continue
            key = (config_key(p, extra), view_of(p), metric)
            s = out.setdefault(key, Series(key[0], key[1], metric, label))
            s.values[p[fig.x]].append(real_rate(p, metric))
            if not trusted(p):
                s.suspect.add(p[fig.x])
    return list(out.values())


def levels(doc: dict) -> list[tuple[str, str, str, list[float], bool]]:
    """(view, network, label, per-point level values, all trusted) of the figure's levels."""
    out = []
    fig = figure_of(doc)
    for lv in fig.levels:
        groups: dict = defaultdict(list)
        for p in doc["points"]:
            if _matches(p, lv.where) and p.get(lv.metric) is not None:
                groups[(view_of(p), config_key(p))].append(p)
        for (view, net), pts in groups.items():
            vals = [real_rate(p, lv.metric) * (p[lv.times] if lv.times else 1) for p in pts]
            out.append((view, net, lv.label, vals, all(trusted(p) for p in pts)))
    return out


def median(vals: list[float]) -> float:
    """The figure a cell or a plotted point shows: the median of the repeats."""
    return statistics.median(vals)


def cell(vals: list[float], digits: int = 2) -> str:
    """'1.14' for one run, '1.14+-2%' for repeats (half their range, relative to the median)."""
    med = statistics.median(vals)
    if len(vals) < 2 or med <= 0:
        return f"{med:.{digits}f}"
    return f"{med:.{digits}f}+-{(max(vals) - min(vals)) / 2 / med:.0%}"


def x_label(fig: Figure, x) -> str:
    if fig.x_scale == "log2":
        return human_size(x)
    return f"{x:g}" if isinstance(x, float) else str(x)


def scale_note(doc: dict) -> str:
    ds = sorted({time_scale_of(p) for p in doc["points"]})
    return "" if ds == [1] else (f" (time-scaled by D = {', '.join(f'{d:g}' for d in ds)}: measured x D, "
                                 "the real network's figures)")


def _context(doc: dict, fig: Figure) -> str:
    """The heading's note of the keys every row shares (copies, disk profile and throttle)."""
    parts = []
    first = doc["points"][0] if doc["points"] else {}
    for k in fig.context:
        v = first.get(k)
        if isinstance(v, dict):
            parts.append(f"{k} {v.get('profile', '?')} ({v.get('throttle', '?')})")
        elif v is not None:
            parts.append(f"{v} {k}")
    return (", " + ", ".join(parts)) if parts else ""


def table(doc: dict) -> str:
    """Median MB/s (or the figure's own unit and decimals) per curve (rows) and x (columns), +- half
    the range of the repeats; '*' marks suspect points; levels (baselines) first; the TCP the nodes
    ran underneath."""
    doc = sweep_points(doc)
    fig = figure_of(doc)
    curves = series(doc) + series(doc, fig.table_extra)
    xs = sorted({x for s in curves for x in s.values})
    runs = max((len(v) for s in curves for v in s.values.values()), default=1)
    lv = levels(doc)
    width = max([len(s.name) for s in curves] + [len(f"{n} {lab}") for _, n, lab, _, _ in lv]
                + [len(fig.x_label), 16]) + 2
    lines = [f"{fig.what}, {fig.unit}{_context(doc, fig)}{scale_note(doc)}"
             + (f"; median of {runs} runs +- half their range" if runs > 1 else "")]
    suspect = False
    for view, net, label, vals, ok in lv:
        hw = f" [{view}]" if view != "none" else ""
        lines.append(f"{net}{hw} {label}".ljust(width) + (cell(vals, 1) + ("" if ok else "*")).rjust(12))
        suspect |= not ok
    short = fig.x_label.split(" (")[0]
    lines.append(short.ljust(width) + "".join(x_label(fig, x).rjust(12) for x in xs))
    for s in curves:
        row = s.name.ljust(width)
        for x in xs:
            vals = s.values.get(x)
            digits = 0 if s.metric in fig.counts else fig.digits
            row += ((cell(vals, digits) + ("*" if x in s.suspect else "")) if vals else "-").rjust(12)
            suspect |= bool(vals) and x in s.suspect
        lines.append(row)
    if suspect:
        lines.append(SUSPECT_NOTE)
    return "\n".join(lines) + tcp_note(doc)


def tcp_note(doc: dict) -> str:
    seen: dict[str, str] = {}
    for p in doc["points"]:
        t = p.get("tcp")
        key = view_of(p)
        if t and key not in seen:
            seen[key] = describe_tcp(t)
        elif not t:
            seen.setdefault(key, "not recorded (the host's own)")
    if not seen:
        return ""
    return "\nTCP: " + "; ".join(f"{v} on hardware {k}" for k, v in seen.items())


BUSY_WIRE = 0.85      # a wire this busy is the limit
BUSY_CORE = 0.90      # a host core this busy: the emulator may be the limit
UNEVEN = 0.75         # a bonded wire below this share of its partner's load carried less than its half
RESENT = 0.01        # retransmissions above this share of the segments are named in a reading
DIP = 0.85            # a point below this share of its row's peak gets its own reading


def _resent(p: dict) -> str:
    """', 4% of its segments sent again' when retransmissions took a visible share of the wire."""
    sent = (p.get("payload_bytes") or 0) / MSS
    again = (p.get("tcp") or {}).get("retrans_segs") or 0
    return f", {again / sent:.0%} of its segments sent again" if sent and again > RESENT * sent else ""


def limit(p: dict) -> str:
    """What held one measured point back, read from its monitors: a wire, a node's CPU
    budget, the emulator's CPU, or none of them (round trips: latency bound)."""
    fid = p.get("fidelity") or {}
    util = fid.get("wire_utilisation") or {}
    used = sorted({w for f in p.get("flows") or [] for seg in f.get("path", []) for w in seg} & set(util))
    busiest = max(used or util, key=lambda w: util[w], default=None)
    crossed = [len(f.get("path", [])) for f in p.get("flows") or []]
    hops = (f", each pair crossing {max(crossed)} wires in turn" if crossed and min(crossed) > 1 else "")
    for seg in {tuple(seg) for f in p.get("flows") or [] for seg in f.get("path", []) if len(seg) > 1}:
        loads = [util.get(w, 0.0) for w in seg]
        if max(loads) >= BUSY_WIRE and min(loads) < UNEVEN * max(loads):
            return (f"one wire of a bonded pair: {' / '.join(f'{w} {util.get(w, 0):.0%}' for w in seg)} busy "
                    f"(round-robin fell into step with the traffic){_resent(p)}")
    if busiest is not None and util[busiest] >= BUSY_WIRE:
        wires = [w for w in (used or util) if util[w] >= BUSY_WIRE]
        return (f"the wire{'s' if len(wires) > 1 else ''}: {', '.join(wires[:4])}"
                f"{f' (+{len(wires) - 4})' if len(wires) > 4 else ''} {util[busiest]:.0%} busy{hops}{_resent(p)}")
    busy = p.get("cpu_busy") or {}
    if isinstance(busy, dict) and busy and max(busy.values()) >= BUSY_CORE:
        node = max(busy, key=busy.get)
        return f"node CPU: {node}'s budget {busy[node]:.0%} spent"
    cores = fid.get("core_busy_mean") or []
    if cores and max(cores) >= BUSY_CORE:
        return f"the emulator: a host core {max(cores):.0%} busy (not the network)"
    rtt = p.get("rtt_ms_median")
    said = f", {rtt:.1f} ms median round trip" if rtt is not None else ""
    return (f"round trips, not the wires (busiest {util[busiest]:.0%}{said})" if busiest is not None
            else "not recorded")


def readings(doc: dict) -> list[str]:
    """One line per curve: what limited it at its peak, read from that point's monitors."""
    doc = sweep_points(doc)
    fig = figure_of(doc)
    extra = list(fig.series) + varying(doc)
    curves: dict[str, dict] = defaultdict(lambda: defaultdict(list))
    for p in doc["points"]:
        if fig.on_curve and not _matches(p, fig.on_curve):
            continue
        curves[curve_key(p, extra)][p[fig.x]].append(p)
    width = max((len(c) for c in curves), default=10) + 2
    out = []
    for name, by_x in curves.items():
        middle = {x: sorted(pts, key=real_rate)[len(pts) // 2] for x, pts in by_x.items()}
        x = max(middle, key=lambda x: median([real_rate(p) for p in by_x[x]]))
        peak = median([real_rate(p) for p in by_x[x]])
        out.append(f"{name.ljust(width)}{real_rate(middle[x]):5.2f} MB/s at {x_label(fig, x)}: {limit(middle[x])}")
        for dx in sorted(by_x):
            q = middle[dx]
            if real_rate(q) < DIP * peak:
                out.append(f"{''.ljust(width)}{real_rate(q):5.2f} MB/s at {x_label(fig, dx)} (a dip): {limit(q)}")
    return out
