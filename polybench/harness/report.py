"""The terminal table, the CSV and the JSON."""
from __future__ import annotations

import csv
import json
import math
import shlex
from pathlib import Path
from typing import TextIO

from .bench import BenchResult, Cell
from .machine_info import caches_summary
from .roofline import peak_pct

SCHEMA = "s2s-bench/1"


def _fmt_s(x: float | None) -> str:
    return "—" if x is None else f"{x:.6f}"


def _fmt_gf(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:.3g}" if x < 10 else f"{x:.1f}"


def _fmt_pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.1f}"


def _fmt_x(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}×"


def verification_rule(result: BenchResult) -> str:
    from .verify import FLOOR, NOISE_FACTOR

    tol = result.options.tolerance
    refs = " and reference-O0" if any(c.name == "reference-O0" for c in result.active_configs()) else ""
    rule = (f"✓ = verified against baseline{refs}: relative error |a-b| / max(|a|,|b|,tiny) <= {tol:g} for every "
            f"value (full-precision %.17g dumps; tiny = {FLOOR:g} x the array's largest |value|); "
            f"integer kernels exact")
    if any(c.config.role == "noise" for c in result.cells):
        rule += (f"; ≈ = within {NOISE_FACTOR:g}x the rounding noise of an array (how far cc -ffp-contract=off "
                 f"drifts from baseline), which exceeds {tol:g}")
    return rule


def noise_notes(result: BenchResult) -> list[str]:
    lines = []
    for p in result.points:
        if p.noise_tolerances:
            parts = ", ".join(f"{a} {p.noise.get(a, float('nan')):.2g} -> tolerance {t:.2g}"
                              for a, t in p.noise_tolerances.items())
            unchecked = any(t >= 1 for t in p.noise_tolerances.values())
            lines.append(f"noisy output: {p.key}: rounding noise (baseline vs -ffp-contract=off) {parts}"
                         + ("; values effectively unchecked (ill-conditioned at these sizes)" if unchecked else ""))
    for c in result.cells:
        if c.config.role == "noise" and c.ran and not c.verified:
            lines.append(f"note: the rounding-noise probe of {c.point.key} failed ({c.status_text}: {c.message}); "
                         f"its tolerance is not widened")
    return lines


def quantized_note(result: BenchResult) -> str | None:
    qs = sorted({c.quantum for cell in result.cells for c in cell.comparisons if c.mode == "abs+rel" and c.quantum})
    if not qs:
        return None
    q = qs[-1]
    decimals = round(-math.log10(q))
    return (f"dumps of {result.suite.root} with only {decimals} decimals (printed without the fprintf shim's "
            f"marker: a build it did not reach) compared with |a-b| <= {q:g} + {result.options.tolerance:g}"
            f"*max(|a|,|b|) (one unit of the last printed decimal: each side is rounded by up to half of it)")


def shim_note(result: BenchResult) -> str | None:
    """How an external tree's dumps reach full precision (None for our suite)."""
    if not result.suite.external:
        return None
    from .dump_shim import FILENAME
    shim = result.options.output_dir / "build" / FILENAME
    return (f"the verification builds of {result.suite.root} force-include an fprintf shim ({shim}: -include) "
            f"that prints each floating-point value of the dump with %.17g; its sources are untouched and its "
            f"timed builds do not get it")


def print_table(result: BenchResult, meta: dict, out: TextIO) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    is_tty = getattr(out, "isatty", lambda: False)()
    console = Console(file=out, width=None if is_tty else 240, highlight=False, force_terminal=None)
    opts = result.options
    configs = result.active_configs()
    sweep = any(p.overrides for p in result.points)

    peak = meta.get("machine_peak")
    realistic = result.suite.group == "realistic"
    if realistic:
        peak = None  # (no flop counts for whole programs)
    hot_cfgs = {c.config.name for c in result.cells if c.hot is not None}
    what = ("Realistic programs" if realistic else f"PolyBench {opts.dataset}") + \
        f": {len({p.kernel.name for p in result.points})} {'programs' if realistic else 'kernels'}, "
    title = (what +
             f"{len(configs)} configurations, repeat {opts.repeat} (up to {opts.short_run_factor * opts.repeat} "
             f"for kernels under {opts.short_run_s:g} s), {opts.threads} threads"
             f"{f', {opts.busy} busy processes alongside' if opts.busy else ''} — "
             f"{meta['machine'].get('cpu_model')}")
    console.print(title, style="bold")
    table = Table(show_lines=False, pad_edge=False)
    table.add_column("program" if realistic else "kernel", no_wrap=True)
    if sweep:
        table.add_column("size", no_wrap=True)
    for cfg in configs:
        if cfg.verify_only:
            table.add_column(cfg.name, justify="center", no_wrap=True)
            continue
        table.add_column(f"{cfg.name} s", justify="right", no_wrap=True)
        if not realistic:
            table.add_column("GF/s", justify="right", no_wrap=True)
        if peak:
            table.add_column("%peak", justify="right", no_wrap=True)
        if cfg.name != "baseline":
            table.add_column("speedup", justify="right", no_wrap=True)
        if cfg.name in hot_cfgs:
            table.add_column("hot opt", justify="right", no_wrap=True)
    for p in result.points:
        row: list = [p.kernel.name]
        if sweep:
            row.append(p.label or "(dataset)")
        for cfg in configs:
            c = result.cell(p, cfg.name)
            if c is None:
                continue
            if cfg.verify_only:
                row.append(Text("≈" if c.widened else "✓", style="yellow" if c.widened else "green")
                           if c.verified else Text(f"✗ {c.status_text}", style="bold red"))
                continue
            if c.verified:
                row.append(Text(f"{_fmt_s(c.median)} {'≈' if c.widened else '✓'}",
                                style="yellow" if c.widened else ""))
                if not realistic:
                    row.append(_fmt_gf(c.gflops))
                if peak:
                    row.append(_fmt_pct(peak_pct(c, meta)))
            else:
                row.append(Text(f"{c.status_text} ✗", style="bold red"))
                if not realistic:
                    row.append("—")
                if peak:
                    row.append("—")
            if cfg.name != "baseline":
                sp = c.speedup
                style = "green" if sp and sp >= 1.05 else ("yellow" if sp and sp < 0.95 else "")
                row.append(Text(_fmt_x(sp), style=style))
            if cfg.name in hot_cfgs:
                row.append(_fmt_hot(c.hot))
        table.add_row(*row)
    geo = result.geomeans()
    compared = [c for c in configs if not c.verify_only and c.name != "baseline"]
    row = [Text("geomean", style="bold")]
    if sweep:
        row.append("")
    for cfg in configs:
        if cfg.verify_only:
            row.append("")
            continue
        row += [""] + ([""] if not realistic else []) + ([""] if peak else [])
        if cfg.name != "baseline":
            g, n = geo.get(cfg.name, (None, 0))
            row.append(Text(f"{_fmt_x(g)} ({n})", style="bold"))
        if cfg.name in hot_cfgs:
            row.append(Text(_fmt_share(hot_summary(result, cfg.name)), style="bold"))
    if compared:
        table.add_section()
        table.add_row(*row)
    console.print(table)
    if hot_cfgs:
        for line in hot_lines(result):
            console.print(line, soft_wrap=True, highlight=False, markup=False)

    console.print(verification_rule(result))
    if peak:
        console.print(f"%peak: GFLOP/s over the SIMD peak of `s2s machine` ({peak['source']}) on the threads a "
                      f"configuration runs on: 1 for sequential builds, {peak['threads_measured']} for OpenMP ones")
    sn = shim_note(result)
    if sn:
        console.print(sn)
    qn = quantized_note(result)
    if qn:
        console.print(qn, style="yellow")
    for line in noise_notes(result):
        console.print(line, style="yellow", soft_wrap=True)
    for cfg in result.configs:
        if not cfg.available:
            console.print(f"unavailable: {cfg.name} — {cfg.unavailable}", style="yellow")
    for name in result.unknown_kernels:
        console.print(f"UNKNOWN KERNEL: {name}", style="bold red")
    for note in result.notes:
        console.print(f"note: {note}", style="yellow")
    fails = result.failures()
    for c in fails:
        log = ""
        if c.status == "build-failed":
            b = c.build_timed if c.build_timed and not c.build_timed.ok else c.build_dump
            log = f" (log: {b.log})" if b and b.log else ""
        console.print(f"FAILED {c.point.key} / {c.config.name}: {c.status_text} — {c.message}{log}",
                      style="bold red", soft_wrap=True)
    ran = [c for c in result.cells if c.ran and c.counts]
    ok = sum(c.verified for c in ran)
    verdict = f"{ok}/{len(ran)} cells verified"
    if fails or result.unknown_kernels:
        console.print(f"{verdict}; {len(fails)} failed"
                      + (f"; {len(result.unknown_kernels)} unknown kernel(s)" if result.unknown_kernels else ""),
                      style="bold red")
    else:
        console.print(verdict, style="bold green")


# --- hot loop nests (the realistic group) -----------------------------------------------------------

def _fmt_hot(hot: list | None) -> str:
    if hot is None:
        return "—"
    return f"{sum(o.optimized for o in hot)}/{len(hot)}"


def _fmt_share(s: dict[str, int]) -> str:
    if not s["found"]:
        return "—"
    return f"{s['optimized']}/{s['found']} ({100 * s['optimized'] / s['found']:.0f}%)"


def hot_summary(result: BenchResult, config: str) -> dict[str, int]:
    from .realistic import summary

    return summary([c for c in result.cells if c.config.name == config])


def hot_lines(result: BenchResult) -> list[str]:
    """The hot nests that a configuration did not optimize (optimized only in part: ``inner``),
    each with its reasons, the configurations alike merged; then the shares."""
    lines = ["hot loop nests (/* hot */ in the source; opt = optimized by s2s / found, from s2s-cc --s2s-report):"]
    for p in result.points:
        cells = [c for c in result.cells if c.point is p and c.hot is not None]
        if not cells:
            continue
        for i in range(len(cells[0].hot)):
            groups: dict[tuple, list[str]] = {}
            for c in cells:
                if i < len(c.hot):
                    o = c.hot[i]
                    groups.setdefault((o.status, tuple(o.reasons)), []).append(c.config.name)
            o = cells[0].hot[i]
            where = f"  {p.kernel.name}.c:{o.nest.line} {o.function or '?'}" + ("" if o.nest.affine else
                                                                               f" ({o.nest.note})")
            for (status, reasons), names in groups.items():
                if status == "optimized":
                    continue
                lines.append(f"{where} [{', '.join(names)}]: {status}" + (f": {'; '.join(reasons)}" if reasons else ""))
    for cfg in result.active_configs():
        s = hot_summary(result, cfg.name)
        if s["found"]:
            share = f" ({100 * s['affine_optimized'] / s['affine']:.0f}%)" if s["affine"] else ""
            lines.append(f"{cfg.name}: {_fmt_share(s)} of the hot nests optimized; of the {s['affine']} affine "
                         f"once pointers are resolved, {s['affine_optimized']}{share}")
    return lines


# --- CSV / JSON ---------------------------------------------------------------------------------

CSV_FIELDS = [
    "date", "s2s_version", "git_commit", "git_dirty", "suite", "dataset", "kernel", "category", "sizes",
    "swept", "config", "status", "verified", "message", "compare_mode", "tolerance", "max_rel_err",
    "max_abs_err", "repeat", "threads", "times_s", "median_s", "min_s", "max_s", "flops", "gflops",
    "speedup", "noise_widened", "rounding_noise", "role", "command", "dump_command", "config_env", "compiler_version", "cpu_model", "cores",
    "logical_cpus", "caches", "memory", "cc_version", "clang14_version", "peak_pct",
    "group", "hot_nests", "hot_optimized", "hot_affine", "hot_affine_optimized", "hot_not_optimized",
]


def _num(x):
    if x is None:
        return None
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def cell_record(c: Cell, result: BenchResult, meta: dict) -> dict:
    p = c.point
    comp_modes = sorted({x.mode for x in c.comparisons})
    return {
        "kernel": p.kernel.name,
        "category": p.kernel.category,
        "sizes": dict(p.sizes),
        "swept": dict(p.overrides),
        "config": c.config.name,
        "role": c.config.role,
        "status": c.status,
        "verified": c.verified,
        "noise_widened": c.widened,
        "message": c.message,
        "comparisons": [x.to_json() for x in c.comparisons],
        "compare_mode": "+".join(comp_modes) if comp_modes else None,
        "max_rel_err": _num(c.max_rel_err),
        "max_abs_err": _num(max((x.max_abs_err for x in c.comparisons), default=None)),
        "times_s": list(c.times),
        "median_s": c.median,
        "min_s": min(c.times) if c.times else None,
        "max_s": max(c.times) if c.times else None,
        "flops": p.flops,
        "gflops": c.gflops,
        "speedup": c.speedup,
        "peak_pct": peak_pct(c, meta),
        "build": {"timed": c.build_timed.to_json() if c.build_timed else None,
                  "dump": c.build_dump.to_json() if c.build_dump else None},
        "workdir": str(c.workdir) if c.workdir else None,
        "hot_nests": None if c.hot is None else [o.to_json() for o in c.hot],
    }


def to_json(result: BenchResult, meta: dict) -> dict:
    geo = result.geomeans()
    return {
        "schema": SCHEMA,
        **meta,
        "configs": [{"name": c.name, "argv": list(c.argv), "env": dict(c.env), "command": c.command_template(),
                     "description": c.description, "available": c.available, "unavailable": c.unavailable,
                     "role": c.role, "user": c.user,
                     "compiler_version": meta.get("config_compilers", {}).get(c.name)}
                    for c in result.configs],
        "kernels": [{"name": p.kernel.name, "category": p.kernel.category, "source": str(p.kernel.source),
                     "params": list(p.kernel.params), "sizes": dict(p.sizes), "swept": dict(p.overrides),
                     "integer": p.kernel.integer, "flops": p.flops,
                     "rounding_noise": {a: _num(v) for a, v in p.noise.items()},
                     "noise_tolerances": dict(p.noise_tolerances),
                     "registry": p.kernel.info is not None} for p in result.points],
        "unknown_kernels": list(result.unknown_kernels),
        "notes": list(result.notes),
        "verification": {"rule": verification_rule(result), "quantized": quantized_note(result),
                         "full_precision_shim": shim_note(result),
                         "noise": noise_notes(result)},
        "results": [cell_record(c, result, meta) for c in result.cells],
        "geomean_speedup": {k: {"speedup": g, "points": n} for k, (g, n) in geo.items()},
        "hot_nests": {c.name: hot_summary(result, c.name) for c in result.active_configs()
                      if any(x.hot is not None for x in result.cells if x.config.name == c.name)},
        "exit_status": result.exit_status,
    }


def write_json(result: BenchResult, meta: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_json(result, meta), indent=2, default=str) + "\n")


def _hot_csv(c: Cell) -> dict:
    if c.hot is None:
        return {k: "" for k in ("hot_nests", "hot_optimized", "hot_affine", "hot_affine_optimized", "hot_not_optimized")}
    return {"hot_nests": len(c.hot), "hot_optimized": sum(o.optimized for o in c.hot),
            "hot_affine": sum(o.nest.affine for o in c.hot),
            "hot_affine_optimized": sum(o.nest.affine and o.optimized for o in c.hot),
            "hot_not_optimized": " | ".join(f"line {o.nest.line} {o.function}: {o.status}: {'; '.join(o.reasons)}"
                                            for o in c.hot if not o.optimized)}


def write_csv(result: BenchResult, meta: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    m = meta["machine"]
    comp = meta["compilers"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        for c in result.cells:
            rec = cell_record(c, result, meta)
            w.writerow({
                "date": meta["date"],
                "s2s_version": meta["s2s"]["version"],
                "git_commit": meta["s2s"]["git_commit"] or "",
                "git_dirty": "" if meta["s2s"]["git_dirty"] is None else meta["s2s"]["git_dirty"],
                "suite": meta["suite"]["root"],
                "dataset": meta["options"]["dataset"],
                "kernel": rec["kernel"],
                "category": rec["category"],
                "sizes": " ".join(f"{k}={v}" for k, v in rec["sizes"].items()),
                "swept": " ".join(f"{k}={v}" for k, v in rec["swept"].items()),
                "config": rec["config"],
                "status": rec["status"],
                "verified": rec["verified"],
                "message": rec["message"],
                "compare_mode": rec["compare_mode"] or "",
                "tolerance": result.options.tolerance,
                "max_rel_err": "" if rec["max_rel_err"] is None else rec["max_rel_err"],
                "max_abs_err": "" if rec["max_abs_err"] is None else rec["max_abs_err"],
                "repeat": result.options.repeat,
                "threads": result.options.threads,
                "times_s": " ".join(f"{t:.6f}" for t in c.times),
                "median_s": "" if c.median is None else f"{c.median:.6f}",
                "min_s": "" if rec["min_s"] is None else f"{rec['min_s']:.6f}",
                "max_s": "" if rec["max_s"] is None else f"{rec['max_s']:.6f}",
                "flops": "" if rec["flops"] is None else rec["flops"],
                "gflops": "" if c.gflops is None else f"{c.gflops:.4f}",
                "speedup": "" if c.speedup is None else f"{c.speedup:.4f}",
                "noise_widened": c.widened,
                "rounding_noise": " ".join(f"{a}={v:.3g}" for a, v in c.point.noise.items()),
                "role": c.config.role,
                "command": c.build_timed.command if c.build_timed else "",
                "dump_command": c.build_dump.command if c.build_dump else "",
                "config_env": " ".join(f"{k}={shlex.quote(v)}" for k, v in c.config.env.items()),
                "compiler_version": meta.get("config_compilers", {}).get(c.config.name) or "",
                "cpu_model": m.get("cpu_model"),
                "cores": m.get("cores"),
                "logical_cpus": m.get("threads"),
                "caches": caches_summary(m.get("caches", [])),
                "memory": m.get("memory"),
                "cc_version": comp.get("cc") or "",
                "clang14_version": comp.get("clang-14") or "",
                "peak_pct": "" if rec["peak_pct"] is None else f"{rec['peak_pct']:.2f}",
                "group": result.suite.group,
                **_hot_csv(c),
            })
