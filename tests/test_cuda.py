"""The CUDA target (docs/cuda.md): kernels and their launch geometry, the CUDA unit compiled by
nvcc (no GPU needed for that), and programs that run through their CPU fallback where no GPU is
present (``S2S_CUDA_DISABLE=1`` asks for it where one is) with the baseline's outputs; with a GPU
(``-m gpu``), on it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from polybench.registry import KERNELS, SUITE_ROOT, kernel_source
from s2s.driver.cuda_toolkit import link_flags
from s2s.driver.pipeline import PipelineOptions, optimize_c_file

UTILITIES = SUITE_ROOT / "utilities"
NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not on PATH")


def has_gpu() -> bool:
    if not os.path.exists("/dev/nvidiactl") or shutil.which("nvidia-smi") is None:
        return False
    return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0


STENCIL = """
#include <stdio.h>
#define N 48
static double A[N][N], B[N][N];
void stencil(int tsteps, int n, double A[N][N], double B[N][N]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j-1] + B[i][j+1] + B[i+1][j] + B[i-1][j]);
  }
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (i * (j + 2) + 2) / (double)N;
      B[i][j] = (i * (j + 3) + 3) / (double)N;
    }
  stencil(10, N, A, B);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.17g\\n", A[i][j] + B[i][j]);
  return 0;
}
"""


def polybench_args(name: str) -> list[str]:
    src = kernel_source(KERNELS[name])
    return [f"-I{UTILITIES}", f"-I{src.parent}", "-DMINI_DATASET"]


def cuda_result(path: Path, args: list[str]):
    return optimize_c_file(str(path), args, PipelineOptions(target="cuda", report=True))


def offload_lines(result) -> list[str]:
    return [ln for ln in result.report if "offloaded to CUDA" in ln]


def test_a_stencil_runs_its_time_loop_on_the_host_and_its_space_loops_as_a_2d_grid(tmp_path):
    path = tmp_path / "stencil.c"
    path.write_text(textwrap.dedent(STENCIL))
    result = cuda_result(path, [])
    (line,) = [ln for ln in offload_lines(result) if ": stencil:" in ln]
    # threadIdx.x along j, the stride-1 subscript
    entry_name = re.search(r"offloaded to CUDA as (s2s_cuda_stencil_1_[0-9a-f]{8}) ", line).group(1)
    assert (f"2 kernel(s): {entry_name}_k1: grid over i (y), j (x); {entry_name}_k2: grid over i (y), j (x)"
            in line)
    (unit,) = result.companions
    assert unit.language == "cuda" and "cudart" in unit.libraries
    entry = unit.text[unit.text.index(f'extern "C" int {entry_name}('):]
    entry = entry[:entry.index("\n}\n")]
    assert "for (t = 0; t < tsteps; t++)" in entry or "for (int t = 0; t < tsteps; t++)" in entry
    assert entry.count("S2S_LAUNCH(") == 2 and entry.count("cudaMemcpy(") == 4   # in twice and out twice, outside the loop
    assert entry.index("cudaMemcpyHostToDevice") < entry.index("tsteps; t++") < entry.rindex("cudaMemcpyDeviceToHost")
    assert "dim3 s2s_block(32, 8, 1);" in entry
    # each thread is bounded by its dimension's extent
    assert "s2s_v0 < s2s_hi0" in unit.text and "s2s_v1 < s2s_hi1" in unit.text
    # the C file calls the entry point and keeps the C code for where it returns 0
    assert f"if (!{entry_name}(" in result.source
    assert f"extern int {entry_name}(" in result.source


def test_heat_3d_gets_a_3d_grid_with_x_along_k():
    result = cuda_result(kernel_source(KERNELS["heat-3d"]), polybench_args("heat-3d"))
    (line,) = [ln for ln in offload_lines(result) if "kernel_heat_3d" in ln]
    assert "grid over i (z), j (y), k (x)" in line
    assert "dim3 s2s_block(32, 4, 2);" in result.companions[0].text


def test_a_nest_without_a_parallel_loop_stays_on_the_host():
    result = cuda_result(kernel_source(KERNELS["seidel-2d"]), polybench_args("seidel-2d"))
    assert any("kernel_seidel_2d: region" in ln and "stays on the host: no loop proven parallel" in ln
               for ln in result.report)
    assert "s2s_cuda_kernel_seidel_2d" not in result.source


def compile_unit(text: str, where: Path) -> Path:
    cu = where / "unit.cu"
    cu.write_text(text)
    obj = where / "unit.o"
    proc = subprocess.run([NVCC, "-fmad=false", "-c", str(cu), "-o", str(obj)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return obj


@needs_nvcc
@pytest.mark.parametrize("name", ["gemm", "jacobi-2d"])
def test_polybench_units_compile_with_nvcc(name, tmp_path):
    result = cuda_result(kernel_source(KERNELS[name]), polybench_args(name))
    assert offload_lines(result)
    compile_unit(result.companions[0].text, tmp_path)


@needs_nvcc
@pytest.mark.slow
def test_all_30_polybench_units_compile_with_nvcc(tmp_path):
    offloaded = 0
    for name in sorted(KERNELS):
        result = cuda_result(kernel_source(KERNELS[name]), polybench_args(name))
        where = tmp_path / name
        where.mkdir()
        (where / "gen.c").write_text(result.source)
        proc = subprocess.run(["cc", "-c", *polybench_args(name), str(where / "gen.c"), "-o", str(where / "gen.o")],
                              capture_output=True, text=True)
        assert proc.returncode == 0, (name, proc.stderr[-2000:])
        if result.companions:
            compile_unit(result.companions[0].text, where)
            offloaded += any(f"kernel_{name.replace('-', '_')}" in ln for ln in offload_lines(result))
    assert offloaded >= 15


def compile_emulated(text: str, where: Path) -> Path:
    """The unit as plain C++ whose launches run their threads in turn on the host (S2S_CUDA_EMULATE)."""
    cu = where / "unit.cu"
    cu.write_text(text)
    obj = where / "unit.o"
    proc = subprocess.run(["c++", "-O2", "-DS2S_CUDA_EMULATE", "-x", "c++", "-c", str(cu), "-o", str(obj)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return obj


def build(tmp_path: Path, source: Path, args: list[str], extra: list[str], kind: str) -> Path:
    """The program of ``source`` (and ``extra`` C files): ``base``, the user's; ``cuda``, its
    loops offloaded and the unit compiled by nvcc; ``emulated``, offloaded and the unit compiled
    as C++ that runs the kernels on the host."""
    objects = [str(source)]
    if kind != "base":
        result = cuda_result(source, args)
        gen = tmp_path / "gen.c"
        gen.write_text(result.source)
        subprocess.run(["cc", "-O2", "-c", *args, str(gen), "-o", str(tmp_path / "gen.o")], check=True)
        objects = [str(tmp_path / "gen.o")]
        if result.companions:
            text = result.companions[0].text
            unit = compile_unit(text, tmp_path) if kind == "cuda" else compile_emulated(text, tmp_path)
            subprocess.run(["cc", "-r", "-nostdlib", "-o", str(tmp_path / "joined.o"), str(tmp_path / "gen.o"),
                            str(unit)], check=True)
            objects = [str(tmp_path / "joined.o")]
    exe = tmp_path / kind
    libs = [*link_flags((NVCC,)), "-lcudart"] if kind == "cuda" else []
    libs += ["-lstdc++"] if kind != "base" else []
    proc = subprocess.run(["cc", "-O2", *args, *objects, *extra, "-o", str(exe), *libs, "-lm"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return exe


def run(exe: Path, gpu: bool) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if not gpu:
        env["S2S_CUDA_DISABLE"] = "1"
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def check_same_outputs(tmp_path: Path, name: str, kind: str, gpu: bool = False) -> None:
    if name == "stencil":
        source = tmp_path / "stencil.c"
        source.write_text(textwrap.dedent(STENCIL))
        args, extra = [], []
    else:
        source = kernel_source(KERNELS[name])
        args = polybench_args(name) + ["-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_DUMP_FULL_PRECISION"]
        extra = [str(UTILITIES / "polybench.c")]
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    base = run(build(tmp_path / "b", source, args, extra, "base"), gpu)
    made = run(build(tmp_path / "c", source, args, extra, kind), gpu)
    assert made.stdout == base.stdout and made.stderr == base.stderr


@needs_nvcc
@pytest.mark.parametrize("name", ["stencil", "gemm"])
def test_programs_run_their_cpu_fallback_with_the_baseline_outputs(name, tmp_path):
    check_same_outputs(tmp_path, name, "cuda")


@pytest.mark.parametrize("name", ["stencil", "jacobi-2d", "heat-3d", "atax"])
def test_emulated_kernels_and_copies_give_the_baseline_outputs(name, tmp_path):
    check_same_outputs(tmp_path, name, "emulated")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_polybench_kernel_emulated_gives_the_baseline_outputs(name, tmp_path):
    check_same_outputs(tmp_path, name, "emulated")


@needs_nvcc
@pytest.mark.gpu
@pytest.mark.skipif(not has_gpu(), reason="no NVIDIA GPU")
@pytest.mark.parametrize("name", ["stencil", "gemm", "jacobi-2d", "heat-3d", "atax", "fdtd-2d"])
def test_programs_on_the_gpu_give_the_baseline_outputs(name, tmp_path):
    check_same_outputs(tmp_path, name, "cuda", gpu=True)


def test_s2s_opt_writes_the_cuda_unit_beside_its_output(tmp_path):
    source = tmp_path / "stencil.c"
    source.write_text(textwrap.dedent(STENCIL))
    s2s = Path(sys.executable).parent / "s2s"
    proc = subprocess.run([str(s2s), "opt", "--target", "cuda", str(source), "-o", str(tmp_path / "out.c")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    unit = tmp_path / "stencil.s2s.cu"
    assert unit.is_file() and 'extern "C" int s2s_cuda_stencil_1_' in unit.read_text()
    assert "the cuda unit its code calls is in" in proc.stderr


@needs_nvcc
def test_s2s_cc_builds_one_object_whose_link_adds_the_cuda_runtime(tmp_path):
    source = tmp_path / "stencil.c"
    source.write_text(textwrap.dedent(STENCIL))
    s2s_cc = Path(sys.executable).parent / "s2s-cc"
    env = {k: v for k, v in os.environ.items() if not k.startswith("S2S_") or k in ("S2S_CACHE", "S2S_CACHE_DIR")}
    env.update(S2S_SERVER="off", S2S_TARGET="cuda", S2S_CUDA_DISABLE="1")
    obj = tmp_path / "stencil.o"
    proc = subprocess.run([str(s2s_cc), "--s2s-report", "-O2", "-c", str(source), "-o", str(obj)], env=env,
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "offloaded to CUDA" in proc.stderr and "optimization skipped" not in proc.stderr
    data = obj.read_bytes()
    assert b"s2s_cc_needs_lib_cudart" in data and b"s2s_cuda_stencil_1_" in data
    exe = tmp_path / "stencil"
    proc = subprocess.run([str(s2s_cc), str(obj), "-o", str(exe)], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    base = tmp_path / "base"
    subprocess.run(["cc", "-O2", str(source), "-o", str(base)], check=True)
    expected = subprocess.run([str(base)], capture_output=True, text=True).stdout
    ran = subprocess.run([str(exe)], env=env, capture_output=True, text=True)
    assert ran.returncode == 0 and ran.stdout == expected
    if not has_gpu():   # (the run-time check itself finds no GPU: the same binary runs its C code)
        del env["S2S_CUDA_DISABLE"]
        ran = subprocess.run([str(exe)], env=env, capture_output=True, text=True)
        assert ran.returncode == 0 and ran.stdout == expected


def test_threadidx_x_runs_along_the_stride_one_subscript_and_a_reduction_stays_on_the_host(tmp_path):
    path = tmp_path / "two.c"
    path.write_text(textwrap.dedent("""
        void tr(int n, double A[n][n], double B[n][n]) {
          for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
              B[j][i] = A[j][i] * 2.0;
        }
        double red(int n, double A[n]) {
          double s = 0.0;
          for (int i = 0; i < n; i++)
            s += A[i];
          return s;
        }
        """))
    result = cuda_result(path, [])
    (line,) = offload_lines(result)
    assert ": tr: " in line and "grid over i (x), j (y)" in line
    assert any(": red: " in ln and "stays on the host" in ln for ln in result.report)
    assert "s2s_cuda_red" not in result.source


def test_nvcc_gets_the_users_flags_it_knows(tmp_path):
    """nvcc knows -O0 to -O3 only and takes the host compiler's flags through -Xcompiler: a
    user's -Os or -march=native must not make the unit's compile fail."""
    from s2s.driver.companion_units import CompanionBuild, CompanionUnit

    build = CompanionBuild(str(tmp_path), {"cuda": ("true",)}, ("cc",), user_flags=("-Os", "-march=native", "-g"))
    build.compile(CompanionUnit("k.s2s.cu", "", language="cuda"))
    (command,) = build.log
    words = command.split()
    assert "-O2" in words and "-Os" not in words and "-Xcompiler=-march=native" in words and "-g" in words
