"""Calls of static helpers that loop, replaced by the helper's statements (frontends/c/inline_loops.py):
the nests around them become SCoPs, the programs print what gcc's builds print (one thread and
OpenMP), and helpers outside what is handled stay calls."""
from __future__ import annotations

import pytest
from pycparser import c_generator

from c_build import optimized_and_both_outputs
from frontends.c.inline_loops import inlined_call
from frontends.c.parse import parse

PROGRAM = """
#include <stdio.h>
#include <stddef.h>
#define N 160
double a[N * N], b[N * N], d[N * N];
double scale = 0.5;
{helpers}
int main(void)
{{
  for (int i = 0; i < N * N; i++)
    a[i] = (double)((i * 37) % 101) / 101.0, b[i] = (double)((i * 13) % 29) - 14.0;
  kernel(N, a, b, d);
  double s = 0.0;
  for (int i = 0; i < N * N; i++)
    s += d[i] * ((i % 7) + 1);
  printf("%.17g\\n", s);
  return 0;
}}
"""

HELPERS = {
    "a dot product of two rows (B transposed)": """
static inline double dot(const double *x, const double *y, size_t n)
{
  double s = 0.0;
  for (size_t k = 0; k < n; k++)
    s += x[k] * y[k];
  return s;
}
static void kernel(size_t n, const double *a, const double *b, double *d)
{
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      d[i * n + j] = dot(a + i * n, b + j * n, n);
}
""",
    "a strided sum with a counter of its own and a global": """
static double column_sum(const double *p, int count, int stride)
{
  double s = 0.0;
  while (count > 0) {
    s += scale * *p;
    p += stride;
    count--;
  }
  return s;
}
static void kernel(int n, const double *a, const double *b, double *d)
{
  for (int j = 0; j < n; j++)
    d[j] = column_sum(a + j, n, n) + b[j];
}
""",
    "a row's norm into a declared variable": """
static double norm2(const double *x, int m)
{
  double s = 0.0;
  for (int k = 0; k < m; k++)
    s += x[k] * x[k];
  return s;
}
static void kernel(int n, const double *a, const double *b, double *d)
{
  for (int i = 0; i < n; i++) {
    double r = norm2(a + i * n, n);
    d[i] = r > 1.0 ? b[i] / r : r;
  }
}
""",
    "a helper over a variably modified array, its extent an expression": """
static double block_sum(int m, const double x[m][m])
{
  double s = 0.0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++)
      s += x[i][j] * x[j][i];
  return s;
}
static void kernel(int n, const double *a, const double *b, double *d)
{
  for (int c = 0; c < 3; c++) {
    for (int i = 0; i < n; i++)
      d[i] = d[i] * 0.5 + b[i];
    d[n + c] = block_sum(n / 8 + c, (const double (*)[n / 8 + c])a);
  }
}
""",
}


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("name", list(HELPERS))
def test_helpers_that_loop_compute_what_gcc_computes(tmp_path, name, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "k.c", PROGRAM.format(helpers=HELPERS[name]), target)
    assert out == ref


@pytest.mark.parametrize("name", ["a dot product of two rows (B transposed)", "a row's norm into a declared variable"])
def test_a_helper_that_loops_makes_the_nest_a_scop(tmp_path, name):
    result, _, _ = optimized_and_both_outputs(tmp_path / "k.c", PROGRAM.format(helpers=HELPERS[name]), "openmp")
    (line,) = [line for line in result.report if ": kernel: " in line]
    assert "SCoP at" in line and "optimized" in line, line


def _inlined(helper: str, call: str, caller_locals: tuple[str, ...] = ("i", "n", "x")) -> str | None:
    ast = parse(f"double g; {helper}\nvoid f(int n, double *x) {{ int i; {call} }}", "t.c")
    definitions = {e.decl.name: e for e in ast.ext if type(e).__name__ == "FuncDef" and e.decl.name != "f"}
    item = ast.ext[-1].body.block_items[-1]
    taken: set[str] = set(caller_locals)

    def fresh(base: str) -> str:
        name = base
        while name in taken:
            name += "_"
        taken.add(name)
        return name

    found = inlined_call(item, definitions, fresh, lambda n: n in caller_locals, lambda n: "int", set())
    return None if found is None else " ".join(c_generator.CGenerator().visit(found).split())


SUM = "static double sum(const double *p, int m) { double s = 0; for (int k = 0; k < m; k++) s += p[k]; return s; }"


def test_parameters_become_views_or_their_arguments_and_locals_get_fresh_names():
    assert _inlined(SUM, "x[i] = sum(x + i, n);") == (
        "{ const double *p = x + i; double s = 0; for (int k = 0; k < n; k++) s += p[k]; x[i] = (double) s; }")
    # a caller's variable named like a helper's local: the local is renamed apart
    assert _inlined(SUM, "x[i] = sum(x, n);", caller_locals=("i", "n", "x", "s", "k")) == (
        "{ const double *p = x; double s_ = 0; for (int k_ = 0; k_ < n; k_++) s_ += p[k_]; x[i] = (double) s_; }")


@pytest.mark.parametrize("helper, call", [
    ("static double h(int m) { return m * 2.0; }", "x[i] = h(n);"),   # no loop: the expression inliner's
    ("static double h(int m) { for (int k = 0; k < m; k++) if (k > 3) return k; return 0; }", "x[i] = h(n);"),
    ("static double h(int m) { double s = 0; for (int k = 0; k < m; k++) s += g; return s; }", "x[i] = h(n);"),
    ("double h(int m) { double s = 0; for (int k = 0; k < m; k++) s += k; return s; }", "x[i] = h(n++);"),
    ("static double h(int m) { static double s; for (int k = 0; k < m; k++) s += k; return s; }", "x[i] = h(n);"),
])
def test_what_stays_a_call(helper, call):
    # (the third reads g, which the caller declares here: it would capture the name)
    assert _inlined(helper, call, caller_locals=("i", "n", "x", "g")) is None
