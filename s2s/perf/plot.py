"""Roofline plots (PNG and SVG, log-log): ceilings from ``s2s machine``, one point per loop nest
(or kernel), series for before/after (or configurations), arrows from each point to its next.

Two panels: the cache-aware roofline (x = FLOP per byte of all accesses, every memory level's roof
drawn) and the footprint roofline (x = FLOP per byte of the distinct footprint: the classic DRAM
roofline when the data do not fit in cache).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from s2s.perf.roofline import Ceilings

LEVEL_STYLE = {"L1": ("#1b9e77", "-"), "L2": ("#7570b3", "-"), "L3": ("#d95f02", "-"), "DRAM": ("#e7298a", "-")}
MARKERS = ("o", "^", "s", "D", "v", "P", "X", "*")


@dataclass(frozen=True)
class RoofPoint:
    label: str                    # what the point is ("kernel_gemm:72", "gemm")
    series: str                   # "original", "optimized", or a configuration
    flop_per_s: float
    oi_access: float | None
    oi_footprint: float | None
    group: str                    # points of one group are joined by arrows, in series order
    bound: str | None = None
    precision: str | None = "fp64"


def plot_paths(path: Path | str) -> list[Path]:
    """``x.png`` -> [x.png, x.svg]; ``x.svg`` -> [x.svg, x.png]; ``x`` -> [x.png, x.svg]."""
    path = Path(path)
    if path.suffix.lower() in (".png", ".svg"):
        return [path, path.with_suffix(".svg" if path.suffix.lower() == ".png" else ".png")]
    return [path.with_name(path.name + ".png"), path.with_name(path.name + ".svg")]


def write_roofline(points: list[RoofPoint], ceilings: Ceilings | None, path: Path | str, title: str = "",
                   annotate: bool = True) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(14, 6), sharey=True)
    series = list(dict.fromkeys(p.series for p in points))
    groups = list(dict.fromkeys(p.group for p in points))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    group_color = {g: colors[i % len(colors)] for i, g in enumerate(groups)}
    ys = [p.flop_per_s for p in points if p.flop_per_s > 0]
    precisions = {p.precision or "fp64" for p in points} or {"fp64"}
    tops = [v for k, v in (ceilings.compute.items() if ceilings else []) if k in precisions]
    if ys or tops:
        axes[0].set_yscale("log")
        axes[0].set_ylim(min(ys + tops) / 1e9 / 5, max(ys + tops) / 1e9 * 3)
    for ax, attr, name in ((axes[0], "oi_access", "cache-aware: FLOP / byte of all loads and stores"),
                           (axes[1], "oi_footprint", "footprint: FLOP / byte of distinct data")):
        xs = [getattr(p, attr) for p in points if getattr(p, attr)]
        lo = min(xs + [0.01]) / 4
        hi = max(xs + [10.0]) * 4
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        _ceilings(ax, ceilings, lo, hi, precisions)
        for g in groups:
            pts = [p for p in points if p.group == g and getattr(p, attr) and p.flop_per_s > 0]
            pts.sort(key=lambda p: series.index(p.series))
            for p in pts:
                ax.scatter([getattr(p, attr)], [p.flop_per_s / 1e9],
                           marker=MARKERS[series.index(p.series) % len(MARKERS)], s=50, color=group_color[g],
                           edgecolor="black", linewidth=0.5, zorder=3)
            by_series = [[p for p in pts if p.series == s] for s in series]
            by_series = [b for b in by_series if b]
            for earlier, later in zip(by_series, by_series[1:]):
                for a in earlier:
                    for b in later:
                        ax.annotate("", xy=(getattr(b, attr), b.flop_per_s / 1e9),
                                    xytext=(getattr(a, attr), a.flop_per_s / 1e9),
                                    arrowprops={"arrowstyle": "->", "color": group_color[g], "lw": 1.0}, zorder=2)
            if annotate and pts:
                last = pts[-1]
                ax.annotate(last.label, (getattr(last, attr), last.flop_per_s / 1e9), textcoords="offset points",
                            xytext=(5, 4), fontsize=7, color=group_color[g])
        ax.set_xlabel(f"operational intensity ({name})", fontsize=9)
        ax.grid(True, which="both", alpha=0.2)
        missing = [p.label for p in points if not getattr(p, attr) or p.flop_per_s <= 0]
        if missing and attr == "oi_footprint":
            ax.text(0.01, 0.01, f"not shown (no footprint or no FLOPs): {len(set(missing))}", transform=ax.transAxes,
                    fontsize=7, color="grey")
    axes[0].set_ylabel("performance (GFLOP/s)")
    if not points:
        axes[0].text(0.5, 0.5, "no loop nest with FLOPs ran", transform=axes[0].transAxes, ha="center")
    # the legend: series by marker, then the ceilings
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker=MARKERS[i % len(MARKERS)], color="grey", linestyle="", label=s)
               for i, s in enumerate(series)]
    axes[1].legend(handles=handles + list(axes[0].get_legend_handles_labels()[0]), fontsize=7, loc="lower right")
    if ceilings is not None:
        title = (title + "\n" if title else "") + f"ceilings: {ceilings.source}"
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    out = plot_paths(path)
    for p in out:
        p.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(p, dpi=120)
    plt.close(fig)
    return out


def _ceilings(ax, ceilings: Ceilings | None, lo: float, hi: float, precisions: set[str]) -> None:
    if ceilings is None:
        ax.text(0.5, 0.95, "no machine profile: run `s2s machine` for the ceilings", transform=ax.transAxes,
                ha="center", fontsize=8, color="grey")
        return
    peak = max((v for k, v in ceilings.compute.items() if k in precisions), default=None)
    for key, style in (("fp32", ":"), ("fp64", "-"), ("fp32_scalar", "-."), ("fp64_scalar", "--")):
        v = ceilings.compute.get(key)
        if v and key.split("_")[0] in precisions:
            ax.axhline(v / 1e9, color="black", linestyle=style, linewidth=1.0,
                       label=f"{key.replace('_', ' ')} peak {v / 1e9:.0f} GF/s")
    import numpy as np

    xs = np.geomspace(lo, hi, 64)
    for level, bw in ceilings.bandwidth.items():
        color, style = LEVEL_STYLE.get(level, ("grey", "-"))
        ys = np.minimum(peak if peak else math.inf, xs * bw) / 1e9
        ax.plot(xs, ys, color=color, linestyle=style, linewidth=1.2, label=f"{level} {bw / 1e9:.0f} GB/s")


def profile_points(result) -> list[RoofPoint]:
    """One point per executed loop nest of each variant of an ``s2s profile`` result."""
    from s2s.perf.profile import pairs

    group_of: dict[tuple[str, int], str] = {}
    for p in pairs(result):
        g = p.after.label
        group_of[("optimized", p.after.index)] = g
        for b in p.before:
            group_of[("original", b.index)] = g
    out = []
    for v in result.variants:
        for n in v.nests:
            if not n.time_s or not n.flops:
                continue
            precision = "fp32" if (n.f32 or 0) > (n.f64 or 0) else "fp64"
            out.append(RoofPoint(n.label, v.name, n.flops / n.time_s, n.oi_access, n.oi_footprint,
                                 group_of.get((v.name, n.index), n.label), (n.verdict or {}).get("bound"), precision))
    return out
