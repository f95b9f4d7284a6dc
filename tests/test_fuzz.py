"""The differential fuzzer (``s2s fuzz``, ``s2s.fuzz``) and the failures it saved (tests/fuzz_regressions).

* the generator is a pure function of the seed, and its programs build with ``-Wall -Werror`` and run
  clean under AddressSanitizer and UBSan (in bounds, no signed overflow);
* the runner tells mismatches, crashes and s2s-cc fallbacks apart (fake optimizers plant each);
* shrinking takes a planted miscompilation down to a few nodes;
* a CI-sized differential run through the real s2s-cc, C and OpenMP (10,000 programs: ``-m slow``);
* every saved regression builds both ways with identical output.
"""
from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from s2s import cli
from s2s.fuzz import RunOptions, check_file, check_source, generate, read_case, run_fuzz, shrink, to_c
from s2s.fuzz.model import Loop, Stmt
from s2s.fuzz.runner import CC_MISMATCH, CC_ON_OUTPUT, CRASH, MISCOMPILED_OUTPUT, MISMATCH, OK, S2S_OUTPUT
from s2s.fuzz.shrink import size

REGRESSIONS = Path(__file__).resolve().parent / "fuzz_regressions"


def test_generator_is_deterministic_per_seed():
    for seed in (0, 7, 123456):
        assert generate(seed) == generate(seed)
        assert to_c(generate(seed)) == to_c(generate(seed))
    texts = {to_c(generate(seed)) for seed in range(20)}
    assert len(texts) == 20


def test_generator_covers_what_the_issue_asks_for():
    texts = [to_c(generate(seed)) for seed in range(120)]
    joined = "\n".join(texts)
    for pattern in (r"static unsigned", r"static int", r"static float", r"static double",  # element types
                    r"int n, int m, int p", r"if \(", r"% [23] ==",  # parameters, affine and modulo guards
                    r"i \+= [23]", r"i--", r"<= ", r"for \(int j = i", r"for \(int l",  # strides, 4 deep
                    r"\w\[\d?\*?i\*n ",  # linearized with a parameter leading dimension
                    r"float \*v0 = buf \+", r"static \w+ \*v\d;", r"kernel\(.*g_buf \+",  # views, 3 ways
                    r"\+= \(\w\[i\]\[k\] \* \w\[k\]\[j\]\)",  # the matrix-multiply pattern
                    r"g_result", r"s\d \+= ",  # scalars and reductions into them
                    # C89 style: loop variables declared at the top, some read after their loops
                    r"\n  int i(, | = 0)", r"for \(j = ", r"g_result\[\d\] = [ijkl];",
                    # a branch of an if on data computing in a local of its own, which a nested if sets
                    r"\{\n\s+\w+ (s\d+) = 0[^;]*;\n\s+\1 = [^\n]*\n\s+if \([^\n]*\)\n\s+\{\n\s+\1 [-+*]?= "):
        assert re.search(pattern, joined), pattern
    assert any(t.count("for (int i") >= 4 for t in texts)  # several nests


@pytest.mark.parametrize("chunk", range(2))
def test_programs_build_with_werror_and_run_clean_under_sanitizers(tmp_path, chunk):
    for seed in range(chunk * 12, chunk * 12 + 12):
        program = generate(seed)
        src = tmp_path / f"p{seed}.c"
        src.write_text(to_c(program))
        exe = tmp_path / f"p{seed}"
        subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror", "-O1", "-g",
                        "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-ffp-contract=off",
                        str(src), "-o", str(exe), "-lm"], check=True)
        run = subprocess.run([str(exe), *program.args()], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"})
        assert run.returncode == 0, f"seed {seed}: {run.stderr[-2000:]}"


# ---- fake optimizers: the runner and the shrinker must see what they plant ----------------------------------
FAKE = r'''#!{python}
"""A stand-in for s2s-cc: `fake cc FLAGS... prog.c -o out`, miscompiling as FAKE_MODE says."""
import os, re, subprocess, sys
args = sys.argv[1:]
src = next(a for a in args if a.endswith(".c"))
text = open(src).read()
mode = os.environ.get("FAKE_MODE", "{mode}")
if mode == "minus":  # the first += in the kernel becomes -=
    head, sep, rest = text.partition("void kernel(")
    rest = re.sub(r"\] \+= ", "] -= ", rest, count=1)
    text = head + sep + rest
elif mode == "crash":
    text = text.replace("  return 0;\n}}", "  abort();\n}}")
elif mode == "fallback":
    sys.stderr.write("s2s-cc: note: prog.c: optimization skipped (planted); compiled unchanged\n")
new = src[:-2] + "_fake.c"
open(new, "w").write(text)
if os.environ.get("S2S_KEEP"):   # as s2s-cc keeps what it generated
    os.makedirs(os.environ["S2S_KEEP"], exist_ok=True)
    open(os.path.join(os.environ["S2S_KEEP"], "prog.s2s.c"), "w").write(text)
args = [new if a == src else a for a in args if a not in ("-fopenmp",)]
sys.exit(subprocess.run(args).returncode)
'''


def fake_compiler(tmp_path: Path, mode: str) -> str:
    path = tmp_path / f"fake-{mode}"
    path.write_text(FAKE.format(python=sys.executable, mode=mode))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def _with_plus_equals(start: int = 0):
    seed = start
    while True:
        program = generate(seed)
        kernel = to_c(program).partition("void kernel(")[2]
        if "] += " in kernel and size(program) >= 8:
            return program
        seed += 1


def test_runner_tells_mismatch_crash_and_fallback_apart(tmp_path):
    program = _with_plus_equals()
    args, env, src = program.args(), program.config.env(), to_c(program)
    ok = check_source(src, args, env, RunOptions(s2s_cc=fake_compiler(tmp_path, "none")))
    assert ok.status == OK and not ok.fallback
    fallback = check_source(src, args, env, RunOptions(s2s_cc=fake_compiler(tmp_path, "fallback")))
    assert fallback.status == OK and fallback.fallback == "planted"
    crash = check_source(src, args, env, RunOptions(s2s_cc=fake_compiler(tmp_path, "crash")))
    assert crash.status == CRASH
    mismatch = check_source(src, args, env, RunOptions(s2s_cc=fake_compiler(tmp_path, "minus")))
    assert mismatch.status in (MISMATCH, OK)


BAD_O2_CC = r'''#!{python}
"""A stand-in for cc whose -O2 miscompiles files named *{suffix}: the first += in the kernel becomes -=."""
import re, subprocess, sys
args = sys.argv[1:]
src = next(a for a in args if a.endswith(".c"))
if "-O2" in args and src.endswith("{suffix}"):
    head, sep, rest = open(src).read().partition("void kernel(")
    new = src[:-2] + "_bad.c"
    open(new, "w").write(head + sep + re.sub(r"\] \+= ", "] -= ", rest, count=1))
    args = [new if a == src else a for a in args]
sys.exit(subprocess.run(["cc", *args]).returncode)
'''


def _first_program_the_bad_cc_changes(tmp_path: Path, suffix: str):
    """A cc whose -O2 miscompiles files named *``suffix``, the first program whose output that
    changes (built through a fake s2s-cc that changes nothing), and its outcome."""
    bad_cc = tmp_path / "bad-cc"
    bad_cc.write_text(BAD_O2_CC.format(python=sys.executable, suffix=suffix))
    bad_cc.chmod(bad_cc.stat().st_mode | stat.S_IEXEC)
    seed = 0
    for _ in range(20):
        program = _with_plus_equals(seed)
        args, env, src = program.args(), program.config.env(), to_c(program)
        got = check_source(src, args, env, RunOptions(cc=str(bad_cc), s2s_cc=fake_compiler(tmp_path, "none")),
                           tmp_path / f"p{program.seed}")
        if got.status != OK:
            break
        seed = program.seed + 1
    return bad_cc, (src, args, env), got


def test_a_compiler_bug_does_not_hide_one_of_s2s(tmp_path):
    """Where cc -O2 miscompiles the user's file too, s2s's output built with -O0 still decides:
    right, the mismatch is the compiler's; wrong, it is s2s's."""
    bad_cc, (src, args, env), right = _first_program_the_bad_cc_changes(tmp_path, ".c")
    assert right.status == CC_MISMATCH, right
    wrong = check_source(src, args, env, RunOptions(cc=str(bad_cc), s2s_cc=fake_compiler(tmp_path, "minus")),
                         tmp_path / "wrong")
    assert wrong.status == MISMATCH and wrong.culprit == S2S_OUTPUT, wrong


def test_a_compiler_bug_on_right_output_is_told_apart(tmp_path):
    """Where only cc -O2's build of s2s's output is wrong, and built with -O0 it is right and
    clean under ASan and UBSan, the compiler miscompiled right code: counted apart, not failed."""
    _, _, got = _first_program_the_bad_cc_changes(tmp_path, "_fake.c")   # (the fake s2s-cc's output)
    assert got.status == CC_ON_OUTPUT and got.culprit == MISCOMPILED_OUTPUT and not got.failed, got


def test_an_internal_error_on_one_scop_counts_as_a_fallback():
    from s2s.fuzz.runner import INTERNAL_ERROR
    line = ("s2s-cc: report: p.c:9: kernel: SCoP at L1 left as is (original code kept: internal error: "
            "NotAffine: s0_x: cannot delinearize (inner index may leave [0, i)))")
    found = INTERNAL_ERROR.search(line + "\n")
    assert found and found.group(1).startswith("internal error: NotAffine: s0_x")


def test_shrinking_reduces_a_planted_miscompilation(tmp_path):
    options = RunOptions(s2s_cc=fake_compiler(tmp_path, "minus"))
    seed = 0
    while True:
        program = _with_plus_equals(seed)
        outcome = check_source(to_c(program), program.args(), program.config.env(), options)
        if outcome.status == MISMATCH:
            break
        seed = program.seed + 1

    def still_fails(candidate):
        got = check_source(to_c(candidate), candidate.args(), candidate.config.env(), options)
        return got.status == MISMATCH

    small = shrink(program, still_fails, max_checks=150)
    assert still_fails(small)
    assert size(small) < size(program) and size(small) <= 4, to_c(small)
    statements = [n for n in _walk(small.body) if isinstance(n, Stmt)]
    assert any(s.op == "+=" for s in statements)


def test_shrinking_on_a_pure_predicate_keeps_what_matters():
    program = next(generate(s) for s in range(100) if size(generate(s)) >= 10
                   and any(isinstance(n, Loop) and n.step == 2 for n in _walk(generate(s).body)))

    def has_step_two(p):
        return any(isinstance(n, Loop) and n.step == 2 for n in _walk(p.body))

    small = shrink(program, has_step_two)
    assert has_step_two(small) and size(small) <= 2
    assert all(v <= 2 for _, v in small.params)


def _walk(nodes):
    for n in nodes:
        yield n
        for attr in ("body", "then", "orelse"):
            yield from _walk(getattr(n, attr, ()))


def test_cli_fuzz_saves_and_summarizes_failures(tmp_path, capsys):
    program = _with_plus_equals()
    rc = cli.main(["fuzz", "--count", "3", "--seed", str(program.seed), "--keep", str(tmp_path / "keep"),
                   "--s2s-cc", fake_compiler(tmp_path, "minus"), "--quiet", "--no-shrink"])
    out = capsys.readouterr().out
    assert "3 programs (c):" in out and "mismatches" in out and "fallbacks" in out
    saved = sorted((tmp_path / "keep").glob("fuzz-c-*.c"))
    if rc:
        assert saved
        case = read_case(next(p for p in saved if not p.name.endswith("-original.c")))
        assert case.target == "c" and case.seed >= program.seed
    else:
        assert not saved


# ---- the real optimizer ---------------------------------------------------------------------------------------
def _differential(count: int, seed: int, target: str, tmp_path: Path):
    summary = run_fuzz(count, seed, RunOptions(target=target), jobs=2, keep=tmp_path / "keep")
    # Pointer views of one buffer included: the run-time overlap check covers them since 1093a2e.
    assert not summary.failures, "\n".join(f"seed {f.seed}: {f.outcome.status}: {f.outcome.detail} ({f.saved})"
                                           for f in summary.failures)
    assert summary.counts.get("invalid", 0) == 0
    assert summary.optimized >= count // 3  # the programs must exercise the optimizer, not slip past it
    return summary


def test_differential_run_c(tmp_path):
    _differential(16, 20260, "c", tmp_path)


def test_differential_run_openmp(tmp_path):
    _differential(8, 40260, "openmp", tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("target", ["c", "openmp"])
def test_differential_run_10000(tmp_path, target):
    _differential(10_000, 1_000_000, target, tmp_path)


# ---- saved failures ----------------------------------------------------------------------------------------------
def _regression_cases():
    for path in sorted(REGRESSIONS.glob("*.c")):
        case = read_case(path)
        marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
        yield pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("path", list(_regression_cases()))
def test_fuzz_regression(path):
    outcome = check_file(path)
    assert outcome.status == OK, f"{outcome.status}: {outcome.detail}"
    assert not outcome.fallback, f"s2s-cc fell back: {outcome.fallback}"


SCALED_ROWS = r"""
#include <stdio.h>
#include <stdlib.h>

void kernel(int n, int m, double a[n][m], const double b[n][m], double s)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i][j] = s * b[i][j] + a[i][j];
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 5, m = argc > 2 ? atoi(argv[2]) : 7;
  double (*a)[m] = malloc(sizeof(double) * n * m), (*b)[m] = malloc(sizeof(double) * n * m);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      a[i][j] = (i * 3 + j) % 7 * 0.25;
      b[i][j] = (i + 5 * j) % 11 * 0.5;
    }
  kernel(n, m, a, b, 1.5);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      printf("%a\n", a[i][j]);
  free(a);
  free(b);
  return 0;
}
"""


def test_the_culprit_check_rebuilds_the_highway_unit_too(tmp_path):
    """Through the Highway targets, s2s's output calls its C++ unit: the culprit check rebuilds
    both at -O0 (and under the sanitizers) and links them, so a right unit clears s2s and a wrong
    one is found to be s2s's (without the unit the -O0 build did not link, and no culprit was told)."""
    from s2s.fuzz.runner import _culprit

    env = {"S2S_PROFITABILITY": "off", "S2S_WORK_THRESHOLDS": "optimize=0,parallel=0,parallel_start=0,parallel_wake=0"}
    options = RunOptions(target="highway")
    args = ["9", "37"]
    got = check_source(SCALED_ROWS, args, env, options, tmp_path)
    assert got.status == OK and not got.fallback, got
    unit = tmp_path / "kept" / "prog.s2s-hwy.cc"
    assert "hn::Add(" in unit.read_text()
    expected = subprocess.run([str(tmp_path / "ref"), *args], capture_output=True, check=True).stdout
    assert _culprit(tmp_path / "prog.c", tmp_path, args, expected, options, {}) == MISCOMPILED_OUTPUT
    unit.write_text(unit.read_text().replace("hn::Add(", "hn::Sub("))
    assert _culprit(tmp_path / "prog.c", tmp_path, args, expected, options, {}) == S2S_OUTPUT
