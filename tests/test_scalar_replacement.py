"""Elements an innermost loop of regenerated code updates in every iteration live in locals for
the loop's duration: loaded before it (only where it runs), stored after it."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from s2s.driver.pipeline import PipelineOptions, optimize_c_file

ROW_PROFILES = r"""
#include <stdio.h>
#include <stdlib.h>
#define H 204
#define W 301
/* each row of two images weighted by a column profile: matrix-vector products, each row's sum
   in the order written */
void row_profiles(const double *img, const double *ref, const double *profile, double *sum_img,
                  double *sum_ref) {
  for (int y = 0; y < H; y++) {
    sum_img[y] = 0.0;
    sum_ref[y] = 0.0;
    for (int x = 0; x < W; x++) {
      sum_img[y] += img[y * W + x] * profile[x];
      sum_ref[y] += ref[y * W + x] * profile[x];
    }
  }
}
int main(void) {
  double *img = malloc(sizeof(double) * H * W), *ref = malloc(sizeof(double) * H * W);
  double *profile = malloc(sizeof(double) * W), *a = malloc(sizeof(double) * H), *b = malloc(sizeof(double) * H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      img[y * W + x] = ((y * 31 + x * 17) % 255) / 255.0;
      ref[y * W + x] = ((y * 7 + x * 3) % 101) / 101.0;
    }
  for (int x = 0; x < W; x++)
    profile[x] = 1.0 / (1 + x % 13);
  row_profiles(img, ref, profile, a, b);
  for (int y = 0; y < H; y++)
    printf("%a %a\n", a[y], b[y]);
  return 0;
}
"""

# w[i - 1] exists only for i >= 1, where the inner loop runs; w[m] may be any of the w[i - 1]
SHIFTED = r"""
#include <stdio.h>
#include <stdlib.h>
#define N 300
void shifted_row_sums(double *w, const double *a, int m) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < i; j++) {
      w[i - 1] += a[i * N + j];
      w[m] += 0.5 * a[i * N + j];
    }
}
int main(int argc, char **argv) {
  int m = argc > 1 ? atoi(argv[1]) : 7;
  double *w = malloc(sizeof(double) * (N - 1)), *a = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N - 1; i++) w[i] = i;
  for (int i = 0; i < N * N; i++) a[i] = (i % 17) * 0.5;
  shifted_row_sums(w, a, m);
  for (int i = 0; i < N - 1; i++) printf("%a\n", w[i]);
  free(w); free(a);
  return 0;
}
"""


def _output(src: Path, exe: Path, flags: list[str]) -> str:
    subprocess.run(["cc", "-O1", *flags, str(src), "-o", str(exe), "-lm"], check=True)
    env = {**os.environ, "OMP_NUM_THREADS": "2", "ASAN_OPTIONS": "detect_leaks=0"}
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True, env=env).stdout


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_row_sums_accumulate_in_locals(tmp_path, target):
    src = tmp_path / "rows.c"
    src.write_text(ROW_PROFILES)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target=target, report=True))
    kernel = result.source[result.source.index("void row_profiles("):result.source.index("int main(")]
    # four rows jammed, each row's two sums in locals across the loop over x
    assert len(re.findall(r"double sum_img_r\d+ = sum_img\[", kernel)) == 4, kernel
    assert len(re.findall(r"double sum_ref_r\d+ = sum_ref\[", kernel)) == 4, kernel
    gen = tmp_path / "rows.opt.c"
    gen.write_text(result.source)
    flags = ["-fopenmp"] if target == "openmp" else []
    assert _output(gen, tmp_path / "opt", flags) == _output(src, tmp_path / "ref", [])


def test_no_local_for_an_element_that_may_be_another_one(tmp_path):
    """w[i - 1] and w[m] may be one element: neither is kept in a local. And a load happens only
    where the loop runs (checked by AddressSanitizer on the element before w[0])."""
    src = tmp_path / "shifted.c"
    src.write_text(SHIFTED)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", report=True, profitability=False))
    assert any(": shifted_row_sums: " in ln and "optimized" in ln for ln in result.report), result.report
    kernel = result.source[result.source.index("void shifted_row_sums("):result.source.index("int main(")]
    assert "w_r" not in kernel
    gen = tmp_path / "shifted.opt.c"
    gen.write_text(result.source)
    sanitize = ["-fsanitize=address", "-fno-sanitize-recover=all"]
    assert _output(gen, tmp_path / "opt", sanitize) == _output(src, tmp_path / "ref", [])
    alone = tmp_path / "alone.c"   # without w[m]: w[i - 1] is kept, loaded only for i >= 1
    alone.write_text(SHIFTED.replace("      w[m] += 0.5 * a[i * N + j];\n", ""))
    result = optimize_c_file(str(alone), [], PipelineOptions(mode="pluto", report=True, profitability=False))
    assert re.search(r"double w_r0 = w\[\w+ - 1\];", result.source), result.source
    gen = tmp_path / "alone.opt.c"
    gen.write_text(result.source)
    assert _output(gen, tmp_path / "alone_opt", sanitize) == _output(alone, tmp_path / "alone_ref", [])


# a recurrence over earlier elements of the same array: w[j] for the j of the loop below i
EARLIER_ELEMENTS = r"""
#include <stdio.h>
#define N 203
void weighted_prefix(double *w, const double *a) {
  for (int i = 1; i < N; i++)
    for (int j = 0; j < i; j++)
      w[i] += a[i * N + j] * w[j];
}
int main(void) {
  static double w[N], a[N * N];
  for (int i = 0; i < N; i++) w[i] = 1.0 / (1 + i % 5);
  for (int i = 0; i < N * N; i++) a[i] = (i % 17) / 64.0 - 0.1;
  weighted_prefix(w, a);
  for (int i = 0; i < N; i++) printf("%a\n", w[i]);
  return 0;
}
"""


@pytest.mark.parametrize("bound", ["j < i", "j <= i"])
def test_an_element_kept_apart_from_those_the_loop_walks(tmp_path, bound):
    """w[i] is kept in a local across the loop over j where no iteration reaches it through w[j]
    (j < i); where one does (j <= i: the last iteration reads the element it updates), the loop
    is split there and the pieces before and after it keep it (test_loop_split.py)."""
    src = tmp_path / "prefix.c"
    src.write_text(EARLIER_ELEMENTS.replace("j < i;", bound + ";"))
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", report=True, profitability=False))
    kernel = result.source[result.source.index("void weighted_prefix("):result.source.index("int main(")]
    assert re.search(r"double w_r\d+ = w\[", kernel), kernel
    gen = tmp_path / "prefix.opt.c"
    gen.write_text(result.source)
    assert _output(gen, tmp_path / "opt", []) == _output(src, tmp_path / "ref", []), kernel
