"""The reproduction report: the papers' claims beside our measurements, with verdicts.

From results documents (one per experiment, matched by name) and the claims
file, write a report directory: report.md, a self-contained report.html (its
figures embedded) and figures/. It holds the claims table (paper value,
measured value and spread, verdict and the reason for every gap), one figure
per paper figure with the paper's values overlaid, the fidelity gates, the
environment (kernel, implementations, a wire's applied tc tree) and what the
emulation does not model, with the direction of each bias.
"""
from __future__ import annotations

import base64
import html
import json
import re
import time
from pathlib import Path

from core.errors import BadInput
from pipeline.calibration import MET, load_calibrations
from pipeline.claims import (show, CALIBRATION, IN_SHAPE, NOT_CHECKABLE, NOT_REPRODUCED, REPRODUCED, TESTED,
                             TODAY, PAPER, CONTENDED, VIEWS, calibrations, judge_all, load_claims, summary,
                             view, views_present)
from pipeline.report import plot, table, trusted

NOT_MODELLED = [
    ("profiles' TCP: reno without SACK, timestamps or window scaling is set, but Linux 1.x's "
     "advertised window (at most 14,335 B), its 200 ms minimum RTO and 1.2's lack of fast "
     "retransmit are today's kernel's",
     "bulk transfers and loss recovery slightly too FAST on the paper's hardware"),
    ("today's hosts (--hardware none): no per-packet or per-byte cost, no relay cost",
     "throughput too HIGH wherever the 1996 hosts were the limit; the hardware profiles add it"),
    ("profiles: Linux 1.x TCP's per-message latency beyond the per-packet cost (lmbench lat_tcp was "
     "4-5x lat_udp); without netem a lone packet after idle time is not delayed",
     "small tokens too FAST on the paper's hardware"),
    ("profiles: disk work does not draw on the node's CPU budget (the disk has its own rate, set from "
     "all-local copies); bus contention between disk and NIC",
     "remote copies at 100 Mbit/s too FAST (the paper's ~20 % drop)"),
    ("CSMA/CD collisions, jam and backoff, unless --contention on charges their average "
     "(Metcalfe-Boggs) cost per frame",
     "shared wires too FAST under heavy load from many stations without it; the model errs slow"),
    ("an IDE head serving reads and writes in turn (the kernel throttle keeps separate budgets)",
     "remote copies slightly too SLOW relative to local ones"),
]
SHORT = {TODAY: "today", PAPER: "paper hardware", CONTENDED: "with contention"}
ORDER = [REPRODUCED, IN_SHAPE, NOT_REPRODUCED, NOT_CHECKABLE, CALIBRATION, TESTED]


_fmt = show


def _paper(p: dict) -> str:
    value = p["value"]
    return f"{value:g} {p.get('unit', '')} ({p['status']})".replace("  ", " ") if not isinstance(value, str) \
        else f"{value} ({p['status']})"


def gate_summary(docs: dict[str, dict]) -> list[tuple[str, int, int, list[str]]]:
    out = []
    for name, doc in docs.items():
        failed = [p for p in doc["points"] if not trusted(p)]
        reasons = []
        for p in failed[:5]:
            why = (p.get("gates") or {}).get("failed") or [p["fidelity"].get("suspect")]
            reasons.append(f"point {p.get('point_index')} ({p['topology']} {p['placement']}): {why[0]}")
        out.append((name, len(doc["points"]), len(failed), reasons))
    return out


LOCKED = 1.3     # one bonded wire this many times busier than the other: striping locked on


def bonding_balance(docs: dict[str, dict]) -> list[str]:
    """Bonded points whose wires carried very different loads, as table rows."""
    rows = []
    for name, doc in docs.items():
        for p in doc["points"]:
            util = (p.get("fidelity") or {}).get("wire_utilisation") or {}
            if p.get("topology") != "bonded-dual-net" or len(util) < 2 or min(util.values()) <= 0:
                continue
            if max(util.values()) / min(util.values()) > LOCKED:
                what = ", ".join(f"{k} {p[k]}" for k in ("pairs", "token_size", "remote", "file_size")
                                 if p.get(k) is not None)
                rows.append(f"| {name} | {p.get('hardware', 'none')} | {what} | {p.get('repeat', 0)} | "
                            + ", ".join(f"{w} {u:.2f}" for w, u in sorted(util.items())) + " |")
    return rows


def tc_tree(docs: dict[str, dict]) -> list[str]:
    """The argv applied to one wire of the first network, as an example of the whole record."""
    for doc in docs.values():
        for net, env in doc["environment"].get("topologies", {}).items():
            for owner, cmds in (env.get("applied_commands") or {}).items():
                if "w" in owner and owner.startswith("bnl"):
                    return [f"{net}, wire {owner}:"] + [" ".join(c["argv"]) for c in cmds if c["argv"][0] == "tc"][:12]
    return []


def environment_lines(docs: dict[str, dict]) -> list[str]:
    lines = []
    envs = [d["environment"] for d in docs.values()]
    if not envs:
        return lines
    e = envs[0]
    lines.append(f"kernel {e.get('kernel')}, {e.get('cpus')} CPUs, Python {e.get('python')}, "
                 f"commit {e.get('project_commit')}")
    impls = set()
    for env in envs:
        for net, t in env.get("topologies", {}).items():
            impls.add(f"bonding {t.get('bonding_impl') or '-'}, switches {t.get('switch_impl') or '-'}, "
                      f"netem {t.get('netem') or 'off'}, hardware {t.get('hardware', 'none')} "
                      f"(host cost {t.get('host_cost_impl') or 'none'}), "
                      f"contention {'on' if t.get('contention') else 'off'}")
    lines += sorted(impls)
    tcp = {}
    for doc in docs.values():
        for p in doc["points"]:
            if p.get("tcp"):
                tcp.setdefault(p.get("hardware", "none"), _tcp_text(p["tcp"]))
    host = next((t.get("tcp_host_default") for env in envs for t in env.get("topologies", {}).values()
                 if t.get("tcp_host_default")), None)
    for hw, text in sorted(tcp.items()):
        lines.append(f"TCP on hardware {hw}: {text} (set in every node's namespace and read back; "
                     f"this host's own default, {host or 'unknown'}, is never used)")
    if not tcp:
        lines.append("TCP: not recorded (documents from before results v4 ran the host's own TCP)")
    return lines


def _tcp_text(t: dict) -> str:
    feats = [n for k, n in (("sack", "SACK"), ("timestamps", "timestamps"), ("window_scaling",
                                                                          "window scaling")) if t.get(k)]
    return f"{t.get('congestion_control')}" + (f" with {', '.join(feats)}" if feats else
                                              " without SACK, timestamps or window scaling")


def _measured(x: dict) -> str:
    """A claim's measured value with its repeats' spread."""
    text = _fmt(x["measured"])
    if x.get("repeats", 0) > 1 and isinstance(x["measured"], (int, float)):
        text += f" (+-{x['spread']:.1%}, {x['repeats']} runs)"
    elif x.get("repeats", 0) > 1:
        text += f" ({x['repeats']} runs)"
    return text


def calibration_rows(docs: dict[str, dict], shown: list[str]) -> list[str]:
    """The calibration table: per view, each calibration point's target, measurement and verdict."""
    cals = load_calibrations()
    rows = []
    for w in shown:
        for v in calibrations(view(docs, w), cals):
            measured = "-" if v["measured"] is None else \
                f"{v['measured']:.3g} (+-{v['spread']:.1%}, {len(v['values'])} runs)"
            verdict = v["verdict"] if v["verdict"] == MET else f"**{v['verdict'].upper()}**"
            rows.append(f"| {SHORT[w]} | {v['id']}: {v['what']} | {v['target']:g} +- {v['tolerance']:.0%} | "
                        f"{measured} | {verdict} | {v['reason']} |")
    return rows


def build(docs: dict[str, dict], out: Path, quick: bool, claims_path: Path | None = None,
          elapsed_s: float | None = None) -> Path:
    """Write report.md, report.html and figures/ into out; return report.html."""
    try:
        return _build(docs, out, quick, claims_path, elapsed_s)
    except OSError as e:
        raise BadInput(f"cannot write the report in {out}: {e.strerror or e}; choose another --out")


def _build(docs: dict[str, dict], out: Path, quick: bool, claims_path: Path | None,
           elapsed_s: float | None) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    figdir = out / "figures"
    figdir.mkdir(exist_ok=True)
    claims = load_claims(claims_path) if claims_path else load_claims()
    shown = views_present(docs) or [TODAY]
    by_view = {w: judge_all(claims, docs, w) for w in shown}
    figures = []
    for name, doc in docs.items():
        for png in plot(doc, str(figdir / f"{name}.png")):
            figures.append((name, Path(png), doc))
    head = (f"Beowulf Netlab reproduction report ({'quick' if quick else 'full'} run), "
            f"{time.strftime('%Y-%m-%d %H:%M')}")
    summaries = []
    for w, verdicts in by_view.items():
        counts = summary(verdicts)
        main = ", ".join(f"{counts.get(v, 0)} {v}" for v in (REPRODUCED, NOT_REPRODUCED, NOT_CHECKABLE))
        apart = ", ".join(f"{counts[v]} {v}" for v in (IN_SHAPE, CALIBRATION, TESTED) if counts.get(v))
        summaries.append(f"on {VIEWS[w]}: {main}" + (f" (apart: {apart})" if apart else ""))
    cal_rows = calibration_rows(docs, shown)
    missed = [r for r in cal_rows if "**" in r.split("|")[5]]
    md = [f"# {head}", "", f"Claims {'; '.join(summaries)} (claims that read one measurement count "
          "once)." + (f" Measured in {elapsed_s / 60:.1f} minutes." if elapsed_s else ""), ""]
    if missed:
        md += [f"**{len(missed)} calibration point(s) NOT MET**: every claim that rests on them is not "
               "checkable (see Calibration). Rerun on a quieter machine before reading any verdict.", ""]
    md += [
          "", "Each claim is judged on today's hosts (hardware none: the wires are 1996's, the hosts "
          "are this machine's) and on the paper's hardware (the hardware profile of the machine the "
          "figure ran on: its disks and its per-packet host cost; hardware/*.json states every "
          "number and its source). ", "Every point ran several times; the median is judged, on the "
          "medians and on each run alone. Verdicts: *reproduced* = within the tolerance declared from "
          "the paper's own precision, in every run; *reproduced in shape* = the relation the claim "
          "states holds in every run but the number is outside the tolerance (counted apart: weaker "
          "evidence); *not reproduced*, also when only the emulator's known bias gives the relation; "
          "*not checkable* = not measured, a failed fidelity gate, a calibration not met, beyond a "
          "physical bound, or noisy (runs that disagree, or spread wider than the tolerance); "
          "*calibration point* = the model was set from this value: met or missed, never evidence; "
          "*tested* = a fact checked by a named test. Paper values and their status (verified / seed "
          "/ derived) are from docs/papers.md.", "",
          "## Claims", "",
          "| # | source | claim | paper | " + " | ".join(f"measured, {VIEWS[w]} | verdict" for w in shown)
          + " | why |", "|---|---|---|---|" + "---|---|" * len(shown) + "---|"]
    for rows in zip(*by_view.values()):
        r = rows[0]
        cells = []
        for x in rows:
            cells.append(f"{_measured(x)} | **{x['verdict']}**")
        whys = [f"{SHORT[x['hardware']]}: {x['reason']}" for x in rows] \
            if len(rows) > 1 else [r["reason"]]
        why = " ".join(whys) + (f" Gap: {r['gap']}" if r["gap"] else "")
        md.append(f"| {r['id']} | {r['source']} | {r['statement']} | {_paper(r['paper'])} | "
                  + " | ".join(cells) + f" | {why} |")
    md += ["", "## Calibration", "", "The measurements the model's constants were set from "
           "(claims/calibrations.json), checked in this run against a tolerance declared beforehand. "
           "One not met makes every point resting on it untrusted.", "",
           "| view | calibration point | target | measured (median) | verdict | why |", "|---|---|---|---|---|---|",
           *(cal_rows or ["| - | no point of this run rests on a calibration | - | - | - | - |"])]
    md += ["", "## Figures", ""]
    for name, png, doc in figures:
        paper = doc.get("paper") or {}
        md += [f"### {name}", "", f"![{name}](figures/{png.name})", "",
               f"Paper: {paper.get('source', '-')}. Hardware of the paper's figure: {paper.get('hardware', '-')}.", ""]
        for choice in paper.get("choices", []):
            md.append(f"- our choice: {choice}")
        md += ["", "```", table(doc), "```", ""]
    md += ["## Fidelity gates", "", "Every point is checked: no free bandwidth (each wire counted at least "
           "the payload that crossed it); within the wires' payload capacity on the time base of the "
           "figure the workload reports; disk-bound figures within what the throttled disks and ports "
           "allow; no CPU core or single-threaded emulator thread saturated while no wire was full; no "
           "stalled transport (every flow had data queued yet its path idled, with nothing else busy "
           "and no loss recovery to explain it); and (token) the pairs ran concurrently. A claim "
           "reading a failed point is not checkable.", "",
           "| experiment | points | failed a gate | first failures |", "|---|---|---|---|"]
    for name, total, failed, reasons in gate_summary(docs):
        md.append(f"| {name} | {total} | {failed} | {'; '.join(reasons) or '-'} |")
    locked = bonding_balance(docs)
    md += ["", "## Bonding: round-robin that locks on", "",
           "Channel bonding stripes packets round-robin per node, over one counter for all its "
           "connections (the kernel's balance-rr; the nftables fallback counts the same way), as "
           "Becker's 1996 driver did. When a node's packets come in a fixed two-packet rhythm - a "
           "1 KB token and the pure ACK of the token it received, or a 2 KB token's full frame and "
           "its short remainder - every other packet, always of the same kind, takes the same wire: "
           "one wire carries the full frames and the other the short ones. This is the mechanism "
           "itself, not an emulator artefact, and it would have struck the 1996 machine too; only "
           "other traffic interleaving shifts the rhythm. Bonded points of this run whose wires' "
           f"utilisations differ by more than {LOCKED:g}x:", ""]
    md += (["| experiment | hardware | point | repeat | wire utilisation |", "|---|---|---|---|---|", *locked]
           if locked else ["none."])
    md += ["", "## Environment", ""] + [f"- {line}" for line in environment_lines(docs)]
    tree = tc_tree(docs)
    if tree:
        md += ["", "Applied to one wire (every wire's and node's argv is in the results documents):", "",
               "```", *tree, "```"]
    md += ["", "## What the emulation does not model", "", "| left out | expected bias |", "|---|---|"]
    md += [f"| {a} | {b} |" for a, b in NOT_MODELLED]
    md += ["", "Results documents: " + ", ".join(f"`results/{n}.json`" for n in docs), ""]
    (out / "report.md").write_text("\n".join(md))
    (out / "claims.json").write_text(json.dumps([r for rows in by_view.values() for r in rows],
                                                indent=1, default=str))
    page = out / "report.html"
    page.write_text(to_html("\n".join(md), out, head))
    return page


def to_html(md: str, base: Path, head: str) -> str:
    """A small Markdown subset (headings, tables, lists, code, images) to one
    self-contained page: images become data: URIs."""
    body, in_code, in_table = [], False, False
    for line in md.splitlines():
        if line.startswith("```"):
            body.append("</pre>" if in_code else "<pre>")
            in_code = not in_code
            continue
        if in_code:
            body.append(html.escape(line))
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(re.fullmatch(r"-+", c) for c in cells):
                continue
            tag = "th" if not in_table else "td"
            if not in_table:
                body.append("<table>")
                in_table = True
            body.append("<tr>" + "".join(f"<{tag}>{_inline(c)}</{tag}>" for c in cells) + "</tr>")
            continue
        if in_table:
            body.append("</table>")
            in_table = False
        m = re.match(r"!\[(.*)\]\((.*)\)", line)
        if m:
            data = base64.b64encode((base / m.group(2)).read_bytes()).decode()
            body.append(f'<img alt="{html.escape(m.group(1))}" src="data:image/png;base64,{data}">')
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            body.append(f"<h{level}>{_inline(line.lstrip('# '))}</h{level}>")
        elif line.startswith("- "):
            body.append(f"<li>{_inline(line[2:])}</li>")
        elif line.strip():
            body.append(f"<p>{_inline(line)}</p>")
    if in_table:
        body.append("</table>")
    style = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
             "table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #bbb;"
             "padding:4px 6px;vertical-align:top}th{background:#eee}img{max-width:100%}"
             "pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}"
             "strong{white-space:nowrap}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(head)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def _inline(text: str) -> str:
    text = html.escape(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    text = re.sub(r"\*(.+?)\*", r"<em>\1</em>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)
