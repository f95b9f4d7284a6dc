"""Ifs on data in loop nests read as selects (s2s/analysis/data_conditions.py): which ifs are, how
they print (the user's if, storing only where it holds), and that programs of thresholds, argmax,
clamps, shortest-path relaxation and masked updates print what gcc's builds print, on one thread
and under OpenMP, also where the caller passes one buffer twice."""
from __future__ import annotations

import textwrap

import pytest

from c_build import optimized_and_both_outputs
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.analysis.data_conditions import selects_for_data_conditions
from s2s.ir import Block, Declare, IfElse, Tasklet, walk

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static void threshold(int n, int m, const unsigned char *img, unsigned char *out, int t) {
  for (int y = 0; y < n; y++)
    for (int x = 0; x < m; x++)
      if (img[y * m + x] > t) out[y * m + x] = 255; else out[y * m + x] = 0;
}
static double argmax(int n, const double *a, int *where) {
  double mx = a[0]; int w = 0;
  for (int i = 1; i < n; i++)
    if (a[i] > mx) { mx = a[i]; w = i; }
  *where = w;
  return mx;
}
static void flip(int n, double *a, double *b) {
  for (int i = 0; i < n; i++)
    if (a[i] > 0) { a[i] = -a[i]; b[i] = a[i] * 2; }
}
static void clamp3(int n, int m, const int *in, int *out, int lo, int hi) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++) {
      int v = (in[i * m + j - 1] + 2 * in[i * m + j] + in[i * m + j + 1]) / 4;
      if (v > hi) out[i * m + j] = hi;
      else if (v < lo) out[i * m + j] = lo;
      else out[i * m + j] = v;
    }
}
static void relax(int n, int *d) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        if (d[i * n + k] + d[k * n + j] < d[i * n + j]) d[i * n + j] = d[i * n + k] + d[k * n + j];
}
static void mixed(int n, long *l, const double *v) {
  for (int i = 0; i < n; i++)
    if (v[i] > 0.5) l[i] = v[i] * 3.0; else l[i] = l[i] + 1;
}
static void nested(int n, int m, double *a, const double *b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      if (b[i * m + j] > 0) {
        if (a[i * m + j] < b[i * m + j]) a[i * m + j] = b[i * m + j];
      } else {
        a[i * m + j] *= 0.5;
      }
    }
}
static void smooth_masked(int n, double *u, const int *mask, double *w) {
  for (int t = 0; t < 4; t++)
    for (int i = 1; i < n - 1; i++)
      if (mask[i]) w[i] = 0.25 * (u[i - 1] + 2 * u[i] + u[i + 1]); else w[i] = u[i];
  for (int i = 1; i < n - 1; i++)
    if (w[i] != 0.0) u[i] = w[i];
}
static void count_in_range(int n, int m, const float *a, int *cnt) {
  for (int i = 0; i < n; i++) {
    cnt[i] = 0;
    for (int j = 0; j < m; j++)
      if (a[i * m + j] > 0.f && a[i * m + j] < 1.f) cnt[i]++;
  }
}
static void shift_where(int n, double *x, double *y) {
  for (int i = 0; i < n; i++)
    if (x[i] > 0.3) { y[i] = x[i] - 1.0; x[i] = y[i] + x[i]; }
}
static void excess(int n, const double *a, double *b, double t) {
  for (int i = 0; i < n; i++)
    if (a[i] > t) { double d = a[i] - t; b[i] = d * d; }
}
static void clipped(int n, const double *a, double *b, double t) {
  for (int i = 0; i < n; i++)
    if (a[i] > t) { double d = a[i] - t; if (d > 0.5) d = 0.5; b[i] = d; }   /* d kept where not */
}
static void guarded_division(int n, const int *k, int *h) {
  for (int i = 1; i < n; i++)
    if (k[i] != 0) { int r = 1000 / k[i]; if (r > 5 + k[i - 1]) h[i] += r; else h[i] -= r; }
}
int main(void) {
  int n = 180, m = 210;
  unsigned char *img = malloc(n * m), *out = malloc(n * m);
  double *a = malloc(sizeof(double) * n * m), *b = malloc(sizeof(double) * n * m);
  int *ii = malloc(sizeof(int) * n * m), *io = calloc(n * m, sizeof(int));
  int *d = malloc(sizeof(int) * 100 * 100);
  long *l = malloc(sizeof(long) * n * m);
  float *f = malloc(sizeof(float) * n * m);
  int *mask = malloc(sizeof(int) * n * m), *cnt = malloc(sizeof(int) * n);
  for (int i = 0; i < n * m; i++) {
    img[i] = (i * 7 + i / 13) % 251; a[i] = sin(i * 0.37); b[i] = cos(i * 0.11) - 0.2;
    ii[i] = (i * 37) % 300 - 20; l[i] = (long)i * 1000003L; f[i] = (float)sin(i * 0.5) * 2;
    mask[i] = (i % 3) != 0;
  }
  for (int i = 0; i < 100 * 100; i++) d[i] = (i * 37) % 101 + 1;
  threshold(n, m, img, out, 100);
  int w; double mx = argmax(n * m, a, &w);
  flip(n * m, a, b);
  clamp3(n, m, ii, io, 0, 200);
  relax(100, d);
  mixed(n * m, l, b);
  nested(n, m, a, b);
  smooth_masked(n * m, a, mask, b);
  count_in_range(n, m, f, cnt);
  shift_where(n * m, b, b);           /* one buffer twice */
  shift_where(n * m - 1, a, a + 1);   /* overlapping views */
  flip(n * m - 3, b + 3, b);
  excess(n * m, a, b, 0.25);
  excess(n * m - 1, b + 1, b, 0.5);   /* overlapping */
  clipped(n * m, a, b, 0.1);
  guarded_division(n * m, ii, io);    /* ii holds zeros */
  long s = 0; double ds = 0;
  for (int i = 0; i < n * m; i++) { s += out[i] + io[i] + l[i] % 1000; ds += a[i] * (i % 7) + b[i]; }
  for (int i = 0; i < 100 * 100; i++) s += d[i] * (i % 5);
  for (int i = 0; i < n; i++) s += cnt[i] * i;
  printf("%ld %d %.17g %.17g\n", s, w, mx, ds);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_programs_with_ifs_on_data_print_what_gcc_prints(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "conditions.c", PROGRAM, target)
    assert out == ref
    optimized = {line.split(": ")[1] for line in result.report if "SCoP at" in line and " optimized " in line}
    assert {"relax", "smooth_masked", "count_in_range"} <= optimized
    if target == "openmp":
        assert {"threshold", "clamp3", "nested", "flip", "shift_where", "excess", "clipped", "guarded_division"} <= optimized
    assert not any("read in a condition" in line for line in result.report)


def _function(tmp_path, text: str, name: str):
    path = tmp_path / "k.c"
    path.write_text(textwrap.dedent(text))
    unit, _ = lift_c_file(str(path))
    return next(f for f in unit.functions if f.name == name)


def _tasklets(sdfg) -> list[Tasklet]:
    return [c for n in walk(sdfg.body) if isinstance(n, Block) for c in n.graph.nodes if isinstance(c, Tasklet)]


def test_an_if_of_two_assignments_reads_its_condition_once(tmp_path):
    sdfg = selects_for_data_conditions(_function(tmp_path, PROGRAM, "argmax"))
    assert not any(isinstance(n, IfElse) for n in walk(sdfg.body))
    declared = [n.name for n in walk(sdfg.body) if isinstance(n, Declare)]
    assert declared[-1:] == ["s2s_cond"] and "s2s_cond" not in declared[:-1]
    guarded = [t for t in _tasklets(sdfg) if t.guarded_store]
    assert len(guarded) == 2   # mx and w, each stored where the condition's scalar holds
    assert "s2s_cond" in sdfg.container_map
    (scop,) = find_scops(sdfg)
    assert len(scop.statements) == 4   # (with `*where = w` after the loop)


def test_if_and_else_storing_one_element_is_one_select(tmp_path):
    sdfg = selects_for_data_conditions(_function(tmp_path, PROGRAM, "threshold"))
    (t,) = _tasklets(sdfg)
    assert not t.guarded_store    # (both branches store: the store is the program's)


def test_a_branchs_local_is_declared_before_the_selects(tmp_path):
    sdfg = selects_for_data_conditions(_function(tmp_path, PROGRAM, "excess"))
    assert not any(isinstance(n, IfElse) for n in walk(sdfg.body))
    declares = {n.name: n for n in walk(sdfg.body) if isinstance(n, Declare)}
    assert declares["d"].init is None and declares["d"].assigned_later
    (local,) = [t for t in _tasklets(sdfg) if "d" in {e.data for e in _writes(sdfg, t)}]
    assert not local.guarded_store   # (d = c ? a[i] - t : 0: no iteration reads another's d)


def _writes(sdfg, t: Tasklet):
    return [e for n in walk(sdfg.body) if isinstance(n, Block) for e in n.graph.out_edges(t.id)
            if t in n.graph.nodes]


def test_ifs_that_cannot_be_selects_stay(tmp_path):
    text = """
    #include <stdio.h>
    void f(int n, double *a, double *b, int k) {
      for (int i = 0; i < n; i++) {
        if (a[i] > 0) printf("%d\\n", i);
        if (a[i] > 1) for (int j = 0; j < n; j++) b[j] += a[i];
        if (i < k) b[i] = 0;
        if (a[i] > 2) { double w = a[i] * 2; b[i] = w; } else { double w = a[i] - 2; b[i] += w; }
      }
    }
    """
    sdfg = _function(tmp_path, text, "f")
    assert selects_for_data_conditions(sdfg) is sdfg


def test_a_guarded_store_prints_as_the_users_if(tmp_path):
    result, ref, out = optimized_and_both_outputs(tmp_path / "conditions.c", PROGRAM, "openmp")
    assert out == ref
    assert "if (s2s_cond) b[i] = a[i] * 2;" in result.source
    # (an integer element stored from a floating-point value converts as the store did)
    assert "l[i] = v[i] > 0.5 ? (long)(v[i] * 3.0) : l[i] + 1;" in result.source
