"""Unroll-and-jam of an outer loop over the loops inside it, when they are not one band with it.

atax's ``i`` loop holds two loops over ``j``: a row's dot product (``tmp[i]`` updated at every
``j``, a chain of dependent additions) and an update of all of ``y`` by that row. Their bands
are of one loop each, so the tiling of permutable bands never unrolls ``i`` into them. Here the
outer loop is strip-mined by a factor and its point loop sunk below every loop inside it and
unrolled: each inner loop then runs that many rows at once, four independent chains where there
was one (each row's sum still in its own order, so results are bit for bit the same), and
``y[j]`` loaded once for four rows.

Legal when every dependence the outer loop carries goes forward, or stays level, on the loops
inside it (then running a group's rows at the same inner iteration, in row order, keeps it).
Worth it where an inner loop carries a chain of updates of an element that moves with the
outer loop. The whole groups are generated apart from the last, partial one, with no guard
inside, so that code generation can keep the chains' elements in locals.
"""
from __future__ import annotations

import islpy as isl

from s2s.analysis.dependences import Dependences
from s2s.analysis.scop import Scop, Statement
from s2s.schedule.pluto import PlutoSchedule, Row
from s2s.schedule.point_order import access_subscripts, member_directions, reads_an_array


def jammable_rows(scop: Scop, deps: Dependences, sched: PlutoSchedule, times: isl.UnionMap) -> frozenset[int]:
    """The rows of ``sched`` (``times``: it as a map to one time space) that are a band of their
    own, with loops inside for the statements under them, that may and should be unrolled and
    jammed over those loops."""
    rows = sched.rows
    bands = {b[0]: len(b) for b in sched.bands()}
    found = set()
    for k, row in enumerate(rows):
        if row.kind != "hyperplane" or bands.get(k, 1) != 1 or (row.band >= 0 and k not in bands):
            continue
        under = [st for st in scop.statements if any(row.coefficients[st.name][:-1])]
        if not reads_an_array(under) or not any(chain_moves_with(st, rows, row) for st in under):
            continue
        if _inner_loops_keep_its_dependences(deps, times, k):
            found.add(k)
    return frozenset(found)


def chain_moves_with(st: Statement, rows: list[Row], outer: Row) -> bool:
    """Whether ``st``'s innermost loop, below ``outer``, updates an element in every iteration
    (reads and writes it, its subscripts unchanged along that loop) that changes with ``outer``."""
    varying = [r for r in rows if r.kind == "hyperplane" and any(r.coefficients[st.name][:-1])]
    if outer not in varying or varying[-1] is outer:
        return False
    directions = member_directions(st, varying)
    if directions is None:
        return False
    innermost, along_outer = directions[-1], directions[varying.index(outer)]
    reads = {(a.get_tuple_name(isl.dim_type.out), str(access_subscripts(a, st)))
             for is_write, a in st.accesses if not is_write}
    for is_write, access in st.accesses:
        subscripts = access_subscripts(access, st) if is_write else None
        if subscripts is None or (access.get_tuple_name(isl.dim_type.out), str(subscripts)) not in reads:
            continue
        if (all(_moves(sub, innermost) == 0 for sub in subscripts)
                and any(_moves(sub, along_outer) != 0 for sub in subscripts)):
            return True
    return False


def _moves(subscript: list[int], direction) -> object:
    return sum(c * d for c, d in zip(subscript, direction))


def _inner_loops_keep_its_dependences(deps: Dependences, times: isl.UnionMap, k: int) -> bool:
    """Whether every dependence carried by time dimension ``k`` (level on those before it, later
    on it) is lexicographically at or after its source on the dimensions after ``k``."""
    deltas: list[isl.Set] = []
    deps.validity.apply_domain(times).apply_range(times).deltas().foreach_set(deltas.append)
    ctx = times.get_ctx()
    for d in deltas:
        n = d.dim(isl.dim_type.set)
        carried = d
        for j in range(k):
            carried = carried.fix_val(isl.dim_type.set, j, isl.Val.zero(ctx))
        carried = carried.lower_bound_val(isl.dim_type.set, k, isl.Val.one(ctx))
        tied = carried
        for j in range(k + 1, n):
            if not tied.upper_bound_val(isl.dim_type.set, j, isl.Val.negone(ctx)).is_empty():
                return False
            tied = tied.fix_val(isl.dim_type.set, j, isl.Val.zero(ctx))
    return True


def jam_over_inner_loops(band: isl.ScheduleNode, factor: int) -> isl.ScheduleNode:
    """Band ``band`` (one member) strip-mined by ``factor``, its point loop moved below every loop
    of its subtree and unrolled there, each whole group of copies generated apart under the
    innermost band above it. Returns the tile band."""
    leaves = _leaf_paths(band.child(0))
    space = band.band_get_space()
    tile = band.band_tile(isl.MultiVal.zero(space).set_val(0, isl.Val.int_from_si(space.get_ctx(), factor)))
    top = tile.child(0).band_sink().parent()   # (sinking removes the point band: its child moves up)
    depth = top.get_tree_depth()
    for path in leaves:
        node = top.child(0)
        for position in path:
            node = node.child(position)
        sunk = node.band_member_set_ast_loop_type(0, isl.ast_loop_type.unroll)
        above = sunk.parent()
        while above.get_type() == isl.schedule_node_type.mark:
            above = above.parent()
        if (above.get_type() == isl.schedule_node_type.band and above.get_tree_depth() > depth
                and above.child(0).get_type() == isl.schedule_node_type.band
                and above.band_get_ast_build_options().is_empty()):
            above = above.band_set_ast_build_options(isolate_whole_groups(above, [factor]))
        top = above.ancestor(above.get_tree_depth() - depth)
    return top


def _leaf_paths(node: isl.ScheduleNode) -> list[list[int]]:
    """The child positions that lead from ``node`` to each leaf below it."""
    if node.get_type() == isl.schedule_node_type.leaf:
        return [[]]
    return [[c] + rest for c in range(node.n_children()) for rest in _leaf_paths(node.child(c))]


def isolate_whole_groups(outer: isl.ScheduleNode, extents: list[int]) -> isl.UnionSet:
    """The isolate option of band ``outer`` whose child band is unrolled with ``extents`` values
    per member (from 0, as isl's tiling shifts point loops): the iterations of ``outer`` (given
    the loops around it) that run every copy, which isl then generates apart from the others
    and without guards."""
    unrolled = outer.child(0)
    times = isl.Set.from_union_set(unrolled.child(0).get_prefix_schedule_relation().range())
    depth = times.dim(isl.dim_type.set)
    copies = len(extents)
    around = depth - copies - outer.band_n_member()
    ctx = times.get_ctx()
    every = times.drop_constraints_involving_dims(isl.dim_type.set, depth - copies, copies)
    for k, extent in enumerate(extents):
        every = every.lower_bound_val(isl.dim_type.set, depth - copies + k, isl.Val.zero(ctx))
        every = every.upper_bound_val(isl.dim_type.set, depth - copies + k, isl.Val.int_from_si(ctx, extent - 1))
    missing = every.subtract(times).project_out(isl.dim_type.set, depth - copies, copies)
    whole = times.project_out(isl.dim_type.set, depth - copies, copies).subtract(missing).coalesce()
    option = isl.Map.from_range(whole).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, around)
    return isl.UnionSet.from_set(option.wrap().set_tuple_name("isolate"))
