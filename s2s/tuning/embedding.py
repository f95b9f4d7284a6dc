"""Performance embeddings of loop nests, and the nearest ones.

A nest's embedding is its feature vector (``s2s.perf.features``: structure, arithmetic, access
pattern, dependences, sizes, and what a profile measured) together with the features of the
machine it runs on (``machine_features``). Counts are put on a log scale; each field is then
divided by its spread over the nests of the database (at least a floor per kind of field), so
that no field weighs by its unit. The distance is the root mean square of the weighted
differences over the fields both nests know: a nest seen only at build time (no profile, sizes
unknown) is compared on what it has, not penalized for what it lacks. Fields are weighted by
group (``Weights``), data a user or an evaluation may change.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from s2s.perf.features import FEATURE_FIELDS

NAN = float("nan")

# the machine's fields: what decides which recipe pays (parallelism, vector width, cache sizes, roofs)
MACHINE_FIELDS = ("log2_cpus", "log2_simd_bits", "log2_l1_bytes", "log2_l2_bytes", "log2_l3_bytes",
                  "log2_peak_gflops", "log2_dram_gbs")

# the groups fields belong to, and how to put each on a comparable scale
_COUNT_UNITS = {"loops", "statements", "count", "accesses", "FLOP", "ops", "iterations"}
_GROUPS = (
    ("structure", ("depth", "n_loops", "n_statements", "is_scop", "n_params", "n_arrays", "reads_per_stmt",
                   "writes_per_stmt")),
    ("arithmetic", ("flops_per_stmt", "iops_per_stmt", "frac_add", "frac_mul", "frac_div", "frac_math",
                    "frac_cmp", "frac_fp32")),
    ("access", ("stride0_frac", "stride1_frac", "strided_frac", "irregular_frac")),
    ("dependences", ("n_flow_deps", "n_anti_deps", "n_output_deps", "parallel_loop_frac", "outer_parallel",
                     "inner_parallel", "carried_loops", "min_carried_distance", "n_reductions")),
    ("sizes", ("log2_instances", "log2_trip_outer", "log2_trip_inner", "log2_footprint_bytes", "log2_flops",
               "oi_access", "oi_footprint")),
    ("measured", ("time_share", "log10_time_per_call_s", "gflops", "bw_access_gbs", "pct_of_ceiling",
                  "bound_compute", "bound_L1", "bound_L2", "bound_L3", "bound_DRAM")),
    ("machine", MACHINE_FIELDS),
)
GROUPS = {name: group for group, names in _GROUPS for name in names}
_LOG_SCALED = {f.name for f in FEATURE_FIELDS if f.unit in _COUNT_UNITS} | {"gflops", "bw_access_gbs",
                                                                               "oi_access", "oi_footprint"}


@dataclass(frozen=True)
class Weights:
    """How much each group of fields counts in the distance (0: not at all)."""

    structure: float = 1.0
    arithmetic: float = 1.0
    access: float = 1.0
    dependences: float = 1.0
    sizes: float = 1.0
    measured: float = 0.5
    machine: float = 1.0

    def of(self, name: str) -> float:
        return getattr(self, GROUPS.get(name, "structure"))


def machine_features(measure: bool = False) -> dict[str, float]:
    """This host's fields: its topology always, its measured roofs where ``s2s machine`` has
    cached them (or ``measure``)."""
    from s2s.perf.machine import get_machine
    from s2s.perf.topology import read_topology

    topo = read_topology()
    out = {"log2_cpus": math.log2(max(1, topo.usable_cpus)), "log2_simd_bits": math.log2(max(1, topo.simd_bits))}
    for level in ("L1", "L2", "L3"):
        cache = topo.cache(level)
        out[f"log2_{level.lower()}_bytes"] = math.log2(cache.size_bytes) if cache and cache.size_bytes else NAN
    try:
        profile = get_machine(measure_if_missing=measure)
    except Exception:  # (a machine profile that cannot be read leaves the roofs unknown)
        profile = None
    peak = profile.peak("fp64", profile.threads_all) if profile else None
    dram = profile.bandwidth("DRAM", profile.threads_all) if profile else None
    out["log2_peak_gflops"] = math.log2(peak / 1e9) if peak else NAN
    out["log2_dram_gbs"] = math.log2(dram / 1e9) if dram else NAN
    return out


def embed(features: Mapping[str, float | None], machine: Mapping[str, float] | None = None) -> dict[str, float]:
    """One nest's raw embedding: its fields and the machine's, counts on a log scale, unknown
    fields left out."""
    out = {}
    for name, value in [*features.items(), *(machine or {}).items()]:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        value = float(value)
        out[name] = math.log2(1 + max(0.0, value)) if name in _LOG_SCALED else value
    return out


def least_spread(name: str) -> float:
    """The smallest spread a field is divided by: a database where it hardly varies must not
    make a small difference in it count as a large one (a fraction by a tenth, a flag by half,
    a log-scaled count or size by one step)."""
    unit = _UNITS.get(name, "")
    if unit == "fraction":
        return 0.1
    if unit == "0/1":
        return 0.5
    return 1.0


_UNITS = {f.name: f.unit for f in FEATURE_FIELDS}


@dataclass
class Scale:
    """Per field the spread (standard deviation) over a set of embeddings, at least
    ``least_spread``: differences are measured in it."""

    spread: dict[str, float] = field(default_factory=dict)

    @staticmethod
    def over(embeddings: Iterable[Mapping[str, float]]) -> "Scale":
        import numpy as np

        columns: dict[str, list[float]] = {}
        for e in embeddings:
            for name, value in e.items():
                columns.setdefault(name, []).append(value)
        return Scale({name: max(float(np.std(values)), least_spread(name)) for name, values in columns.items()})

    def standardized(self, embedding: Mapping[str, float]) -> dict[str, float]:
        return {n: v / self.spread.get(n, least_spread(n)) for n, v in embedding.items()}


def distance(a: Mapping[str, float], b: Mapping[str, float], weights: Weights = Weights()) -> float:
    """Weighted root mean square difference of two standardized embeddings over the fields both
    have (infinite when they share none)."""
    total = weight = 0.0
    for name in a.keys() & b.keys():
        w = weights.of(name)
        total += w * (a[name] - b[name]) ** 2
        weight += w
    return math.sqrt(total / weight) if weight else math.inf


@dataclass(frozen=True)
class Neighbour:
    index: int          # in the candidates given
    distance: float


def nearest(query: Mapping[str, float], candidates: list[Mapping[str, float]], k: int = 3,
            weights: Weights = Weights(), scale: Scale | None = None) -> list[Neighbour]:
    """The ``k`` candidates (raw embeddings) nearest to ``query``, nearest first; differences
    measured in the candidates' spreads unless ``scale`` is given."""
    scale = scale or Scale.over(candidates)
    q = scale.standardized(query)
    found = [Neighbour(i, distance(q, scale.standardized(c), weights)) for i, c in enumerate(candidates)]
    return sorted(found, key=lambda n: (n.distance, n.index))[:k]
