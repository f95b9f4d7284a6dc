"""The evaluation harness (``s2s bench`` / ``python -m polybench``): build, verify, time, report.

Fast: MINI dataset, --repeat 1, two or three kernels per run. Tests that need our suite skip while
polybench/registry.py or polybench/suite is not there; the external-suite test makes its own tiny
PolyBench-like tree in tmp_path and needs neither.
"""
from __future__ import annotations

import csv
import importlib.util
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from polybench.harness import cli
from polybench.harness.plot import plot_paths
from polybench.harness.suite import SizeSpecError, parse_header, parse_size_spec, select_kernels
from polybench.harness.verify import DumpError, compare, parse_dump, quantum_of

REPO = Path(__file__).resolve().parents[1]
HAVE_CC = shutil.which("cc") is not None

needs_cc = pytest.mark.skipif(not HAVE_CC, reason="no C compiler (cc)")


def _our_suite_ready() -> str | None:
    try:
        from polybench import registry  # noqa: F401
    except ImportError as e:
        return f"polybench/registry.py not there yet ({e})"
    root = Path(registry.SUITE_ROOT)
    if not (root / "utilities" / "polybench.c").is_file():
        return f"{root}/utilities/polybench.c not there yet"
    for name in ("gemm", "atax", "floyd-warshall"):
        info = registry.KERNELS.get(name)
        if info is None or not Path(registry.kernel_source(info)).is_file():
            return f"kernel {name} not in the suite yet"
    return None


_NOT_READY = _our_suite_ready()
needs_suite = pytest.mark.skipif(_NOT_READY is not None or not HAVE_CC, reason=_NOT_READY or "no cc")


def bench(tmp_path: Path, capsys, *args: str) -> tuple[int, str, dict, list[dict]]:
    """Run the harness in-process; (exit status, stdout, JSON, CSV rows)."""
    out_dir = tmp_path / "out"
    rc = cli.main(["--output-dir", str(out_dir), "--no-progress", "--jobs", "2", *args])
    stdout = capsys.readouterr().out
    data = json.loads((out_dir / "bench.json").read_text())
    with open(out_dir / "bench.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["role"] != "noise"]
    return rc, stdout, data, rows


def cells(data: dict) -> dict[tuple[str, str], dict]:
    """The measured cells (without the fp-noise probe, which every run adds)."""
    return {(r["kernel"], r["config"]): r for r in data["results"] if r["role"] != "noise"}


def perturbing_compiler(tmp_path: Path) -> Path:
    """A compiler wrapper that flips the first ``+=`` inside the kernel function to ``-=``."""
    script = tmp_path / "perturb-cc"
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import os, sys, tempfile
        from pathlib import Path
        args = []
        for a in sys.argv[1:]:
            p = Path(a)
            if a.endswith(".c") and p.name != "polybench.c" and p.is_file():
                text = p.read_text()
                at = text.index("kernel_" + p.stem.replace("-", "_"))
                body = text[at:]
                assert "+=" in body, "nothing to perturb"
                q = Path(tempfile.mkdtemp()) / p.name
                q.write_text(text[:at] + body.replace("+=", "-=", 1))
                a = str(q)
            args.append(a)
        os.execvp("cc", ["cc"] + args)
        """))
    script.chmod(0o755)
    return script


# --- unit tests (no compiler, no suite) ------------------------------------------------------------

def _dump(**arrays: str) -> str:
    body = "".join(f"begin dump: {k}\n{v}\nend   dump: {k}\n" for k, v in arrays.items())
    return f"noise\n==BEGIN DUMP_ARRAYS==\n{body}==END   DUMP_ARRAYS==\n"


def test_compare_tolerance_nan_counts_names():
    ref = parse_dump(_dump(C="1.0 2.0 0 -3.5"))
    assert compare(ref, parse_dump(_dump(C="1.0 2.0000000001 0 -3.5")), 1e-6).ok
    bad = compare(ref, parse_dump(_dump(C="1.0 2.1 0 -3.5")), 1e-6)
    assert not bad.ok and "C[1]" in bad.message and bad.max_rel_err == pytest.approx(0.1 / 2.1)
    nan = compare(ref, parse_dump(_dump(C="1.0 nan 0 -3.5")), 1e-6)
    assert not nan.ok and "NaN" in nan.message
    assert compare(parse_dump(_dump(C="nan 1")), parse_dump(_dump(C="-nan 1")), 1e-6).ok
    short = compare(ref, parse_dump(_dump(C="1.0 2.0 0")), 1e-6)
    assert not short.ok and "3 values" in short.message
    other = compare(ref, parse_dump(_dump(D="1.0 2.0 0 -3.5")), 1e-6)
    assert not other.ok and "arrays differ" in other.message
    ints = parse_dump(_dump(P="1 2 3"), integer=True)
    assert compare(ints, parse_dump(_dump(P="1 2 3"), integer=True), 1e-6, integer=True).ok
    assert not compare(ints, parse_dump(_dump(P="1 2 4"), integer=True), 1.0, integer=True).ok
    with pytest.raises(DumpError):
        parse_dump("no dump here")
    with pytest.raises(DumpError):
        parse_dump("==BEGIN DUMP_ARRAYS==\nbegin dump: A\n1 2\nend   dump: A\n")  # cut short


def test_noise_widened_tolerance_and_floor():
    from polybench.harness.verify import noise_tolerances

    # A value that is cancellation noise next to large ones is judged against the array's scale.
    ref = parse_dump(_dump(C="1000 2e-15 5"))
    assert compare(ref, parse_dump(_dump(C="1000 -3e-15 5")), 1e-6).ok
    # An ill-conditioned output: the -ffp-contract=off build already differs by 1e-3.
    perturbed = parse_dump(_dump(C="1001 2e-15 5"))
    tols = noise_tolerances(ref, perturbed, 1e-6)
    assert tols["C"] == pytest.approx(100 * 1 / 1001)
    other = parse_dump(_dump(C="999 0 5"))
    assert not compare(ref, other, 1e-6).ok
    widened = compare(ref, other, 1e-6, tolerances=tols)
    assert widened.ok and widened.widened
    assert not compare(ref, parse_dump(_dump(C="1000 0 nan")), 1e-6, tolerances=tols).ok  # NaN stays fatal
    assert noise_tolerances(ref, parse_dump(_dump(C="1000 2e-15 5.000000000001")), 1e-6) == {}


def test_compare_two_decimal_dumps():
    a = parse_dump(_dump(C="0.12 1.00 -2.50"), detect_decimals=True)
    b = parse_dump(_dump(C="0.13 1.00 -2.50"), detect_decimals=True)  # 0.125 rounded both ways
    assert a.decimals == 2 and quantum_of(a, b) == pytest.approx(0.01)
    assert compare(a, b, 1e-6, quantum=quantum_of(a, b)).ok
    c = parse_dump(_dump(C="0.15 1.00 -2.50"), detect_decimals=True)
    assert not compare(a, c, 1e-6, quantum=quantum_of(a, c)).ok
    full = parse_dump(_dump(C="0.125 1 -2.5"), detect_decimals=True)
    assert full.decimals is None


def test_size_specs_and_header():
    assert parse_size_spec("NI=512:2048:512") == ("NI", [512, 1024, 1536, 2048])
    assert parse_size_spec("N=100") == ("N", [100])
    assert parse_size_spec("N=10,20") == ("N", [10, 20])
    for bad in ("NI", "NI=", "NI=4:2:1", "NI=1:4:0", "NI=x", "NI=-3"):
        with pytest.raises(SizeSpecError):
            parse_size_spec(bad)
    params, datasets, integer = parse_header(textwrap.dedent("""\
        # if !defined(NI) && !defined(NJ)
        #  ifdef MINI_DATASET
        #   define NI 20
        #   define NJ 25
        #  endif
        #  ifdef LARGE_DATASET
        #   define NI 1000
        #   define NJ 1100
        #  endif
        # endif
        # if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT)
        #  define DATA_TYPE_IS_INT
        # endif
        """))
    assert params == ("NI", "NJ") and datasets["LARGE"] == {"NI": 1000, "NJ": 1100} and integer


def test_plot_paths():
    assert plot_paths(Path("a/b.png")) == [Path("a/b.png"), Path("a/b.svg")]
    assert plot_paths(Path("b.svg")) == [Path("b.svg"), Path("b.png")]
    assert plot_paths(Path("chart")) == [Path("chart.png"), Path("chart.svg")]


# --- an external suite (2-decimal dumps), made here ---------------------------------------------------

POLYBENCH_H = r"""
#ifndef POLYBENCH_H
# define POLYBENCH_H
# include <stdio.h>
# include <string.h>
# ifndef POLYBENCH_DUMP_ARRAYS
#  define POLYBENCH_DCE_ONLY_CODE    if (argc > 42 && ! strcmp(argv[0], ""))
# else
#  define POLYBENCH_DCE_ONLY_CODE
# endif
#define POLYBENCH_DUMP_TARGET stderr
#define POLYBENCH_DUMP_START    fprintf(POLYBENCH_DUMP_TARGET, "==BEGIN DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_FINISH   fprintf(POLYBENCH_DUMP_TARGET, "==END   DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_BEGIN(s) fprintf(POLYBENCH_DUMP_TARGET, "begin dump: %s", s)
#define POLYBENCH_DUMP_END(s)   fprintf(POLYBENCH_DUMP_TARGET, "\nend   dump: %s\n", s)
# define polybench_prevent_dce(func) POLYBENCH_DCE_ONLY_CODE func
# ifdef POLYBENCH_TIME
#  define polybench_start_instruments polybench_timer_start();
#  define polybench_stop_instruments polybench_timer_stop();
#  define polybench_print_instruments polybench_timer_print();
# else
#  define polybench_start_instruments
#  define polybench_stop_instruments
#  define polybench_print_instruments
# endif
extern void polybench_timer_start(void);
extern void polybench_timer_stop(void);
extern void polybench_timer_print(void);
#endif
"""

POLYBENCH_C = r"""
#include <stdio.h>
#include <sys/time.h>
static double t_start, t_end;
static double now(void) { struct timeval t; gettimeofday(&t, NULL); return t.tv_sec + t.tv_usec * 1e-6; }
void polybench_timer_start(void) { t_start = now(); }
void polybench_timer_stop(void) { t_end = now(); }
void polybench_timer_print(void) { printf("%0.6f\n", t_end - t_start); }
"""

KERNEL_H = r"""
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif
# if !defined(TSTEPS) && !defined(N)
#  ifdef MINI_DATASET
#   define TSTEPS 100
#   define N 1000
#  endif
#  ifdef SMALL_DATASET
#   define TSTEPS 40
#   define N 120
#  endif
#  ifdef MEDIUM_DATASET
#   define TSTEPS 100
#   define N 400
#  endif
#  ifdef LARGE_DATASET
#   define TSTEPS 500
#   define N 2000
#  endif
#  ifdef EXTRALARGE_DATASET
#   define TSTEPS 1000
#   define N 4000
#  endif
# endif
# define DATA_TYPE double
# define DATA_PRINTF_MODIFIER "%0.2lf "
"""

KERNEL_C = r"""
#include <polybench.h>
#include "NAME.h"
static DATA_TYPE A[N], B[N];
static void kernel_KNAME(int tsteps, int n) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++) { B[i] = 0.33333 * (A[i-1] + A[i]); B[i] += 0.33333 * A[i + 1]; }
    for (int i = 1; i < n - 1; i++) A[i] = 0.33333 * (B[i-1] + B[i] + B[i + 1]);
  }
}
static void print_array(int n) {
  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A");
  for (int i = 0; i < n; i++) {
    if (i % 20 == 0) fprintf(POLYBENCH_DUMP_TARGET, "\n");
    fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i]);
  }
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}
int main(int argc, char **argv) {
  for (int i = 0; i < N; i++) { A[i] = ((DATA_TYPE) i + 2) / N * 100; B[i] = ((DATA_TYPE) i + 3) / N; }
  polybench_start_instruments;
  kernel_KNAME(TSTEPS, N);
  polybench_stop_instruments;
  polybench_print_instruments;
  polybench_prevent_dce(print_array(N));
  return 0;
}
"""


def make_external_suite(root: Path) -> Path:
    (root / "utilities").mkdir(parents=True)
    (root / "utilities" / "polybench.h").write_text(POLYBENCH_H)
    (root / "utilities" / "polybench.c").write_text(POLYBENCH_C)
    for name in ("jacobi-1d", "smooth-1d"):  # a name the registry knows, and one it does not
        d = root / "stencils" / name
        d.mkdir(parents=True)
        (d / f"{name}.h").write_text(KERNEL_H)
        (d / f"{name}.c").write_text(KERNEL_C.replace("KNAME", name.replace("-", "_")).replace("NAME", name))
    return root


@needs_cc
def test_external_suite_dir_two_decimals(tmp_path, capsys):
    suite = make_external_suite(tmp_path / "PolyBenchC-4.2.1")
    rc, stdout, data, rows = bench(tmp_path, capsys, "--suite-dir", str(suite), "--dataset", "MINI",
                                   "--repeat", "1", "--configs", "baseline", "--config", "o1=cc -O1")
    assert rc == 0, stdout
    assert data["suite"] == {"root": str(suite.resolve()), "external": True}
    got = cells(data)
    assert set(got) == {(k, c) for k in ("jacobi-1d", "smooth-1d") for c in ("baseline", "o1")}
    for r in got.values():
        assert r["status"] == "ok" and r["verified"], r
        assert r["sizes"] == {"TSTEPS": 100, "N": 1000}  # read from the suite's own header
    o1 = got[("smooth-1d", "o1")]
    assert o1["compare_mode"] == "abs+rel" and o1["comparisons"][0]["abs_tolerance"] == pytest.approx(0.01)
    assert got[("smooth-1d", "baseline")]["gflops"] is None  # unknown kernel: no flop count
    assert "only 2 decimals" in stdout and "only 2 decimals" in data["verification"]["quantized"]
    try:
        from polybench import registry
        known = "jacobi-1d" in registry.KERNELS
    except ImportError:
        known = False
    if known:  # registry metadata by name: a flop count, so GFLOP/s (unless below the timer's resolution)
        base = got[("jacobi-1d", "baseline")]
        assert base["flops"] > 0 and (base["gflops"] is not None or base["median_s"] == 0)
    assert len(rows) == 4


@needs_cc
def test_external_suite_catches_wrong_config(tmp_path, capsys):
    suite = make_external_suite(tmp_path / "pb")
    wrong = perturbing_compiler(tmp_path)
    rc, stdout, data, _ = bench(tmp_path, capsys, "--suite-dir", str(suite), "--dataset", "MINI",
                                "--repeat", "1", "--kernels", "smooth-1d", "--configs", "baseline",
                                "--config", f"wrong={wrong}")
    assert rc != 0
    r = cells(data)[("smooth-1d", "wrong")]
    assert r["status"] == "mismatch" and not r["verified"] and r["speedup"] is None
    assert "MISMATCH" in stdout


# --- our suite ---------------------------------------------------------------------------------------

def _s2s_cc_state() -> str | None:
    tool = Path(sys.executable).parent / "s2s-cc"
    if not tool.exists():
        return f"{tool} not installed"
    if importlib.util.find_spec("s2s.driver.cc") is None:
        return "s2s.driver.cc (s2s-cc) not written yet"
    return None


@needs_suite
@pytest.mark.skipif(_s2s_cc_state() is not None, reason=str(_s2s_cc_state()))
def test_baseline_and_identity_verify(tmp_path, capsys):
    rc, stdout, data, rows = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1",
                                   "--kernels", "gemm,atax,floyd-warshall", "--configs", "baseline,identity")
    got = cells(data)
    assert set(got) == {(k, c) for k in ("gemm", "atax", "floyd-warshall") for c in ("baseline", "identity")}
    bad = {k: (r["status"], r["message"]) for k, r in got.items() if r["status"] != "ok"}
    assert not bad and rc == 0, stdout
    assert got[("floyd-warshall", "identity")]["compare_mode"] == "exact"
    assert got[("gemm", "identity")]["compare_mode"] == "rel"
    ident = next(c for c in data["configs"] if c["name"] == "identity")
    assert ident["env"] == {"S2S_MODE": "identity"} and ident["argv"][0].endswith("s2s-cc")
    assert "✓" in stdout and "geomean" in stdout


@needs_suite
def test_wrong_config_is_a_mismatch(tmp_path, capsys):
    wrong = perturbing_compiler(tmp_path)
    rc, stdout, data, _ = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1", "--kernels", "gemm",
                                "--configs", "baseline", "--config", f"wrong={wrong}")
    assert rc != 0
    got = cells(data)
    assert got[("gemm", "baseline")]["status"] == "ok"
    r = got[("gemm", "wrong")]
    assert r["status"] == "mismatch" and not r["verified"] and r["speedup"] is None and not r["times_s"]
    assert r["max_rel_err"] > 1e-6 and "vs baseline" in r["message"]
    assert "FAILED gemm / wrong: MISMATCH" in stdout
    assert data["geomean_speedup"]["wrong"]["points"] == 0


@needs_suite
def test_csv_json_metadata_and_plot(tmp_path, capsys):
    plot = tmp_path / "chart.svg"
    rc, stdout, data, rows = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "2", "--kernels",
                                   "gemm,atax", "--configs", "baseline,polly", "--config", "o2=cc -O2",
                                   "--csv", str(tmp_path / "x.csv"), "--json", str(tmp_path / "x.json"),
                                   "--plot", str(plot), "--threads", "1")
    assert rc == 0, stdout
    m = data["machine"]
    assert m["cpu_model"] and m["threads"] >= 1 and m["memory_bytes"] > 0 and isinstance(m["caches"], list)
    assert data["compilers"]["cc"] and "clang-14" in data["compilers"]
    assert data["options"]["dataset"] == "MINI" and data["options"]["threads"] == 1
    assert data["date"] and data["s2s"]["version"]
    if (REPO / ".git").exists():
        assert len(data["s2s"]["git_commit"]) == 40
    base = next(c for c in data["configs"] if c["name"] == "baseline")
    assert base["argv"] == ["cc", "-O3", "-march=native"]
    polly = next(c for c in data["configs"] if c["name"] == "polly")
    assert polly["available"] or polly["unavailable"]
    for r in cells(data).values():
        assert r["status"] == "ok" and 2 <= len(r["times_s"]) <= 20 and r["median_s"] is not None
        assert r["sizes"] and r["flops"] > 0
        assert "-DMINI_DATASET" in r["build"]["timed"]["command"]
        assert "-DPOLYBENCH_DUMP_FULL_PRECISION" in r["build"]["dump"]["command"]
    ran = {"baseline", "o2"} | ({"polly"} if polly["available"] else set())
    assert len(rows) == 2 * len(ran)
    for row in rows:
        for key in ("date", "git_commit", "dataset", "kernel", "sizes", "config", "status", "verified",
                    "median_s", "command", "cpu_model", "cc_version"):
            assert key in row
        assert row["dataset"] == "MINI" and row["status"] == "ok" and row["verified"] == "True"
        assert "-O" in row["command"] and "=" in row["sizes"] and row["cc_version"]
    assert (tmp_path / "x.csv").stat().st_size > 0 and json.loads((tmp_path / "x.json").read_text())
    for p in (plot, plot.with_suffix(".png"), tmp_path / "out" / "speedup.png", tmp_path / "out" / "speedup.svg"):
        assert p.stat().st_size > 1000, p


@needs_suite
def test_unknown_kernel_and_missing_compiler(tmp_path, capsys):
    rc, stdout, data, _ = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1",
                                "--kernels", "gemm,no-such-kernel", "--configs", "baseline",
                                "--config", "ghost=/nonexistent/bin/cc -O2")
    assert rc != 0
    assert "UNKNOWN KERNEL: 'no-such-kernel'" in stdout and data["unknown_kernels"]
    got = cells(data)
    assert got[("gemm", "baseline")]["status"] == "ok"  # the run went on
    ghost = got[("gemm", "ghost")]
    assert ghost["status"] == "build-failed" and "compiler not found: /nonexistent/bin/cc" in ghost["message"]
    assert "BUILD FAILED" in stdout


@needs_suite
def test_size_sweep_one_row_per_size(tmp_path, capsys):
    rc, stdout, data, rows = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1", "--kernels", "gemm",
                                   "--configs", "baseline", "--size", "NI=8:24:8")
    assert rc == 0, stdout
    assert [r["swept"] for r in rows] == ["NI=8", "NI=16", "NI=24"]
    assert [r["sizes"]["NI"] for r in data["results"] if r["role"] != "noise"] == [8, 16, 24]
    from polybench import registry
    others = {k: v for k, v in registry.sizes_for(registry.KERNELS["gemm"], "MINI").items() if k != "NI"}
    for r in data["results"]:  # the fp-noise probe too
        assert {k: v for k, v in r["sizes"].items() if k != "NI"} == others
        assert all(f"-D{k}=" in r["build"]["dump"]["command"] for k in r["sizes"])  # all params together


@needs_suite
def test_kernel_regex_selection_and_list(tmp_path):
    from polybench.harness.suite import load_suite

    suite = load_suite()
    picked, unknown = select_kernels(suite, "gem.*,atax,zzz")
    assert {"gemm", "gemver", "atax"} <= {k.name for k in picked} and unknown == ["zzz"]
    p = subprocess.run([sys.executable, "-m", "polybench", "--list", "--dataset", "MINI"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "gemm" in p.stdout and "baseline" in p.stdout and "reference-O0" in p.stdout


@needs_suite
def test_pluto_configuration_runs_polycc_first(tmp_path, capsys):
    """A stand-in polycc (copies the kernel, as Pluto would write its transformed copy) is run with
    Pluto's options; its output is what gets compiled, verified and timed."""
    polycc = tmp_path / "polycc"
    polycc.write_text('#!/bin/sh\n# polycc IN --tile --parallel -o OUT\n'
                      'echo "$@" > "$(dirname "$5")/args"\ncp "$1" "$5"\n')
    polycc.chmod(0o755)
    rc, stdout, data, _ = bench(tmp_path, capsys, "--dataset", "MINI", "--repeat", "1", "--kernels", "atax",
                                "--configs", "baseline,pluto", "--pluto", str(polycc))
    got = cells(data)
    assert rc == 0 and got[("atax", "pluto")]["status"] == "ok", stdout
    args = next((tmp_path / "out").rglob("args")).read_text().split()
    assert args[1:4] == ["--tile", "--parallel", "-o"] and args[4].endswith("atax.pluto.c")


def test_pluto_configuration_needs_polycc(tmp_path, capsys):
    from polybench.harness import configs
    cfg = configs.CONFIGS["pluto"].make(configs.ConfigContext())
    assert not cfg.available and "--pluto" in cfg.unavailable


def test_short_kernels_get_more_rounds():
    from polybench.harness.bench import Bench, Cell, Options

    bench = Bench(suite=None, configs=[], points=[], options=Options(repeat=5), progress=None)

    def cells(*medians):
        return [Cell(point=None, config=None, status="ok", times=[m] * 5) for m in medians]

    assert bench.short_run_rounds(cells(0.2, 0.05)) == 5          # the slowest configuration decides
    assert bench.short_run_rounds(cells(0.05, 0.04)) == 20        # 1 s of runs each
    assert bench.short_run_rounds(cells(0.0005, 0.0004)) == 50    # at most 10 x repeat
    assert bench.short_run_rounds(cells()) == 5
