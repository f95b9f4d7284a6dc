"""Copies of an outer loop jammed into a recurrence, each some iterations behind the one before.

seidel-2d's statement reads ``A[i][j - 1]``, which it wrote one iteration before along j: each
iteration waits for the last one's chain of additions and its division, and the loop runs at
the latency of that chain. Unrolled and jammed into it, an outer loop would run several chains
at once, but its next iteration reads what this one writes a little ahead (row ``i + 1`` reads
the new ``A[i][j + 1]``): a copy at the same inner iteration waits for the copy before it. With
the inner loop skewed by the outer one (copy ``r`` runs ``lag * r`` iterations behind copy 0)
every value a copy reads was made in an earlier iteration, and the copies' chains overlap.

Legal in a permutable band: adding a non-negative multiple of one member to another keeps
every dependence distance in the band non-negative (the band stays permutable), and unroll-and-
jam is then a tiling and a permutation of the band's members.
"""
from __future__ import annotations

import islpy as isl

from s2s.analysis.scop import Statement
from s2s.schedule.outer_jam import chain_moves_with
from s2s.schedule.pluto import Row

MAX_LAG = 4   # inner iterations per copy; a larger lag would leave most of a short row partial


def recurrence_moves_with(stmts: list[Statement], members: list[Row], outer: int) -> bool:
    """Whether the innermost of ``members`` (loops in their order, innermost last) carries a
    recurrence that moves with member ``outer``: some statement reads back along it what it wrote
    some iterations before. (A chain of updates of one element, a reduction, is one operation
    long: there tiles pay more than copies.)"""
    return any(chain_moves_with(st, members, members[outer], updates=False) for st in stmts)


def copy_lag(deltas: isl.Set, fixed: list[int], outer: int, inner: int, factor: int) -> int | None:
    """The least lag that leaves the ``factor`` copies of dimension ``outer`` independent in each
    iteration of dimension ``inner``: no dependence distance (``deltas``, one dimension per
    schedule row) that is zero on the dimensions ``fixed``, 1 to ``factor - 1`` on ``outer``, has
    ``d_inner + lag * d_outer <= 0``. None when no lag up to ``MAX_LAG`` does."""
    ctx = deltas.get_ctx()
    between = deltas
    for k in fixed:
        between = between.fix_val(isl.dim_type.set, k, isl.Val.zero(ctx))
    between = between.lower_bound_val(isl.dim_type.set, outer, isl.Val.one(ctx))
    between = between.upper_bound_val(isl.dim_type.set, outer, isl.Val.int_from_si(ctx, factor - 1))
    if between.is_empty():
        return 0
    space = between.get_space()
    for lag in range(MAX_LAG + 1):
        # d_inner + lag * d_outer <= 0, i.e. -d_inner - lag * d_outer >= 0
        behind = (isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(space))
                  .set_coefficient_val(isl.dim_type.set, inner, isl.Val.negone(ctx))
                  .set_coefficient_val(isl.dim_type.set, outer, isl.Val.int_from_si(ctx, -lag)))
        if between.add_constraint(behind).is_empty():
            return lag
    return None


def distances(validity: isl.UnionMap, times: isl.UnionMap) -> isl.Set | None:
    """The dependence distances of ``validity`` in the time space of ``times`` (one map per
    statement to the same space), as one set; None when there are none."""
    found: list[isl.Set] = []
    validity.apply_domain(times).apply_range(times).deltas().foreach_set(found.append)
    if not found:
        return None
    out = found[0]
    for s in found[1:]:
        out = out.union(s)
    return out
