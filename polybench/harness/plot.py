"""The speedup bar chart: one group per kernel (and size), one bar per configuration, and the
geometric mean; failed cells are marked with a red ✗ instead of a bar."""
from __future__ import annotations

from pathlib import Path

from .bench import BenchResult


def plot_paths(path: Path) -> list[Path]:
    """``x.png`` -> [x.png, x.svg]; ``x.svg`` -> [x.svg, x.png]; ``x`` -> [x.png, x.svg]."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".png", ".svg"):
        other = ".svg" if suffix == ".png" else ".png"
        return [path, path.with_suffix(other)]
    if suffix in (".pdf", ".jpg", ".jpeg"):
        return [path, path.with_suffix(".png"), path.with_suffix(".svg")]
    return [path.with_name(path.name + ".png"), path.with_name(path.name + ".svg")]


def write_plot(result: BenchResult, meta: dict, path: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = [c for c in result.active_configs() if not c.verify_only and c.name != "baseline"]
    points = result.points
    labels = [p.kernel.name + (f"\n{p.label}" if p.label else "") for p in points] + ["geomean"]
    geo = result.geomeans()
    n_groups, n_cfg = len(labels), max(1, len(configs))
    width = 0.8 / n_cfg
    fig, ax = plt.subplots(figsize=(max(8.0, 0.32 * n_groups * n_cfg + 2.5), 5.0))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    series = []
    for j, cfg in enumerate(configs):
        xs, ys, fails = [], [], []
        for i, p in enumerate(points):
            c = result.cell(p, cfg.name)
            x = i - 0.4 + width * (j + 0.5)
            if c is not None and c.speedup:
                xs.append(x)
                ys.append(c.speedup)
            elif c is not None and c.ran and not c.verified:
                fails.append(x)
        g, _ = geo.get(cfg.name, (None, 0))
        if g:
            xs.append(n_groups - 1 - 0.4 + width * (j + 0.5))
            ys.append(g)
        series.append((cfg, xs, ys, fails))
    values = [y for _, _, ys, _ in series for y in ys]
    log = bool(values) and max(values) / max(min(values), 1e-9) > 20
    for j, (cfg, xs, ys, fails) in enumerate(series):
        color = colors[j % len(colors)]
        if log:  # bars grow from 1 (no change), up for faster, down for slower
            ax.bar(xs, [y - 1 for y in ys], bottom=1, width=width * 0.95, label=cfg.name, color=color)
        else:
            ax.bar(xs, ys, width=width * 0.95, label=cfg.name, color=color)
        # The bar's end as a line too, so that a speedup of exactly 1.00 still shows.
        ax.hlines(ys, [x - width * 0.47 for x in xs], [x + width * 0.47 for x in xs], colors=color, linewidth=2)
        for x in fails:
            ax.annotate("✗", (x, 1.0), ha="center", va="center", color="red", fontsize=12, fontweight="bold")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axvline(n_groups - 1.5, color="grey", linewidth=0.6, linestyle=":")
    if log:
        ax.set_yscale("log")
    ax.set_xticks(range(n_groups))
    ax.set_xticklabels(labels, rotation=60 if n_groups > 8 else 0, ha="right" if n_groups > 8 else "center",
                       fontsize=8)
    ax.set_xlim(-0.6, n_groups - 0.4)
    ax.set_ylabel("speedup over baseline (cc -O3 -march=native)")
    opts = result.options
    cpu = meta.get("machine", {}).get("cpu_model") or ""
    ax.set_title(f"PolyBench {opts.dataset}, {opts.threads} threads, median of {opts.repeat} — {cpu}", fontsize=10)
    if configs:
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "no configuration besides baseline", transform=ax.transAxes, ha="center")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    out = plot_paths(path)
    for p in out:
        p.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(p, dpi=120)
    plt.close(fig)
    return out
