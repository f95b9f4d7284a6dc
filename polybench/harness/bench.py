"""The orchestration: for each (kernel, size point) build every configuration, verify it against
the references, then time the verified ones.

Phase 1 (``--jobs`` at a time, one worker per kernel/size point): build the dump binary and the
timed binary of every configuration, run the dump binaries, compare with baseline (and
reference-O0). An external tree's dump binaries are built with the fprintf shim of ``dump_shim``
(full-precision values from sources that print 2 decimals); its timed binaries are not. Phase 2 (one run at a time, nothing else running): the timed binaries, ``repeat``
rounds, configurations interleaved within a round so that drift hits them alike. A kernel that
runs for milliseconds gets more rounds (``short_run_rounds``): its median of five moved by 10-20%
between runs of the same binary here, more than what s2s changed.
"""
from __future__ import annotations

import math
import re
import shutil
import statistics
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from . import build as _build
from . import dump_shim as _dump_shim
from . import run as _run
from . import verify as _verify
from .configs import BuildRequest, Config
from .progress import ProgressReporter
from .suite import Kernel, Suite

REFERENCES = ("baseline", "reference-O0")

STATUS_TEXT = {
    "ok": "ok",
    "mismatch": "MISMATCH",
    "build-failed": "BUILD FAILED",
    "crash": "CRASH",
    "timeout": "TIMEOUT",
    "no-dump": "NO DUMP",
    "no-time": "NO TIME",
    "unverified": "UNVERIFIED",
    "pending": "NOT RUN",
}


@dataclass
class Options:
    dataset: str = "LARGE"
    repeat: int = 5
    # a kernel whose runs are shorter than short_run_s gets further rounds until each of its
    # configurations has short_run_total_s of timed runs, up to short_run_factor x repeat rounds
    short_run_s: float = 0.1
    short_run_total_s: float = 1.0
    short_run_factor: int = 10
    threads: int = 1
    timeout: float = 600.0
    tolerance: float = 1e-6
    jobs: int = 1
    output_dir: Path = Path("results")
    busy: int = 0  # processes spinning alongside (load.py)


@dataclass
class Point:
    """A kernel at one problem size: the dataset's, or with ``--size`` overrides."""

    kernel: Kernel
    dataset: str
    overrides: dict[str, int]
    sizes: dict[str, int]
    # Rounding noise per array (max relative error baseline vs fp-noise) and the widened
    # tolerances that follow from it (only arrays whose tolerance was widened).
    noise: dict[str, float] = field(default_factory=dict)
    noise_tolerances: dict[str, float] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.overrides.items())

    @property
    def key(self) -> str:
        return self.kernel.name + (f"[{self.label}]" if self.label else "")

    @property
    def dirname(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.=-]+", "_", self.kernel.name + ("_" + "_".join(
            f"{k}{v}" for k, v in self.overrides.items()) if self.overrides else ""))

    @property
    def flops(self) -> int | None:
        return self.kernel.flops(self.sizes)

    @property
    def blas_flops(self) -> int | None:
        return self.kernel.blas_flops(self.sizes)

    def defines(self) -> list[str]:
        if self.kernel.standalone:
            return []
        d = [f"-D{self.dataset}_DATASET"]
        if self.overrides:  # PolyBench takes all params of a kernel together or none
            d += [f"-D{p}={self.sizes[p]}" for p in self.kernel.params]
        return d

    def args(self) -> list[str]:
        """The command line of a run: a standalone program's sizes, in the order of its params."""
        return [str(self.sizes[p]) for p in self.kernel.params if p in self.sizes] if self.kernel.standalone else []


@dataclass
class Cell:
    point: Point
    config: Config
    status: str = "pending"
    message: str = ""
    build_timed: _build.BuildResult | None = None
    build_dump: _build.BuildResult | None = None
    comparisons: list[_verify.Comparison] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    speedup: float | None = None
    workdir: Path | None = None
    dump: _verify.Dump | None = field(default=None, repr=False)
    # what the build did to each hot loop nest (hotnests.NestOutcome; the realistic group's
    # builds through s2s-cc), None where not known
    hot: list | None = None

    @property
    def verified(self) -> bool:
        return self.status == "ok"

    @property
    def counts(self) -> bool:
        """Whether the cell counts for the verdict (the fp-noise probe never does)."""
        return self.config.role != "noise"

    @property
    def widened(self) -> bool:
        """Verified only thanks to a noise-widened tolerance (shown as ≈, not ✓)."""
        return self.verified and any(c.widened for c in self.comparisons)

    @property
    def ran(self) -> bool:
        """Whether anything was attempted (unavailable configurations have no cells at all)."""
        return self.status != "pending"

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None

    @property
    def gflops(self) -> float | None:
        return self._rate(self.point.flops)

    @property
    def blas_gflops(self) -> float | None:
        """GFLOP/s on the BLAS count of the matrix products (what %peak compares)."""
        return self._rate(self.point.blas_flops)

    def _rate(self, flops: int | None) -> float | None:
        m = self.median
        return flops / m / 1e9 if flops and m and m > 0 and self.status == "ok" else None

    @property
    def max_rel_err(self) -> float | None:
        return max((c.max_rel_err for c in self.comparisons), default=None)

    @property
    def status_text(self) -> str:
        return STATUS_TEXT.get(self.status, self.status.upper())


@dataclass
class BenchResult:
    options: Options
    suite: Suite
    configs: list[Config]
    points: list[Point]
    cells: list[Cell]
    unknown_kernels: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def active_configs(self) -> list[Config]:
        """The configurations shown (available, and not the fp-noise probe)."""
        return [c for c in self.configs if c.available and c.role != "noise"]

    def cell(self, point: Point, config: str) -> Cell | None:
        for c in self.cells:
            if c.point is point and c.config.name == config:
                return c
        return None

    def failures(self) -> list[Cell]:
        return [c for c in self.cells if c.ran and c.counts and not c.verified]

    def geomeans(self) -> dict[str, tuple[float | None, int]]:
        """Per configuration: geometric mean of the speedups over the points verified (and timed)
        in both it and baseline, and how many points that is."""
        out: dict[str, tuple[float | None, int]] = {}
        for cfg in self.active_configs():
            if cfg.verify_only:
                continue
            sp = [c.speedup for c in self.cells if c.config.name == cfg.name and c.speedup and c.speedup > 0]
            out[cfg.name] = (math.exp(sum(map(math.log, sp)) / len(sp)) if sp else None, len(sp))
        return out

    @property
    def exit_status(self) -> int:
        return 1 if self.failures() or self.unknown_kernels else 0


def make_points(kernels: Sequence[Kernel], dataset: str,
                sweeps: Sequence[tuple[str, list[int]]]) -> tuple[list[Point], list[str]]:
    from .suite import sweep_points

    points: list[Point] = []
    notes: list[str] = []
    untouched = []
    for k in kernels:
        base = k.sizes(dataset)
        overrides_list = sweep_points(k, sweeps)
        if overrides_list != [{}] and (not k.params or any(p not in base for p in k.params)):
            notes.append(f"{k.name}: --size ignored: its parameters or {dataset} sizes are unknown "
                         f"(header not understood)")
            overrides_list = [{}]
        elif sweeps and overrides_list == [{}]:
            untouched.append(k.name)
        for ov in overrides_list:
            points.append(Point(k, dataset, dict(ov), k.sizes(dataset, ov)))
    if untouched:
        swept = ", ".join(n for n, _ in sweeps)
        notes.append(f"--size {swept}: not a parameter of {', '.join(untouched)}; run at {dataset} sizes")
    return points, notes


class Bench:
    def __init__(self, suite: Suite, configs: list[Config], points: list[Point], options: Options,
                 progress: ProgressReporter):
        self.suite = suite
        self.configs = configs
        self.points = points
        self.opt = options
        self.progress = progress
        self.run_env = {"OMP_NUM_THREADS": str(options.threads)}
        self.cells = [Cell(p, c) for p in points for c in configs if c.available]
        self._lock = threading.Lock()
        # An external tree prints 2 decimals and ignores -DPOLYBENCH_DUMP_FULL_PRECISION: its dump
        # binaries are built with the fprintf shim, which re-prints every value with %.17g.
        self.dump_flags: tuple[str, ...] = ()
        if getattr(suite, "external", False):
            self.dump_flags = _dump_shim.shim_flags(options.output_dir / "build")

    # -- phase 1 ---------------------------------------------------------------------------------

    def _request(self, cell: Cell, kind: str) -> BuildRequest:
        extra = ["-DPOLYBENCH_TIME"] if kind == "timed" else ["-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_DUMP_FULL_PRECISION"]
        k = cell.point.kernel
        return BuildRequest(kernel_name=k.name, kernel_source=k.source, kernel_dir=k.directory,
                            utilities=self.suite.utilities, defines=tuple(cell.point.defines() + extra),
                            output=cell.workdir / kind, workdir=cell.workdir,
                            flags=self.dump_flags if kind == "dump" else ())

    def _build_cell(self, cell: Cell) -> None:
        cell.workdir = self.opt.output_dir / "build" / cell.point.dirname / cell.config.name
        if cell.workdir.exists():
            shutil.rmtree(cell.workdir)
        cell.workdir.mkdir(parents=True)
        self.progress.now("build+verify", f"{cell.point.key} {cell.config.name}: build")
        cell.build_dump = _build.build(cell.config, self._request(cell, "dump"), self.opt.timeout,
                                       cell.workdir / "build-dump.log")
        if not cell.build_dump.ok:
            cell.status, cell.message = "build-failed", cell.build_dump.message
            return
        if not cell.config.verify_only:
            cell.build_timed = _build.build(cell.config, self._request(cell, "timed"), self.opt.timeout,
                                            cell.workdir / "build-timed.log")
            if not cell.build_timed.ok:
                cell.status, cell.message = "build-failed", cell.build_timed.message

    def _dump_cell(self, cell: Cell) -> None:
        self.progress.now("build+verify", f"{cell.point.key} {cell.config.name}: dump")
        out = cell.workdir / "dump.txt"
        r = _run.run_binary(cell.workdir / "dump", self.opt.timeout, self.run_env, stderr_to=out,
                            args=cell.point.args())
        if r.status != "ok":
            cell.status, cell.message = r.status, f"verification run: {r.message}"
            return
        try:
            cell.dump = _verify.read_dump(out, integer=cell.point.kernel.integer,
                                          detect_decimals=self.suite.external)
        except _verify.DumpError as e:
            cell.status, cell.message = "no-dump", str(e)

    def build_and_verify(self, group: list[Cell]) -> None:
        for cell in group:
            self._build_cell(cell)
        for cell in group:
            if cell.status == "pending":
                self._dump_cell(cell)
        refs = [c for c in group if c.config.name in REFERENCES and c.dump is not None]
        point = group[0].point
        integer = point.kernel.integer
        base = next((c for c in group if c.config.name == "baseline" and c.dump is not None), None)
        probe = next((c for c in group if c.config.role == "noise"), None)
        if base is not None and probe is not None and probe.dump is not None and not integer \
                and _verify.quantum_of(base.dump, probe.dump) is None:
            point.noise_tolerances = _verify.noise_tolerances(base.dump, probe.dump, self.opt.tolerance)
            info = _verify.compare(base.dump, probe.dump, self.opt.tolerance, reference="baseline")
            point.noise = dict(info.per_array)
        for cell in group:
            if cell.status != "pending":
                pass
            elif cell.config.role == "noise":
                if base is not None:
                    cell.comparisons.append(_verify.compare(
                        base.dump, cell.dump, self.opt.tolerance, integer=integer,
                        quantum=_verify.quantum_of(base.dump, cell.dump), reference="baseline"))
                cell.status = "ok"  # a probe: its differences are the measurement, not a failure
            else:
                others = [r for r in refs if r is not cell]
                if not others and cell.config.name != "baseline":
                    cell.status = "unverified"
                    cell.message = "nothing to verify against: the baseline produced no dump"
                else:
                    for ref in others:
                        cell.comparisons.append(_verify.compare(
                            ref.dump, cell.dump, self.opt.tolerance, integer=integer,
                            quantum=_verify.quantum_of(ref.dump, cell.dump), reference=ref.config.name,
                            tolerances=point.noise_tolerances))
                    bad = [c for c in cell.comparisons if not c.ok]
                    if bad:
                        cell.status = "mismatch"
                        cell.message = "; ".join(f"vs {c.reference}: {c.message}" for c in bad)
                    else:
                        cell.status = "ok"
            mark = ("≈" if cell.widened else "✓") if cell.status == "ok" else f"✗ {cell.status_text}: {cell.message}"
            self.progress.advance("build+verify", f"{cell.point.key} {cell.config.name} {mark}",
                                  line=cell.status != "ok" and cell.counts)
        keep = any(c.status != "ok" for c in group)
        for cell in group:
            cell.dump = None  # free the memory
            if not keep and cell.workdir is not None:
                (cell.workdir / "dump.txt").unlink(missing_ok=True)

    # -- phase 2 ---------------------------------------------------------------------------------

    def short_run_rounds(self, cells: list[Cell]) -> int:
        """How many rounds in all cells that have run ``repeat`` rounds get (see ``Options``)."""
        o = self.opt
        medians = [statistics.median(c.times) for c in cells if c.status == "ok" and c.times]
        if not medians or max(medians) >= o.short_run_s:
            return o.repeat
        wanted = math.ceil(o.short_run_total_s / max(max(medians), 1e-6))
        return min(o.short_run_factor * o.repeat, max(o.repeat, wanted))

    def time_group(self, group: list[Cell]) -> None:
        timed = [c for c in group if c.status == "ok" and not c.config.verify_only]
        rounds = self.opt.repeat
        rnd = 0
        while rnd < rounds:
            self.time_round(timed, rnd, rounds)
            rnd += 1
            if rnd == self.opt.repeat:
                rounds = self.short_run_rounds(timed)
                self.progress.extend("timing", (rounds - rnd) * sum(c.status == "ok" for c in timed))
        for cell in timed:
            if cell.status == "ok" and cell.times:
                runs = f" ({len(cell.times)} runs)" if len(cell.times) != self.opt.repeat else ""
                self.progress.advance("timing", f"{cell.point.key} {cell.config.name} median "
                                      f"{statistics.median(cell.times):.6f} s{runs}", n=0, line=True)
        base = next((c for c in group if c.config.name == "baseline"), None)
        for cell in group:
            if base and base.status == "ok" and cell.status == "ok" and not cell.config.verify_only:
                bm, cm = base.median, cell.median
                if bm and cm and bm > 0 and cm > 0:
                    cell.speedup = bm / cm

    def time_round(self, timed: list[Cell], rnd: int, rounds: int) -> None:
        for cell in timed:
            if cell.status != "ok":
                continue
            self.progress.now("timing", f"{cell.point.key} {cell.config.name} run {rnd + 1}/{rounds}")
            r = _run.run_binary(cell.workdir / "timed", self.opt.timeout, self.run_env, want_time=True,
                                args=cell.point.args())
            if r.status != "ok":
                cell.status, cell.message = r.status, f"timed run {rnd + 1}: {r.message}"
                self.progress.advance("timing", f"{cell.point.key} {cell.config.name} ✗ {cell.status_text}: "
                                      f"{cell.message}", n=rounds - rnd, line=True)
                continue
            cell.times.append(r.seconds)
            self.progress.advance("timing")

    def run(self) -> list[Cell]:
        groups = [[c for c in self.cells if c.point is p] for p in self.points]
        groups = [g for g in groups if g]
        self.progress.add_phase("build+verify", len(self.cells))
        pool = ThreadPoolExecutor(max_workers=max(1, self.opt.jobs))
        try:
            for f in [pool.submit(self.build_and_verify, g) for g in groups]:
                f.result()
        except BaseException:  # Ctrl-C: drop the queued groups, let the running ones end
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        n_timed = sum(1 for c in self.cells if c.status == "ok" and not c.config.verify_only)
        self.progress.add_phase("timing", n_timed * self.opt.repeat)
        for g in groups:
            self.time_group(g)
        return self.cells
