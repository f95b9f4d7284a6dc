"""What a SCoP's model assumes of its parameters (``Scop.context``): a linearized subscript is
taken apart where its index provably stays within a row under a plain condition on the
parameters (``m >= 2 * n`` for ``x[c * m + 2 * i]``); the optimized code runs where the condition
holds at run time, the user's loops elsewhere."""
from __future__ import annotations

import textwrap

import islpy as isl
import pytest

from c_build import outputs_of_both_builds
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.ir import Const

DECIMATE = """
#include <stdio.h>
#include <stdlib.h>

/* every other sample of each of 4 channels of m samples, n of them, into channels of n */
static void decimate(int n, int m, const float *x, float *y)
{
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < n; i++)
            y[c * n + i] = 0.5f * (x[c * m + 2 * i] + x[c * m + 2 * i + 1]);
}

int main(void)
{
    float *x = malloc(sizeof(float) * 4000), *y = malloc(sizeof(float) * 4000);
    for (int k = 0; k < 4000; k++) { x[k] = (float)((k * 7) % 19); y[k] = -1.0f; }
    decimate(400, 900, x, y);     /* the rows apart: the model holds */
    decimate(300, 500, x, y);     /* a channel's samples run into the next: the user's loops */
    decimate(0, 0, x, y);
    double s = 0.0;
    for (int k = 0; k < 4000; k++) s += y[k] * (k % 13 + 1);
    printf("%.17g\\n", s);
    return 0;
}
"""


def test_the_model_assumes_the_rows_apart(tmp_path):
    src = tmp_path / "d.c"
    src.write_text(DECIMATE)
    unit, _ = lift_c_file(str(src))
    (scop,) = find_scops(next(f for f in unit.functions if f.name == "decimate"))
    assert not scop.context.plain_is_universe() and "m" in str(scop.context)


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_where_the_assumption_fails_the_users_loops_run(tmp_path, target):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "d.c"
    path.write_text(DECIMATE)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
    (line,) = [ln for ln in result.report if ": decimate: " in ln and "recipe" not in ln]
    assert "optimized" in line and "what its model assumes of the parameters" in line, line
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    assert out == ref


def test_nothing_is_assumed_where_no_instance_would_run(tmp_path):
    """``y[c * m + i - 1]`` leaves its row at i = 0 whatever m is: no SCoP (where n > 0)."""
    src = tmp_path / "q.c"
    src.write_text(textwrap.dedent("""
        void f(int n, int m, float *y) {
            for (int c = 0; c < 4; c++)
                for (int i = 0; i < n; i++)
                    y[c * m + i - 1] = 0.0f;
        }
    """))
    unit, _ = lift_c_file(str(src))
    obstacles: list = []
    assert not find_scops(unit.functions[0], obstacles)
    assert any("cannot delinearize" in o.what for o in obstacles)


TWO_ROW_LENGTHS = """
#include <stdio.h>
double a[200], b[40];
/* fuzz seed 7001316 (through the LLVM front end, then the C path): at the statement alone,
   i and j are parameters; a[i * -13 + 134 + j] read as row -13 of rows i long, and the write
   a[i * 13 + 135 + j] in row 0 of them, need of i and j what no values give together */
void kernel(int n)
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      a[i * 13 + 135 + j] = a[i * -13 + 134 + j];
      for (int k = 0; k < n; k++)
        if ((k & 1) == 0) {} else b[k] = 1.0;
    }
}
int main(void)
{
  for (int k = 0; k < 200; k++) a[k] = k % 7 - 3;
  kernel(12);
  double s = 0;
  for (int k = 0; k < 200; k++) s += a[k] * (k + 1);
  for (int k = 0; k < 40; k++) s += b[k];
  printf("%.17g\\n", s);
  return 0;
}
"""


def test_assumptions_no_values_meet_together_are_no_model(tmp_path):
    """Each delinearized access's assumption alone leaves instances, all of them together none:
    that statement was modelled as running nowhere, with no run-time test, and deleted."""
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file
    from s2s.transforms.alias_check import _params_condition

    src = tmp_path / "k.c"
    src.write_text(TWO_ROW_LENGTHS)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", profitability=False))
    ref, out = outputs_of_both_builds(src, result.source, openmp=False)
    assert out == ref
    # (and a model that assumes what no values give is tested as false, should one be made)
    nowhere = isl.Set("[n] -> { : n > 0 and n < 0 }")
    assert _params_condition(nowhere, ("n",)) == Const("0")


NOT_EQUAL = r"""
#include <stdio.h>
#include <stddef.h>

static void up(size_t n, double *x) { for (size_t i = 0; i != n; i++) x[i] += 1.0; }
static void from(int lo, int n, double *x) { for (int i = lo; i != n; i++) x[i] *= 2.0; }
static void down(int hi, int lo, double *x) { for (int i = hi; i != lo; i--) x[i] -= 0.25; }
/* an unsigned counter that starts past its end wraps around (256 values) before it gets there */
static void wraps(unsigned char lo, unsigned char n, double *x) { for (unsigned char i = lo; i != n; i++) x[i] += 0.5; }

int main(void)
{
    static double x[5000];
    for (int k = 0; k < 5000; k++) x[k] = k % 7;
    up(4000, x);
    from(10, 3000, x);
    from(5, 5, x);
    down(4500, 100, x);
    wraps(3, 200, x);
    wraps(250, 20, x);
    double s = 0.0;
    for (int k = 0; k < 5000; k++) s += x[k] * (k % 3 + 1);
    printf("%.17g\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_loops_that_stop_at_a_value_are_scops_where_they_start_before_it(tmp_path, target):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "ne.c"
    path.write_text(NOT_EQUAL)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
    for function in ("up", "from", "down", "wraps"):
        assert any(f": {function}: SCoP at" in ln for ln in result.report), (function, result.report)
    assert "(long long)" in result.source   # (the assumption on the parameters, read as signed)
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    assert out == ref
