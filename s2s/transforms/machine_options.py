"""The optimizer's options for the machine it runs on: tile budgets and matrix-multiply kernel
blockings from its caches and vector registers (sysfs, via ``s2s.perf.topology``), and the cache
time tiles must leave to pay, from the caches' bandwidth where ``s2s machine`` has measured it."""
from __future__ import annotations

import dataclasses

from s2s.perf.topology import read_topology
from s2s.schedule.matmul import KernelTarget
from s2s.schedule.tile_sizes import DEFAULT_L1_BYTES, DEFAULT_TILE_BUDGET
from s2s.transforms.polyhedral import OptimizeOptions
from s2s.transforms.time_tiles import DEFAULT_FAST_CACHE, FastCache
from s2s.transforms.work_guard import work_thresholds


def optimize_options(fusion: str, tile_sizes: tuple[int, ...] | None, parallel: bool, kernels: bool = True,
                     profitability: bool = True, reassociate: bool = False,
                     vectors: tuple[int, int] | None = None):
    """The scheduler's options on this machine (its caches and vector registers, read once; the
    work thresholds from ``$S2S_WORK_THRESHOLDS`` or their defaults). ``vectors``: the width in
    bytes and the number of the vector registers of the target the code is compiled for, where
    that is not this machine (the compile flags say so)."""
    try:
        topo = read_topology()
    except OSError:
        topo = None
    profile = _measured_profile() if topo is not None else None
    matmul = kernel_target(topo) if kernels else None
    if matmul is not None and vectors is not None:
        matmul = dataclasses.replace(matmul, vector_bytes=vectors[0], vector_registers=vectors[1])
    return OptimizeOptions(fusion=fusion, tile_sizes=tile_sizes, tile_budget_bytes=tile_budget_bytes(topo),
                           l1_bytes=l1_bytes(topo), fast_cache=fast_cache(topo, profile),
                           parallel=parallel, matmul=matmul,
                           thresholds=work_thresholds(), profitability=profitability, reassociate=reassociate)


def tile_budget_bytes(topo) -> int:
    """What one tile's data may occupy on this machine: half the L2 share of one core (sysfs), the
    rest left to what the tile evicts and to the next tile's data."""
    l2 = topo.cache("L2") if topo is not None else None
    if l2 is None or not l2.size_bytes:
        return DEFAULT_TILE_BUDGET
    return max(l2.size_bytes // max(l2.shared_by, 1) // 2, 32 * 1024)


def l1_bytes(topo) -> int:
    """One core's L1 data cache (sysfs)."""
    l1 = topo.cache("L1") if topo is not None else None
    if l1 is None or not l1.size_bytes:
        return DEFAULT_L1_BYTES
    return l1.size_bytes // max(l1.shared_by, 1)


# A cache streams "much faster than memory" where its measured bandwidth is at least this many
# times memory's; one that does not (a server's last-level cache reached over a mesh, about as
# slow as memory from one core) is no reason to keep a stencil's time steps streaming through it.
FAST_CACHE_RATIO = 2.0


def fast_cache(topo, profile=None) -> FastCache:
    """One core's share of the largest cache that streams much faster than memory: the last-level
    cache (sysfs: L3, else L2), unless ``profile`` (this host's ``s2s machine`` profile) measured
    it below ``FAST_CACHE_RATIO`` times memory's bandwidth on one thread, then the level below."""
    dram = profile.bandwidth("DRAM") if profile is not None else None

    def slow(level: str) -> bool:
        speed = profile.bandwidth(level) if dram else None
        return bool(speed) and speed < FAST_CACHE_RATIO * dram

    found = [(level, cache) for level in ("L3", "L2")
             if topo is not None and (cache := topo.cache(level)) is not None and cache.size_bytes]
    if not found:
        return DEFAULT_FAST_CACHE
    level, cache = next(((lv, c) for lv, c in found if not slow(lv)), found[-1])
    return FastCache(cache.size_bytes // max(cache.shared_by, 1), level)


def _measured_profile():
    """This host's cached ``s2s machine`` profile, None where there is none (never measured here:
    a build does not wait for the measurement)."""
    from s2s.perf.machine import get_machine

    try:
        return get_machine(measure_if_missing=False)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def kernel_target(topo):
    """This machine's vector registers and caches, for the blocking of matrix-multiply kernels."""
    default = KernelTarget()
    if topo is None:
        return default
    l1, l2, l3 = topo.cache("L1"), topo.cache("L2"), topo.cache("L3")
    return KernelTarget(
        vector_bytes=max(topo.simd_bits // 8, 16),
        vector_registers=32 if "avx512f" in topo.isa else 16,
        l1_bytes=l1.size_bytes if l1 is not None and l1.size_bytes else default.l1_bytes,
        l2_bytes=(l2.size_bytes // max(l2.shared_by, 1)) if l2 is not None and l2.size_bytes else default.l2_bytes,
        l3_bytes=l3.size_bytes if l3 is not None and l3.size_bytes else default.l3_bytes,
    )
