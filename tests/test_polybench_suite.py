"""Tests of s2s's PolyBench/C 4.2.1-compatible kernel suite (polybench/suite)
and of its registry (polybench/registry.py).

Every kernel is built at MINI with ``gcc -O0`` and with
``gcc -O3 -march=native``; the two full-precision dumps
(``-DPOLYBENCH_DUMP_ARRAYS -DPOLYBENCH_DUMP_FULL_PRECISION``) must agree
element by element within a relative tolerance of 1e-9:

    |a - b| <= RTOL * max(|a|, |b|) + RTOL * max|array|

(the second term keeps entries that cancel to ~0 from failing on round-off).
Two kernels need more care, both because of facts of the original suite:

* deriche computes in ``float`` by default; contracting a*b+c into an FMA at
  -O3 changes results at float precision, so its tolerance is 1e-5;
* gramschmidt's MINI problem is rank-deficient (M=20 rows < N=30 columns), so
  its trailing columns of Q are normalised round-off noise that changes
  completely under FMA contraction; its -O3 build gets -ffp-contract=off (GCC
  does not otherwise reorder floating-point arithmetic, so the results must
  then agree just as for the other kernels).
"""
from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import polybench
from polybench.registry import (
    DATASETS,
    KERNELS,
    SUITE_ROOT,
    KernelInfo,
    kernel_source,
    sizes_for,
)

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc not found")

UTILITIES = SUITE_ROOT / "utilities"

SUITE_ORDER = (
    ("datamining", ("correlation", "covariance")),
    ("linear-algebra/blas", ("gemm", "gemver", "gesummv", "symm", "syr2k", "syrk", "trmm")),
    ("linear-algebra/kernels", ("2mm", "3mm", "atax", "bicg", "doitgen", "mvt")),
    ("linear-algebra/solvers", ("cholesky", "durbin", "gramschmidt", "lu", "ludcmp", "trisolv")),
    ("medley", ("deriche", "floyd-warshall", "nussinov")),
    ("stencils", ("adi", "fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d")),
)
NAMES = [name for _, names in SUITE_ORDER for name in names]

# Element type each kernel uses by default (as in the original suite).
DEFAULT_TYPE = {name: "double" for name in NAMES}
DEFAULT_TYPE.update({"deriche": "float", "floyd-warshall": "int", "nussinov": "int"})

RTOL = {"double": 1e-9, "float": 1e-5, "int": 0.0}
EXTRA_O3_FLAGS = {"gramschmidt": ["-ffp-contract=off"]}

# Number of values print_array dumps for each array, as expressions over the
# kernel's parameters.
DUMP_SIZES = {
    "correlation": {"corr": "M*M"},
    "covariance": {"cov": "M*M"},
    "gemm": {"C": "NI*NJ"},
    "gemver": {"w": "N"},
    "gesummv": {"y": "N"},
    "symm": {"C": "M*N"},
    "syr2k": {"C": "N*N"},
    "syrk": {"C": "N*N"},
    "trmm": {"B": "M*N"},
    "2mm": {"D": "NI*NL"},
    "3mm": {"G": "NI*NL"},
    "atax": {"y": "N"},
    "bicg": {"s": "M", "q": "N"},
    "doitgen": {"A": "NR*NQ*NP"},
    "mvt": {"x1": "N", "x2": "N"},
    "cholesky": {"A": "N*(N+1)//2"},
    "durbin": {"y": "N"},
    "gramschmidt": {"R": "N*N", "Q": "M*N"},
    "lu": {"A": "N*N"},
    "ludcmp": {"x": "N"},
    "trisolv": {"x": "N"},
    "deriche": {"imgOut": "W*H"},
    "floyd-warshall": {"path": "N*N"},
    "nussinov": {"table": "N*(N+1)//2"},
    "adi": {"u": "N*N"},
    "fdtd-2d": {"ex": "NX*NY", "ey": "NX*NY", "hz": "NX*NY"},
    "heat-3d": {"A": "N*N*N"},
    "jacobi-1d": {"A": "N"},
    "jacobi-2d": {"A": "N*N"},
    "seidel-2d": {"A": "N*N"},
}

TIME_RE = re.compile(r"^\d+\.\d{9}$")   # (seconds to the nanosecond: MINI kernels run in microseconds)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def build(info: KernelInfo, out: Path, opt: list[str], defines: list[str]) -> Path:
    """Compile ``info`` the way the suite is meant to be built."""
    src = kernel_source(info)
    cmd = [GCC, *opt, "-I", str(UTILITIES), "-I", str(src.parent),
           str(UTILITIES / "polybench.c"), str(src), *defines, "-o", str(out), "-lm"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"build failed: {' '.join(cmd)}\n{res.stderr}"
    return out


def run(exe: Path) -> subprocess.CompletedProcess:
    res = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, f"{exe} exited with {res.returncode}\n{res.stderr[-2000:]}"
    return res


def parse_dump(text: str, names: tuple[str, ...] = ()) -> tuple[list[str], dict[str, list[float]]]:
    """Parse a PolyBench dump.  Values on the ``begin dump:`` line itself (the
    original trisolv prints one there) are accepted when the array name is
    among ``names``."""
    lines = text.splitlines()
    assert lines, "empty dump"
    assert lines[0] == "==BEGIN DUMP_ARRAYS==", lines[0]
    assert lines[-1] == "==END   DUMP_ARRAYS==", lines[-1]
    order: list[str] = []
    arrays: dict[str, list[float]] = {}
    current = None
    for line in lines[1:-1]:
        if line.startswith("begin dump: "):
            assert current is None, f"nested dump in {current}"
            rest = line[len("begin dump: "):]
            current, tail = rest, ""
            for name in names:
                if rest.startswith(name) and rest != name and rest[len(name)] in "0123456789-":
                    current, tail = name, rest[len(name):]
            order.append(current)
            arrays[current] = [float(t) for t in tail.split()]
        elif line.startswith("end   dump: "):
            assert current is not None and line == f"end   dump: {current}", line
            current = None
        else:
            assert current is not None, f"value line outside a dump: {line!r}"
            assert line.strip(), "empty line inside a dump"
            arrays[current].extend(float(t) for t in line.split())
    assert current is None, f"dump of {current} not closed"
    return order, arrays


def assert_close(name: str, a: list[float], b: list[float], rtol: float) -> None:
    assert len(a) == len(b), f"{name}: {len(a)} vs {len(b)} values"
    scale = max((abs(v) for v in a), default=0.0)
    worst, where = 0.0, None
    for idx, (x, y) in enumerate(zip(a, b)):
        assert math.isfinite(x) and math.isfinite(y), f"{name}[{idx}]: {x} vs {y}"
        err = abs(x - y)
        if err > rtol * max(abs(x), abs(y)) + rtol * scale and err > worst:
            worst, where = err, idx
    assert where is None, (f"{name}[{where}]: {a[where]!r} vs {b[where]!r} "
                           f"(rtol {rtol}, array scale {scale})")


# --------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------

def test_registry_has_the_30_kernels_in_suite_order():
    assert list(KERNELS) == NAMES
    assert len(KERNELS) == 30
    for category, names in SUITE_ORDER:
        for name in names:
            info = KERNELS[name]
            assert info.name == name and info.category == category
            assert info.relpath == f"{category}/{name}/{name}.c"
            assert kernel_source(info) == SUITE_ROOT / info.relpath
            assert kernel_source(info).is_file()
            assert kernel_source(info).with_suffix(".h").is_file()
    assert kernel_source(KERNELS["gemm"], Path("/x")) == Path("/x/linear-algebra/blas/gemm/gemm.c")


def test_registry_public_names():
    assert DATASETS == ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")
    assert SUITE_ROOT == Path(polybench.__file__).resolve().parent / "suite"
    for name in ("DATASETS", "SUITE_ROOT", "KernelInfo", "KERNELS", "kernel_source", "sizes_for"):
        assert getattr(polybench, name) is getattr(polybench.registry, name)


@pytest.mark.parametrize("name", NAMES)
def test_registry_datasets_and_flops(name):
    info = KERNELS[name]
    assert info.params and len(set(info.params)) == len(info.params)
    assert set(info.arrays) == set(DUMP_SIZES[name])
    assert set(info.datasets) == set(DATASETS)
    previous = 0
    for ds in DATASETS:
        sizes = sizes_for(info, ds)
        assert set(sizes) == set(info.params)
        assert all(isinstance(v, int) and v > 0 for v in sizes.values())
        flops = info.flop_count(sizes)
        assert isinstance(flops, int) and flops > 0
        assert flops > previous or name in ("atax", "bicg"), "datasets should grow"
        previous = flops
    hash(info)


@pytest.mark.parametrize("name", NAMES)
def test_registry_matches_the_c_header(name):
    """The sizes in the registry are the ones the header defines."""
    info = KERNELS[name]
    text = kernel_source(info).with_suffix(".h").read_text()
    for ds in DATASETS:
        block = re.search(rf"^#\s*ifdef {ds}_DATASET\n(.*?)\n#\s*endif", text, re.S | re.M)
        assert block, f"{name}: no {ds} block"
        defined = {m[0]: int(m[1]) for m in re.findall(r"#\s*define (\w+) (\d+)", block.group(1))}
        assert defined == dict(info.datasets[ds]), (name, ds)


def test_sizes_for_overrides_and_errors():
    gemm = KERNELS["gemm"]
    assert sizes_for(gemm, "MINI") == {"NI": 20, "NJ": 25, "NK": 30}
    assert sizes_for(gemm, "large") == {"NI": 1000, "NJ": 1100, "NK": 1200}
    assert sizes_for(gemm, "LARGE_DATASET", {"NI": 512}) == {"NI": 512, "NJ": 1100, "NK": 1200}
    assert gemm.datasets["MINI"]["NI"] == 20  # overrides never leak into the registry
    with pytest.raises(ValueError):
        sizes_for(gemm, "HUGE")
    with pytest.raises(KeyError):
        sizes_for(gemm, "MINI", {"N": 3})
    with pytest.raises(ValueError):
        sizes_for(gemm, "MINI", {"NI": 0})
    with pytest.raises(KeyError):
        gemm.flop_count({"NI": 1})
    assert gemm.flop_count({"NI": 2, "NJ": 3, "NK": 4, "extra": 9}) == 2 * 3 + 3 * 2 * 3 * 4


# --------------------------------------------------------------------------
# Flop formulas against a literal walk of the loop nests (same counting rule
# as the registry docstring: + - * / sqrt exp pow and data comparisons = 1).
# --------------------------------------------------------------------------

def _walk(name: str, s: dict[str, int]) -> int:  # noqa: C901 - one branch per kernel
    c = 0
    if name == "correlation":
        M, N = s["M"], s["N"]
        for _j in range(M):
            c += N + 1
        for _j in range(M):
            c += 4 * N + 3
        for _i in range(N):
            for _j in range(M):
                c += 4
        for i in range(M - 1):
            for _j in range(i + 1, M):
                c += 2 * N
    elif name == "covariance":
        M, N = s["M"], s["N"]
        c += M * (N + 1) + N * M
        for i in range(M):
            for _j in range(i, M):
                c += 2 * N + 2
    elif name == "gemm":
        for _i in range(s["NI"]):
            c += s["NJ"]
            for _k in range(s["NK"]):
                c += 3 * s["NJ"]
    elif name == "gemver":
        N = s["N"]
        c += 4 * N * N + 3 * N * N + N + 3 * N * N
    elif name == "gesummv":
        for _i in range(s["N"]):
            c += 4 * s["N"] + 3
    elif name == "symm":
        for i in range(s["M"]):
            for _j in range(s["N"]):
                for _k in range(i):
                    c += 5
                c += 6
    elif name in ("syr2k", "syrk"):
        per_k = 6 if name == "syr2k" else 3
        for i in range(s["N"]):
            c += i + 1
            for _k in range(s["M"]):
                c += per_k * (i + 1)
    elif name == "trmm":
        for i in range(s["M"]):
            for _j in range(s["N"]):
                c += 2 * len(range(i + 1, s["M"])) + 1
    elif name == "2mm":
        c += 3 * s["NI"] * s["NJ"] * s["NK"]
        for _i in range(s["NI"]):
            for _j in range(s["NL"]):
                c += 1 + 2 * s["NJ"]
    elif name == "3mm":
        c += 2 * s["NI"] * s["NJ"] * s["NK"] + 2 * s["NJ"] * s["NL"] * s["NM"]
        c += 2 * s["NI"] * s["NL"] * s["NJ"]
    elif name in ("atax", "bicg"):
        c += 4 * s["M"] * s["N"]
    elif name == "doitgen":
        for _r in range(s["NR"]):
            for _q in range(s["NQ"]):
                for _p in range(s["NP"]):
                    c += 2 * s["NP"]
    elif name == "mvt":
        c += 4 * s["N"] * s["N"]
    elif name == "cholesky":
        for i in range(s["N"]):
            for j in range(i):
                c += 2 * j + 1
            c += 2 * i + 1
    elif name == "durbin":
        for k in range(1, s["N"]):
            c += 3 + 2 * k + 2 + 2 * k
    elif name == "gramschmidt":
        M, N = s["M"], s["N"]
        for k in range(N):
            c += 2 * M + 1 + M
            for _j in range(k + 1, N):
                c += 4 * M
    elif name in ("lu", "ludcmp"):
        N = s["N"]
        for i in range(N):
            for j in range(i):
                c += 2 * j + 1
            for _j in range(i, N):
                c += 2 * i
        if name == "ludcmp":
            for i in range(N):
                c += 2 * i
            for i in range(N - 1, -1, -1):
                c += 2 * (N - 1 - i) + 1
    elif name == "trisolv":
        for i in range(s["N"]):
            c += 2 * i + 1
    elif name == "deriche":
        c += 13 + 4 + 4 + 3 + 1 + 2
        c += s["W"] * s["H"] * (7 + 7 + 2 + 7 + 7 + 2)
    elif name == "floyd-warshall":
        c += 2 * s["N"] ** 3
    elif name == "nussinov":
        N = s["N"]
        for i in range(N - 1, -1, -1):
            for j in range(i + 1, N):
                c += 2
                c += 4 if i < j - 1 else 1
                for _k in range(i + 1, j):
                    c += 2
    elif name == "adi":
        N = s["N"]
        c += 13
        for _t in range(1, s["TSTEPS"] + 1):
            for _sweep in range(2):
                for _i in range(1, N - 1):
                    c += 15 * len(range(1, N - 1)) + 2 * len(range(N - 2, 0, -1))
    elif name == "fdtd-2d":
        NX, NY = s["NX"], s["NY"]
        for _t in range(s["TMAX"]):
            c += 3 * (NX - 1) * NY + 3 * NX * (NY - 1) + 5 * (NX - 1) * (NY - 1)
    elif name == "heat-3d":
        c += s["TSTEPS"] * 2 * 15 * (s["N"] - 2) ** 3
    elif name == "jacobi-1d":
        c += s["TSTEPS"] * 2 * 3 * (s["N"] - 2)
    elif name == "jacobi-2d":
        c += s["TSTEPS"] * 2 * 5 * (s["N"] - 2) ** 2
    elif name == "seidel-2d":
        c += s["TSTEPS"] * 9 * (s["N"] - 2) ** 2
    else:  # pragma: no cover
        raise AssertionError(name)
    return c


@pytest.mark.parametrize("name", NAMES)
def test_flop_formula_matches_loop_walk(name):
    info = KERNELS[name]
    odd = {p: 5 + 2 * i for i, p in enumerate(info.params)}
    for sizes in (sizes_for(info, "MINI"), odd):
        assert info.flop_count(sizes) == _walk(name, sizes), sizes


def _blas_walk(name, s):
    """2 per multiply-add of a product, alpha and beta once per element, loop by loop."""
    if name == "gemm":
        return sum(2 + 2 * s["NK"] for _ in range(s["NI"] * s["NJ"]))
    if name == "2mm":
        return (s["NI"] * s["NJ"] * (2 * s["NK"] + 1)) + s["NI"] * s["NL"] * (2 * s["NJ"] + 1)
    if name in ("syrk", "syr2k"):
        per_k = 2 if name == "syrk" else 4
        return sum(per_k * s["M"] + 2 for i in range(s["N"]) for j in range(i + 1))
    if name == "symm":   # the lower triangle of A used twice, its diagonal once
        return sum(2 * (2 * i + 1) + 2 for i in range(s["M"]) for j in range(s["N"]))
    raise AssertionError(name)  # pragma: no cover


@pytest.mark.parametrize("name", [n for n in NAMES if KERNELS[n].blas_flops])
def test_blas_count_of_the_matrix_products(name):
    info = KERNELS[name]
    odd = {p: 5 + 2 * i for i, p in enumerate(info.params)}
    for sizes in (sizes_for(info, "MINI"), odd):
        assert info.blas_flop_count(sizes) == _blas_walk(name, sizes) < info.flop_count(sizes)


# --------------------------------------------------------------------------
# Building and running the kernels
# --------------------------------------------------------------------------

FULL_DUMP = ["-DMINI_DATASET", "-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_DUMP_FULL_PRECISION"]


@needs_gcc
@pytest.mark.parametrize("name", NAMES)
def test_kernel_O0_vs_O3_native(name, tmp_path):
    info = KERNELS[name]
    exe0 = build(info, tmp_path / "o0", ["-O0"], FULL_DUMP)
    exe3 = build(info, tmp_path / "o3", ["-O3", "-march=native", *EXTRA_O3_FLAGS.get(name, [])],
                 FULL_DUMP + ["-DPOLYBENCH_TIME"])
    r0, r3 = run(exe0), run(exe3)

    # Without POLYBENCH_TIME nothing goes to stdout; with it, one time in seconds.
    assert r0.stdout == ""
    out = r3.stdout.splitlines()
    assert len(out) == 1 and TIME_RE.match(out[0]), r3.stdout
    assert 0.0 <= float(out[0]) < 60.0

    # Layout: markers, the registry's arrays in order, the expected counts.
    order0, dump0 = parse_dump(r0.stderr)
    order3, dump3 = parse_dump(r3.stderr)
    assert tuple(order0) == info.arrays == tuple(order3)
    sizes = sizes_for(info, "MINI")
    for array, expr in DUMP_SIZES[name].items():
        assert len(dump0[array]) == eval(expr, {}, dict(sizes)), array

    rtol = RTOL[DEFAULT_TYPE[name]]
    for array in info.arrays:
        if DEFAULT_TYPE[name] == "int":
            assert all(v == int(v) for v in dump0[array])
            assert dump0[array] == dump3[array], array
        else:
            assert_close(f"{name}:{array}", dump0[array], dump3[array], rtol)


@needs_gcc
@pytest.mark.parametrize("name", ["gemm", "deriche", "floyd-warshall", "trisolv"])
def test_two_decimal_dump_and_silent_default(name, tmp_path):
    """The suite's own dump format (%0.2lf / %0.2f / %d), and no output at
    all without POLYBENCH_DUMP_ARRAYS."""
    info = KERNELS[name]
    silent = run(build(info, tmp_path / "silent", ["-O2"], ["-DMINI_DATASET"]))
    assert silent.stdout == "" and silent.stderr == ""

    short = run(build(info, tmp_path / "short", ["-O2"], ["-DMINI_DATASET", "-DPOLYBENCH_DUMP_ARRAYS"]))
    full = run(build(info, tmp_path / "full", ["-O2"], FULL_DUMP))
    _, short_dump = parse_dump(short.stderr, info.arrays)
    _, full_dump = parse_dump(full.stderr, info.arrays)
    token = r"-?\d+" if DEFAULT_TYPE[name] == "int" else r"-?\d+\.\d\d"
    body = [ln for ln in short.stderr.splitlines()
            if not ln.startswith(("==", "begin dump", "end   dump"))]
    assert all(re.fullmatch(token, t) for ln in body for t in ln.split())
    assert all(ln.endswith(" ") for ln in body)
    for array in info.arrays:
        expect = [float(f"{v:.2f}") for v in full_dump[array]]
        assert len(short_dump[array]) == len(expect)
        assert all(abs(a - b) <= 0.0100001 for a, b in zip(short_dump[array], expect))


@needs_gcc
def test_size_override_on_command_line(tmp_path):
    info = KERNELS["gemm"]
    exe = build(info, tmp_path / "gemm", ["-O2"],
                ["-DNI=5", "-DNJ=6", "-DNK=7", "-DPOLYBENCH_DUMP_ARRAYS",
                 "-DPOLYBENCH_DUMP_FULL_PRECISION"])
    _, dump = parse_dump(run(exe).stderr)
    assert len(dump["C"]) == 5 * 6


@needs_gcc
@pytest.mark.parametrize("name", ["gemm", "doitgen", "nussinov", "adi", "heat-3d", "durbin"])
def test_c99_stack_arrays_scalar_bounds_variant(name, tmp_path):
    """The alternative array/bound macros of polybench.h give the same
    results (strict C99, arrays on the stack, runtime sizes in prototypes,
    compile-time sizes as loop bounds)."""
    info = KERNELS[name]
    base = build(info, tmp_path / "base", ["-O1"], FULL_DUMP)
    alt = build(info, tmp_path / "alt",
                ["-O1", "-std=c99", "-pedantic-errors", "-Wall", "-Wno-unknown-pragmas", "-Werror"],
                FULL_DUMP + ["-DPOLYBENCH_STACK_ARRAYS",
                             "-DPOLYBENCH_USE_C99_PROTO", "-DPOLYBENCH_USE_SCALAR_LB"])
    assert run(base).stderr == run(alt).stderr
