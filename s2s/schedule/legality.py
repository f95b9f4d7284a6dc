"""The last word on any schedule: every dependence must still go forward in time."""
from __future__ import annotations

import islpy as isl

from s2s.analysis.dependences import Dependences
from s2s.time_limit import isl_operation_limit


def is_legal(deps: Dependences, schedule: isl.Schedule | isl.UnionMap) -> bool:
    """Whether ``schedule`` (a tree, or a map to one time space) keeps every dependence (value-
    based flow, anti, output) in order: each pair of instances, mapped to their times, lies in the
    strict lexicographic order of that time space."""
    sched = schedule.get_map() if isinstance(schedule, isl.Schedule) else schedule
    relation = deps.flow.union(deps.anti).union(deps.output)
    in_time: list[isl.Map] = []
    relation.apply_domain(sched).apply_range(sched).foreach_map(in_time.append)
    for pairs in in_time:
        space = pairs.get_space()
        if not space.domain().is_equal(space.range()):
            return False   # (times of two shapes: not one order, so nothing is proven)
        if not pairs.is_subset(isl.Map.lex_lt(space.domain())):
            return False
    return True


def bands_stay_forward(deps: Dependences, untiled: isl.UnionMap, band_rows: list[list[int]]) -> bool:
    """Sufficient condition for tiling (and wavefronts over tiles) to be legal: on every band, each
    dependence not already ordered by the dimensions above it has a non-negative distance on
    every member. Checked on the untiled schedule, where it is cheap."""
    sched = untiled
    relation = deps.flow.union(deps.anti).union(deps.output)
    deltas = relation.apply_domain(sched).apply_range(sched).deltas()
    sets: list[isl.Set] = []
    deltas.foreach_set(sets.append)
    for rows in band_rows:
        first, last = rows[0], rows[-1]
        for d in sets:
            n = d.dim(isl.dim_type.set)
            if last >= n:
                return False
            tied = d
            for k in range(first):
                tied = tied.fix_val(isl.dim_type.set, k, isl.Val.zero(d.get_ctx()))
            for k in range(first, last + 1):
                negative = tied.upper_bound_val(isl.dim_type.set, k, isl.Val.negone(d.get_ctx()))
                if not negative.is_empty():
                    return False
    return True


def check(deps: Dependences, untiled: isl.UnionMap, final: isl.Schedule, band_rows: list[list[int]],
          max_operations: int = 200_000) -> tuple[bool, str]:
    """Whether ``final`` (tiled, wavefronted) may be emitted, and how that was established.

    The untiled schedule is checked exactly; the final one exactly too when isl manages within
    ``max_operations`` (tiled schedules have floor divisions that can make that slow), else by
    the band condition above, which implies it."""
    if not is_legal(deps, untiled):
        return False, "the schedule violates a dependence"
    try:
        with isl_operation_limit(max_operations):
            exact = is_legal(deps, final)
    except isl.Error:
        exact = None
    if exact is True:
        return True, "checked exactly"
    if exact is False:
        return False, "the tiled schedule violates a dependence"
    if bands_stay_forward(deps, untiled, band_rows):
        return True, "checked on the untiled schedule and band distances"
    return False, "tiling not proven legal"
