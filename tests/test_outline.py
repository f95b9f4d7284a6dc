"""A version's optimized branch as a function of its own (backends/c/outline.py)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from c_build import optimized_and_both_outputs, outputs_of_both_builds
from frontends.c.source_map import SourceText
from s2s.driver.pipeline import PipelineOptions, optimize_c_file

# 2mm's first product: function-level loop variables, a scalar parameter, sizes at run time
# from 0 to well above the work threshold (5 x 10^4 statement instances), so that both
# branches of the version test run
GEMM = r"""
#include <stdio.h>
#ifndef N
#define N 70
#endif
static double A[N][N], B[N][N], C[N][N];

static
void scaled_product(int n, double alpha, double C[N][N], double A[N][N], double B[N][N])
{
  int i, j, k;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      C[i][j] *= 0.5;
      for (k = 0; k < n; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

int main(void)
{
  static const int sizes[] = {0, 1, 7, 23, N};
  for (int s = 0; s < 5; s++) {
    int n = sizes[s];
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        A[i][j] = (double)((i * 7 + j * 3) % 11) / 13.0;
        B[i][j] = (double)((i * 5 + j) % 17) / 7.0;
        C[i][j] = 1.0 / (1 + i + j);
      }
    scaled_product(n, 1.5, C, A, B);
    double sum = 0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        sum += C[i][j] * (i % 13 + j % 5 + 1);
    printf("%d %.17g\n", n, sum);
  }
  return 0;
}
"""


@pytest.fixture(autouse=True)
def _work_threshold(monkeypatch):
    # (a branch is outlined behind a test on the work; the tests run without one by default)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=5e4,kernel=0,kernel_min=0")


def _outlined(source: str, function: str) -> str:
    match = re.search(rf"S2S_OUTLINED static void s2s_{function}_opt1\(.*?\n}}\n", source, re.S)
    return match.group(0) if match else ""


def _outlined_gemm(tmp_path):
    """GEMM optimized (C target), with its branch outlined."""
    src = tmp_path / "mm.c"
    src.write_text(GEMM)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto"))
    assert _outlined(result.source, "scaled_product")
    return result


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_the_optimized_branch_is_a_function_before_the_users(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "mm.c", GEMM, target)
    assert out == ref
    made = _outlined(result.source, "scaled_product")
    # its parameters as the file writes them, its arrays seen restrict-qualified (the test in
    # front of the call has them apart); the loop variables it counts with, its own
    assert made.startswith("S2S_OUTLINED static void s2s_scaled_product_opt1(int n, double alpha, double s2s_in_C[N][N], "
                           "double s2s_in_A[N][N], double s2s_in_B[N][N])\n{\n"
                           "  __typeof__(s2s_in_C) __restrict C = s2s_in_C;\n"
                           "  __typeof__(s2s_in_A) __restrict A = s2s_in_A;\n"
                           "  __typeof__(s2s_in_B) __restrict B = s2s_in_B;\n"), made
    if target == "c":
        assert made.split("\n")[5] == "  int i;" and "for (i = 0; i < n; i++)" in made, made
    user = result.source[result.source.index("static\nvoid scaled_product("):]
    assert result.source.index(made) < result.source.index("static\nvoid scaled_product(")
    # the user's function: the test, the call, and the user's loops
    assert re.search(r"if \(S2S_EITHER\(.*\)\) \{\n *s2s_scaled_product_opt1\(n, alpha, C, A, B\);\n *\} else \{\n"
                     r" *for \(i = 0; i < n; i\+\+\)", user), user


@pytest.mark.skipif(not shutil.which("clang-14"), reason="clang-14 not installed (make setup installs it)")
def test_the_function_builds_quietly_with_gcc_and_clang(tmp_path):
    # never inlined (both), never cloned for constant sizes (gcc: `noclone`, which clang does not know)
    result = _outlined_gemm(tmp_path)
    generated = tmp_path / "mm.s2s.c"
    generated.write_text(result.source)
    for cc in ("gcc", "clang-14"):
        built = subprocess.run([cc, "-O3", "-Wall", "-Werror", "-S", "-o", "-", str(generated)],
                               capture_output=True, text=True)
        assert built.returncode == 0, built.stderr
        assert re.search(r"^s2s_scaled_product_opt1\b", built.stdout, re.M), cc   # a function of its own
        assert "constprop" not in built.stdout


def test_macros_in_the_parameters_mean_what_they_mean_where_the_function_stands(tmp_path):
    # the generated file built with another N: both functions see the new extents
    result = _outlined_gemm(tmp_path)
    other = tmp_path / "other.c"
    other.write_text(GEMM.replace("#define N 70", "#define N 83"))
    ref, out = outputs_of_both_builds(other, result.source.replace("#define N 70", "#define N 83"), openmp=False)
    assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_arrays_that_overlap_run_the_users_loops(tmp_path, target):
    # C and A one array at n = N: the test in front of the call (arrays apart) sends it to the user's
    # loops, so that the function's restrict-qualified arrays never overlap
    program = GEMM.replace("scaled_product(n, 1.5, C, A, B);", "scaled_product(n, 1.5, C, s == 4 ? C : A, B);")
    result, ref, out = optimized_and_both_outputs(tmp_path / "mm.c", program, target)
    assert out == ref
    assert "__restrict A = s2s_in_A;" in _outlined(result.source, "scaled_product")


def test_a_branch_that_writes_a_variable_of_the_function_stays_in_it(tmp_path):
    # `scale` is the function's, written by the SCoP and read after it: no function is made
    program = GEMM.replace("  int i, j, k;\n", "  int i, j, k;\n  double scale = 0.0;\n").replace(
        "      C[i][j] *= 0.5;\n", "      scale = 0.5 + i * 0.001;\n      C[i][j] *= scale;\n").replace(
        "        C[i][j] += alpha * A[i][k] * B[k][j];\n    }\n",
        "        C[i][j] += alpha * A[i][k] * B[k][j];\n    }\n  C[0][0] += scale;\n")
    result, ref, out = optimized_and_both_outputs(tmp_path / "mm.c", program, "c")
    assert out == ref
    assert "S2S_EITHER" in result.source and "s2s_scaled_product_opt" not in result.source


def test_a_head_the_file_does_not_plainly_show_keeps_the_branch_inside(tmp_path):
    # a macro around the head: no place known for a function in front of it
    program = GEMM.replace("static\nvoid scaled_product(", "#define LOCAL(t) static t\nLOCAL(void) scaled_product(")
    result, ref, out = optimized_and_both_outputs(tmp_path / "mm.c", program, "openmp")
    assert out == ref
    assert "S2S_EITHER" in result.source and "s2s_scaled_product_opt" not in result.source


@pytest.mark.parametrize("inline", ["inline", "__inline__", "__inline"])
def test_an_inline_function_with_external_linkage_keeps_the_branch_inside(tmp_path, inline):
    # (C forbids such a function to refer to a static function)
    program = GEMM.replace("static\nvoid scaled_product(", "void scaled_product(int n, double alpha, double C[N][N], "
                           f"double A[N][N], double B[N][N]);\n{inline} void scaled_product(")
    result, ref, out = optimized_and_both_outputs(tmp_path / "mm.c", program, "c")
    assert out == ref
    assert "S2S_EITHER" in result.source and "s2s_scaled_product_opt" not in result.source


def test_where_a_function_head_starts_and_its_parameters_as_written():
    text = ("typedef int T;\n/* note */ static\nT * __attribute__((noinline)) f(int n, DATA(A, N),\n"
            "  double (*g)(double))\n{ return 0; }\n#define X 1\nstatic inline T g(void) { return 1; }\n"
            "int x; int h(void) { return 2; }\nAPI(int) k(void) { return 3; }\n")
    source = SourceText("a.c", text)
    start = source.definition_start(3, 31, "f")
    assert text[start:].startswith("static\nT *")
    assert source.parameter_texts(start, "f") == ["int n", "DATA(A, N)", "double (*g)(double)"]
    start = source.definition_start(7, 17, "g")
    assert text[start:].startswith("static inline T g(void)")
    assert source.parameter_texts(start, "g") == ["void"]
    assert source.definition_start(8, 12, "h") is None   # another declaration on its line
    assert source.definition_start(9, 10, "k") is None   # a macro's parentheses
