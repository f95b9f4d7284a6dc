"""The ``s2s`` command. Subcommands live in ``COMMANDS`` (name -> ``Command``); adding one is one entry.

    s2s opt in.c -o out.c [--emit-ir out.json] [-D.. -U.. -I.. -include .. -std=..] [--mode identity]
    s2s bench ...          (all arguments go to polybench.harness.cli.main)
    s2s cc ...             (the same as s2s-cc ...)
    s2s --version
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
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

    p.add_argument("input", help="C source file")
    p.add_argument("-o", "--output", default="-", help="where to write the generated C (default: stdout)")
    p.add_argument("--emit-ir", metavar="FILE", help="also write the IR as JSON")
    for flag in ("-D", "-U", "-I", "-include", "-imacros", "-isystem", "-iquote", "-idirafter"):
        p.add_argument(flag, action=_CppArg, dest="cpp_args", metavar="ARG", help=argparse.SUPPRESS)
    p.add_argument("-std", action=_CppArg, dest="cpp_args", metavar="STD", help=argparse.SUPPRESS)
    p.add_argument("--mode", choices=MODES, default="identity")
    p.add_argument("--target", choices=TARGETS, default="c")
    p.add_argument("--report", action="store_true", help="print one line per loop nest on stderr")
    p.add_argument("--cc", default=os.environ.get("S2S_CC", "cc"), help="compiler used to preprocess")
    p.epilog = "Preprocessor flags -D -U -I -include -imacros -isystem -iquote -idirafter -std= are accepted."


_DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: (fatal )?error", re.MULTILINE)


def _run_opt(ns: argparse.Namespace) -> int:
    from pathlib import Path

    from s2s.driver.pipeline import PipelineOptions, optimize_c_file
    from s2s.errors import S2SError

    options = PipelineOptions(mode=ns.mode, target=ns.target, report=ns.report, compiler=ns.cc,
                              emit_ir=bool(ns.emit_ir))
    if not os.path.isfile(ns.input):
        _error(f"{ns.input}: error: no such file")
        return 1
    try:
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
    if ns.output == "-":
        sys.stdout.write(result.source)
        sys.stdout.flush()
    else:
        Path(ns.output).write_text(result.source, encoding="utf-8", errors="surrogateescape")
    if ns.emit_ir:
        Path(ns.emit_ir).write_text(result.ir_json, encoding="utf-8")
    if ns.report:
        for line in result.report or [f"{ns.input}: {'optimized' if result.changed else 'unchanged'}"]:
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
    p.add_argument("input", help="C source file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("-o", "--output", default="-", help="where to write the report (default: stdout)")
    for flag in ("-D", "-U", "-I", "-include", "-imacros", "-isystem", "-iquote", "-idirafter"):
        p.add_argument(flag, action=_CppArg, dest="cpp_args", metavar="ARG", help=argparse.SUPPRESS)
    p.add_argument("-std", action=_CppArg, dest="cpp_args", metavar="STD", help=argparse.SUPPRESS)
    p.add_argument("--cc", default=os.environ.get("S2S_CC", "cc"), help="compiler used to preprocess")
    p.epilog = "Per SCoP: statements, domains, accesses, dependences with distances, parallel loops."


def _run_analyze(ns: argparse.Namespace) -> int:
    from s2s.driver.analyze import analyze_file, format_json, format_text
    from s2s.errors import S2SError

    try:
        views = analyze_file(str(ns.input), list(ns.cpp_args or []), ns.cc)
    except S2SError as exc:
        _error(str(exc))
        return 1
    text = (format_json if ns.json else format_text)(str(ns.input), views)
    if ns.output == "-":
        sys.stdout.write(text)
    else:
        with open(ns.output, "w") as f:
            f.write(text)
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
}


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
