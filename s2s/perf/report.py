"""``s2s profile`` output: the terminal table, JSON (schema ``s2s-profile/1``) and CSV."""
from __future__ import annotations

import csv
import json
import math
from io import StringIO
from pathlib import Path
from typing import TextIO

from s2s.perf.profile import SCHEMA, NestProfile, ProfileResult, pairs

CSV_FIELDS = [
    "variant", "mode", "label", "function", "line", "last_line", "regenerated", "calls", "time_s", "share_pct",
    "gflops", "flops", "flops_fp64", "flops_fp32", "int_ops", "access_bytes", "footprint_bytes",
    "footprint_bytes_per_call", "oi_access", "oi_footprint", "bandwidth_access_gbs", "bandwidth_footprint_gbs",
    "bound", "pct_of_ceiling", "home_level", "attainable_gflops", "speedup", "scop", "exact", "instances",
    "ipc", "llc_miss_gbs", "notes",
]


def _num(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def _shares(result: ProfileResult) -> dict[tuple[str, int], float]:
    out = {}
    for v in result.variants:
        total = sum(n.time_s for n in v.nests if n.time_s)
        for n in v.nests:
            if n.time_s and total:
                out[(v.name, n.index)] = 100.0 * n.time_s / total
    return out


def _speedups(result: ProfileResult) -> dict[int, float]:
    return {p.after.index: p.speedup for p in pairs(result) if p.speedup}


def to_json(result: ProfileResult) -> dict:
    from s2s import __version__

    o = result.options
    m = result.machine or {}
    shares = _shares(result)
    speed = _speedups(result)
    variants = []
    for v in result.variants:
        d = v.to_json()
        for nest, n in zip(d["nests"], v.nests):
            nest["share_pct"] = shares.get((v.name, n.index))
            if v.name == "optimized":
                nest["speedup"] = speed.get(n.index)
        variants.append(d)
    return {
        "schema": SCHEMA,
        "s2s_version": __version__,
        "date": result.date,
        "program": {"source": str(o.source), "cpp_args": list(o.cpp_args), "cc": o.cc, "cflags": list(o.cflags),
                    "ldflags": list(o.ldflags), "extra_sources": [str(s) for s in o.extra_sources],
                    "args": list(o.program_args)},
        "optimizer": {"mode": o.mode, "target": o.target, "fusion": o.fusion,
                      "tile_sizes": list(o.tile_sizes) if o.tile_sizes else "cache model"} if o.optimized else None,
        "repeat": o.repeat,
        "threads": result.ceilings.threads if result.ceilings else o.threads,
        "machine": {"host": m.get("host"), "cpu": (m.get("topology") or {}).get("cpu_model"), "date": m.get("date"),
                    "quick": m.get("quick")} if m else None,
        "ceilings": result.ceilings.to_json() if result.ceilings else None,
        "flop_rule": "PolyBench's: + - * / and comparisons on data values, math calls 1, fma 2; index arithmetic "
                     "not counted (s2s.perf.opcount)",
        "variants": variants,
        "pairs": [{"after": p.after.index, "label": p.after.label, "before": [b.index for b in p.before],
                   "before_time_s": p.before_time, "after_time_s": p.after.time_s, "speedup": p.speedup}
                  for p in pairs(result)],
        "notes": list(result.notes),
    }


def write_json(result: ProfileResult, path: Path | str) -> None:
    text = json.dumps(to_json(result), indent=2, default=str) + "\n"
    if str(path) == "-":
        import sys
        sys.stdout.write(text)
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text)


def csv_rows(result: ProfileResult) -> list[dict]:
    shares = _shares(result)
    speed = _speedups(result)
    rows = []
    for v in result.variants:
        for n in v.nests:
            verdict = n.verdict or {}
            hw = n.hw or {}
            rows.append({
                "variant": v.name, "mode": v.mode or "", "label": n.label, "function": n.function, "line": n.line,
                "last_line": n.last_line, "regenerated": n.regenerated, "calls": n.calls, "time_s": _num(n.time_s),
                "share_pct": shares.get((v.name, n.index)), "gflops": _num(n.gflops), "flops": n.flops,
                "flops_fp64": n.f64, "flops_fp32": n.f32, "int_ops": n.iops, "access_bytes": n.access_bytes,
                "footprint_bytes": n.footprint_bytes, "footprint_bytes_per_call": n.footprint_per_call,
                "oi_access": _num(n.oi_access), "oi_footprint": _num(n.oi_footprint),
                "bandwidth_access_gbs": n.bw_access / 1e9 if n.bw_access is not None else None,
                "bandwidth_footprint_gbs": n.bw_footprint / 1e9 if n.bw_footprint is not None else None,
                "bound": verdict.get("bound"), "pct_of_ceiling": _num(verdict.get("pct_of_ceiling")),
                "home_level": verdict.get("home_level"),
                "attainable_gflops": (verdict["attainable_flop_per_s"] / 1e9
                                      if verdict.get("attainable_flop_per_s") else None),
                "speedup": speed.get(n.index) if v.name == "optimized" else None, "scop": n.scop, "exact": n.exact,
                "instances": n.instances, "ipc": hw.get("ipc"),
                "llc_miss_gbs": hw["llc_miss_bandwidth_bytes_per_s"] / 1e9
                if hw.get("llc_miss_bandwidth_bytes_per_s") is not None else None,
                "notes": "; ".join(n.notes),
            })
    return rows


def write_csv(result: ProfileResult, path: Path | str) -> None:
    buf = StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS)
    w.writeheader()
    for row in csv_rows(result):
        w.writerow({k: ("" if v is None else v) for k, v in row.items()})
    if str(path) == "-":
        import sys
        sys.stdout.write(buf.getvalue())
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(buf.getvalue())


# --- the table ---------------------------------------------------------------------------------------

def _f(x, fmt="{:.3g}") -> str:
    return "—" if x is None else fmt.format(x)


def _time(x) -> str:
    if x is None:
        return "—"
    if x >= 1:
        return f"{x:.3f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.3f} ms"
    return f"{x * 1e6:.2f} µs"


def _bound(n: NestProfile) -> str:
    v = n.verdict or {}
    if not v.get("bound"):
        return "—"
    b = v["bound"]
    if b == "compute":
        b = f"compute ({v.get('precision') or 'fp64'})"
    return b


def print_table(result: ProfileResult, out: TextIO, show_all: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    is_tty = getattr(out, "isatty", lambda: False)()
    con = Console(file=out, width=None if is_tty else 200, highlight=False)
    o = result.options
    c = result.ceilings
    cpu = (result.machine or {}).get("topology", {}).get("cpu_model", "")
    con.print(f"s2s profile: {o.source} ({o.cc} {' '.join(o.cflags)}), "
              f"{c.threads if c else (o.threads or 1)} thread(s), median of {o.repeat} run(s)"
              + (f" — {cpu}" if cpu else ""), style="bold")
    if c is not None:
        parts = [f"{k.replace('_', ' ')} {c.compute[k] / 1e9:.1f} GF/s" for k in ("fp64", "fp32", "fp64_scalar")
                 if k in c.compute]
        parts += [f"{k} {v / 1e9:.1f} GB/s" for k, v in c.bandwidth.items()]
        con.print("ceilings: " + ", ".join(parts) + f"  [{c.source}]")
    speed = _speedups(result)
    shares = _shares(result)
    two = len(result.variants) > 1
    t = Table(pad_edge=False, show_lines=False)
    t.add_column("loop nest", no_wrap=True)
    if two:
        t.add_column("code", no_wrap=True)
    for name, just in (("calls", "right"), ("time", "right"), ("% time", "right"), ("GFLOP/s", "right"),
                       ("F/B acc", "right"), ("F/B fp", "right"), ("GB/s acc", "right"), ("GB/s fp", "right"),
                       ("bound", "left"), ("% ceil", "right")):
        t.add_column(name, justify=just, no_wrap=True)
    if two:
        t.add_column("speedup", justify="right", no_wrap=True)

    def row(n: NestProfile, variant: str, label: str) -> list:
        cells = [label]
        if two:
            cells.append(variant if variant == "original" else f"{variant} ({result.variant(variant).mode})")
        exact = "" if n.exact else "~"
        cells += [str(n.calls), _time(n.time_s), _f(shares.get((variant, n.index)), "{:.1f}"),
                  exact + _f(n.gflops), exact + _f(n.oi_access), exact + _f(n.oi_footprint),
                  _f(n.bw_access / 1e9 if n.bw_access is not None else None, "{:.1f}"),
                  _f(n.bw_footprint / 1e9 if n.bw_footprint is not None else None, "{:.2f}"),
                  _bound(n), _f((n.verdict or {}).get("pct_of_ceiling"), "{:.0f}%")]
        if two:
            sp = speed.get(n.index) if variant == "optimized" else None
            style = "green" if sp and sp >= 1.05 else ("yellow" if sp and sp < 0.95 else "")
            cells.append(Text(f"{sp:.2f}×", style=style) if sp else "")
        return cells

    skipped = []
    if two:
        for p in pairs(result):
            if not show_all and not p.after.calls and not any(b.calls for b in p.before):
                skipped.append(p.after.label)
                continue
            for b in p.before:
                t.add_row(*row(b, "original", f"{b.label}-{b.last_line}"))
            t.add_row(*row(p.after, "optimized", "" if len(p.before) == 1 else f"{p.after.label}-{p.after.last_line}"))
            t.add_section()
    else:
        for n in result.variants[0].nests:
            if not show_all and not n.calls:
                skipped.append(n.label)
                continue
            t.add_row(*row(n, "original", f"{n.label}-{n.last_line}"))
    con.print(t)
    con.print("F/B acc: FLOP per byte of all loads and stores; F/B fp: FLOP per byte of the distinct data "
              "footprint; GB/s likewise; bound: the roofline ceiling that limits the nest (compute, or the "
              "memory level it streams from), % ceil: how close it runs to it; ~: counts not exact (see notes)")
    if skipped:
        con.print(f"not executed: {', '.join(skipped)}")
    for v in result.variants:
        hw = v.hw
        if hw.get("available"):
            for n in v.nests:
                if n.hw and n.calls:
                    h = n.hw
                    llc_gbs = (h.get("llc_miss_bandwidth_bytes_per_s") or 0) / 1e9
                    con.print(f"hw {v.name} {n.label}: IPC {_f(h.get('ipc'), '{:.2f}')}, LLC misses "
                              f"{h.get('llc_misses')} ({llc_gbs:.2f} GB/s), L1D read misses {h.get('l1d_read_misses')}")
        elif hw.get("requested") != "off" and v.name == "original":
            con.print(f"hardware counters: not available ({hw.get('why')}); everything above is from timers and "
                      f"counts")
        for note in v.notes:
            con.print(f"note: {v.name}: {note}", style="yellow")
        for n in v.nests:
            if n.calls and n.notes:
                for note in n.notes:
                    con.print(f"note: {v.name} {n.label}: {note}", style="yellow", soft_wrap=True)
    for note in result.notes:
        con.print(f"note: {note}", style="yellow")
