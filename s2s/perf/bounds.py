"""What the hardware can possibly deliver: upper bounds that a measured figure must respect.

A measured figure above its bound is a bug (the compiler removed work, a timer is wrong, a size was
miscounted): ``machine`` reports it as a problem and does not print the figure.

* Clock: the cpufreq maximum from sysfs where there is one; on a VM (no cpufreq, and the "cpu MHz"
  of /proc/cpuinfo is the TSC rate) the clock measured with a dependent-add chain, with a note.
  Bounds use ``f = max(sysfs max, cpuinfo MHz, measured) x 1.03`` (3 % for timer granularity).
* FLOP/s: ``cores x f x lanes x 2 (FMA) x pipes``; ``cores`` = min(threads, physical cores) since
  SMT siblings share the FMA units; ``lanes`` = SIMD width / element size (1 when scalar);
  ``pipes`` = 2 on x86 (no x86 core starts more than two vector FMAs a cycle), 4 on Arm.
* Bandwidth, per core and cycle, at the widest vector width W bytes: L1 6 W (loads plus stores:
  Zen 5 does 3 x 64 B, Golden Cove 5 x 32 B); L2 128 B (a 64 B line fill plus a write-back each
  cycle); L3 and DRAM 64 B (one line a cycle); DRAM also at most 1.5 TB/s per socket (the HBM
  parts; the DIMM configuration cannot be read without root).

Lower "bounds" (a cache level slower than the one below it) are not physical limits on a shared
machine, so they give notes, not problems.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from s2s.perf.topology import Topology

TOLERANCE = 1.03
ABSURD_HZ = 10e9            # no CPU runs this fast (the LN2 records are below 9.2 GHz)
DRAM_SOCKET_BYTES_PER_S = 1.5e12
BYTES_PER_CYCLE = {"L1": None, "L2": 128.0, "L3": 64.0, "DRAM": 64.0}   # L1: 6 x vector bytes


@dataclass(frozen=True)
class Clock:
    hz: float                 # what the bounds use (already includes TOLERANCE)
    source: str               # how it was chosen, for the report
    note: str | None = None


def bound_clock(topo: Topology, measured_hz: float | None) -> tuple[Clock, list[dict]]:
    """The clock the bounds use, and problems with the clock measurement itself."""
    problems: list[dict] = []
    sysfs = topo.max_mhz * 1e6 if topo.max_mhz else None
    cpuinfo = topo.cpuinfo_mhz * 1e6 if topo.cpuinfo_mhz else None
    if measured_hz is not None and (not math.isfinite(measured_hz) or measured_hz <= 0 or measured_hz > ABSURD_HZ):
        problems.append(problem("frequency.measured_hz", measured_hz, ABSURD_HZ, "the measured clock is not a "
                                "clock any CPU runs at: the dependent-add probe is broken on this target"))
        measured_hz = None
    if sysfs and measured_hz and measured_hz > sysfs * 1.05:
        problems.append(problem("frequency.measured_hz", measured_hz, sysfs * 1.05,
                                "the measured clock exceeds the cpufreq maximum"))
        measured_hz = None
    candidates = [(v, s) for v, s in ((sysfs, "cpufreq maximum (sysfs)"), (measured_hz, "measured"),
                                      (cpuinfo, "/proc/cpuinfo cpu MHz")) if v]
    if not candidates:
        return Clock(5e9 * TOLERANCE, "none known: 5 GHz assumed",
                     "no clock in sysfs or /proc/cpuinfo and no clock probe: bounds assume 5 GHz"), problems
    hz, source = max(candidates)
    note = None
    if sysfs is None:
        note = ("no cpufreq maximum in sysfs (typical of a VM): the bounds use the measured clock"
                if measured_hz else "no cpufreq maximum in sysfs and no clock probe: the bounds use /proc/cpuinfo")
        if cpuinfo and measured_hz and measured_hz > cpuinfo * 1.05:
            note += (f"; /proc/cpuinfo says {cpuinfo / 1e6:.0f} MHz, below the measured "
                     f"{measured_hz / 1e6:.0f} MHz: there it is the TSC rate, not the core clock")
    return Clock(hz * TOLERANCE, source, note), problems


def cores_for(topo: Topology, threads: int) -> int:
    return max(1, min(threads, topo.cores))


def flops_bound(topo: Topology, clock: Clock, threads: int, width_bits: int, precision: str) -> float:
    element_bits = 64 if precision == "fp64" else 32
    lanes = max(1, width_bits // element_bits) if width_bits else 1
    return cores_for(topo, threads) * clock.hz * lanes * 2 * topo.fma_pipes_bound


def bandwidth_bound(topo: Topology, clock: Clock, threads: int, level: str) -> float:
    per_cycle = BYTES_PER_CYCLE.get(level)
    if per_cycle is None:
        per_cycle = 6.0 * max(topo.simd_bits // 8, 16)
    bound = cores_for(topo, threads) * clock.hz * per_cycle
    if level == "DRAM":
        bound = min(bound, DRAM_SOCKET_BYTES_PER_S * topo.sockets)
    return bound


def problem(what: str, value, bound, why: str) -> dict:
    return {"what": what, "value": value, "bound": bound, "why": why}


def check(value: float | None, bound: float, what: str, why: str, problems: list[dict]) -> float | None:
    """``value`` if it is a positive finite number within ``bound``; else None, with a problem."""
    if value is None:
        return None
    if not math.isfinite(value) or value <= 0:
        problems.append(problem(what, value, bound, "not a positive finite number"))
        return None
    if value > bound:
        problems.append(problem(what, value, bound, why))
        return None
    return value
