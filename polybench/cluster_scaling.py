"""How the autotuner's evaluations per hour scale with the workers of a Dask cluster:
``python -m polybench.cluster_scaling``.

For each size a local Dask cluster of that many worker processes (one thread each) is started on
this machine, one PolyBench kernel is tuned on it with the same budget (``s2s tune --cluster``'s
path: ``tuner.autotune(..., cluster=...)``), and the cluster closed. The rate is the evaluations
over the search's own time (``TuneResult.search_seconds``: not the default's runs on each machine
nor the confirmation, which every size pays once). On one machine the workers share its cores:
past as many workers as cores they mostly wait for each other, and their timings disturb each
other more (each worker runs its candidate while the others build or run theirs).

    python -m polybench.cluster_scaling --workers 1 2 4 --budget 12 --polybench gemm [--dataset SMALL]

s2s-cc's cache of optimized files is off for these runs, so that no size rebuilds faster from
what an earlier one left there.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from s2s.tuning.tuner import autotune, polybench_program


@dataclass(frozen=True)
class Row:
    workers: int
    evaluations: int
    search_seconds: float
    wall_seconds: float
    speedup: float      # the tuned recipes' over the rules', confirmed: that the search did its work

    @property
    def per_hour(self) -> float:
        return 3600 * self.evaluations / self.search_seconds if self.search_seconds > 0 else 0.0


def measured(kernel: str, dataset: str, workers: int, budget: int, repeat: int, search: str, seed: int) -> Row:
    """One tuning of ``kernel`` on a fresh local cluster of ``workers`` processes."""
    from distributed import LocalCluster

    program = polybench_program(kernel, dataset)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            tempfile.TemporaryDirectory(prefix="s2s-scaling-") as work:
        result = autotune(program, budget, repeat, seed=seed, workdir=Path(work), search=search,
                          cluster=cluster.scheduler_address)
    return Row(workers, len(result.evaluations), result.search_seconds, result.wall_seconds, result.speedup)


def table(rows: list[Row]) -> str:
    """A Markdown table, each size's rate also over the first size's."""
    first = rows[0].per_hour or 1.0
    lines = ["| workers | evaluations | search (s) | whole run (s) | evaluations per hour | over the first "
             "| speedup found |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.workers} | {r.evaluations} | {r.search_seconds:.1f} | {r.wall_seconds:.1f} | "
                     f"{r.per_hour:.0f} | {r.per_hour / first:.2f}x | {r.speedup:.2f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m polybench.cluster_scaling", description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4], help="cluster sizes (default 1 2 4)")
    p.add_argument("--budget", type=int, default=12, help="evaluations per tuning (default 12)")
    p.add_argument("--polybench", metavar="KERNEL", default="gemm", help="the kernel (default gemm)")
    p.add_argument("--dataset", default="SMALL", type=str.upper, choices=("SMALL", "MEDIUM"),
                   help="its size (default SMALL)")
    p.add_argument("--repeat", type=int, default=3, help="runs per evaluation (default 3)")
    p.add_argument("--search", choices=("tpe", "local"), default="tpe", help="(default tpe)")
    p.add_argument("--seed", type=int, default=0)
    ns = p.parse_args(argv)
    if importlib.util.find_spec("distributed") is None:
        print("cluster_scaling: needs Dask: pip install 's2s[cluster]'", file=sys.stderr)
        return 2
    os.environ["S2S_CACHE"] = "off"     # (the cluster's workers inherit it)
    rows = []
    for workers in ns.workers:
        rows.append(measured(ns.polybench, ns.dataset, workers, ns.budget, ns.repeat, ns.search, ns.seed))
        r = rows[-1]
        print(f"cluster_scaling: {workers} worker{'s' * (workers != 1)}: {r.evaluations} evaluations in "
              f"{r.search_seconds:.1f} s of search: {r.per_hour:.0f} an hour", file=sys.stderr, flush=True)
    print(f"{ns.polybench} ({ns.dataset}), budget {ns.budget}, --repeat {ns.repeat}, search {ns.search}, "
          f"{os.cpu_count()} CPUs\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
