"""Constant sizes read as parameters for the scheduler (s2s.analysis.size_parameters): which
constants become parameters, that the copy is the nest itself at their values, that a nest of
constant sizes is scheduled as the same nest over a parameter is, and computes what it computed."""
from __future__ import annotations

from pathlib import Path

import islpy as isl

from c_build import optimized_and_both_outputs
from frontends.c import lift_c_file
from s2s.analysis import compute_dependences, find_scops
from s2s.analysis.size_parameters import size_parameters
from s2s.schedule.pluto import PlutoScheduler

# adi's two sweeps, in a time loop (the scheduler's integer programs over the constants took
# isl minutes; over a parameter, milliseconds)
SWEEPS = r"""
#include <stdio.h>
#define N {n}
#define T {t}
static double u[1000][1000], v[1000][1000], p[1000][1000], q[1000][1000];

static void sweeps({params})
{{
  int t, i, j;
  for (t = 1; t <= T; t++) {{
    for (i = 1; i < N - 1; i++) {{
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
      for (j = 1; j < N - 1; j++) {{
        p[i][j] = 0.5 / (2.0 - 0.25 * p[i][j - 1]);
        q[i][j] = (u[j][i - 1] + 0.5 * u[j][i] + u[j][i + 1] - 0.25 * q[i][j - 1]) / (2.0 - 0.25 * p[i][j - 1]);
      }}
      v[N - 1][i] = 1.0;
      for (j = N - 2; j >= 1; j--)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    }}
    for (i = 1; i < N - 1; i++) {{
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (j = 1; j < N - 1; j++) {{
        p[i][j] = 0.5 / (2.0 - 0.25 * p[i][j - 1]);
        q[i][j] = (v[i - 1][j] + 0.5 * v[i][j] + v[i + 1][j] - 0.25 * q[i][j - 1]) / (2.0 - 0.25 * p[i][j - 1]);
      }}
      u[i][N - 1] = 1.0;
      for (j = N - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }}
  }}
}}

int main(void)
{{
  for (int i = 0; i < 1000; i++)
    for (int j = 0; j < 1000; j++)
      u[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
  sweeps({args});
  double s = 0.0;
  for (int i = 0; i < 1000; i++)
    for (int j = 0; j < 1000; j++)
      s += u[i][j] * (double)(1 + (i + j) % 5);
  printf("%a %a %a\n", s, u[7][9], v[N / 2][N / 3]);
  return 0;
}}
"""


def _scop(tmp_path: Path, text: str, name: str = "k.c"):
    src = tmp_path / name
    src.write_text(text)
    unit, _ = lift_c_file(str(src), [])
    function = next(f for f in unit.functions if f.name != "main")
    (scop,) = find_scops(function)
    return scop


def _rows(scop):
    sched = PlutoScheduler(scop, compute_dependences(scop)).schedule()
    return [(r.kind, r.band, sorted(r.coefficients.items())) for r in sched.rows]


def test_sizes_near_each_other_are_one_parameter(tmp_path):
    scop = _scop(tmp_path, SWEEPS.format(n=1000, t=20, params="void", args=""))
    sized = size_parameters(scop)
    assert sized is not None
    assert [p for p in sized.params if p.startswith("s2s_size_")] == ["s2s_size_1000"]   # (T = 20: a count)
    st, copy = scop.statements[-1], sized.statements[-1]
    at_sizes = copy.domain.fix_val(isl.dim_type.param, copy.domain.find_dim_by_name(isl.dim_type.param, "s2s_size_1000"),
                                   isl.Val.int_from_si(copy.domain.get_ctx(), 1000))
    assert at_sizes.project_out(isl.dim_type.param, 0, 1).is_equal(st.domain)
    assert not copy.domain.is_equal(st.domain)


def test_a_row_width_that_multiplies_stays_a_constant(tmp_path):
    scop = _scop(tmp_path, "void f(double *a, double *b) {\n  for (int i = 1; i < 100; i++)\n"
                           "    for (int j = 0; j < 100; j++)\n      a[i * 100 + j] = a[(i - 1) * 100 + j] + b[j];\n}\n")
    assert size_parameters(scop) is None


def test_small_constants_stay_constants(tmp_path):
    scop = _scop(tmp_path, "void f(double a[20][20]) {\n  for (int i = 1; i < 20; i++)\n"
                           "    for (int j = 0; j < 20; j++)\n      a[i][j] += a[i - 1][j];\n}\n")
    assert size_parameters(scop) is None


def test_constant_sizes_are_scheduled_as_a_parameter_is(tmp_path):
    constant = _scop(tmp_path, SWEEPS.format(n=1000, t=20, params="void", args=""), "c.c")
    parametric = _scop(tmp_path, SWEEPS.format(n="n", t=20, params="int n", args="1000"), "p.c")
    assert _rows(size_parameters(constant)) == _rows(parametric)


def test_a_nest_of_constant_sizes_is_optimized_and_computes_the_same(tmp_path):
    result, ref, out = optimized_and_both_outputs(tmp_path / "sweeps.c", SWEEPS.format(n=1000, t=40, params="void",
                                                                                        args=""), "c")
    line = next(x for x in result.report if "sweeps: SCoP" in x)
    assert "optimized" in line and "time budget" not in line, line
    assert ref == out
