"""Scalar accumulators forwarded into the element they are stored to (s2s.transforms.accumulators):
which scalars qualify, and that an LU decomposition written with one (ludcmp's shape, with its
two substitutions in the same SCoP, one running downward) is tiled like the one without and
computes bit for bit what the loops computed."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from c_build import optimized_and_both_outputs
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.transforms.accumulators import forwardable


def _forwarded(tmp_path: Path, body: str, after: str = "") -> list[str]:
    src = tmp_path / "k.c"
    src.write_text("double A[40][40], B[40], x[40], y[40];\nfloat F[40];\n"
                   f"double k(int n) {{\n  int i, j, k;\n  double s = 0.0;\n{textwrap.indent(body, '  ')}"
                   f"  {after}\n  return 0.0;\n}}\n")
    unit, _ = lift_c_file(str(src), [])
    (scop,) = find_scops(unit.functions[0])
    return [f"{f.scalar}->{f.array}" for f in forwardable(scop)]


DOT = "for (i = 0; i < n; i++) {\n  s = 0.0;\n  for (j = 0; j < n; j++)\n    s += A[i][j] * x[j];\n  %s\n}\n"


def test_a_dot_product_per_row_is_accumulated_in_its_element(tmp_path):
    assert _forwarded(tmp_path, DOT % "y[i] = s;") == ["s->y"]
    assert _forwarded(tmp_path, DOT % "y[i] = s / A[i][i];") == ["s->y"]


@pytest.mark.parametrize("store, after", [
    ("y[i] = y[i] * 0.5 + s;", ""),                    # the store reads the element's old value
    ("y[i] = s;", "x[0] = s;"),                        # s is read after the SCoP
    ("if (i > 2) y[i] = s;", ""),                      # not stored in every iteration
    ("F[i] = s;", ""),                                 # stored in another type: rounding differs
    ("y[i] = s; x[i] = s;", ""),                       # read twice
])
def test_accumulators_that_must_stay_scalars(tmp_path, store, after):
    assert _forwarded(tmp_path, DOT % store, after) == []


def test_an_element_touched_before_the_store_keeps_the_scalar(tmp_path):
    body = ("for (i = 0; i < n; i++) {\n  s = 0.0;\n  for (j = 0; j < n; j++) {\n    s += A[i][j];\n"
            "    y[j] = y[j] + 1.0;\n  }\n  y[i] = s;\n}\n")
    assert _forwarded(tmp_path, body) == []


PROGRAM = r"""
#include <stdio.h>
#define N 83
static double A[N][N], b[N], x[N], y[N];

static void ludcmp(int n, double A[N][N], double b[N], double x[N], double y[N])
{
  int i, j, k;
  double w;
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  for (i = 0; i < n; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = n - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
}

int main(void)
{
  for (int i = 0; i < N; i++) {
    b[i] = (i + 1) / (double)N / 2.0 + 4.0;
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * 7 + j * 3) % 11) / N + (i == j ? N : 0.0);
  }
  ludcmp(N, A, b, x, y);
  ludcmp(N - 20, A, b, x, y);
  for (int i = 0; i < N; i++) {
    printf("%a %a\n", x[i], y[i]);
    for (int j = 0; j < N; j++)
      printf("%a\n", A[i][j]);
  }
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_lu_with_an_accumulator_is_tiled_as_lu_and_computes_the_same(tmp_path, target, monkeypatch):
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=0,parallel_start=0,parallel_wake=0,"
                                              "parallel_wavefront=0")
    result, ref, out = optimized_and_both_outputs(tmp_path / "lud.c", PROGRAM, target)
    (line,) = [ln for ln in result.report if ": ludcmp:" in ln]
    assert "w split into a variable per computation (web) each" in line, line
    assert ("w accumulated in A[i][j], w_2 accumulated in A[i][j], w_3 accumulated in y[i], "
            "w_4 accumulated in x[i]") in line, line
    assert "bands of 3" in line, line   # (lu's band: the back substitution does not hold it up)
    assert out == ref


def test_two_scalars_stored_together_go_one_into_the_element(tmp_path):
    """``a = ..; b = ..; X[f] = a + b;``: each alone could live in X[f], not both (the second's
    write would overwrite the first's value before the store reads it)."""
    body = "for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++) {\n    s = i;\n    t = j;\n    A[i][j] = s + t;\n  }\n"
    src = tmp_path / "k.c"
    src.write_text("double A[40][40];\nvoid k(int n) {\n  int i, j;\n  double s, t;\n" + textwrap.indent(body, "  ") + "}\n")
    unit, _ = lift_c_file(str(src), [])
    (scop,) = find_scops(unit.functions[0])
    assert [f"{f.scalar}->{f.array}" for f in forwardable(scop)] == ["s->A"]


GRADIENT = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* the shape of a Sobel filter and of a plain sum of two temporaries, on flat pointer arrays */
static void gradient(int w, int h, const float *in, float *mag)
{
  float gx, gy;
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++) {
      gx = in[(y - 1) * w + x + 1] + 2.0f * in[y * w + x + 1] + in[(y + 1) * w + x + 1]
         - in[(y - 1) * w + x - 1] - 2.0f * in[y * w + x - 1] - in[(y + 1) * w + x - 1];
      gy = in[(y + 1) * w + x - 1] + 2.0f * in[(y + 1) * w + x] + in[(y + 1) * w + x + 1]
         - in[(y - 1) * w + x - 1] - 2.0f * in[(y - 1) * w + x] - in[(y - 1) * w + x + 1];
      mag[y * w + x] = gx * gx + gy * gy;
    }
}

static void sums(int n, double *out)
{
  double a, b;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      a = i;
      b = j;
      out[i * n + j] = a + b;
    }
}

int main(void)
{
  int w = 97, h = 61, n = 150;
  float *in = malloc(sizeof(float) * w * h), *mag = calloc((size_t)w * h, sizeof(float));
  double *out = malloc(sizeof(double) * n * n);
  for (int i = 0; i < w * h; i++)
    in[i] = (float)((i * 37) % 101) / 101.0f;
  gradient(w, h, in, mag);
  sums(n, out);
  for (int i = 0; i < w * h; i += 7)
    printf("%a\n", mag[i]);
  for (int i = 0; i < n * n; i += 11)
    printf("%a\n", out[i]);
  free(in); free(mag); free(out);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_temporaries_combined_in_one_store_compute_the_same(tmp_path, target):
    """Rewritten, gain or not (on one thread the rules keep the user's loops: their tiles would
    be for sizes known only at run time, over sums forwarded to memory)."""
    from c_build import outputs_of_both_builds
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "gradient.c"
    path.write_text(GRADIENT)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
    assert result.changed
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    assert out == ref
