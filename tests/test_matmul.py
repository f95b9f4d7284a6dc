"""Matrix-multiply statements as MatMul library nodes: which statements qualify, when the node
may replace them, and that its C expansion computes bit for bit what the loops computed."""
from __future__ import annotations

import os
import platform
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from c_build import optimized_and_both_outputs, outputs_of_both_builds
from frontends.c import lift_c_file
from s2s.analysis import compute_dependences, find_scops
from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.ir import (
    Access, Block, Blocking, ExprPrinter, MatMul, PackedRight, Sym, dumps, loads, packed_right_size, walk,
)
from s2s.schedule.matmul import KernelTarget, blocking_for, kernel_order_is_legal, match_matmul
from s2s.schedule.codegen import generate
from s2s.transforms import OptimizeOptions, choose_schedule


def _scop(tmp_path: Path, body: str, decls: str = "double C[40][30], A[40][300], B[300][30], alpha"):
    src = tmp_path / "k.c"
    src.write_text(f"{decls};\nvoid k(void) {{\n  int i, j, k;\n{textwrap.indent(textwrap.dedent(body), '  ')}}}\n")
    unit, _ = lift_c_file(str(src), [])
    (scop,) = find_scops(unit.functions[0])
    return scop


GEMM = """
for (i = 0; i < 40; i++)
  for (k = 0; k < 300; k++)
    for (j = 0; j < 30; j++)
      C[i][j] += alpha * A[i][k] * B[k][j];
"""


def test_triangles_and_sums_of_products_are_matmuls(tmp_path):
    scop = _scop(tmp_path, """
        for (i = 0; i < 30; i++)
          for (k = 0; k < 300; k++)
            for (j = i + 1; j < 30; j++)
              C[i][j] += A[j][k] * alpha * B[k][i] + B[k][j] * alpha * A[i][k];
        """)
    p = match_matmul(scop, scop.statements[0])
    assert p is not None and len(p.lefts) == 2
    assert str(p.lefts[0]) == str(Access("B", (Sym("k"), Sym("i"))))


def test_gemm_update_is_a_matmul(tmp_path):
    scop = _scop(tmp_path, GEMM)
    (stmt,) = scop.statements
    p = match_matmul(scop, stmt)
    assert p is not None and (p.i, p.j, p.k, p.op, p.dtype) == ("i", "j", "k", "+", "double")
    assert kernel_order_is_legal(compute_dependences(scop), stmt, p)


@pytest.mark.parametrize("body", [
    # the target does not move with i: rows would race for C[0][j]
    "for (i = 0; i < 40; i++)\n for (k = 0; k < 300; k++)\n  for (j = 0; j < 30; j++)\n   C[0][j] += A[i][k] * B[k][j];\n",
    # k's range is not one interval in every row
    "for (i = 0; i < 30; i++)\n for (k = 0; k < 300; k++)\n  for (j = 0; j < 30; j++)\n   if (k != i) C[i][j] += A[i][k] * B[k][j];\n",
    # columns that move by two per row: a block's columns are not one interval
    "for (i = 0; i < 15; i++)\n for (k = 0; k < 300; k++)\n  for (j = 0; j <= 2 * i; j++)\n   C[i][j] += A[i][k] * B[k][j];\n",
    # k runs downward: the node adds in ascending k, which would round differently
    "for (i = 0; i < 40; i++)\n for (k = 299; k >= 0; k--)\n  for (j = 0; j < 30; j++)\n   C[i][j] += A[i][k] * B[k][j];\n",
    # right reads the target array in another column
    "for (i = 0; i < 30; i++)\n for (k = 0; k < 29; k++)\n  for (j = 0; j < 29; j++)\n   C[i][j] += A[i][k] * C[k][j + 1];\n",
    # left reads the target array
    "for (i = 0; i < 30; i++)\n for (k = 0; k < 30; k++)\n  for (j = 0; j < 30; j++)\n   C[i][j] += C[i][k] * B[k][j];\n",
    # not a product of an (i, k) part and a (k, j) part
    "for (i = 0; i < 30; i++)\n for (k = 0; k < 300; k++)\n  for (j = 0; j < 30; j++)\n   C[i][j] += A[i][k] * B[k][j] * A[j][k];\n",
])
def test_what_is_not_a_matmul(tmp_path, body):
    scop = _scop(tmp_path, body)
    assert all(match_matmul(scop, s) is None for s in scop.statements)


def test_a_triangle_along_k_that_reads_its_own_rows_before_they_change_is_a_matmul(tmp_path):
    # trmm: row i reads rows k > i of B, which the user's order updates only later
    scop = _scop(tmp_path, """
        for (i = 0; i < 30; i++)
          for (j = 0; j < 30; j++)
            for (k = i + 1; k < 30; k++)
              C[i][j] += A[k][i] * C[k][j];
        """)
    (stmt,) = scop.statements
    p = match_matmul(scop, stmt)
    assert p is not None and (p.i, p.j, p.k) == ("i", "j", "k")
    assert kernel_order_is_legal(compute_dependences(scop), stmt, p)


@pytest.mark.parametrize("body", [
    # rows k < i were updated before row i reads them (a forward substitution)
    "for (i = 0; i < 30; i++)\n for (j = 0; j < 30; j++)\n  for (k = 0; k < i; k++)\n   C[i][j] -= A[i][k] * C[k][j];\n",
    # the whole of C read while it changes
    "for (i = 0; i < 30; i++)\n for (k = 0; k < 30; k++)\n  for (j = 0; j < 30; j++)\n   C[i][j] += A[i][k] * C[k][j];\n",
])
def test_a_matmul_that_reads_updated_rows_of_its_target_is_not_a_kernel(tmp_path, body):
    scop = _scop(tmp_path, body)
    (stmt,) = scop.statements
    p = match_matmul(scop, stmt)
    assert p is not None and not kernel_order_is_legal(compute_dependences(scop), stmt, p)


def test_float_statement_with_a_double_constant_is_left_alone(tmp_path):
    scop = _scop(tmp_path, GEMM.replace("alpha", "0.5"), decls="float C[40][30], A[40][300], B[300][30]")
    assert match_matmul(scop, scop.statements[0]) is None


def test_blocking_fits_the_registers():
    avx2 = blocking_for(KernelTarget(32, 16, 32 * 1024, 512 * 1024), 8)
    assert (avx2.rows, avx2.vectors, avx2.lanes) == (6, 2, 4)
    assert avx2.rows * avx2.vectors + avx2.vectors + 1 <= 16
    avx512 = blocking_for(KernelTarget(64, 32, 48 * 1024, 2 * 1024 * 1024), 4)
    assert avx512.rows * avx512.vectors + avx512.vectors + 1 <= 32 and avx512.lanes == 16
    assert Blocking.parse(avx2.text) == avx2


def test_node_in_the_ir_and_its_json(tmp_path):
    scop = _scop(tmp_path, GEMM)
    choice = choose_schedule(scop, OptimizeOptions(matmul=KernelTarget()))
    tree, note = choice.schedule, choice.note
    assert "register-blocked" in note
    seq, _ = generate(scop, tree)
    (node,) = [c for b in walk(seq) if isinstance(b, Block) for c in b.graph.nodes if isinstance(c, MatMul)]
    assert node.k.stop.text == "300" and node.op == "+"
    assert loads(dumps(seq)) == seq
    packed = PackedRight("B.pack", "packed_right", (), ("out_P",), (), node, "P")
    assert loads(dumps(packed)) == packed
    # per term, every k by the 30 columns rounded up to whole strips of the register block
    assert ExprPrinter()(packed_right_size(node)) == f"1 * (300 - 0) * ((30 - 0 + {node.blocking.columns - 1}) / " \
        f"{node.blocking.columns} * {node.blocking.columns})"


PROGRAM = r"""
#include <stdio.h>
#define M 37
#define N 29
#define K 300
static double C[M][N], A[M][K], B[K][N], D[M][N];
static float F[M][N], G[M][K], H[K][N];
static double T[N][N], U[N][N];

static void kernels(double alpha, int m, int n, int k0, double *P, double *Q, double *R)
{
  int i, j, k;
  for (i = 0; i < M; i++)
    for (k = 0; k < K; k++)
      for (j = 0; j < N; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  for (i = 1; i < M; i++)
    for (j = 2; j < N; j++)
      for (k = 3; k < K; k++)
        D[i][j] = D[i][j] - A[i][k] * B[k][j];
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < K; k++)
        F[i][j] += G[i][k] * H[k][j];
  for (i = 0; i < m; i++)
    for (k = k0; k < K; k++)
      for (j = 0; j < n; j++)
        C[i][j] += B[k][j] * A[i][k];
  for (i = 0; i < m; i++)
    for (k = 0; k < n; k++)
      for (j = 0; j < n; j++)
        P[i * n + j] += Q[i * n + k] * R[k * n + j];
  /* triangles, with sums of two products */
  for (i = 0; i < N; i++)
    for (k = 0; k < K; k++)
      for (j = 0; j <= i; j++)
        T[i][j] += A[j][k] * alpha * A[i][k] + B[k][j] * alpha * A[i][k];
  for (i = 0; i < N; i++)
    for (k = 0; k < K; k++)
      for (j = i + 1; j < N; j++)
        U[i][j] -= A[i][k] * B[k][j];
}

int main(void)
{
  static double P[50 * 50], Q[50 * 50], R[50 * 50];
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) {
      A[i][k] = (i * 7 + k * 3) % 11 / 10.0 - 0.3;
      G[i][k] = (float)((i + k) % 5) / 3.0f;
    }
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) {
      B[k][j] = (k * 5 + j) % 13 / 7.0 + 0.1;
      H[k][j] = (float)((k * j) % 7) / 5.0f;
    }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      C[i][j] = D[i][j] = F[i][j] = (i + j) / 3.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      T[i][j] = U[i][j] = (i * j % 7) / 3.0;
  for (int x = 0; x < 50 * 50; x++) {
    P[x] = x % 9 / 4.0; Q[x] = x % 7 / 3.0; R[x] = x % 5 / 2.0;
  }
  kernels(1.5, 31, 23, 17, P, Q, R);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      printf("%a %a %a\n", C[i][j], D[i][j], (double)F[i][j]);
  for (int x = 0; x < 23 * 23; x++)
    printf("%a\n", P[x]);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%a %a\n", T[i][j], U[i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_kernels_compute_what_the_loops_computed_bit_for_bit(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "mm.c", PROGRAM, target)
    # the delinearized P[i * n + j] too (read as P[i][j], written as the user wrote it)
    assert sum("7 matrix-multiply statement(s)" in ln for ln in result.report) == 1, result.report
    assert ("#pragma omp parallel if(s2s_cores_free())\n" in result.source) == (target == "openmp")
    assert out == ref


@pytest.mark.parametrize("threads", [1, 3])
def test_kernels_on_any_number_of_threads(tmp_path, threads):
    # three threads: row blocks that do not divide the rows evenly, a triangle's blocks taken
    # widest first by whichever thread is free
    src = tmp_path / "mm.c"
    src.write_text(PROGRAM)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target="openmp"))
    ref, out = outputs_of_both_builds(src, result.source, openmp=True, threads=threads)
    assert out == ref


def test_register_blocks_are_functions_at_file_scope(tmp_path):
    src = tmp_path / "mm.c"
    src.write_text(PROGRAM)
    source = optimize_c_file(str(src), [], PipelineOptions(mode="pluto")).source
    definitions = re.findall(r"^__attribute__\(\(noinline\)\) static void (s2s_register_block_\w+)\((.*)\)$",
                             source, re.M)
    # one per shape: double with one product (left factors packed: alpha * A[i][k]; read in
    # place: three statements, += and -= and the flat P += Q * R), float, two products
    assert len(definitions) == len(dict(definitions)) == 6, definitions
    assert source.index("#line 1 ") > source.rindex("s2s_register_block_", 0, source.index("#line 1 "))
    in_place = [name for name, params in definitions if "l0_0" in params]
    assert len(in_place) == 5, definitions   # the rows of A[i][k], G[i][k] and Q[i * n + k] where they are
    for name, _ in definitions:
        assert source.count(name + "(") > 1   # defined, and called
        # panel memory is the thread's own, kept from call to call (not faulted in anew each time)
        for panel in ("_right_panel",) if name in in_place else ("_left_panel", "_right_panel"):
            assert f"static void *{name}{panel}(const unsigned long bytes)" in source
            assert source.count(name + panel + "(") > 1
        assert (f"{name}_left_panel" in source) == (name not in in_place)
    assert "__builtin_free(s2s_lp" not in source and "__builtin_free(s2s_rp" not in source


def test_kernels_can_be_turned_off(tmp_path):
    src = tmp_path / "mm.c"
    src.write_text(PROGRAM)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", kernels=False))
    assert not any("register-blocked" in ln for ln in result.report)
    assert "s2s_register_block" not in result.source


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_a_triangle_edge_that_stays_put_is_not_compared_with_itself(tmp_path, target):
    # (j from 0, and j up to N, in every row: gcc's -Wall reports `N > N ? N : N`, and a -Werror
    # build would then fall back to the user's file)
    src = tmp_path / "mm.c"
    src.write_text(PROGRAM)
    source = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target=target)).source
    assert not re.search(r"\(([\w ]+) [<>] \1 \?", source)
    gen = tmp_path / "gen.c"
    gen.write_text(source)
    flags = ["-fopenmp"] if target == "openmp" else []
    proc = subprocess.run(["cc", "-O2", "-Werror=tautological-compare", *flags, "-c", str(gen), "-o",
                           str(tmp_path / "gen.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


TRIANGLES_ALONG_K = r"""
#include <stdio.h>
#define M 97
#define N 53
static double A[M][M], B[M][N], C[M][N], X[M][N], Y[M][N], T[M][M];

static void kernels(double alpha, int m, int n)
{
  int i, j, k;
  /* trmm: B := alpha * A^T * B, in place (rows k > i read before they are updated) */
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
  /* a lower-triangular factor: k up to i */
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k <= i; k++)
        C[i][j] += A[i][k] * X[k][j];
  /* columns and k both move with the row */
  for (i = 0; i < M; i++)
    for (j = 0; j <= i; j++)
      for (k = i; k < M; k++)
        T[i][j] -= A[i][k] * A[j][k];
  /* a forward substitution: rows k < i are read after their update (not a kernel) */
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < i; k++)
        Y[i][j] -= A[i][k] * Y[k][j];
}

int main(void)
{
  for (int i = 0; i < M; i++)
    for (int k = 0; k < M; k++)
      A[i][k] = T[i][k] = (i * 7 + k * 3) % 11 / 10.0 - 0.3;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      B[i][j] = (i * 5 + j) % 13 / 7.0 + 0.1;
      C[i][j] = (i + j) / 3.0;
      X[i][j] = (i * j % 7) / 3.0;
      Y[i][j] = (i + 2 * j) % 5 / 8.0;
    }
  kernels(1.5, 91, 47);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      printf("%a %a %a\n", B[i][j], C[i][j], Y[i][j]);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      printf("%a\n", T[i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("target,threads", [("c", 1), ("openmp", 1), ("openmp", 2), ("openmp", 3)])
def test_triangles_along_k_compute_what_the_loops_computed_bit_for_bit(tmp_path, monkeypatch, target, threads):
    # (threads started at any size: each takes columns of its own)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=0,"
                                              "parallel_wake=0")
    src = tmp_path / "tri.c"
    src.write_text(TRIANGLES_ALONG_K)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target=target))
    assert sum("3 matrix-multiply statement(s)" in ln for ln in result.report) == 1, result.report
    assert ("s2s_me = omp_get_thread_num()" in result.source) == (target == "openmp")
    ref, out = outputs_of_both_builds(src, result.source, openmp=target == "openmp", threads=threads)
    assert out == ref


def _random_triangle(seed: int) -> str:
    """A matrix product with k (and maybe j) moving with i, the right factor read from the
    target's own rows or another array, in either loop order, sizes known only at run time."""
    r = random.Random(seed)
    rows, cols = r.randint(5, 120), r.randint(3, 80)
    k_lo, k_hi = "0", "m"
    shape = r.choice(["after", "up to", "box"])
    if shape == "after":
        k_lo = f"i + {r.choice([0, 1, 2])}"
    elif shape == "up to":
        k_hi = f"i + {r.choice([0, 1, 3])}"
    j_lo, j_hi = r.choice([("0", "n"), ("0", "n"), ("0", "i + 1"), ("i", "n")])
    statement = (f"B[i][j] {r.choice(['+=', '-='])} {r.choice(['', 'alpha * '])}"
                 f"{r.choice(['A[k][i]', 'A[i][k]'])} * {r.choice(['B[k][j]', 'X[k][j]'])};")
    if r.random() < 0.5:
        loops = f"for (j = {j_lo}; j < {j_hi}; j++)\n for (k = {k_lo}; k < {k_hi}; k++)"
    else:
        loops = f"for (k = {k_lo}; k < {k_hi}; k++)\n for (j = {j_lo}; j < {j_hi}; j++)"
    return f"""
#include <stdio.h>
#define M {rows}
#define N {cols}
static double A[M + 3][M + 3], B[M + 3][N + M], X[M + 3][N + M];
static void kernel(double alpha, int m, int n)
{{
  int i, j, k;
  for (i = 0; i < m; i++)
  {loops}
    {statement}
}}
int main(void)
{{
  for (int i = 0; i < M + 3; i++)
    for (int k = 0; k < M + 3; k++)
      A[i][k] = (i * 7 + k * 3) % 11 / 10.0 - 0.3;
  for (int i = 0; i < M + 3; i++)
    for (int j = 0; j < N + M; j++) {{
      B[i][j] = (i * 5 + j) % 13 / 7.0 + 0.1;
      X[i][j] = (i * j % 7) / 3.0;
    }}
  kernel(1.5, {r.randint(1, rows)}, {r.randint(1, cols)});
  for (int i = 0; i < M + 3; i++)
    for (int j = 0; j < N + M; j++)
      printf("%a\\n", B[i][j]);
  return 0;
}}
"""


def test_random_triangles_along_k_compute_what_the_loops_computed(tmp_path, monkeypatch):
    # a differential check on matrix products of random shapes: the kernel where it is proven
    # legal (a right factor that reads rows updated before is not), the loops elsewhere
    assert _kernels_in_random_programs(tmp_path, monkeypatch, _random_triangle) >= 3


def _kernels_in_random_programs(tmp_path, monkeypatch, program) -> int:
    """How many of ten random programs (``program(seed)``, C for even seeds, OpenMP for odd ones)
    got a kernel, each checked to print what the loops printed."""
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,"
                                              "parallel_start=0,parallel_wake=0")
    kernels = 0
    for seed in range(10):
        src = tmp_path / f"p{seed}.c"
        src.write_text(program(seed))
        target = "openmp" if seed % 2 else "c"
        result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target=target))
        kernels += any("matrix-multiply" in ln for ln in result.report)
        ref, out = outputs_of_both_builds(src, result.source, openmp=target == "openmp", threads=2)
        assert out == ref, program(seed)
    return kernels


FLAT = r"""
#include <stdio.h>
#include <stdlib.h>

/* matrices as most C and C++ code keeps them: one allocation each, rows of their own length */
static void products(int m, int n, int p, double alpha, double beta, const double *a, int lda, const double *b,
                     int ldb, double *c, int ldc, float *f, const float *g, const float *h, double *s)
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double sum = 0.0;
      for (int k = 0; k < p; k++)
        sum += a[i * lda + k] * b[k * ldb + j];
      c[i * ldc + j] = alpha * sum + beta * c[i * ldc + j];
    }
  for (int i = 0; i < m; i++)
    for (int k = 0; k < p; k++)
      for (int j = 0; j < n; j++)
        f[i * n + j] += g[i * p + k] * h[k * n + j];
  for (int i = 0; i < m; i++)       /* a triangle: rank-k update of the lower half */
    for (int j = 0; j <= i; j++)
      for (int k = 0; k < p; k++)
        s[i * m + j] += alpha * a[i * lda + k] * a[j * lda + k];
}

int main(int argc, char **argv)
{
  int m = 45, n = 38, p = 210, lda = 217, ldb = 41, ldc = 40;
  double *a = malloc(sizeof(double) * m * lda), *b = malloc(sizeof(double) * p * ldb);
  double *c = malloc(sizeof(double) * m * ldc), *s = malloc(sizeof(double) * m * m);
  float *f = malloc(sizeof(float) * m * n), *g = malloc(sizeof(float) * m * p), *h = malloc(sizeof(float) * p * n);
  for (int x = 0; x < m * lda; x++) a[x] = (x * 7 % 11) / 10.0 - 0.3;
  for (int x = 0; x < p * ldb; x++) b[x] = (x * 5 % 13) / 7.0 + 0.1;
  for (int x = 0; x < m * ldc; x++) c[x] = (x % 9) / 4.0;
  for (int x = 0; x < m * m; x++) s[x] = (x % 5) / 3.0;
  for (int x = 0; x < m * n; x++) f[x] = (float)(x % 3);
  for (int x = 0; x < m * p; x++) g[x] = (float)(x % 7) / 3.0f;
  for (int x = 0; x < p * n; x++) h[x] = (float)(x % 5) / 4.0f;
  products(m, n, p, 1.5, 0.5, a, lda, b, ldb, c, ldc, f, g, h, s);
  /* the same buffer as a factor and as the result: the run-time test keeps the user's loops */
  products(m, n < 10 ? n : 10, 10, 1.0, 1.0, c, ldc, c, ldc, c, ldc, f, g, h, s);
  for (int x = 0; x < m * ldc; x++) printf("%a\n", c[x]);
  for (int x = 0; x < m * n; x++) printf("%a\n", (double)f[x]);
  for (int x = 0; x < m * m; x++) printf("%a\n", s[x]);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_kernels_over_flat_arrays_compute_what_the_loops_computed(tmp_path, target):
    """Flat arrays (``a[i * lda + k]``) that the model delinearizes run as kernels too, read and
    written where the user's subscripts put their elements."""
    result, ref, out = optimized_and_both_outputs(tmp_path / "flat.c", FLAT, target)
    assert sum("3 matrix-multiply statement(s)" in ln for ln in result.report) == 1, result.report
    assert "&a[s2s_ir * lda + s2s_kc]" in result.source   # (rows of a read in place)
    assert out == ref


def _random_flat(seed: int) -> str:
    """``_random_triangle``'s shapes over flat buffers with rows of their own length
    (``b[i * ldb + j]``), as C and C++ code keeps its matrices."""
    r = random.Random(seed)
    rows, cols = r.randint(5, 90), r.randint(3, 60)
    k_lo, k_hi = r.choice([("0", "m"), ("0", "m"), (f"i + {r.choice([0, 1])}", "m"), ("0", "i + 1")])
    j_lo, j_hi = r.choice([("0", "n"), ("0", "n"), ("0", "i + 1"), ("i", "n")])
    left = r.choice(["a[k * lda + i]", "a[i * lda + k]"])
    right = r.choice(["b[k * ldb + j]", "x[k * ldb + j]"])
    statement = f"b[i * ldb + j] {r.choice(['+=', '-='])} {r.choice(['', 'alpha * '])}{left} * {right};"
    if r.random() < 0.5:
        loops = f"for (j = {j_lo}; j < {j_hi}; j++)\n for (k = {k_lo}; k < {k_hi}; k++)"
    else:
        loops = f"for (k = {k_lo}; k < {k_hi}; k++)\n for (j = {j_lo}; j < {j_hi}; j++)"
    lda, ldb = rows + 3 + r.randint(0, 5), cols + rows + r.randint(0, 5)
    return f"""
#include <stdio.h>
#include <stdlib.h>
static void kernel(double alpha, int m, int n, const double *a, int lda, double *b, const double *x, int ldb)
{{
  int i, j, k;
  for (i = 0; i < m; i++)
  {loops}
    {statement}
}}
int main(void)
{{
  int lda = {lda}, ldb = {ldb}, rows = {rows + 3};
  double *a = malloc(sizeof(double) * rows * lda), *b = malloc(sizeof(double) * rows * ldb);
  double *x = malloc(sizeof(double) * rows * ldb);
  for (int e = 0; e < rows * lda; e++) a[e] = (e * 7 % 11) / 10.0 - 0.3;
  for (int e = 0; e < rows * ldb; e++) {{
    b[e] = (e * 5 % 13) / 7.0 + 0.1;
    x[e] = (e % 7) / 3.0;
  }}
  kernel(1.5, {r.randint(1, rows)}, {r.randint(1, cols)}, a, lda, b, x, ldb);
  for (int e = 0; e < rows * ldb; e++)
    printf("%a\\n", b[e]);
  return 0;
}}
"""


def test_random_products_over_flat_arrays_compute_what_the_loops_computed(tmp_path, monkeypatch):
    assert _kernels_in_random_programs(tmp_path, monkeypatch, _random_flat) >= 3


ONE_BASED = r"""
#include <stdio.h>
#include <stdlib.h>
/* Fortran's way, in C: subscripts from 1, columns contiguous (what flang's LLVM IR says) */
static void product(int n, const double *a, const double *b, double *c)
{
  for (long j = 1; j <= n; j++)
    for (long k = 1; k <= n; k++)
      for (long i = 1; i <= n; i++)
        c[(i - 1) + (j - 1) * n] = c[(i - 1) + (j - 1) * n] + a[(i - 1) + (k - 1) * n] * b[(k - 1) + (j - 1) * n];
}
int main(void)
{
  int n = 150;
  double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
  double *c = calloc(n * n, sizeof(double));
  for (int e = 0; e < n * n; e++) {
    a[e] = (e * 7 % 11) / 10.0 - 0.3;
    b[e] = (e * 5 % 13) / 7.0 + 0.1;
    c[e] = e % 3;
  }
  product(n, a, b, c);
  product(n / 2, c, b, c);   /* (c both a factor and the result: the user's loops) */
  for (int e = 0; e < n * n; e++)
    printf("%a\n", c[e]);
  return 0;
}
"""


def test_kernels_take_subscripts_a_constant_off_the_loop_variables(tmp_path):
    """``c[(i - 1) + (j - 1) * n]``: the target's rows and columns are loop variables give or
    take a constant, as Fortran's are; a kernel, bit for bit."""
    result, ref, out = optimized_and_both_outputs(tmp_path / "one.c", ONE_BASED, "c")
    assert sum("1 matrix-multiply statement(s)" in ln for ln in result.report if ": product:" in ln) == 1, result.report
    assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_a_panel_is_no_deeper_than_k_runs_and_gcc_stays_quiet(tmp_path, monkeypatch, target):
    """With AVX2's 16 registers the k panel is 384 deep, more than symm's k runs at MEDIUM
    (199 values under arrays of 200): the panel stops at k's extent, and gcc -Warray-bounds
    no longer warns of an A[i][k] past the array on a path no run takes."""
    import s2s.transforms.machine_options as machine_options
    from polybench.registry import KERNELS, SUITE_ROOT, kernel_source

    avx2 = KernelTarget(32, 16, 48 * 1024, 512 * 1024, 32 * 1024 * 1024)
    assert blocking_for(avx2, 8).depth > 199
    monkeypatch.setattr(machine_options, "kernel_target", lambda topo: avx2)
    src = kernel_source(KERNELS["symm"])
    cpp = [f"-I{SUITE_ROOT / 'utilities'}", f"-I{src.parent}", "-DMEDIUM_DATASET"]
    result = optimize_c_file(str(src), cpp, PipelineOptions(mode="pluto", target=target, report=True))
    assert any("matmul-kernel" in line and "/199/" in line for line in result.full_report), result.full_report
    out = tmp_path / "symm.c"
    out.write_text(result.source)
    subprocess.run(["cc", "-O3", "-march=native", "-Wall", "-Wno-unknown-pragmas", "-Werror", *cpp,
                    *(["-fopenmp"] if target == "openmp" else []), "-c", str(out), "-o", str(tmp_path / "symm.o")],
                   check=True)


GEMM_FOR_TARGETS = r"""
#include <stdio.h>
#include <stdlib.h>

static void product(int n, double C[n][n], double A[n][n], double B[n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 120;
  double (*A)[n] = malloc(sizeof(double) * n * n), (*B)[n] = malloc(sizeof(double) * n * n);
  double (*C)[n] = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i][j] = (i * 3 + j) % 7 - 3;
      B[i][j] = (i + 5 * j) % 11 - 5;
    }
  product(n, C, A, B);
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += C[i][j] * (i + 2 * j + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86's -march levels")
@pytest.mark.parametrize("march, lanes", [("x86-64", 2), ("x86-64-v3", 4), ("x86-64-v4", 8)])
def test_kernels_are_blocked_for_the_vectors_the_flags_compile_for(tmp_path, march, lanes):
    """s2s-cc blocks the matrix-multiply kernel for the target the flags compile for, not for
    this machine: -march=x86-64-v3 on an AVX-512 machine gets AVX2's 4 doubles a vector (with 8,
    each GNU vector operation was split in two and the block spilled: gemm ran 7x slower than
    gcc), the x86-64 baseline SSE2's 2; the program's output is gcc's."""
    src = tmp_path / "gemm.c"
    src.write_text(GEMM_FOR_TARGETS)
    env = {**os.environ, "S2S_KEEP": str(tmp_path / "kept"), "S2S_CACHE": "off"}
    s2s_cc = Path(sys.executable).parent / "s2s-cc"
    subprocess.run([str(s2s_cc), "-O2", f"-march={march}", str(src), "-o", str(tmp_path / "opt")], env=env, check=True)
    kept = (tmp_path / "kept" / "gemm.s2s.c").read_text()
    assert f"vector_size({lanes} * sizeof(double))" in kept, re.findall(r"vector_size\([^)]*\)", kept)
    subprocess.run(["cc", "-O2", str(src), "-o", str(tmp_path / "ref")], check=True)
    expected = subprocess.run([str(tmp_path / "ref")], capture_output=True, text=True, check=True).stdout
    needs = {"x86-64": "sse2", "x86-64-v3": "avx2", "x86-64-v4": "avx512f"}[march]
    if needs in Path("/proc/cpuinfo").read_text():   # (else this machine cannot run the program)
        assert subprocess.run([str(tmp_path / "opt")], capture_output=True, text=True, check=True).stdout == expected
