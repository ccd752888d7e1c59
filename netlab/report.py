"""Turn a results document into what people read: a table and a plot."""
from __future__ import annotations

from collections import defaultdict


def curve_key(p: dict) -> str:
    key = p["topology"]
    if p.get("channels") and p["topology"] == "bonded-dual-net":
        key += f" x{p['channels']}"
    if p["placement"] != "any":
        key += f" ({p['placement']})"
    if p.get("tokens_in_flight", 1) != 1:
        key += f" T={p['tokens_in_flight']}"
    return f"{key} @{p['rate_mbit']:g}Mb"


def _size(n: int) -> str:
    return f"{n // 1024}K" if n >= 1024 and n % 1024 == 0 else str(n)


def table(doc: dict) -> str:
    """Mean throughput (MB/s) per curve and token size; '*' marks suspect points."""
    cells: dict = defaultdict(list)
    suspect: set = set()
    sizes: set = set()
    for p in doc["points"]:
        x = p.get("token_size") or p.get("file_size") or p["pairs"]
        sizes.add(x)
        cells[(curve_key(p), x)].append(p["throughput_mbyte_s"])
        if p["fidelity"].get("suspect"):
            suspect.add((curve_key(p), x))
    curves = list(dict.fromkeys(curve_key(p) for p in doc["points"]))
    xs = sorted(sizes)
    label = "token size" if doc["workload"] == "token" else "pairs"
    width = max([len(c) for c in curves] + [len(label)]) + 2
    lines = [f"{doc['workload']} throughput, MB/s (10^6 bytes/s of payload)",
             label.ljust(width) + "".join(_size(x).rjust(9) for x in xs)]
    for c in curves:
        row = c.ljust(width)
        for x in xs:
            vals = cells.get((c, x))
            cell = f"{sum(vals) / len(vals):.2f}" + ("*" if (c, x) in suspect else "") if vals else "-"
            row += cell.rjust(9)
        lines.append(row)
    if suspect:
        lines.append("* suspect: the host CPU, not the emulated network, may have limited this point")
    return "\n".join(lines)


def plot(doc: dict, path: str) -> None:
    """Throughput vs token size, one curve per topology/placement (like HPDC'96's figures)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict = defaultdict(lambda: defaultdict(list))
    for p in doc["points"]:
        x = p.get("token_size") or p["pairs"]
        series[curve_key(p)][x].append(p["throughput_mbyte_s"])
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for name, pts in series.items():
        xs = sorted(pts)
        ys = [sum(pts[x]) / len(pts[x]) for x in xs]
        ax.plot(xs, ys, marker="o", label=name)
    if doc["workload"] == "token":
        ax.set_xscale("log", base=2)
        ax.set_xlabel("token size (bytes)")
    else:
        ax.set_xlabel("pairs")
    ax.set_ylabel("aggregate throughput (MB/s, payload)")
    env = doc["environment"]
    ax.set_title(f"Beowulf Netlab {doc['workload']}: {env.get('kernel', '')}, "
                 f"commit {env.get('project_commit', '')}", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
