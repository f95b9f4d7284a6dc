"""Optimized code pays for itself at the sizes it meets (s2s.transforms.work_guard): a SCoP whose
work is known when compiling and is below the threshold stays as the user wrote it; one whose
work is known only at run time is versioned on it (the user's loops below the threshold, no heap
expansion there); a parallel region with too little work runs as a plain loop; every parallel
region asks at run time whether the cores are free. Outputs are compared with gcc's on both
sides of each threshold."""
from __future__ import annotations

import re
import subprocess
import textwrap

import islpy as isl
import pytest

from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.transforms.work_guard import WorkThresholds, count_points, set_work, work_thresholds
from s2s.ir import ExprPrinter
from tests.c_build import REAL_CC

SUITE = __import__("pathlib").Path(__file__).resolve().parents[1] / "polybench" / "suite"
UTIL = SUITE / "utilities"


def test_thresholds_are_settings(monkeypatch):
    assert WorkThresholds.parse("optimize=5e3, parallel=70") == WorkThresholds(optimize=5000, parallel=70)
    assert WorkThresholds.parse("") == WorkThresholds()
    with pytest.raises(ValueError):
        WorkThresholds.parse("tiles=3")
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "parallel=123")
    assert work_thresholds() == WorkThresholds(parallel=123)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "nonsense")
    assert work_thresholds() == WorkThresholds()


def test_a_tile_loop_counts_one_value_per_stride():
    ctx = isl.Set("[n] -> { : }")
    tiles = set_work([isl.Set("[n] -> { S[c] : exists e : c = 512e and 0 <= c < n }")], ctx)
    assert "/ 512" in ExprPrinter()(tiles.expr), tiles.expr   # (n + 511) / 512, not n


def test_counts_exactly_when_known_and_bounds_at_run_time():
    assert count_points(isl.Set("{ [i, j] : 0 <= i < 100 and 0 <= j < i }")) == (4950, True)
    assert count_points(isl.Set("{ [i] : 0 <= i < 0 }")) == (0, True)
    big = count_points(isl.Set("{ [i, j, k] : 0 <= i, j, k < 1000 and j <= i }"))
    assert big == (10 ** 9, False)   # past the exact-count limit: its box
    ctx = isl.Set("[n] -> { : }")
    work = set_work([isl.Set("[n] -> { S[i, j] : 0 <= i < n and 0 <= j < n }")], ctx)
    assert work.count is None and work.expr is not None
    assert set_work([isl.Set("[n] -> { S[i] : 0 <= i < 7 }")], ctx).count == 7
    # millions of points (doitgen at LARGE): more steps than set_work's bound on isl, past which
    # isl's count stops early and returns what it has
    many = set_work([isl.Set("{ S[i, j, k, l] : 0 <= i < 15 and 0 <= j < 14 and 0 <= k < 120 and 0 <= l <= k }")],
                    isl.Set("{ : }"))
    assert (many.count, many.exact) == (15 * 14 * 120 * 121 // 2, True)


def _build_and_run(tmp_path, name: str, text: str, flags: list[str], threads: int = 2) -> str:
    c = tmp_path / f"{name}.c"
    c.write_text(text)
    exe = tmp_path / name
    subprocess.run([REAL_CC, "-O2", *flags, str(c), "-o", str(exe), "-lm"], check=True, capture_output=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True,
                          env={"OMP_NUM_THREADS": str(threads)}).stdout


def _dumps_match_gcc(tmp_path, kernel, generated: str, flags: list[str]) -> None:
    """Build the suite's ``kernel`` as written and ``generated`` (OpenMP) with ``flags``, run both
    on two threads and compare their full-precision dumps."""
    gen = tmp_path / kernel.name
    gen.write_text(generated)
    outs = []
    for cc_args, source in (([], kernel), (["-fopenmp"], gen)):
        exe = tmp_path / "a.out"
        subprocess.run([REAL_CC, "-O2", *cc_args, *flags, str(UTIL / "polybench.c"), str(source),
                        "-o", str(exe), "-lm"], check=True, capture_output=True)
        outs.append(subprocess.run([str(exe)], check=True, capture_output=True, text=True,
                                   env={"OMP_NUM_THREADS": "2"}).stderr)
    assert outs[0] == outs[1], flags


PROGRAM = textwrap.dedent("""\
    #include <stdio.h>
    #include <stdlib.h>
    static void kernel(int n, int m, double A[n][m], double B[n][m], double C[n][n]) {
      int i, j, k;
      for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
          for (k = 0; k < m; k++)
            C[i][j] += A[i][k] * B[j][k];
    }
    int main(int argc, char **argv) {
      int n = argc > 1 ? atoi(argv[1]) : N, m = M;
      double (*A)[m] = malloc(sizeof(double) * n * m), (*B)[m] = malloc(sizeof(double) * n * m);
      double (*C)[n] = malloc(sizeof(double) * n * n);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) { A[i][j] = (i * j % 7) / 7.0; B[i][j] = (i + j % 5) / 5.0; }
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) C[i][j] = i - j;
      kernel(n, m, A, B, C);
      double s = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) s += C[i][j] * (i % 3 + 1);
      printf("%.17g\\n", s);
      return 0;
    }
    """)


def _with_outlined(source: str, function: str) -> str:
    """The generated text from the functions made of ``function``'s optimized branches (they
    stand before it) on; from ``function`` on where there are none."""
    made = source.find(f"static void s2s_{function}_opt1(")
    return source[made:] if made >= 0 else source[source.index(f"void {function}("):]


def _kernel_line(result) -> str:
    return next(line for line in result.report if ": kernel: " in line)


def test_compile_time_sizes_below_the_threshold_keep_the_users_loops(tmp_path, monkeypatch):
    src = tmp_path / "k.c"
    src.write_text("#define N 20\n#define M 30\ndouble A[N][M], B[N][M], C[N][N];\n"
                   "void kernel(void) {\n  int i, j, k;\n  for (i = 0; i < N; i++)\n    for (j = 0; j < N; j++)\n"
                   "      for (k = 0; k < M; k++)\n        C[i][j] += A[i][k] * B[j][k];\n}\n")
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=100000")
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target="openmp", report=True))
    line = _kernel_line(result)
    assert "left as is" in line and "12000 statement instances, below the 1.0e5" in line
    assert not result.changed
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=10000")
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target="openmp", report=True))
    assert "optimized" in _kernel_line(result) and "run only where" not in _kernel_line(result)


def test_a_matrix_multiply_below_the_kernel_threshold_stays_loops(tmp_path, monkeypatch):
    src = tmp_path / "k.c"
    src.write_text("#define N 20\n#define M 30\ndouble A[N][M], B[M][N], C[N][N];\n"
                   "void kernel(void) {\n  int i, j, k;\n  for (i = 0; i < N; i++)\n    for (k = 0; k < M; k++)\n"
                   "      for (j = 0; j < N; j++)\n        C[i][j] += A[i][k] * B[k][j];\n}\n")
    # (along the rows of C, as gcc vectorizes well; in the order i-j-k the kernel is used at any size)
    for kernel, expected in (("12001", False), ("12000", True)):   # (below: the user's loops)
        monkeypatch.setenv("S2S_WORK_THRESHOLDS", f"optimize=0,kernel={kernel},kernel_min=0")
        line = _kernel_line(optimize_c_file(str(src), [], PipelineOptions(mode="pluto", report=True)))
        assert ("register-blocked" in line) is expected, line
    src.write_text(src.read_text().replace("for (k = 0; k < M; k++)", "@").replace(
        "for (j = 0; j < N; j++)", "for (k = 0; k < M; k++)").replace("@", "for (j = 0; j < N; j++)"))
    line = _kernel_line(optimize_c_file(str(src), [], PipelineOptions(mode="pluto", report=True)))
    assert "register-blocked" in line, line
    # ... from `kernel_min` multiply-adds (the panels' fixed cost); below, scheduled as loops
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,kernel=0,kernel_min=12001")
    line = _kernel_line(optimize_c_file(str(src), [], PipelineOptions(mode="pluto", report=True)))
    assert "register-blocked" not in line and "optimized" in line, line
    # i-k-j again, but the right factor read down a column (syr2k's A[j][k]): still along the rows
    # of C, which gcc vectorizes, so a kernel only from `kernel` multiply-adds
    src.write_text("#define N 20\n#define M 30\ndouble A[N][M], B[N][M], C[N][N];\n"
                   "void kernel(void) {\n  int i, j, k;\n  for (i = 0; i < N; i++)\n    for (k = 0; k < M; k++)\n"
                   "      for (j = 0; j < N; j++)\n        C[i][j] += A[i][k] * B[j][k];\n}\n")
    for kernel, expected in (("12001", False), ("12000", True)):
        monkeypatch.setenv("S2S_WORK_THRESHOLDS", f"optimize=0,kernel={kernel},kernel_min=0")
        line = _kernel_line(optimize_c_file(str(src), [], PipelineOptions(mode="pluto", report=True)))
        assert ("register-blocked" in line) is expected, line


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_run_time_sizes_are_versioned_on_the_work(tmp_path, monkeypatch, target):
    # threshold 2e5 statement instances: n = 10 (m = 40: 4e3) runs the user's loops, n = 120 (5.8e5)
    # the optimized ones, on threads started for it (3e5); both give gcc's answer
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=2e5,parallel=1e5,parallel_start=3e5,parallel_wake=3e5")
    text = PROGRAM.replace("int n = argc > 1 ? atoi(argv[1]) : N, m = M;", "int n = argc > 1 ? atoi(argv[1]) : 10, m = 40;")
    src = tmp_path / "k.c"
    src.write_text(text)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target=target, report=True))
    line = _kernel_line(result)
    assert "optimized" in line and "run only where its work reaches 2.0e5 statement instances" in line
    kernel = re.search(r"static void kernel.*?\n}\n", result.source, re.S).group(0)
    # (told to the compiler that either branch may run: a long && chain would make it compile
    # the optimized version as cold code, unvectorized; and below the threshold the other one)
    guard = re.search(r"if \(S2S_EITHER\((\(double\).*?>= 200000\.0)", kernel)
    assert guard, kernel
    assert "#define S2S_EITHER(c) __builtin_expect_with_probability(!!(c), 1, 0.5)" in result.source
    # the other branch is the user's loops
    assert "} else {\n      for (i = 0; i < n; i++) {\n        for (j = 0; j < n; j++) {\n" \
           "          for (k = 0; k < m; k++) {\n            C[i][j] += A[i][k] * B[j][k];" in kernel
    # the optimized branch, a function of its own, which the user's calls above the threshold
    optimized = re.search(r"static void s2s_kernel_opt1\(int n, int m, double s2s_in_A\[n\]\[m\], .*?\n}\n",
                          result.source, re.S).group(0)
    assert "s2s_kernel_opt1(n, m, A, B, C);\n    } else {" in kernel
    if target == "openmp":
        assert "s2s_team_pays(" in optimized and ", 300000, 300000)" in optimized
    flags = ["-fopenmp"] if target == "openmp" else []
    gen = tmp_path / "gen"
    gen.mkdir()
    for n in ("10", "120"):
        want = _build_and_run(tmp_path, "ref", text.replace(": 10, m", f": {n}, m"), [])
        got = _build_and_run(gen, "opt", result.source.replace(": 10, m", f": {n}, m"), flags)
        assert got == want, n


def test_a_parallel_region_with_too_little_work_is_a_plain_loop(tmp_path, monkeypatch):
    # jacobi-2d at MINI: each sweep of a time step is a region of 784 statement instances; its
    # new order is the user's with those loops parallel, so with none parallel the SCoP stays
    args = [f"-I{UTIL}", "-DMINI_DATASET", "-DPOLYBENCH_USE_SCALAR_LB"]
    src = str(SUITE / "stencils" / "jacobi-2d" / "jacobi-2d.c")
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=1000")
    small = optimize_c_file(src, args, PipelineOptions(mode="pluto", target="openmp", report=True))
    line = next(ln for ln in small.report if "kernel_jacobi_2d" in ln)
    assert "left as is" in line and "no region has the work for it" in line, line
    kernel = small.source[small.source.index("void kernel_jacobi_2d"):]
    assert "omp parallel" not in kernel[:kernel.index("int main")]
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=500")
    big = optimize_c_file(src, args, PipelineOptions(mode="pluto", target="openmp", report=True))
    kernel = _with_outlined(big.source, "kernel_jacobi_2d")
    assert kernel[:kernel.index("int main")].count("#pragma omp parallel for\n") == 2


def test_run_time_regions_are_versioned_and_expansion_allocates_only_with_the_work(tmp_path, monkeypatch):
    # doitgen with run-time loop bounds (the default): its expanded sum is allocated
    # only where the work reaches the threshold; at MINI (below it) and above it, gcc's answer
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=20000,parallel=20000,kernel=0,kernel_min=0")
    kdir = SUITE / "linear-algebra" / "kernels" / "doitgen"
    common = [f"-I{UTIL}", f"-I{kdir}", "-DPOLYBENCH_DUMP_ARRAYS",
              "-DPOLYBENCH_DUMP_FULL_PRECISION"]
    for dataset in ("MINI", "SMALL"):   # 8.5e3 and 6.6e5 statement instances
        sizes = [f"-D{dataset}_DATASET"]
        result = optimize_c_file(str(kdir / "doitgen.c"), common + sizes,
                                 PipelineOptions(mode="pluto", target="openmp", report=True))
        line = next(ln for ln in result.report if "kernel_doitgen" in ln)
        assert "optimized" in line and "run only where its work reaches" in line
        assert re.search(r"sum_x\)\[[^]]*\] = .* >= 20000\.0 \? .*__builtin_malloc", result.source)
        _dumps_match_gcc(tmp_path, kdir / "doitgen.c", result.source, common + sizes)


GEMM_ALONG_ROWS = textwrap.dedent("""\
    #include <stdio.h>
    #include <stdlib.h>
    static void kernel(int n, double A[n][n], double B[n][n], double C[n][n]) {
      int i, j, k;
      for (i = 0; i < n; i++)
        for (k = 0; k < n; k++)
          for (j = 0; j < n; j++)
            C[i][j] += A[i][k] * B[k][j];
    }
    int main(int argc, char **argv) {
      int n = argc > 1 ? atoi(argv[1]) : 10;
      double (*A)[n] = malloc(sizeof(double) * n * n), (*B)[n] = malloc(sizeof(double) * n * n);
      double (*C)[n] = malloc(sizeof(double) * n * n);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) { A[i][j] = (i * j % 7) / 7.0; B[i][j] = (i + j % 5) / 5.0; C[i][j] = i - j; }
      kernel(n, A, B, C);
      double s = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) s += C[i][j] * (i % 3 + 1);
      printf("%.17g\\n", s);
      return 0;
    }
    """)


def test_run_time_kernels_are_versioned_on_their_multiply_adds(tmp_path, monkeypatch):
    # a matrix multiply along rows with run-time sizes: the kernel only from `kernel` multiply-adds
    # (SCoP work, else the user's loops), and on all cores only from `parallel_kernel` (else one)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=0,kernel=5000,parallel_kernel=100000,"
                                              "parallel_start=2e5,parallel_wake=2e5")
    src = tmp_path / "k.c"
    src.write_text(GEMM_ALONG_ROWS)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target="openmp", report=True))
    line = _kernel_line(result)
    assert "register-blocked" in line and "run only where its work reaches 5.0e3 statement instances" in line
    kernel = re.search(r"static void kernel.*?\n}\n", result.source, re.S).group(0)
    assert re.search(r"if \(S2S_EITHER\(\(double\).*?>= 5000\.0", kernel), kernel
    optimized = re.search(r"static void s2s_kernel_opt1\(.*?\n}\n", result.source, re.S).group(0)
    parallel = re.search(r"if \(S2S_EITHER\(\(double\)[^\n]*>= 100000\.0 && s2s_team_pays\([^\n]*, 200000, 200000\)\)\) "
                         r"\{\n(.*?)\n *\} else \{\n(.*)", optimized, re.S)
    assert parallel, optimized
    assert "#pragma omp parallel" in parallel.group(1) and "#pragma omp parallel" not in parallel.group(2)
    gen = tmp_path / "gen"
    gen.mkdir()
    for n in ("10", "30", "60"):   # 1e3: loops; 2.7e4: the kernel on one thread; 2.2e5: on all cores
        want = _build_and_run(tmp_path, "ref", GEMM_ALONG_ROWS.replace(": 10;", f": {n};"), [])
        got = _build_and_run(gen, "opt", result.source.replace(": 10;", f": {n};"), ["-fopenmp"])
        assert got == want, n


def _tiles_for_wavefronts(monkeypatch):
    """A tile budget of 1 KiB: the small kernels' bands no longer stay in cache untiled, so their
    OpenMP code is a wavefront of tiles (a band with no parallel loop that fits in cache is left
    untiled instead, with no wavefront)."""
    from s2s.transforms import machine_options
    monkeypatch.setattr(machine_options, "tile_budget_bytes", lambda topo: 1024)


def test_a_wavefront_region_is_also_tested_on_the_average_work(tmp_path, monkeypatch):
    # lu's tiles run as a wavefront of parallel regions; one region's bounding box is loose
    # (6.8e4 instances at n = 40 where a region runs hundreds), so the SCoP's own work, spread
    # over the wavefront's steps, must reach the threshold too
    _tiles_for_wavefronts(monkeypatch)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=50000")
    kdir = SUITE / "linear-algebra" / "solvers" / "lu"
    common = [f"-I{UTIL}", f"-I{kdir}", "-DPOLYBENCH_DUMP_ARRAYS",
              "-DPOLYBENCH_DUMP_FULL_PRECISION", "-DMINI_DATASET"]
    result = optimize_c_file(str(kdir / "lu.c"), common, PipelineOptions(mode="pluto", target="openmp", report=True))
    line = next(ln for ln in result.report if "kernel_lu" in ln)
    assert "wavefront" in line and "versioned on their work" in line, line
    assert re.search(r">= 50000\.0 \* \(double\)", result.source), line
    _dumps_match_gcc(tmp_path, kdir / "lu.c", result.source, common)


JACOBI_STEPS = textwrap.dedent("""\
    #include <stdio.h>
    #include <stdlib.h>
    static void smooth(int steps, int n, double A[n][n], double B[n][n]) {
      for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
          for (int j = 1; j < n - 1; j++)
            B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i - 1][j] + A[i + 1][j]);
        for (int i = 1; i < n - 1; i++)
          for (int j = 1; j < n - 1; j++)
            A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i - 1][j] + B[i + 1][j]);
      }
    }
    int main(int argc, char **argv) {
      int n = atoi(argv[1]);
      double (*A)[n] = malloc(sizeof(double) * n * n), (*B)[n] = malloc(sizeof(double) * n * n);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          A[i][j] = B[i][j] = (i * 7 + j * 3) % 11;
      smooth(5, n, A, B);
      double s = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          s += A[i][j] * (i + 2 * j);
      printf("%.17g\\n", s);
      return 0;
    }
    """)


def test_an_order_that_gains_only_in_parallel_runs_only_where_a_region_does(tmp_path, monkeypatch):
    # a time-stepped stencil: under OpenMP its original order with the i loops parallel; on one
    # thread that order is the user's, so where no region has the work the user's loops run
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=50000")
    # (28^2 and 398^2 points a region: below and above the threshold)
    line = _openmp_matches_gcc(tmp_path, JACOBI_STEPS, ": smooth: ", ("30", "400"))
    assert "optimized" in line and "the user's loops where no region has the work" in line, line
    # the regions' own work test is the one in front of the SCoP: they are not versioned again
    source = tmp_path / "steps.c"
    source.write_text(JACOBI_STEPS)
    result = optimize_c_file(str(source), [], PipelineOptions(mode="pluto", target="openmp"))
    smooth = _with_outlined(result.source, "smooth")
    smooth = smooth[:smooth.index("int main")]
    assert smooth.count("S2S_EITHER") == 1 and smooth.count("#pragma omp parallel for") == 2, smooth
    # sizes known when compiling, every region below the threshold: nothing to gain
    src = tmp_path / "fixed.c"
    src.write_text(JACOBI_STEPS.replace("static void smooth(int steps, int n,", "#define n 30\n#define steps 5\n"
                                        "static void smooth(").replace("smooth(5, n, A, B)", "smooth(A, B)")
                   .replace("int n = atoi(argv[1]);", ""))
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target="openmp", report=True))
    line = next(ln for ln in result.report if ": smooth: " in ln)
    assert "left as is" in line and "gains only in parallel" in line, line


SHORTEST_PATHS = textwrap.dedent("""\
    #include <stdio.h>
    #include <stdlib.h>
    static void relax(int n, int D[n][n]) {
      for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
          for (int j = 0; j < n; j++)
            D[i][j] = D[i][j] < D[i][k] + D[k][j] ? D[i][j] : D[i][k] + D[k][j];
    }
    int main(int argc, char **argv) {
      int n = atoi(argv[1]);
      int (*D)[n] = malloc(sizeof(int) * n * n);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          D[i][j] = i == j ? 0 : (i * 31 + j * 17) % 97 + 1;
      relax(n, D);
      long s = 0;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          s += (long)D[i][j] * (i + 3 * j);
      printf("%ld\\n", s);
      return 0;
    }
    """)


def test_a_wavefront_whose_regions_run_sequentially_walks_the_sequential_tiles(tmp_path, monkeypatch):
    # floyd-warshall's tiles run as a wavefront under OpenMP; where no region has the work to run
    # in parallel, the tiles of the sequential target run instead (row by row, not diagonally)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=2000")
    # (the regions' average work is below, then above the threshold)
    line = _openmp_matches_gcc(tmp_path, SHORTEST_PATHS, ": relax: ", ("60", "200"))
    assert "wavefront" in line and "the sequential target's code where no region runs in parallel" in line, line


def _openmp_matches_gcc(tmp_path, program: str, function: str, sizes: tuple[str, ...]) -> str:
    """Optimize ``program`` for OpenMP, check that it prints what gcc's build prints for each
    size (its argument), and return the report line of ``function``."""
    src = tmp_path / "prog.c"
    src.write_text(program)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target="openmp", report=True))
    gen = tmp_path / "gen.c"
    gen.write_text(result.source)
    exe_ref, exe_opt = tmp_path / "ref", tmp_path / "opt"
    subprocess.run([REAL_CC, "-O2", str(src), "-o", str(exe_ref)], check=True, capture_output=True)
    subprocess.run([REAL_CC, "-O2", "-fopenmp", str(gen), "-o", str(exe_opt)], check=True, capture_output=True)
    for n in sizes:
        outs = [subprocess.run([str(exe), n], check=True, capture_output=True, text=True,
                               env={"OMP_NUM_THREADS": "2"}).stdout for exe in (exe_ref, exe_opt)]
        assert outs[0] == outs[1], n
    return next(ln for ln in result.report if function in ln)


def test_threads_start_only_where_the_scop_pays_for_it(tmp_path):
    # s2s_team_pays, per calling thread: the first start needs `start` instances; once started,
    # a region right after another needs none; after the threads went to sleep, `wake` instances
    # (the cores taken as free: whether they are depends on what else runs)
    from backends.openmp.printer import CORES_FREE, TEAM_AWAKE_S, team_pays_helper
    program = f"static int {CORES_FREE}(void) {{ return 1; }}\n" + team_pays_helper() + textwrap.dedent(f"""\
        #include <stdio.h>
        #include <time.h>
        int main(void) {{
          const struct timespec asleep = {{0, {int(TEAM_AWAKE_S * 5e9)}}};
          printf("%d", s2s_team_pays(9e5, 1e6, 1e3));    /* no: the first start needs 1e6 */
          printf("%d", s2s_team_pays(1e6, 1e6, 1e3));    /* yes */
          int awake = 0;
          for (int k = 0; k < 5; k++)   /* (right after: awake, unless this process was descheduled) */
            awake |= s2s_team_pays(1, 1e6, 1e3);
          printf("%d", awake);
          nanosleep(&asleep, 0);
          printf("%d", s2s_team_pays(999, 1e6, 1e3));    /* no: waking them needs 1e3 */
          printf("%d\\n", s2s_team_pays(1e3, 1e6, 1e3));  /* yes */
          return 0;
        }}
        """)
    assert _build_and_run(tmp_path, "team", program, ["-fopenmp"]) == "01101\n"


@pytest.mark.parametrize("start", ["1e9", "1e4"])
def test_where_the_threads_may_not_start_the_sequential_order_runs(tmp_path, monkeypatch, start):
    # mvt at SMALL: the OpenMP target keeps a parallel loop, the sequential one reads the matrix
    # once for both products; where the threads do not start (run-time test) the sequential
    # order runs. With threads started (1e4) or not (1e9), gcc's answer.
    _tiles_for_wavefronts(monkeypatch)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", f"optimize=0,parallel=0,parallel_start={start},parallel_wake=0")
    kdir = SUITE / "linear-algebra" / "kernels" / "mvt"
    common = [f"-I{UTIL}", f"-I{kdir}", "-DPOLYBENCH_DUMP_ARRAYS",
              "-DPOLYBENCH_DUMP_FULL_PRECISION", "-DSMALL_DATASET"]
    result = optimize_c_file(str(kdir / "mvt.c"), common, PipelineOptions(mode="pluto", target="openmp", report=True))
    line = next(ln for ln in result.report if "kernel_mvt" in ln)
    assert "the sequential target's code where no region runs in parallel" in line, line
    assert "S2S_EITHER(" in result.source and "s2s_team_pays(" in result.source
    _dumps_match_gcc(tmp_path, kdir / "mvt.c", result.source, common)


def test_a_wavefront_runs_on_threads_only_from_its_own_threshold(tmp_path, monkeypatch):
    # lu's wavefront of tiles: a region per diagonal, few tiles in the first and last; below
    # `parallel_wavefront` instances the sequential target's tiles run (a run-time test here)
    _tiles_for_wavefronts(monkeypatch)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=0,parallel_start=0,parallel_wake=0,"
                                              "parallel_wavefront=3e4")
    kdir = SUITE / "linear-algebra" / "solvers" / "lu"
    common = [f"-I{UTIL}", f"-I{kdir}", "-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_DUMP_FULL_PRECISION"]
    result = optimize_c_file(str(kdir / "lu.c"), common + ["-DMINI_DATASET"],
                             PipelineOptions(mode="pluto", target="openmp", report=True))
    line = next(ln for ln in result.report if "kernel_lu" in ln)
    assert "wavefront" in line and "the sequential target's code where no region runs in parallel" in line, line
    assert re.search(r"if \(S2S_EITHER\(\(double\)[^\n]*>= 30000\.0", result.source), line
    for dataset in ("MINI", "SMALL"):   # 1.3e4 and 1.2e6 statement instances (bounding boxes)
        _dumps_match_gcc(tmp_path, kdir / "lu.c", result.source, common + [f"-D{dataset}_DATASET"])
