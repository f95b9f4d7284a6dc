"""Builds one program both ways, runs both, and says how the optimized one differs.

The reference is ``cc -O0 -ffp-contract=off``; the candidate goes through ``s2s-cc`` in pluto mode
with ``-O2 -ffp-contract=off`` (plus ``-fopenmp`` for the OpenMP target, run on 1, 2 and 3 threads).
Neither side may contract ``a * b + c`` into an FMA, so every floating-point operation rounds as
written and the outputs must be identical bytes: s2s never reassociates arithmetic (reductions are
only reported by ``s2s analyze``; the matrix-multiply kernels keep each element's updates in
ascending k), so any difference is an optimizer bug.

s2s-cc compiles the original file when anything inside s2s fails and says so in one line on stderr;
such a *fallback* is counted on its own (the program is still compared, and should then match).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

FALLBACK = re.compile(r"^s2s-cc: note: .*optimization skipped \((.*)\); compiled unchanged", re.MULTILINE)
# a bug met on one SCoP: s2s-cc keeps that SCoP as written and goes on, the fuzzer counts it
INTERNAL_ERROR = re.compile(r"^s2s-cc: report: .*original code kept: (internal error: .*)\)$", re.MULTILINE)
REPORT = re.compile(r"^s2s-cc: report: (.*)$", re.MULTILINE)
CFLAGS = ("-ffp-contract=off",)

# Outcome statuses, worst first; "ok" when the outputs match.
MISMATCH, CRASH, TIMEOUT, BUILD_FAILED, INVALID, OK = "mismatch", "crash", "timeout", "build-failed", "invalid", "ok"
CC_MISMATCH = "cc-mismatch"  # the user's own file, compiled by cc -O2 without s2s, differs too, and s2s's
                             # output compiled by cc -O0 does not: not s2s's bug
CC_ON_OUTPUT = "cc-on-output"  # only cc -O2's build of s2s's output differs; built with -O0 it is
                               # right and runs clean under ASan and UBSan: a compiler bug on right code
# culprits of a mismatch
CC_ALONE = ("cc -O2 alone gives a wrong output on the original file (a compiler bug or UB in the program), "
            "and s2s's output built with cc -O0 does not (or s2s changed nothing)")
ONLY_OPTIMIZED_CC = ("s2s's output built with cc -O0 prints the reference's output: its -O2 build differs "
                     "(a compiler bug, or undefined behaviour s2s introduced)")
S2S_OUTPUT = "s2s's output built with cc -O0 differs too: s2s transformed the program wrongly"
MISCOMPILED_OUTPUT = ("cc -O2 miscompiles s2s's output: built with cc -O0 it prints the reference's output and "
                      "runs clean under ASan and UBSan")
SANITIZERS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all")


@dataclass(frozen=True)
class RunOptions:
    target: str = "c"  # c | openmp | highway | highway+openmp
    cc: str = "cc"
    cxx: str = "c++"  # the highway targets' units, rebuilt at -O0 to tell whose bug a mismatch is
    s2s_cc: str = ""  # default: the s2s-cc next to this interpreter
    run_timeout: float = 20.0
    build_timeout: float = 300.0
    threads: tuple[int, ...] = ()  # default: (1,) for c, (1, 2, 3) for openmp
    frontend: str = "c"  # "llvm": the candidate goes through clang and the LLVM front end

    def thread_counts(self) -> tuple[int, ...]:
        return self.threads or ((1, 2, 3) if self.openmp else (1,))

    @property
    def openmp(self) -> bool:
        """Whether the candidate is built with -fopenmp (and run on several thread counts)."""
        return self.target in ("openmp", "highway+openmp")


@dataclass
class Outcome:
    status: str
    detail: str = ""
    fallback: str = ""  # the reason s2s-cc gave for compiling the original, if it did
    optimized: int = 0  # SCoPs of the kernel that s2s rescheduled (main's fill loops not counted)
    threads: int | None = None  # the thread count that failed (OpenMP)
    report: list[str] = field(default_factory=list)
    culprit: str = ""  # for a mismatch: which of the compilers is wrong, as far as _culprit can tell

    @property
    def failed(self) -> bool:
        return self.status not in (OK, INVALID, CC_MISMATCH, CC_ON_OUTPUT)


def s2s_cc_path() -> str:
    here = Path(sys.executable).with_name("s2s-cc")
    if here.is_file():
        return str(here)
    return shutil.which("s2s-cc") or "s2s-cc"


def check_source(source: str, args: list[str], env: dict[str, str], options: RunOptions,
                 workdir: Path | None = None, threads: tuple[int, ...] | None = None) -> Outcome:
    """Build ``source`` both ways, run both with ``args``, compare. ``env`` is the program's own
    S2S_* settings (tile sizes, fusion)."""
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="s2s-fuzz-") as tmp:
            return check_source(source, args, env, options, Path(tmp), threads)
    workdir.mkdir(parents=True, exist_ok=True)
    src = workdir / "prog.c"
    src.write_text(source)
    ref, opt = workdir / "ref", workdir / "opt"
    try:
        r = subprocess.run([options.cc, "-O0", *CFLAGS, str(src), "-o", str(ref), "-lm"],
                           capture_output=True, text=True, timeout=options.build_timeout)
    except subprocess.TimeoutExpired:
        return Outcome(INVALID, "the reference did not build in time")
    if r.returncode:
        return Outcome(INVALID, "the reference does not build: " + _first_line(r.stderr))
    cc_env = _clean_env()
    cc_env.update(env)
    # (every program is new: the cache would only fill up)
    cc_env.update(S2S_MODE="pluto", S2S_REPORT="1", S2S_KEEP=str(workdir / "kept"), S2S_CACHE="off")
    command = [options.s2s_cc or s2s_cc_path(), *(["--s2s-frontend=llvm"] if options.frontend == "llvm" else []),
               options.cc, "-O2", *CFLAGS]
    if options.openmp:
        command.append("-fopenmp")
    if options.target.startswith("highway"):
        command.append(f"--s2s-target={options.target}")
        cc_env["S2S_CXX"] = options.cxx
    try:
        b = subprocess.run([*command, str(src), "-o", str(opt), "-lm"], capture_output=True, text=True,
                           env=cc_env, timeout=options.build_timeout, cwd=workdir)
    except subprocess.TimeoutExpired:
        return Outcome(TIMEOUT, f"s2s-cc ran past {options.build_timeout:.0f} s")
    fallback = FALLBACK.search(b.stderr) or INTERNAL_ERROR.search(b.stderr)
    report = REPORT.findall(b.stderr)
    outcome = Outcome(OK, fallback=fallback.group(1) if fallback else "", report=report,
                      optimized=sum(1 for line in report if _reordered(line)))
    if b.returncode:
        outcome.status, outcome.detail = BUILD_FAILED, "s2s-cc failed: " + _first_line(b.stderr)
        return outcome
    expected = _run([str(ref), *args], {}, options.run_timeout)
    if expected is None or expected.returncode:
        outcome.status = INVALID
        outcome.detail = "the reference " + ("timed out" if expected is None else f"exited {expected.returncode}")
        return outcome
    for n in threads or options.thread_counts():
        run_env = {"OMP_NUM_THREADS": str(n), "OMP_WAIT_POLICY": "passive"} if options.openmp else {}
        got = _run([str(opt), *args], run_env, options.run_timeout)
        outcome.threads = n if options.openmp else None
        if got is None:
            outcome.status, outcome.detail = TIMEOUT, f"the optimized program ran past {options.run_timeout:.0f} s"
            return outcome
        if got.returncode:
            outcome.status = CRASH
            outcome.detail = f"the optimized program exited {got.returncode}: {_first_line(got.stderr.decode(errors='replace'))}"
            return outcome
        if got.stdout != expected.stdout:
            outcome.status, outcome.detail = MISMATCH, first_difference(expected.stdout, got.stdout)
            outcome.culprit = _culprit(src, workdir, args, expected.stdout, options, run_env)
            if outcome.culprit == CC_ALONE:
                outcome.status = CC_MISMATCH
            elif outcome.culprit == MISCOMPILED_OUTPUT:
                outcome.status = CC_ON_OUTPUT
            return outcome
    outcome.threads = None
    return outcome


def _culprit(src: Path, workdir: Path, args: list[str], expected: bytes, options: RunOptions,
             run_env: dict[str, str]) -> str:
    """Tell an s2s bug from a compiler bug: s2s's output (kept by s2s-cc) built with -O0, and the
    original built with the same -O2 flags and no s2s. Where both the optimized build and the
    plain -O2 one are wrong, s2s is still checked: a compiler bug must not hide one of s2s's."""
    omp = ["-fopenmp"] if options.openmp else []
    plain = workdir / "plain"
    b = subprocess.run([options.cc, "-O2", *CFLAGS, *omp, str(src), "-o", str(plain), "-lm"], capture_output=True,
                       timeout=options.build_timeout)
    plain_run = _run([str(plain), *args], run_env, options.run_timeout) if b.returncode == 0 else None
    plain_wrong = plain_run is not None and plain_run.stdout != expected
    kept = sorted((workdir / "kept").glob("*.s2s.c"))
    if not kept:   # (the optimized build is the plain one)
        return CC_ALONE if plain_wrong else ""
    units = sorted((workdir / "kept").glob("*.s2s-hwy.cc"))
    generated = workdir / "generated_O0"
    built = _build_output(kept[0], units, generated, omp, options)
    r = _run([str(generated), *args], run_env, options.run_timeout) if built else None
    if r is not None and r.stdout != expected:
        return S2S_OUTPUT
    if plain_wrong:
        return CC_ALONE if r is not None else ""
    if r is None:
        return ""
    # right at -O0: undefined behaviour s2s introduced (which -O2 may exploit), or a compiler bug
    checked = workdir / "generated_sanitized"
    built = _build_output(kept[0], units, checked, [*SANITIZERS, *omp], options)
    clean = _run([str(checked), *args], run_env, options.run_timeout) if built else None
    if clean is not None and clean.returncode == 0 and clean.stdout == expected:
        return MISCOMPILED_OUTPUT
    return ONLY_OPTIMIZED_CC


def _build_output(generated: Path, units: list[Path], out: Path, flags: list[str], options: RunOptions) -> bool:
    """s2s's kept C output built at -O0 with ``flags`` into ``out``, with its Highway units
    (``*.s2s-hwy.cc`` beside it, which include themselves by name) built alike and linked in."""
    from backends.highway import CXX_FLAGS

    objects = []
    for unit in units:
        obj = out.parent / f"{out.name}.{unit.stem}.o"
        r = subprocess.run([options.cxx, "-O0", *CFLAGS, *CXX_FLAGS, *flags, "-I", str(unit.parent), "-c", str(unit),
                            "-o", str(obj)], capture_output=True, timeout=options.build_timeout)
        if r.returncode:
            return False
        objects.append(str(obj))
    libraries = ["-lhwy", "-lstdc++"] if units else []
    return subprocess.run([options.cc, "-O0", *CFLAGS, *flags, str(generated), *objects, "-o", str(out), *libraries,
                           "-lm"], capture_output=True, timeout=options.build_timeout).returncode == 0


def _reordered(report_line: str) -> bool:
    return ": kernel: " in report_line and ("Pluto schedule:" in report_line or "isl scheduler (" in report_line)


def first_difference(expected: bytes, got: bytes) -> str:
    """Where two outputs first differ, named by the array whose values the line belongs to."""
    a, b = expected.decode(errors="replace").splitlines(), got.decode(errors="replace").splitlines()
    array, index = "?", 0
    for line_a, line_b in zip(a, b):
        if line_a != line_b:
            return f"{array}[{index}] (flat): expected {line_a}, got {line_b}"
        if line_a and line_a[0].isalpha() and line_a not in ("nan", "inf", "-inf"):
            array, index = line_a, 0
        else:
            index += 1
    return f"output length {len(a)} lines expected, {len(b)} got"


def _run(command: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess | None:
    full = _clean_env()
    full.update(env)
    try:
        return subprocess.run(command, capture_output=True, env=full, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def _clean_env() -> dict[str, str]:
    """This process's environment without the user's S2S_* and OMP_* settings, which would change
    what is being tested."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("S2S_", "OMP_", "GOMP_"))}


def _first_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[0][:300] if lines else "(no message)"
