"""Loop nests over ``size_t`` and ``unsigned`` counters and sizes: the optimized code's bounds,
conditions and run-time tests are computed as the model computes them, in signed arithmetic
(isl writes ``-n + c1 + 3`` and ``max(0, k - c1 + 1)``, which C would take modulo 2^64 in an
unsigned type), and the statements still compute in the user's types. Each program is built with
gcc as written and through s2s-cc, tiled and jammed everywhere (profitability off) and by the
rules, one thread and OpenMP, and run at sizes where the new bounds go below zero."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from c_build import REAL_CC, s2s_cc_path, s2s_env

MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
%s
int main(int argc, char **argv)
{
  size_t n = (size_t)atol(argv[1]), T = (size_t)atol(argv[2]);
  double *a = malloc(sizeof(double) * (n * n + 1)), *b = malloc(sizeof(double) * (n * n + 1));
  for (size_t i = 0; i < n * n + 1; i++) { a[i] = (double)(i %% 13) + 1.0 / (1.0 + (double)i); b[i] = (double)(i %% 7); }
  kernel(a, b, n, T);
  double s = 0.0;
  for (size_t i = 0; i < n * n + 1; i++) s += a[i] * (double)(i %% 5) + b[i];
  printf("%%a\n", s);
  return 0;
}
"""

KERNELS = {
    # right-looking LU: the tiled bounds subtract the outer counter
    "lu": """
void kernel(double *m, double *unused, size_t n, size_t T)
{
  (void)unused; (void)T;
  for (size_t k = 0; k < n; k++) {
    double piv = m[k * n + k];
    for (size_t i = k + 1; i < n; i++)
      m[i * n + k] /= piv;
    for (size_t i = k + 1; i < n; i++)
      for (size_t j = k + 1; j < n; j++)
        m[i * n + j] -= m[i * n + k] * m[k * n + j];
  }
}""",
    # in place: a time loop jammed by four runs T - 3 times in the user's type
    "seidel": """
void kernel(double *a, double *unused, size_t n, size_t T)
{
  (void)unused;
  for (size_t t = 0; t < T; t++)
    for (size_t i = 1; i < n - 1; i++)
      for (size_t j = 1; j < n - 1; j++)
        a[i * n + j] = (a[(i - 1) * n + j] + a[i * n + j - 1] + a[i * n + j] + a[i * n + j + 1] + a[(i + 1) * n + j]) * 0.2;
}""",
    # time tiles of two sweeps over vectors
    "jacobi1d": """
void kernel(double *a, double *b, size_t n, size_t T)
{
  for (size_t t = 0; t < T; t++) {
    for (size_t i = 1; i < n - 1; i++)
      b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
    for (size_t i = 1; i < n - 1; i++)
      a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
  }
}""",
    # long counters, unsigned sizes; a statement that wraps as written (i - 3 at i < 3)
    "heat": """
void kernel(double *a, double *b, size_t n, size_t T)
{
  for (long t = 0; t < (long)T; t++) {
    for (long i = 1; i < (long)n - 1; i++)
      for (long j = 1; j < (long)n - 1; j++)
        b[i * n + j] = 0.2 * (a[i * n + j] + a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
    for (size_t i = 1; i < n - 1; i++)
      for (size_t j = 1; j < n - 1; j++)
        a[i * n + j] = 0.2 * (b[i * n + j] + b[(i - 1) * n + j] + b[(i + 1) * n + j] + b[i * n + j - 1]
                              + b[i * n + j + 1]) + (double)((i - 3) >> 60);
  }
}""",
}

SIZES = [(1, 1), (2, 3), (3, 2), (5, 1), (7, 5), (40, 3), (70, 6)]


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("flags", [[], ["-fopenmp"], ["--s2s-profitability=off"], ["-fopenmp", "--s2s-profitability=off"]],
                         ids=["seq", "omp", "seq-all", "omp-all"])
def test_unsigned_counters_compute_what_the_loops_compute(kernel, flags, tmp_path):
    src = tmp_path / f"{kernel}.c"
    src.write_text(MAIN % KERNELS[kernel])
    openmp = [f for f in flags if f == "-fopenmp"]
    subprocess.run([REAL_CC, "-O2", *openmp, str(src), "-o", str(tmp_path / "ref")], check=True)
    built = subprocess.run([str(s2s_cc_path()), "-O2", *flags, "--s2s-report", str(src), "-o", str(tmp_path / "opt")],
                           env=s2s_env(mode="pluto"), capture_output=True, text=True, check=True)
    assert "note:" not in built.stderr, built.stderr
    assert any("kernel: SCoP" in line and "optimized" in line for line in built.stderr.splitlines()) \
        or "profitability" not in " ".join(flags), built.stderr
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    for n, steps in SIZES:
        args = [str(n), str(steps)]
        ref = subprocess.run([str(tmp_path / "ref"), *args], capture_output=True, text=True, timeout=60, env=env)
        out = subprocess.run([str(tmp_path / "opt"), *args], capture_output=True, text=True, timeout=60, env=env)
        assert (out.returncode, out.stdout) == (ref.returncode, ref.stdout), (n, steps, built.stderr)


WRAPPING = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
  unsigned n = (unsigned)atoi(argv[1]);
  double *x = malloc((n + 8) * sizeof *x);
  for (unsigned q = 0; q < n + 8; q++)
    x[q] = q;
  for (unsigned q = n - 1; q < n; q--)          /* ends by wrapping past 0 */
    x[q] = 0.5 * x[q] + 1.0;
  for (unsigned q = n - 5; q < n; q++)          /* from n - 5 wrapped (none) where n < 5 */
    x[q + 4] = x[q + 3] * 0.25 + x[q + 4];
  double s = 0.0;
  for (unsigned q = 0; q < n + 8; q++)
    s += x[q] * (double)(q % 3 + 1);
  printf("%a\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("mode", ["isl", "pluto"])
def test_loops_that_end_by_wrapping_are_not_modelled_as_integers(mode, tmp_path):
    src = tmp_path / "wrap.c"
    src.write_text(WRAPPING)
    subprocess.run([REAL_CC, "-O2", str(src), "-o", str(tmp_path / "ref")], check=True)
    built = subprocess.run([str(s2s_cc_path()), "-O2", "--s2s-profitability=off", "--s2s-report", str(src), "-o",
                            str(tmp_path / "opt")], env=s2s_env(mode=mode), capture_output=True, text=True, check=True)
    # (the first loop's start, n - 1 at n = 0, or its counter past 0: either wraps)
    assert "unsigned arithmetic in the bounds of loop q may wrap around" in built.stderr, built.stderr
    for n in (0, 1, 3, 4, 5, 6, 40):
        ref = subprocess.run([str(tmp_path / "ref"), str(n)], capture_output=True, text=True, timeout=30)
        out = subprocess.run([str(tmp_path / "opt"), str(n)], capture_output=True, text=True, timeout=30)
        assert (out.returncode, out.stdout) == (ref.returncode, ref.stdout), (n, built.stderr)


GUARDED = r"""
#include <stdio.h>
#include <stdlib.h>
static float c[4][64];
int main(int argc, char **argv)
{
  unsigned n = (unsigned)atoi(argv[1]);
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < 3; j++)
      if ((j - 1) % 3 == 0)                 /* at j = 0: 4294967295 % 3 == 0 */
        c[j + 1][i] += 1.0f + i;
  for (int i = -1; i + 1 < (int)n; i++)     /* a signed counter compared as unsigned */
    if (i < n)
      c[0][i + 1] += 2.0f;
  double s = 0.0;
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < 64; i++)
      s += c[r][i] * (r + 1) * (i % 5 + 1);
  printf("%a\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("mode", ["isl", "pluto"])
def test_unsigned_subexpressions_are_modelled_only_where_they_do_not_wrap(mode, tmp_path):
    """``(j - 1) % 3`` of an unsigned j, and a signed counter compared with an unsigned size, keep
    C's values only where no operand is negative: elsewhere the nest stays as it is (found by the
    fuzzer's first campaign with unsigned counters, tests/fuzz_regressions/unsigned_modulo_wraps.c)."""
    src = tmp_path / "guarded.c"
    src.write_text(GUARDED)
    subprocess.run([REAL_CC, "-O2", "-Wno-sign-compare", str(src), "-o", str(tmp_path / "ref")], check=True)
    built = subprocess.run([str(s2s_cc_path()), "-O2", "--s2s-profitability=off", "--s2s-report", str(src), "-o",
                            str(tmp_path / "opt")], env=s2s_env(mode=mode), capture_output=True, text=True, check=True)
    assert "unsigned arithmetic in a condition may wrap around" in built.stderr, built.stderr
    for n in (0, 1, 2, 5, 64):
        ref = subprocess.run([str(tmp_path / "ref"), str(n)], capture_output=True, text=True, timeout=30)
        out = subprocess.run([str(tmp_path / "opt"), str(n)], capture_output=True, text=True, timeout=30)
        assert (out.returncode, out.stdout) == (ref.returncode, ref.stdout), (n, built.stderr)
