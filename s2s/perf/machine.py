"""``s2s machine``: measure this host once, check every figure against what the hardware can do,
and keep the result in the cache directory.

    measure(quick=False) -> dict        the profile (schema ``s2s-machine/1``), measured now
    get_machine(...)     -> MachineProfile   the cached profile (measured if missing or stale)

What is measured (``s2s/perf/kernels``, compiled on the spot with the host compiler):

* the core clock (a chain of dependent register-register integer adds, one a cycle);
* peak FP64 and FP32 FLOP/s, scalar and at every SIMD width up to the widest, on 1 thread and on
  all usable CPUs (FMA chains on 12-16 independent accumulators);
* STREAM copy, scale, add, triad, plus load-only and store-only, on arrays of at least 4x the
  total last-level cache each (64 MiB minimum), 1 thread and all threads, best of N;
* the bandwidth of each cache level: load, copy and triad on a per-thread working set of half
  that level's share per thread.

Each figure is checked against ``s2s.perf.bounds``; a figure over its bound is dropped and listed
under ``problems``. The roofline ceilings (``roofs``) are the best accepted figure per level.
"""
from __future__ import annotations

import json
import math
import os
import platform
import re
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from s2s.perf import bounds as B
from s2s.perf import microbench as M
from s2s.perf.topology import Topology, current_load, format_bytes, read_topology
from s2s.user_cache import cache_dir

SCHEMA = "s2s-machine/1"
LEVELS = ("L1", "L2", "L3", "DRAM")
PRECISIONS = ("fp64", "fp32")

Progress = Callable[[str], None]


# --- where the profile lives -------------------------------------------------------------------------

def host_name() -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", platform.node() or "localhost")


def machine_path(quick: bool = False) -> Path:
    return cache_dir() / f"machine-{host_name()}{'-quick' if quick else ''}.json"


# --- the measurement plan ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    quick: bool
    freq_seconds: float
    freq_reps: int
    peak_seconds: float
    peak_reps: int
    stream_array_bytes: int      # one array, all threads together
    stream_reps: int
    cache_seconds: float
    cache_reps: int


def make_plan(topo: Topology, quick: bool) -> Plan:
    llc = topo.last_level_cache
    llc_total = llc.size_bytes * llc.instances if llc else 32 * 2**20
    # Many short repetitions, best of: on a shared machine (or a VM with steal time) some of them run
    # undisturbed, and the best is what the hardware does. The clock is probed the same way, 1 ms
    # at a time, before and after the other runs.
    if quick:
        array = max(int(1.5 * llc_total), 16 * 2**20)
        return Plan(True, 0.001, 60, 0.002, 10, _round_mib(array), 3, 0.002, 8)
    array = max(4 * llc_total, 64 * 2**20)
    return Plan(False, 0.001, 300, 0.004, 40, _round_mib(array), 10, 0.002, 30)


def _round_mib(n: float) -> int:
    return int(math.ceil(n / 2**20)) * 2**20


def simd_widths(topo: Topology) -> list[int]:
    """Vector widths in bytes our flops kernel is built for here (the scalar build is width 0)."""
    isa = set(topo.isa)
    widths = [16]
    if "avx" in isa:
        widths.append(32)
    if "avx512f" in isa:
        widths.append(64)
    return widths


def working_set(topo: Topology, level: str, threads: int) -> int | None:
    """Per-thread working set that sits in ``level``: half of one thread's share of the level (the
    threads packed onto cores, as OMP_PROC_BIND=close places them), and at least 1.5x its share of
    the level below, so that it does not fit there."""
    cache = topo.cache(level)
    if cache is None:
        return None

    def share(c) -> float:
        return c.size_bytes / max(1, min(c.shared_by, threads))

    ws = share(cache) / 2
    lower = topo.cache(f"L{cache.level - 1}") if cache.level > 1 else None
    if lower is not None:
        ws = max(ws, 1.5 * share(lower))
    return max(4096, int(ws // 4096 * 4096))


def level_capacity(topo: Topology, level: str, threads: int) -> float | None:
    """Bytes of ``level`` that ``threads`` threads (packed on cores) can use together."""
    if level == "DRAM":
        return math.inf
    cache = topo.cache(level)
    if cache is None:
        return None
    cores = min(threads, topo.cores)
    if cache.shared_by <= topo.threads_per_core:  # private to a core
        return cache.size_bytes * cores
    instances = min(cache.instances, max(1, math.ceil(min(threads, topo.logical_cpus) / cache.shared_by)))
    return cache.size_bytes * instances


# --- measuring ---------------------------------------------------------------------------------------

def measure(quick: bool = False, cc: str | None = None, progress: Progress | None = None) -> dict:
    """Measure this host now (no cache involved)."""
    say = progress or (lambda _m: None)
    cc = cc or os.environ.get("S2S_CC", "cc")
    started = time.time()
    topo = read_topology()
    plan = make_plan(topo, quick)
    load_before = current_load(logical_cpus=topo.logical_cpus)
    say(f"compiling the microbenchmarks with {cc}")
    workdir = None
    try:
        import tempfile
        workdir = Path(tempfile.mkdtemp(prefix="s2s-machine-"))
        build = M.build(cc, topo.simd_bits // 8, workdir)
        return _measure_with(build, topo, plan, cc, say, started, load_before)
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)


def _measure_with(build: M.Build, topo: Topology, plan: Plan, cc: str, say: Progress, started: float,
                  load_before) -> dict:
    all_threads = topo.usable_cpus
    thread_counts = {"1": 1}
    if all_threads > 1 and build.openmp:
        thread_counts["all"] = all_threads
    notes = list(build.notes)
    hypervisor = M.run_hypervisor_probe(build) if topo.hypervisor else None

    # 1. raw figures (the clock is probed first, between the groups and last)
    say("clock")
    freqs = [M.run_frequency(build, plan.freq_seconds, plan.freq_reps)]
    peak_raw: dict = {p: {} for p in PRECISIONS}
    for precision in PRECISIONS:
        for width in [0, *simd_widths(topo)]:
            key = "scalar" if width == 0 else f"simd{width * 8}"
            peak_raw[precision][key] = {}
            for tkey, t in thread_counts.items():
                say(f"peak {precision} {key} on {t} thread(s)")
                peak_raw[precision][key][tkey] = M.run_peak(build, precision, width, t, plan.peak_seconds,
                                                            plan.peak_reps)
    freqs.append(M.run_frequency(build, plan.freq_seconds, plan.freq_reps))
    stream_raw: dict = {}
    for tkey, t in thread_counts.items():
        say(f"STREAM on {t} thread(s), arrays of {format_bytes(plan.stream_array_bytes)}")
        stream_raw[tkey] = M.run_membench(build, "stream", plan.stream_array_bytes / t, M.STREAM_KERNELS, t, 0.0,
                                          plan.stream_reps)
    cache_raw: dict = {}
    for cache in topo.data_caches:
        level = f"L{cache.level}"
        cache_raw[level] = {}
        for tkey, t in thread_counts.items():
            ws = working_set(topo, level, t)
            if ws is None:
                continue
            say(f"{level} bandwidth on {t} thread(s), {format_bytes(ws)} per thread")
            cache_raw[level][tkey] = (ws, M.run_membench(build, "ws", ws, M.CACHE_KERNELS, t, plan.cache_seconds,
                                                         plan.cache_reps))
    freqs.append(M.run_frequency(build, plan.freq_seconds, plan.freq_reps))

    # 2. the clock the bounds use, then every figure against its bound
    measured = [f for f in freqs if f]
    seen = [r.clock_hz for per_key in peak_raw.values() for per_t in per_key.values() for r in per_t.values()
            if r.clock_hz > 0]
    measured_hz = max([f[0] for f in measured] + seen) if measured or seen else None
    clock, problems = B.bound_clock(topo, measured_hz)
    if clock.note:
        notes.append(clock.note)
    if load_before.busy:
        notes.append(f"the machine was busy when measuring (load average {load_before.loadavg_1min:.1f} on "
                     f"{topo.logical_cpus} CPUs): figures, above all those on all threads, may be low")

    peak: dict = {p: {} for p in PRECISIONS}
    for precision, per_key in peak_raw.items():
        for key, per_threads in per_key.items():
            peak[precision][key] = {}
            for tkey, r in per_threads.items():
                rec = r.to_json()
                rec["bound"] = B.flops_bound(topo, clock, thread_counts[tkey], r.width_bits, precision)
                rec["accepted"] = B.check(
                    r.flop_per_s, rec["bound"], f"peak.{precision}.{key}.{tkey}",
                    f"above cores x clock x lanes x 2 (FMA) x {topo.fma_pipes_bound} pipes", problems) is not None
                peak[precision][key][tkey] = rec
    stream: dict = {}
    for tkey, res in stream_raw.items():
        bound = B.bandwidth_bound(topo, clock, thread_counts[tkey], "DRAM")
        stream[tkey] = {}
        for k, r in res.items():
            rec = r.to_json()
            rec["bound"] = bound
            rec["accepted"] = B.check(r.bytes_per_s, bound, f"stream.{tkey}.{k}",
                                      "above what the cores can move to and from memory", problems) is not None
            stream[tkey][k] = rec
    caches: dict = {}
    for level, per_threads in cache_raw.items():
        caches[level] = {"working_set_bytes": {}, "capacity_bytes": {}}
        for tkey, (ws, res) in per_threads.items():
            t = thread_counts[tkey]
            caches[level]["working_set_bytes"][tkey] = ws
            caches[level]["capacity_bytes"][tkey] = level_capacity(topo, level, t)
            bound = B.bandwidth_bound(topo, clock, t, level if level in B.BYTES_PER_CYCLE else "L3")
            caches[level][tkey] = {}
            for k, r in res.items():
                rec = r.to_json()
                rec["bound"] = bound
                rec["accepted"] = B.check(r.bytes_per_s, bound, f"cache.{level}.{tkey}.{k}",
                                          f"above {level}'s bytes per cycle per core", problems) is not None
                caches[level][tkey][k] = rec

    profile = {
        "schema": SCHEMA,
        "s2s_version": _s2s_version(),
        "host": platform.node(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "quick": plan.quick,
        "topology": topo.to_json(),
        "hypervisor": hypervisor or topo.hypervisor,
        "compiler": {"cc": cc, "version": M.compiler_version(cc), "commands": build.commands,
                     "openmp": build.openmp},
        "threads": thread_counts,
        "frequency": {"measured_hz": measured_hz, "probes_hz": [f[0] for f in measured],
                      "max_seen_with_peaks_hz": max(seen) if seen else None,
                      "sysfs_max_hz": topo.max_mhz * 1e6 if topo.max_mhz else None,
                      "cpuinfo_hz": topo.cpuinfo_mhz * 1e6 if topo.cpuinfo_mhz else None,
                      "bound_hz": clock.hz, "bound_source": clock.source, "note": clock.note},
        "peak": peak,
        "stream": stream,
        "stream_array_bytes": plan.stream_array_bytes,
        "cache_bandwidth": caches,
        "plan": asdict(plan),
        "problems": problems,
        "notes": notes,
        "method": method_lines(topo, plan),
    }
    profile["roofs"] = compute_roofs(profile)
    notes.extend(ordering_notes(profile))
    load_after = current_load(logical_cpus=topo.logical_cpus)
    profile["load_average"] = {"before": load_before.loadavg_1min, "after": load_after.loadavg_1min}
    profile["duration_s"] = round(time.time() - started, 2)
    return profile


def _s2s_version() -> str | None:
    try:
        from s2s import __version__
        return __version__
    except ImportError:
        return None


def method_lines(topo: Topology, plan: Plan) -> list[str]:
    widths = ", ".join(f"{w * 8}-bit" for w in simd_widths(topo))
    return [
        "clock: a chain of dependent register-register integer adds (1 cycle each; add-immediate chains are folded at rename by some cores), 128 per loop trip, best of "
        f"{plan.freq_reps} runs of {plan.freq_seconds * 1e3:g} ms, probed before, between and after the other runs, "
        "and right after every repetition of the FLOP kernels (the bounds use the highest clock seen)",
        "peak FLOP/s: acc = acc * a + b on 12-16 independent accumulators per thread (one FMA each: 2 FLOP "
        f"per lane), plain C with vector_size types ({widths}) and a scalar build without "
        f"auto-vectorization; -O3 -march=native -ffp-contract=fast; best of {plan.peak_reps} runs of at least "
        f"{plan.peak_seconds * 1e3:g} ms",
        f"STREAM: copy, scale, add, triad, load (sum), store on arrays of {format_bytes(plan.stream_array_bytes)} "
        f"each (all threads together), bytes counted as STREAM counts them (no write-allocate traffic), best of "
        f"{plan.stream_reps}",
        "cache levels: load, copy, triad on a per-thread working set of half the level's share per thread "
        f"(and 1.5x the level below), best of {plan.cache_reps} runs of at least {plan.cache_seconds * 1e3:g} ms",
        "threads: OpenMP, OMP_PROC_BIND=close, OMP_PLACES=threads; every thread owns (first-touches) its arrays",
        "roofs: per memory level the best accepted figure of any kernel at that level; compute roofs: the best "
        "accepted SIMD peak",
    ]


def compute_roofs(profile: dict) -> dict:
    """Per thread count: the ceilings a roofline uses (bytes/s for levels, FLOP/s for compute)."""
    roofs: dict = {}
    for tkey in profile["threads"]:
        r: dict = {}
        for precision in PRECISIONS:
            best_simd = None
            for key, per_threads in profile["peak"][precision].items():
                rec = per_threads.get(tkey)
                if not rec or not rec["accepted"]:
                    continue
                if key == "scalar":
                    r[f"{precision}_scalar"] = rec["flop_per_s"]
                elif best_simd is None or rec["flop_per_s"] > best_simd[1]:
                    best_simd = (key, rec["flop_per_s"])
            if best_simd:
                r[precision] = best_simd[1]
                r[f"{precision}_width"] = best_simd[0]
        for level, data in profile["cache_bandwidth"].items():
            vals = [v["bytes_per_s"] for v in (data.get(tkey) or {}).values() if v["accepted"]]
            if vals:
                r[level] = max(vals)
        vals = [v["bytes_per_s"] for v in profile["stream"].get(tkey, {}).values() if v["accepted"]]
        if vals:
            r["DRAM"] = max(vals)
        roofs[tkey] = r
    return roofs


def ordering_notes(profile: dict) -> list[str]:
    notes = []
    for tkey, r in profile["roofs"].items():
        levels = [lv for lv in LEVELS if lv in r]
        for a, b in zip(levels, levels[1:]):
            if r[b] > 1.25 * r[a]:
                notes.append(f"{b} ({r[b] / 1e9:.1f} GB/s) came out faster than {a} ({r[a] / 1e9:.1f} GB/s) on "
                             f"{profile['threads'][tkey]} thread(s): a busy machine or a working set that did not "
                             f"stay in {a}")
    return notes


# --- the profile as an object --------------------------------------------------------------------------

@dataclass
class MachineProfile:
    """Read access to a machine profile (the JSON dict): ceilings and capacities per thread count."""

    data: dict
    path: Path | None = None
    topology: Topology = field(init=False)

    def __post_init__(self) -> None:
        self.topology = Topology.from_json(self.data["topology"])

    @property
    def threads_all(self) -> int:
        return int(self.data["threads"].get("all", 1))

    def threads_key(self, threads: int) -> str:
        return "1" if threads <= 1 or "all" not in self.data["roofs"] else "all"

    def roofs(self, threads: int = 1) -> dict:
        return self.data["roofs"].get(self.threads_key(threads), {})

    def peak(self, precision: str = "fp64", threads: int = 1, scalar: bool = False) -> float | None:
        return self.roofs(threads).get(f"{precision}_scalar" if scalar else precision)

    def bandwidth(self, level: str, threads: int = 1) -> float | None:
        return self.roofs(threads).get(level)

    def capacity(self, level: str, threads: int = 1) -> float | None:
        if level == "DRAM":
            return math.inf
        return self.data["cache_bandwidth"].get(level, {}).get("capacity_bytes", {}).get(self.threads_key(threads))

    def levels(self, threads: int = 1) -> list[str]:
        r = self.roofs(threads)
        return [lv for lv in LEVELS if lv in r]

    @property
    def description(self) -> str:
        return f"{self.topology.cpu_model} ({self.data.get('host')})"


def valid_for_this_host(data: dict) -> str | None:
    """None when ``data`` is a profile of this host in our schema, else why not."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return "older or unknown schema"
    try:
        here = read_topology()
        there = Topology.from_json(data["topology"])
    except Exception as exc:  # a damaged file
        return f"unreadable ({exc})"
    if (here.cpu_model, here.logical_cpus, here.simd_bits) != (there.cpu_model, there.logical_cpus, there.simd_bits):
        return "measured on different hardware"
    return None


def load(path: Path) -> dict | None:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return data if valid_for_this_host(data) is None else None


def save(profile: dict, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(profile, indent=2, default=_json_default) + "\n")
    os.replace(tmp, path)
    return path


def _json_default(x):
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return str(x)


def get_machine(refresh: bool = False, quick: bool = False, cc: str | None = None, measure_if_missing: bool = True,
                accept_quick: bool = True, progress: Progress | None = None) -> MachineProfile | None:
    """The cached profile of this host (the full one, else a quick one when ``accept_quick``),
    measured and cached when missing, stale or ``refresh``."""
    if not refresh:
        candidates = [machine_path(quick)] + ([machine_path(True)] if accept_quick and not quick else [])
        for path in candidates:
            data = load(path)
            if data is not None:
                return MachineProfile(data, path)
    if not measure_if_missing and not refresh:
        return None
    data = measure(quick=quick, cc=cc, progress=progress)
    path = save(data, machine_path(quick))
    return MachineProfile(data, path)


def load_profile_file(path: str | Path) -> MachineProfile:
    data = json.loads(Path(path).read_text())
    if data.get("schema") != SCHEMA:
        raise ValueError(f"{path}: not an s2s machine profile ({SCHEMA})")
    return MachineProfile(data, Path(path))


# --- the table ---------------------------------------------------------------------------------------

def _gf(x) -> str:
    return "—" if x is None else f"{x / 1e9:,.1f}"


def format_table(profile: dict, path: Path | None = None, width: int = 110) -> str:
    from io import StringIO

    from rich.console import Console
    from rich.table import Table

    buf = StringIO()
    con = Console(file=buf, width=width, highlight=False, force_terminal=False, color_system=None, soft_wrap=True)
    topo = Topology.from_json(profile["topology"])
    tk = profile["threads"]
    tcols = [(k, f"{v} thread" + ("s" if v > 1 else "")) for k, v in tk.items()]
    freq = profile["frequency"]
    hyp = profile.get("hypervisor")
    con.print(f"s2s machine — {topo.cpu_model} ({topo.arch}{', ' + hyp + ' guest' if hyp else ''})"
              + ("  [quick]" if profile.get("quick") else ""))
    smt = topo.threads_per_core
    mem = f", {format_bytes(topo.memory_bytes)} memory" if topo.memory_bytes else ""
    con.print(f"  topology  {topo.sockets} socket(s) × {topo.cores // max(1, topo.sockets)} cores × {smt} "
              f"thread(s) per core = {topo.logical_cpus} logical CPUs ({topo.usable_cpus} usable), "
              f"{topo.numa_nodes} NUMA node(s){mem}")
    con.print(f"  caches    {topo.caches_summary()}")
    isa = " ".join(topo.isa)
    con.print(f"  SIMD      {topo.simd_name} ({topo.simd_bits}-bit){', FMA' if topo.fma else ''}; ISA: {isa}")
    clock = (f"{freq['measured_hz'] / 1e9:.2f} GHz measured (dependent integer adds)" if freq.get("measured_hz")
             else "not measured")
    extra = []
    if freq.get("sysfs_max_hz"):
        extra.append(f"cpufreq max {freq['sysfs_max_hz'] / 1e9:.2f} GHz")
    if freq.get("cpuinfo_hz"):
        extra.append(f"/proc/cpuinfo {freq['cpuinfo_hz'] / 1e9:.2f} GHz")
    con.print(f"  clock     {clock}" + (f"; {', '.join(extra)}" if extra else "")
              + f"; bounds use {freq['bound_hz'] / 1e9:.2f} GHz ({freq['bound_source']})")
    comp = profile.get("compiler", {})
    con.print(f"  compiler  {comp.get('version') or comp.get('cc')}")

    t = Table(title="Peak FLOP/s (GFLOP/s): FMA chains on independent accumulators", title_justify="left",
              pad_edge=False)
    t.add_column("precision / width")
    for _, label in tcols:
        t.add_column(label, justify="right")
    t.add_column(f"bound ({tcols[-1][1]})", justify="right")
    for precision in PRECISIONS:
        for key, per in profile["peak"][precision].items():
            label = f"{precision} " + ("scalar" if key == "scalar" else f"{key[4:]}-bit SIMD")
            row = [label]
            for tkey, _ in tcols:
                rec = per.get(tkey)
                row.append("—" if not rec else ("REJECTED" if not rec["accepted"] else _gf(rec["flop_per_s"])))
            last = per.get(tcols[-1][0])
            row.append(_gf(last["bound"]) if last else "—")
            t.add_row(*row)
    con.print(t)

    t = Table(title="Bandwidth (GB/s, best; bytes as STREAM counts them)", title_justify="left", pad_edge=False)
    t.add_column("level / kernel")
    t.add_column("working set per thread", justify="right")
    for _, label in tcols:
        t.add_column(label, justify="right")
    for level, data in profile["cache_bandwidth"].items():
        ws = data.get("working_set_bytes", {})
        kernels = list((data.get("1") or {}).keys())
        for k in kernels:
            row = [f"{level} {k}", " / ".join(format_bytes(ws[tkey]) for tkey, _ in tcols if tkey in ws)]
            for tkey, _ in tcols:
                rec = (data.get(tkey) or {}).get(k)
                row.append("—" if not rec else ("REJECTED" if not rec["accepted"] else _gf(rec["bytes_per_s"])))
            t.add_row(*row)
        t.add_section()
    arr = profile.get("stream_array_bytes")
    for k in M.STREAM_KERNELS:
        row = [f"DRAM STREAM {k}", f"arrays of {format_bytes(arr)} (total)"]
        for tkey, _ in tcols:
            rec = profile["stream"].get(tkey, {}).get(k)
            row.append("—" if not rec else ("REJECTED" if not rec["accepted"] else _gf(rec["bytes_per_s"])))
        t.add_row(*row)
    con.print(t)

    t = Table(title="Roofline ceilings (what s2s profile uses)", title_justify="left", pad_edge=False)
    t.add_column("ceiling")
    for _, label in tcols:
        t.add_column(label, justify="right")
    roofs = profile["roofs"]
    for precision in PRECISIONS:
        t.add_row(f"{precision} peak (GFLOP/s)", *[_gf(roofs.get(k, {}).get(precision)) for k, _ in tcols])
        t.add_row(f"{precision} scalar (GFLOP/s)",
                  *[_gf(roofs.get(k, {}).get(f"{precision}_scalar")) for k, _ in tcols])
    for level in LEVELS:
        cap = profile["cache_bandwidth"].get(level, {}).get("capacity_bytes", {})
        size = f" [{' / '.join(format_bytes(cap[k]) for k, _ in tcols if k in cap)}]" if cap else ""
        t.add_row(f"{level} (GB/s){size}", *[_gf(roofs.get(k, {}).get(level)) for k, _ in tcols])
    con.print(t)

    for p in profile.get("problems", []):
        con.print(f"PROBLEM: {p['what']}: measured {p['value']:.4g}, bound {p['bound']:.4g}: {p['why']} "
                  f"(not used)")
    for n in profile.get("notes", []):
        con.print(f"note: {n}")
    con.print("how: " + "\n     ".join(profile.get("method", [])))
    where = f"{path}" if path else "not cached"
    con.print(f"profile: {where} (measured {profile.get('date')}, {profile.get('duration_s')} s; "
              f"`s2s machine --refresh` measures again)")
    return buf.getvalue()
