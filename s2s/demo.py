"""``s2s demo`` (what ``make demo`` runs): the whole product on a built-in example, end to end.

1. lifts a small C program to the IR and shows it; 2. regenerates it and shows the spliced C;
3. builds it with the real compiler, with ``s2s-cc`` in the default mode, and with the optimizer
   (``S2S_MODE=pluto``, ``-fopenmp`` when compiling only: s2s-cc adds the OpenMP runtime to the link)
   and checks all three print the same;
4. measures the optimizer on PolyBench (``s2s bench``) at the MEDIUM size, where its schedules and
   kernels matter, on a few kernels from every category (the winners and the others): the table
   with the verification column, then what the optimizer did to each kernel (its report lines,
   taken from the logs of the builds that were timed), the machine and the command to reproduce it.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

EXAMPLE = textwrap.dedent("""\
    /* Built-in s2s example: a matrix product and a 2-D Jacobi stencil. */
    #include <stdio.h>
    #define N 96
    #define STEPS 20

    static double A[N][N], B[N][N], C[N][N], G[N][N], H[N][N];

    static void matmul(int n, double alpha, double C[N][N], double A[N][N], double B[N][N]) {
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
          for (int k = 0; k < n; k++)
            C[i][j] += alpha * A[i][k] * B[k][j];
    }

    static void jacobi(int steps, int n, double G[N][N], double H[N][N]) {
      for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
          for (int j = 1; j < n - 1; j++)
            H[i][j] = 0.2 * (G[i][j] + G[i][j - 1] + G[i][j + 1] + G[i - 1][j] + G[i + 1][j]);
        for (int i = 1; i < n - 1; i++)
          for (int j = 1; j < n - 1; j++)
            G[i][j] = H[i][j];
      }
    }

    int main(void) {
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
          A[i][j] = (double)((i * j + 1) % N) / N;
          B[i][j] = (double)((i + 2 * j) % N) / N;
          G[i][j] = (double)(i * (j + 3) % 17) / 17.0;
        }
      matmul(N, 1.5, C, A, B);
      jacobi(STEPS, N, G, H);
      double c = 0, g = 0;
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) { c += C[i][j]; g += G[i][j]; }
      printf("checksum C = %.17g\\nchecksum G = %.17g\\n", c, g);
      return 0;
    }
""")


# Section 4: a size where the optimizer matters (at SMALL a run is over before tiles or kernels pay),
# and kernels from every PolyBench category, those s2s speeds up and those it does not: s2s-seq at
# MEDIUM on an AMD EPYC, two runs on a busy 2-core VM: 2mm, doitgen, covariance 8-12x, lu 3.4x, gemm
# 1.8-2.1x, seidel-2d 1.1-1.4x, floyd-warshall and heat-3d 1.0-1.1x, jacobi-2d 0.74-0.94x.
# 3.5 minutes there (load average 7), most of it building.
BENCH_DATASET = "MEDIUM"
BENCH_KERNELS = ("covariance", "gemm", "2mm", "doitgen", "lu", "floyd-warshall", "jacobi-2d", "seidel-2d",
                 "heat-3d")
BENCH_CONFIGS = ("baseline", "s2s-seq", "s2s-omp")
BENCH_REPEAT = 3
REPORT_PREFIX = "s2s-cc: report: "
NOTE_PREFIX = "s2s-cc: note: "


@dataclass(frozen=True)
class KernelReport:
    """What s2s-cc said while building one kernel's timed binary under one configuration."""

    kernel: str
    config: str
    lines: tuple[str, ...]  # report lines about the kernel's own function, and fallback notes


def _section(title: str) -> None:
    print(f"\n=== {title} " + "=" * max(0, 72 - len(title)), flush=True)


def run_demo(bench: bool = True) -> int:
    from frontends.c import lift_c_file
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file
    from s2s.ir import dump

    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="s2s-demo-") as tmp:
        src = Path(tmp) / "example.c"
        src.write_text(EXAMPLE)

        _section("1. the example lifted into the IR (s2s opt --emit-ir)")
        unit, _ = lift_c_file(str(src))
        print(dump(unit.function("matmul")), end="")

        _section("2. regenerated from the IR and spliced into the original file (--mode identity)")
        result = optimize_c_file(src, [], PipelineOptions(mode="identity"))
        print("\n".join(result.report))
        print(result.source[result.source.index("static void matmul"):result.source.index("static void jacobi")])

        _section("3. built with cc, with s2s-cc and with the optimizer; same output?")
        if not _same_outputs(Path(tmp), src, bindir):
            return 1

    if not bench:
        return 0
    return _bench(bindir)


def _same_outputs(tmp: Path, src: Path, bindir: Path) -> bool:
    """Build the example three ways and compare what they print."""
    s2s_cc = str(bindir / "s2s-cc")
    env = {k: v for k, v in os.environ.items() if not k.startswith("S2S_")}
    pluto = {**env, "S2S_MODE": "pluto", "S2S_REPORT": "1"}
    obj = tmp / "example.o"
    builds = {
        "cc": [(["cc", "-O2", str(src), "-o", "{exe}"], env)],
        "s2s-cc": [([s2s_cc, "-O2", str(src), "-o", "{exe}"], env)],
        # the usual Makefile: -fopenmp in CFLAGS when compiling, a link without it
        "s2s-cc, S2S_MODE=pluto -fopenmp": [([s2s_cc, "-O2", "-fopenmp", "-c", str(src), "-o", str(obj)], pluto),
                                            ([s2s_cc, str(obj), "-o", "{exe}"], env)],
    }
    outputs = {}
    for n, (name, steps) in enumerate(builds.items()):
        exe = str(tmp / f"example-{n}")
        for argv, step_env in steps:
            argv = [a.replace("{exe}", exe) for a in argv]
            shown = [Path(a).name if a == s2s_cc else a.replace(str(tmp) + "/", "") for a in argv]
            print("$ " + " ".join((["S2S_MODE=pluto"] if step_env is pluto else []) + shown), flush=True)
            step = subprocess.run(argv, env=step_env, capture_output=True, text=True)
            for line in step.stderr.splitlines():
                print("  " + line.replace(str(tmp) + "/", ""))
            if step.returncode != 0:
                print(f"FAILED: building with {name} (exit status {step.returncode})", file=sys.stderr)
                return False
        outputs[name] = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    width = max(map(len, outputs))
    for name, out in outputs.items():
        print(f"{name:>{width}}: {out.strip().replace(chr(10), ' | ')}")
    if len(set(outputs.values())) != 1:
        print("MISMATCH: s2s-cc changed what the program computes", file=sys.stderr)
        return False
    print("identical.")
    return True


def _bench(bindir: Path) -> int:
    from polybench.harness.machine_info import cpu_model, usable_cpus

    _section(f"4. PolyBench at {BENCH_DATASET}: what the optimizer does (s2s bench)")
    cmd = ["s2s", "bench", "--dataset", BENCH_DATASET, "--repeat", str(BENCH_REPEAT),
           "--configs", ",".join(BENCH_CONFIGS), "--kernels", ",".join(BENCH_KERNELS)]
    print(f"{len(BENCH_KERNELS)} of the 30 kernels, from every category; all of them: "
          f"s2s bench --dataset {BENCH_DATASET}")
    print(f"baseline: cc -O3 -march=native; s2s-seq: the optimizer, plain C, one thread; "
          f"s2s-omp: the optimizer with OpenMP on all {usable_cpus()} CPUs")
    load_before = _load()
    out = tempfile.mkdtemp(prefix="s2s-demo-bench-")  # kept: the table names it, with the builds' logs
    results = Path(out) / "bench.json"
    argv = [str(bindir / "s2s"), *cmd[1:], "--output-dir", out, "--json", str(results)]
    print("$ " + " ".join(cmd), flush=True)
    # S2S_REPORT: s2s-cc writes what it did into each build's log, read back below
    rc = subprocess.run(argv, env={**os.environ, "S2S_REPORT": "1"}).returncode
    reports = kernel_reports(results) if results.is_file() else []
    print()
    print("what s2s did to each kernel's loop nests (s2s-cc --s2s-report, in the timed builds; "
          "s2s-seq shown where it differs):")
    width = max((len(r.kernel) for r in reports), default=0)
    for report in reports:
        if report.config == "s2s-omp" or _differs(report, reports):
            for n, line in enumerate(report.lines or ("(no report line: the kernel's loops were not touched)",)):
                kernel = report.kernel if n == 0 else ""
                print(f"  {kernel:<{width}}  {report.config.removeprefix('s2s-')}: {line}")
    print(f"\nmachine: {cpu_model()}, {usable_cpus()} CPUs; load average {load_before} before, {_load()} after "
          f"(other jobs on the same cores slow the OpenMP runs most)")
    print(f"to reproduce: {' '.join(cmd)}")
    return rc


def kernel_reports(results: Path) -> list[KernelReport]:
    """The report lines and fallback notes of s2s-cc about each kernel's function, per kernel and
    s2s configuration, from the timed builds' logs named in ``s2s bench --json`` output."""
    data = json.loads(results.read_text())
    reports = []
    for cell in data.get("results", []):
        timed = (cell.get("build") or {}).get("timed") or {}
        log = timed.get("log")
        if not log or not str(timed.get("env", {}).get("S2S_MODE", "")) or not Path(log).is_file():
            continue
        lines = []
        function = "kernel_" + cell["kernel"].replace("-", "_")
        for line in Path(log).read_text(errors="replace").splitlines():
            if line.startswith(NOTE_PREFIX):  # s2s failed and compiled the user's code
                lines.append("fell back: " + _short(line[len(NOTE_PREFIX):]))
            elif line.startswith(REPORT_PREFIX) and f": {function}: " in line:
                lines.append(line.partition(f": {function}: ")[2])  # the label names the kernel
        reports.append(KernelReport(cell["kernel"], cell["config"], tuple(lines)))
    return reports


def _short(line: str) -> str:
    """A report line without the directories of the suite's sources."""
    path, sep, rest = line.partition(": ")
    return os.path.basename(path) + sep + rest if sep and "/" in path else line


def _differs(report: KernelReport, reports: list[KernelReport]) -> bool:
    """A sequential build's lines are shown when they say more than the OpenMP build's time taken."""
    omp = next((r for r in reports if r.kernel == report.kernel and r.config == "s2s-omp"), None)
    return omp is None or _untimed(omp.lines) != _untimed(report.lines)


def _untimed(lines: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(re.sub(r"\b\d+\.\d+ s\b", "", line) for line in lines)


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"
