"""Temporaries written into the statements that read them (s2s/transforms/temporaries.py): which
are, and that the programs print what gcc's builds print, on one thread and under OpenMP."""
from __future__ import annotations

import textwrap

import pytest

from c_build import optimized_and_both_outputs
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.transforms.temporaries import substitute_temporaries

PROGRAM = """
#include <stdio.h>
#include <math.h>
#define R 700
#define C 96
double v[R][C], mean[C], sd[C], w[R][C];
int q[R][C];
{kernel}
int main(void)
{{
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      v[i][j] = (double)((i * 31 + j * 7) % 53) / 7.0 + 0.01 * j;
  for (int j = 0; j < C; j++)
    mean[j] = 3.0 + 0.1 * (j % 5), sd[j] = 0.0;
  kernel();
  double s = 0.0;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      s += w[i][j] * ((i + j) % 3) + q[i][j];
  for (int j = 0; j < C; j++)
    s += sd[j] * (j + 1);
  printf("%.17g\\n", s);
  return 0;
}}
"""

KERNELS = {
    "column deviations through a temporary": """
static void kernel(void)
{
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      double d = v[i][j] - mean[j];
      sd[j] += d * d;
    }
}
""",
    "a temporary rounded to an integer, and one of a call read once": """
static void kernel(void)
{
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      int k = v[i][j] * 2.5;
      double e = exp(-v[i][j]);
      q[i][j] = k + 1;
      w[i][j] = e + 0.5 * k;
    }
}
""",
    "an alpha per pixel read by each channel": """
static void kernel(void)
{
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C / 4; j++) {
      int a = (int)v[i][4 * j + 3] & 255;
      for (int c = 0; c < 3; c++)
        q[i][4 * j + c] = ((int)(v[i][4 * j + c] * 9.0) * a + (int)mean[4 * j + c] * (255 - a) + 128) >> 8;
      q[i][4 * j + 3] = a;
    }
}
""",
}


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_temporaries_written_in_compute_what_gcc_computes(tmp_path, name, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "k.c", PROGRAM.format(kernel=KERNELS[name]), target)
    assert out == ref


def _substituted(tmp_path, body: str):
    src = tmp_path / "t.c"
    src.write_text("#include <math.h>\ndouble a[50][60], b[60], c[50][60];\n"
                   f"void t(int n, int m) {{\n{textwrap.indent(body, '  ')}}}\n")
    unit, _ = lift_c_file(str(src), [])
    (scop,) = find_scops(unit.functions[0])
    return substitute_temporaries(scop)


def test_a_column_deviation_loses_its_temporary(tmp_path):
    found = _substituted(tmp_path, "for (int i = 0; i < n; i++)\n  for (int j = 0; j < m; j++) {\n"
                                   "    double d = a[i][j] - b[j];\n    c[i][j] = d * d;\n  }\n")
    assert found is not None and found.note == "d written into where it is read"
    assert len(found.scop.statements) == 1 and found.scop.declared == ()


def test_a_pixel_alpha_read_by_each_channel_is_written_in(tmp_path):
    """A value per pixel read in the loop over its channels (an alpha blend's ``a``): written into
    each channel's statement, the nest has no scalar to order its pixels by (it was cut into
    skewed tiles, six times slower than gcc on 1920x1080 RGBA images)."""
    found = _substituted(tmp_path, "for (int i = 0; i < n; i++)\n  for (int j = 0; j < 15; j++) {\n"
                                   "    double al = a[i][4 * j + 3];\n    for (int k = 0; k < 3; k++)\n"
                                   "      c[i][4 * j + k] = a[i][4 * j + k] * al + b[4 * j + k] * (1.0 - al);\n"
                                   "    c[i][4 * j + 3] = al;\n  }\n")
    assert found is not None and found.note == "al written into where it is read"


@pytest.mark.parametrize("body", [
    # written twice
    "for (int i = 0; i < n; i++) {\n  double d = a[i][0];\n  d = d + b[i];\n  c[i][0] = d;\n}\n",
    # what it reads is written in the SCoP
    "for (int i = 0; i < n; i++)\n  for (int j = 0; j < m; j++) {\n    double d = a[i][j];\n"
    "    a[i][j] = d * 2.0;\n  }\n",
    # a call, read twice
    "for (int i = 0; i < n; i++) {\n  double e = exp(a[i][0]);\n  c[i][0] = e * e;\n}\n",
    # read in a loop inside its own, where its value is a call's
    "for (int i = 0; i < n; i++) {\n  double e = exp(b[i]);\n  for (int j = 0; j < m; j++)\n    c[i][j] = e;\n}\n",
])
def test_what_keeps_its_temporary(tmp_path, body):
    assert _substituted(tmp_path, body) is None


CONST_AFTER_LOOP = """
#include <stdio.h>
double g, a[300];
void f(int n) {
  if (n > 0) {
    long last = 0;
    for (long i = 0; i < n; i++) { a[i] = a[i] * 2 + i; last = i + 1; }
    const int k = (int)last;   /* a const local the rewritten region declares first */
    double d = (double)k;
    g = d;
  }
}
int main(void) {
  for (int i = 0; i < 300; i++) a[i] = i % 7;
  f(300);
  double s = g;
  for (int i = 0; i < 300; i++) s += a[i] * (i % 3);
  printf("%.17g\\n", s);
  return 0;
}
"""


def test_a_const_local_of_a_rewritten_region_is_set_not_redeclared(tmp_path):
    """The region's temporaries are declared before its new loops and set where the user's code
    set them: ``const`` does not carry over (it did, and the generated code did not compile:
    s2s-cc fell back; fuzz seed 7000903 through the LLVM front end, whose lifted C has them)."""
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file
    from c_build import outputs_of_both_builds

    path = tmp_path / "k.c"
    path.write_text(CONST_AFTER_LOOP)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", profitability=False))
    assert result.changed and "int k = 0;" in result.source and "const int k = 0;" not in result.source
    ref, out = outputs_of_both_builds(path, result.source, openmp=False)
    assert out == ref
