"""How long the polyhedral model takes on PolyBench: ``python -m polybench.analysis_timing``.

For each kernel: the time to lift the file, then for its kernel SCoP the time to build the isl
model and compute all dependences (what ``s2s analyze`` does per SCoP), and the total wall time of
``s2s analyze`` over the file. A benchmark, not a test: it prints figures, it asserts nothing.
"""
from __future__ import annotations

import argparse
import time

from polybench.registry import KERNELS, SUITE_ROOT, kernel_source


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", default="", help="comma-separated names (default: all 30)")
    ap.add_argument("--dataset", default="LARGE")
    ns = ap.parse_args(argv)
    from frontends.c import lift_c_file
    from s2s.analysis import compute_dependences, find_scops, loop_info
    from s2s.driver.analyze import analyze_file

    names = [n for n in ns.kernels.split(",") if n] or list(KERNELS)
    total = 0.0
    print(f"{'kernel':<16} {'lift s':>8} {'model+deps s':>13} {'analyze s':>10}  statements")
    for name in names:
        info = KERNELS[name]
        src = kernel_source(info)
        args = [f"-I{SUITE_ROOT / 'utilities'}", f"-I{src.parent}", f"-D{ns.dataset}_DATASET"]
        t0 = time.perf_counter()
        unit, _ = lift_c_file(str(src), args)
        t1 = time.perf_counter()
        kernel = next(f for f in unit.functions if f.name.startswith("kernel_"))
        scops = find_scops(kernel)
        for scop in scops:
            loop_info(scop, compute_dependences(scop))
        t2 = time.perf_counter()
        analyze_file(str(src), args)
        t3 = time.perf_counter()
        total += t3 - t2
        stmts = sum(len(s.statements) for s in scops)
        print(f"{name:<16} {t1 - t0:8.3f} {t2 - t1:13.3f} {t3 - t2:10.3f}  {stmts}")
    print(f"s2s analyze over {len(names)} kernels: {total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
