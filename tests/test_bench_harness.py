"""The evaluation harness (``s2s bench`` / ``python -m polybench``): build, verify, time, report.

Fast: MINI dataset, --repeat 1, two or three kernels per run. Tests that need our suite skip while
polybench/registry.py or polybench/suite is not there; the external-suite test makes its own tiny
PolyBench-like tree in tmp_path and needs neither.
"""
from __future__ import annotations

import csv
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from polybench.harness import cli
from polybench.harness.plot import plot_paths
from polybench.harness.suite import SizeSpecError, parse_header, parse_size_spec, select_kernels
from polybench.harness.verify import DumpError, compare, parse_dump, quantum_of

REPO = Path(__file__).resolve().parents[1]
HAVE_CC = shutil.which("cc") is not None

needs_cc = pytest.mark.skipif(not HAVE_CC, reason="no C compiler (cc)")


def _our_suite_ready() -> str | None:
    try:
        from polybench import registry  # noqa: F401
    except ImportError as e:
        return f"polybench/registry.py not there yet ({e})"
    root = Path(registry.SUITE_ROOT)
    if not (root / "utilities" / "polybench.c").is_file():
        return f"{root}/utilities/polybench.c not there yet"
    for name in ("gemm", "atax", "floyd-warshall"):
        info = registry.KERNELS.get(name)
        if info is None or not Path(registry.kernel_source(info)).is_file():
            return f"kernel {name} not in the suite yet"
    return None


_NOT_READY = _our_suite_ready()
needs_suite = pytest.mark.skipif(_NOT_READY is not None or not HAVE_CC, reason=_NOT_READY or "no cc")


def bench(tmp_path: Path, capsys, *args: str) -> tuple[int, str, dict, list[dict]]:
    """Run the harness in-process; (exit status, stdout, JSON, CSV rows)."""
    out_dir = tmp_path / "out"
    rc = cli.main(["--output-dir", str(out_dir), "--no-progress", "--jobs", "2", *args])
    stdout = capsys.readouterr().out
    data = json.loads((out_dir / "bench.json").read_text())
    with open(out_dir / "bench.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["role"] != "noise"]
    return rc, stdout, data, rows


def cells(data: dict) -> dict[tuple[str, str], dict]:
    """The measured cells (without the fp-noise probe, which every run adds)."""
    return {(r["kernel"], r["config"]): r for r in data["results"] if r["role"] != "noise"}


def perturbing_compiler(tmp_path: Path) -> Path:
    """A compiler wrapper that flips the first ``+=`` inside the kernel function to ``-=``."""
    script = tmp_path / "perturb-cc"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import os, sys, tempfile
        from pathlib import Path
        args = []
        for a in sys.argv[1:]:
            p = Path(a)
            if a.endswith(".c") and p.name != "polybench.c" and p.is_file():
                text = p.read_text()
                at = text.index("kernel_" + p.stem.replace("-", "_"))
                body = text[at:]
                assert "+=" in body, "nothing to perturb"
                q = Path(tempfile.mkdtemp()) / p.name
                q.write_text(text[:at] + body.replace("+=", "-=", 1))
                a = str(q)
            args.append(a)
        os.execvp("cc", ["cc"] + args)
        """))
    script.chmod(0o755)
    return script


# --- unit tests (no compiler, no suite) ------------------------------------------------------------

def _dump(**arrays: str) -> str:
    body = "".join(f"begin dump: {k}\n{v}\nend   dump: {k}\n" for k, v in arrays.items())
    return f"noise\n==BEGIN DUMP_ARRAYS==\n{body}==END   DUMP_ARRAYS==\n"


def test_compare_tolerance_nan_counts_names():
    ref = parse_dump(_dump(C="1.0 2.0 0 -3.5"))
    assert compare(ref, parse_dump(_dump(C="1.0 2.0000000001 0 -3.5")), 1e-6).ok
    bad = compare(ref, parse_dump(_dump(C="1.0 2.1 0 -3.5")), 1e-6)
    assert not bad.ok and "C[1]" in bad.message and bad.max_rel_err == pytest.approx(0.1 / 2.1)
    nan = compare(ref, parse_dump(_dump(C="1.0 nan 0 -3.5")), 1e-6)
    assert not nan.ok and "NaN" in nan.message
    assert compare(parse_dump(_dump(C="nan 1")), parse_dump(_dump(C="-nan 1")), 1e-6).ok
    short = compare(ref, parse_dump(_dump(C="1.0 2.0 0")), 1e-6)
    assert not short.ok and "3 values" in short.message
    other = compare(ref, parse_dump(_dump(D="1.0 2.0 0 -3.5")), 1e-6)
    assert not other.ok and "arrays differ" in other.message
    ints = parse_dump(_dump(P="1 2 3"), integer=True)
    assert compare(ints, parse_dump(_dump(P="1 2 3"), integer=True), 1e-6, integer=True).ok
    assert not compare(ints, parse_dump(_dump(P="1 2 4"), integer=True), 1.0, integer=True).ok
    with pytest.raises(DumpError):
        parse_dump("no dump here")
    with pytest.raises(DumpError):
        parse_dump("==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1 2\nend   dump: A\n")  # cut short


def test_noise_widened_tolerance_and_floor():
    from polybench.harness.verify import noise_tolerances

    # A value that is cancellation noise next to large ones is judged against the array's scale.
    ref = parse_dump(_dump(C="1000 2e-15 5"))
    assert compare(ref, parse_dump(_dump(C="1000 -3e-15 5")), 1e-6).ok
    # An ill-conditioned output: the -ffp-contract=off build already differs by 1e-3.
    perturbed = parse_dump(_dump(C="1001 2e-15 5"))
    tols = noise_tolerances(ref, perturbed, 1e-6)
    assert tols["C"] == pytest.approx(100 * 1 / 1001)
    other = parse_dump(_dump(C="999 0 5"))
    assert not compare(ref, other, 1e-6).ok
    widened = compare(ref, other, 1e-6, tolerances=tols)
    assert widened.ok and widened.widened
    assert not compare(ref, parse_dump(_dump(C="1000 0 nan")), 1e-6, tolerances=tols).ok  # NaN stays fatal
    assert noise_tolerances(ref, parse_dump(_dump(C="1000 2e-15 5.000000000001")), 1e-6) == {}


def test_compare_two_decimal_dumps():
    a = parse_dump(_dump(C="0.12 1.00 -2.50"), detect_decimals=True)
    b = parse_dump(_dump(C="0.13 1.00 -2.50"), detect_decimals=True)  # 0.125 rounded both ways
    assert a.decimals == 2 and quantum_of(a, b) == pytest.approx(0.01)
    assert compare(a, b, 1e-6, quantum=quantum_of(a, b)).ok
    c = parse_dump(_dump(C="0.15 1.00 -2.50"), detect_decimals=True)
    assert not compare(a, c, 1e-6, quantum=quantum_of(a, c)).ok
    full = parse_dump(_dump(C="0.125 1 -2.5"), detect_decimals=True)
    assert full.decimals is None


def test_size_specs_and_header():
    assert parse_size_spec("NI=512:2048:512") == ("NI", [512, 1024, 1536, 2048])
    assert parse_size_spec("N=100") == ("N", [100])
    assert parse_size_spec("N=10,20") == ("N", [10, 20])
    for bad in ("NI", "NI=", "NI=4:2:1", "NI=1:4:0", "NI=x", "NI=-3"):
        with pytest.raises(SizeSpecError):
            parse_size_spec(bad)
    params, datasets, integer = parse_header(textwrap.dedent("""\
        # if !defined(NI) && !defined(NJ)
        #  ifdef MINI_DATASET
        #   define NI 20
        #   define NJ 25
        #  endif
        #  ifdef LARGE_DATASET
        #   define NI 1000
        #   define NJ 1100
        #  endif
        # endif
        # if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT)
        #  define DATA_TYPE_IS_INT
        # endif
        """))
    assert params == ("NI", "NJ") and datasets["LARGE"] == {"NI": 1000, "NJ": 1100} and integer


def test_plot_paths():
    assert plot_paths(Path("a/b.png")) == [Path("a/b.png"), Path("a/b.svg")]
    assert plot_paths(Path("b.svg")) == [Path("b.svg"), Path("b.png")]
    assert plot_paths(Path("chart")) == [Path("chart.png"), Path("chart.svg")]


# --- an external suite (2-decimal dumps), made here ---------------------------------------------------

POLYBENCH_H = r"""
#ifndef POLYBENCH_H
# define POLYBENCH_H
# include <stdio.h>
# include <string.h>
# ifndef POLYBENCH_DUMP_ARRAYS
#  define POLYBENCH_DCE_ONLY_CODE    if (argc > 42 && ! strcmp(argv[0], ""))
# else
#  define POLYBENCH_DCE_ONLY_CODE
# endif
#define POLYBENCH_DUMP_TARGET stderr
#define POLYBENCH_DUMP_START    fprintf(POLYBENCH_DUMP_TARGET, "==BEGIN DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_FINISH   fprintf(POLYBENCH_DUMP_TARGET, "==END   DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_BEGIN(s) fprintf(POLYBENCH_DUMP_TARGET, "begin dump: %s", s)
#define POLYBENCH_DUMP_END(s)   fprintf(POLYBENCH_DUMP_TARGET, "\nend   dump: %s\n", s)
# define polybench_prevent_dce(func) POLYBENCH_DCE_ONLY_CODE func
# ifdef POLYBENCH_TIME
#  define polybench_start_instruments polybench_timer_start();
#  define polybench_stop_instruments polybench_timer_stop();
#  define polybench_print_instruments polybench_timer_print();
# else
#  define polybench_start_instruments
#  define polybench_stop_instruments
#  define polybench_print_instruments
# endif
extern void polybench_timer_start(void);
extern void polybench_timer_stop(void);
extern void polybench_timer_print(void);
#endif
"""

POLYBENCH_C = r"""
#include <stdio.h>
#include <sys/time.h>
static double t_start, t_end;
static double now(void) { struct timeval t; gettimeofday(&t, NULL); return t.tv_sec + t.tv_usec * 1e-6; }
void polybench_timer_start(void) { t_start = now(); }
void polybench_timer_stop(void) { t_end = now(); }
void polybench_timer_print(void) { printf("%0.6f\n", t_end - t_start); }
"""

KERNEL_H = r"""
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif
# if !defined(TSTEPS) && !defined(N)
#  ifdef MINI_DATASET
#   define TSTEPS 100
#   define N 1000
#  endif
#  ifdef SMALL_DATASET
#   define TSTEPS 40
#   define N 120
#  endif
#  ifdef MEDIUM_DATASET
#   define TSTEPS 100
#   define N 400
#  endif
#  ifdef LARGE_DATASET
#   define TSTEPS 500
#   define N 2000
#  endif
#  ifdef EXTRALARGE_DATASET
#   define TSTEPS 1000
#   define N 4000
#  endif
# endif
# define DATA_TYPE double
# define DATA_PRINTF_MODIFIER "%0.2lf "
"""

KERNEL_C = r"""
#include <polybench.h>
#include "NAME.h"
static DATA_TYPE A[N], B[N];
static void kernel_KNAME(int tsteps, int n) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++) { B[i] = 0.33333 * (A[i-1] + A[i]); B[i] += 0.33333 * A[i + 1]; }
    for (int i = 1; i < n - 1; i++) A[i] = 0.33333 * (B[i-1] + B[i] + B[i + 1]);
  }
}
static void print_array(int n) {
  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A");
  for (int i = 0; i < n; i++) {
    if (i % 20 == 0) fprintf(POLYBENCH_DUMP_TARGET, "\n");
    fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i]);
  }
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}
int main(int argc, char **argv) {
  for (int i = 0; i < N; i++) { A[i] = ((DATA_TYPE) i + 2) / N * 100; B[i] = ((DATA_TYPE) i + 3) / N; }
  polybench_start_instruments;
  kernel_KNAME(TSTEPS, N);
  polybench_stop_instruments;
  polybench_print_instruments;
  polybench_prevent_dce(print_array(N));
  return 0;
}
"""


def make_external_suite(root: Path) -> Path:
    (root / "utilities").mkdir(parents=True)
    (root / "utilities" / "polybench.h").write_text(POLYBENCH_H)
    (root / "utilities" / "polybench.c").write_text(POLYBENCH_C)
    for name in ("jacobi-1d", "smooth-1d"):  # a name the registry knows, and one it does not
        d = root / "stencils" / name
        d.mkdir(parents=True)
        (d / f"{name}.h").write_text(KERNEL_H)
        (d / f"{name}.c").write_text(KERNEL_C.replace("KNAME", name.replace("-", "_")).replace("NAME", name))
    return root


def shim_dropping_compiler(tmp_path: Path) -> Path:
    """A compiler wrapper that drops ``-include <file>`` (a build the dump shim does not reach)."""
    script = tmp_path / "noshim-cc"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import os, sys
        args, skip = [], False
        for a in sys.argv[1:]:
            if skip or a == "-include":
                skip = not skip
                continue
            args.append(a)
        os.execvp("cc", ["cc"] + args)
        """))
    script.chmod(0o755)
    return script


@needs_cc
def test_external_suite_dir_full_precision(tmp_path, capsys):
    """An external tree prints 2 decimals; its dump binaries get the fprintf shim (full precision),
    its timed binaries are built from the sources as they are; a build the shim does not reach is
    still compared at the 2 decimals it printed."""
    suite = make_external_suite(tmp_path / "PolyBenchC-4.2.1")
    noshim = shim_dropping_compiler(tmp_path)
    rc, stdout, data, rows = bench(tmp_path, capsys, "--suite-dir", str(suite), "--dataset", "MINI",
                                   "--repeat", "1", "--configs", "baseline", "--config", "o1=cc -O1",
                                   "--config", f"noshim={noshim} -O1")
    assert rc == 0, stdout
    assert data["suite"] == {"root": str(suite.resolve()), "external": True}
    got = cells(data)
    assert set(got) == {(k, c) for k in ("jacobi-1d", "smooth-1d") for c in ("baseline", "o1", "noshim")}
    for r in got.values():
        assert r["status"] == "ok" and r["verified"], r
        assert r["sizes"] == {"TSTEPS": 100, "N": 1000}  # read from the suite's own header
        assert "-include" in r["build"]["dump"]["command"] and "-include" not in r["build"]["timed"]["command"]
    o1 = got[("smooth-1d", "o1")]
    assert o1["compare_mode"] == "rel" and o1["comparisons"][0]["abs_tolerance"] is None
    assert data["verification"]["full_precision_shim"]
    two = got[("smooth-1d", "noshim")]  # no shim, no marker: 2-decimal values detected
    assert two["compare_mode"] == "abs+rel" and two["comparisons"][0]["abs_tolerance"] == pytest.approx(0.01)
    assert "only 2 decimals" in stdout and "only 2 decimals" in data["verification"]["quantized"]
    assert got[("smooth-1d", "baseline")]["gflops"] is None  # unknown kernel: no flop count
    try:
        from polybench import registry
        known = "jacobi-1d" in registry.KERNELS
    except ImportError:
        known = False
    if known:  # registry metadata by name: a flop count, so GFLOP/s (unless below the timer's resolution)
        base = got[("jacobi-1d", "baseline")]
        assert base["flops"] > 0 and (base["gflops"] is not None or base["median_s"] == 0)
    assert len(rows) == 6


@needs_cc
def test_external_suite_catches_wrong_config(tmp_path, capsys):
    suite = make_external_suite(tmp_path / "pb")
    wrong = perturbing_compiler(tmp_path)
    rc, stdout, data, _ = bench(tmp_path, capsys, "--suite-dir", str(suite), "--dataset", "MINI",
                                "--repeat", "1", "--kernels", "smooth-1d", "--configs", "baseline",
                                "--config", f"wrong={wrong}")
    assert rc != 0
    r = cells(data)[("smooth-1d", "wrong")]
    assert r["status"] == "mismatch" and not r["verified"] and r["speedup"] is None
    assert "MISMATCH" in stdout


# --- a PolyBench/C 4.2.1-layout tree (every dump layout of the real suite), made here --------------
# Written for these tests in the style of the real suite: its macro names (POLYBENCH_2D,
# POLYBENCH_2D_ARRAY_DECL, POLYBENCH_ARRAY, POLYBENCH_DUMP_BEGIN ...), heap arrays, a
# DATA_PRINTF_MODIFIER of 2 decimals defined unconditionally in each header, and print_array
# functions in each layout the suite uses: a value before the first line break (4.2.1's trisolv: it
# lands on the `begin dump` line), two arrays (gramschmidt), an int triangle with a counter
# (nussinov), float data (deriche). EPS / IEPS are hooks of these tests: a build given -DEPS=1e-5
# changes one value of trisolv in its 5th decimal, -DIEPS=1 one entry of nussinov by one.

PB421_H = r"""
#ifndef POLYBENCH_H
# define POLYBENCH_H
# include <stdlib.h>
# include <string.h>
# ifndef POLYBENCH_PADDING_FACTOR
#  define POLYBENCH_PADDING_FACTOR 0
# endif
# ifdef POLYBENCH_USE_C99_PROTO
#  define POLYBENCH_C99_SELECT(x, y) y
# else
#  define POLYBENCH_C99_SELECT(x, y) x
# endif
# define POLYBENCH_LOOP_BOUND(x, y) x
# define POLYBENCH_1D(var, dim1, ddim1) var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) \
    var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR][POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR]
# define POLYBENCH_DECL_VAR(x) (*x)
# define POLYBENCH_ALLOC_1D_ARRAY(n1, type) \
    (type(*)[n1 + POLYBENCH_PADDING_FACTOR]) polybench_alloc_data(n1 + POLYBENCH_PADDING_FACTOR, sizeof(type))
# define POLYBENCH_ALLOC_2D_ARRAY(n1, n2, type) \
    (type(*)[n1 + POLYBENCH_PADDING_FACTOR][n2 + POLYBENCH_PADDING_FACTOR]) \
    polybench_alloc_data((n1 + POLYBENCH_PADDING_FACTOR) * (n2 + POLYBENCH_PADDING_FACTOR), sizeof(type))
# define POLYBENCH_1D_ARRAY_DECL(var, type, dim1, ddim1) \
    type POLYBENCH_1D(POLYBENCH_DECL_VAR(var), dim1, ddim1) = POLYBENCH_ALLOC_1D_ARRAY(POLYBENCH_C99_SELECT(dim1, ddim1), type);
# define POLYBENCH_2D_ARRAY_DECL(var, type, dim1, dim2, ddim1, ddim2) \
    type POLYBENCH_2D(POLYBENCH_DECL_VAR(var), dim1, dim2, ddim1, ddim2) = \
    POLYBENCH_ALLOC_2D_ARRAY(POLYBENCH_C99_SELECT(dim1, ddim1), POLYBENCH_C99_SELECT(dim2, ddim2), type);
# define POLYBENCH_ARRAY(x) *x
# define POLYBENCH_FREE_ARRAY(x) free((void*) x);
# ifndef POLYBENCH_DUMP_ARRAYS
#  define POLYBENCH_DCE_ONLY_CODE if (argc > 42 && ! strcmp(argv[0], ""))
# else
#  define POLYBENCH_DCE_ONLY_CODE
# endif
# define POLYBENCH_DUMP_TARGET stderr
# define POLYBENCH_DUMP_START    fprintf(POLYBENCH_DUMP_TARGET, "==BEGIN DUMP_ARRAYS==\n")
# define POLYBENCH_DUMP_FINISH   fprintf(POLYBENCH_DUMP_TARGET, "==END   DUMP_ARRAYS==\n")
# define POLYBENCH_DUMP_BEGIN(s) fprintf(POLYBENCH_DUMP_TARGET, "begin dump: %s", s)
# define POLYBENCH_DUMP_END(s)   fprintf(POLYBENCH_DUMP_TARGET, "\nend   dump: %s\n", s)
# define polybench_prevent_dce(func) POLYBENCH_DCE_ONLY_CODE func
# ifdef POLYBENCH_TIME
#  define polybench_start_instruments polybench_timer_start();
#  define polybench_stop_instruments polybench_timer_stop();
#  define polybench_print_instruments polybench_timer_print();
# else
#  define polybench_start_instruments
#  define polybench_stop_instruments
#  define polybench_print_instruments
# endif
extern void *polybench_alloc_data(unsigned long long n, int elt_size);
extern void polybench_timer_start(void);
extern void polybench_timer_stop(void);
extern void polybench_timer_print(void);
#endif
"""

PB421_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include "polybench.h"
static double t_start, t_end;
static double now(void) { struct timeval t; gettimeofday(&t, NULL); return t.tv_sec + t.tv_usec * 1e-6; }
void polybench_timer_start(void) { t_start = now(); }
void polybench_timer_stop(void) { t_end = now(); }
void polybench_timer_print(void) { printf("%0.6f\n", t_end - t_start); }
void *polybench_alloc_data(unsigned long long n, int elt_size) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, n * elt_size) != 0 || !p) {
    fprintf(stderr, "[PolyBench] cannot allocate %llu bytes\n", n * elt_size);
    exit(1);
  }
  return p;
}
"""


def pb421_header(guard: str, sizes: dict[str, tuple[int, ...]], dtype: str) -> str:
    """A 4.2.1-style kernel header: dataset sizes (MINI .. EXTRALARGE) and the type block."""
    params = list(sizes)
    lines = [f"#ifndef _{guard}_H", f"# define _{guard}_H",
             "# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) "
             "&& !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)", "#  define LARGE_DATASET", "# endif",
             "# if " + " && ".join(f"!defined({p})" for p in params)]
    for k, ds in enumerate(("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")):
        lines.append(f"#  ifdef {ds}_DATASET")
        lines += [f"#   define {p} {v[k]}" for p, v in sizes.items()]
        lines.append("#  endif")
    lines.append("# endif")
    lines += [f"# define _PB_{p} POLYBENCH_LOOP_BOUND({p}, {p.lower()})" for p in params]
    lines += ["# if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)",
              f"#  define DATA_TYPE_IS_{dtype.upper()}", "# endif",
              "# ifdef DATA_TYPE_IS_INT", "#  define DATA_TYPE int", '#  define DATA_PRINTF_MODIFIER "%d "', "# endif",
              "# ifdef DATA_TYPE_IS_FLOAT", "#  define DATA_TYPE float", '#  define DATA_PRINTF_MODIFIER "%0.2f "',
              "#  define SCALAR_VAL(x) x##f", "#  define SQRT_FUN(x) sqrtf(x)", "# endif",
              "# ifdef DATA_TYPE_IS_DOUBLE", "#  define DATA_TYPE double", '#  define DATA_PRINTF_MODIFIER "%0.2lf "',
              "#  define SCALAR_VAL(x) x", "#  define SQRT_FUN(x) sqrt(x)", "# endif",
              "#endif", ""]
    return "\n".join(lines)


PB421_PROLOGUE = r"""
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>
#include <polybench.h>
#include "NAME.h"
#ifndef EPS
# define EPS 0
#endif
#ifndef IEPS
# define IEPS 0
#endif
"""

PB421_KERNELS = {
    # x: a value, then a line break every 20: the first value right after "begin dump: x"
    ("linear-algebra/solvers", "trisolv"): ({"N": (40, 120, 400, 2000, 4000)}, "double", r"""
static void init_array(int n, DATA_TYPE POLYBENCH_2D(L, N, N, n, n), DATA_TYPE POLYBENCH_1D(x, N, n),
                       DATA_TYPE POLYBENCH_1D(b, N, n))
{
  int i, j;
  for (i = 0; i < n; i++) {
    x[i] = -1;
    b[i] = (DATA_TYPE) (i % 7) / 7 + 0.5;
    for (j = 0; j <= i; j++)
      L[i][j] = (DATA_TYPE) ((i + 2 * j) % 9 + 1) / (9 * n) + (i == j);
  }
  b[n - 1] += EPS;
}

static void print_array(int n, DATA_TYPE POLYBENCH_1D(x, N, n))
{
  int i;
  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("x");
  for (i = 0; i < n; i++) {
    fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, x[i]);
    if (i % 20 == 0) fprintf(POLYBENCH_DUMP_TARGET, "\n");
  }
  POLYBENCH_DUMP_END("x");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_trisolv(int n, DATA_TYPE POLYBENCH_2D(L, N, N, n, n), DATA_TYPE POLYBENCH_1D(x, N, n),
                           DATA_TYPE POLYBENCH_1D(b, N, n))
{
  int i, j;
#pragma scop
  for (i = 0; i < _PB_N; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(L, DATA_TYPE, N, N, n, n);
  POLYBENCH_1D_ARRAY_DECL(x, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(b, DATA_TYPE, N, n);
  init_array(n, POLYBENCH_ARRAY(L), POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(b));
  polybench_start_instruments;
  kernel_trisolv(n, POLYBENCH_ARRAY(L), POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(b));
  polybench_stop_instruments;
  polybench_print_instruments;
  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(x)));
  POLYBENCH_FREE_ARRAY(L);
  POLYBENCH_FREE_ARRAY(x);
  POLYBENCH_FREE_ARRAY(b);
  return 0;
}
"""),
    # two arrays, R then Q, each with a line break before every 20 values
    ("linear-algebra/solvers", "gramschmidt"): ({"M": (30, 80, 240, 1200, 2600), "N": (20, 60, 200, 1000, 2000)},
                                                "double", r"""
static void init_array(int m, int n, DATA_TYPE POLYBENCH_2D(A, M, N, m, n), DATA_TYPE POLYBENCH_2D(R, N, N, n, n),
                       DATA_TYPE POLYBENCH_2D(Q, M, N, m, n))
{
  int i, j;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (DATA_TYPE) ((3 * i + 5 * j) % 11) / 11 + 4 * (i == j);
      Q[i][j] = 0;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i][j] = 0;
}

static void print_array(int m, int n, DATA_TYPE POLYBENCH_2D(A, M, N, m, n), DATA_TYPE POLYBENCH_2D(R, N, N, n, n),
                        DATA_TYPE POLYBENCH_2D(Q, M, N, m, n))
{
  int i, j;
  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("R");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if ((i * n + j) % 20 == 0) fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, R[i][j]);
    }
  POLYBENCH_DUMP_END("R");
  POLYBENCH_DUMP_BEGIN("Q");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      if ((i * n + j) % 20 == 0) fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, Q[i][j]);
    }
  POLYBENCH_DUMP_END("Q");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_gramschmidt(int m, int n, DATA_TYPE POLYBENCH_2D(A, M, N, m, n),
                               DATA_TYPE POLYBENCH_2D(R, N, N, n, n), DATA_TYPE POLYBENCH_2D(Q, M, N, m, n))
{
  int i, j, k;
  DATA_TYPE nrm;
#pragma scop
  for (k = 0; k < _PB_N; k++) {
    nrm = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = SQRT_FUN(nrm);
    for (i = 0; i < _PB_M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < _PB_N; j++) {
      R[k][j] = SCALAR_VAL(0.0);
      for (i = 0; i < _PB_M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < _PB_M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int m = M;
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, M, N, m, n);
  POLYBENCH_2D_ARRAY_DECL(R, DATA_TYPE, N, N, n, n);
  POLYBENCH_2D_ARRAY_DECL(Q, DATA_TYPE, M, N, m, n);
  init_array(m, n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(R), POLYBENCH_ARRAY(Q));
  polybench_start_instruments;
  kernel_gramschmidt(m, n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(R), POLYBENCH_ARRAY(Q));
  polybench_stop_instruments;
  polybench_print_instruments;
  polybench_prevent_dce(print_array(m, n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(R), POLYBENCH_ARRAY(Q)));
  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(R);
  POLYBENCH_FREE_ARRAY(Q);
  return 0;
}
"""),
    # int, the upper triangle, a counter decides the line breaks
    ("medley", "nussinov"): ({"N": (60, 180, 500, 2500, 5500)}, "int", r"""
typedef char base;

static void init_array(int n, base POLYBENCH_1D(seq, N, n), DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j;
  for (i = 0; i < n; i++)
    seq[i] = (base) ((i * 7 + 1) % 4);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = 0;
}

static void print_array(int n, DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j;
  int t = 0;
  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("table");
  for (i = 0; i < n; i++)
    for (j = i; j < n; j++) {
      if (t % 20 == 0) fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, table[i][j]);
      t++;
    }
  POLYBENCH_DUMP_END("table");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_nussinov(int n, base POLYBENCH_1D(seq, N, n), DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j, k;
#pragma scop
  for (i = _PB_N - 1; i >= 0; i--)
    for (j = i + 1; j < _PB_N; j++) {
      table[i][j] = table[i + 1][j] > table[i][j - 1] ? table[i + 1][j] : table[i][j - 1];
      if (seq[i] + seq[j] == 3 && table[i + 1][j - 1] + 1 > table[i][j])
        table[i][j] = table[i + 1][j - 1] + 1;
      for (k = i + 1; k < j; k++)
        if (table[i][k] + table[k + 1][j] > table[i][j])
          table[i][j] = table[i][k] + table[k + 1][j];
    }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  POLYBENCH_1D_ARRAY_DECL(seq, base, N, n);
  POLYBENCH_2D_ARRAY_DECL(table, DATA_TYPE, N, N, n, n);
  init_array(n, POLYBENCH_ARRAY(seq), POLYBENCH_ARRAY(table));
  polybench_start_instruments;
  kernel_nussinov(n, POLYBENCH_ARRAY(seq), POLYBENCH_ARRAY(table));
  polybench_stop_instruments;
  polybench_print_instruments;
  (*table)[0][n - 1] += IEPS;
  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(table)));
  POLYBENCH_FREE_ARRAY(seq);
  POLYBENCH_FREE_ARRAY(table);
  return 0;
}
"""),
    # float data ("%0.2f "), 2D, a value then a line break (no break before the first)
    ("medley", "deriche"): ({"W": (64, 192, 720, 4096, 7680), "H": (64, 128, 480, 2160, 4320)}, "float", r"""
static void init_array(int w, int h, DATA_TYPE POLYBENCH_2D(imgIn, W, H, w, h))
{
  int i, j;
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
      imgIn[i][j] = (DATA_TYPE) ((17 * i + 29 * j) % 257) / 256.0f;
}

static void print_array(int w, int h, DATA_TYPE POLYBENCH_2D(imgOut, W, H, w, h))
{
  int i, j;
  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("imgOut");
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++) {
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, imgOut[i][j]);
      if ((i * h + j) % 20 == 19) fprintf(POLYBENCH_DUMP_TARGET, "\n");
    }
  POLYBENCH_DUMP_END("imgOut");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_deriche(int w, int h, DATA_TYPE alpha, DATA_TYPE POLYBENCH_2D(imgIn, W, H, w, h),
                           DATA_TYPE POLYBENCH_2D(imgOut, W, H, w, h))
{
  int i, j;
  DATA_TYPE a = SCALAR_VAL(1.0) - alpha;
#pragma scop
  for (i = 0; i < _PB_W; i++) {
    imgOut[i][0] = imgIn[i][0];
    for (j = 1; j < _PB_H; j++)
      imgOut[i][j] = a * imgIn[i][j] + alpha * imgOut[i][j - 1];
  }
  for (j = 0; j < _PB_H; j++)
    for (i = 1; i < _PB_W; i++)
      imgOut[i][j] = a * imgOut[i][j] + alpha * imgOut[i - 1][j];
#pragma endscop
}

int main(int argc, char **argv)
{
  int w = W;
  int h = H;
  POLYBENCH_2D_ARRAY_DECL(imgIn, DATA_TYPE, W, H, w, h);
  POLYBENCH_2D_ARRAY_DECL(imgOut, DATA_TYPE, W, H, w, h);
  init_array(w, h, POLYBENCH_ARRAY(imgIn));
  polybench_start_instruments;
  kernel_deriche(w, h, SCALAR_VAL(0.25), POLYBENCH_ARRAY(imgIn), POLYBENCH_ARRAY(imgOut));
  polybench_stop_instruments;
  polybench_print_instruments;
  polybench_prevent_dce(print_array(w, h, POLYBENCH_ARRAY(imgOut)));
  POLYBENCH_FREE_ARRAY(imgIn);
  POLYBENCH_FREE_ARRAY(imgOut);
  return 0;
}
"""),
}


def make_pb421_suite(root: Path, names: tuple[str, ...] | None = None) -> Path:
    """The 4.2.1-layout tree above under ``root`` (only ``names`` when given)."""
    (root / "utilities").mkdir(parents=True)
    (root / "utilities" / "polybench.h").write_text(PB421_H)
    (root / "utilities" / "polybench.c").write_text(PB421_C)
    for (category, name), (sizes, dtype, body) in PB421_KERNELS.items():
        if names is not None and name not in names:
            continue
        d = root / category / name
        d.mkdir(parents=True)
        (d / f"{name}.h").write_text(pb421_header(name.upper(), sizes, dtype))
        (d / f"{name}.c").write_text(PB421_PROLOGUE.replace("NAME", name) + body)
    return root



def _s2s_cc_state() -> str | None:
    tool = Path(sys.executable).parent / "s2s-cc"
    if not tool.exists():
        return f"{tool} not installed"
    if importlib.util.find_spec("s2s.driver.cc") is None:
        return "s2s.driver.cc (s2s-cc) not written yet"
    return None


def _tree_digest(root: Path) -> dict[str, str]:
    import hashlib
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@needs_cc
def test_pb421_layouts_verify_at_full_precision(tmp_path, capsys):
    """Every dump layout of the 4.2.1 tree verifies (trisolv's first value on the `begin dump` line
    included); a value that differs in the 5th decimal, invisible in the 2 decimals the tree
    prints, is a mismatch; an int kernel compares exactly; the sources stay untouched."""
    suite = make_pb421_suite(tmp_path / "PolyBenchC-4.2.1")
    before = _tree_digest(suite)
    rc, stdout, data, _ = bench(tmp_path, capsys, "--suite-dir", str(suite), "--dataset", "MINI",
                                "--repeat", "1", "--configs", "baseline", "--config", "o1=cc -O1",
                                "--config", "eps=cc -O3 -march=native -DEPS=1e-5 -DIEPS=1")
    assert _tree_digest(suite) == before
    got = cells(data)
    names = ("trisolv", "gramschmidt", "nussinov", "deriche")
    assert set(got) == {(k, c) for k in names for c in ("baseline", "o1", "eps")}
    for k in names:
        for c in ("baseline", "o1"):
            assert got[(k, c)]["status"] == "ok", (k, c, got[(k, c)]["message"])
    assert {k: got[(k, "o1")]["compare_mode"] for k in names} == {
        "trisolv": "rel", "gramschmidt": "rel", "nussinov": "exact", "deriche": "rel"}
    assert got[("gramschmidt", "eps")]["status"] == "ok" and got[("deriche", "eps")]["status"] == "ok"
    tri = got[("trisolv", "eps")]  # x[39] moves by 1e-5: both print 0.68 with 2 decimals
    assert tri["status"] == "mismatch" and "array x[39]" in tri["message"]
    assert 1e-6 < tri["max_rel_err"] < 1e-4 and tri["comparisons"][0]["max_abs_err"] < 0.005
    nus = got[("nussinov", "eps")]
    assert nus["status"] == "mismatch" and nus["compare_mode"] == "exact" and "table[" in nus["message"]
    assert rc != 0 and "only 2 decimals" not in stdout and "fprintf shim" in stdout
    # the trisolv layout indeed puts its first value on the `begin dump` line
    dump = (tmp_path / "out" / "build" / "trisolv" / "baseline" / "dump.txt").read_text()
    assert re.search(r"^begin dump: x-?[0-9]", dump, re.M), dump[:200]


@needs_cc
@pytest.mark.skipif(_s2s_cc_state() is not None, reason=str(_s2s_cc_state()))
def test_pb421_every_configuration_builds_with_the_shim(tmp_path, capsys):
    """s2s-cc (sequential and OpenMP), clang-14 with Polly, and Pluto's flow (a stand-in polycc given
    as a relative path) build the 4.2.1 tree's dump binaries with the shim and verify."""
    suite = make_pb421_suite(tmp_path / "pb", names=("trisolv", "nussinov"))
    (tmp_path / "polycc").write_text('#!/bin/sh\n# polycc IN --tile --parallel -o OUT\ncp "$1" "$5"\n')
    (tmp_path / "polycc").chmod(0o755)
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        rc, stdout, data, _ = bench(tmp_path, capsys, "--suite-dir", str(suite), "--dataset", "MINI",
                                    "--repeat", "1", "--configs", "baseline,s2s-seq,s2s-omp,polly,pluto",
                                    "--pluto", "./polycc")
    finally:
        os.chdir(cwd)
    ran = {c["name"] for c in data["configs"] if c["available"] and c["role"] == "timed"}
    assert {"baseline", "s2s-seq", "s2s-omp", "pluto"} <= ran
    got = cells(data)
    for (k, c), r in got.items():
        assert r["status"] == "ok", (k, c, r["message"])
        assert "-include" in r["build"]["dump"]["command"]
        assert r["compare_mode"] == ("exact" if k == "nussinov" else "rel") or c == "baseline"
    assert rc == 0, stdout
    for log in (tmp_path / "out" / "build").glob("*/s2s-*/build-dump.log"):
        assert "optimization skipped" not in log.read_text(), log


def test_parse_dump_layouts():
    """Values on the `begin dump` line, no line breaks, several arrays, ints glued to the name."""
    from polybench.harness.dump_shim import MARKER

    text = ("==BEGIN DUMP_ARRAYS==\nbegin dump: x0.5 \n1.5 -2e-05 \nend   dump: x\n"
            "begin dump: x1-3 4\nend   dump: x1\nbegin dump: table12 7 \nend   dump: table\n"
            "begin dump: R\n\nnan 1\nend   dump: R\nbegin dump: E\nend   dump: E\n==END   DUMP_ARRAYS==\n")
    d = parse_dump(text, detect_decimals=True)
    assert list(d.arrays) == ["x", "x1", "table", "R", "E"] and not d.full_precision
    assert d.arrays["x"].tolist() == [0.5, 1.5, -2e-05] and d.arrays["x1"].tolist() == [-3, 4]
    assert d.arrays["table"].tolist() == [12, 7] and d.arrays["E"].size == 0
    assert parse_dump(text, integer=True).arrays["table"].dtype.kind == "i"
    two = "==BEGIN DUMP_ARRAYS==\nbegin dump: x0.50 \n1.25\nend   dump: x\n==END   DUMP_ARRAYS==\n"
    assert parse_dump(two, detect_decimals=True).decimals == 2
    full = parse_dump(f"{MARKER}\n{two}", detect_decimals=True)  # the shim printed them: no guessing
    assert full.decimals is None and full.full_precision
    for bad in ("begin dump: A\n1\nend   dump: B\n", "begin dump: AB\n1\nend   dump: A\n",
                "1 2\nend   dump: A\n", "begin dump: A\n1\nbegin dump: B\n2\nend   dump: B\n"):
        with pytest.raises(DumpError):
            parse_dump(f"==BEGIN DUMP_ARRAYS==\n{bad}==END   DUMP_ARRAYS==\n")


@needs_cc
def test_dump_shim_formats(tmp_path):
    """The shim: floating-point conversions at %.17g inside the dump only, everything else as the
    format says, values never run together."""
    from polybench.harness.dump_shim import MARKER, shim_flags

    src = tmp_path / "t.c"
    src.write_text(textwrap.dedent(r"""
        #include <stdio.h>
        int main(void) {
          double d = 1.0 / 3; float f = 2.0f / 3; long double q = 0.1L; long l = -7;
          fprintf(stderr, "before %0.2lf\n", d);
          fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
          fprintf(stderr, "begin dump: %s", "x");
          fprintf(stderr, "%0.2lf ", d);
          fprintf(stderr, "%0.2f", f);
          fprintf(stderr, "%8.3e|%Lf|%d %5ld %*d %.*s %%|%c\n", d, q, 42, l, 4, 3, 2, "abc", 'z');
          fprintf(stderr, "\nend   dump: %s\n", "x");
          fprintf(stderr, "==END   DUMP_ARRAYS==\n");
          fprintf(stderr, "after %0.2lf\n", d);
          return 0;
        }
        """))
    for cc in ("cc", "clang-14"):
        if shutil.which(cc) is None:
            continue
        exe = tmp_path / f"t-{cc}"
        # _FORTIFY_SOURCE makes glibc's fprintf an inline function (gcc) or a macro (clang)
        subprocess.run([cc, "-O3", "-D_FORTIFY_SOURCE=2", "-Wall", "-Wextra", "-Werror", *shim_flags(tmp_path),
                        str(src), "-o", str(exe)],
                       check=True, capture_output=True)
        err = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stderr
        assert err.splitlines()[:3] == ["before 0.33", MARKER, "==BEGIN DUMP_ARRAYS=="]
        assert err.splitlines()[3].startswith("begin dump: x0.33333333333333331 0.66666668653488159 "
                                              "0.33333333333333331 |0.100000000000000000001 |42    -7    3 ab %|z")
        assert err.splitlines()[-1] == "after 0.33"
        values = err.splitlines()[3].split()[2:5]  # "x0.333..." "0.666..." "0.333...|"
        assert float(values[1]) == float(np.float32(2) / np.float32(3))  # a float, exactly
        assert float(values[2]) == 1 / 3  # a double, exactly


# --- our suite ---------------------------------------------------------------------------------------

@needs_suite
@pytest.mark.skipif(_s2s_cc_state() is not None, reason=str(_s2s_cc_state()))
def test_baseline_and_identity_verify(tmp_path, capsys):
    rc, stdout, data, rows = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1",
                                   "--kernels", "gemm,atax,floyd-warshall", "--configs", "baseline,identity")
    got = cells(data)
    assert set(got) == {(k, c) for k in ("gemm", "atax", "floyd-warshall") for c in ("baseline", "identity")}
    bad = {k: (r["status"], r["message"]) for k, r in got.items() if r["status"] != "ok"}
    assert not bad and rc == 0, stdout
    assert got[("floyd-warshall", "identity")]["compare_mode"] == "exact"
    assert got[("gemm", "identity")]["compare_mode"] == "rel"
    ident = next(c for c in data["configs"] if c["name"] == "identity")
    assert ident["env"] == {"S2S_MODE": "identity"} and ident["argv"][0].endswith("s2s-cc")
    assert "✓" in stdout and "geomean" in stdout


@needs_suite
def test_wrong_config_is_a_mismatch(tmp_path, capsys):
    wrong = perturbing_compiler(tmp_path)
    rc, stdout, data, _ = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1", "--kernels", "gemm",
                                "--configs", "baseline", "--config", f"wrong={wrong}")
    assert rc != 0
    got = cells(data)
    assert got[("gemm", "baseline")]["status"] == "ok"
    r = got[("gemm", "wrong")]
    assert r["status"] == "mismatch" and not r["verified"] and r["speedup"] is None and not r["times_s"]
    assert r["max_rel_err"] > 1e-6 and "vs baseline" in r["message"]
    assert "FAILED gemm / wrong: MISMATCH" in stdout
    assert data["geomean_speedup"]["wrong"]["points"] == 0


@needs_suite
def test_csv_json_metadata_and_plot(tmp_path, capsys):
    plot = tmp_path / "chart.svg"
    rc, stdout, data, rows = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "2", "--kernels",
                                   "gemm,atax", "--configs", "baseline,polly,polly-seq", "--config", "o2=cc -O2",
                                   "--csv", str(tmp_path / "x.csv"), "--json", str(tmp_path / "x.json"),
                                   "--plot", str(plot), "--threads", "1")
    assert rc == 0, stdout
    m = data["machine"]
    assert m["cpu_model"] and m["threads"] >= 1 and m["memory_bytes"] > 0 and isinstance(m["caches"], list)
    assert data["compilers"]["cc"] and "clang-14" in data["compilers"]
    assert data["options"]["dataset"] == "MINI" and data["options"]["threads"] == 1
    assert data["date"] and data["s2s"]["version"]
    if (REPO / ".git").exists():
        assert len(data["s2s"]["git_commit"]) == 40
    base = next(c for c in data["configs"] if c["name"] == "baseline")
    assert base["argv"] == ["cc", "-O3", "-march=native"]
    polly = next(c for c in data["configs"] if c["name"] == "polly")
    assert polly["available"] or polly["unavailable"]
    polly_seq = next(c for c in data["configs"] if c["name"] == "polly-seq")
    assert "-fopenmp" not in polly_seq["argv"] and "-polly-parallel" not in polly_seq["argv"]
    for r in cells(data).values():
        assert r["status"] == "ok" and 2 <= len(r["times_s"]) <= 20 and r["median_s"] is not None
        assert r["sizes"] and r["flops"] > 0
        assert "-DMINI_DATASET" in r["build"]["timed"]["command"]
        assert "-DPOLYBENCH_DUMP_FULL_PRECISION" in r["build"]["dump"]["command"]
    ran = {"baseline", "o2"} | {c["name"] for c in (polly, polly_seq) if c["available"]}
    assert len(rows) == 2 * len(ran)
    for row in rows:
        for key in ("date", "git_commit", "dataset", "kernel", "sizes", "config", "status", "verified",
                    "median_s", "command", "cpu_model", "cc_version"):
            assert key in row
        assert row["dataset"] == "MINI" and row["status"] == "ok" and row["verified"] == "True"
        assert "-O" in row["command"] and "=" in row["sizes"] and row["cc_version"]
    assert (tmp_path / "x.csv").stat().st_size > 0 and json.loads((tmp_path / "x.json").read_text())
    for p in (plot, plot.with_suffix(".png"), tmp_path / "out" / "speedup.png", tmp_path / "out" / "speedup.svg"):
        assert p.stat().st_size > 1000, p


@needs_suite
def test_unknown_kernel_and_missing_compiler(tmp_path, capsys):
    rc, stdout, data, _ = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1",
                                "--kernels", "gemm,no-such-kernel", "--configs", "baseline",
                                "--config", "ghost=/nonexistent/bin/cc -O2")
    assert rc != 0
    assert "UNKNOWN KERNEL: 'no-such-kernel'" in stdout and data["unknown_kernels"]
    got = cells(data)
    assert got[("gemm", "baseline")]["status"] == "ok"  # the run went on
    ghost = got[("gemm", "ghost")]
    assert ghost["status"] == "build-failed" and "compiler not found: /nonexistent/bin/cc" in ghost["message"]
    assert "BUILD FAILED" in stdout


@needs_suite
def test_size_sweep_one_row_per_size(tmp_path, capsys):
    rc, stdout, data, rows = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1", "--kernels", "gemm",
                                   "--configs", "baseline", "--size", "NI=8:24:8")
    assert rc == 0, stdout
    assert [r["swept"] for r in rows] == ["NI=8", "NI=16", "NI=24"]
    assert [r["sizes"]["NI"] for r in data["results"] if r["role"] != "noise"] == [8, 16, 24]
    from polybench import registry
    others = {k: v for k, v in registry.sizes_for(registry.KERNELS["gemm"], "MINI").items() if k != "NI"}
    for r in data["results"]:  # the fp-noise probe too
        assert {k: v for k, v in r["sizes"].items() if k != "NI"} == others
        assert all(f"-D{k}=" in r["build"]["dump"]["command"] for k in r["sizes"])  # all params together


@needs_suite
def test_kernel_regex_selection_and_list(tmp_path):
    from polybench.harness.suite import load_suite

    suite = load_suite()
    picked, unknown = select_kernels(suite, "gem.*,atax,zzz")
    assert {"gemm", "gemver", "atax"} <= {k.name for k in picked} and unknown == ["zzz"]
    p = subprocess.run([sys.executable, "-m", "polybench", "--list", "--dataset", "MINI"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "gemm" in p.stdout and "baseline" in p.stdout and "reference-O0" in p.stdout


@needs_suite
def test_pluto_configuration_runs_polycc_first(tmp_path, capsys):
    """A stand-in polycc (copies the kernel, as Pluto would write its transformed copy) is run with
    Pluto's options; its output is what gets compiled, verified and timed."""
    polycc = tmp_path / "polycc"
    polycc.write_text('#!/bin/sh\n# polycc IN --tile --parallel -o OUT\n'
                      'echo "$@" > "$(dirname "$5")/args"\ncp "$1" "$5"\n')
    polycc.chmod(0o755)
    rc, stdout, data, _ = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1", "--kernels", "atax",
                                "--configs", "baseline,pluto", "--pluto", str(polycc))
    got = cells(data)
    assert rc == 0 and got[("atax", "pluto")]["status"] == "ok", stdout
    args = next((tmp_path / "out").rglob("args")).read_text().split()
    assert args[1:4] == ["--tile", "--parallel", "-o"] and args[4].endswith("atax.pluto.c")


def test_pluto_configuration_needs_polycc(tmp_path, capsys):
    from polybench.harness import configs
    cfg = configs.CONFIGS["pluto"].make(configs.ConfigContext())
    assert not cfg.available and "--pluto" in cfg.unavailable


@needs_suite
def test_tuned_and_transfer_configurations_read_the_recipe_database(tmp_path, capsys, monkeypatch):
    """s2s-tuned replays atax's own row; s2s-transfer may not (leave-one-out), and with no other
    kernel in the database keeps the rules'. Both verified like any build."""
    from polybench.harness import configs
    from polybench.registry import KERNELS, SUITE_ROOT, kernel_source
    from s2s.perf.features import FEATURES_VERSION, scop_features
    from s2s.tuning import NestRecord, RecipeDB, machine_fingerprint
    from s2s.tuning.tuner import default_recipes, polybench_program

    missing = configs.CONFIGS["s2s-tuned"].make(configs.ConfigContext(tools={"recipe-db": str(tmp_path / "no")}))
    assert not missing.available and "no recipe database" in missing.unavailable
    source = kernel_source(KERNELS["atax"])
    f = next(f for f in scop_features(source, [f"-I{SUITE_ROOT / 'utilities'}", "-DMINI_DATASET"])
             if f.function == "kernel_atax")
    steps = next(r.steps for r in default_recipes(polybench_program("atax", "MINI", openmp=True)).recipes
                 if r.scop == f.scop)
    recipe = [s.as_dict() for s in steps]
    db = tmp_path / "recipes.sqlite"
    with RecipeDB(db) as rows:
        rows.add(NestRecord(scop=f.scop, function=f.function, program="polybench/atax", target="openmp",
                            machine=machine_fingerprint(), params={}, dataset="MINI", features_version=FEATURES_VERSION,
                            features={}, statements=f.statements, machine_features={}, recipe=recipe,
                            default_recipe=recipe, default_seconds=1.0, tuned_seconds=1.0))
    rc, stdout, data, _ = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1", "--kernels", "atax",
                                "--configs", "baseline,s2s-tuned,s2s-transfer", "--recipe-db", str(db))
    got = cells(data)
    assert rc == 0 and got[("atax", "s2s-tuned")]["status"] == "ok", stdout
    assert got[("atax", "s2s-transfer")]["status"] == "ok", stdout
    assert "--s2s-tune-exclude=polybench/atax" in got[("atax", "s2s-transfer")]["build"]["timed"]["command"]


def test_short_kernels_get_more_rounds():
    from polybench.harness.bench import Bench, Cell, Options

    bench = Bench(suite=None, configs=[], points=[], options=Options(repeat=5), progress=None)

    def cells(*medians):
        return [Cell(point=None, config=None, status="ok", times=[m] * 5) for m in medians]

    assert bench.short_run_rounds(cells(0.2, 0.05)) == 5          # the slowest configuration decides
    assert bench.short_run_rounds(cells(0.05, 0.04)) == 20        # 1 s of runs each
    assert bench.short_run_rounds(cells(0.0005, 0.0004)) == 50    # at most 10 x repeat
    assert bench.short_run_rounds(cells()) == 5


@needs_suite
def test_busy_machine_measurement(tmp_path, capsys):
    from polybench.harness.load import competing_load
    rc, stdout, data, _ = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1", "--kernels", "atax",
                                "--configs", "baseline", "--busy", "1")
    assert rc == 0 and data["options"]["busy"] == 1 and "1 busy processes alongside" in stdout
    with competing_load(2) as spinners:
        assert len(spinners) == 2
        assert all(os.path.exists(f"/proc/{pid}") for pid in spinners)
    # Killed and reaped: their ids are gone (other processes may match any name, so test by id).
    assert not any(os.path.exists(f"/proc/{pid}") for pid in spinners)
