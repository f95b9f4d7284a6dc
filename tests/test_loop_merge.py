"""Adjacent loops over one body and adjacent ranges become one loop (s2s/schedule/loop_merge.py)."""
from __future__ import annotations

import re

import pytest

from c_build import optimized_and_both_outputs, outputs_of_both_builds
from s2s.driver.pipeline import PipelineOptions, optimize_c_file

LU = r"""
#include <stdio.h>
#define N 60
static double A[N][N];

static void lu(int n)
{
  int i, j, k;
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (j = i; j < n; j++)
      for (k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
}

int main(void)
{
  static const int sizes[] = {0, 1, 2, 3, 17, N};
  for (int s = 0; s < 6; s++) {
    int n = sizes[s];
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        A[i][j] = i == j ? N + 1.0 : (double)((i * 7 + j * 3) % 11) / 13.0;
    lu(n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        printf("%a\n", A[i][j]);
  }
  return 0;
}
"""

TWICE = r"""
#include <stdio.h>
static double X[64], Y[64];

static void twice(int a, int b, int c)
{
  for (int j = a; j < b; j++)
    X[j] += 2.0 * Y[j] + j;
  for (int j = b; j < c; j++)
    X[j] += 2.0 * Y[j] + j;
}

int main(void)
{
  static const int cases[][3] = {{0, 10, 20}, {5, 5, 9}, {7, 3, 12}, {2, 9, 9}, {3, 9, 4}, {10, 2, 1}, {0, 0, 0}};
  for (int j = 0; j < 64; j++) {
    X[j] = j;
    Y[j] = 64 - j;
  }
  for (int t = 0; t < 7; t++) {
    twice(cases[t][0], cases[t][1], cases[t][2]);
    for (int j = 0; j < 64; j++)
      printf("%a\n", X[j]);
  }
  return 0;
}
"""


def _function(source: str, name: str) -> str:
    start = source.index(f"void {name}(")
    return source[start:source.index("int main(", start)]


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_the_two_copies_of_lus_update_run_in_one_loop(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "lu.c", LU, target)
    assert out == ref
    if target == "openmp":
        return   # (tiled there: the merged loops are the tiles' pieces of rows)
    kernel = _function(result.source, "lu")
    # the row's update from the pivot's column on, proven non-empty by the loops around: no min/max
    assert re.search(r"for \(j = c0 \+ 1; j < n; j\+\+\)", kernel), kernel
    assert kernel.count("for (j =") == 1, kernel


ROWS = r"""
#include <stdio.h>
#define N 40
static double X[N][N], Y[N][N];

static void rows(int n)
{
  for (int t = 0; t < n; t++) {
    for (int j = 0; j < t; j++)
      X[t][j] += 2.0 * Y[t][j] + j;
    for (int j = t; j < n; j++)
      X[t][j] += 2.0 * Y[t][j] + j;
  }
}

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      X[i][j] = i - j;
      Y[i][j] = i * j % 7;
    }
  for (int n = 0; n <= N; n += 13) {
    rows(n);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        printf("%a\n", X[i][j]);
  }
  return 0;
}
"""


def test_one_body_over_adjacent_rows_runs_in_one_loop(tmp_path):
    src = tmp_path / "rows.c"
    src.write_text(ROWS)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="isl"))
    body = _function(result.source, "rows")
    assert body.count("for (") == 2 and re.search(r"for \(int j = 0; j < n; j\+\+\)", body), body
    ref, out = outputs_of_both_builds(src, result.source, openmp=False)
    assert out == ref


@pytest.mark.parametrize("program", [
    TWICE,   # (nothing orders a, b and c: either loop may run nothing)
    TWICE.replace("X[j] += 2.0 * Y[j] + j;\n}", "X[j] += 3.0 * Y[j] + j;\n}"),   # two bodies
    ROWS.replace("for (int j = t; j < n; j++)", "for (int j = t + 1; j < n; j++)"),   # a gap
], ids=["unordered-bounds", "different-bodies", "gap"])
def test_loops_stay_apart_unless_proven_adjacent(tmp_path, program):
    src = tmp_path / "prog.c"
    src.write_text(program)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="isl"))
    name = "twice" if "twice(" in program else "rows"
    body = _function(result.source, name)
    assert body.count("for (") == (2 if name == "twice" else 3), body
    ref, out = outputs_of_both_builds(src, result.source, openmp=False)
    assert out == ref
