"""Text (and PNG) pictures of a topology's wiring, for `emulate.py topo show`."""
from __future__ import annotations

from pathlib import Path

from beowulf_netlab.core.errors import BadInput
from beowulf_netlab.core.safefile import atomic_binary
from beowulf_netlab.topologies.spec import NetworkSpec


def wiring_text(spec: NetworkSpec) -> str:
    p = spec.params
    head = f"{spec.topology}: {len(spec.nodes)} nodes, {len(spec.wires)} wire(s) at {p['rate_mbit']:g} Mbit/s"
    lines = [head]
    for note in spec.notes:
        lines.append(f"  ({note})")
    lines.append("")
    lines.append("wires:")
    for w in spec.wires:
        members = spec.members(w.name)
        joined = [s.name for s in spec.switches if w.name in s.wires]
        extra = f", joined to switch {joined[0]}" if joined else ""
        kind = "full-duplex" if w.full_duplex else "shared"
        lines.append(f"  {w.name:4s} {kind} {w.rate_mbit:g} Mbit/s{extra}: "
                     + " ".join(n.name for n in members))
    if spec.switches:
        lines.append("")
        lines.append("switches:")
        for s in spec.switches:
            lines.append(f"  {s.name}: joins wires {' '.join(s.wires)}")
    lines.append("")
    lines.append("nodes:")
    for n in spec.nodes:
        nics = ", ".join(f"{n.name}-eth{k} on {w}" for k, w in enumerate(n.wires))
        flags = []
        if n.bonded:
            flags.append(f"bonded x{len(n.wires)} (round-robin)")
        if n.forwarding:
            flags.append("forwards IP")
        lines.append(f"  {n.name:4s} {n.ip:12s} {nics}" + (f"  [{'; '.join(flags)}]" if flags else ""))
    if spec.params.get("grid"):
        from beowulf_netlab.topologies.mesh import grid_text
        lines += ["", *grid_text(spec)]
    return "\n".join(lines) + "\n"


TOPO_VERSION = 1   # `topo show --json`'s version (docs/json.md)


def wiring_data(spec: NetworkSpec) -> dict:
    """`topo show --json`: what wiring_text says, as data."""
    switch_of = {w: s.name for s in spec.switches for w in s.wires}
    return {"topo_version": TOPO_VERSION, "topology": spec.topology, "rate_mbit": spec.params["rate_mbit"],
            "grid": spec.params.get("grid"), "notes": list(spec.notes),
            "wires": [{"name": w.name, "rate_mbit": w.rate_mbit, "full_duplex": w.full_duplex,
                       "switch": switch_of.get(w.name), "nodes": [n.name for n in spec.members(w.name)]}
                      for w in spec.wires],
            "switches": [{"name": s.name, "wires": list(s.wires)} for s in spec.switches],
            "nodes": [{"name": n.name, "address": n.ip, "wires": list(n.wires), "bonded": n.bonded,
                       "forwarding": n.forwarding} for n in spec.nodes]}


def wiring_png(spec: NetworkSpec, path: str) -> None:
    """Draw the wiring: wires as coloured lines through their stations, switches
    as boxes; for the routed mesh, a second panel with the relay of every pair."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = spec.params.get("grid")
    routed = bool(grid) and any(n.forwarding for n in spec.nodes)   # the relay panel: the routed mesh
    wide = 8 if grid or len(spec.nodes) <= 10 else min(0.75 * len(spec.nodes), 40)
    fig, axes = plt.subplots(1, 2 if routed else 1, figsize=(15 if routed else wide, 7))
    ax = axes[0] if routed else axes
    duplex = all(w.full_duplex for w in spec.wires)
    ax.set_title(f"{spec.topology}: {len(spec.nodes)} nodes, {len(spec.wires)} "
                 f"{'full-duplex ports' if duplex else 'shared wires'} at {spec.params['rate_mbit']:g} Mbit/s"
                 + (", every node bonded over them (round-robin)" if all(n.bonded for n in spec.nodes) else ""))
    colours = plt.get_cmap("tab10")
    if duplex and spec.switches:   # a star: every node's port runs to the one switch
        import math
        n = len(spec.nodes)
        radius = max(3.0, n * 0.35)
        pos = {node.name: (radius * math.cos(2 * math.pi * i / n), radius * math.sin(2 * math.pi * i / n))
               for i, node in enumerate(spec.nodes)}
        for i, node in enumerate(spec.nodes):
            x, y = pos[node.name]
            ax.plot([0, x], [0, y], lw=3, color=colours(i % 10), alpha=0.7, zorder=1)
        ax.text(0, 0, f"switch\n{spec.switches[0].name}", ha="center", va="center", fontsize=11,
                bbox=dict(boxstyle="round", fc="lightyellow", ec="black"), zorder=5)
    elif grid:
        pos = {n.name: (n.grid[1] * 2.0, -n.grid[0] * 2.0) for n in spec.nodes}
        for i, w in enumerate(spec.wires):
            members = spec.members(w.name)
            xs = [pos[n.name][0] for n in members]
            ys = [pos[n.name][1] for n in members]
            off = 0.18 if w.name.startswith("r") else -0.18
            if w.name.startswith("r"):
                ys = [y + off for y in ys]
                xs = [min(xs) - 0.6, max(xs) + 0.6]
                ys = [ys[0], ys[0]]
            else:
                xs = [x + off for x in xs]
                ys = [max(ys) + 0.6, min(ys) - 0.6]
                xs = [xs[0], xs[0]]
            ax.plot(xs, ys, lw=4, color=colours(i % 10), alpha=0.8, zorder=1)
            ax.text(xs[-1] + (0.15 if w.name.startswith("r") else 0), ys[-1] - 0.25, w.name,
                    color=colours(i % 10), fontsize=11, weight="bold")
        k = grid
        for s in spec.switches:
            if s.name == "row":
                x, y = -1.8, -(k - 1)
                for r in range(k):
                    ax.plot([x + 0.5, -0.6], [y, -r * 2.0 + 0.18], color="grey", lw=1, ls="--")
            else:
                x, y = (k - 1), -2.0 * k + 0.4
                for c in range(k):
                    ax.plot([x, c * 2.0 - 0.18], [y + 0.3, -2.0 * (k - 1) - 0.6], color="grey", lw=1, ls="--")
            ax.text(x, y, f"switch\n{s.name}", ha="center", va="center", fontsize=10,
                    bbox=dict(boxstyle="round", fc="lightyellow", ec="black"))
    else:   # buses: each wire a line, a node dropped only to the wires it sits on (explicit files too)
        n = len(spec.nodes)
        rate = spec.params["rate_mbit"]
        pos = {node.name: (i * 1.0, 0.0) for i, node in enumerate(spec.nodes)}
        level = {w.name: -0.8 - 0.5 * i for i, w in enumerate(spec.wires)}
        for i, w in enumerate(spec.wires):
            y = level[w.name]
            xs = [pos[m.name][0] for m in spec.members(w.name)] or [0.0]
            ax.plot([min(xs) - 0.4, max(xs) + 0.4], [y, y], lw=4, color=colours(i % 10))
            kind = "full-duplex" if w.full_duplex else "shared"
            own = f", {w.rate_mbit:g} Mbit/s" if w.rate_mbit != rate else ""
            ax.text(max(xs) + 0.5, y, f"{w.name} ({kind}{own})", va="center", color=colours(i % 10),
                    weight="bold")
            for m in spec.members(w.name):
                ax.plot([pos[m.name][0]] * 2, [-0.25, y], color=colours(i % 10), lw=1.5)
                ax.scatter([pos[m.name][0]], [y], s=18, color=colours(i % 10), zorder=2)
        left = {w.name: min((pos[m.name][0] for m in spec.members(w.name)), default=0.0) - 0.4
                for w in spec.wires}
        for j, s in enumerate(spec.switches):   # a box left of the wires, a dashed line to each it joins
            x = -1.8 - 1.6 * j
            y = sum(level[w] for w in s.wires) / max(len(s.wires), 1)
            for wname in s.wires:
                ax.plot([x + 0.5, left[wname]], [y, level[wname]], color="grey", lw=1, ls="--", zorder=1)
                ax.scatter([left[wname]], [level[wname]], s=30, marker="s", color="grey", zorder=2)
            ax.text(x, y, f"switch\n{s.name}", ha="center", va="center", fontsize=10,
                    bbox=dict(boxstyle="round", fc="lightyellow", ec="black"), zorder=5)
        ax.set_ylim(min(level.values(), default=-0.8) - 0.5, 1.0)
        every = all(node.bonded for node in spec.nodes)   # then the title says it, not each node
        for node in spec.nodes:
            if node.forwarding or (node.bonded and not every):
                x, y = pos[node.name]
                ax.text(x, y + 0.45, "routes" if node.forwarding else f"bonded x{len(node.wires)}",
                        ha="center", fontsize=8, color="darkred", zorder=4)
    for node in spec.nodes:
        x, y = pos[node.name]
        ax.scatter([x], [y], s=900, color="white", edgecolor="black", zorder=3)
        ax.text(x, y + 0.05, node.name, ha="center", va="center", zorder=4, weight="bold")
        ax.text(x, y - 0.45, node.ip, ha="center", fontsize=7, zorder=4)
    ax.set_aspect("equal")
    ax.axis("off")
    if routed:
        from beowulf_netlab.topologies.mesh import relay_for, shares_wire
        k = grid
        names = [n.name for n in spec.nodes]
        m = len(names)
        ax2 = axes[1]
        ax2.set_title("relay node for each pair (row: from, column: to); blank = same wire")
        for a in range(m):
            for b in range(m):
                if a != b and not shares_wire(a, b, k):
                    r = relay_for(a, b, k)
                    ax2.add_patch(plt.Rectangle((b, a), 1, 1, color=colours(r % 10), alpha=0.35))
                    ax2.text(b + 0.5, a + 0.5, names[r], ha="center", va="center", fontsize=7)
                elif a != b:
                    ax2.add_patch(plt.Rectangle((b, a), 1, 1, color="whitesmoke"))
        ax2.set_xlim(0, m)
        ax2.set_ylim(m, 0)
        ax2.set_xticks([i + 0.5 for i in range(m)], names)
        ax2.set_yticks([i + 0.5 for i in range(m)], names)
        ax2.set_aspect("equal")
    fig.tight_layout()
    try:
        with atomic_binary(Path(path)) as f:   # core.safefile: never through a link at path or on the way
            fig.savefig(f, dpi=110, format="png", bbox_inches="tight")
    except OSError as e:
        raise BadInput(f"cannot write {path}: {e.strerror or e}; choose another --png")
    finally:
        plt.close(fig)
