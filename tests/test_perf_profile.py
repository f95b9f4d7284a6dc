"""`s2s profile`: exact FLOP, byte and footprint counts on kernels whose counts are known by formula,
before and after `--optimized`; loop nests that are not SCoPs; the user's text kept; JSON, CSV and
plot outputs; `s2s bench --roofline` and its %peak. Timings are never asserted, only that they exist.
"""
from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from c_build import without_settings

from polybench import registry
from s2s.perf import machine as M
from s2s.perf.instrument import PRELUDE, find_regions, timing_source
from s2s.perf.plot import profile_points, write_roofline
from s2s.perf.profile import ProfileOptions, pairs, parse_runtime_output, run_profile
from s2s.perf.report import CSV_FIELDS, to_json, write_csv, write_json
from s2s.perf.roofline import Ceilings, classify

S2S = Path(sys.executable).with_name("s2s")
UTIL = registry.SUITE_ROOT / "utilities"


def fake_machine_data() -> dict:
    """A machine profile with round ceilings (no measurement)."""
    from s2s.perf.topology import read_topology

    topo = read_topology()
    roofs = {"fp64": 100e9, "fp64_scalar": 10e9, "fp32": 200e9, "fp32_scalar": 10e9,
             "L1": 400e9, "L2": 200e9, "L3": 100e9, "DRAM": 20e9}
    caches = {lv: {"capacity_bytes": {"1": cap}, "working_set_bytes": {"1": cap // 2}}
              for lv, cap in (("L1", 32 << 10), ("L2", 1 << 20), ("L3", 32 << 20))}
    return {"schema": M.SCHEMA, "host": "test", "date": "today", "quick": True, "topology": topo.to_json(),
            "threads": {"1": 1}, "roofs": {"1": roofs}, "cache_bandwidth": caches, "peak": {}, "stream": {},
            "problems": [], "notes": []}


@pytest.fixture()
def machine(tmp_path) -> M.MachineProfile:
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(fake_machine_data()))
    return M.load_profile_file(path)


def polybench_options(name: str, *defines: str, optimized: bool = False, **kw) -> ProfileOptions:
    info = registry.KERNELS[name]
    src = registry.kernel_source(info)
    return ProfileOptions(source=src, cpp_args=[f"-I{UTIL}", f"-I{src.parent}", "-DMINI_DATASET", *defines],
                          extra_sources=[UTIL / "polybench.c"], optimized=optimized, repeat=kw.pop("repeat", 1),
                          hw_counters=kw.pop("hw_counters", "off"), **kw)


def kernel_nests(result, variant="original"):
    return [n for n in result.variant(variant).nests if n.function.startswith("kernel_")]


def assert_ran(n):
    assert n.calls == 1 and n.time_s is not None and n.time_s >= 0 and n.times_s


# --- exact counts -------------------------------------------------------------------------------------

def test_gemm_counts_are_exact(machine):
    s = registry.KERNELS["gemm"].datasets["MINI"]
    ni, nj, nk = s["NI"], s["NJ"], s["NK"]
    res = run_profile(polybench_options("gemm"), machine)
    (n,) = kernel_nests(res)
    assert_ran(n)
    assert n.flops == registry.KERNELS["gemm"].flop_count(s) == ni * nj + 3 * ni * nj * nk
    assert (n.f64, n.f32, n.iops) == (n.flops, 0, 0)
    assert n.instances == ni * nj + ni * nj * nk
    assert n.access_bytes == 8 * (2 * ni * nj + 4 * ni * nj * nk)        # C load+store; C, A, B loads + C store
    assert n.footprint_bytes == 8 * (ni * nj + ni * nk + nk * nj)
    assert n.footprint_arrays == {"C": ni * nj, "A": ni * nk, "B": nk * nj}
    assert n.scop and n.exact and n.isl_check.startswith("counters agree")
    assert n.oi_access == pytest.approx(n.flops / n.access_bytes)
    assert n.verdict["bound"] in ("compute", "L1", "L2", "L3", "DRAM") and n.verdict["pct_of_ceiling"] > 0
    assert n.verdict["home_level"] == "L1"           # 14.8 KB fit the fake 32 KiB L1


def test_jacobi_2d_counts_at_run_time_parameters(machine):
    """Loop bounds are the run-time scalars (the default, as in PolyBench 4.2.1): their values are recorded."""
    s = registry.KERNELS["jacobi-2d"].datasets["MINI"]
    t, n_ = s["TSTEPS"], s["N"]
    res = run_profile(polybench_options("jacobi-2d"), machine)
    (n,) = kernel_nests(res)
    assert_ran(n)
    assert n.params == [{"count": 1, "values": {"n": n_, "tsteps": t}}]
    assert n.flops == registry.KERNELS["jacobi-2d"].flop_count(s) == 10 * t * (n_ - 2) ** 2
    assert n.instances == 2 * t * (n_ - 2) ** 2
    assert n.access_bytes == 8 * 2 * 6 * t * (n_ - 2) ** 2                # 5 loads + 1 store, 2 statements
    assert n.footprint_bytes == 8 * 2 * (n_ * n_ - 4)                     # A and B but their 4 corners
    assert n.exact and n.isl_check.startswith("counters agree")


def test_atax_counts_before_and_after_optimization(machine):
    s = registry.KERNELS["atax"].datasets["MINI"]
    m, n_ = s["M"], s["N"]
    res = run_profile(polybench_options("atax", optimized=True, mode="isl"), machine)
    init, main = kernel_nests(res)
    for x in (init, main):
        assert_ran(x)
    assert (init.flops, init.access_bytes, init.footprint_bytes) == (0, 8 * n_, 8 * n_)   # y[i] = 0
    assert main.flops == registry.KERNELS["atax"].flop_count(s) == 4 * m * n_
    assert main.access_bytes == 8 * (m + 8 * m * n_)
    assert main.footprint_bytes == 8 * (m * n_ + 2 * n_ + m)
    # the optimizer rebuilt both nests as one region: same work, counted again on its own code
    (after,) = kernel_nests(res, "optimized")
    assert after.regenerated and set(after.covers) == set(init.covers + main.covers)
    assert_ran(after)
    assert after.flops == init.flops + main.flops and after.access_bytes == init.access_bytes + main.access_bytes
    assert after.footprint_bytes == main.footprint_bytes     # y's footprint is part of the main nest's
    (pair,) = [p for p in pairs(res) if p.after is after]
    assert [b.line for b in pair.before] == [init.line, main.line] and pair.speedup > 0
    assert not any("changed the computation" in x for x in res.notes)


def test_pluto_schedule_counts_the_same_work(machine):
    """The scheduled code runs statements as several copies (split and tiled loops) behind a run-time
    alias check whose other branch is the original code: together the copies do exactly the
    original's work, and the check's address arithmetic is not counted as FLOPs or loads."""
    s = registry.KERNELS["gemm"].datasets["MINI"]
    res = run_profile(polybench_options("gemm", optimized=True, mode="pluto"), machine)
    assert [v.name for v in res.variants] == ["original", "optimized"], res.notes
    (before,) = kernel_nests(res)
    (after,) = kernel_nests(res, "optimized")
    assert after.regenerated and after.variant == "optimized"
    assert after.flops == before.flops == registry.KERNELS["gemm"].flop_count(s)
    assert after.access_bytes == before.access_bytes and after.footprint_bytes == before.footprint_bytes
    assert after.exact and after.isl_check.startswith("counters agree"), after.isl_check
    # init_array's three nests, fused: one region whose statements agree with the model as a whole
    init = [n for n in res.variant("optimized").nests if n.function == "init_array"]
    assert all(n.isl_check is None or n.isl_check.startswith("counters agree") for n in init)
    assert sum(n.flops or 0 for n in init) == sum(
        n.flops or 0 for n in res.variant("original").nests if n.function == "init_array")
    assert not any("changed the computation" in x for x in res.notes), res.notes


def test_a_test_on_the_work_is_not_work(machine, monkeypatch):
    """trmm's sizes are parameters: its optimized code runs behind a run-time test on its work,
    computed in double, which is s2s's and no FLOP of the program."""
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=100")
    res = run_profile(polybench_options("trmm", optimized=True, mode="pluto"), machine)
    (before,) = kernel_nests(res)
    (after,) = kernel_nests(res, "optimized")
    assert after.regenerated and after.flops == before.flops, (after.flops, before.flops)
    assert not any("changed the computation" in x for x in res.notes), res.notes


def test_addresses_are_not_data(tmp_path):
    """``&A[i]`` (what the alias checks compare) loads nothing and its arithmetic is no FLOP; only
    what its subscripts read counts."""
    from frontends.c import lift_c_file
    from s2s.ir import Access, Binary, Cast, Const, Sym, Unary
    from s2s.perf.opcount import TypeEnv, control_cost

    src = tmp_path / "f.c"
    src.write_text("void f(int n, double A[n], double B[n], int idx[n])\n"
                   "{\n  for (int i = 0; i < n; i++)\n    A[i] = B[idx[i]];\n}\n")
    unit, _ = lift_c_file(str(src), [])
    env = TypeEnv(unit.function("f"))

    def address(name, index, past=False):
        e = Unary("&", Access(name, (index,)))
        return Cast("unsigned long", Binary("+", e, Const("1")) if past else e)

    last = Binary("-", Sym("n"), Const("1"))
    check = Binary("||", Binary("<=", address("A", last, past=True), address("B", Const("0"))),
                   Binary("<=", address("B", last, past=True), address("A", Const("0"))))
    cost = control_cost(check, env)
    assert cost.ops.is_zero and cost.bytes == 0 and cost.reads == ()
    gathered = control_cost(Binary("<", address("B", Access("idx", (Sym("n"),))), address("A", Const("0"))), env)
    assert gathered.ops.is_zero and [a for a, _ in gathered.reads] == ["idx"] and gathered.bytes == 4


def test_loop_nests_that_are_not_scops_get_time_and_exact_counters(tmp_path, machine):
    src = tmp_path / "irregular.c"
    src.write_text("""\
#include <stdio.h>
#define N 1000
double a[N], b[N];
int idx[N];

int main(void)
{
  for (int i = 0; i < N; i++) {
    a[i] = i * 0.5;
    idx[i] = (i * 7) % N;
  }
  double s = 0;
  for (int i = 0; i < N; i++)
    if (a[idx[i]] > 100.0)
      s += a[idx[i]] * 2.0;
    else
      b[i] = a[i] + 1.0;
  int k = 0;
  while (k < N && a[k] < 400.0)
    k++;
  printf("%g %d %g\\n", s, k, b[3]);
  return 0;
}
""")
    res = run_profile(ProfileOptions(source=src, repeat=1, hw_counters="off", optimized=True), machine)
    init, branchy, search = res.variant("original").nests
    for n in (init, branchy, search):
        assert_ran(n)
    assert init.scop and init.flops == 1000 and init.access_bytes == 1000 * (8 + 4)
    assert init.footprint_bytes == 1000 * (8 + 4)
    # idx is a permutation; a[idx[i]] > 100 for the 799 i with idx[i] > 200: the condition (1 compare,
    # loads of idx[i] and a[idx[i]]) every time, then 2 FLOPs and the same loads, or 1 FLOP, a load, a store
    assert not branchy.scop and branchy.footprint_bytes is None and branchy.exact
    assert branchy.flops == 1000 + 799 * 2 + 201 * 1
    assert branchy.access_bytes == 1000 * 12 + 799 * 12 + 201 * 16
    # the while condition is evaluated 801 times (k = 0..800), its data compare and load counted
    assert not search.scop and search.exact
    assert search.flops == 801 and search.access_bytes == 801 * 8 and search.instances == 800
    assert any("no polyhedral model" in x for x in search.notes)
    # identity code for the nests the optimizer leaves alone: the same counts
    after = {n.line: n for n in res.variant("optimized").nests}
    assert after[branchy.line].flops == branchy.flops and after[search.line].access_bytes == search.access_bytes


def test_timing_build_keeps_the_users_text():
    """Only the timer calls are added: take them out and the user's file comes back."""
    from frontends.c import lift_c_file

    info = registry.KERNELS["gemm"]
    src = registry.kernel_source(info)
    text = src.read_text()
    unit, _ = lift_c_file(str(src), [f"-I{UTIL}", f"-I{src.parent}", "-DMINI_DATASET"], text=text)
    regions = find_regions(unit, text)
    out = timing_source(text, str(src), regions)
    assert out.startswith(PRELUDE.format(kind="timing", path=str(src)))
    body = out[len(PRELUDE.format(kind="timing", path=str(src))):]
    body = re.sub(r"\{ int __s2s_d(\d+) = __s2s_prof_enter\(\1\); ", "", body)
    body = re.sub(r" __s2s_prof_exit\((\d+), __s2s_d\1\); \}", "", body)
    body = re.sub(r"^#line \d+ \"[^\"]*\"\n", "", body, flags=re.M)
    assert [ln.rstrip() for ln in body.splitlines()] == [ln.rstrip() for ln in text.splitlines()]
    timed = out[len(PRELUDE.format(kind="timing", path=str(src))):]
    assert len(regions) == timed.count("__s2s_prof_enter(") == timed.count("__s2s_prof_exit(") == 5


def test_an_optimizer_failure_is_contained(machine, monkeypatch):
    import s2s.transforms

    def broken(*args, **kwargs):
        raise RuntimeError("scheduler bug")

    monkeypatch.setattr(s2s.transforms, "regenerate_scops", broken)
    res = run_profile(polybench_options("atax", optimized=True), machine)
    assert [v.name for v in res.variants] == ["original"]
    assert any("failed on this file" in n and "scheduler bug" in n for n in res.notes)
    assert kernel_nests(res)[1].flops == 4 * 38 * 42


def test_loops_bound_to_a_pragma_keep_it(tmp_path, machine):
    """`#pragma omp parallel for` (continued, a blank line before its loop) must still precede the
    loop in both builds: the wrapper opens before the pragma."""
    src = tmp_path / "omp.c"
    src.write_text("""\
#include <stdio.h>
#define N 300
static double a[N][N], x[N], y[N];

int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      x[j] = 1.0 / (i + j + 1);
      a[i][j] = x[j];
    }
  #pragma omp parallel for \\
      schedule(static)

  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j < N; j++)
      s += a[i][j] * x[j];
    y[i] = s;
  }
  printf("%g\\n", y[7]);
  return 0;
}
""")
    res = run_profile(ProfileOptions(source=src, cflags=["-O2", "-fopenmp"], threads=1, repeat=1, hw_counters="off",
                                     keep=tmp_path / "keep"), machine)
    init, matvec = res.variant("original").nests
    assert_ran(matvec)
    assert matvec.flops == 2 * 300 * 300 and matvec.access_bytes == 8 * (2 * 300 * 300 + 300)
    assert init.flops == 300 * 300 and init.exact   # i + j + 1 is index arithmetic: the division only
    for build in ("timing", "counting"):
        text = (tmp_path / "keep" / "original" / f"omp.s2s-{build}.c").read_text()
        lines = [ln.strip() for ln in text.splitlines()]
        k = lines.index("schedule(static)")
        assert lines[k - 1].startswith("#pragma omp parallel for")
        assert lines[k + 1].startswith("#line") and lines[k + 2].startswith("for (")


# --- outputs -------------------------------------------------------------------------------------------

def test_json_csv_and_plot(tmp_path, machine):
    res = run_profile(polybench_options("gemm", optimized=True, repeat=2, hw_counters="auto"), machine)
    data = to_json(res)
    assert data["schema"] == "s2s-profile/1" and data["repeat"] == 2 and data["ceilings"]["threads"] == 1
    assert [v["name"] for v in data["variants"]] == ["original", "optimized"]
    assert data["variants"][1]["mode"] == "pluto"
    assert data["optimizer"] == {"mode": "pluto", "target": "c", "fusion": "smart", "tile_sizes": "cache model"}
    for v in data["variants"]:
        assert v["hw_counters"]["requested"] == "auto"
        assert v["hw_counters"]["available"] or v["hw_counters"]["why"]
        for n in v["nests"]:
            for key in ("label", "function", "line", "calls", "time_s", "flops", "flops_fp64", "access_bytes",
                        "footprint_bytes", "oi_access", "oi_footprint", "gflops", "bandwidth_access_bytes_per_s",
                        "bound", "pct_of_ceiling", "home_level", "exact", "scop", "notes", "statements"):
                assert key in n, key
            if n["calls"] and n["function"] == "kernel_gemm":
                assert len(n["times_s"]) == 2 and n["gflops"] > 0 and n["bound"]
    assert data["pairs"] and all(p["speedup"] for p in data["pairs"] if p["after_time_s"])
    write_json(res, tmp_path / "p.json")
    assert json.loads((tmp_path / "p.json").read_text())["schema"] == "s2s-profile/1"
    write_csv(res, tmp_path / "p.csv")
    with open(tmp_path / "p.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == CSV_FIELDS
    assert len(rows) == sum(len(v.nests) for v in res.variants)
    gemm = [r for r in rows if r["function"] == "kernel_gemm"]
    assert {r["variant"] for r in gemm} == {"original", "optimized"}
    assert all(int(r["flops"]) == registry.KERNELS["gemm"].flop_count(registry.KERNELS["gemm"].datasets["MINI"])
               for r in gemm)
    written = write_roofline(profile_points(res), res.ceilings, tmp_path / "roof.png", title="gemm")
    assert [p.name for p in written] == ["roof.png", "roof.svg"]
    assert written[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and written[0].stat().st_size > 10_000
    assert "<svg" in written[1].read_text()[:2000] and written[1].stat().st_size > 10_000


def test_cli_profile(tmp_path, machine):
    env = without_settings()
    r = subprocess.run([str(S2S), "profile", "--polybench", "atax", "--dataset", "MINI", "--repeat", "1",
                        "--machine", str(machine.path), "--hw-counters", "off", "--json", "-",
                        "--plot", str(tmp_path / "r.svg"), "--optimized"],
                       capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    labels = [n["label"] for n in data["variants"][0]["nests"]]
    assert "kernel_atax:61" in labels and "kernel_atax:63" in labels
    assert "loop nest" in r.stderr and "GFLOP/s" in r.stderr          # the table went to stderr
    assert (tmp_path / "r.svg").stat().st_size > 0 and (tmp_path / "r.png").stat().st_size > 0
    r = subprocess.run([str(S2S), "profile", str(tmp_path / "missing.c"), "--no-machine"], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode == 1 and "no such file" in r.stderr
    # everything after -- is the program's; a size read from argv reaches the model as a parameter value
    (tmp_path / "axpy.c").write_text("""\
#include <stdio.h>
#include <stdlib.h>
static void axpy(int n, double a, double *x, double *y)
{
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
int main(int argc, char **argv)
{
  int n = atoi(argv[1]), reps = atoi(argv[2]);
  double *x = calloc(n, sizeof *x), *y = calloc(n, sizeof *y);
  for (int r = 0; r < reps; r++)
    axpy(n, 0.5, x, y);
  printf("%g\\n", y[0]);
  return 0;
}
""")
    r = subprocess.run([str(S2S), "profile", "axpy.c", "--machine", str(machine.path), "--repeat", "1",
                        "--hw-counters", "off", "--json", "out.json", "--", "5000", "3"],
                       capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (axpy,) = [n for n in json.loads((tmp_path / "out.json").read_text())["variants"][0]["nests"]
               if n["function"] == "axpy"]
    assert axpy["calls"] == 3 and axpy["params"] == [{"count": 3, "values": {"n": 5000}}]
    assert axpy["flops"] == 3 * 2 * 5000 and axpy["footprint_bytes"] == 3 * 2 * 8 * 5000


# --- pieces --------------------------------------------------------------------------------------------

def test_runtime_output_parser():
    data = parse_runtime_output("s2s-prof 1\ntimer_cost_s 2.5e-08\nhw 0 perf_event_open: No such file\n"
                                "region 0 3 0.5 0.75 1 3\nparams 0 2 10 20\nparams 0 1 11 20\n"
                                "region 1 0 0 0 0 0\nparams_overflow 1\ncount 4 1000\nbytes 0 4096\n")
    assert data["timer_cost_s"] == 2.5e-08 and data["hw"] == {"on": False, "why": "perf_event_open: No such file"}
    r0 = data["regions"][0]
    assert (r0["calls"], r0["self_s"], r0["incl_s"], r0["unbalanced"]) == (3, 0.5, 0.75, 1)
    assert r0["params"] == [(2, [10, 20]), (1, [11, 20])] and data["regions"][1]["overflow"]
    assert data["counts"] == {4: 1000} and data["bytes"] == {0: 4096}


def test_roofline_bounds():
    c = Ceilings(1, {"fp64": 100e9}, {"L1": 400e9, "L2": 200e9, "DRAM": 20e9},
                 {"L1": 32e3, "L2": 1e6, "DRAM": float("inf")})
    # 1 GFLOP, 1 GB of accesses on 1 KB of data: compute-bound (10 ms > 2.5 ms through L1); 1 s is 1 %
    v = classify(1e9, 0, 1e9, 1e3, 1e3, 1.0, c)
    assert v.bound == "compute" and v.home == "L1" and v.pct == pytest.approx(1.0)
    # a stream over 1 GB of data: DRAM-bound (its footprint lives nowhere else)
    v = classify(1e8, 0, 2e9, 1e9, 1e9, 0.1, c)
    assert v.bound == "DRAM" and v.home == "DRAM" and v.pct == pytest.approx(100 * (1e9 / 20e9) / 0.1)
    # 100 KB reused 1000 times from L2, but every access through L1 first: L1-bound
    v = classify(1e6, 0, 8e9, 1e8, 1e5, 0.1, c)
    assert v.home == "L2" and v.bound == "L1"
    assert classify(0, 0, 0, None, None, 1.0, c).bound is None


def test_bench_peak_and_roofline(tmp_path, machine, capsys):
    from polybench.harness.cli import main

    rc = main(["--dataset", "MINI", "--kernels", "gemm,floyd-warshall", "--configs", "baseline", "--repeat", "1",
               "--no-progress", "--no-noise-check", "--output-dir", str(tmp_path / "out"), "--threads", "1",
               "--machine", str(machine.path), "--roofline", str(tmp_path / "roof.png")])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "%peak" in out
    data = json.loads((tmp_path / "out" / "bench.json").read_text())
    assert data["machine_peak"]["flop_per_s"]["fp64"]["1"] == 100e9
    cells = {r["kernel"]: r for r in data["results"]}
    ni, nj, nk = 20, 25, 30   # gemm at MINI: %peak counts 2 per multiply-add (BLAS), GFLOP/s 3
    blas, source = 2 * ni * nj + 2 * ni * nj * nk, ni * nj + 3 * ni * nj * nk
    assert cells["gemm"]["flops"] == source
    assert cells["gemm"]["peak_pct"] == pytest.approx(cells["gemm"]["gflops"] * blas / source * 1e9 / 100e9 * 100)
    assert cells["floyd-warshall"]["peak_pct"] is None             # integer kernel: no FLOP peak
    with open(tmp_path / "out" / "bench.csv") as f:
        row = next(r for r in csv.DictReader(f) if r["kernel"] == "gemm")
    assert float(row["peak_pct"]) > 0
    for p in (tmp_path / "roof.png", tmp_path / "roof.svg"):
        assert p.stat().st_size > 10_000
