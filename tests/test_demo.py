"""``s2s demo``: the built-in example builds three ways with the same output, and the per-kernel
lines under the PolyBench table come from the logs of the timed builds."""
from __future__ import annotations

import json
from pathlib import Path

from s2s import demo


def test_example_part_of_the_demo(capsys):
    assert demo.run_demo(bench=False) == 0
    out = capsys.readouterr().out
    assert "identical." in out
    assert "S2S_MODE=pluto s2s-cc -O2 -fopenmp -c example.c" in out
    assert "matmul: SCoP at L2 optimized" in out  # the optimizer did something to see


def _cell(tmp: Path, kernel: str, config: str, log: str | None, env: dict) -> dict:
    path = None
    if log is not None:
        path = tmp / f"{kernel}-{config}.log"
        path.write_text(log)
    return {"kernel": kernel, "config": config,
            "build": {"timed": {"log": str(path) if path else None, "env": env}, "dump": None}}


def test_kernel_reports_read_the_timed_builds_logs(tmp_path):
    omp = {"S2S_MODE": "pluto", "S2S_TARGET": "openmp"}
    seq = {"S2S_MODE": "pluto", "S2S_TARGET": "c"}
    results = [
        _cell(tmp_path, "jacobi-2d", "baseline", "$ cc ...\n", {}),
        _cell(tmp_path, "jacobi-2d", "s2s-omp", (
            "$ s2s-cc ...\n"
            "s2s-cc: report: /s/utilities/polybench.c:88: polybench_flush_cache: SCoP at L0 left as is (x)\n"
            "s2s-cc: report: /s/stencils/jacobi-2d/jacobi-2d.c:30: init_array: SCoP at L1 optimized (y)\n"
            "s2s-cc: report: /s/stencils/jacobi-2d/jacobi-2d.c:61: kernel_jacobi_2d: SCoP at L4 optimized "
            "(2 statements, 0.01 s)\n"), omp),
        _cell(tmp_path, "jacobi-2d", "s2s-seq", (
            "s2s-cc: report: /s/stencils/jacobi-2d/jacobi-2d.c:61: kernel_jacobi_2d: SCoP at L4 optimized "
            "(2 statements, 0.02 s)\n"), seq),
        _cell(tmp_path, "gemm", "s2s-omp", (
            "s2s-cc: note: /s/blas/gemm/gemm.c: optimization skipped (timeout); compiled unchanged\n"), omp),
        _cell(tmp_path, "gemm", "s2s-seq", None, seq),
    ]
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"results": results}))
    reports = {(r.kernel, r.config): r for r in demo.kernel_reports(path)}
    assert set(reports) == {("jacobi-2d", "s2s-omp"), ("jacobi-2d", "s2s-seq"), ("gemm", "s2s-omp")}
    assert reports["jacobi-2d", "s2s-omp"].lines == ("SCoP at L4 optimized (2 statements, 0.01 s)",)
    assert reports["gemm", "s2s-omp"].lines == (
        "fell back: gemm.c: optimization skipped (timeout); compiled unchanged",)
    everything = list(reports.values())
    assert not demo._differs(reports["jacobi-2d", "s2s-seq"], everything)  # only the time differs
