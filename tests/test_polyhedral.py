"""The polyhedral model: SCoP extraction, dependences, parallel loops, and isl code generation
that regenerates programs with unchanged results."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import islpy as isl
import pytest

from frontends.c import lift_c_file
from s2s.analysis import compute_dependences, find_scops, loop_info, reductions
from s2s.driver.pipeline import PipelineOptions, optimize_c_file

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "polybench" / "suite"
BIN = Path(sys.executable).parent


def scops_of(tmp_path, code: str, function: str, *args: str):
    path = tmp_path / "k.c"
    path.write_text(textwrap.dedent(code))
    unit, _ = lift_c_file(str(path), list(args))
    return find_scops(unit.function(function))


GEMM = """
    void gemm(int ni, int nj, int nk, double alpha, double beta,
              double C[ni][nj], double A[ni][nk], double B[nk][nj]) {
      for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
          C[i][j] *= beta;
        for (int k = 0; k < nk; k++)
          for (int j = 0; j < nj; j++)
            C[i][j] += alpha * A[i][k] * B[k][j];
      }
    }
"""


def test_gemm_scop_domains_and_parallel_loops(tmp_path):
    (scop,) = scops_of(tmp_path, GEMM, "gemm")
    assert scop.params == ("ni", "nj", "nk")
    assert [s.iterators for s in scop.statements] == [["i", "j"], ["i", "k", "j"]]
    assert str(scop.statements[1].domain) == \
        "[ni, nj, nk] -> { S_B1[i, k, j] : 0 <= i < ni and 0 <= k < nk and 0 <= j < nj }"
    info = {(l.loop.node.var, l.loop.depth): l for l in loop_info(scop, compute_dependences(scop))}
    assert info[("i", 0)].parallel
    assert not info[("k", 1)].parallel and info[("k", 1)].carried_on == ("C",)
    assert info[("j", 2)].parallel
    assert {(r.target, r.op) for r in reductions(scop)} == {("C", "*"), ("C", "+")}


def test_declared_extents_bound_run_time_sizes(tmp_path):
    # what C promises about n: L[i][j] stays inside L[2000][2000] (an estimate for cost decisions)
    (scop,) = scops_of(tmp_path, """
        void solve(int n, double L[2000 + 0][2000], double x[], double *b) {
          for (int i = 0; i < n; i++) {
            x[i] = b[i];
            for (int j = 0; j < i; j++)
              x[i] -= L[i][j] * x[j];
          }
        }
    """, "solve")
    bounded = scop.domains_within_extents()
    first, second = scop.statements
    assert bounded[first.name] == first.domain        # x[] and *b declare no extent
    assert bounded[second.name] == second.domain.intersect(isl.Set("[n] -> { S_B1[i, j] : i < 2000 }"))


def test_exact_flow_dependences_of_a_stencil(tmp_path):
    (scop,) = scops_of(tmp_path, """
        void jacobi(int T, int n, double A[n], double B[n]) {
          for (int t = 0; t < T; t++) {
            for (int i = 1; i < n - 1; i++) B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
            for (int i = 1; i < n - 1; i++) A[i] = B[i];
          }
        }
    """, "jacobi")
    deps = compute_dependences(scop)
    s0, s1 = (s.name for s in scop.statements)
    # value-based: B[i] read by S1 comes from S0 in the same t; A read by S0 from S1 one step before
    other_steps = isl.UnionMap(f"[T, n] -> {{ {s1}[t, i] -> {s0}[t', i'] : t' != t + 1 }}")
    assert deps.flow.intersect(other_steps).is_empty()
    assert not deps.flow.intersect(isl.UnionMap(f"[T, n] -> {{ {s0}[t, i] -> {s1}[t, i] }}")).is_empty()
    loops = loop_info(scop, deps)
    t_loop = next(l for l in loops if l.loop.node.var == "t")
    assert not t_loop.parallel and t_loop.distances == "1"
    assert all(l.parallel for l in loops if l.loop.node.var == "i")


def test_privatizable_temporary(tmp_path):
    (scop,) = scops_of(tmp_path, """
        void f(int n, double A[n][n], double B[n][n]) {
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
              double t = A[i][j] * 2.0;
              B[i][j] = t + 1.0;
            }
        }
    """, "f")
    assert scop.declared == ("t",)
    loops = loop_info(scop, compute_dependences(scop))
    assert all(not l.parallel and l.privatizable == ("t",) and l.parallel_if_privatized for l in loops)


def test_non_affine_code_splits_scops(tmp_path):
    scops = scops_of(tmp_path, """
        void f(int n, int len[100], double A[100][100], double s[100]) {
          for (int i = 0; i < n; i++) s[i] = 0;
          for (int i = 0; i < n; i++)
            for (int j = 0; j < len[i]; j++)   /* data-dependent bound: not affine */
              s[i] += A[i][j];
          for (int i = 0; i < n; i++)
            for (int j = 0; j < i * i; j++)     /* product of variables: not affine */
              s[i] -= 1;
          for (int i = 0; i < n; i++) s[i] *= 2;
        }
    """, "f")
    assert [len(s.statements) for s in scops] == [1, 1]


def test_scops_found_without_pragmas_in_any_function(tmp_path):
    scops = scops_of(tmp_path, """
        static double acc;
        int helper(int n, double *x) {
          int k;
          for (k = 0; k < n; k += 2) x[k] = k;
          for (k = n - 1; k >= 0; k -= 3) x[k] += 1.0;
          return 0;
        }
    """, "helper")
    assert len(scops) == 1
    steps = sorted(l.step for l in scops[0].loops)
    assert steps == [-3, 2]
    assert "mod 3" in str(scops[0].statements[1].domain)


# --- isl code generation keeps results -----------------------------------------------------------

HAND_WRITTEN = {
    "triangular_and_strides": """
        #include <stdio.h>
        #define N 37
        double A[N][N], x[N];
        int main(void) {
          for (int i = 0; i < N; i++) for (int j = 0; j <= i; j++) A[i][j] = (i * 7 + j * 3) % 11 - 5.0;
          for (int i = N - 1; i >= 0; i--) {            /* negative stride */
            x[i] = A[i][i];
            for (int j = i + 1; j < N; j += 3) x[i] -= 0.5 * A[j][i] * x[j];   /* non-unit stride */
          }
          for (int i = 2; i < N; i += 5) for (int j = i; j < N - i / 2; j++) A[i][j] += x[j] * (j % 3);
          double s = 0;
          for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) s += A[i][j] * (i + 1) - x[j];
          printf("%.17g\\n", s);
          return 0;
        }
    """,
    "ifs_and_several_scops": """
        #include <stdio.h>
        static void f(int n, double a[64][64], double b[64]) {
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
              if (i < j) a[i][j] = b[i] - b[j];
              else if (i == j) a[i][j] = 1.0;
              else a[i][j] = b[j] * 0.5;
              if ((i + j) % 4 == 0 && j > 2) a[i][j] *= 2;
            }
          printf("between\\n");
          for (int i = 1; i < n; i++) b[i] = b[i - 1] + a[i][n - i];
        }
        int main(void) {
          static double a[64][64], b[64];
          for (int i = 0; i < 64; i++) b[i] = i * 0.25 - 3;
          f(50, a, b);
          double s = 0;
          for (int i = 0; i < 64; i++) { s += b[i]; for (int j = 0; j < 64; j++) s += a[i][j] * j; }
          printf("%.17g\\n", s);
          return 0;
        }
    """,
    "loop_variable_used_after": """
        #include <stdio.h>
        int main(void) {
          int i, j, last = 0;
          static double v[100];
          for (i = 0; i < 90; i += 7) v[i] = i;
          last = i;                       /* i is live after its loop */
          for (j = 0; j < 100; j++) v[j] += j;
          for (j = 0; j < 10; j++) v[j] *= 2;
          printf("%d %.17g\\n", last, v[7] + v[9]);
          return 0;
        }
    """,
    "long_params_and_pointers": """
        #include <stdio.h>
        #include <stdlib.h>
        #define M 24
        static void g(long n, long m, double (*A)[M], double B[n][m], double *restrict c) {
          for (long i = 0; i < n; i++)
            for (long j = 0; j < m; j++) {
              B[i][j] = A[i][j] + c[i];
              A[i][j] = B[i][j] * 0.5;
            }
        }
        int main(void) {
          long n = 20;
          double (*A)[M] = malloc(sizeof(double[20][M]));
          double (*B)[M] = malloc(sizeof(double[20][M]));
          double c[20];
          for (int i = 0; i < 20; i++) { c[i] = i; for (int j = 0; j < M; j++) A[i][j] = i - j; }
          g(n, M, A, B, c);
          double s = 0;
          for (int i = 0; i < 20; i++) for (int j = 0; j < M; j++) s += A[i][j] + 3 * B[i][j];
          printf("%.17g\\n", s);
          free(A); free(B);
          return 0;
        }
    """,
}


def _build_and_run(src: Path, out: Path, cmd: list[str], env=None) -> str:
    subprocess.run([*cmd, "-O1", str(src), "-o", str(out), "-lm"], check=True, env=env)
    return subprocess.run([str(out)], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("name", sorted(HAND_WRITTEN))
def test_isl_codegen_keeps_results(name, tmp_path):
    src = tmp_path / f"{name}.c"
    src.write_text(textwrap.dedent(HAND_WRITTEN[name]))
    result = optimize_c_file(str(src), [], PipelineOptions(mode="isl"))
    gen = tmp_path / f"{name}.isl.c"
    gen.write_text(result.source)
    assert _build_and_run(gen, tmp_path / "isl", ["cc"]) == _build_and_run(src, tmp_path / "ref", ["cc"])
    assert any("rebuilt through isl" in line for line in result.report)
    if name == "loop_variable_used_after":
        assert any("loop variable i is used after the loops" in line for line in result.report)


def test_generated_loops_keep_original_names(tmp_path):
    src = tmp_path / "g.c"
    src.write_text(textwrap.dedent(GEMM))
    out = optimize_c_file(str(src), [], PipelineOptions(mode="isl")).source
    assert "for (int i = 0; i < ni; i++)" in out
    assert "for (int k = 0; k < nk; k++)" in out
    assert "C[i][j] += alpha * A[i][k] * B[k][j];" in out


KERNELS = sorted(p for p in SUITE.glob("*/**/*.c") if "utilities" not in p.parts)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.stem)
def test_polybench_through_isl_matches_baseline(kernel, tmp_path):
    flags = ["-O2", f"-I{SUITE / 'utilities'}", f"-I{kernel.parent}", "-DMINI_DATASET",
             "-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_DUMP_FULL_PRECISION"]
    sources = [str(SUITE / "utilities" / "polybench.c"), str(kernel)]
    env = {**os.environ, "S2S_MODE": "isl", "S2S_REPORT": "1"}
    ref, isl_exe = tmp_path / "ref", tmp_path / "isl"
    subprocess.run(["cc", *flags, *sources, "-o", str(ref), "-lm"], check=True)
    built = subprocess.run([str(BIN / "s2s-cc"), *flags, *sources, "-o", str(isl_exe), "-lm"],
                           check=True, env=env, capture_output=True, text=True)
    assert "note:" not in built.stderr
    kernel_lines = [ln for ln in built.stderr.splitlines() if "kernel_" in ln]
    assert kernel_lines and all("rebuilt through isl" in ln for ln in kernel_lines), built.stderr
    a = subprocess.run([str(ref)], capture_output=True, text=True).stderr
    b = subprocess.run([str(isl_exe)], capture_output=True, text=True).stderr
    assert a == b and "begin dump" in a


def test_analyze_cli_text_and_json(tmp_path):
    src = tmp_path / "g.c"
    src.write_text(textwrap.dedent(GEMM))
    text = subprocess.run([str(BIN / "s2s"), "analyze", str(src)], capture_output=True, text=True, check=True).stdout
    assert "gemm: SCoP at" in text and "parameters: ni, nj, nk" in text
    assert "carries flow/anti/output on C" in text and "i: parallel" in text
    data = json.loads(subprocess.run([str(BIN / "s2s"), "analyze", "--json", str(src)],
                                     capture_output=True, text=True, check=True).stdout)
    (scop,) = data["scops"]
    assert {l["variable"]: l["parallel"] for l in scop["loops"] if l["depth"] == 0} == {"i": True}
    assert any(d["kind"] == "flow" and d["source"] == "S_B1" and d["sink"] == "S_B1" for d in scop["dependences"])


DELINEARIZE = """
    #include <stdio.h>
    #include <stdlib.h>
    static void mm(int n, double *A, double *B, double *C) {
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          for (int k = 0; k < n; k++)
            C[i * n + j] += A[i * n + k] * B[k * n + j];
    }
    int main(void) {
      int n = 30;
      double *A = malloc(n * n * sizeof(double)), *B = malloc(n * n * sizeof(double));
      double *C = calloc(n * n, sizeof(double));
      for (int i = 0; i < n * n; i++) { A[i] = i % 7 + 0.5; B[i] = i % 5 - 1.25; }
      mm(n, A, B, C);
      double s = 0;
      for (int i = 0; i < n * n; i++) s += C[i] * (i % 3 + 1);
      printf("%.17g\\n", s);
      return 0;
    }
"""


def test_linearized_subscripts_are_delinearized(tmp_path):
    (scop,) = scops_of(tmp_path, DELINEARIZE, "mm")
    stmt = scop.statements[0]
    assert str(stmt.writes) == "[n] -> { S_B0[i, j, k] -> C[i, j] : 0 <= i < n and 0 <= j < n and 0 <= k < n }"
    info = {l.loop.node.var: l for l in loop_info(scop, compute_dependences(scop))}
    assert info["i"].parallel and info["j"].parallel and not info["k"].parallel
    # A, B, C are plain pointers: the model assumes them distinct and says so
    pairs = {(p.first, p.second) for p in scop.may_alias()}
    assert ("A", "C") in pairs and ("B", "C") in pairs
    src = tmp_path / "d.c"
    src.write_text(textwrap.dedent(DELINEARIZE))
    gen = tmp_path / "d.isl.c"
    gen.write_text(optimize_c_file(str(src), [], PipelineOptions(mode="isl")).source)
    assert _build_and_run(gen, tmp_path / "isl", ["cc"]) == _build_and_run(src, tmp_path / "ref", ["cc"])


def test_inner_index_outside_the_row_is_not_delinearized(tmp_path):
    scops = scops_of(tmp_path, """
        void f(int n, double *A) {
          for (int i = 0; i < n; i++)
            for (int j = 0; j <= n; j++)   /* j == n spills into the next row */
              A[i * n + j] += 1.0;
        }
    """, "f")
    assert scops == []


def test_restrict_pointers_do_not_alias(tmp_path):
    (scop,) = scops_of(tmp_path, """
        void f(int n, double *restrict x, double *restrict y) {
          for (int i = 0; i < n; i++) y[i] += 2.0 * x[i];
        }
    """, "f")
    assert scop.may_alias() == []


def test_dataflow_past_its_operation_limit_falls_back_to_the_memory_based_superset(tmp_path, monkeypatch):
    from s2s.analysis import dependences
    (scop,) = scops_of(tmp_path, """
        void jacobi(int T, int n, double A[n], double B[n]) {
          for (int t = 0; t < T; t++) {
            for (int i = 1; i < n - 1; i++) B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3;
            for (int i = 1; i < n - 1; i++) A[i] = B[i];
          }
        }
    """, "jacobi")
    exact = compute_dependences(scop)
    monkeypatch.setattr(dependences, "DATAFLOW_MAX_OPERATIONS", 50)
    capped = compute_dependences(scop)
    assert capped.flow == capped.flow_memory
    assert exact.flow.is_subset(capped.flow) and not capped.flow.is_subset(exact.flow)
    assert isl.DEFAULT_CONTEXT.get_max_operations() == 0  # the limit is lifted afterwards


def test_a_scop_too_large_for_the_scheduler_leaves_the_rest_of_the_file_optimized(tmp_path, monkeypatch):
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=0,kernel=0,kernel_min=0")
    statements = "\n".join(f"        A{k}[i][j] = A{k}[i][j] + A{(k + 1) % 33}[j][i];" for k in range(33))
    src = tmp_path / "k.c"
    src.write_text("#define N 100\n" + "".join(f"double A{k}[N][N];\n" for k in range(33)) + f"""
void big(void) {{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {{
{statements}
    }}
}}
void transpose_add(double X[N][N], double Y[N][N]) {{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      X[j][i] += Y[i][j];
}}
""")
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", report=True))
    big = next(line for line in result.report if ": big: " in line)
    small = next(line for line in result.report if ": transpose_add: " in line)
    assert "left as is" in big and "unknowns" in big, big
    assert " optimized " in small, small


TWO_NESTS = """
extern void touch(double *p);
void two(int n, double A[100][100], double B[100][100]) {
  for (int i = 0; i < 100; i++)
    for (int j = 0; j < 100; j++)
      A[i][j] = A[i][j] * 2.0;
  touch(&B[0][0]);
  for (int i = 0; i < 100; i++)
    for (int j = 0; j < 100; j++)
      B[j][i] = B[j][i] + 1.0;
}
"""


def test_a_bug_met_on_one_scop_keeps_only_that_scop_as_written(tmp_path):
    from s2s.transforms import regenerate_scops
    from s2s.transforms.polyhedral import Choice

    src = tmp_path / "two.c"
    src.write_text(TWO_NESTS)
    unit, _ = lift_c_file(str(src), [])
    calls = []

    def choose(scop, _ident):
        calls.append(scop)
        if len(calls) == 1:
            raise ValueError("planted")
        return Choice(scop.schedule_tree, "original schedule, rebuilt")

    _, outcomes = regenerate_scops(unit.functions[0], TWO_NESTS, choose)
    assert len(outcomes) == 2 and len(calls) == 2
    assert not outcomes[0].applied and "internal error: ValueError: planted" in outcomes[0].reason
    assert outcomes[1].applied
