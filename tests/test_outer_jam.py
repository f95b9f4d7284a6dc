"""Rows unrolled and jammed into loops that carry a chain of updates: over the loops inside an
outer loop that is a band of its own (atax's shape), and inside a band whose sizes are known only
at run time (whole groups of rows generated apart, their sums in locals). Each row's sum keeps
the user's order, so the outputs are bit for bit those of the user's loops, at every size."""
from __future__ import annotations

import re

import pytest

from c_build import optimized_and_both_outputs, outputs_of_both_builds
from s2s.driver.pipeline import PipelineOptions, optimize_c_file

HEADER = """
#include <stdio.h>
#include <stdlib.h>
"""

# The row sums of an image weighted by a column profile, then the image's columns weighted by
# those sums (a normal-equations step, A^T (A v)): two loops over x inside the loop over rows.
BACK_PROJECTION = HEADER + """
void back_project(int h, int w, const float *img, const float *v, float *rows, float *cols) {
  for (int x = 0; x < w; x++)
    cols[x] = 0.0f;
  for (int y = 0; y < h; y++) {
    rows[y] = 0.0f;
    for (int x = 0; x < w; x++)
      rows[y] = rows[y] + img[y * w + x] * v[x];
    for (int x = 0; x < w; x++)
      cols[x] = cols[x] + img[y * w + x] * rows[y];
  }
}
int main(void) {
  int sizes[][2] = {{1, 9}, {3, 5}, {6, 301}, {203, 301}, {64, 17}};
  for (int s = 0; s < 5; s++) {
    int h = sizes[s][0], w = sizes[s][1];
    float *img = malloc(sizeof(float) * h * w), *v = malloc(sizeof(float) * w);
    float *rows = malloc(sizeof(float) * h), *cols = malloc(sizeof(float) * w);
    for (int i = 0; i < h * w; i++)
      img[i] = ((i * 37) % 251) / 251.0f - 0.3f;
    for (int x = 0; x < w; x++)
      v[x] = 1.0f / (1 + x % 11);
    back_project(h, w, img, v, rows, cols);
    for (int y = 0; y < h; y++) printf("%a ", rows[y]);
    for (int x = 0; x < w; x++) printf("%a ", cols[x]);
    printf("\\n");
    free(img); free(v); free(rows); free(cols);
  }
  return 0;
}
"""

# One sum per row, stored to one element: rows jammed only where whole groups are generated
# without guards (the row count here is known only at run time).
WEIGHTED_ROWS = HEADER + """
void weighted_rows(int h, int w, const double *img, const double *profile, double *sums) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      sums[y] += img[y * w + x] * profile[x];
}
int main(void) {
  int sizes[][2] = {{2, 3}, {7, 40}, {203, 301}};
  for (int s = 0; s < 3; s++) {
    int h = sizes[s][0], w = sizes[s][1];
    double *img = malloc(sizeof(double) * h * w), *profile = malloc(sizeof(double) * w);
    double *sums = malloc(sizeof(double) * h);
    for (int i = 0; i < h * w; i++)
      img[i] = ((i * 31) % 255) / 255.0;
    for (int x = 0; x < w; x++)
      profile[x] = 1.0 / (1 + x % 13);
    for (int y = 0; y < h; y++)
      sums[y] = y;
    weighted_rows(h, w, img, profile, sums);
    for (int y = 0; y < h; y++) printf("%a\\n", sums[y]);
    free(img); free(profile); free(sums);
  }
  return 0;
}
"""

# Each row's sum feeds the next row (a[y + 1][x] is updated by row y's loop over x, after the
# next row's sum would read it if the rows ran together): the rows may not be jammed.
FEEDS_THE_NEXT_ROW = HEADER + """
#define H 67
#define W 45
void smooth_down(double a[H][W], double s[H]) {
  for (int y = 0; y < H - 1; y++) {
    s[y] = 0.0;
    for (int x = 0; x < W; x++)
      s[y] = s[y] + a[y][x];
    for (int x = 0; x < W; x++)
      a[y + 1][x] = a[y + 1][x] + 0.001 * s[y];
  }
}
int main(void) {
  static double a[H][W], s[H];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      a[y][x] = ((y * 13 + x * 7) % 17) / 17.0;
  smooth_down(a, s);
  for (int y = 0; y < H; y++)
    printf("%a %a\\n", s[y], a[y][W - 1]);
  return 0;
}
"""

# Implicit smoothing of an image along its rows: a tridiagonal solve per row (the Thomas
# algorithm), each row a recurrence along x forward, then one backward, rows independent.
ROW_SOLVES = HEADER + """
#define H 67
#define W 301
void smooth_rows(double lambda, double img[H][W], double cp[H][W], double dp[H][W], double out[H][W]) {
  for (int y = 0; y < H; y++) {
    cp[y][0] = 0.0;
    dp[y][0] = img[y][0];
    for (int x = 1; x < W - 1; x++) {
      cp[y][x] = -lambda / ((1.0 + 2.0 * lambda) + lambda * cp[y][x - 1]);
      dp[y][x] = (img[y][x] + lambda * dp[y][x - 1]) / ((1.0 + 2.0 * lambda) + lambda * cp[y][x - 1]);
    }
    out[y][W - 1] = img[y][W - 1];
    for (int x = W - 2; x >= 1; x--)
      out[y][x] = dp[y][x] - cp[y][x] * out[y][x + 1];
    out[y][0] = dp[y][0];
  }
}
int main(void) {
  static double img[H][W], cp[H][W], dp[H][W], out[H][W];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      img[y][x] = ((y * 31 + x * 17) % 23) / 23.0;
  smooth_rows(0.7, img, cp, dp, out);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x += 7)
      printf("%a\\n", out[y][x]);
  return 0;
}
"""

# A lower-triangular solve L y = b by forward substitution (trisolv's shape): row i reads the
# y of every row before it, so rows run together only over the columns before their group.
FORWARD_SUBSTITUTION = HEADER + """
void forward(int n, double L[n][n], const double *b, double *y) {
  for (int i = 0; i < n; i++) {
    y[i] = b[i];
    for (int j = 0; j < i; j++)
      y[i] -= L[i][j] * y[j];
    y[i] = y[i] / L[i][i];
  }
}
int main(void) {
  int sizes[] = {1, 2, 3, 5, 8, 67, 130};
  for (int s = 0; s < 7; s++) {
    int n = sizes[s];
    double (*L)[n] = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++)
        L[i][j] = (i == j) ? 2.0 + i % 3 : ((i * 7 + j * 3) % 11) / 40.0;
      b[i] = (i % 9) / 3.0 - 1.0;
    }
    forward(n, L, b, y);
    for (int i = 0; i < n; i++)
      printf("%a ", y[i]);
    printf("\\n");
    free(L); free(b); free(y);
  }
  return 0;
}
"""


def _kernel(source: str, name: str) -> str:
    return source[source.index(f"void {name}("):source.index("int main(")]


def _jammed(path, program: str, function: str, target: str):
    """``program`` optimized for ``target``: the report line of ``function``, its generated code,
    and the outputs of both builds."""
    result, ref, out = optimized_and_both_outputs(path, program, target)
    line = next(ln for ln in result.report if f": {function}: " in ln)
    return line, _kernel(result.source, function), ref, out


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_rows_are_jammed_over_the_loops_inside_them(tmp_path, target):
    line, kernel, ref, out = _jammed(tmp_path / "project.c", BACK_PROJECTION, "back_project", target)
    assert "loop unroll-and-jam 8 over the loops inside it" in line, line
    # eight rows' sums in locals, in a loop over x with no guard (the whole groups of rows)
    assert len(re.findall(r"float rows_r\d+ = rows\[", kernel)) >= 8, kernel
    assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_a_single_sum_per_row_is_jammed_where_groups_are_whole(tmp_path, target):
    line, kernel, ref, out = _jammed(tmp_path / "rows.c", WEIGHTED_ROWS, "weighted_rows", target)
    # (one chain per row: eight rows, as many chains as multiply-adds in flight)
    assert "unroll-and-jam 8 into a loop that carries a chain of updates" in line, line
    assert len(re.findall(r"double sums_r\d+ = sums\[", kernel)) == 8, kernel
    assert out == ref


TWO_SUMS_PER_ROW = HEADER + """
void two_sums(int h, int w, const double *img, const double *mask, const double *profile, double *sums,
              double *areas) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      sums[y] += img[y * w + x] * profile[x];
      areas[y] += mask[y * w + x] * profile[x];
    }
}
int main(void) {
  int sizes[][2] = {{3, 5}, {9, 40}, {203, 301}};
  for (int s = 0; s < 3; s++) {
    int h = sizes[s][0], w = sizes[s][1];
    double *img = malloc(sizeof(double) * h * w), *mask = malloc(sizeof(double) * h * w);
    double *profile = malloc(sizeof(double) * w), *sums = malloc(sizeof(double) * h), *areas = malloc(sizeof(double) * h);
    for (int i = 0; i < h * w; i++) {
      img[i] = ((i * 31) % 255) / 255.0;
      mask[i] = (i % 7) / 6.0;
    }
    for (int x = 0; x < w; x++)
      profile[x] = 1.0 / (1 + x % 13);
    for (int y = 0; y < h; y++)
      sums[y] = areas[y] = y;
    two_sums(h, w, img, mask, profile, sums, areas);
    for (int y = 0; y < h; y++) printf("%a %a\\n", sums[y], areas[y]);
    free(img); free(mask); free(profile); free(sums); free(areas);
  }
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_two_sums_per_row_are_jammed_as_half_as_many_rows(tmp_path, target):
    # (two chains per row: four rows make the eight chains in flight)
    line, kernel, ref, out = _jammed(tmp_path / "two.c", TWO_SUMS_PER_ROW, "two_sums", target)
    assert "unroll-and-jam 4 into a loop that carries a chain of updates" in line, line
    assert len(re.findall(r"double sums_r\d+ = sums\[", kernel)) == 4, kernel
    assert out == ref


def test_copies_that_read_neighbours_are_four():
    # gemver: x[i] sums A's column i (A[j][i]: four copies of i read neighbours, which gcc
    # vectorizes across), w[i] sums row i (eight copies)
    from polybench.registry import KERNELS, SUITE_ROOT, kernel_source

    src = kernel_source(KERNELS["gemver"])
    args = [f"-I{SUITE_ROOT / 'utilities'}", f"-I{src.parent}", "-DMEDIUM_DATASET"]
    result = optimize_c_file(str(src), args, PipelineOptions(mode="pluto", target="c"))
    line = next(ln for ln in result.report if "kernel_gemver: SCoP" in ln)
    assert "loop unroll-and-jam 4 over the loops inside it" in line, line
    assert "loop unroll-and-jam 8 over the loops inside it" in line, line
    kernel = _kernel(result.source, "kernel_gemver")
    assert re.search(r"x_r\d+ \+= beta \* A\[j\]\[i \+ 3\]", kernel) and "A[j][i + 4]" not in kernel, kernel
    assert re.search(r"w_r\d+ \+= alpha \* A\[i \+ 7\]\[j\]", kernel), kernel


@pytest.mark.parametrize("row, jammed", [("y + 1", False), ("y", True)])
def test_rows_that_feed_the_next_one_are_not_jammed(tmp_path, row, jammed):
    """Row y's update of row y + 1 is read by the next row's sum: run together, the next row
    would read it too early. Updating its own row instead, the rows may run together. (Every
    legal schedule is taken here, profitable or not: the legality check alone decides.)"""
    program = FEEDS_THE_NEXT_ROW.replace("a[y + 1][x] = a[y + 1][x]", f"a[{row}][x] = a[{row}][x]")
    src = tmp_path / "smooth.c"
    src.write_text(program)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", profitability=False))
    line = next(ln for ln in result.report if ": smooth_down: " in ln)
    assert "optimized" in line and ("loop unroll-and-jam 8 over the loops inside it" in line) == jammed, line
    ref, out = outputs_of_both_builds(src, result.source, openmp=False)
    assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_rows_of_recurrences_are_jammed_in_the_users_order(tmp_path, target):
    # each row's forward and backward recurrences are chains of divisions and multiply-adds; four
    # rows jammed run four chains side by side, each in its own order (bit for bit the same)
    result, ref, out = optimized_and_both_outputs(tmp_path / "solve.c", ROW_SOLVES, target)
    line = next(ln for ln in result.report if ": smooth_rows: " in ln)
    assert "original order kept, its rows jammed" in line, line
    assert "loop unroll-and-jam 4 over the loops inside it" in line, line
    assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_rows_of_a_triangular_solve_are_jammed_over_the_columns_before_them(tmp_path, monkeypatch, target):
    # (optimized at any size: the small systems run the new code too)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0")
    result, ref, out = optimized_and_both_outputs(tmp_path / "forward.c", FORWARD_SUBSTITUTION, target)
    line = next(ln for ln in result.report if ": forward: " in ln)
    # (under OpenMP as the code where no region runs in parallel: a wavefront of tiles would)
    assert "8 rows jammed over the columns before them" in line or (
        target == "openmp" and "the sequential target's code where no region runs in parallel" in line), line
    # the eight rows' sums in locals over the shared columns, each row's y[j] read from memory
    assert len(re.findall(r"double y_r\d+ = y\[", result.source)) >= 8, result.source
    assert out == ref


def test_a_triangular_solve_that_reads_its_group_is_not_jammed(tmp_path, monkeypatch):
    # y[j + 1] for j < i0 reaches y[i0], the first row of a group, which that row is still
    # summing while the group's rows run together: the split schedule breaks a dependence
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0")
    program = FORWARD_SUBSTITUTION.replace("y[i] -= L[i][j] * y[j];", "y[i] -= L[i][j] * y[j + 1];")
    result, ref, out = optimized_and_both_outputs(tmp_path / "shifted.c", program, "c")
    line = next(ln for ln in result.report if ": forward: " in ln)
    assert "rows jammed over the columns before them" not in line, line
    assert out == ref


# the Thomas algorithm down the columns of a grid: its back substitution's rows, in the user's
# order, are vector loops already
COLUMN_THOMAS = r"""
#include <stdio.h>
#include <stdlib.h>
void columns(int nx, int ny, double (*u)[ny], double (*cp)[ny], double r)
{
  for (int j = 0; j < ny; j++) {
    cp[0][j] = -r / (1.0 + 2.0 * r);
    u[0][j] = u[0][j] / (1.0 + 2.0 * r);
  }
  for (int i = 1; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      double m = 1.0 / (1.0 + 2.0 * r + r * cp[i - 1][j]);
      cp[i][j] = -r * m;
      u[i][j] = (u[i][j] + r * u[i - 1][j]) * m;
    }
  for (int i = nx - 2; i >= 0; i--)
    for (int j = 0; j < ny; j++)
      u[i][j] -= cp[i][j] * u[i + 1][j];
}
int main(void)
{
  int nx = 300, ny = 257;
  double (*u)[ny] = malloc(sizeof(double[nx][ny])), (*cp)[ny] = malloc(sizeof(double[nx][ny]));
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      u[i][j] = (i * 7 + j * 3) % 11 * 0.1;
  for (int t = 0; t < 3; t++)
    columns(nx, ny, u, cp, 0.3);
  double s = 0;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      s += u[i][j] * (1 + (i + j) % 3);
  printf("%a\n", s);
  return 0;
}
"""


def test_columns_are_not_jammed_where_the_users_rows_walk_memory_better(tmp_path):
    """Jams on a schedule that turns the back substitution to walk down columns, four at a time
    (0.36x of gcc on a 1000 x 1000 grid), are no reason to regenerate: the user's order, whose
    rows walk memory better and have no chain to jam, stays."""
    line, kernel, ref, out = _jammed(tmp_path / "thomas.c", COLUMN_THOMAS, "columns", "c")
    assert "left as is" in line and "walks memory worse" in line, line
    assert out == ref


NESTED_JAMS = """\
#include <stdio.h>
#include <stdlib.h>
void gs_rev(int nx, int ny, int nz, double *u) {
    for (int k = nz - 2; k >= 1; k--)
        for (int j = ny - 2; j >= 1; j--)
            for (int i = nx - 2; i >= 1; i--)
                u[(k * ny + j) * nx + i] = 0.5 * u[(k * ny + j) * nx + i]
                    + 0.25 * (u[((k + 1) * ny + j + 1) * nx + i - 1] + u[(k * ny + j) * nx + i + 1]);
}
int main(void) {
    int nx = 37, ny = 29, nz = 23;
    double *u = malloc(sizeof(double) * nx * ny * nz);
    for (int q = 0; q < nx * ny * nz; q++) u[q] = (q * 7 % 13) - 6.0;
    gs_rev(nx, ny, nz, u);
    for (int q = 0; q < nx * ny * nz; q++) printf("%.17g\\n", u[q]);
    return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_one_jam_per_nest_where_two_would_reorder_each_other(tmp_path, target):
    """k's dependence (k - 1, j - 1, i + 1) goes forward on (j, i), and j carries none: each of
    them may be jammed over the loops inside it, not both (their copies together run (k - 1,
    j - 1) at i + 1 before (k, j) at i). Both were jammed, and the check then kept the user's
    loops."""
    result, ref, out = optimized_and_both_outputs(tmp_path / "gs.c", NESTED_JAMS, target)
    line = next(ln for ln in result.report if ": gs_rev: " in ln)
    assert "optimized" in line and "over the loops inside it" in line, line
    assert out == ref
