"""The roofline: ceilings from ``s2s machine`` and which one limits a loop nest.

A loop nest that does F floating-point operations (F64 in double, F32 in float), makes A bytes of
accesses (every load and store, the cache-aware view) and touches D distinct bytes per execution
(its footprint) cannot take less than any of

* ``t_compute = F64 / peak_fp64 + F32 / peak_fp32`` (the best SIMD peak, on the threads used);
* ``t_L1 = A / BW_L1``: every access goes through L1 (Intel Advisor's cache-aware roofline, CARM);
* ``t_home = D_total / BW_home``: the data must come at least once from the level it lives in, the
  smallest level whose capacity holds one execution's footprint (L1, L2, L3, else DRAM); D_total
  is the footprint summed over executions (compulsory traffic, no reuse between executions).

The largest of these is the *bound* that limits the nest; the attainable performance is
``F / max(t)``, and "% of ceiling" is ``max(t) / measured time``: 100 % means the nest runs at the
roofline. For a nest without FLOPs (copies, initialisation) the same time bounds apply to its
bandwidth. Which ceilings apply: the 1-thread ones for a sequential run, the all-threads ones
when the program runs on more threads.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from s2s.perf.machine import LEVELS, MachineProfile

MEMORY_LEVELS = LEVELS


@dataclass(frozen=True)
class Ceilings:
    threads: int
    compute: dict[str, float]       # "fp64", "fp32", "fp64_scalar", "fp32_scalar": FLOP/s
    bandwidth: dict[str, float]     # "L1", "L2", "L3", "DRAM": bytes/s
    capacity: dict[str, float]      # bytes each level holds for these threads
    source: str = ""

    @staticmethod
    def from_machine(machine: MachineProfile, threads: int = 1) -> "Ceilings":
        roofs = machine.roofs(threads)
        compute = {k: v for k, v in roofs.items() if k.startswith("fp") and not k.endswith("_width")}
        bandwidth = {lv: roofs[lv] for lv in MEMORY_LEVELS if lv in roofs}
        capacity = {lv: c for lv in bandwidth if (c := machine.capacity(lv, threads)) is not None}
        tkey = machine.threads_key(threads)
        used = machine.data["threads"].get(tkey, 1)
        src = f"{machine.description}, {used} thread{'s' if used > 1 else ''}"
        if machine.path:
            src += f" ({machine.path})"
        return Ceilings(used, compute, bandwidth, capacity, src)

    def to_json(self) -> dict:
        return {"threads": self.threads, "compute_flop_per_s": self.compute, "bandwidth_bytes_per_s": self.bandwidth,
                "capacity_bytes": {k: (v if math.isfinite(v) else None) for k, v in self.capacity.items()},
                "source": self.source}

    def home(self, footprint: float | None) -> str | None:
        """The smallest level whose capacity holds ``footprint`` bytes."""
        if footprint is None:
            return None
        for lv in MEMORY_LEVELS:
            if lv in self.bandwidth and footprint <= self.capacity.get(lv, math.inf if lv == "DRAM" else 0):
                return lv
        return "DRAM" if "DRAM" in self.bandwidth else None

    def attainable(self, oi: float, level: str, precision: str = "fp64") -> float | None:
        """FLOP/s of the roof at operational intensity ``oi`` for memory ``level``."""
        peak = self.compute.get(precision)
        bw = self.bandwidth.get(level)
        if peak is None or bw is None:
            return None
        return min(peak, oi * bw)


@dataclass(frozen=True)
class Verdict:
    bound: str | None                   # "compute", "L1", "L2", "L3", "DRAM", or None
    pct: float | None                   # % of the limiting ceiling reached
    attainable_flop_per_s: float | None
    home: str | None                    # where one execution's footprint fits
    time_bounds: dict[str, float] = field(default_factory=dict)   # seconds, per bound
    precision: str | None = None        # "fp64" / "fp32": the compute ceiling used

    def to_json(self) -> dict:
        return {"bound": self.bound, "pct_of_ceiling": self.pct, "attainable_flop_per_s": self.attainable_flop_per_s,
                "home_level": self.home, "time_bounds_s": self.time_bounds, "precision": self.precision}


def classify(f64: float, f32: float, access_bytes: float | None, footprint_total: float | None,
             footprint_per_call: float | None, time_s: float | None, ceilings: Ceilings) -> Verdict:
    bounds: dict[str, float] = {}
    precision = None
    if f64 or f32:
        precision = "fp64" if f64 >= f32 else "fp32"
        t = 0.0
        ok = True
        for n, key in ((f64, "fp64"), (f32, "fp32")):
            if n:
                peak = ceilings.compute.get(key) or (ceilings.compute.get("fp64") if key == "fp32" else None)
                if not peak:
                    ok = False
                    break
                t += n / peak
        if ok:
            bounds["compute"] = t
    if access_bytes and "L1" in ceilings.bandwidth:
        bounds["L1"] = access_bytes / ceilings.bandwidth["L1"]
    home = ceilings.home(footprint_per_call)
    if footprint_total and home is not None and home in ceilings.bandwidth:
        t = footprint_total / ceilings.bandwidth[home]
        bounds[home] = max(bounds.get(home, 0.0), t)
    if not bounds:
        return Verdict(None, None, None, home, {}, precision)
    bound, t_min = max(bounds.items(), key=lambda kv: kv[1])
    flops = f64 + f32
    attainable = flops / t_min if flops and t_min > 0 else None
    pct = 100.0 * t_min / time_s if time_s and time_s > 0 else None
    return Verdict(bound, pct, attainable, home, bounds, precision)
