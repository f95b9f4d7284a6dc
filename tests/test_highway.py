"""The Highway back end (docs/highway.md): its kernels compute what the user's loops compute,
bit for bit, at every trip count modulo the vector length and from unaligned starts; through
s2s-cc; with g++ and clang++, static and dynamic dispatch; for aarch64 under qemu."""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from backends.highway import CXX_FLAGS
from backends.highway.vector_loop import REMAINDER_CAPS
from s2s.driver import companion_units
from s2s.driver.pipeline import PipelineOptions, optimize_c_file

BIN = Path(sys.executable).parent
KERNELS = Path(__file__).parent / "data" / "highway_kernels.c"
HWY_INCLUDE = Path("/usr/include/hwy/highway.h")
MAX_LANES = 16          # floats in a 512-bit vector (AVX-512, SVE at its widest here)
TRIPS = range(0, 2 * MAX_LANES + 4)
OFFSETS = (0, 1, 3)

pytestmark = pytest.mark.skipif(not HWY_INCLUDE.is_file() or not shutil.which("g++"),
                                reason="Highway (libhwy-dev) or g++ missing")

# name -> (element type, C parameters of the user's function, n of the trip count t, m of it)
SPECS = {
    "vsel": ("double", ["n", "a", "b", "c"], "t", None),
    "st1": ("double", ["n", "a", "b"], "t + 2", None),
    "st2": ("double", ["n", "m", "A", "B"], "4", "t + 2"),
    "rowup": ("double", ["n", "m", "alpha", "A", "u", "v"], "3", "t"),
    "divsqrt": ("double", ["n", "a", "b", "c"], "t", None),
    "fsel": ("float", ["n", "a", "b"], "t", None),
    # (its loop variables the function's own, an if that every lane takes alike)
    "cond2": ("double", ["n", "m", "k", "A", "x"], "4", "t"),
    # (NaNs in its data: C's != holds for them, an ordered comparison's would not)
    "vne": ("double", ["n", "a", "b", "c"], "t", None),
}
WITH_NANS = {"vne"}
SCALARS = {"n", "m", "k", "alpha"}
DECLARED = {"n": "int n", "m": "int m", "k": "int k", "alpha": "double alpha"}


def generate(tmp_path: Path, static: bool = False, target: str = "highway"):
    result = optimize_c_file(str(KERNELS), [], PipelineOptions(target=target, hwy_static=static, profitability=False))
    (unit,) = result.companions
    (tmp_path / unit.file_name).write_text(unit.text)
    return result, unit


def entry_points(source: str) -> dict[str, tuple[str, list[str]]]:
    """kernel -> (entry point, its parameters' names) from the generated C file's prototypes."""
    out = {}
    for entry, kernel, params in re.findall(r"extern void (s2s_hwy_(\w+?)_1_[0-9a-f]+)\((.*?)\);", source):
        out[kernel] = (entry, [p.split()[-1].lstrip("*") for p in params.split(",")])
    return out


def harness(source: str) -> str:
    """A C program that runs each kernel as the user's function and as its Highway entry point on
    copies of the same data, for every trip count and start offset, and prints a checksum of the
    entry points' results and how many runs differed."""
    entries = entry_points(source)
    lines = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", "#include <stdint.h>"]
    for name, (elem, params, _, _) in SPECS.items():
        decl = ", ".join(DECLARED.get(p, f"void *{p}") for p in params)
        lines.append(f"void ref_{name}({decl});")
        entry, eparams = entries[name]
        edecl = ", ".join(DECLARED.get(p, f"void *{p}") for p in eparams)
        lines.append(f"void {entry}({edecl});")
    lines += ["static uint64_t sum = 1469598103934665603ULL;",
              "static void fill(unsigned char *p, size_t bytes, int elem, unsigned seed, int nans) {",
              "  for (size_t k = 0; k < bytes / elem; k++) { seed = seed * 1103515245u + 12345u;",
              "    double v = nans && seed % 3 == 0 ? __builtin_nan(\"\") : 0.1 + (seed >> 8) % 1000 / 500.0;",
              "    if (nans && seed % 5 == 0) v = 1.0;",
              "    if (elem == 8) ((double *)p)[k] = v; else ((float *)p)[k] = (float)v; } }",
              "static void mix(const unsigned char *p, size_t bytes) {",
              "  for (size_t k = 0; k < bytes; k++) sum = (sum ^ p[k]) * 1099511628211ULL; }",
              "int main(void) {", "  int bad = 0, runs = 0, k = 2; double alpha = 1.25;"]
    for name, (elem, params, n_of, m_of) in SPECS.items():
        size = 8 if elem == "double" else 4
        arrays = [p for p in params if p not in SCALARS]
        entry, eparams = entries[name]
        lines += [f"  for (int t = 0; t < {len(TRIPS)}; t++) for (int o = 0; o < {len(OFFSETS)}; o++) {{",
                  f"    int off = (int[]){{{', '.join(map(str, OFFSETS))}}}[o];",
                  f"    int n = {n_of}, m = {m_of or 1}; (void)m;",
                  f"    size_t bytes = (size_t)(n + 2) * (m + 2) * {size} + 64;"]
        for a in arrays:
            lines += [f"    unsigned char *r_{a} = malloc(bytes), *h_{a} = malloc(bytes);",
                      f"    fill(r_{a}, bytes, {size}, {len(a) * 7919 + ord(a[0])}u + t, {int(name in WITH_NANS)});",
                      f"    memcpy(h_{a}, r_{a}, bytes);"]
        ref_args = ", ".join(p if p in SCALARS else f"r_{p} + off * {size}" for p in params)
        hwy_args = ", ".join(p if p in SCALARS else f"h_{p} + off * {size}" for p in eparams)
        lines += [f"    ref_{name}({ref_args});", f"    {entry}({hwy_args});", "    runs++;"]
        for a in arrays:
            lines += [f"    if (memcmp(r_{a}, h_{a}, bytes)) {{ bad++; printf(\"differs: {name} t=%d off=%d {a}\\n\", t, off); }}",
                      f"    mix(h_{a}, bytes); free(r_{a}); free(h_{a});"]
        lines.append("  }")
    lines += ['  printf("runs %d differing %d checksum %016llx\\n", runs, bad, (unsigned long long)sum);',
              "  return bad != 0;", "}"]
    return "\n".join(lines) + "\n"


def build_and_run(tmp_path: Path, cc: str, cxx: str, static: bool, run_prefix: tuple[str, ...] = (),
                  extra: tuple[str, ...] = (), more_prefixes: tuple[tuple[str, ...], ...] = ()) -> str:
    """The checksum line of the harness, built and run (with ``run_prefix``, then with each of
    ``more_prefixes``, which must print the same line)."""
    result, unit = generate(tmp_path, static)
    (tmp_path / "harness.c").write_text(harness(result.source))
    renames = [f"-D{name}=ref_{name}" for name in SPECS]
    # (the reference rounds every product, as the Highway unit does: no contraction into FMA)
    subprocess.run([cc, "-O2", "-ffp-contract=off", *extra, *renames, "-c", str(KERNELS), "-o", str(tmp_path / "ref.o")],
                   check=True)
    subprocess.run([cc, "-O2", *extra, "-c", str(tmp_path / "harness.c"), "-o", str(tmp_path / "harness.o")], check=True)
    include = ["-idirafter", str(HWY_INCLUDE.parent.parent)]
    subprocess.run([cxx, "-O2", *extra, *CXX_FLAGS, "-ffp-contract=off", "-I", str(tmp_path), *include, "-c",
                    str(tmp_path / unit.file_name), "-o", str(tmp_path / "unit.o")], check=True)
    libs = ["-l" + lib for lib in unit.libraries]
    subprocess.run([cc, *extra, str(tmp_path / "harness.o"), str(tmp_path / "ref.o"), str(tmp_path / "unit.o"),
                    "-o", str(tmp_path / "run"), *libs, "-lm"], check=True)
    lines = set()
    for prefix in (run_prefix, *more_prefixes):
        run = subprocess.run([*prefix, str(tmp_path / "run")], capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
        assert " differing 0 " in run.stdout, prefix
        lines.add(run.stdout.strip().splitlines()[-1])
    assert len(lines) == 1, lines
    return lines.pop()


def test_every_kernel_is_vectorized(tmp_path):
    result, unit = generate(tmp_path)
    assert any(f"{len(SPECS)} regions, {len(SPECS)} vector loops" in line for line in result.report), result.report
    for op in ("hn::LoadU", "hn::StoreU", "hn::IfThenElse", "hn::Sqrt", "hn::Div", "hn::Neg", "HWY_EXPORT",
               "HWY_DYNAMIC_DISPATCH", "ScalableTag<float>"):
        assert op in unit.text, op
    assert "MulAdd" not in unit.text   # (every product rounded, as the C build without FMA)
    # stencils read their neighbours at unit stride; a loop-invariant product is a broadcast
    assert "A + ((long)i * m + -1) + j" in unit.text and "hn::Set(s2s_d, static_cast<double>(alpha * u[i]))" in unit.text


def test_dynamic_dispatch_with_gcc_matches_the_scalar_loops(tmp_path):
    build_and_run(tmp_path, "gcc", "g++", static=False)


@pytest.mark.skipif(not shutil.which("clang++-14") and not shutil.which("clang++"), reason="no clang++")
def test_dynamic_dispatch_with_clang_matches_the_scalar_loops(tmp_path):
    clang = shutil.which("clang++") or shutil.which("clang++-14")
    build_and_run(tmp_path, "gcc", clang, static=False)


def test_static_dispatch_matches_the_scalar_loops(tmp_path):
    _, unit = generate(tmp_path, static=True)
    assert "foreach_target" not in unit.text and unit.libraries == ("stdc++", "m")
    build_and_run(tmp_path, "gcc", "g++", static=True, extra=("-march=native",))


def test_whole_vectors_step_one_index_over_row_pointers_set_before_them(tmp_path):
    """st2's five neighbours: each row's pointer is set once, at the first whole vector's
    element, and every access of the whole vectors' loop is that pointer plus one index."""
    _, unit = generate(tmp_path)
    text = unit.text[unit.text.index("s2s_hwy_st2_"):]
    whole = text[text.index("do {"):text.index("} while")]
    rows = re.findall(r"auto \*const (s2s_p\d+) = ([AB]) \+ \(.*\) \+ s2s_first;", text[:text.index("do {")])
    assert sorted(array for _, array in rows) == ["A"] * 5 + ["B"], rows
    accesses = re.findall(r"(?:LoadU\(s2s_d, |s2s_d, )([^;]*?\(j - s2s_first\))", whole)
    assert sorted(accesses) == sorted(f"{name} + (j - s2s_first)" for name, _ in rows), whole

@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86's flags")
@pytest.mark.parametrize("static", [False, True], ids=["dynamic", "static"])
def test_the_unit_builds_where_the_flags_allow_avx3_dl(tmp_path, static):
    """-march=native on Sapphire Rapids makes AVX3_DL Highway's static target, which Highway 1.0
    does not compile unless asked; without the unit's request it stopped at its own #error
    (compiled here, not run: this host need not have those instructions)."""
    _, unit = generate(tmp_path, static=static)
    subprocess.run(["g++", "-O2", "-march=sapphirerapids", *CXX_FLAGS, "-I", str(tmp_path), "-c", "-o",
                    str(tmp_path / "unit.o"), str(tmp_path / unit.file_name)], capture_output=True, text=True,
                   check=True)


def _cross_tools() -> bool:
    return bool(shutil.which("aarch64-linux-gnu-g++") and shutil.which("aarch64-linux-gnu-gcc")
                and shutil.which("qemu-aarch64") and Path("/usr/aarch64-linux-gnu").is_dir())


QEMU = ("qemu-aarch64", "-L", "/usr/aarch64-linux-gnu")
# SVE's vector length is the machine's, from 128 to 2048 bits: qemu's ``-cpu max,sveN=on`` sets it
SVE_FLAGS = ("-march=armv8.2-a+sve",)
SVE_BITS = (128, 256, 512, 2048)


def _sve(bits: int) -> tuple[str, ...]:
    return (QEMU[0], "-cpu", f"max,sve{bits}=on", *QEMU[1:])


@pytest.mark.parametrize("march, register", [("x86-64-v2", "%xmm"), ("x86-64-v3", "%ymm"), ("x86-64-v4", "%zmm")])
def test_static_dispatch_uses_the_widest_vectors_the_flags_allow(tmp_path, march, register):
    """With static dispatch the unit's one target is what ``-march`` allows: x86-64-v3 is AVX2 and
    v4 AVX-512 (Highway counts AES and CLMUL, which no such CPU lacks and these kernels never
    use, as part of SSE4 and AVX2: without HWY_DISABLE_PCLMUL_AES both were SSSE3's 128 bits)."""
    _, unit = generate(tmp_path, static=True)
    asm = subprocess.run(["g++", "-O2", f"-march={march}", *CXX_FLAGS, "-I", str(tmp_path), "-S", "-o", "-",
                          str(tmp_path / unit.file_name)], capture_output=True, text=True, check=True).stdout
    loads = re.findall(r"\tvmovup[sd]\t[^\n]*(%[xyz]mm)", asm) or re.findall(r"\tmovup[sd]\t[^\n]*(%xmm)", asm)
    assert loads and max(loads) == register, sorted(set(loads))


@pytest.mark.skipif(not _cross_tools(), reason="no aarch64 cross tools or qemu-aarch64")
@pytest.mark.parametrize("isa", ["neon", "sve"])
def test_aarch64_under_qemu_gives_the_outputs_of_x86(tmp_path, isa):
    """NEON (aarch64's baseline), and SVE (static dispatch with ``+sve``) at every vector length
    from 2 to 32 doubles: each checksum is x86's."""
    (tmp_path / "x86").mkdir()
    (tmp_path / "arm").mkdir()
    x86 = build_and_run(tmp_path / "x86", "gcc", "g++", static=True)
    if isa == "neon":
        arm = build_and_run(tmp_path / "arm", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-g++", static=True,
                            run_prefix=QEMU, extra=("-static",))
    else:
        widths = [_sve(bits) for bits in SVE_BITS]
        arm = build_and_run(tmp_path / "arm", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-g++", static=True,
                            run_prefix=widths[0], more_prefixes=tuple(widths[1:]), extra=("-static", *SVE_FLAGS))
        code = subprocess.run(["aarch64-linux-gnu-objdump", "-d", str(tmp_path / "arm" / "unit.o")],
                              capture_output=True, text=True).stdout
        assert "ld1d" in code and "st1d" in code, "the unit's loads and stores are not SVE's"
    assert x86 == arm


MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
void st2(int n, int m, double A[restrict n][m], double B[restrict n][m]);
void vsel(int n, double *restrict a, double *restrict b, double *restrict c);
int main(void) {
  int n = 37, m = 29;
  double (*A)[m] = malloc(sizeof(double) * n * m), (*B)[m] = calloc(n * m, sizeof(double));
  double *c = calloc(n * m, sizeof(double));
  for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) A[i][j] = (i * 7 + j * 3) % 11 / 3.0;
  st2(n, m, A, B);
  vsel(n * m - 3, &A[0][1], &B[0][2], c + 1);
  double s = 0;
  for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) s += (B[i][j] + c[i * m + j]) * (i + 1) + j;
  printf("%a\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("target, static", [("highway", False), ("highway", True), ("highway+openmp", False)])
def test_s2s_cc_joins_the_unit_into_the_object_and_links_its_libraries(tmp_path, target, static):
    (tmp_path / "main.c").write_text(MAIN)
    env = {**os.environ, "S2S_TARGET": target, "S2S_PROFITABILITY": "off", "S2S_SERVER": "off",
           "OMP_NUM_THREADS": "2"}
    if static:
        env["S2S_HWY_STATIC"] = "1"
    obj = tmp_path / "kernels.o"
    built = subprocess.run([str(BIN / "s2s-cc"), "-O2", "-c", str(KERNELS), "-o", str(obj)], env=env,
                           capture_output=True, text=True)
    assert built.returncode == 0 and "note:" not in built.stderr, built.stderr
    assert sorted(companion_units.libraries_of(str(obj))) == (["m", "stdc++"] if static else ["hwy", "m", "stdc++"])
    again = subprocess.run([str(BIN / "s2s-cc"), "-O2", "-c", str(KERNELS), "-o", str(obj)], env=env,
                           capture_output=True, text=True)   # (from the compile cache)
    assert again.returncode == 0 and "note:" not in again.stderr, again.stderr
    symbols = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
    assert "s2s_hwy_st2_1_" in symbols and " U s2s_hwy_st2" not in symbols   # (defined in the one object)
    linked = subprocess.run([str(BIN / "s2s-cc"), "-O2", str(tmp_path / "main.c"), str(obj), "-o",
                             str(tmp_path / "opt"), "-lm"], env=env, capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    subprocess.run(["gcc", "-O2", str(tmp_path / "main.c"), str(KERNELS), "-o", str(tmp_path / "ref"), "-lm"], check=True)
    ref = subprocess.run([str(tmp_path / "ref")], capture_output=True, text=True, check=True).stdout
    assert subprocess.run([str(tmp_path / "opt")], capture_output=True, text=True, check=True).stdout == ref


def test_a_unit_that_does_not_compile_falls_back_to_the_users_file(tmp_path):
    env = {**os.environ, "S2S_TARGET": "highway", "S2S_PROFITABILITY": "off", "S2S_SERVER": "off",
           "S2S_CXX": "false"}
    obj = tmp_path / "kernels.o"
    built = subprocess.run([str(BIN / "s2s-cc"), "-O2", "-c", str(KERNELS), "-o", str(obj)], env=env,
                           capture_output=True, text=True)
    assert built.returncode == 0
    assert len(built.stderr.strip().splitlines()) == 1 and "compiled unchanged" in built.stderr, built.stderr
    assert companion_units.libraries_of(str(obj)) == []


def test_marks_name_the_libraries_and_a_link_adds_each_once(tmp_path):
    text = companion_units.marker_text(["hwy", "stdc++"])
    assert "s2s_cc_needs_lib_stdc_2b_2b" in text
    (tmp_path / "m.c").write_text(text)
    subprocess.run(["cc", "-c", str(tmp_path / "m.c"), "-o", str(tmp_path / "m.o")], check=True)
    assert sorted(companion_units.libraries_of(str(tmp_path / "m.o"))) == ["hwy", "stdc++"]
    assert companion_units.link_additions([str(tmp_path / "m.o")] * 2, ["hwy"]) == ["-lstdc++"]


def test_targets_c_and_openmp_print_no_companion(tmp_path):
    for target in ("c", "openmp"):
        result = optimize_c_file(str(KERNELS), [], PipelineOptions(target=target, profitability=False))
        assert result.companions == [] and "s2s_hwy" not in result.source


def _polybench_names() -> list[str]:
    from polybench.registry import KERNELS as POLYBENCH

    return sorted(POLYBENCH)


@pytest.mark.slow
@pytest.mark.parametrize("name", _polybench_names())
def test_polybench_at_mini_matches_the_baseline(name, tmp_path):
    """Each kernel built with the highway target gives the baseline's outputs, bit for bit (gcc
    at -O2 for x86-64 does not contract into FMA, nor does the Highway unit)."""
    from polybench.registry import KERNELS as POLYBENCH, SUITE_ROOT, kernel_source

    src = kernel_source(POLYBENCH[name])
    flags = ["-O2", f"-I{SUITE_ROOT / 'utilities'}", f"-I{src.parent}", "-DMINI_DATASET",
             "-DPOLYBENCH_USE_SCALAR_LB", "-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_DUMP_FULL_PRECISION"]
    sources = [str(SUITE_ROOT / "utilities" / "polybench.c"), str(src)]
    env = {**os.environ, "S2S_TARGET": "highway", "S2S_REPORT": "1", "S2S_SERVER": "off"}
    subprocess.run(["cc", *flags, *sources, "-o", str(tmp_path / "ref"), "-lm"], check=True)
    built = subprocess.run([str(BIN / "s2s-cc"), *flags, *sources, "-o", str(tmp_path / "opt"), "-lm"],
                           env=env, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert "note:" not in built.stderr, built.stderr   # (no fallback to the user's file)
    a = subprocess.run([str(tmp_path / "ref")], capture_output=True, text=True).stderr
    b = subprocess.run([str(tmp_path / "opt")], capture_output=True, text=True).stderr
    assert a == b


@pytest.mark.slow
@pytest.mark.parametrize("toolchain", ["clang++", "aarch64", "aarch64-sve"])
@pytest.mark.parametrize("name", _polybench_names())
def test_polybench_at_mini_builds_with_clang_and_for_aarch64(name, toolchain, tmp_path):
    """The kernels' Highway units compiled by clang++ (dynamic dispatch), and the whole programs
    cross-compiled for aarch64 (static dispatch: NEON, or SVE run at 256 and 2048 bits) and run
    under qemu, give the outputs of the x86 baseline (contraction off on both sides: aarch64's gcc
    contracts by default)."""
    from polybench.registry import KERNELS as POLYBENCH, SUITE_ROOT, kernel_source

    clang = shutil.which("clang++") or shutil.which("clang++-14")
    if toolchain == "clang++" and not clang:
        pytest.skip("no clang++")
    if toolchain.startswith("aarch64") and not _cross_tools():
        pytest.skip("no aarch64 cross tools or qemu-aarch64")
    src = kernel_source(POLYBENCH[name])
    flags = ["-O2", "-ffp-contract=off", f"-I{SUITE_ROOT / 'utilities'}", f"-I{src.parent}", "-DMINI_DATASET",
             "-DPOLYBENCH_USE_SCALAR_LB", "-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_DUMP_FULL_PRECISION"]
    sources = [str(SUITE_ROOT / "utilities" / "polybench.c"), str(src)]
    env = {**os.environ, "S2S_TARGET": "highway", "S2S_SERVER": "off"}
    runs: list[tuple[str, ...]] = [()]
    native = list(flags)
    if toolchain == "clang++":
        env["S2S_CXX"] = clang
    else:
        env.update(S2S_CC="aarch64-linux-gnu-gcc", S2S_CXX="aarch64-linux-gnu-g++", S2S_HWY_STATIC="1")
        flags.append("-static")
        runs = [QEMU]
        if toolchain == "aarch64-sve":
            flags += SVE_FLAGS
            runs = [_sve(256), _sve(2048)]
    subprocess.run(["gcc", *native, *sources, "-o", str(tmp_path / "ref"), "-lm"], check=True)
    built = subprocess.run([str(BIN / "s2s-cc"), *flags, *sources, "-o", str(tmp_path / "opt"), "-lm"],
                           env=env, capture_output=True, text=True)
    assert built.returncode == 0 and "note:" not in built.stderr, built.stderr
    a = subprocess.run([str(tmp_path / "ref")], capture_output=True, text=True).stderr
    for run in runs:
        b = subprocess.run([*run, str(tmp_path / "opt")], capture_output=True, text=True).stderr
        assert a == b, run


SIZES_OF_SIZE_T = r"""
#include <stddef.h>
#include <stdio.h>

static void scale(size_t n, size_t m, double a[n][m], const double b[n][m], double s)
{
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++)
      a[i][j] = s * b[i][j] + a[i][j];
}

int main(void)
{
  enum { N = 9, M = 13 };
  static double a[N][M], b[N][M];
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < M; j++) {
      a[i][j] = (double)(i * M + j) / 7;
      b[i][j] = (double)((i + 3 * j) % 5);
    }
  scale(N, M, a, b, 0.5);
  double sum = 0;
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < M; j++)
      sum += a[i][j] * (double)(i + j + 1);
  printf("%.17g\n", sum);
  return 0;
}
"""


def test_sizes_of_typedefd_types_are_declared_before_the_includes(tmp_path):
    """The C file declares the unit's entry point before its own includes: a size_t parameter is
    spelled __SIZE_TYPE__ there (the fuzzer's size_t programs fell back with 'unknown type')."""
    src = tmp_path / "scale.c"
    src.write_text(SIZES_OF_SIZE_T)
    env = {**os.environ, "S2S_TARGET": "highway", "S2S_PROFITABILITY": "off", "S2S_SERVER": "off",
           "S2S_WORK_THRESHOLDS": "optimize=0,parallel=0,parallel_start=0,parallel_wake=0", "S2S_REPORT": "1"}
    built = subprocess.run([str(BIN / "s2s-cc"), "-O2", str(src), "-o", str(tmp_path / "opt"), "-lm"], env=env,
                           capture_output=True, text=True)
    assert built.returncode == 0 and "skipped" not in built.stderr, built.stderr
    assert "Highway unit: 1 regions" in built.stderr, built.stderr
    subprocess.run(["cc", "-O2", str(src), "-o", str(tmp_path / "ref")], check=True)
    expected = subprocess.run([str(tmp_path / "ref")], capture_output=True, text=True, check=True).stdout
    assert subprocess.run([str(tmp_path / "opt")], capture_output=True, text=True, check=True).stdout == expected


TRANSPOSED_ONLY = r"""
#include <stdio.h>
void transpose_add(int n, double a[n][n], double b[n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a[j][i] += b[i][j];
}
int main(void)
{
  enum { N = 37 };
  static double a[N][N], b[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = i - 0.5 * j;
      b[i][j] = (i * 7 + j) % 11;
    }
  transpose_add(N, a, b);
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      sum += a[i][j] * (i + 2 * j + 1);
  printf("%.17g\n", sum);
  return 0;
}
"""


def _highway_build(tmp_path: Path, source: str, *flags: str, target: str = "highway", reassociate: bool = False):
    src = tmp_path / "k.c"
    src.write_text(source)
    env = {**os.environ, "S2S_TARGET": target, "S2S_PROFITABILITY": "off", "S2S_SERVER": "off",
           "S2S_WORK_THRESHOLDS": "optimize=0,parallel=0,parallel_start=0,parallel_wake=0", "S2S_REPORT": "1",
           "S2S_KEEP": str(tmp_path / "kept"), "S2S_REASSOCIATE": "1" if reassociate else "0"}
    built = subprocess.run([str(BIN / "s2s-cc"), "-O2", *flags, str(src), "-o", str(tmp_path / "opt"), "-lm"],
                           env=env, capture_output=True, text=True)
    assert built.returncode == 0 and "skipped" not in built.stderr, built.stderr
    subprocess.run(["cc", "-O2", *flags, str(src), "-o", str(tmp_path / "ref")], check=True)
    expected = subprocess.run([str(tmp_path / "ref")], capture_output=True, text=True, check=True).stdout
    assert subprocess.run([str(tmp_path / "opt")], capture_output=True, text=True, check=True).stdout == expected
    return built.stderr, sorted(p.name for p in (tmp_path / "kept").rglob("*") if p.is_file())


def test_a_region_without_vector_loops_stays_c(tmp_path):
    """A region none of whose loops becomes a vector loop (the loop variable walks a's rows) is
    printed as C: no C++ unit, no second compiler, no C++ runtime at the link."""
    report, kept = _highway_build(tmp_path, TRANSPOSED_ONLY)
    # (main's two nests, over an enum's size, are regions too)
    assert "no Highway unit: 3 regions without a vector loop stay C" in report, report
    assert "Highway unit:" not in report.replace("no Highway unit:", "")
    assert not [k for k in kept if k.endswith(".cc")], kept


MASKED_UPDATE = r"""
#include <stdio.h>
#define N 61
#define M 45
static void damp(double u[N][M], const double w[N][M])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      if (w[i][j] > 0.25)
        u[i][j] = u[i][j] * 0.5 + w[i][j];
}
int main(void)
{
  static double u[N][M], w[N][M];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      u[i][j] = (i * 7 + j * 3) % 11 - 4.5;
      w[i][j] = ((i + 2 * j) % 5) * 0.125;
    }
  damp(u, w);
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      sum += u[i][j] * (i + j + 1);
  printf("%a\n", sum);
  return 0;
}
"""


def test_a_store_under_a_condition_on_data_is_not_a_vector_store(tmp_path):
    """The user's ``if (w[i][j] > 0.25) u[i][j] = ...;`` stores only where the condition holds;
    a vector of lanes would store every element of it, which the program does not."""
    report, kept = _highway_build(tmp_path, MASKED_UPDATE)
    assert "damp: SCoP at L1 optimized" in report, report
    assert "no Highway unit: 3 regions without a vector loop stay C" in report, report
    assert not [k for k in kept if k.endswith(".cc")], kept


# (the scale of each row, a scalar of the function, is read after the loops: by the last row's)
SCALED_ROWS = r"""
#include <stdio.h>
static double scale_rows(int n, int m, double a[n][m], double s)
{
  for (int i = 0; i < n; i++) {
    s = a[i][0] * 0.5 + 1.0;
    for (int j = 1; j < m; j++)
      a[i][j] = a[i][j] * s;
  }
  return s;
}
int main(void)
{
  enum { N = 13, M = 29 };
  static double a[N][M];
  for (int n = 0; n <= 3; n++) {
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++)
        a[i][j] = (i * 5 + j * 3) % 7 - 2.5;
    double s = scale_rows(n, M, a, 1.5);
    double sum = 0;
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++)
        sum += a[i][j] * (i + j + 1);
    printf("%d %a %a\n", n, s, sum);
  }
  return 0;
}
"""


@pytest.mark.parametrize("target", ["highway", "highway+openmp"])
def test_a_scalar_of_the_function_written_in_the_region_is_given_back(tmp_path, target):
    """A region that writes a scalar of its function is a function of the unit all the same: it
    works on a copy, read from the scalar's address at its start and stored back at its end
    Every trip count of the rows, zero included, prints what the user's loops print."""
    report, _ = _highway_build(tmp_path, SCALED_ROWS, *(["-fopenmp"] if "openmp" in target else []),
                               target=target)
    unit = (tmp_path / "kept" / "k.s2s-hwy.cc").read_text()
    assert "Highway unit: 1 regions" in report, report
    assert "double s = *s2s_io_s;" in unit and "*s2s_io_s = s;" in unit, unit


TWO_PRODUCTS = r"""
#include <stdio.h>
void gemm_a(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i * n + j] += A[i * n + k] * B[k * n + j];
}
void gemm_b(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i * n + j] += A[i * n + k] * B[k * n + j];
}
int main(void) {
  enum { N = 67 };
  static double A[N * N], B[N * N], C[N * N];
  for (int i = 0; i < N * N; i++) { A[i] = i % 7 - 3; B[i] = i % 5 - 2; C[i] = i % 3; }
  gemm_a(N, A, B, C);
  gemm_b(N, B, A, C);
  double sum = 0;
  for (int i = 0; i < N * N; i++) sum += C[i] * (i % 11 + 1);
  printf("%.17g\n", sum);
  return 0;
}
"""


def test_two_functions_of_one_blocking_share_one_register_block(tmp_path):
    """Two products of one shape in two functions are one register block of the unit, defined
    once (the unit compiles: the file is not compiled unchanged)."""
    report, _ = _highway_build(tmp_path, TWO_PRODUCTS)
    unit = (tmp_path / "kept" / "k.s2s-hwy.cc").read_text()
    assert "1 matrix-multiply register blocks" in report, report
    assert unit.count("HWY_EXPORT(") == 1, unit


def test_openmp_flag_makes_the_highway_target_highway_openmp(tmp_path):
    """``-fopenmp`` with the highway target is highway+openmp, as it makes the C target openmp:
    the unit runs the parallel loop on OpenMP's threads."""
    report, kept = _highway_build(tmp_path, SIZES_OF_SIZE_T, "-fopenmp")
    assert "Highway unit: 1 regions" in report, report
    assert kept == ["k.s2s-hwy.cc", "k.s2s.c"], kept
    assert "#pragma omp parallel for" in (tmp_path / "kept" / "k.s2s-hwy.cc").read_text()


PRODUCTS = r"""
#include <stdio.h>
void gemm_like(int n, int m, int p, double alpha, double C[n][m], double A[n][p], double B[p][m])
{
  for (int i = 0; i < n; i++)
    for (int k = 0; k < p; k++)
      for (int j = 0; j < m; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
}
void float_product(int n, int m, int p, float C[n][m], float A[n][p], float B[p][m])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < p; k++)
        C[i][j] -= A[i][k] * B[k][j];
}
int main(void)
{
  enum { N = 75, M = 69, P = 83 };
  static double C[N][M], A[N][P], B[P][M];
  static float Cf[N][M], Af[N][P], Bf[P][M];
  for (int i = 0; i < N; i++)
    for (int k = 0; k < P; k++)
      Af[i][k] = (float)(A[i][k] = (double)((i * 7 + k * 3) % 17) / 9.0 - 0.8);
  for (int k = 0; k < P; k++)
    for (int j = 0; j < M; j++)
      Bf[k][j] = (float)(B[k][j] = (double)((k * 5 + j * 11) % 13) / 7.0 - 0.9);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      Cf[i][j] = (float)(C[i][j] = (double)(i - j) / 31.0);
  gemm_like(N, M, P, 1.5, C, A, B);
  float_product(N, M, P, Cf, Af, Bf);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      printf("%a %a\n", C[i][j], (double)Cf[i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("vector_bytes", [32, 64])
def test_register_blocks_in_the_unit_match_the_c_kernels_on_every_width(tmp_path, monkeypatch, vector_bytes):
    """The matrix-multiply register blocks as Highway functions (register_block.py), for vectors
    of 4 and of 8 doubles: with dynamic dispatch (this machine's best target, whose vectors may be
    narrower than the blocking's) and compiled for Highway's portable 128-bit target only (the
    path that updates the block's elements one at a time), the products are those of the user's
    loops bit for bit (no FMA on either side), at sizes that are multiples of no block."""
    import s2s.transforms.machine_options as machine_options
    from s2s.schedule.matmul import KernelTarget

    target = KernelTarget(vector_bytes, 32 if vector_bytes == 64 else 16, 48 * 1024, 1024 * 1024, 32 * 1024 * 1024)
    monkeypatch.setattr(machine_options, "kernel_target", lambda topo: target)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=0,parallel_start=0,parallel_wake=0")
    src = tmp_path / "products.c"
    src.write_text(PRODUCTS)
    subprocess.run(["cc", "-O2", str(src), "-o", str(tmp_path / "ref")], check=True)
    expected = subprocess.run([str(tmp_path / "ref")], capture_output=True, text=True, check=True).stdout
    include = ["-idirafter", str(HWY_INCLUDE.parent.parent)]
    for static, defines in ((False, ()), (True, ("-DHWY_COMPILE_ONLY_EMU128",))):
        result = optimize_c_file(str(src), [], PipelineOptions(target="highway", hwy_static=static, report=True))
        assert any("2 matrix-multiply register blocks" in line for line in result.report), result.report
        (unit,) = result.companions
        assert "hn::CappedTag<float, " in unit.text and "GNU" not in unit.text
        assert "vector_size" not in result.source   # (the C file keeps no GNU vector block)
        (tmp_path / "opt.c").write_text(result.source)
        (tmp_path / unit.file_name).write_text(unit.text)
        subprocess.run(["cc", "-O2", "-c", str(tmp_path / "opt.c"), "-o", str(tmp_path / "opt.o")], check=True)
        subprocess.run(["g++", "-O2", *CXX_FLAGS, "-ffp-contract=off", *defines, "-I", str(tmp_path), *include, "-c",
                        str(tmp_path / unit.file_name), "-o", str(tmp_path / "unit.o")], check=True)
        subprocess.run(["cc", str(tmp_path / "opt.o"), str(tmp_path / "unit.o"), "-o", str(tmp_path / "opt"),
                        *("-l" + lib for lib in unit.libraries)], check=True)
        got = subprocess.run([str(tmp_path / "opt")], capture_output=True, text=True, check=True).stdout
        assert got == expected, f"static={static}"


ROW_SUMS = r"""
#include <stdio.h>

/* a matrix times a vector and a second one subtracted; a float norm of each row */
static void residuals(int n, int m, const double A[n][m], const double B[n][m], const double x[m],
                      double r[n])
{
  for (int i = 0; i < n; i++) {
    double s = r[i], t = 0.0;
    for (int j = 0; j < m; j++) {
      s += A[i][j] * x[j];
      t = t - B[i][j] * x[j];
    }
    r[i] = s + t;
  }
}

static void norms(int n, int m, const float F[n][m], float norm[n])
{
  for (int i = 0; i < n; i++) {
    float f = 0.0f;
    for (int j = 0; j < m; j++)
      f += F[i][j] * F[i][j];
    norm[i] = f;
  }
}

int main(void)
{
  enum { N = 11, M = 40 };
  static double A[N][M], B[N][M], x[M], r[N];
  static float F[N][M], norm[N];
  for (int m = 0; m <= M; m++) {
    for (int i = 0; i < N; i++) {
      r[i] = i == 3 ? -0.0 : i;
      for (int j = 0; j < M; j++) {
        A[i][j] = (i * 7 + j * 3) % 11 - 5;
        B[i][j] = (i + 2 * j) % 5 - 2;
        F[i][j] = (float)((i * 5 + j) % 7 - 3);
      }
    }
    for (int j = 0; j < M; j++)
      x[j] = (j * 13) % 9 - 4;
    residuals(N, m, A, B, x, r);
    norms(N, m, F, norm);
    for (int i = 0; i < N; i++) {
      printf("%d %d %a %a\n", m, i, r[i], norm[i]);
    }
  }
  return 0;
}
"""


@pytest.mark.parametrize("target", ["highway", "highway+openmp"])
def test_sums_reassociated_where_allowed_are_reduced_in_lanes(tmp_path, target):
    """With ``--s2s-reassociate``, an innermost loop that only sums into scalars is a vector loop:
    each lane sums apart from zero (``Zero``, ``Add``/``Sub``), and the lanes' total
    (``SumOfLanes``) is added to the scalar after the whole vectors and after each narrower
    vector. Integer-valued data sum exactly in any order: every trip count 0..40 gives the
    user's results. Without the flag nothing is reduced."""
    report, _ = _highway_build(tmp_path, ROW_SUMS, target=target, reassociate=True)
    unit = (tmp_path / "kept" / "k.s2s-hwy.cc").read_text()
    # (each sum's total is added after the whole vectors and after each narrower vector)
    assert unit.count("hn::SumOfLanes") % (1 + len(REMAINDER_CAPS)) == 0, unit
    assert "norm_r0 = norm_r0 + hn::GetLane(hn::SumOfLanes(" in unit, unit
    assert "Highway unit: 2 regions" in report, report
    if target == "highway":   # (under OpenMP, t is a private copy of each thread: a scalar loop)
        assert "s2s_r_t = hn::Sub(s2s_r_t, " in unit and "t = t + hn::GetLane(hn::SumOfLanes(" in unit
    else:   # (t is declared in the region: each thread's copy of it a local of the unit's function)
        assert "lastprivate(t)" in unit, unit
    (tmp_path / "plain").mkdir()
    _highway_build(tmp_path / "plain", ROW_SUMS, target=target)
    assert "SumOfLanes" not in "".join(p.read_text() for p in (tmp_path / "plain" / "kept").glob("*.cc"))
