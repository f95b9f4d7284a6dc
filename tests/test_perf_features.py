"""`s2s.perf.features`: one stable, documented vector per loop nest (static from the model, measured
from a profile)."""
from __future__ import annotations

import json
import math

import pytest

import s2s.perf
from polybench import registry
from s2s.perf import FEATURE_FIELDS, FEATURE_NAMES, FEATURES_VERSION, features
from s2s.perf.features import describe
from s2s.perf.machine import MachineProfile
from s2s.perf.profile import ProfileOptions, run_profile

UTIL = registry.SUITE_ROOT / "utilities"

# The layout transfer tuning embeds: append-only within a version.
GOLDEN_V1 = (
    "depth", "n_loops", "n_statements", "is_scop", "n_params", "n_arrays", "reads_per_stmt", "writes_per_stmt",
    "flops_per_stmt", "iops_per_stmt", "frac_add", "frac_mul", "frac_div", "frac_math", "frac_cmp", "frac_fp32",
    "stride0_frac", "stride1_frac", "strided_frac", "irregular_frac", "n_flow_deps", "n_anti_deps",
    "n_output_deps", "parallel_loop_frac", "outer_parallel", "inner_parallel", "carried_loops",
    "min_carried_distance", "n_reductions", "log2_instances", "log2_trip_outer", "log2_trip_inner",
    "log2_footprint_bytes", "log2_flops", "oi_access", "oi_footprint", "time_share", "log10_time_per_call_s",
    "gflops", "bw_access_gbs", "pct_of_ceiling", "bound_compute", "bound_L1", "bound_L2", "bound_L3",
    "bound_DRAM",
)
MEASURED = ("time_share", "log10_time_per_call_s", "gflops", "bw_access_gbs", "pct_of_ceiling", "bound_compute",
            "bound_L1", "bound_L2", "bound_L3", "bound_DRAM")


def kernel(name: str, *defines: str):
    src = registry.kernel_source(registry.KERNELS[name])
    return src, [f"-I{UTIL}", f"-I{src.parent}", "-DMINI_DATASET", *defines]


def by_label(nests):
    return {f.label: f for f in nests}


def test_fields_are_stable_and_documented():
    assert FEATURES_VERSION == 1
    assert FEATURE_NAMES == GOLDEN_V1
    assert len(set(FEATURE_NAMES)) == len(FEATURE_NAMES)
    for f in FEATURE_FIELDS:
        assert f.unit and len(f.doc) > 15, f.name
    assert len(describe().splitlines()) == len(FEATURE_FIELDS)
    assert s2s.perf.features is features and callable(s2s.perf.features)


def test_gemm_static_features():
    src, args = kernel("gemm", "-DPOLYBENCH_USE_SCALAR_LB")
    s = registry.KERNELS["gemm"].datasets["MINI"]
    ni, nj, nk = s["NI"], s["NJ"], s["NK"]
    f = by_label(features(src, args))["kernel_gemm:72"]
    v = f.values
    assert (v["depth"], v["n_loops"], v["n_statements"], v["is_scop"], v["n_arrays"]) == (3, 4, 2, 1, 3)
    inst = ni * nj + ni * nj * nk
    assert v["log2_instances"] == pytest.approx(math.log2(inst))
    assert v["flops_per_stmt"] == pytest.approx((ni * nj * 1 + ni * nj * nk * 3) / inst)
    assert v["reads_per_stmt"] == pytest.approx((ni * nj * 1 + ni * nj * nk * 3) / inst)
    assert v["writes_per_stmt"] == 1
    assert v["oi_access"] == pytest.approx((ni * nj + 3 * ni * nj * nk) / (8 * (2 * ni * nj + 4 * ni * nj * nk)))
    assert v["oi_footprint"] == pytest.approx((ni * nj + 3 * ni * nj * nk) / (8 * (ni * nj + ni * nk + nk * nj)))
    assert v["log2_trip_outer"] == pytest.approx(math.log2(ni))
    # accesses in the innermost loop (j): C[i][j] x4 and B[k][j] unit stride, A[i][k] invariant
    assert (v["stride0_frac"], v["stride1_frac"], v["strided_frac"], v["irregular_frac"]) == \
        pytest.approx((1 / 6, 5 / 6, 0, 0))
    assert v["frac_add"] == pytest.approx(1 / 3, abs=0.01) and v["frac_fp32"] == 0
    # i and j are parallel, k carries the reduction into C[i][j]
    assert v["outer_parallel"] == 1 and v["inner_parallel"] == 1 and v["carried_loops"] == 1
    assert v["min_carried_distance"] == 1 and v["n_reductions"] >= 1
    vec = f.vector()
    assert len(vec) == len(FEATURE_NAMES)
    assert all(math.isnan(vec[FEATURE_NAMES.index(m)]) for m in MEASURED)   # nothing measured yet
    assert json.loads(json.dumps(f.to_json()))["features"]["depth"] == 3


def test_jacobi_2d_dependences_and_parameters():
    src, args = kernel("jacobi-2d")
    (f,) = [x for x in features(src, args) if x.function == "kernel_jacobi_2d"]
    v = f.values
    assert math.isnan(v["log2_instances"])                  # sizes are parameters, not given
    assert v["n_params"] == 2 and v["stride1_frac"] == 1 and v["outer_parallel"] == 0
    assert v["inner_parallel"] == 1 and v["min_carried_distance"] == 1
    (g,) = [x for x in features(src, args, params={"tsteps": 20, "n": 30}) if x.function == "kernel_jacobi_2d"]
    assert g.values["log2_instances"] == pytest.approx(math.log2(2 * 20 * 28 * 28))
    assert g.values["log2_trip_outer"] == pytest.approx(math.log2(20))
    assert g.values["log2_trip_inner"] == pytest.approx(math.log2(28))


def test_irregular_nest(tmp_path):
    src = tmp_path / "gather.c"
    src.write_text("""\
double a[100], b[100];
int idx[100];
float g(int n)
{
  float s = 0;
  for (int i = 0; i < n; i++)
    s += (float)(a[idx[i]] * b[i]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a[j * 10 + i] = b[j];
  return s;
}
""")
    gather, transpose = features(src)
    assert gather.values["is_scop"] == 0 and gather.values["irregular_frac"] > 0
    assert math.isnan(gather.values["n_flow_deps"])          # no model, no dependences
    assert transpose.values["strided_frac"] > 0 and transpose.values["frac_fp32"] == 0


def test_features_with_a_profile(tmp_path):
    from s2s.perf.topology import read_topology

    src, args = kernel("atax")
    machine = MachineProfile({
        "topology": read_topology().to_json(), "threads": {"1": 1},
        "roofs": {"1": {"fp64": 100e9, "fp32": 200e9, "L1": 400e9, "L2": 200e9, "L3": 100e9, "DRAM": 20e9}},
        "cache_bandwidth": {lv: {"capacity_bytes": {"1": cap}} for lv, cap in
                            (("L1", 32 << 10), ("L2", 1 << 20), ("L3", 32 << 20))}})
    res = run_profile(ProfileOptions(source=src, cpp_args=args, extra_sources=[UTIL / "polybench.c"], repeat=1,
                                     hw_counters="off"), machine)
    nests = by_label(features(src, args, profile=res))
    f = nests["kernel_atax:63"]
    v = f.values
    assert v["gflops"] > 0 and 0 < v["time_share"] <= 1 and v["bw_access_gbs"] > 0
    assert sum(v[f"bound_{b}"] for b in ("compute", "L1", "L2", "L3", "DRAM")) == 1
    s = registry.KERNELS["atax"].datasets["MINI"]
    assert v["log2_flops"] == pytest.approx(math.log2(4 * s["M"] * s["N"]))
    assert not any(math.isnan(x) for x in f.vector())
