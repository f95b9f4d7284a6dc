"""GFLOP/s as a share of this machine's peak, and the roofline plot of a bench run.

The peak and the ceilings come from ``s2s machine`` (``s2s.perf``): the cached profile of this host,
or the file given with ``--machine``. ``--roofline`` measures the machine when nothing is cached;
otherwise a bench run never measures it (no profile: no %peak column).

%peak is the cell's GFLOP/s (the matrix products counted as BLAS counts them: 2 per
multiply-add, alpha and beta once per element) over the SIMD peak (fp64, or fp32 for builds with
-DDATA_TYPE_IS_FLOAT) of the threads the configuration runs on: one for sequential builds, all
(``--threads``) for OpenMP ones (-fopenmp, Polly's -polly-parallel). Integer kernels
(floyd-warshall, nussinov) have none.

The roofline places each kernel once per configuration: y = its GFLOP/s (the registry's FLOPs over
the median time), x = FLOPs per byte of all accesses and per byte of distinct footprint, counted on
the kernel's polyhedral model at the run's sizes (``s2s.perf.static_counts``).
"""
from __future__ import annotations

from pathlib import Path

from .bench import BenchResult, Cell
from .configs import Config


def load_machine(path: Path | None = None, measure: bool = False, progress=None):
    """The machine profile (``s2s.perf.machine.MachineProfile``), or None."""
    try:
        from s2s.perf.machine import get_machine, load_profile_file
    except ImportError:
        return None
    try:
        if path is not None:
            return load_profile_file(path)
        return get_machine(measure_if_missing=measure, progress=progress)
    except Exception as exc:  # a machine profile is an extra: never fail a bench run over it
        if progress:
            progress(f"no machine profile: {exc}")
        return None


def parallel(config: Config) -> bool:
    argv = " ".join(config.argv)
    return "-fopenmp" in argv or "-polly-parallel" in argv


def precision(config: Config) -> str:
    return "fp32" if "DATA_TYPE_IS_FLOAT" in " ".join(config.argv) else "fp64"


def peak_meta(machine, threads: int) -> dict | None:
    """What the report needs to compute %peak (kept in the bench JSON as ``machine_peak``)."""
    if machine is None:
        return None
    out = {"source": str(machine.path) if machine.path else None, "date": machine.data.get("date"),
           "quick": machine.data.get("quick"), "threads": threads, "flop_per_s": {}}
    for prec in ("fp64", "fp32"):
        out["flop_per_s"][prec] = {"1": machine.peak(prec, 1), "threads": machine.peak(prec, threads)}
    out["threads_measured"] = machine.data["threads"].get(machine.threads_key(threads), 1)
    return out


def peak_pct(cell: Cell, meta: dict) -> float | None:
    peak = meta.get("machine_peak")
    g = cell.blas_gflops
    if not peak or g is None or cell.point.kernel.integer:
        return None
    key = "threads" if parallel(cell.config) and peak.get("threads", 1) > 1 else "1"
    p = peak["flop_per_s"].get(precision(cell.config), {}).get(key)
    return 100.0 * g * 1e9 / p if p else None


def write_roofline(result: BenchResult, meta: dict, machine, path: Path, progress=None) -> list[Path]:
    from s2s.perf.plot import RoofPoint, write_roofline as draw
    from s2s.perf.roofline import Ceilings
    from s2s.perf.static_counts import static_counts

    suite = result.suite
    points = []
    for p in result.points:
        k = p.kernel
        args = [f"-I{suite.utilities}", f"-I{k.directory}", *p.defines()]
        if progress:
            progress(f"roofline: counting {p.key} on its polyhedral model")
        try:
            counts = static_counts(k.source, args, function=lambda f: f.startswith("kernel_"))
        except Exception as exc:  # a kernel our front end cannot lift stays off the plot
            if progress:
                progress(f"roofline: {p.key}: {exc}")
            continue
        flops = p.flops or counts.flops
        oi_acc = flops / counts.access_bytes if counts.access_bytes else None
        oi_fp = flops / counts.footprint_bytes if counts.footprint_bytes else None
        for cfg in result.active_configs():
            if cfg.verify_only:
                continue
            c = result.cell(p, cfg.name)
            if c is None or c.gflops is None or k.integer:
                continue
            points.append(RoofPoint(p.key, cfg.name, c.gflops * 1e9, oi_acc, oi_fp, p.key,
                                    precision=precision(cfg)))
    threads = result.options.threads if any(parallel(c) for c in result.active_configs()) else 1
    ceilings = Ceilings.from_machine(machine, threads) if machine is not None else None
    o = result.options
    title = f"PolyBench {o.dataset}: {len(result.points)} kernels, {len(result.active_configs())} configurations"
    return draw(points, ceilings, path, title=title)
