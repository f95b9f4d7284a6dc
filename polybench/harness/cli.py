"""``s2s bench`` / ``python -m polybench``: argument parsing and the run from end to end.

Exit status: 0 when every cell that ran was verified (and timed); 1 when any mismatch, build
failure, crash, time-out or unknown kernel; 2 for a usage error (bad option, no suite).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from . import configs as _configs
from . import machine_info
from .bench import Bench, BenchResult, Options, make_points
from .load import competing_load
from .progress import ProgressReporter
from .suite import DATASETS, SizeSpecError, SuiteError, load_suite, parse_size_spec, select_kernels, suggest


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="s2s bench",
        description="Build, verify and time PolyBench/C kernels (or the realistic programs: --group "
                    "realistic) under several configurations.",
        epilog="Configurations: " + "; ".join(f"{n}: {s.help}" for n, s in _configs.CONFIGS.items())
        + ". Exit status 0 only when every cell that ran was verified.")
    ap.add_argument("--group", default="polybench", choices=("polybench", "realistic"),
                    help="polybench (default): the 30 kernels; realistic: whole programs with pointers, "
                         "structs and helpers (polybench/realistic), with the share of their hot loop nests "
                         "s2s optimizes")
    ap.add_argument("--dataset", default="LARGE", type=str.upper, choices=DATASETS,
                    help="default: LARGE (the realistic group runs each program at its own default size)")
    ap.add_argument("--kernels", metavar="LIST", help="comma list of kernel (or program) names or regexes (default: all)")
    ap.add_argument("--configs", metavar="LIST",
                    help="comma list of configurations (default: all available; baseline is always built)")
    ap.add_argument("--config", action="append", default=[], metavar="NAME='CMD ...'",
                    help="a user configuration: a compiler invocation prefix; the harness appends "
                         "defines, includes, sources and -o (repeatable)")
    ap.add_argument("--verify-O0", dest="verify_o0", action="store_true",
                    help="also build with cc -O0 and verify every configuration against it")
    ap.add_argument("--tolerance", type=float, default=1e-6, help="max relative error (default 1e-6)")
    ap.add_argument("--no-noise-check", dest="noise_check", action="store_false",
                    help="do not build the rounding-noise probe (cc -ffp-contract=off) that widens the "
                         "tolerance of outputs dominated by rounding noise")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per cell (default 5)")
    ap.add_argument("--threads", type=int, default=None, help="OMP_NUM_THREADS (default: all cores)")
    ap.add_argument("--busy", type=int, default=0, metavar="N",
                    help="measure on a busy machine: N processes spin alongside every build and run (default 0)")
    ap.add_argument("--pluto", metavar="POLYCC", help="an installed Pluto's polycc: enables the pluto configuration")
    ap.add_argument("--recipe-db", metavar="PATH",
                    help="the recipe database of s2s-tuned and s2s-transfer (default: $S2S_RECIPE_DB or s2s's cache)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per build or run (default 600)")
    ap.add_argument("--suite-dir", type=Path, help="an external PolyBench/C 4.2.1 checkout, used unmodified")
    ap.add_argument("--size", action="append", default=[], metavar="NAME=a:b:step",
                    help="sweep a parameter (NAME=v, NAME=a:b:step, NAME=v1,v2); the other "
                         "parameters keep their dataset values (repeatable: the product)")
    ap.add_argument("--csv", type=Path, metavar="FILE", help="also write the CSV here")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the JSON here")
    ap.add_argument("--plot", type=Path, metavar="FILE", help="also write the chart here (PNG and SVG)")
    ap.add_argument("--roofline", type=Path, metavar="FILE",
                    help="also write the roofline plot of all kernels and configurations (PNG and SVG); "
                         "measures this machine (s2s machine) when no profile is cached")
    ap.add_argument("--machine", type=Path, metavar="FILE",
                    help="the s2s machine profile for %%peak and the roofline (default: the cached one)")
    ap.add_argument("--output-dir", type=Path, help="default results/<date-time>: bench.csv, bench.json, speedup.png/svg, build/")
    ap.add_argument("--jobs", "-j", type=int, default=None, help="parallel builds (default: all cores)")
    ap.add_argument("--list", action="store_true", help="print the kernels and configurations and exit")
    ap.add_argument("--no-progress", action="store_true", help="no live progress bar")
    return ap


def _config_context(pluto: str | None = None, recipe_db: str | None = None) -> _configs.ConfigContext:
    tools = {name: path for name, path in (("pluto", pluto), ("recipe-db", recipe_db)) if path}
    return _configs.ConfigContext(cc="cc", python=sys.executable, tools=tools)


def _print_list(suite, cfgs: list[_configs.Config], dataset: str, out) -> None:
    print(f"suite: {suite.root}{' (external)' if suite.external else ''}", file=out)
    w = max(len(k.name) for k in suite.kernels)
    if suite.group == "realistic":
        from .realistic import description
        print(f"programs ({len(suite.kernels)}), default sizes (--size N=v):", file=out)
        for k in suite.kernels:
            size = " ".join(f"{p}={v}" for p, v in k.sizes(dataset).items())
            print(f"  {k.name:<{w}}  {size:<9} {description(k)}", file=out)
    else:
        print(f"kernels ({len(suite.kernels)}), {dataset} sizes:", file=out)
    for k in suite.kernels if suite.group != "realistic" else ():
        sizes = k.sizes(dataset)
        fl = k.flops(sizes)
        sz = " ".join(f"{p}={v}" for p, v in sizes.items()) or "(sizes unknown)"
        extra = (f"  {fl / 1e9:.3g} GFLOP" if fl else "") + ("  int" if k.integer else "")
        print(f"  {k.name:<{w}}  {k.category:<24} {sz}{extra}", file=out)
    print("configurations:", file=out)
    for c in cfgs:
        state = "available" if c.available else f"unavailable: {c.unavailable}"
        print(f"  {c.name:<14} {c.command_template().split(' -D<DATASET>')[0]}  [{state}]", file=out)
    for n, s in _configs.CONFIGS.items():
        if not s.default and n not in {c.name for c in cfgs}:
            print(f"  {n:<14} {s.help}  [on request]", file=out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    out = sys.stdout
    for name, val in (("--repeat", args.repeat), ("--jobs", args.jobs), ("--threads", args.threads)):
        if val is not None and val < 1:
            ap.error(f"{name} must be at least 1")
    if args.busy < 0:
        ap.error("--busy must not be negative")
    if args.timeout <= 0 or args.tolerance < 0:
        ap.error("--timeout must be positive and --tolerance not negative")

    if args.group == "realistic" and args.suite_dir is not None:
        ap.error("--suite-dir is for the polybench group")
    try:
        if args.group == "realistic":
            from .realistic import load_programs
            suite = load_programs()
        else:
            suite = load_suite(args.suite_dir)
    except SuiteError as e:
        print(f"s2s bench: {e}", file=sys.stderr)
        return 2
    try:
        sweeps = [parse_size_spec(s) for s in args.size]
        user = [_configs.user_config(s) for s in args.config]
    except (SizeSpecError, ValueError) as e:
        ap.error(str(e))
    if len({u.name for u in user}) != len(user):
        ap.error("--config: the same name twice")
    ctx = _config_context(args.pluto, args.recipe_db)
    names = None if args.configs is None else [n.strip() for n in args.configs.split(",") if n.strip()]
    try:
        cfgs = _configs.resolve_configs(names, ctx, user=user, verify_o0=args.verify_o0,
                                        noise_check=args.noise_check)
    except KeyError as e:
        ap.error(f"--configs: unknown configuration {e.args[0]} (known: {', '.join(_configs.CONFIGS)}; "
                 f"add your own with --config NAME='cmd')")

    if args.list:
        _print_list(suite, cfgs, args.dataset, out)
        return 0

    kernels, unknown = select_kernels(suite, args.kernels)
    unknown_lines = []
    for u in unknown:
        close = suggest(u, suite.names())
        unknown_lines.append(f"'{u}' matches no kernel of {suite.root}"
                             + (f" (did you mean {', '.join(close)}?)" if close else ""))
    for line in unknown_lines:
        print(f"s2s bench: unknown kernel {line}", file=sys.stderr)
    swept_names = {n for n, _ in sweeps}
    all_params = {p for k in kernels for p in k.params}
    missing = sorted(swept_names - all_params)
    if kernels and missing:
        ap.error(f"--size {', '.join(missing)}: not a parameter of any selected kernel")

    threads = args.threads or machine_info.usable_cpus()
    jobs = args.jobs or machine_info.usable_cpus()
    started = machine_info.now()
    out_dir = args.output_dir or Path("results") / started.strftime("%Y%m%d-%H%M%S")
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    opts = Options(dataset=args.dataset, repeat=args.repeat, threads=threads, timeout=args.timeout,
                   tolerance=args.tolerance, jobs=jobs, output_dir=out_dir, busy=args.busy)
    points, notes = make_points(kernels, args.dataset, sweeps)

    s2s = machine_info.s2s_info()
    compilers = machine_info.compilers()
    meta = {
        "date": started.isoformat(timespec="seconds"),
        "s2s": s2s,
        "machine": machine_info.machine(),
        "compilers": compilers,
        "config_compilers": {c.name: machine_info.config_compiler_version(c.argv[0], s2s["version"], compilers.get("cc"))
                             for c in cfgs if c.argv},
        "suite": {"root": str(suite.root), "external": suite.external},
        "group": suite.group,
        "options": {"dataset": opts.dataset, "repeat": opts.repeat, "threads": opts.threads,
                    "timeout_s": opts.timeout, "tolerance": opts.tolerance, "jobs": opts.jobs, "busy": opts.busy,
                    "kernels": args.kernels, "configs": [c.name for c in cfgs], "sizes": list(args.size),
                    "verify_O0": args.verify_o0, "noise_check": args.noise_check, "output_dir": str(out_dir),
                    "argv": list(argv) if argv is not None else sys.argv[1:]},
    }

    from . import roofline as _roofline

    machine = _roofline.load_machine(args.machine, measure=args.roofline is not None,
                                     progress=lambda m: print(f"s2s bench: {m}", file=sys.stderr))
    meta["machine_peak"] = _roofline.peak_meta(machine, threads)

    with ProgressReporter(enabled=not args.no_progress) as progress:
        for c in cfgs:
            if not c.available:
                progress.message(f"unavailable: {c.name} — {c.unavailable}")
        if suite.group == "realistic":
            from .realistic import ProgramBench
            bench: Bench = ProgramBench(suite, cfgs, points, opts, progress)
        else:
            bench = Bench(suite, cfgs, points, opts, progress)
        interrupted = False
        try:
            with competing_load(opts.busy):
                bench.run()
        except KeyboardInterrupt:
            interrupted = True
            progress.message("interrupted: writing what was measured so far")
            notes.append("interrupted by the user: cells marked NOT RUN were not measured")
    result = BenchResult(options=opts, suite=suite, configs=cfgs, points=points, cells=bench.cells,
                         unknown_kernels=unknown_lines, notes=notes)
    meta["finished"] = machine_info.now().isoformat(timespec="seconds")

    from .plot import write_plot
    from .report import print_table, write_csv, write_json

    print_table(result, meta, out)
    written = []
    for path in [out_dir / "bench.csv"] + ([args.csv] if args.csv else []):
        write_csv(result, meta, path)
        written.append(path)
    for path in [out_dir / "bench.json"] + ([args.json] if args.json else []):
        write_json(result, meta, path)
        written.append(path)
    try:
        written += write_plot(result, meta, out_dir / "speedup.png")
        if args.plot:
            written += write_plot(result, meta, args.plot)
    except Exception as e:  # a chart problem must not lose the measurements
        print(f"s2s bench: could not draw the chart: {e}", file=sys.stderr)
    if args.roofline:
        try:
            written += _roofline.write_roofline(result, meta, machine, args.roofline)
        except Exception as e:  # nor a roofline problem
            print(f"s2s bench: could not draw the roofline: {e}", file=sys.stderr)
    print(f"results: {out_dir}" + "".join(f"\n  {p}" for p in written if not str(p).startswith(str(out_dir))),
          file=out)
    return 130 if interrupted else result.exit_status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
