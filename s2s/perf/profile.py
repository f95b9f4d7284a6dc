"""``s2s profile``: build a program with every top-level loop nest instrumented, run it, and report
per loop nest its time, FLOPs, bytes, operational intensity, bandwidth and roofline bound.

For each variant (the user's code, and with ``--optimized`` what ``s2s opt`` makes of it):

1. a *counting build* (``instrument.counting_source``) runs once, single-threaded: exact statement
   counts, hence exact FLOPs and bytes of accesses (``opcount``), and the parameter values each
   nest was entered with, at which the footprint is counted on the polyhedral model (``footprint``);
2. a *timing build* (``instrument.timing_source``: only timers around the nests) runs ``repeat``
   times; the median per nest is reported (exclusive time: without nested instrumented nests);
3. where ``perf_event_open`` works, one more timing run reads hardware counters per nest.

Both builds use the user's compiler and flags; everything outside the nests is the user's text.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from s2s.perf.footprint import RegionModel, footprint, instance_counts, models_by_node, region_model
from s2s.perf.instrument import (
    CountPlan, Region, counting_source, evaluate_counts, find_regions, statement_key, timing_source,
)
from s2s.perf.microbench import kernel_source
from s2s.perf.opcount import TypeEnv, typedefs_of
from s2s.perf.roofline import Ceilings, classify

SCHEMA = "s2s-profile/1"
HW_EVENTS = ("cycles", "instructions", "llc_references", "llc_misses", "l1d_read_misses")


class ProfileError(RuntimeError):
    pass


@dataclass
class ProfileOptions:
    source: Path
    cpp_args: list[str] = field(default_factory=list)
    program_args: list[str] = field(default_factory=list)
    cc: str = "cc"
    cflags: list[str] = field(default_factory=lambda: ["-O3", "-march=native"])
    ldflags: list[str] = field(default_factory=lambda: ["-lm"])
    extra_sources: list[Path] = field(default_factory=list)
    optimized: bool = False
    mode: str = "pluto"                  # the s2s mode of the optimized variant: pluto, isl, identity
    target: str = "c"                    # its back end: c, openmp
    fusion: str = "smart"                # its scheduler's fusion policy (--s2s-fuse)
    tile_sizes: tuple[int, ...] | None = None   # its tile sizes (--s2s-tile; None: the cache model)
    repeat: int = 3
    threads: int | None = None
    hw_counters: str = "auto"            # auto | on | off
    timeout: float = 600.0
    keep: Path | None = None             # keep the generated sources and binaries here
    cwd: Path | None = None
    show_output: bool = False


@dataclass
class NestProfile:
    """One loop nest (region) of one variant."""

    variant: str
    index: int
    function: str
    line: int
    last_line: int
    regenerated: bool
    covers: tuple[str, ...]
    calls: int = 0
    time_s: float | None = None            # median over the timed runs, exclusive
    times_s: list[float] = field(default_factory=list)
    inclusive_s: float | None = None
    unbalanced: int = 0
    flops: int | None = None
    f64: int | None = None
    f32: int | None = None
    iops: int | None = None
    op_kinds: dict = field(default_factory=dict)
    access_bytes: int | None = None
    accesses: int | None = None
    instances: int | None = None
    footprint_bytes: int | None = None     # summed over executions
    footprint_per_call: int | None = None  # largest single execution
    footprint_arrays: dict = field(default_factory=dict)
    params: list[dict] = field(default_factory=list)
    scop: bool = False
    exact: bool = True
    notes: list[str] = field(default_factory=list)
    statements: list[dict] = field(default_factory=list)
    isl_check: str | None = None           # counters vs isl instance counts
    hw: dict | None = None
    verdict: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.function}:{self.line}"

    @property
    def gflops(self) -> float | None:
        if self.flops is None or not self.time_s:
            return None
        return self.flops / self.time_s / 1e9

    @property
    def oi_access(self) -> float | None:
        return self.flops / self.access_bytes if self.flops is not None and self.access_bytes else None

    @property
    def oi_footprint(self) -> float | None:
        return self.flops / self.footprint_bytes if self.flops is not None and self.footprint_bytes else None

    @property
    def bw_access(self) -> float | None:
        return self.access_bytes / self.time_s if self.access_bytes is not None and self.time_s else None

    @property
    def bw_footprint(self) -> float | None:
        return self.footprint_bytes / self.time_s if self.footprint_bytes is not None and self.time_s else None

    def to_json(self) -> dict:
        return {
            "variant": self.variant, "index": self.index, "label": self.label, "function": self.function,
            "line": self.line, "last_line": self.last_line, "regenerated": self.regenerated,
            "covers": list(self.covers), "calls": self.calls, "time_s": self.time_s, "times_s": self.times_s,
            "inclusive_s": self.inclusive_s, "unbalanced": self.unbalanced, "flops": self.flops,
            "flops_fp64": self.f64, "flops_fp32": self.f32, "int_ops": self.iops, "op_kinds": self.op_kinds,
            "access_bytes": self.access_bytes, "accesses": self.accesses, "instances": self.instances,
            "footprint_bytes": self.footprint_bytes, "footprint_bytes_per_call": self.footprint_per_call,
            "footprint_elements": self.footprint_arrays, "gflops": self.gflops,
            "oi_access": self.oi_access, "oi_footprint": self.oi_footprint,
            "bandwidth_access_bytes_per_s": self.bw_access, "bandwidth_footprint_bytes_per_s": self.bw_footprint,
            "bound": None, "pct_of_ceiling": None, "attainable_flop_per_s": None, "home_level": None,
            "time_bounds_s": {}, "precision": None, **self.verdict, "scop": self.scop, "exact": self.exact,
            "notes": self.notes, "params": self.params,
            "isl_check": self.isl_check, "hw": self.hw, "statements": self.statements,
        }


@dataclass
class VariantProfile:
    name: str                      # "original" or "optimized"
    mode: str | None
    nests: list[NestProfile]
    commands: dict[str, str]
    runs: list[dict]
    timer_cost_s: float | None
    hw: dict
    notes: list[str] = field(default_factory=list)
    workdir: str | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "mode": self.mode, "commands": self.commands, "runs": self.runs,
                "timer_cost_s": self.timer_cost_s, "hw_counters": self.hw, "notes": self.notes,
                "workdir": self.workdir, "nests": [n.to_json() for n in self.nests]}


@dataclass
class ProfileResult:
    options: ProfileOptions
    variants: list[VariantProfile]
    ceilings: Ceilings | None
    machine: dict | None
    date: str
    notes: list[str] = field(default_factory=list)

    def variant(self, name: str) -> VariantProfile | None:
        return next((v for v in self.variants if v.name == name), None)


Progress = Callable[[str], None]


# --- building and running ----------------------------------------------------------------------

def _compile(argv: list[str], log: Path, timeout: float) -> None:
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    log.write_text(f"$ {shlex.join(argv)}\n{r.stdout}{r.stderr}")
    if r.returncode != 0:
        raise ProfileError(f"build failed ({log}):\n$ {shlex.join(argv)}\n{r.stderr.strip()[-4000:]}")


def _runtime_object(opts: ProfileOptions, workdir: Path, name: str, regions: int, counters: int, nbytes: int,
                    timeout: float) -> tuple[Path, str]:
    obj = workdir / f"{name}.o"
    argv = [*shlex.split(opts.cc), *opts.cflags, "-w", "-c", str(kernel_source("prof_runtime.c")),
            f"-DS2S_PROF_NREGIONS={max(1, regions)}", f"-DS2S_PROF_NCOUNTERS={max(1, counters)}",
            f"-DS2S_PROF_NBYTES={max(1, nbytes)}", "-o", str(obj)]
    _compile(argv, workdir / f"{name}.log", timeout)
    return obj, shlex.join(argv)


def _program(opts: ProfileOptions, workdir: Path, source: Path, runtime: Path, name: str) -> tuple[Path, str]:
    exe = workdir / name
    src_dir = str(Path(opts.source).resolve().parent)
    argv = [*shlex.split(opts.cc), *opts.cflags, "-iquote", src_dir, *opts.cpp_args, str(source),
            *map(str, opts.extra_sources), str(runtime), *opts.ldflags, "-o", str(exe)]
    _compile(argv, workdir / f"{name}.log", opts.timeout)
    return exe, shlex.join(argv)


@dataclass
class RunOutput:
    status: int
    seconds: float
    stdout_sha: str
    data: dict
    stderr_tail: str


def _run(opts: ProfileOptions, exe: Path, out_base: Path, threads: int, hw: bool) -> RunOutput:
    env = dict(os.environ)
    env["S2S_PROF_OUT"] = str(out_base)
    env["OMP_NUM_THREADS"] = str(threads)
    env.pop("S2S_PROF_HWC", None)
    if hw:
        env["S2S_PROF_HWC"] = "1"
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen([str(exe), *opts.program_args], cwd=str(opts.cwd or Path.cwd()), env=env,
                             stdout=None if opts.show_output else subprocess.PIPE,
                             stderr=None if opts.show_output else subprocess.PIPE, stdin=subprocess.DEVNULL)
        out, err = p.communicate(timeout=opts.timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise ProfileError(f"{exe.name}: timed out after {opts.timeout:.0f} s")
    seconds = time.perf_counter() - t0
    result_file = Path(f"{out_base}.{p.pid}")
    if not result_file.is_file():
        tail = (err or b"").decode(errors="replace")[-2000:]
        raise ProfileError(f"{exe.name} exited with status {p.returncode} and wrote no profile "
                           f"(crashed, or left through _exit/exec){': ' + tail if tail else ''}")
    data = parse_runtime_output(result_file.read_text())
    return RunOutput(p.returncode, seconds, hashlib.sha256(out or b"").hexdigest()[:16], data,
                     (err or b"").decode(errors="replace")[-2000:])


def parse_runtime_output(text: str) -> dict:
    """The text the runtime writes at exit -> {"regions": {r: {...}}, "counts": {k: n}, ...}."""
    data: dict = {"regions": {}, "counts": {}, "bytes": {}, "hw": {"on": False, "why": None}, "timer_cost_s": None}
    for line in text.splitlines():
        p = line.split()
        if not p:
            continue
        if p[0] == "timer_cost_s":
            data["timer_cost_s"] = float(p[1])
        elif p[0] == "hw":
            data["hw"] = {"on": p[1] == "1", "why": " ".join(p[2:]) if p[1] != "1" else None}
        elif p[0] == "region":
            data["regions"][int(p[1])] = {"calls": int(p[2]), "self_s": float(p[3]), "incl_s": float(p[4]),
                                          "unbalanced": int(p[5]), "entries": int(p[6]), "params": [],
                                          "overflow": False}
        elif p[0] == "region_hw":
            data["regions"][int(p[1])]["hw"] = dict(zip(HW_EVENTS, map(int, p[2:])))
        elif p[0] == "params":
            data["regions"][int(p[1])]["params"].append((int(p[2]), [int(x) for x in p[3:]]))
        elif p[0] == "params_overflow":
            data["regions"][int(p[1])]["overflow"] = True
        elif p[0] == "count":
            data["counts"][int(p[1])] = int(p[2])
        elif p[0] == "bytes":
            data["bytes"][int(p[1])] = int(p[2])
    return data


# --- the whole thing -------------------------------------------------------------------------------

def _uses_openmp(flags: list[str]) -> bool:
    return any(f in ("-fopenmp", "-qopenmp", "-fopenmp=libomp") or f.startswith("-fopenmp") for f in flags)


def run_profile(opts: ProfileOptions, machine=None, progress: Progress | None = None) -> ProfileResult:
    """Profile ``opts.source``; ``machine`` (a ``MachineProfile``) gives the roofline ceilings."""
    say = progress or (lambda _m: None)
    from frontends.c import lift_c_file
    from frontends.c.preprocess import preprocess

    source = Path(opts.source)
    if not source.is_file():
        raise ProfileError(f"{source}: no such file")
    path_text = str(source)
    text = source.read_text(errors="surrogateescape")
    say(f"lifting {source.name}")
    unit, _ = lift_c_file(path_text, opts.cpp_args, opts.cc, text=text)
    try:
        typedefs = typedefs_of(preprocess(path_text, opts.cpp_args, opts.cc))
    except Exception:
        typedefs = {}
    scops = models_by_node(unit, typedefs)
    if opts.optimized and opts.target == "openmp" and not _uses_openmp(opts.cflags):
        opts = dataclasses.replace(opts, cflags=[*opts.cflags, "-fopenmp"])
    threads = opts.threads or ((os.cpu_count() or 1) if _uses_openmp(opts.cflags) else 1)
    ceilings = Ceilings.from_machine(machine, threads) if machine is not None else None
    notes: list[str] = []
    if machine is None:
        notes.append("no machine profile: no roofline verdicts (run `s2s machine`)")

    workdir = Path(opts.keep) if opts.keep else Path(tempfile.mkdtemp(prefix="s2s-profile-"))
    workdir.mkdir(parents=True, exist_ok=True)
    variants = []
    try:
        say("original: instrumenting")
        variants.append(_profile_variant("original", opts, unit, text, path_text, typedefs, scops, threads,
                                         ceilings, workdir / "original", say))
        if opts.optimized:
            say("optimized: instrumenting")
            try:
                # counters the original's run found unavailable are not tried again (a whole run for nothing)
                known = variants[0].hw if not variants[0].hw.get("available") else None
                variants.append(_profile_variant("optimized", opts, unit, text, path_text, typedefs, scops, threads,
                                                 ceilings, workdir / "optimized", say, known))
            except ProfileError as exc:
                notes.append(f"the optimized program (s2s --mode {opts.mode}) could not be profiled: {exc}")
            except Exception as exc:  # a failure inside the optimizer is contained, as in s2s-cc
                notes.append(f"s2s --mode {opts.mode} failed on this file ({type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else ''}): only the original is profiled")
    finally:
        if not opts.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    if len(variants) > 1:
        notes += _compare_notes(variants)
    return ProfileResult(opts, variants, ceilings, machine.data if machine is not None else None,
                         time.strftime("%Y-%m-%dT%H:%M:%S%z"), notes)


def _profile_variant(name: str, opts: ProfileOptions, unit, text: str, path_text: str, typedefs, scops,
                     threads: int, ceilings: Ceilings | None, workdir: Path, say: Progress,
                     hw_unavailable: dict | None = None) -> VariantProfile:
    workdir.mkdir(parents=True, exist_ok=True)
    regions = find_regions(unit, text, name, opts.mode, opts.target, opts.fusion, opts.tile_sizes)
    models = {r.index: region_model(r.function, r.covers, unit, scops) for r in regions}
    envs = {r.index: TypeEnv(r.sdfg, typedefs) for r in regions}
    timing_c = workdir / f"{Path(path_text).stem}.s2s-timing.c"
    counting_c = workdir / f"{Path(path_text).stem}.s2s-counting.c"
    timing_c.write_text(timing_source(text, path_text, regions), errors="surrogateescape")
    counting_text, plan = counting_source(text, path_text, regions, lambda r: envs[r.index],
                                          lambda r: models[r.index].params if models[r.index].modelled else ())
    counting_c.write_text(counting_text, errors="surrogateescape")

    say(f"{name}: building ({len(regions)} loop nests)")
    with ThreadPoolExecutor(max_workers=2) as pool:
        t_rt = pool.submit(_runtime_object, opts, workdir, "runtime-timing", len(regions), 1, 1, opts.timeout)
        c_rt = pool.submit(_runtime_object, opts, workdir, "runtime-counting", len(regions), len(plan.counters),
                           len(plan.byte_counters), opts.timeout)
        t_obj, t_rt_cmd = t_rt.result()
        c_obj, _ = c_rt.result()
        t_exe = pool.submit(_program, opts, workdir, timing_c, t_obj, "timing")
        c_exe = pool.submit(_program, opts, workdir, counting_c, c_obj, "counting")
        (timing_exe, timing_cmd), (counting_exe, counting_cmd) = t_exe.result(), c_exe.result()

    say(f"{name}: counting run")
    counting = _run(opts, counting_exe, workdir / "counting.out", 1, hw=False)
    runs = [{"kind": "counting", "status": counting.status, "seconds": counting.seconds,
             "stdout_sha256": counting.stdout_sha}]
    timed: list[RunOutput] = []
    for k in range(opts.repeat):
        say(f"{name}: timed run {k + 1}/{opts.repeat}")
        r = _run(opts, timing_exe, workdir / f"timing{k}.out", threads, hw=False)
        timed.append(r)
        runs.append({"kind": "timing", "status": r.status, "seconds": r.seconds, "stdout_sha256": r.stdout_sha})
    hw_info = {"requested": opts.hw_counters, "available": False, "why": None}
    hw_run = None
    if opts.hw_counters != "off" and hw_unavailable is not None and hw_unavailable.get("why"):
        hw_info["why"] = hw_unavailable["why"]
    elif opts.hw_counters != "off":
        say(f"{name}: hardware counters")
        hw_run = _run(opts, timing_exe, workdir / "hw.out", threads, hw=True)
        runs.append({"kind": "hw-counters", "status": hw_run.status, "seconds": hw_run.seconds})
        hw_info["available"] = hw_run.data["hw"]["on"]
        hw_info["why"] = _hw_reason(hw_run.data["hw"]["why"])
        if not hw_info["available"]:
            hw_run = None
            if opts.hw_counters == "on":
                raise ProfileError(f"hardware counters unavailable: {hw_info['why']}")

    per_region = evaluate_counts(plan, counting.data["counts"], counting.data["bytes"])
    nests = []
    for r in regions:
        nests.append(_nest(name, r, models[r.index], plan, per_region.get(r.index), counting.data["regions"].get(
            r.index, {}), [t.data["regions"].get(r.index, {}) for t in timed],
            hw_run.data["regions"].get(r.index, {}).get("hw") if hw_run else None, ceilings))
    if name == "optimized":
        from s2s.ir import contains_loop

        for n in nests:
            loops = {c.id for c in unit.function(n.function).body.children if contains_loop(c)}
            extra = [c for c in n.covers if c not in loops]
            if extra:
                n.notes.append(f"the optimized code also holds {len(extra)} statement(s) of the user's outside loop "
                               f"nests (it rebuilt them with the loops): their work is counted here")
    notes = []
    statuses = {r["status"] for r in runs}
    if statuses != {0}:
        notes.append(f"the program exited with status {', '.join(map(str, sorted(statuses)))}")
    timer_cost = timed[0].data["timer_cost_s"] if timed else None
    for n in nests:
        if timer_cost and n.calls and n.time_s and n.calls * timer_cost > 0.05 * n.time_s:
            n.notes.append(f"{n.calls} execution(s) of {n.time_s / n.calls * 1e9:.0f} ns each: the timers "
                           f"({timer_cost * 1e9:.0f} ns a call) are a sizeable part of the time")
    mode = (opts.mode if opts.target == "c" else f"{opts.mode}, {opts.target}") if name == "optimized" else None
    return VariantProfile(name, mode, nests,
                          {"timing": timing_cmd, "counting": counting_cmd, "runtime": t_rt_cmd}, runs, timer_cost,
                          hw_info, notes, str(workdir) if opts.keep else None)


def _nest(variant: str, r: Region, model: RegionModel, plan: CountPlan, counted: dict | None, counting_region: dict,
          timed_regions: list[dict], hw: dict | None, ceilings: Ceilings | None) -> NestProfile:
    n = NestProfile(variant, r.index, r.function, r.line, r.last_line, r.regenerated, r.covers)
    n.scop = model.modelled
    if not model.modelled and model.reason:
        n.notes.append(f"no polyhedral model ({model.reason}): no footprint")
    times = [t.get("self_s", 0.0) for t in timed_regions if t.get("calls")]
    n.calls = max((t.get("calls", 0) for t in timed_regions), default=0)
    if times:
        n.times_s = times
        n.time_s = statistics.median(times)
        n.inclusive_s = statistics.median([t["incl_s"] for t in timed_regions if t.get("calls")])
        n.unbalanced = max(t.get("unbalanced", 0) for t in timed_regions)
    if n.unbalanced:
        n.notes.append(f"{n.unbalanced} execution(s) left the nest without passing its end (goto, longjmp, exit): "
                       f"their time is cut short")
    if r.index in plan.failed:
        n.exact = False
        n.notes.append(plan.failed[r.index])
    elif counted is not None:
        ops = counted["ops"]
        n.flops, n.f64, n.f32, n.iops = ops.flops, ops.f64, ops.f32, ops.iops
        n.op_kinds = dict(ops.kinds)
        n.access_bytes, n.accesses, n.instances = counted["bytes"], counted["accesses"], counted["instances"]
        n.statements = counted["statements"]
        n.exact = counted["exact"]
        n.notes.extend(counted["reasons"])
    elif counting_region.get("entries"):
        n.flops = n.f64 = n.f32 = n.iops = 0
        n.access_bytes = n.accesses = n.instances = 0
    opaque = r.opaque
    if opaque:
        n.exact = False
        n.notes.append("opaque code inside (" + "; ".join(dict.fromkeys(opaque)) + "): its work is not counted")
    # footprint at the recorded parameter values
    if model.modelled:
        tuples = counting_region.get("params", [])
        if counting_region.get("overflow"):
            n.notes.append("more than 64 distinct parameter tuples: footprint not counted")
        elif tuples:
            total, largest, arrays = 0, 0, {}
            cross = []
            for times_entered, values in tuples:
                env = dict(zip(model.params, values))
                n.params.append({"count": times_entered, "values": env})
                fp = footprint(model, env)
                if fp.bytes is None:
                    n.notes.append(f"footprint not counted: {fp.reason}")
                    total = None
                    break
                total += fp.bytes * times_entered
                largest = max(largest, fp.bytes)
                for a, v in fp.per_array.items():
                    arrays[a] = max(arrays.get(a, 0), v)
                cross.append((times_entered, instance_counts(model, env)))
            if total is not None:
                n.footprint_bytes, n.footprint_per_call, n.footprint_arrays = total, largest, arrays
                keys = {c.node: c.statement for c in plan.counters if c.region == r.index and c.kind == "block"}
                n.isl_check = _isl_check(cross, n.statements, keys,
                                         {st.block.id: statement_key(st.block) for st in model.statements})
    if n.isl_check and n.isl_check.startswith("MISMATCH"):
        n.notes.append(n.isl_check)
    if hw:
        n.hw = _hw_metrics(hw, n.time_s)
    if ceilings is not None and n.time_s:
        v = classify(n.f64 or 0, n.f32 or 0, n.access_bytes, n.footprint_bytes, n.footprint_per_call, n.time_s,
                     ceilings)
        n.verdict = v.to_json()
    return n


def _isl_check(cross: list[tuple[int, dict]], statements: list[dict], counted_keys: dict[str, object],
               model_keys: dict[str, object]) -> str | None:
    """Compare the counters with the isl instance counts of the SCoP statements, per statement of
    the user's code (``statement_key``): the optimized code may run one statement as several copies
    (split loops, or the original code behind an alias check), which together must run it exactly
    as often as the model says."""
    expected: dict[object, int] = {}
    line: dict[object, int | None] = {}
    for times_entered, counts in cross:
        for block, c in counts.items():
            if c is None:
                return None
            key = model_keys.get(block, block)
            expected[key] = expected.get(key, 0) + c * times_entered
    got: dict[object, int] = {}
    for s in statements:
        key = counted_keys.get(s["node"], s["node"])
        got[key] = got.get(key, 0) + s["count"]
        line.setdefault(key, s["line"])
    bad = [f"the statement on line {line.get(k, '?')}: counted {got.get(k)} vs model {e}"
           for k, e in expected.items() if got.get(k) != e]
    if bad:
        return "MISMATCH between the counters and the polyhedral model: " + "; ".join(bad)
    return f"counters agree with the polyhedral model ({len(expected)} statements)"


def _hw_reason(why: str | None) -> str | None:
    """The runtime's perf_event_open error, with what to do about it."""
    if not why:
        return why
    if "No such file" in why or "Operation not supported" in why or "No such device" in why:
        return why + " (the CPU, or the VM, exposes no performance counters)"
    if "Permission denied" in why or "Operation not permitted" in why:
        try:
            level = Path("/proc/sys/kernel/perf_event_paranoid").read_text().strip()
        except OSError:
            level = "?"
        return why + f" (kernel.perf_event_paranoid is {level}: counting your own process needs 2 or lower)"
    return why


def _hw_metrics(hw: dict, time_s: float | None) -> dict:
    out = dict(hw)
    if hw.get("cycles"):
        out["ipc"] = hw.get("instructions", 0) / hw["cycles"]
    if time_s and hw.get("llc_misses") is not None:
        out["llc_miss_bandwidth_bytes_per_s"] = hw["llc_misses"] * 64 / time_s
    if time_s and hw.get("l1d_read_misses") is not None:
        out["l1d_fill_bandwidth_bytes_per_s"] = hw["l1d_read_misses"] * 64 / time_s
    return out


# --- before and after ------------------------------------------------------------------------------

@dataclass
class Pair:
    """A region of the optimized program and the user's nests it replaced."""

    after: NestProfile
    before: list[NestProfile]

    @property
    def before_time(self) -> float | None:
        ts = [b.time_s for b in self.before if b.time_s is not None]
        return sum(ts) if ts else None

    @property
    def speedup(self) -> float | None:
        b, a = self.before_time, self.after.time_s
        return b / a if b and a else None


def pairs(result: ProfileResult) -> list[Pair]:
    before, after = result.variant("original"), result.variant("optimized")
    if before is None or after is None:
        return []
    by_cover = {(n.function, n.covers[0]): n for n in before.nests}
    out = []
    for a in after.nests:
        matched = [by_cover[(a.function, c)] for c in a.covers if (a.function, c) in by_cover]
        out.append(Pair(a, matched))
    return out


def _compare_notes(variants: list[VariantProfile]) -> list[str]:
    notes = []
    result = ProfileResult(ProfileOptions(Path(".")), variants, None, None, "")
    for p in pairs(result):
        bf = [b.flops for b in p.before]
        if len(p.before) != len(p.after.covers):
            continue   # the optimized region also holds statements outside the user's loop nests
        if p.after.flops is not None and all(f is not None for f in bf) and sum(bf) != p.after.flops and \
                p.after.exact and all(b.exact for b in p.before):
            notes.append(f"{p.after.label}: the optimized code counts {p.after.flops} FLOPs, the original "
                         f"{sum(bf)}: the optimizer changed the computation")
    return notes
