"""Scalars renamed per web (s2s.transforms.webs): which scalars are split, and a recursive image
filter whose passes share their running values, optimized (each pass's scalars expanded along the
rows or columns it runs over, columns filtered along rows) and computing what gcc computes."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from c_build import optimized_and_both_outputs
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.transforms.webs import split_webs


def _split(tmp_path: Path, body: str, after: str = "") -> str | None:
    src = tmp_path / "k.c"
    src.write_text("double X[64][64], Y[64][64], out;\n"
                   f"void k(int n, double *p) {{\n  int i, j;\n  double s, t;\n"
                   f"{textwrap.indent(body, '  ')}{after}}}\n")
    unit, _ = lift_c_file(str(src), [])
    (scop,) = find_scops(unit.functions[0])
    split = split_webs(scop)
    return None if split is None else split.note


TWO_PASSES = """\
for (i = 0; i < n; i++) {
  s = 0.0;
  for (j = 0; j < n; j++) {
    s = 0.5 * s + X[i][j];
    Y[i][j] = s;
  }
}
for (j = 0; j < n; j++) {
  s = 0.0;
  for (i = 0; i < n; i++) {
    s = 0.5 * s + Y[i][j];
    X[i][j] = s;
  }
}
"""


def test_a_scalar_each_pass_starts_anew_gets_a_variable_per_pass(tmp_path):
    assert _split(tmp_path, TWO_PASSES) == "s split into a variable per computation (web) each"


def test_a_temporary_declared_in_each_pass_gets_a_variable_per_pass(tmp_path):
    declared = TWO_PASSES.replace("s = 0.5 * s + X[i][j];\n    Y[i][j] = s;",
                                  "double u = 0.5 * s + X[i][j];\n    s = u;\n    Y[i][j] = u;")
    declared = declared.replace("s = 0.5 * s + Y[i][j];\n    X[i][j] = s;",
                                "double u = 0.5 * s + Y[i][j];\n    s = u;\n    X[i][j] = u;")
    assert declared.count("double u") == 2
    assert _split(tmp_path, declared) == "s, u split into a variable per computation (web) each"
    # without an initial value, which web a declaration starts is not told: left as it is
    uninitialized = declared.replace("double u = ", "double u;\n    u = ")
    assert _split(tmp_path, uninitialized) == "s split into a variable per computation (web) each"


@pytest.mark.parametrize("body, after", [
    (TWO_PASSES, "  out = s;\n"),                                     # read after the SCoP
    (TWO_PASSES.replace("s = 0.0;\n  for (i", "for (i", 1), ""),      # the second pass goes on from the first
    (TWO_PASSES.replace("  s = 0.0;\n", "", 1), ""),                  # a value from before the SCoP
    (TWO_PASSES, "  p = &s;\n"),                                      # its address taken
])
def test_scalars_whose_values_may_be_seen_across_passes_keep_their_name(tmp_path, body, after):
    assert _split(tmp_path, body, after) is None


RECURSIVE_SMOOTHING = """
#include <stdio.h>
#include <stdlib.h>
/* A second-order recursive (IIR) smoothing of an image, as in edge detectors: each row filtered
   left to right and right to left, the sum in out; then each column top to bottom and bottom to
   top. The passes share their running values. */
static void smooth(int h, int w, float img[h][w], float fwd[h][w], float out[h][w],
                   float a0, float a1, float b1, float b2) {
  float in1, run1, run2, v;
  for (int y = 0; y < h; y++) {
    in1 = 0.0f; run1 = 0.0f; run2 = 0.0f;
    for (int x = 0; x < w; x++) {
      fwd[y][x] = a0 * img[y][x] + a1 * in1 + b1 * run1 + b2 * run2;
      in1 = img[y][x];
      run2 = run1;
      run1 = fwd[y][x];
    }
  }
  for (int y = 0; y < h; y++) {
    in1 = 0.0f; run1 = 0.0f; run2 = 0.0f;
    for (int x = w - 1; x >= 0; x--) {
      v = a1 * in1 + b1 * run1 + b2 * run2;
      out[y][x] = fwd[y][x] + v;
      in1 = img[y][x];
      run2 = run1;
      run1 = v;
    }
  }
  for (int x = 0; x < w; x++) {
    in1 = 0.0f; run1 = 0.0f; run2 = 0.0f;
    for (int y = 0; y < h; y++) {
      fwd[y][x] = a0 * out[y][x] + a1 * in1 + b1 * run1 + b2 * run2;
      in1 = out[y][x];
      run2 = run1;
      run1 = fwd[y][x];
    }
  }
  for (int x = 0; x < w; x++) {
    in1 = 0.0f; run1 = 0.0f; run2 = 0.0f;
    for (int y = h - 1; y >= 0; y--) {
      v = a1 * in1 + b1 * run1 + b2 * run2;
      in1 = out[y][x];
      out[y][x] = fwd[y][x] + v;
      run2 = run1;
      run1 = v;
    }
  }
}
int main(int argc, char **argv) {
  int h = argc > 1 ? atoi(argv[1]) : 301, w = argc > 2 ? atoi(argv[2]) : 203;
  float (*img)[w] = malloc(sizeof(float) * h * w), (*fwd)[w] = malloc(sizeof(float) * h * w);
  float (*out)[w] = malloc(sizeof(float) * h * w);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      img[y][x] = (float)((y * 37 + x * 11) % 256) / 255.0f;
  smooth(h, w, img, fwd, out, 0.25f, 0.125f, 0.5f, -0.0625f);
  for (int y = 0; y < h; y += 7)
    for (int x = 0; x < w; x += 5)
      printf("%a\\n", out[y][x]);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_a_recursive_filter_runs_its_columns_along_rows_and_computes_the_same(tmp_path, target, monkeypatch):
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=0,parallel_start=0,parallel_wake=0")
    result, ref, out = optimized_and_both_outputs(tmp_path / "smooth.c", RECURSIVE_SMOOTHING, target)
    (line,) = [ln for ln in result.report if ": smooth: " in ln and "recipe" not in ln]
    assert "optimized" in line and "split into a variable per computation" in line, line
    assert "expanded along x" in line and "expanded along y" in line, line
    assert out == ref
    body = result.source[result.source.index("smooth("):]
    # a column pass: its running values kept per column, so that a row of columns runs at once
    assert re.search(r"in1_3_x\[[c0-9 +-]+\] = out\[", body), body
