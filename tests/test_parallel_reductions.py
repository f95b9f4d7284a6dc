"""Outer loops run in parallel on copies of the scalars their body declares (``lastprivate``) and on
partial results of the scalars they reduce into (``reduction``), where the rules keep the user's
order under threads (polyhedral._user_order_in_parallel, private_copies.py, reductions.py).

Each program is built with gcc as written and as s2s makes it for OpenMP, and both print the same
(bit for bit where nothing is reassociated; to rounding where floating-point sums are, which only
``--s2s-reassociate`` / ``-ffast-math`` allows)."""
from __future__ import annotations

import re
import textwrap

import pytest

from c_build import outputs_of_both_builds
from s2s.analysis import find_scops, loop_reductions
from s2s.driver.cc import reassociation
from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from frontends.c import lift_c_file

MAIN = """
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
{kernel}
int main(void)
{{
  const int n = {n};
  double *a = malloc(sizeof(double) * n * n), *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  float *img = malloc(sizeof(float) * n * n);
  unsigned char *px = malloc((size_t)n * n);
  for (int i = 0; i < n * n; i++) {{
    a[i] = (double)((i * 37) % 101) / 101.0 - 0.3;
    img[i] = (float)((i * 13) % 97) / 97.0f;
    px[i] = (unsigned char)((i * 29 + 7) % 251);
  }}
  for (int i = 0; i < n; i++)
    x[i] = 1.0 / (i + 1.0), y[i] = 0.0;
{call}
  free(a); free(x); free(y); free(img); free(px);
  return 0;
}}
"""

# (name, kernel, call and print, what the OpenMP code must hold)
EXACT = [
    ("row sums into a declared scalar", """
static void matvec(int n, const double *a, const double *x, double *y)
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++)
      s += a[i * n + j] * x[j];
    y[i] = 2.0 * s;
  }
}
""", "  matvec(n, a, x, y);\n  for (int i = 0; i < n; i += 7) printf(\"%.17g\\n\", y[i]);", r"lastprivate\(s\)"),
    ("pair forces through declared temporaries", """
static void accel(int n, const double *pos, const double *mass, double *acc)
{
  for (int i = 0; i < n; i++) {
    double ai = 0.0;
    for (int j = 0; j < n; j++) {
      double d = pos[j] - pos[i];
      double w = mass[j] / sqrt(d * d + 0.01);   /* (a call read twice: w stays a temporary) */
      ai += d * w * w;
    }
    acc[i] = ai;
  }
}
""", "  accel(n, x, a, y);\n  for (int i = 0; i < n; i += 5) printf(\"%.17g\\n\", y[i]);", r"lastprivate\("),
    ("an integer checksum over a whole image", """
static unsigned long checksum(int n, const unsigned char *px)
{
  unsigned long sum = 0;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++)
      sum += (unsigned long)px[y * n + x] * (unsigned long)(x + 1);
  return sum;
}
""", "  printf(\"%lu\\n\", checksum(n, px));", r"reduction\(\+:sum\)"),
    ("an integer dot product and a float image temporary side by side", """
static long tone(int n, float *img, const unsigned char *px)
{
  long hits = 0;
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++) {
      float v = img[y * n + x] * 1.5f;
      img[y * n + x] = v / (1.0f + v);
      hits += px[y * n + x] * 3 - 1;
    }
  return hits;
}
""", "  printf(\"%ld\\n\", tone(n, img, px));\n  for (int i = 0; i < n * n; i += 997) printf(\"%.9g\\n\", img[i]);",
     r"reduction\(\+:hits\)"),
    ("pixels above a threshold counted, and the brightest", """
static long edges(int count, float *v, const unsigned char *px, float scale, int *brightest)
{
  long above = 0;
  int hi = 0;
  for (int i = 0; i < count; i++) {
    v[i] *= scale;
    above += v[i] > 0.7f;
    hi = px[i] > hi ? px[i] : hi;
  }
  *brightest = hi;
  return above;
}
""", "  int b;\n  long e = edges(n * n, img, px, 1.25f, &b);\n  printf(\"%ld %d\\n\", e, b);",
     r"reduction\(\+:above\) reduction\(max:hi\)"),
]


def _program(kernel: str, call: str, n: int = 400) -> str:
    return MAIN.format(kernel=kernel, call=call, n=n)


def _optimized(tmp_path, program: str, reassociate: bool = False):
    src = tmp_path / "k.c"
    src.write_text(program)
    return src, optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target="openmp", report=True,
                                                               reassociate=reassociate))


@pytest.mark.parametrize("name, kernel, call, pragma", EXACT, ids=[c[0] for c in EXACT])
def test_outer_loops_run_in_parallel_on_copies_and_integer_sums(tmp_path, name, kernel, call, pragma):
    src, result = _optimized(tmp_path, _program(kernel, call))
    assert re.search(r"#pragma omp parallel for[^\n]*" + pragma, result.source), "\n".join(result.report)
    ref, out = outputs_of_both_builds(src, result.source, openmp=True)
    assert out == ref


KINETIC = """
static double kinetic(int count, const double *m, const double *v)
{
  double e = 0.0;
  for (int i = 0; i < count; i++)
    e += 0.5 * m[i] * v[i] * v[i];
  return e;
}
static double spread(int n, const double *a)
{
  double lo = 0.0, sq = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double d = a[i * n + j] - 0.25;
      sq += d * d;
      lo -= a[i * n + j];
    }
  return sq + 1e-3 * lo;
}
static double peak(int count, const double *a)
{
  double m = -1.0;
  for (int i = 0; i < count; i++)
    m = fmax(m, a[i] * a[i]);
  return m;
}
"""
KINETIC_CALL = "  printf(\"%.17g\\n%.17g\\n%.17g\\n\", kinetic(n * n, a, a), spread(n, a), peak(n * n, a));"


def test_floating_point_sums_run_in_parallel_only_where_reassociation_is_allowed(tmp_path):
    program = _program(KINETIC, KINETIC_CALL)
    _, kept = _optimized(tmp_path, program)
    assert "reduction(" not in kept.source
    src, result = _optimized(tmp_path, program, reassociate=True)
    assert "reduction(+:e)" in result.source
    assert re.search(r"reduction\(\+:(lo, sq|sq, lo)\)", result.source), "\n".join(result.report)
    assert "reduction(max:m)" in result.source
    ref, out = outputs_of_both_builds(src, result.source, openmp=True)
    for r, o in zip(ref.split(), out.split(), strict=True):
        assert float(o) == pytest.approx(float(r), rel=1e-10)


# (kernel, call, why the outer loop stays in order)
KEPT = [
    # a running sum: every iteration reads the sum of those before it
    ("""
static void prefix(int n, const double *a, double *y)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      s += a[i * n + j];
      y[i] = s;
    }
}
""", "  prefix(n, a, y);\n  for (int i = 0; i < n; i += 7) printf(\"%.17g\\n\", y[i]);"),
    # a double term added to an integer is rounded after each update: an order of its own
    ("""
static long rounded(int n, const double *a)
{
  long c = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      c += a[i * n + j] * 10.0;
  return c;
}
""", "  printf(\"%ld\\n\", rounded(n, a));"),
    # a temporary of the previous row carried into the next
    ("""
static void carried(int n, const double *a, double *y)
{
  double last = 0.0;
  for (int i = 0; i < n; i++) {
    double s = last;
    for (int j = 0; j < n; j++)
      s += a[i * n + j];
    y[i] = s;
    last = s * 0.5;
  }
}
""", "  carried(n, a, y);\n  for (int i = 0; i < n; i += 7) printf(\"%.17g\\n\", y[i]);"),
]


@pytest.mark.parametrize("kernel, call", KEPT)
def test_loops_whose_iterations_pass_values_stay_in_order(tmp_path, kernel, call):
    src, result = _optimized(tmp_path, _program(kernel, call), reassociate=True)
    assert "#pragma omp parallel" not in result.source, "\n".join(result.report)
    ref, out = outputs_of_both_builds(src, result.source, openmp=True)
    assert out == ref


def test_a_reduction_is_one_operator_on_a_scalar_that_nothing_else_touches(tmp_path):
    src = tmp_path / "r.c"
    src.write_text(textwrap.dedent("""
        #include <math.h>
        void r(int n, int *a, int *b, double *x, int *out, double *y)
        {
          int s = 0, p = 1, t = 0, hi = 0, lo = 0;
          double m = 0.0, e = 0.0;
          long c = 0;
          for (int i = 0; i < n; i++) {
            s += a[i];
            s -= b[i];
            p *= a[i];
            t += a[i];
            t *= 2;
            hi = a[i] > hi ? a[i] : hi;
            lo = lo <= b[i] ? lo : b[i];
            m = fmax(m, x[i]);
            e = x[i] * x[i] + e;
            c += x[i] > 0.5;
            out[3] += a[i];
          }
          out[0] = s; out[1] = p; out[2] = t; out[4] = hi + lo + c; y[0] = m + e;
        }
    """))
    unit, _ = lift_c_file(str(src), [])
    (scop,) = find_scops(unit.functions[0])
    (loop,) = scop.loops
    names = {"s", "p", "t", "hi", "lo", "m", "e", "c", "out"}
    exact = {"s": "+", "p": "*", "hi": "max", "lo": "min", "c": "+"}
    assert loop_reductions(scop, loop, names, floats=False) == exact
    assert loop_reductions(scop, loop, names, floats=True) == {**exact, "m": "max", "e": "+"}


@pytest.mark.parametrize("args, expected", [
    (["-O2"], False), (["-O2", "-ffast-math"], True), (["-Ofast"], True), (["-fassociative-math"], True),
    (["-ffast-math", "-fno-fast-math"], False), (["-Ofast", "-fno-associative-math"], False),
])
def test_reassociation_follows_the_compiler_flags(args, expected):
    assert reassociation(args) is expected
