"""Copies of an outer loop jammed into a loop that carries a recurrence, each copy some
iterations behind the one before (s2s/schedule/lagged_jam.py): Gauss-Seidel sweeps in place,
whose next row (or sweep) reads what this one has just written a little ahead. Every copy
keeps the user's order of operations, so outputs are bit for bit those of the user's loops."""
from __future__ import annotations

import islpy as isl
import pytest

from c_build import optimized_and_both_outputs
from s2s.schedule.lagged_jam import copy_lag

HEADER = """
#include <stdio.h>
#include <stdlib.h>
"""

# Red-black-free Gauss-Seidel relaxation of a Poisson problem on a grid, in place, several
# sweeps: u[i][j - 1] and u[i - 1][j] are this sweep's values.
POISSON = HEADER + """
void relax(int sweeps, int n, double u[n][n], double f[n][n], double h2) {
  for (int s = 0; s < sweeps; s++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - h2 * f[i][j]);
}
int main(void) {
  int ns[] = {3, 4, 9, 70};
  for (int s = 0; s < 4; s++) {
    int n = ns[s];
    double (*u)[n] = malloc(sizeof(double) * n * n), (*f)[n] = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        u[i][j] = (i * 7 + j * 3) % 11;
        f[i][j] = (i + j) % 5 - 2;
      }
    relax(1 + 3 * s, n, u, f, 0.01);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        printf("%a ", u[i][j]);
    printf("\\n");
    free(u); free(f);
  }
  return 0;
}
"""

# A 3x3 box smoother applied in place to a float image, the Gauss-Seidel way (each pixel sees
# its upper and left neighbours already smoothed): row y + 1 reads row y's new pixel x + 1.
BOX_IN_PLACE = HEADER + """
void smooth_in_place(int passes, int h, int w, float img[h][w]) {
  for (int p = 0; p < passes; p++)
    for (int y = 1; y < h - 1; y++)
      for (int x = 1; x < w - 1; x++)
        img[y][x] = (img[y - 1][x - 1] + img[y - 1][x] + img[y - 1][x + 1]
                     + img[y][x - 1] + img[y][x] + img[y][x + 1]
                     + img[y + 1][x - 1] + img[y + 1][x] + img[y + 1][x + 1]) / 9.0f;
}
int main(void) {
  int sizes[][3] = {{1, 3, 3}, {2, 5, 4}, {5, 37, 61}, {3, 64, 129}};
  for (int s = 0; s < 4; s++) {
    int p = sizes[s][0], h = sizes[s][1], w = sizes[s][2];
    float (*img)[w] = malloc(sizeof(float) * h * w);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        img[y][x] = ((y * 31 + x * 17) % 29) / 29.0f;
    smooth_in_place(p, h, w, img);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        printf("%a ", img[y][x]);
    printf("\\n");
    free(img);
  }
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("program, function", [(POISSON, "relax"), (BOX_IN_PLACE, "smooth_in_place")])
def test_sweeps_in_place_are_jammed_with_a_lag(tmp_path, monkeypatch, target, program, function):
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0")
    result, ref, out = optimized_and_both_outputs(tmp_path / f"{function}.c", program, target)
    line = next(ln for ln in result.report if f": {function}: " in ln)
    assert "unroll-and-jam 4 into a recurrence" in line, line
    assert out == ref


def _distances(text: str) -> isl.Set:
    return isl.Set(text)


def test_the_lag_leaves_no_dependence_between_copies():
    # seidel-2d's distances on (t, t + i, 2t + i + j): row i + 1 reads row i's new A[i][j + 1]
    # at the same inner time (0, 1, 0): each copy must run one iteration behind
    seidel = _distances("{ [0, 1, 0]; [0, 1, 1]; [0, 1, 2]; [0, 0, 1]; [1, 0, 0]; [1, 1, 2] }")
    assert copy_lag(seidel, [0], 1, 2, 4) == 1
    # along the sweeps (t) at one row: (1, 0, 0) needs a lag too
    assert copy_lag(seidel, [1], 0, 2, 4) == 1
    # rows that never read each other's iterations: no lag
    assert copy_lag(_distances("{ [0, 0, 1] }"), [0], 1, 2, 4) == 0
    # two rows apart and eight columns back: a lag of 5 would do, past the limit of 4
    assert copy_lag(_distances("{ [0, 2, -8]; [0, 0, 1] }"), [0], 1, 2, 4) is None
    assert copy_lag(_distances("{ [0, 2, -6]; [0, 0, 1] }"), [0], 1, 2, 4) == 4
    # distances beyond the copies (a row 4 or more apart) do not count
    assert copy_lag(_distances("{ [0, 4, -3]; [0, 0, 1] }"), [0], 1, 2, 4) == 0


def test_a_reduction_is_tiled_not_lagged(tmp_path, monkeypatch):
    # a Cholesky-shaped factorization (an LDL^T without its square roots): its updates of one
    # element, a chain one operation long, gain more from tiles
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0")
    program = HEADER + """
void factor(int n, double A[n][n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = 1.0 / A[i][i];
  }
}
int main(void) {
  int n = 90;
  double (*A)[n] = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = i == j ? n + 1.0 : 1.0 / (1 + i + j);
  factor(n, A);
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      printf("%a ", A[i][j]);
  return 0;
}
"""
    result, ref, out = optimized_and_both_outputs(tmp_path / "factor.c", program, "c")
    line = next(ln for ln in result.report if ": factor: " in ln)
    assert "into a recurrence" not in line, line
    assert out == ref
