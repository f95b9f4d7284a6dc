"""The ``s2s`` command. Subcommands live in ``COMMANDS`` (name -> ``Command``); adding one is one entry.

    s2s opt in.c -o out.c [--emit-ir out.json] [-D.. -U.. -I.. -include .. -std=..] [--mode pluto]
    s2s bench ...          (all arguments go to polybench.harness.cli.main)
    s2s cc ...             (the same as s2s-cc ...)
    s2s machine [--refresh] [--quick] [--json]
    s2s profile file.c [-D.. -I..] [--optimized [--mode M]] [--json F] [--csv F] [--plot F] [-- program args]
    s2s fuzz --count N --seed S [--target c|openmp] [--keep DIR] [--jobs J]
    s2s recipes list|show ID|export [-o F]|import F..|prune [--older-than D] [--other-machines] ... [--db PATH]
    s2s recipe-server [--db URL] [--port P] [--read-token] [--ssl-certfile F --ssl-keyfile F] | token create|list|revoke
    s2s --version
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, replace
from collections.abc import Callable, Sequence

from s2s import __version__


@dataclass(frozen=True)
class Command:
    """A subcommand. ``configure`` adds its arguments and ``run`` gets the parsed namespace; a command
    without ``configure`` forwards its raw arguments to ``run`` (a list of strings) untouched."""

    help: str
    run: Callable[..., int]
    configure: Callable[[argparse.ArgumentParser], None] | None = None


# ---- s2s opt --------------------------------------------------------------------------------------
class _CppArg(argparse.Action):
    """Collects -D/-U/-I/-include/... into one ordered list, as the compiler would see them."""

    def __call__(self, parser, namespace, values, option_string=None):
        spelling = option_string or ""
        if spelling in ("-D", "-U", "-I"):
            tokens = [spelling + values]
        elif spelling == "-std":
            tokens = [f"-std={values}"]
        else:
            tokens = [spelling, values]
        namespace.cpp_args = [*(namespace.cpp_args or []), *tokens]


def _configure_opt(p: argparse.ArgumentParser) -> None:
    from s2s.driver.settings import MODES, TARGETS

    p.add_argument("input", help="C source file, or an LLVM module (.ll, .bc) whose functions lift to C")
    p.add_argument("-o", "--output", default="-", help="where to write the generated C (default: stdout)")
    p.add_argument("--emit-ir", metavar="FILE", help="also write the IR as JSON")
    p.add_argument("--rest", metavar="R.ll", help="an LLVM module's functions that do not lift to C go here "
                                                   "(default: the output's name with .rest.ll)")
    for flag in ("-D", "-U", "-I", "-include", "-imacros", "-isystem", "-iquote", "-idirafter"):
        p.add_argument(flag, action=_CppArg, dest="cpp_args", metavar="ARG", help=argparse.SUPPRESS)
    p.add_argument("-std", action=_CppArg, dest="cpp_args", metavar="STD", help=argparse.SUPPRESS)
    p.add_argument("--mode", choices=MODES, default="pluto",
                   help="pluto (the optimizer, default), isl, identity, off; as --s2s-mode")
    p.add_argument("--target", choices=TARGETS, default="c", help="c (default), openmp, cuda, highway or highway+openmp, as --s2s-target")
    p.add_argument("--fuse", default="smart", choices=("smart", "max", "no"),
                   help="the scheduler's fusion policy, as --s2s-fuse (default: smart)")
    p.add_argument("--tile", type=_tile_sizes, default=None, metavar="N,N,..",
                   help="tile sizes, outermost first, as --s2s-tile (default: from the cache model)")
    p.add_argument("--kernels", choices=("on", "off"), default="on",
                   help="matrix-multiply statements as register-blocked kernels, as --s2s-kernels (default: on)")
    p.add_argument("--profitability", choices=("on", "off"), default="on",
                   help="off: a legal schedule replaces the loops even where no gain is expected, "
                        "as --s2s-profitability (default: on)")
    p.add_argument("--hwy-static", action="store_true",
                   help="the highway targets: Highway's static dispatch, as --s2s-hwy-static")
    p.add_argument("--reassociate", action="store_true",
                   help="floating-point sums may be reordered: parallel reductions, as --s2s-reassociate")
    p.add_argument("--report", action="store_true",
                   help="print one line per loop nest on stderr, and the recipe of each SCoP")
    p.add_argument("--emit-recipes", metavar="R.json",
                   help="write each SCoP's decisions as a recipe (docs/recipes.md)")
    p.add_argument("--recipes", metavar="R.json",
                   help="replay these recipes' steps instead of the rules' decisions, as --s2s-recipes")
    p.add_argument("--cc", default=os.environ.get("S2S_CC", "cc"), help="compiler used to preprocess")
    p.epilog = "Preprocessor flags -D -U -I -include -imacros -isystem -iquote -idirafter -std= are accepted."


_DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: (fatal )?error", re.MULTILINE)


def _run_opt(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from s2s.driver.pipeline import LLVM_SUFFIXES, PipelineOptions, optimize_c_file, optimize_llvm_file
    from s2s.errors import S2SError

    options = PipelineOptions(mode=ns.mode, target=ns.target, report=ns.report, compiler=ns.cc,
                              emit_ir=bool(ns.emit_ir), fusion=ns.fuse, kernels=ns.kernels == "on",
                              profitability=ns.profitability == "on", recipes=ns.recipes,
                              record_recipes=bool(ns.emit_recipes), reassociate=ns.reassociate,
                              hwy_static=ns.hwy_static)
    if (ns.emit_recipes or ns.recipes) and ns.mode != "pluto":
        _error(f"{ns.input}: error: recipes are the optimizer's (--mode pluto), not --mode {ns.mode}'s")
        return 1
    if ns.tile:
        options = replace(options, tile_sizes=ns.tile)
    if not os.path.isfile(ns.input):
        _error(f"{ns.input}: error: no such file")
        return 1
    residual = None
    try:
        if str(ns.input).endswith(LLVM_SUFFIXES):
            module = optimize_llvm_file(str(ns.input), options)
            result, residual = module.c, module.residual
        else:
            result = optimize_c_file(str(ns.input), list(ns.cpp_args or []), options)
    except S2SError as exc:
        if exc.location is not None:
            _error(f"{exc.location}: error: {exc.message}")
        elif _DIAGNOSTIC.search(exc.message):  # the compiler's own diagnostic, already file:line:col
            _error(exc.message.rstrip("\n"))
        else:
            _error(f"{ns.input}: error: {exc.message}")
        return 1
    if ns.emit_ir and result.ir_json is None:
        _error(f"{ns.input}: error: --emit-ir: the pipeline produced no IR (mode {ns.mode})")
        return 1
    if residual is not None:
        rest = ns.rest or (None if ns.output == "-" else str(Path(ns.output).with_suffix(".rest.ll")))
        if rest is None:
            _error(f"{ns.input}: error: some functions stay LLVM IR: name a file for them with --rest")
            return 1
        Path(rest).write_text(residual, encoding="utf-8")
        _error(f"{ns.input}: note: the functions that stay LLVM IR are in {rest} (declaring those in C): "
               "compile both and link them together")
    if ns.output == "-":
        sys.stdout.write(result.source)
        sys.stdout.flush()
    else:
        Path(ns.output).write_text(result.source, encoding="utf-8", errors="surrogateescape")
    for unit in getattr(result, "companions", ()):
        # (beside the output, or the input's directory for stdout: the C file calls what it defines)
        where = Path(ns.output if ns.output != "-" else ns.input).parent / unit.file_name
        where.write_text(unit.text, encoding="utf-8")
        _error(f"{ns.input}: note: the {unit.language} unit its code calls is in {where}")
    if ns.emit_ir:
        Path(ns.emit_ir).write_text(result.ir_json, encoding="utf-8")
    if ns.emit_recipes:
        from s2s.tuning import Provenance, RecipeBook

        text = Path(ns.input).read_text(errors="surrogateescape")
        flags = [f"--target={ns.target}", f"--fuse={ns.fuse}", *(list(ns.cpp_args or []))]
        RecipeBook(Provenance.here(text, ns.cc, flags, ns.target), result.recipes).save(ns.emit_recipes)
    if ns.report:
        for line in result.full_report or [f"{ns.input}: {'optimized' if result.changed else 'unchanged'}"]:
            print(f"s2s: report: {line}", file=sys.stderr)
    return 0


# ---- forwarding commands ----------------------------------------------------------------------------
def _run_bench(argv: list[str]) -> int:
    try:
        from polybench.harness.cli import main as bench_main
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "polybench":
            _error(f"s2s: error: the benchmark harness is not available ({exc}); "
                   "s2s bench needs polybench.harness.cli")
            return 2
        raise
    return int(bench_main(argv) or 0)


def _run_cc(argv: list[str]) -> int:
    from s2s.driver.cc import main as cc_main

    return cc_main(argv)


# ---- s2s analyze ----------------------------------------------------------------------------------
def _configure_analyze(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", nargs="?", help="C source file")
    p.add_argument("--why", nargs="?", const=os.environ.get("S2S_REPORT_FILE", ""), metavar="REPORT",
                   help="sum up a build's report file instead (s2s-cc --s2s-report-file / "
                        "$S2S_REPORT_FILE, the default): loop nests optimized, and why the others were not")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("-o", "--output", default="-", help="where to write the report (default: stdout)")
    for flag in ("-D", "-U", "-I", "-include", "-imacros", "-isystem", "-iquote", "-idirafter"):
        p.add_argument(flag, action=_CppArg, dest="cpp_args", metavar="ARG", help=argparse.SUPPRESS)
    p.add_argument("-std", action=_CppArg, dest="cpp_args", metavar="STD", help=argparse.SUPPRESS)
    p.add_argument("--cc", default=os.environ.get("S2S_CC", "cc"), help="compiler used to preprocess")
    p.epilog = "Per SCoP: statements, domains, accesses, dependences with distances, parallel loops."


def _run_analyze(ns: argparse.Namespace) -> int:
    if ns.why is not None:
        return _run_why(ns)
    if ns.input is None:
        _error("analyze needs a C file (or --why REPORT)")
        return 2
    from s2s.driver.analyze import analyze_file, format_json, format_text
    from s2s.errors import S2SError

    try:
        views = analyze_file(str(ns.input), list(ns.cpp_args or []), ns.cc)
    except S2SError as exc:
        _error(str(exc))
        return 1
    _write_output(ns.output, (format_json if ns.json else format_text)(str(ns.input), views))
    return 0


def _write_output(output: str, text: str) -> None:
    """``text`` to the file ``output``, or to stdout for ``-``."""
    if output == "-":
        sys.stdout.write(text)
    else:
        with open(output, "w") as f:
            f.write(text)


def _run_why(ns: argparse.Namespace) -> int:
    from s2s.driver.why_report import format_summary, parse_report, summary_json

    if not ns.why:
        _error("--why needs the report file (s2s-cc --s2s-report-file=F or S2S_REPORT_FILE=F during the build)")
        return 2
    try:
        with open(ns.why, encoding="utf-8", errors="replace") as f:
            summary = parse_report(f)
    except OSError as exc:
        _error(f"cannot read the report {ns.why}: {exc.strerror}")
        return 1
    import json

    _write_output(ns.output, json.dumps(summary_json(summary), indent=2) + "\n" if ns.json
                  else format_summary(summary))
    return 0


# ---- s2s machine -----------------------------------------------------------------------------------
def _configure_machine(p: argparse.ArgumentParser) -> None:
    p.add_argument("--refresh", action="store_true", help="measure again even when a profile is cached")
    p.add_argument("--quick", action="store_true", help="short runs and smaller arrays (seconds; for tests)")
    p.add_argument("--json", action="store_true", help="print the profile as JSON")
    p.add_argument("-o", "--output", default="-", help="where to write the table or JSON (default: stdout)")
    p.add_argument("--cc", default=os.environ.get("S2S_CC", "cc"), help="compiler for the microbenchmarks")
    p.epilog = ("Measured once and cached in $S2S_CACHE_DIR (default ~/.cache/s2s)/machine-<host>.json: clock, peak "
                "FLOP/s (scalar and SIMD, 1 and all threads), STREAM and cache-level bandwidth, topology. A figure "
                "above what the hardware can deliver is reported as a problem (exit status 1), never used.")


def _run_machine(ns: argparse.Namespace) -> int:
    import json

    from s2s.perf.machine import format_table, get_machine
    from s2s.perf.microbench import MicrobenchError

    def progress(msg: str) -> None:
        if sys.stderr.isatty():
            print(f"s2s machine: {msg}", file=sys.stderr, flush=True)

    try:
        profile = get_machine(refresh=ns.refresh, quick=ns.quick, cc=ns.cc, accept_quick=ns.quick,
                              progress=progress)
    except (MicrobenchError, OSError) as exc:
        _error(f"s2s machine: error: {exc}")
        return 1
    if ns.json:
        text = json.dumps(profile.data, indent=2, default=str) + "\n"
    else:
        text = format_table(profile.data, profile.path)
    if ns.output == "-":
        sys.stdout.write(text)
    else:
        with open(ns.output, "w") as f:
            f.write(text)
    for problem in profile.data.get("problems", []):
        _error(f"s2s machine: problem: {problem['what']} measured {problem['value']:.4g}, bound "
               f"{problem['bound']:.4g}: {problem['why']} (not used)")
    return 1 if profile.data.get("problems") else 0


# ---- s2s profile -----------------------------------------------------------------------------------
def _configure_profile(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", nargs="?", help="C source file whose top-level loop nests are profiled")
    for flag in ("-D", "-U", "-I", "-include", "-imacros", "-isystem", "-iquote", "-idirafter"):
        p.add_argument(flag, action=_CppArg, dest="cpp_args", metavar="ARG", help=argparse.SUPPRESS)
    p.add_argument("-std", action=_CppArg, dest="cpp_args", metavar="STD", help=argparse.SUPPRESS)
    p.add_argument("--cc", default=os.environ.get("S2S_CC", "cc"), help="the compiler (default: $S2S_CC or cc)")
    p.add_argument("--cflags", default="-O3 -march=native", help="compiler flags (default: -O3 -march=native)")
    p.add_argument("--ldflags", default="-lm", help="link flags (default: -lm)")
    p.add_argument("--with", dest="extra_sources", action="append", default=[], metavar="FILE",
                   help="another source of the program, compiled unchanged (repeatable)")
    p.add_argument("--polybench", metavar="KERNEL", help="profile a kernel of our PolyBench suite (sources, "
                   "includes and polybench.c set up)")
    p.add_argument("--dataset", default="MINI", type=str.upper, help="with --polybench (default: MINI)")
    p.add_argument("--optimized", action="store_true", help="also profile what s2s opt makes of the file, side by side")
    # The optimizing mode by default: $S2S_MODE is honoured only when it names a mode that emits code
    # (off has nothing to profile).
    default_mode = os.environ.get("S2S_MODE", "pluto")
    p.add_argument("--mode", default=default_mode if default_mode in ("isl", "pluto", "identity") else "pluto",
                   choices=("pluto", "isl", "identity"),
                   help="the s2s mode of --optimized (default: $S2S_MODE or pluto)")
    p.add_argument("--target", default="c", choices=("c", "openmp"),
                   help="the back end of --optimized (openmp adds -fopenmp and uses all CPUs)")
    p.add_argument("--fuse", default="smart", choices=("smart", "max", "no"),
                   help="the scheduler's fusion policy for --optimized, as --s2s-fuse (default: smart)")
    p.add_argument("--tile", type=_tile_sizes, default=None, metavar="N,N,..",
                   help="tile sizes for --optimized, outermost first, as --s2s-tile (default: from the cache model)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs; the median is reported (default 3)")
    p.add_argument("--threads", type=int, help="OMP_NUM_THREADS and the ceilings used (default: 1, or all CPUs "
                   "with -fopenmp)")
    p.add_argument("--hw-counters", choices=("auto", "on", "off"), default="auto",
                   help="hardware counters through perf_event_open (default: when available)")
    p.add_argument("--json", metavar="FILE", help="write JSON (- for stdout)")
    p.add_argument("--csv", metavar="FILE", help="write CSV (- for stdout)")
    p.add_argument("--plot", metavar="FILE", help="write the roofline plot (PNG and SVG)")
    p.add_argument("--machine", metavar="FILE", help="the machine profile to use (default: the cached one, "
                   "measured if missing)")
    p.add_argument("--no-machine", action="store_true", help="no ceilings (no bound, no %% of ceiling)")
    p.add_argument("--keep", metavar="DIR", help="keep the instrumented sources and binaries here")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per build or run (default 600)")
    p.add_argument("--show-output", action="store_true", help="let the program print to the terminal")
    p.add_argument("--all", action="store_true", help="also list loop nests that never ran")
    p.epilog = ("Everything after -- goes to the program. Builds the program twice (timers only; counters "
                "only), runs it, and reports per top-level loop nest: time, GFLOP/s, FLOP per byte (all accesses "
                "and distinct footprint), bandwidth, and the roofline bound from `s2s machine`. Example: "
                "s2s profile prog.c -DN=1000 --optimized --plot roof.png -- input.dat")


def _tile_sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(v) for v in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of positive tile sizes (e.g. 32,32,64)")
    return sizes


def _run_profile(argv: list[str]) -> int:
    """``s2s profile``: its own parser, since what follows ``--`` is the program's (argparse gives a
    subcommand's ``--`` no clean way to end the options and keep the rest)."""
    cut = argv.index("--") if "--" in argv else len(argv)
    p = argparse.ArgumentParser(prog="s2s profile", description=COMMANDS["profile"].help, allow_abbrev=False,
                                usage="%(prog)s [options] [-D.. -I..] FILE.c [-- PROGRAM ARGS]")
    _configure_profile(p)
    ns = p.parse_args(argv[:cut])
    ns.program_args = argv[cut + 1:]
    return _profile(ns)


def _profile(ns: argparse.Namespace) -> int:
    import shlex
    from pathlib import Path

    from s2s.errors import S2SError
    from s2s.perf.machine import get_machine, load_profile_file
    from s2s.perf.microbench import MicrobenchError
    from s2s.perf.profile import ProfileError, ProfileOptions, run_profile

    def progress(msg: str) -> None:
        if sys.stderr.isatty():
            print(f"s2s profile: {msg}", file=sys.stderr, flush=True)

    cpp_args = list(ns.cpp_args or [])
    extra = [Path(x) for x in ns.extra_sources]
    source = ns.input
    program_args = list(ns.program_args)
    if ns.polybench:
        from polybench import registry

        info = registry.KERNELS.get(ns.polybench)
        if info is None:
            _error(f"s2s profile: error: no PolyBench kernel {ns.polybench!r}")
            return 2
        if source is not None:
            program_args.insert(0, source)
        kernel = registry.kernel_source(info)
        source = str(kernel)
        cpp_args = [f"-I{registry.SUITE_ROOT / 'utilities'}", f"-I{kernel.parent}", f"-D{ns.dataset}_DATASET",
                    *cpp_args]
        extra.append(registry.SUITE_ROOT / "utilities" / "polybench.c")
    if source is None:
        _error("s2s profile: error: no input file (or --polybench KERNEL)")
        return 2
    if ns.repeat < 1:
        _error("s2s profile: error: --repeat must be at least 1")
        return 2
    machine = None
    try:
        if ns.machine:
            machine = load_profile_file(ns.machine)
        elif not ns.no_machine:
            machine = get_machine(cc=ns.cc, progress=lambda m: progress(f"measuring this machine once: {m}"))
    except (MicrobenchError, OSError, ValueError) as exc:
        _error(f"s2s profile: warning: no machine profile ({exc}): no roofline bounds")
    opts = ProfileOptions(source=Path(source), cpp_args=cpp_args, program_args=program_args, cc=ns.cc,
                          cflags=shlex.split(ns.cflags), ldflags=shlex.split(ns.ldflags), extra_sources=extra,
                          optimized=ns.optimized, mode=ns.mode, target=ns.target, fusion=ns.fuse,
                          tile_sizes=ns.tile, repeat=ns.repeat,
                          threads=ns.threads,
                          hw_counters=ns.hw_counters, timeout=ns.timeout, keep=Path(ns.keep) if ns.keep else None,
                          show_output=ns.show_output)
    try:
        result = run_profile(opts, machine, progress)
    except (ProfileError, S2SError, ValueError) as exc:
        _error(f"s2s profile: error: {exc}")
        return 1
    from s2s.perf.report import print_table, write_csv, write_json

    to_stdout = "-" in (ns.json, ns.csv)
    print_table(result, sys.stderr if to_stdout else sys.stdout, show_all=ns.all)
    if ns.json:
        write_json(result, ns.json)
    if ns.csv:
        write_csv(result, ns.csv)
    if ns.plot:
        from s2s.perf.plot import profile_points, write_roofline

        written = write_roofline(profile_points(result), result.ceilings, ns.plot,
                                 title=f"s2s profile {source}")
        print("roofline: " + ", ".join(map(str, written)), file=sys.stderr if to_stdout else sys.stdout)
    return 0


# ---- s2s fuzz --------------------------------------------------------------------------------------
def _configure_fuzz(p: argparse.ArgumentParser) -> None:
    p.add_argument("--count", type=int, default=100, help="programs to generate and check (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first program; program k has seed + k")
    p.add_argument("--target", choices=("c", "openmp", "highway", "highway+openmp"), default="c",
                   help="c, openmp (-fopenmp, run on 1, 2 and 3 threads), or the Highway targets")
    p.add_argument("--keep", metavar="DIR", default="fuzz-failures",
                   help="where failures are saved, shrunk and as generated (default: ./fuzz-failures)")
    p.add_argument("--jobs", "-j", type=int, default=2, help="programs checked at once (default 2)")
    p.add_argument("--no-shrink", action="store_true", help="save failures as generated")
    p.add_argument("--cc", default=os.environ.get("S2S_CC", "cc"), help="the real compiler (default: $S2S_CC or cc)")
    p.add_argument("--cxx", default=os.environ.get("S2S_CXX", "c++"),
                   help="the C++ compiler of the Highway targets' units (default: $S2S_CXX or c++)")
    p.add_argument("--s2s-cc", dest="s2s_cc", default="", metavar="CMD",
                   help="the s2s-cc under test (default: the one installed beside this s2s)")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per program run (default 20)")
    p.add_argument("--frontend", choices=("c", "llvm"), default="c",
                   help="llvm: s2s-cc --s2s-frontend=llvm, by way of clang's LLVM IR (default c)")
    p.add_argument("--quiet", "-q", action="store_true", help="only failures and the summary line")
    p.epilog = ("Each program is built with cc -O0 -ffp-contract=off and with S2S_MODE=pluto s2s-cc cc -O2 "
                "-ffp-contract=off; the outputs (integers, floating point as %%a) must be identical. Exit "
                "status 1 on any mismatch, crash, timeout or build failure.")


def _run_fuzz(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from s2s.fuzz import RunOptions, run_fuzz

    def progress(msg: str) -> None:
        if not ns.quiet or not msg.startswith("["):
            print(f"s2s fuzz: {msg}", file=sys.stderr, flush=True)

    options = RunOptions(target=ns.target, cc=ns.cc, cxx=ns.cxx, s2s_cc=ns.s2s_cc, run_timeout=ns.timeout,
                         frontend=ns.frontend)
    summary = run_fuzz(ns.count, ns.seed, options, jobs=ns.jobs, keep=Path(ns.keep), do_shrink=not ns.no_shrink,
                       progress=progress)
    for reason, n in sorted(summary.fallback_reasons.items(), key=lambda kv: -kv[1]):
        print(f"s2s fuzz: fallback x{n}: {reason}", file=sys.stderr)
    for f in summary.failures:
        before, after = f.shrunk_size
        print(f"s2s fuzz: seed {f.seed}: {f.outcome.status}{' (pointer views)' if f.views else ''}, "
              f"shrunk {before} -> {after} nodes: {f.saved or '(not saved)'}", file=sys.stderr)
    print(summary.line(ns.target))
    return 1 if summary.bad else 0


def _configure_tune(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", nargs="?", help="the C program (one file), unless --polybench")
    p.add_argument("--polybench", metavar="KERNEL", help="a kernel of our PolyBench suite, timed by itself")
    p.add_argument("--kernel", metavar="FUNCTION", action="append", default=[],
                   help="tune only this function's loop nests (repeatable; default: all)")
    p.add_argument("--dataset", default="MEDIUM", type=str.upper, help="with --polybench (default MEDIUM)")
    p.add_argument("--openmp", action="store_true", help="tune the OpenMP target (-fopenmp)")
    p.add_argument("--cflags", default="-O3 -march=native", help="compiler flags (default: -O3 -march=native)")
    p.add_argument("--run", metavar="CMD", help="how to run it ({exe}: the binary; default: the binary)")
    p.add_argument("--time-from-output", action="store_true",
                   help="the program prints its own time, the last number on stdout (default: wall time)")
    p.add_argument("--budget", type=int, default=20, help="evaluations (default 20)")
    p.add_argument("--repeat", type=int, default=3, help="runs per evaluation, the median counts (default 3)")
    p.add_argument("--search", choices=("tpe", "local"), default="tpe",
                   help="tpe: Optuna's TPE sampler over every knob (default); local: one knob of the best "
                        "recipe at a time")
    p.add_argument("--workers", type=int, default=1,
                   help="candidates built at a time here (default 1); they still run one at a time")
    p.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="build and run the candidates on the workers of this Dask cluster (dask://HOST:PORT), one "
                        "per worker at a time, as many at a time as it has workers; they read the program's files "
                        "at the same paths (pip install 's2s[cluster]')")
    p.add_argument("--no-time-nests", action="store_true",
                   help="time the whole program, not the loop nests a candidate changes")
    p.add_argument("--timeout-factor", type=float, default=1.5,
                   help="a candidate is killed past this times the default's time (default 1.5)")
    p.add_argument("--seed", type=int, default=0, help="of the search (default 0)")
    p.add_argument("-o", "--output", default="tuned-recipes.json", help="the best recipes (default: tuned-recipes.json)")
    p.add_argument("--csv", metavar="FILE", help="every evaluation, one row each")
    p.add_argument("--plot", metavar="FILE", help="the best speedup over the evaluations (PNG)")
    p.add_argument("--transfer", action="store_true",
                   help="instead of searching, try the recipes of the nearest tuned nests of the database")
    p.add_argument("--topk", type=int, default=3, help="with --transfer: neighbours tried per loop nest (default 3)")
    p.add_argument("--exclude-program", metavar="NAME", action="append", default=[],
                   help="with --transfer: leave this program's nests out of the database (repeatable)")
    p.add_argument("--db", metavar="PATH", help="the recipe database (default: $S2S_RECIPE_DB or the cache's)")
    p.add_argument("--no-record", action="store_true", help="do not store the tuned recipes in the database")
    p.add_argument("--upload", action="store_true",
                   help="also submit the stored rows to the recipe server (S2S_RECIPE_SERVER, a write S2S_TOKEN)")
    p.add_argument("--name", help="the program's name in the database (default: polybench/KERNEL or the file's)")
    p.add_argument("--measure-features", action="store_true",
                   help="profile the program once for its nests' sizes and measured features (s2s profile)")
    p.epilog = ("Starts from the rules' recipe (s2s opt --emit-recipes) and searches its knobs (Optuna's TPE, "
                "or one knob of the best recipe at a time); each candidate is built with s2s-cc --s2s-recipes, "
                "run, and its output compared with the default build's, byte for byte; it is timed on the loop "
                "nests it changes (s2s-cc --s2s-time-nests). The tuned recipes are stored in the recipe database "
                "(s2s recipes), from which --transfer lends them to similar loop nests (docs/recipes.md); with "
                "S2S_RECIPE_SERVER set, --transfer asks that recipe server first (docs/recipe-server.md). With "
                "--cluster the candidates are built and run on a Dask cluster's workers, their times converted to "
                "those of the first worker's machine (docs/recipes.md, Tuning on a cluster).")


def _run_tune(ns: argparse.Namespace) -> int:
    import dataclasses
    import shlex

    from s2s.tuning.tuner import Program, parse_run, polybench_program

    if ns.polybench:
        program = polybench_program(ns.polybench, ns.dataset, ns.openmp)
        if ns.kernel:
            program = dataclasses.replace(program, functions=tuple(ns.kernel))
    elif ns.input and os.path.isfile(ns.input):
        cflags = tuple(shlex.split(ns.cflags)) + (("-fopenmp",) if ns.openmp else ())
        program = Program((ns.input,), cflags, run=parse_run(ns.run), time_from_output=ns.time_from_output,
                          functions=tuple(ns.kernel))
    else:
        _error(f"s2s tune: error: {ns.input or 'a program'}: no such file (or give --polybench KERNEL)")
        return 2
    program = dataclasses.replace(program, time_nests=not ns.no_time_nests)
    with _TuneProgress(ns.topk if ns.transfer else ns.budget) as progress:
        return _tune(ns, program, progress)


class _TuneProgress:
    """A progress bar on a terminal, else one line per evaluation."""

    def __init__(self, total: int):
        self.total, self.bar = total, None

    def __enter__(self):
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("s2s tune"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                TextColumn("{task.description}"), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("", total=self.total)
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, ev, best: float) -> None:
        shown = f"{ev.seconds:.4f} s" if ev.seconds is not None else ev.status
        line = f"[{ev.number}/{self.total}] {ev.change}: {shown}{' (kept)' if ev.kept else ''}; best {best:.2f}x"
        if self.bar is None:
            print(f"s2s tune: {line}", file=sys.stderr, flush=True)
            return
        self.bar.console.print(f"s2s tune: {line}", highlight=False, markup=False)
        self.bar.update(self.task, completed=ev.number, total=max(self.total, ev.number), description=f"best {best:.2f}x")


def _tune(ns: argparse.Namespace, program, progress) -> int:
    import csv

    from s2s.errors import S2SError
    from s2s.tuning import RecipeDB
    from s2s.tuning.remote import RecipeServer
    from s2s.tuning.transfer_tuner import nest_features, record, transfer_tune
    from s2s.tuning.tuner import autotune

    name = ns.name or (f"polybench/{ns.polybench}" if ns.polybench else os.path.basename(ns.input))
    try:
        server = RecipeServer.from_env()
        if ns.upload and (server is None or not server.token or ns.no_record or ns.transfer):
            _error("s2s tune: error: --upload needs S2S_RECIPE_SERVER and a write token in S2S_TOKEN, and a search "
                   "whose results are recorded (not --transfer or --no-record)")
            return 2
        features = nest_features(program, measure=ns.measure_features)
        if ns.transfer:
            with RecipeDB(ns.db) as db:
                records = [r for r in db.records() if r.program not in (name, *ns.exclude_program)]
            neighbours = _server_neighbours(server, (name, *ns.exclude_program), features, program.target, ns.topk)
            if not records and neighbours is None:
                _error("s2s tune: error: no tuned loop nest in the recipe database to transfer from")
                return 1
            result, lent = transfer_tune(program, records, ns.topk, ns.repeat, ns.timeout_factor,
                                         features=features, progress=progress, neighbours=neighbours,
                                         cluster=ns.cluster, workers=ns.workers)
            for item in lent:
                print(f"s2s tune: {item.scop}: lent by {item.program} {item.source} (distance "
                      f"{item.distance:.2f}){'' if item.evaluation else ': nothing new to try'}",
                      file=sys.stderr)
        else:
            result = autotune(program, ns.budget, ns.repeat, ns.timeout_factor, seed=ns.seed, progress=progress,
                              workers=ns.workers, search=ns.search, cluster=ns.cluster)
            if not ns.no_record:
                with RecipeDB(ns.db) as db:
                    ids = record(db, program, result, name, ns.dataset if ns.polybench else "", features)
                    uploaded = [db.get(i) for i in ids] if ns.upload else []
                print(f"s2s tune: {len(ids)} loop nest{'s' * (len(ids) != 1)} stored in {db.path}", file=sys.stderr)
                if ns.upload:
                    sent = server.submit(uploaded)
                    print(f"s2s tune: uploaded to {server.url}: {sent['added']} added, {sent['replaced']} replaced, "
                          f"{sent['skipped']} already there as new", file=sys.stderr)
    except S2SError as exc:
        _error(f"s2s tune: error: {exc}")
        return 1
    result.best.save(ns.output)
    if ns.csv:
        with open(ns.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["evaluation", "change", "status", "seconds", "speedup", "kept", "detail"])
            for ev in result.evaluations:
                w.writerow([ev.number, ev.change, ev.status, "" if ev.seconds is None else f"{ev.seconds:.6f}",
                            "" if ev.speedup is None else f"{ev.speedup:.4f}", int(ev.kept), ev.detail])
    if ns.plot:
        _plot_tuning(result, ns.plot)
    print(f"default {result.default_seconds:.4f} s (spread {100 * result.noise:.1f}%), best {result.best_seconds:.4f} s: "
          f"{result.speedup:.2f}x after {len(result.evaluations)} evaluations in {result.wall_seconds:.0f} s; "
          f"recipes: {ns.output}{'' if result.confirmed else ' (a gain found was not confirmed beside the default)'}")
    return 0


def _server_neighbours(server, exclude: tuple[str, ...], features, target: str, topk: int):
    """The recipe server's nearest tuned nests for ``features`` (``transfer_tune``'s neighbours),
    asked once; None without a server, or when it cannot answer (said on stderr: the local
    database lends instead)."""
    from s2s.tuning.embedding import machine_features
    from s2s.tuning.remote import RecipeServerError

    if server is None:
        return None
    try:
        found = server.transfer(target, {scop: f.values for scop, f in features.items()},
                                machine_features(), topk, exclude=exclude)
    except RecipeServerError as exc:
        _error(f"s2s tune: {exc}; the local recipe database lends instead")
        return None
    return lambda _target, _features, _topk: found


def _plot_tuning(result, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    best, ys = 1.0, []
    for ev in result.evaluations:
        if ev.kept and ev.speedup:
            best = ev.speedup
        ys.append(best)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.step(range(1, len(ys) + 1), ys, where="post")
    ax.set_xlabel("evaluation")
    ax.set_ylabel("best speedup over the default recipe")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ---- s2s recipes -----------------------------------------------------------------------------------
def _configure_recipes(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    def action(name: str, help: str) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=help, description=help, allow_abbrev=False)
        q.add_argument("--db", metavar="PATH", default=None,
                       help="the database (default: $S2S_RECIPE_DB, else recipes.sqlite in the cache directory)")
        return q

    q = action("list", "one line per tuned loop nest")
    q.add_argument("--machine", choices=("this", "any"), default="any", help="this machine's rows only (default: any)")
    q.add_argument("--target", choices=("c", "openmp"), help="this target's rows only")
    q.add_argument("--program", metavar="P", help="this program's rows only")
    q.add_argument("--json", action="store_true", help="JSON Lines, as export writes them")
    q = action("show", "every field of one row, its recipes step by step")
    q.add_argument("id", type=int, help="the row's id (s2s recipes list)")
    q = action("export", "every row as JSON Lines")
    q.add_argument("-o", "--output", default="-", help="where to write them (default: stdout)")
    q = action("import", "merge exported rows: a row of a known key replaces it only if updated later")
    q.add_argument("files", nargs="+", metavar="FILE", help="JSON Lines files (-: stdin); a bad line refuses its file")
    q = action("prune", "remove the rows that any criterion given matches")
    q.add_argument("--older-than", type=float, metavar="DAYS", help="updated more than DAYS days ago")
    q.add_argument("--other-machines", action="store_true", help="tuned on another machine than this one")
    q.add_argument("--stale-features", action="store_true", help="features of another FEATURES_VERSION")
    q.add_argument("--no-gain-below", type=float, metavar="X", help="a speedup below X (or none measured)")
    q.add_argument("--id", type=int, nargs="+", default=[], metavar="N", help="these rows")
    q.add_argument("--dry-run", action="store_true", help="only list what would be removed")


def _run_recipes(ns: argparse.Namespace) -> int:
    from s2s.tuning.database import RecipeDB, RecipeDBError

    actions = {"list": _recipes_list, "show": _recipes_show, "export": _recipes_export,
               "import": _recipes_import, "prune": _recipes_prune}
    try:
        with RecipeDB(ns.db) as db:
            return actions[ns.action](db, ns)
    except (RecipeDBError, OSError) as exc:
        _error(f"s2s recipes: error: {exc}")
        return 1


def _short_machine(machine: str) -> str:
    """The processor model cut short, its count of CPUs (`` x16``) kept: rows differ most by that."""
    if len(machine) <= 28:
        return machine
    model, _, cpus = machine.rpartition(" x")
    if model and cpus.isdigit():
        return model[:28 - len(cpus) - 4].rstrip() + ".. x" + cpus
    return machine[:26].rstrip() + ".."


def _recipes_table(rows) -> None:
    table = [["id", "program", "scop", "target", "dataset", "speedup", "evals", "updated", "machine"]]
    table += [[str(r.id), r.program, r.scop, r.target, r.dataset or "-",
               f"{r.speedup:.2f}x" if r.speedup is not None else "-", str(r.evaluations), r.updated[:10],
               _short_machine(r.machine)] for r in rows]
    widths = [max(len(line[k]) for line in table) for k in range(len(table[0]))]
    for line in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())


def _recipes_list(db, ns: argparse.Namespace) -> int:
    from s2s.tuning.recipe import machine_fingerprint

    rows = db.records(machine=machine_fingerprint() if ns.machine == "this" else None, target=ns.target,
                      program=ns.program)
    if ns.json:
        db.export_jsonl(sys.stdout, rows)
        return 0
    if not rows:
        print(f"no recipes{' matching' if len(db) else ''} in {db.path}")
        return 0
    _recipes_table(rows)
    return 0


def _recipes_show(db, ns: argparse.Namespace) -> int:
    import json

    from s2s.tuning.database import RecipeDBError

    r = db.get(ns.id)
    if r is None:
        raise RecipeDBError(f"{db.path}: no row {ns.id} (s2s recipes list shows them)")

    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.6g} s"

    def named(values: dict) -> str:
        def value(v) -> str:
            if v is None:
                return "-"
            return f"{v:g}" if isinstance(v, float) else json.dumps(v) if isinstance(v, (list, dict)) else str(v)

        return " ".join(f"{k}={value(v)}" for k, v in values.items()) or "-"

    fields = [("id", r.id), ("scop", r.scop), ("function", r.function), ("program", r.program),
              ("target", r.target), ("machine", r.machine), ("params", named(r.params)),
              ("dataset", r.dataset or "-"), ("default time", seconds(r.default_seconds)),
              ("tuned time", seconds(r.tuned_seconds)),
              ("speedup", f"{r.speedup:.3f}x" if r.speedup is not None else "-"),
              ("evaluations", f"{r.evaluations} in {r.tune_seconds:.1f} s"), ("created", r.created),
              ("updated", r.updated), ("provenance", named(r.provenance)),
              ("features", f"(version {r.features_version}) {named(r.features)}"),
              ("machine features", named(r.machine_features)), ("statements", len(r.statements))]
    width = max(len(name) for name, _ in fields)
    for name, value in fields:
        print(f"{name.ljust(width)}  {value}")
    for s in r.statements:
        print(f"  {json.dumps(s, separators=(',', ':'))}")
    for title, steps in (("recipe", r.steps()), ("default recipe", r.default_steps())):
        print(f"{title}:" if steps else f"{title}: (no steps)")
        for step in steps:
            print(f"  {step}")
    return 0


def _recipes_export(db, ns: argparse.Namespace) -> int:
    if ns.output == "-":
        db.export_jsonl(sys.stdout)
        return 0
    with open(ns.output, "w") as f:
        count = db.export_jsonl(f)
    print(f"{count} rows to {ns.output}", file=sys.stderr)
    return 0


def _recipes_import(db, ns: argparse.Namespace) -> int:
    for name in ns.files:
        if name == "-":
            summary = db.import_jsonl(sys.stdin, "<stdin>")
        else:
            with open(name) as f:
                summary = db.import_jsonl(f, name)
        print(f"{name}: {summary.added} added, {summary.replaced} replaced, {summary.skipped} skipped")
    return 0


def _recipes_prune(db, ns: argparse.Namespace) -> int:
    from s2s.tuning.database import RecipeDBError

    if ns.older_than is None and not ns.other_machines and not ns.stale_features and ns.no_gain_below is None \
            and not ns.id:
        raise RecipeDBError("prune what? give --older-than DAYS, --other-machines, --stale-features, "
                            "--no-gain-below X or --id N")
    rows = db.prune(older_than_days=ns.older_than, other_machines=ns.other_machines,
                    stale_features=ns.stale_features, no_gain_below=ns.no_gain_below, ids=ns.id,
                    dry_run=ns.dry_run)
    if rows:
        _recipes_table(rows)
    rows_text = f"{len(rows)} row{'' if len(rows) == 1 else 's'}"
    if ns.dry_run:
        print(f"would remove {rows_text} of {len(db)} in {db.path} (dry run)")
    else:
        print(f"removed {rows_text}; {len(db)} left in {db.path}")
    return 0


def _run_demo(argv: list[str]) -> int:
    from s2s.demo import run_demo

    return run_demo(bench="--no-bench" not in argv)


COMMANDS: dict[str, Command] = {
    "opt": Command("optimize one C file, write the generated C", _run_opt, _configure_opt),
    "analyze": Command("show the SCoPs, dependences and parallel loops of a C file", _run_analyze, _configure_analyze),
    "demo": Command("run the built-in example end to end (what `make demo` runs)", _run_demo),
    "bench": Command("run the PolyBench harness (arguments go to polybench.harness.cli)", _run_bench),
    "cc": Command("the drop-in compiler, same as s2s-cc", _run_cc),
    "machine": Command("benchmark this host (peak FLOP/s, STREAM, caches, topology), cached", _run_machine,
                       _configure_machine),
    "profile": Command("run a program with its loop nests timed and counted: roofline per nest", _run_profile),
    "fuzz": Command("differential fuzzing: random loop programs, cc -O0 against s2s-cc, outputs compared",
                    _run_fuzz, _configure_fuzz),
    "tune": Command("search recipes for a program by building, checking and timing them", _run_tune,
                    _configure_tune),
    "recipes": Command("the recipe database: list, show, export, import, prune", _run_recipes, _configure_recipes),
    "recipe-server": Command("serve recipes over HTTP (tokens, validation, nearest tuned nests); manage its tokens",
                             lambda ns: _recipe_server().run(ns), lambda p: _recipe_server().configure(p)),
}


def _recipe_server():
    from s2s.recipe_server import command

    return command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="s2s", description="Source-to-source loop optimizer.")
    parser.add_argument("--version", action="version", version=f"s2s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        p = sub.add_parser(name, help=command.help, description=command.help,
                           allow_abbrev=False, add_help=command.configure is not None)
        if command.configure is not None:
            command.configure(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in COMMANDS and COMMANDS[args[0]].configure is None:
        return COMMANDS[args[0]].run(args[1:])
    parser = build_parser()
    ns = parser.parse_args(args)
    if ns.command is None:
        parser.print_help(sys.stderr)
        return 2
    return COMMANDS[ns.command].run(ns)


def _error(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
