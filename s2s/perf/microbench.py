"""Compiling and running our C microbenchmarks (``s2s/perf/kernels/*.c``) and reading their output.

Nothing here decides what to measure or checks a figure: ``machine`` does that. This module knows
the compiler flags (GCC and Clang spell "no auto-vectorization" differently), OpenMP thread
placement, and the output format of ``membench`` and ``flops``.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

STREAM_KERNELS = ("copy", "scale", "add", "triad", "load", "store")
CACHE_KERNELS = ("load", "copy", "triad")


class MicrobenchError(RuntimeError):
    pass


def kernel_source(name: str) -> Path:
    """Path of one of our C sources (``membench.c``, ``flops.c``, ``prof_runtime.c``)."""
    path = Path(str(resources.files("s2s.perf").joinpath("kernels", name)))
    if not path.is_file():
        raise MicrobenchError(f"missing microbenchmark source {path} (is s2s installed with its package data?)")
    return path


def compiler_family(cc: str) -> str:
    """``"clang"`` or ``"gcc"`` (anything that is not clang is driven with GCC's flags)."""
    try:
        out = subprocess.run([*shlex.split(cc), "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "gcc"
    return "clang" if "clang" in out.lower() else "gcc"


def compiler_version(cc: str) -> str | None:
    try:
        out = subprocess.run([*shlex.split(cc), "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.strip().splitlines()[0] if out.strip() else None


@dataclass
class Build:
    """The compiled microbenchmarks and how they were built."""

    directory: Path
    membench: Path
    flops_simd: Path
    flops_scalar: Path
    commands: dict[str, str]
    openmp: bool
    notes: list[str] = field(default_factory=list)


def _arch_flags(cc: str, workdir: Path) -> list[str]:
    """``-march=native`` where the compiler takes it, else ``-mcpu=native`` (older Arm compilers)."""
    probe = workdir / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    for flags in (["-march=native"], ["-mcpu=native"], []):
        r = subprocess.run([*shlex.split(cc), *flags, "-c", str(probe), "-o", str(workdir / "probe.o")],
                           capture_output=True, text=True)
        if r.returncode == 0:
            return flags
    return []


def build(cc: str, simd_bytes: int, workdir: Path | None = None) -> Build:
    """Compile ``membench`` (vectors of ``simd_bytes``) and ``flops`` (SIMD and scalar builds)."""
    workdir = Path(workdir or tempfile.mkdtemp(prefix="s2s-machine-"))
    workdir.mkdir(parents=True, exist_ok=True)
    family = compiler_family(cc)
    arch = _arch_flags(cc, workdir)
    no_vec = ["-fno-vectorize", "-fno-slp-vectorize"] if family == "clang" else \
        ["-fno-tree-vectorize", "-fno-tree-slp-vectorize"]
    no_memcpy = [] if family == "clang" else ["-fno-tree-loop-distribute-patterns"]
    base = [*shlex.split(cc), "-O3", *arch, "-std=gnu11"]
    jobs = {
        "membench": [*base, *no_memcpy, f"-DVBYTES={simd_bytes}", str(kernel_source("membench.c"))],
        "flops_simd": [*base, "-ffp-contract=fast", str(kernel_source("flops.c"))],
        "flops_scalar": [*base, "-ffp-contract=fast", *no_vec, "-DSCALAR_BUILD", str(kernel_source("flops.c"))],
    }
    notes: list[str] = []
    if not arch:
        notes.append(f"{cc} takes neither -march=native nor -mcpu=native: the kernels are built for the "
                     f"compiler's default target, so SIMD peaks may be below the hardware's")

    def compile_all(openmp: bool) -> dict[str, subprocess.CompletedProcess]:
        def one(item):
            name, argv = item
            full = [*argv, *(["-fopenmp"] if openmp else []), "-o", str(workdir / name), "-lm"]
            return name, full, subprocess.run(full, capture_output=True, text=True, timeout=300)

        with ThreadPoolExecutor(max_workers=3) as pool:
            return {name: (full, r) for name, full, r in pool.map(one, jobs.items())}

    results = compile_all(openmp=True)
    openmp = all(r.returncode == 0 for _, r in results.values())
    if not openmp:
        results = compile_all(openmp=False)
        notes.append(f"{cc} cannot build OpenMP code (-fopenmp): figures for all threads are not measured")
    for name, (full, r) in results.items():
        if r.returncode != 0:
            raise MicrobenchError(f"cannot compile the {name} microbenchmark:\n$ {shlex.join(full)}\n"
                                  f"{r.stderr.strip()}")
    return Build(workdir, workdir / "membench", workdir / "flops_simd", workdir / "flops_scalar",
                 {name: shlex.join(full) for name, (full, _) in results.items()}, openmp, notes)


def thread_env(threads: int) -> dict[str, str]:
    """OpenMP settings: ``threads`` threads, one per hardware thread, packed (close), pinned."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "KMP_"))}
    env.update(OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="close", OMP_PLACES="threads", OMP_DYNAMIC="false")
    return env


def _run(argv: list[str], threads: int, timeout: float) -> str:
    try:
        r = subprocess.run(argv, capture_output=True, text=True, env=thread_env(threads), timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise MicrobenchError(f"{shlex.join(argv)}: timed out after {timeout:.0f} s") from exc
    if r.returncode != 0:
        raise MicrobenchError(f"{shlex.join(argv)} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


@dataclass(frozen=True)
class BandwidthResult:
    kernel: str
    threads: int
    bytes_per_pass: float
    passes: int
    best_s: float
    avg_s: float
    worst_s: float

    @property
    def bytes_per_s(self) -> float:
        return self.bytes_per_pass / self.best_s if self.best_s > 0 else float("inf")

    @property
    def avg_bytes_per_s(self) -> float:
        return self.bytes_per_pass / self.avg_s if self.avg_s > 0 else float("inf")

    def to_json(self) -> dict:
        return {"bytes_per_s": self.bytes_per_s, "avg_bytes_per_s": self.avg_bytes_per_s,
                "bytes_per_pass": self.bytes_per_pass, "passes_per_rep": self.passes, "best_s": self.best_s,
                "avg_s": self.avg_s, "worst_s": self.worst_s, "threads": self.threads}


def run_membench(b: Build, mode: str, size_bytes: float, kernels: tuple[str, ...], threads: int,
                 min_seconds: float, reps: int, timeout: float = 300) -> dict[str, BandwidthResult]:
    out = _run([str(b.membench), mode, f"{size_bytes:.0f}", f"{min_seconds}", str(reps), ",".join(kernels)],
               threads, timeout)
    results = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 7 and parts[0] in STREAM_KERNELS:
            results[parts[0]] = BandwidthResult(parts[0], int(parts[1]), float(parts[2]), int(parts[3]),
                                                float(parts[4]), float(parts[5]), float(parts[6]))
    missing = [k for k in kernels if k not in results]
    if missing:
        raise MicrobenchError(f"membench printed no result for {', '.join(missing)}:\n{out}")
    return results


@dataclass(frozen=True)
class PeakResult:
    precision: str
    width_bits: int   # 0: scalar
    threads: int
    flop: float
    best_s: float
    avg_s: float
    accumulators: int
    clock_hz: float = 0.0   # the highest clock seen right after its repetitions (0: no probe)

    @property
    def flop_per_s(self) -> float:
        return self.flop / self.best_s if self.best_s > 0 else float("inf")

    def to_json(self) -> dict:
        return {"flop_per_s": self.flop_per_s, "avg_flop_per_s": self.flop / self.avg_s if self.avg_s > 0 else None,
                "flop_per_rep": self.flop, "best_s": self.best_s, "avg_s": self.avg_s, "threads": self.threads,
                "accumulators": self.accumulators, "width_bits": self.width_bits, "clock_hz": self.clock_hz}


def run_peak(b: Build, precision: str, width_bytes: int, threads: int, min_seconds: float, reps: int,
             timeout: float = 300) -> PeakResult:
    binary = b.flops_scalar if width_bytes == 0 else b.flops_simd
    out = _run([str(binary), "peak", precision, str(width_bytes), f"{min_seconds}", str(reps)], threads, timeout)
    for line in out.splitlines():
        p = line.split()
        if len(p) == 9 and p[0] == "peak":
            return PeakResult(p[1], int(p[2]), int(p[3]), float(p[4]), float(p[5]), float(p[6]), int(p[7]),
                              float(p[8]))
    raise MicrobenchError(f"flops printed no result:\n{out}")


def run_frequency(b: Build, min_seconds: float, reps: int, timeout: float = 120) -> tuple[float, float] | None:
    """(best, average) clock in Hz from the dependent-add chain; None where there is no probe."""
    try:
        out = _run([str(b.flops_simd), "freq", f"{min_seconds}", str(reps)], 1, timeout)
    except MicrobenchError:
        return None
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[0] == "freq":
            return float(p[1]), float(p[2])
    return None


def run_hypervisor_probe(b: Build) -> str | None:
    try:
        out = _run([str(b.flops_simd), "hypervisor"], 1, 30)
    except MicrobenchError:
        return None
    for line in out.splitlines():
        p = line.split(maxsplit=1)
        if len(p) == 2 and p[0] == "hypervisor" and p[1].strip() not in ("-", ""):
            vendor = p[1].strip()
            return {"KVMKVMKVM": "KVM", "Microsoft Hv": "Hyper-V", "VMwareVMware": "VMware",
                    "XenVMMXenVMM": "Xen", "TCGTCGTCGTCG": "QEMU (TCG)"}.get(vendor, vendor)
    return None
