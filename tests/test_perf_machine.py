"""`s2s machine`: topology from sysfs, plausibility bounds, the quick measurement, the cache, the CLI.

Behaviour only, never timings: every figure measured here must be positive and within what the
hardware can deliver (a figure above its bound is a bug that the profile must report, not use).
"""
from __future__ import annotations

import copy
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from s2s.perf import bounds as B
from s2s.perf import machine as M
from s2s.perf import microbench as MB
from s2s.perf.topology import Topology, parse_cpu_list, parse_size, read_topology

S2S = Path(sys.executable).with_name("s2s")


@pytest.fixture(scope="module")
def quick_profile(tmp_path_factory) -> dict:
    """One quick measurement of this host, shared by the module (seconds)."""
    return M.measure(quick=True)


@pytest.fixture()
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("S2S_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


# --- topology ---------------------------------------------------------------------------------------

def _fake_sysfs(root: Path, *, cpufreq: bool, hypervisor: bool) -> tuple[Path, Path]:
    """2 sockets x 2 cores x 2 SMT threads; L1d/L2 per core, L3 per socket."""
    sys_root, proc = root / "sys", root / "proc"
    cpu_dir = sys_root / "devices" / "system" / "cpu"
    cpu_dir.mkdir(parents=True)
    (cpu_dir / "online").write_text("0-7\n")
    for cpu in range(8):
        pkg, core = cpu // 4, (cpu % 4) // 2
        topo = cpu_dir / f"cpu{cpu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text(f"{pkg}\n")
        (topo / "core_id").write_text(f"{core}\n")
        (topo / "die_id").write_text("0\n")
        sib = f"{cpu - cpu % 2}-{cpu - cpu % 2 + 1}"
        l3 = f"{pkg * 4}-{pkg * 4 + 3}"
        for i, (level, kind, size, shared) in enumerate(((1, "Data", "32K", sib), (1, "Instruction", "32K", sib),
                                                        (2, "Unified", "1024K", sib), (3, "Unified", "16384K", l3))):
            d = cpu_dir / f"cpu{cpu}" / "cache" / f"index{i}"
            d.mkdir(parents=True)
            for name, value in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", shared),
                                ("coherency_line_size", 64), ("ways_of_associativity", 8)):
                (d / name).write_text(f"{value}\n")
        if cpufreq:
            f = cpu_dir / f"cpu{cpu}" / "cpufreq"
            f.mkdir()
            (f / "cpuinfo_max_freq").write_text("3500000\n")
    (sys_root / "devices" / "system" / "node" / "node0").mkdir(parents=True)
    (sys_root / "devices" / "system" / "node" / "node1").mkdir(parents=True)
    proc.mkdir()
    flags = "fpu sse2 avx avx2 fma avx512f avx512vl" + (" hypervisor" if hypervisor else "")
    (proc / "cpuinfo").write_text("".join(
        f"processor\t: {c}\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU 9000\ncpu MHz\t\t: 2100.000\n"
        f"physical id\t: {c // 4}\ncore id\t\t: {(c % 4) // 2}\nflags\t\t: {flags}\n\n" for c in range(8)))
    (proc / "meminfo").write_text("MemTotal:       65536000 kB\n")
    return sys_root, proc


def test_topology_from_sysfs(tmp_path):
    sys_root, proc = _fake_sysfs(tmp_path, cpufreq=True, hypervisor=False)
    t = read_topology(sys_root, proc)
    assert (t.sockets, t.cores, t.threads_per_core, t.logical_cpus, t.numa_nodes) == (2, 4, 2, 8, 2)
    assert t.cpu_model == "Test CPU 9000" and t.max_mhz == 3500 and t.cpuinfo_mhz == 2100
    assert t.simd_bits == 512 and t.fma and t.hypervisor is None and t.memory_bytes == 65536000 * 1024
    l1, l2, l3 = t.cache("L1"), t.cache("L2"), t.cache("L3")
    assert (l1.size_bytes, l1.instances, l1.shared_by, l1.name) == (32 * 1024, 4, 2, "L1d")
    assert (l2.size_bytes, l2.instances) == (1 << 20, 4)
    assert (l3.size_bytes, l3.instances, l3.shared_by) == (16 << 20, 2, 4)
    assert t.last_level_cache == l3
    assert Topology.from_json(json.loads(json.dumps(t.to_json()))) == t
    # what a level holds for 1 and all threads, and working sets that sit in it
    assert M.level_capacity(t, "L1", 1) == 32 * 1024 and M.level_capacity(t, "L3", 8) == 32 << 20
    for level in ("L1", "L2", "L3"):
        for threads in (1, 8):
            ws = M.working_set(t, level, threads)
            assert 0 < ws <= t.cache(level).size_bytes
    assert M.working_set(t, "L2", 1) > t.cache("L1").size_bytes


def test_topology_of_a_vm_without_cpufreq(tmp_path):
    sys_root, proc = _fake_sysfs(tmp_path, cpufreq=False, hypervisor=True)
    t = read_topology(sys_root, proc)
    assert t.max_mhz is None and t.hypervisor
    clock, problems = B.bound_clock(t, 3.0e9)
    assert not problems and clock.hz == pytest.approx(3.0e9 * B.TOLERANCE)
    assert "measured" in clock.note and "TSC" in clock.note   # cpuinfo's 2100 MHz is below the measured clock


def test_parsers():
    assert parse_cpu_list("0-3,8,10-11") == [0, 1, 2, 3, 8, 10, 11]
    assert parse_cpu_list("") == []
    assert parse_size("48K") == 48 * 1024 and parse_size("32M") == 32 << 20 and parse_size("512") == 512
    assert parse_size("junk") is None


# --- bounds ----------------------------------------------------------------------------------------

def test_bounds_formulas(tmp_path):
    sys_root, proc = _fake_sysfs(tmp_path, cpufreq=True, hypervisor=False)
    t = read_topology(sys_root, proc)
    clock, problems = B.bound_clock(t, 3.4e9)
    assert not problems and clock.source.startswith("cpufreq")
    f = 3.5e9 * B.TOLERANCE
    # cores x clock x lanes x 2 (FMA) x 2 pipes; SMT threads share a core's pipes
    assert B.flops_bound(t, clock, 1, 512, "fp64") == pytest.approx(f * 8 * 2 * 2)
    assert B.flops_bound(t, clock, 8, 0, "fp32") == pytest.approx(4 * f * 1 * 2 * 2)
    assert B.flops_bound(t, clock, 2, 256, "fp32") == pytest.approx(2 * f * 8 * 2 * 2)
    assert B.bandwidth_bound(t, clock, 1, "L1") == pytest.approx(f * 6 * 64)
    assert B.bandwidth_bound(t, clock, 8, "DRAM") == pytest.approx(4 * f * 64)
    # a clock above the cpufreq maximum is itself a problem
    _, problems = B.bound_clock(t, 5e9)
    assert problems and problems[0]["what"] == "frequency.measured_hz"
    found: list[dict] = []
    assert B.check(1.0, 2.0, "x", "why", found) == 1.0 and not found
    assert B.check(3.0, 2.0, "x", "too fast", found) is None and found[-1]["why"] == "too fast"
    assert B.check(float("nan"), 2.0, "y", "", found) is None and B.check(-1.0, 2.0, "z", "", found) is None
    assert [p["what"] for p in found] == ["x", "y", "z"]


def test_impossible_figures_are_reported_not_used(monkeypatch):
    """A microbenchmark that claims more than the hardware can do (here: faked) is a problem."""
    topo = read_topology()
    build = MB.Build(Path("/nonexistent"), Path("m"), Path("s"), Path("v"), {"membench": "cc ..."}, True)
    hz = 3.0e9

    def fake_peak(_b, precision, width, threads, _s, _r):
        lanes = max(1, width // (8 if precision == "fp64" else 4))
        rate = B.cores_for(topo, threads) * hz * lanes * 2 * 2 * (10 if (precision, width) == ("fp64", 0) else 0.9)
        return MB.PeakResult(precision, width * 8, threads, rate, 1.0, 1.0, 12)

    def fake_membench(_b, mode, size, kernels, threads, _s, _r):
        rate = 1e9 * threads * (1e6 if mode == "stream" and threads == 1 else 1)  # 1-thread STREAM: absurd
        return {k: MB.BandwidthResult(k, threads, rate, 1, 1.0, 1.0, 1.0) for k in kernels}

    monkeypatch.setattr(MB, "run_peak", fake_peak)
    monkeypatch.setattr(MB, "run_membench", fake_membench)
    monkeypatch.setattr(MB, "run_frequency", lambda *a: (hz, hz))
    monkeypatch.setattr(MB, "run_hypervisor_probe", lambda b: None)
    monkeypatch.setattr(MB, "compiler_version", lambda cc: "cc 1.0")
    plan = M.make_plan(topo, quick=True)
    from s2s.perf.topology import current_load

    prof = M._measure_with(build, topo, plan, "cc", lambda m: None, 0.0, current_load())
    what = {p["what"] for p in prof["problems"]}
    assert "peak.fp64.scalar.1" in what and "stream.1.copy" in what
    assert not prof["peak"]["fp64"]["scalar"]["1"]["accepted"] and not prof["stream"]["1"]["triad"]["accepted"]
    assert "fp64_scalar" not in prof["roofs"]["1"] and "DRAM" not in prof["roofs"]["1"]
    assert prof["roofs"]["1"]["fp64"] > 0 and prof["roofs"]["1"]["L1"] > 0
    table = M.format_table(prof)
    assert "REJECTED" in table and "PROBLEM: peak.fp64.scalar.1" in table
    absurd = prof["peak"]["fp64"]["scalar"]["1"]["flop_per_s"]
    assert f"{absurd / 1e9:,.1f}" not in table


# --- the real microbenchmarks ---------------------------------------------------------------------------

def _figures(profile: dict):
    """Every (name, value, bound, accepted) the profile holds."""
    for prec, widths in profile["peak"].items():
        for key, per in widths.items():
            for tkey, rec in per.items():
                yield f"peak.{prec}.{key}.{tkey}", rec["flop_per_s"], rec["bound"], rec["accepted"]
    for tkey, kernels in profile["stream"].items():
        for k, rec in kernels.items():
            yield f"stream.{tkey}.{k}", rec["bytes_per_s"], rec["bound"], rec["accepted"]
    for level, data in profile["cache_bandwidth"].items():
        for tkey in profile["threads"]:
            for k, rec in (data.get(tkey) or {}).items():
                yield f"cache.{level}.{tkey}.{k}", rec["bytes_per_s"], rec["bound"], rec["accepted"]


def test_quick_measurement_is_within_physical_bounds(quick_profile):
    p = quick_profile
    assert p["schema"] == M.SCHEMA and p["quick"] is True
    assert p["problems"] == [], p["problems"]
    topo = Topology.from_json(p["topology"])
    assert p["threads"]["1"] == 1 and p["threads"].get("all", 1) <= topo.usable_cpus
    f = p["frequency"]
    assert f["measured_hz"] is None or 0.2e9 < f["measured_hz"] < B.ABSURD_HZ
    assert f["bound_hz"] >= (f["measured_hz"] or 0)
    names = set()
    for name, value, bound, accepted in _figures(p):
        names.add(name)
        assert accepted, name
        assert math.isfinite(value) and 0 < value <= bound, (name, value, bound)
    # every kernel of the plan was measured, on every thread count
    for tkey in p["threads"]:
        assert {f"stream.{tkey}.{k}" for k in MB.STREAM_KERNELS} <= names
        for prec in M.PRECISIONS:
            assert f"peak.{prec}.scalar.{tkey}" in names
            assert {f"peak.{prec}.simd{w * 8}.{tkey}" for w in M.simd_widths(topo)} <= names
        for level in p["cache_bandwidth"]:
            assert {f"cache.{level}.{tkey}.{k}" for k in MB.CACHE_KERNELS} <= names
    assert set(p["cache_bandwidth"]) == {f"L{c.level}" for c in topo.data_caches}
    # the arrays of STREAM are beyond the last-level cache
    llc = topo.last_level_cache
    if llc:
        assert p["stream_array_bytes"] > llc.size_bytes * llc.instances
    # roofs: the best accepted figure per level, nothing invented
    for tkey, roofs in p["roofs"].items():
        assert roofs["fp64"] == max(r[tkey]["flop_per_s"] for k, r in p["peak"]["fp64"].items() if k != "scalar")
        assert roofs["DRAM"] == max(r["bytes_per_s"] for r in p["stream"][tkey].values())
        for level in p["cache_bandwidth"]:
            assert roofs[level] == max(r["bytes_per_s"] for r in p["cache_bandwidth"][level][tkey].values())
    assert p["method"] and all(isinstance(x, str) for x in p["method"])
    json.dumps(p)   # JSON-clean


def test_machine_profile_object(quick_profile):
    mp = M.MachineProfile(quick_profile)
    assert mp.peak("fp64") == quick_profile["roofs"]["1"]["fp64"]
    assert mp.bandwidth("DRAM", threads=1) == quick_profile["roofs"]["1"]["DRAM"]
    assert mp.capacity("DRAM") == math.inf and mp.capacity("L1") > 0
    assert mp.levels()[0] == "L1" and mp.levels()[-1] == "DRAM"
    assert mp.threads_key(1) == "1"
    if "all" in quick_profile["threads"]:
        assert mp.threads_key(64) == "all"


def test_cache_file_and_refresh(quick_profile, cache, monkeypatch):
    calls = []

    def fake_measure(quick=False, cc=None, progress=None):
        calls.append(quick)
        out = copy.deepcopy(quick_profile)
        out["date"] = f"run {len(calls)}"
        return out

    monkeypatch.setattr(M, "measure", fake_measure)
    first = M.get_machine(quick=True)
    assert first.path == cache / f"machine-{M.host_name()}-quick.json" and first.path.is_file()
    again = M.get_machine(quick=True)
    assert len(calls) == 1 and again.data["date"] == "run 1"          # read from the cache
    refreshed = M.get_machine(quick=True, refresh=True)
    assert len(calls) == 2 and refreshed.data["date"] == "run 2"
    assert json.loads(first.path.read_text())["date"] == "run 2"
    # a full profile is looked for first, the quick one accepted when asked
    assert M.get_machine(measure_if_missing=False).data["date"] == "run 2"
    assert M.get_machine(measure_if_missing=False, accept_quick=False) is None
    # a profile of other hardware is stale
    other = copy.deepcopy(quick_profile)
    other["topology"]["cpu_model"] = "another CPU"
    M.save(other, M.machine_path(False))
    assert M.load(M.machine_path(False)) is None


def test_cli_machine(quick_profile, cache):
    M.save(quick_profile, M.machine_path(True))
    env = {**os.environ, "S2S_CACHE_DIR": str(cache)}
    r = subprocess.run([str(S2S), "machine", "--quick", "--json"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["schema"] == M.SCHEMA and data["date"] == quick_profile["date"]
    r = subprocess.run([str(S2S), "machine", "--quick"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    for text in ("Peak FLOP/s", "STREAM triad", "L1", "Roofline ceilings", "how:", str(M.machine_path(True))):
        assert text in r.stdout
    # a profile holding a problem makes the command fail and says so
    bad = copy.deepcopy(quick_profile)
    bad["problems"] = [{"what": "peak.fp64.scalar.1", "value": 1e15, "bound": 1e11, "why": "test"}]
    M.save(bad, M.machine_path(True))
    r = subprocess.run([str(S2S), "machine", "--quick"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 1 and "problem: peak.fp64.scalar.1" in r.stderr
