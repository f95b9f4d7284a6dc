"""Dereferences of arrays and pointers are subscripts: ``*p`` is ``p[0]`` and ``*(p + i*m + j)``
is ``p[i*m + j]`` (frontends/c/expressions.py), as C defines them, so an accumulator behind a
pointer (``*out += a[i]``, ``(*count)++``) and pointer arithmetic in place of subscripts make
SCoPs. Each program prints what gcc's build prints, also where the caller passes a pointer into
the array the loop reads."""
from __future__ import annotations

import pytest

from c_build import optimized_and_both_outputs

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
static void total(int n, const double *a, double *out) {
  *out = 0;
  for (int i = 0; i < n; i++)
    *out += a[i] * a[i];
}
static void scale(int n, double *x, const double *s) {
  for (int i = 0; i < n; i++)
    *(x + i) = *(x + i) * *s + *(i + x);
}
static void rows(int n, int m, double *a, const double *b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      *(a + i * m + j) += *(b + j * n + i) - *(1 + b + j * n + i - 1) * 0.5;
}
static void count(int n, const int *v, int *c) {
  for (int i = 0; i < n; i++)
    if (v[i] > 3) (*c)++;
}
static void tally(int n, const int *v, int *c) {
  *c = 0;
  for (int i = 0; i < n; i++)
    *c += v[i] > 2;
  (*c)++;
  *c *= 2;
}
static void walk(int n, double *p, double x) {
  for (int i = 0; i < n; i++)
    *p++ = x * i;
}
int main(void) {
  int n = 400, m = 300;
  double *a = malloc(sizeof(double) * n * m), *b = malloc(sizeof(double) * n * m), t = 0;
  int *v = malloc(sizeof(int) * n * m), c = 0;
  for (int i = 0; i < n * m; i++) { a[i] = (i % 17) * 0.25; b[i] = (i % 5) - 2.0; v[i] = i % 7; }
  total(n * m, a, &t);
  total(n * m, a, a + 7);     /* the sum inside the array it reads */
  scale(n * m, b, &t);
  scale(n * m, b, b + 3);     /* the factor inside the array it scales */
  rows(n, m, a, b);
  rows(n / 2, m, a + m, a);   /* overlapping */
  count(n * m, v, &c);
  count(n * m, v, v + 5);     /* the count inside the values */
  walk(m, b + 11, 0.5);
  int k = 0;
  tally(n * m, v, &k);
  tally(n * m - 9, v + 9, v + 4);   /* the count inside the values */
  double s = 0;
  for (int i = 0; i < n * m; i++) s += a[i] * (i % 3) + b[i] + v[i];
  printf("%a %a %d %d\n", s, t, c, k);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_dereferences_are_subscripts_and_print_what_gcc_prints(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "deref.c", PROGRAM, target)
    assert out == ref
    scops = {line.split(": ")[1] for line in result.report if "SCoP at" in line}
    assert {"total", "scale", "rows", "count"} <= scops, result.report
    assert "walk" not in scops   # (*p++ moves the pointer: left as written)
    if target == "openmp":
        optimized = {line.split(": ")[1] for line in result.report if "SCoP at" in line and " optimized " in line}
        assert {"scale", "rows"} <= optimized, result.report


def test_a_statement_that_starts_with_a_dereference_joins_the_scop_of_its_loop(tmp_path):
    """``*c = 0;`` before a loop is a statement of its SCoP (the SCoP starts there, at B0); a
    statement that starts with a parenthesis (``(*c)++;``) is not taken for one that starts at
    its ``*``, and the program prints what gcc's build prints."""
    result, ref, out = optimized_and_both_outputs(tmp_path / "deref.c", PROGRAM, "openmp")
    assert out == ref
    assert any(": tally: SCoP at B0 " in line for line in result.report), result.report
