"""Scratch arrays expanded along a loop (s2s.transforms.expansion): which arrays qualify, and that
doitgen's row becomes a batched matrix multiply that computes what the loops computed, the
scratch array's final values included."""
from __future__ import annotations

import textwrap
from pathlib import Path

import islpy as isl
import pytest

from c_build import optimized_and_both_outputs
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.transforms.expansion import expand, scratch_arrays


def _scop(tmp_path: Path, body: str):
    src = tmp_path / "k.c"
    src.write_text("double A[20][30][40], C4[40][40], T[40], S[40], X[30][40];\n"
                   f"void k(int nr, int nq, int np) {{\n  int r, q, p, s;\n{textwrap.indent(body, '  ')}}}\n")
    unit, _ = lift_c_file(str(src), [])
    (scop,) = find_scops(unit.functions[0])
    return scop


DOITGEN_BODY = """\
for (r = 0; r < nr; r++)
  for (q = 0; q < nq; q++) {
    for (p = 0; p < np; p++) {
      T[p] = 0.0;
      for (s = 0; s < np; s++)
        T[p] += A[r][q][s] * C4[s][p];
    }
    for (p = 0; p < np; p++)
      A[r][q][p] = T[p];
  }
"""


def test_a_row_rewritten_in_each_iteration_is_expanded_along_that_loop(tmp_path):
    (scratch,) = scratch_arrays(_scop(tmp_path, DOITGEN_BODY))
    assert (scratch.name, [loop.node.var for loop in scratch.loops]) == ("T", ["q"])
    assert "nq" in str(scratch.count[0]) and "-1 + nq" in str(scratch.last[0])
    (deeper,) = scratch_arrays(_scop(tmp_path, DOITGEN_BODY), depth=2)
    assert [loop.node.var for loop in deeper.loops] == ["r", "q"]
    assert ["-1 + nr", "-1 + nq"] == [str(a).split("[(")[1].split(")]")[0] for a in deeper.last]


@pytest.mark.parametrize("after, copied_back", [("", False), ("  use(t);\n", True)])
def test_a_scalar_is_copied_back_only_where_code_after_the_scop_reads_it(tmp_path, after, copied_back):
    src = tmp_path / "k.c"
    src.write_text("double X[30][40];\nvoid use(double);\nvoid k(int nq, int np) {\n  double t;\n"
                   "  for (int q = 0; q < nq; q++) {\n    t = 0.0;\n    for (int p = 0; p < np; p++) {\n"
                   "      t += X[q][p];\n      X[q][p] = t;\n    }\n  }\n" + after + "}\n")
    unit, _ = lift_c_file(str(src), [])
    scop = find_scops(unit.functions[0])[0]
    (scratch,) = [s for s in scratch_arrays(scop) if s.name == "t"]
    assert (scratch.last is not None) == copied_back


def test_a_declaration_reading_an_expanded_array_reads_the_copy(tmp_path):
    """A column's running value, expanded along the columns, read by the initial value of a
    temporary the loop declares: the declaration reads the copy, and nothing is left reading
    the old array, whose values the expanded code no longer sets."""
    scop = _scop(tmp_path, "for (p = 0; p < np; p++) {\n  T[0] = 0.0;\n  for (q = 0; q < nq; q++) {\n"
                           "    double v = 0.5 * T[0] + X[q][p];\n    T[0] = v;\n    X[q][p] = v;\n  }\n}\n")
    scratch = [s for s in scratch_arrays(scop) if s.name == "T"]
    expanded = expand(scop, scratch).scop
    copy_back = expanded.statements[-1]
    assert copy_back.name == "S_Bcopy_T"
    assert not [st.name for st in expanded.statements if st is not copy_back and any(
        m.get_tuple_name(isl.dim_type.out) == "T" for _, m in st.accesses)]


@pytest.mark.parametrize("body", [
    # a value of the previous q is read
    "for (q = 0; q < nq; q++)\n  for (p = 0; p < np; p++) {\n    X[q][p] = T[p];\n    T[p] = X[q][p] * 2.0;\n  }\n",
    # a sum over q
    "for (q = 0; q < nq; q++)\n  for (p = 0; p < np; p++)\n    T[p] += X[q][p];\n",
    # no loop around every access
    "for (p = 0; p < np; p++)\n  T[p] = 1.0;\nfor (p = 0; p < np; p++)\n  S[p] = T[p];\n",
])
def test_arrays_whose_values_cross_iterations_are_not_expanded(tmp_path, body):
    assert scratch_arrays(_scop(tmp_path, body)) == []


PROGRAM = r"""
#include <stdio.h>
static double A[12][13][24], C4[24][24], sum[24];

static void doitgen(int nr, int nq, int np, double A[12][13][24], double C4[24][24], double sum[24])
{
  int r, q, p, s;
""" + textwrap.indent(DOITGEN_BODY.replace("T[", "sum["), "  ") + r"""}

int main(void)
{
  for (int r = 0; r < 12; r++)
    for (int q = 0; q < 13; q++)
      for (int p = 0; p < 24; p++)
        A[r][q][p] = ((r * 5 + q * 3 + p) % 17) / 8.0 - 0.5;
  for (int s = 0; s < 24; s++) {
    sum[s] = -1.0;
    for (int p = 0; p < 24; p++)
      C4[s][p] = ((s * p) % 11) / 5.0;
  }
  doitgen(0, 13, 24, A, C4, sum);   /* nothing runs: sum keeps its values */
  doitgen(0, 13, 24, A, 0, sum);    /* nor is C4 read (none to read) */
  for (int p = 0; p < 24; p++)
    printf("%a\n", sum[p]);
  doitgen(12, 13, 24, A, C4, sum);
  doitgen(5, 13, 20, A, C4, sum);
  for (int r = 0; r < 12; r++)
    for (int q = 0; q < 13; q++)
      for (int p = 0; p < 24; p++)
        printf("%a\n", A[r][q][p]);
  for (int p = 0; p < 24; p++)
    printf("%a\n", sum[p]);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_doitgen_runs_as_a_batched_matmul_and_leaves_the_same_results(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "dg.c", PROGRAM, target)
    (line,) = [ln for ln in result.report if ": doitgen:" in ln]
    assert "sum expanded along q" in line and "1 matrix-multiply statement(s)" in line, line
    assert "sum_x != 0" in result.source   # without memory for the copies, the user's loops run
    if target == "openmp":   # one region around r, each thread with a sum_x of its own
        assert "r parallel on private copies of sum_x" in line, line
    # C4 is read-only, the same in every r: packed once, not once per call
    assert "right factors of the kernel packed once, before loop r" in line, line
    assert out == ref


def test_right_factors_that_change_with_the_batch_loop_are_packed_in_each_call(tmp_path):
    program = PROGRAM.replace("      C4[s][p] = ((s * p) % 11) / 5.0;", "      for (int r = 0; r < 12; r++)\n"
                                                                      "        C4[r][s][p] = ((s * p + r) % 11) / 5.0;")
    program = program.replace("C4[24][24]", "C4[12][24][24]").replace("* C4[s][p]", "* C4[r][s][p]")
    result, ref, out = optimized_and_both_outputs(tmp_path / "dg.c", program, "openmp")
    (line,) = [ln for ln in result.report if ": doitgen:" in ln]
    assert "1 matrix-multiply statement(s)" in line and "packed once" not in line, line
    assert out == ref


SYMM_PROGRAM = r"""
#include <stdio.h>
static double C[37][45], A[37][37], B[37][45];

static double symm(int m, int n, double alpha, double beta, double C[37][45], double A[37][37], double B[37][45])
{
  int i, j, k;
  double temp2 = -3.0;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      temp2 = 0;
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
  return temp2;
}

int main(void)
{
  for (int i = 0; i < 37; i++) {
    for (int j = 0; j < 45; j++) {
      C[i][j] = ((i + j) % 13) / 6.0 - 1.0;
      B[i][j] = ((i * 3 + j) % 7) / 3.0;
    }
    for (int j = 0; j < 37; j++)
      A[i][j] = ((i * j) % 11) / 10.0;
  }
  printf("%a\n", symm(0, 45, 1.5, 1.2, C, A, B));   /* nothing runs: temp2 keeps its value */
  printf("%a\n", symm(37, 45, 1.5, 1.2, C, A, B));
  printf("%a\n", symm(30, 41, 0.5, 1.1, C, A, B));
  for (int i = 0; i < 37; i++)
    for (int j = 0; j < 45; j++)
      printf("%a\n", C[i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_symm_scalar_expanded_so_that_its_column_walk_becomes_a_row_walk(tmp_path, target):
    # (without kernels) temp2 orders every (i, j) iteration after the one before; one per j, and
    # j (now parallel) runs innermost below k: C[k][j] and B[k][j] are walked along rows
    result, ref, out = optimized_and_both_outputs(tmp_path / "symm.c", SYMM_PROGRAM, target, kernels=False)
    (line,) = [ln for ln in result.report if ": symm:" in ln]
    assert "temp2 expanded along j" in line and "innermost below the inner loops" in line, line
    assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_symm_scalar_expanded_along_both_loops_makes_both_halves_kernels(tmp_path, target):
    # temp2[i][j] += B[k][j] * A[i][k] (k < i) and C[k][j] += alpha * B[i][j] * A[i][k] (i > k),
    # each sum in the user's order: bit for bit
    result, ref, out = optimized_and_both_outputs(tmp_path / "symm.c", SYMM_PROGRAM, target)
    (line,) = [ln for ln in result.report if ": symm:" in ln]
    assert "temp2 expanded along i and j" in line and "2 matrix-multiply statement(s)" in line, line
    assert "temp2_x != 0" in result.source   # without memory for the copy, the user's loops run
    assert out == ref


DOT_PRODUCTS = r"""
#include <stdio.h>
#define N 61
static double A[N][N + 3], B[N + 3][N + 1], C[N][N + 1], D[N][N + 1];

/* the matrix product as most people write it: a dot product per cell */
static void product(int n, int m, int p)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      double s = 0.0;
      for (int k = 0; k < p; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}

/* an accumulator declared outside, used scaled, left holding the last cell's sum */
static double scaled(int n, int m, int p, double alpha)
{
  double s = -1.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      s = D[i][j];
      for (int k = 0; k < p; k++)
        s -= A[i][k] * B[k][j];
      D[i][j] = alpha * s;
    }
  return s;
}

int main(void)
{
  for (int i = 0; i < N + 3; i++)
    for (int j = 0; j < N + 1; j++)
      B[i][j] = ((i * 7 + j * 3) % 19) / 9.0 - 1.0;
  for (int i = 0; i < N; i++) {
    for (int k = 0; k < N + 3; k++)
      A[i][k] = ((i * 5 + k) % 23) / 11.0;
    for (int j = 0; j < N + 1; j++)
      D[i][j] = (i + j) % 5;
  }
  product(N, N + 1, N + 3);
  printf("%a\n", scaled(0, N, N, 2.0));   /* nothing runs: s keeps its value */
  printf("%a\n", scaled(N, N + 1, N + 3, 0.5));
  product(N - 7, N - 2, N - 20);
  printf("%a\n", scaled(N - 3, N - 5, 17, 1.5));
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N + 1; j++)
      printf("%a %a\n", C[i][j], D[i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_dot_product_accumulators_become_matrix_multiplies(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "dot.c", DOT_PRODUCTS, target)
    lines = {name: [ln for ln in result.report if f": {name}:" in ln] for name in ("product", "scaled")}
    (product,), (scaled,) = lines["product"], lines["scaled"]
    # (s stored as it is, and dead after: accumulated in C itself, accumulators.py; no copy)
    assert "s accumulated in C[i][j]" in product and "1 matrix-multiply statement(s)" in product, product
    # (s returned: expanded, its last value copied back)
    assert "s expanded along i and j" in scaled and "1 matrix-multiply statement(s)" in scaled, scaled
    assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_a_scratch_array_behind_a_pointer_is_expanded_as_far_as_the_scop_reaches(tmp_path, target):
    """``double *sum`` and ``double A[][13][24]`` declare no extent (as C code written by hand,
    or lifted from LLVM IR, often does): the copy is as long as the subscripts reach, and doitgen
    runs as a kernel as with declared arrays."""
    program = PROGRAM.replace("double A[12][13][24], double C4[24][24], double sum[24]",
                              "double A[][13][24], double C4[24][24], double *sum")
    assert "double *sum" in program
    result, ref, out = optimized_and_both_outputs(tmp_path / "dg.c", program, target)
    (line,) = [ln for ln in result.report if ": doitgen:" in ln]
    assert "sum expanded along q" in line and "1 matrix-multiply statement(s)" in line, line
    assert out == ref


@pytest.mark.parametrize("offset, expanded", [("", True), (" - 2", False)])
def test_a_scratch_array_behind_a_pointer_reaches_as_far_as_its_subscripts(tmp_path, offset, expanded):
    """``double *t`` may be expanded as far as its subscripts reach; not where one may be
    negative (no extent starts at 0)."""
    src = tmp_path / "k.c"
    src.write_text(f"""double A[40][30], C[40][30];
void k(double *t) {{
  int i, j;
  for (i = 0; i < 40; i++) {{
    for (j = 1; j < 30; j++)
      t[j{offset}] = A[i][j];
    for (j = 1; j < 30; j++)
      C[i][j] = t[j{offset}] * 2.0;
  }}
}}
""")
    unit, _ = lift_c_file(str(src), [])
    (scop,) = find_scops(unit.functions[0])
    found = scratch_arrays(scop)
    assert [x.name for x in found] == (["t"] if expanded else [])
    if expanded:
        (reach,) = found[0].reach
        assert reach.is_equal(isl.PwAff("[] -> { [(30)] }").align_params(reach.get_space()))


def test_a_permuted_flat_store_of_run_time_sizes_is_answered_quickly(tmp_path):
    """The box test of a flat array written through a permuted linearization (an LBM code's
    ``f[(q * NX + x) * NY + y]``, its loops bounded by locals) ran isl's hull for minutes, and
    s2s-cc gave up on the file at its 60 s limit; it is now bounded, well within 20 s."""
    import subprocess

    from c_build import s2s_cc_path, s2s_env

    src = tmp_path / "lbm.c"
    src.write_text("void g(double *f)\n{\n  int nx = 200, ny = 150;\n  for (int x = 0; x < nx; x++)\n"
                   "    for (int y = 0; y < ny; y++)\n      for (int q = 0; q < 9; q++)\n"
                   "        f[(q * 200 + x) * 150 + y] = 1.0;\n}\n")
    built = subprocess.run([str(s2s_cc_path()), "-O2", "-c", "--s2s-timeout=20", "--s2s-report", str(src), "-o",
                            str(tmp_path / "lbm.o")], env=s2s_env(mode="pluto"), capture_output=True, text=True,
                           check=True)
    assert "note:" not in built.stderr and "g: SCoP" in built.stderr, built.stderr
