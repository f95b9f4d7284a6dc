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

from fractions import Fraction

import islpy as isl

from s2s.analysis.dependences import Dependences
from s2s.analysis.scop import Scop, Statement
from s2s.schedule.pluto import PlutoSchedule, Row
from s2s.schedule.point_order import (
    access_subscripts, element, loops_of, member_directions, moves_along, one_piece, reads_an_array,
)
from s2s.schedule.whole_groups import band_above, mark_whole_groups
from s2s.time_limit import isl_operation_limit


JamRows = tuple[tuple[int, frozenset[str]], ...]   # (row, statements that may not be jammed over it)
JAM_CHECK_OPERATIONS = 500_000   # isl's steps for the legality of jamming one row


def jammable_rows(scop: Scop, deps: Dependences, sched: PlutoSchedule, times: isl.UnionMap) -> JamRows:
    """The rows of ``sched`` (``times``: it as a map to one time space) that are a band of their
    own, around loops of statements that carry a chain moving with them, with, for each, the
    statements it may not be unrolled and jammed over (in a dependence it carries that runs
    backward on the dimensions after it, or jammed already with a row found before). A row is
    shared by the groups of statements that the rows before it set apart, and such a dependence
    joins two statements of one group: the other groups may be jammed."""
    rows = sched.rows
    bands = {b[0]: len(b) for b in sched.bands()}
    found = []
    outer: list[tuple[int, frozenset[str], frozenset[str]]] = []   # (row, blocked, its statements)
    for k, row in enumerate(rows):
        if row.kind != "hyperplane" or bands.get(k, 1) != 1 or (row.band >= 0 and k not in bands):
            continue
        under = [st for st in scop.statements if any(row.coefficients[st.name][:-1])]
        if not reads_an_array(under) or not any(chain_moves_with(st, rows, row) for st in under):
            continue
        try:
            with isl_operation_limit(JAM_CHECK_OPERATIONS):
                blocked = frozenset(_backward_inside(deps, times, k))
        except isl.Error:   # (too dear to prove: none of its statements is jammed)
            blocked = frozenset(st.name for st in under)
        # (not inside a jam of a loop around it: its copies would reorder the loops inside that
        # one's, whose dependences were found forward in their own order)
        blocked |= frozenset().union(*(jammed - outer_blocked for _, outer_blocked, jammed in outer))
        if any(may_jam(((k, blocked),), rows, row, group) for group in groups_apart(rows, k, under)):
            found.append((k, blocked))
            outer.append((k, blocked, frozenset(st.name for st in under)))
    return tuple(found)


def groups_apart(rows: list[Row], k: int, stmts: list[Statement]) -> list[list[Statement]]:
    """``stmts`` in the groups that the scalar rows before row ``k`` set apart."""
    groups: dict[tuple[int, ...], list[Statement]] = {}
    for st in stmts:
        key = tuple(r.coefficients[st.name][0] for r in rows[:k] if r.kind == "scalar")
        groups.setdefault(key, []).append(st)
    return list(groups.values())


def may_jam(jams: JamRows, rows: list[Row], member: Row, stmts: list[Statement]) -> bool:
    """Whether ``member`` (a row of ``rows``) may be unrolled and jammed over the loops inside it
    for the group ``stmts``, and pays there."""
    names = {st.name for st in stmts}
    return any(rows[k] is member and not names & blocked for k, blocked in jams) and any(
        chain_moves_with(st, rows, member) for st in stmts)


def chain_moves_with(st: Statement, rows: list[Row], outer: Row, updates: bool = True) -> bool:
    """Whether ``st``'s innermost loop, below ``outer``, carries a chain that changes with
    ``outer``: it updates an element in every iteration (reads and writes it, its subscripts
    unchanged along that loop; not counted without ``updates``), or it is a recurrence, reading
    what it wrote some iterations before (adi's ``p[i][j]`` from ``p[i][j - 1]``)."""
    varying = loops_of(st, rows)
    if outer not in varying or varying[-1] is outer:
        return False
    directions = member_directions(st, varying)
    if directions is None:
        return False
    innermost, along_outer = directions[-1], directions[varying.index(outer)]
    reads = {element(a, st) for is_write, a in st.accesses if not is_write}
    for is_write, access in st.accesses:
        subscripts = access_subscripts(access, st) if is_write else None
        if subscripts is None or element(access, st) not in reads:
            continue
        if not any(moves_along(sub, along_outer) != 0 for sub in subscripts):
            continue
        if all(moves_along(sub, innermost) == 0 for sub in subscripts):
            if updates:
                return True
            continue
        same_element = [read for is_read_write, read in st.accesses
                        if not is_read_write and element(read, st) == element(access, st)]
        if any(_reads_back(read, access, subscripts, innermost) for read in same_element):
            return True
    return False


def _reads_back(read: isl.Map, write: isl.Map, subscripts: list[list[int]], innermost: list) -> bool:
    """Whether ``read`` (subscripts with the same iterator coefficients as ``write``'s) reads the
    element that ``write`` wrote a whole number of iterations before along the innermost loop,
    the same in every iteration of the loops around it."""
    try:
        offsets = one_piece(isl.PwMultiAff.from_map(write).sub(isl.PwMultiAff.from_map(read)))
    except isl.Error:
        return False
    if offsets is None or not all(aff.is_cst() for aff in offsets):
        return False
    shift = [aff.get_constant_val().to_python() for aff in offsets]
    moves = [moves_along(sub, innermost) for sub in subscripts]
    # shift = t * moves with a whole t > 0: the element read was written t iterations before
    steps = {Fraction(s) / m for s, m in zip(shift, moves) if m != 0}
    return (all(s == 0 for s, m in zip(shift, moves) if m == 0) and len(steps) == 1
            and (t := steps.pop()) > 0 and t.denominator == 1)


def _backward_inside(deps: Dependences, times: isl.UnionMap, k: int) -> set[str]:
    """The statements of the dependences carried by time dimension ``k`` (level on those before
    it, later on it) that are lexicographically before their source on the dimensions after it."""
    ctx = times.get_ctx()
    pairs: list[isl.Map] = []
    deps.validity.foreach_map(pairs.append)
    found: set[str] = set()
    for pair in pairs:
        deltas: list[isl.Set] = []
        isl.UnionMap.from_map(pair).apply_domain(times).apply_range(times).deltas().foreach_set(deltas.append)
        for d in deltas:
            carried = d
            for j in range(k):
                carried = carried.fix_val(isl.dim_type.set, j, isl.Val.zero(ctx))
            carried = carried.lower_bound_val(isl.dim_type.set, k, isl.Val.one(ctx))
            for j in range(k + 1, d.dim(isl.dim_type.set)):
                if not carried.upper_bound_val(isl.dim_type.set, j, isl.Val.negone(ctx)).is_empty():
                    found |= {pair.get_tuple_name(isl.dim_type.in_), pair.get_tuple_name(isl.dim_type.out)}
                    break
                carried = carried.fix_val(isl.dim_type.set, j, isl.Val.zero(ctx))
    return found


def jam_over_inner_loops(band: isl.ScheduleNode, factor: int) -> isl.ScheduleNode:
    """Band ``band`` (one member) strip-mined by ``factor``, its point loop moved below every loop
    of its subtree and unrolled there, each whole group of copies generated apart under the band
    right above it (not under the tile band: those are plain statements). Returns the tile band."""
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
        if band_above(sunk).get_tree_depth() > depth:
            sunk = mark_whole_groups(sunk, [factor])
        top = sunk.ancestor(sunk.get_tree_depth() - depth)
    return top


def _leaf_paths(node: isl.ScheduleNode) -> list[list[int]]:
    """The child positions that lead from ``node`` to each leaf below it."""
    if node.get_type() == isl.schedule_node_type.leaf:
        return [[]]
    return [[c] + rest for c in range(node.n_children()) for rest in _leaf_paths(node.child(c))]
