"""``if (c) continue;`` in a loop body as a condition on the statements after it
(frontends/c/loop_continues.py): the nests become SCoPs, and every program prints what gcc's
build of it prints, as s2s makes it for one thread and for OpenMP."""
from __future__ import annotations

import pytest
from pycparser import c_generator

from c_build import optimized_and_both_outputs
from frontends.c.loop_continues import without_continues
from frontends.c.parse import parse

PROGRAM = """
#include <stdio.h>
#define N 300
double x[N], m[N], a[N], img[N][N], out[N][N];
{kernel}
int main(void)
{{
  for (int i = 0; i < N; i++) {{
    x[i] = (double)((i * 37) % 101) / 101.0;
    m[i] = 1.0 + (i % 7);
    for (int j = 0; j < N; j++)
      img[i][j] = (double)((i * 13 + j * 7) % 29) - 14.0;
  }}
  kernel();
  double s = 0.0;
  for (int i = 0; i < N; i++) {{
    s += a[i] * (i + 1);
    for (int j = 0; j < N; j++)
      s += out[i][j] * (j % 5);
  }}
  printf("%.17g\\n", s);
  return 0;
}}
"""

KERNELS = {
    "pair forces skipping the body itself": """
static void kernel(void)
{
  for (int i = 0; i < N; i++) {
    double f = 0.0;
    for (int j = 0; j < N; j++) {
      if (j == i)
        continue;
      double d = x[j] - x[i];
      f += d * m[j] / (d * d + 1e-3);
    }
    a[i] = f;
  }
}
""",
    "a border skipped by two conditions": """
static void kernel(void)
{
  for (int y = 0; y < N; y++)
    for (int x = 0; x < N; x++) {
      out[y][x] = 0.0;
      if (y == 0 || y == N - 1) {
        continue;
      }
      if (x < 1 || x > N - 2)
        continue;
      out[y][x] = img[y - 1][x] + img[y + 1][x] + img[y][x - 1] + img[y][x + 1] - 4.0 * img[y][x];
    }
}
""",
    "the inner loop's continue, and an outer one": """
static void kernel(void)
{
  for (int i = 0; i < N; i++) {
    if (i % 3 == 1)
      continue;
    for (int j = 0; j < N; j++) {
      if (j > i)
        continue;
      out[i][j] = img[i][j] * 0.5 + img[j][i];
    }
  }
}
""",
}


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_nests_with_continues_compute_what_gcc_computes(tmp_path, name, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "k.c", PROGRAM.format(kernel=KERNELS[name]), target)
    assert out == ref
    kernel = [line for line in result.report if ": kernel: " in line]
    assert kernel and all("SCoP at" in line for line in kernel), "\n".join(result.report)


def _rewritten(body: str) -> str:
    ast = parse(f"void f(int n, int *a) {{ for (int i = 0; i < n; i++) {body} }}", "t.c")
    loop = ast.ext[-1].body.block_items[0]
    return " ".join(c_generator.CGenerator().visit(without_continues(loop.stmt)).split())


@pytest.mark.parametrize("body, expected", [
    ("{ if (a[i]) continue; a[i] = 1; }", "{ if (!a[i]) { a[i] = 1; } }"),
    ("{ a[i] = 0; if (i == 2) { continue; } a[i] = 1; if (i > 5) continue; a[i] += 2; }",
     "{ a[i] = 0; if (!(i == 2)) { a[i] = 1; if (!(i > 5)) { a[i] += 2; } } }"),
])
def test_each_continue_conditions_the_statements_after_it(body, expected):
    assert _rewritten(body) == expected


@pytest.mark.parametrize("body", [
    "{ a[i] = 1; if (a[i]) continue; }",                       # nothing after it
    "{ if (a[i]) continue; else a[i] = 2; a[i] = 1; }",        # an else
    "{ for (int j = 0; j < n; j++) { a[j] = 0; } a[i] = 1; }",  # no continue of this loop
    "{ if (a[i]) continue; lab: a[i] = 1; }",                  # a label in the body
    "{ if (a[i]) { a[i] = 0; continue; } a[i] = 1; }",         # more than the continue
])
def test_what_stays_as_it_is(body):
    original = " ".join(c_generator.CGenerator().visit(
        parse(f"void f(int n, int *a) {{ for (int i = 0; i < n; i++) {body} }}", "t.c")
        .ext[-1].body.block_items[0].stmt).split())
    assert _rewritten(body) == original
