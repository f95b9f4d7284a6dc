"""Arrays that each iteration of a loop may work on a copy of its own (array privatization).

Iterations that use an array as scratch, each writing what it reads before it reads it, conflict
on its memory but pass no value through it: with a copy per iteration (per thread, in practice)
the conflict is gone and the loop may run in parallel. The copy of the last iteration is the
array itself, so what follows the loop finds there what it found before (OpenMP's
``lastprivate``). Exact dataflow (isl's, in the SCoP's own order) decides that an array may be
so copied when
- every read inside the loop reads a value written in the same iteration of it (and of the
  loops around it): none from an earlier iteration, none from before the loop;
- every read after the loop reads a value written by the loop's last iteration (in the same
  iteration of the loops around it), or written after the loop.
What the other iterations leave in their copies is lost: the caller privatizes only arrays that
nothing reads once the SCoP is done (scratch arrays the SCoP allocated itself).
"""
from __future__ import annotations

import islpy as isl

from s2s.analysis.dependences import accesses_to, exact_flow, maps_of
from s2s.analysis.scop import Loop, Scop


def privatizable(scop: Scop, loop: Loop, array: str) -> bool:
    """Whether each iteration of ``loop`` may work on a copy of ``array`` of its own, the last
    iteration's copy being the array itself (see the module docstring)."""
    inside = {s.name for s in scop.statements_in(loop)}
    flow = exact_flow(accesses_to(scop.reads, array), accesses_to(scop.writes, array), scop.schedule_map,
                      scop.schedule_tree)
    if flow is None:
        return False   # isl cannot tell where the values come from
    if any(m.get_tuple_name(isl.dim_type.in_) in inside for m in maps_of(flow.may_no_source)):
        return False   # a value from before the SCoP is read inside the loop
    dim = 2 * loop.depth + 1   # the loop's dimension of the flat schedule
    followed = _followed_by_later_iteration(scop, inside, dim)
    for dep in maps_of(flow.must_dependence):
        source, sink = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
        if source not in inside:
            if sink in inside:
                return False   # a value from before the loop is read inside it
            continue
        times = dep.apply_domain(scop.statement(source).schedule).apply_range(scop.statement(sink).schedule)
        if sink in inside:
            same = times
            for k in range(dim + 1):
                same = same.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
            if not times.is_subset(same):
                return False   # a value passes from one iteration to a later one
        elif not times.domain().intersect(followed).is_empty():
            return False       # read after the loop, written by an iteration other than the last
    return True


def _followed_by_later_iteration(scop: Scop, inside: set[str], dim: int) -> isl.Set:
    """The times (flat schedule) of the loop's statement instances after which the loop has
    another iteration, in the same iteration of the loops around it."""
    times = None
    for s in scop.statements:
        if s.name in inside:
            r = s.schedule.range()
            times = r if times is None else times.union(r)
    pairs = isl.Map.from_domain_and_range(times, times)
    for k in range(dim):
        pairs = pairs.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
    return pairs.order_lt(isl.dim_type.in_, dim, isl.dim_type.out, dim).domain()
