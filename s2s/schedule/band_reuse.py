"""Whether tiling a band can pay: only where a cache line is used again by iterations that differ
in one of the band's outer loops. A band whose instances touch each line in one run of its
innermost loop only (an initialisation, an element-wise sum of arrays) streams through memory in
any tiling; tiles there only lengthen the code and split the loops that the compiler vectorizes.
Element-level reuse is not enough to decide: a transposition touches each element once, yet its
column walk reuses lines across the outer loop, which tiles do capture."""
from __future__ import annotations

import dataclasses

import islpy as isl

from s2s.analysis.dependences import maps_of
from s2s.analysis.scop import Scop, Statement
from s2s.schedule.pluto import PlutoSchedule, Row
from s2s.schedule.point_order import innermost_member
from s2s.schedule.tree import rows_map

LINE_ELEMENTS = 8  # elements of one cache line (64 bytes of double; float lines hold more)
MAX_STATEMENTS = 24  # the check is per pair of statements


def streaming_bands(scop: Scop, sched: PlutoSchedule) -> frozenset[int]:
    """Numbers of the bands of two or more members that reuse no cache line across their outer
    loops (those to leave untiled). Past ``MAX_STATEMENTS`` every band is taken to reuse lines."""
    if len(scop.statements) > MAX_STATEMENTS:
        return frozenset()
    out: set[int] = set()
    statements = list(scop.statements)
    lines = {s.name: _line_accesses(scop, s) for s in statements}
    for rows in sched.bands():
        if len(rows) < 2:
            continue
        members = [sched.rows[k] for k in rows]
        inner = innermost_member(statements, members)
        if not _reuses_lines_across(scop, lines, sched.rows[:rows[0]], members, inner):
            out.add(members[0].band)
    return frozenset(out)


def _reuses_lines_across(scop: Scop, lines: dict[str, isl.UnionMap], outer: list[Row], members: list[Row],
                         inner: int) -> bool:
    """Whether two instances in one iteration of the ``outer`` rows touch one cache line (``lines``:
    each statement's accesses to lines) in different iterations of a member that is the innermost
    loop of neither statement (the point loops run with member ``inner`` innermost)."""
    order = [j for j in range(len(members)) if j != inner] + [inner]
    innermost = {s.name: _innermost_loop(s, members, order) for s in scop.statements}
    times = rows_map(scop, outer + members)
    for s in scop.statements:
        for t in scop.statements:
            same_line = lines[s.name].apply_range(lines[t.name].reverse())
            if same_line.is_empty():
                continue
            deltas = same_line.apply_domain(times).apply_range(times).deltas()
            if deltas.is_empty():
                continue
            delta = isl.Set.from_union_set(deltas)
            ctx = delta.get_ctx()
            for k in range(len(outer)):
                delta = delta.fix_val(isl.dim_type.set, k, isl.Val.zero(ctx))
            for j in range(len(members)):
                if j in (innermost[s.name], innermost[t.name]):
                    continue
                k = len(outer) + j
                if not (delta.lower_bound_val(isl.dim_type.set, k, isl.Val.one(ctx)).is_empty()
                        and delta.upper_bound_val(isl.dim_type.set, k, isl.Val.negone(ctx)).is_empty()):
                    return True
    return False


def _innermost_loop(stmt: Statement, members: list[Row], order: list[int]) -> int | None:
    """The member that makes the statement's innermost point loop (None: no member varies on it)."""
    varying = [j for j in order if any(members[j].coefficients[stmt.name][:-1])]
    return varying[-1] if varying else None


def _line_accesses(scop: Scop, stmt: Statement) -> isl.UnionMap:
    """Every access of ``stmt``, to the cache line (the last subscript divided by
    ``LINE_ELEMENTS``) rather than the element."""
    accesses = stmt.reads.union(stmt.writes).intersect_domain(isl.UnionSet.from_set(stmt.domain))
    out = isl.UnionMap.empty(accesses.get_space())
    for m in maps_of(accesses):
        n = m.dim(isl.dim_type.out)
        if n:
            name = m.get_tuple_name(isl.dim_type.out)
            subscripts = [f"d{k}" for k in range(n)]
            lined = subscripts[:-1] + ["e"]
            params = f"[{', '.join(scop.params)}] -> " if scop.params else ""
            to_line = isl.Map(f"{params}{{ {name}[{', '.join(subscripts)}] -> {name}[{', '.join(lined)}] : "
                              f"{LINE_ELEMENTS}e <= d{n - 1} < {LINE_ELEMENTS}e + {LINE_ELEMENTS} }}")
            m = m.apply_range(to_line)
        out = out.union(isl.UnionMap.from_map(m))
    return out


def inner_member_last(scop: Scop, sched: PlutoSchedule, bands: frozenset[int]) -> PlutoSchedule:
    """``sched`` with the members of each band in ``bands`` ordered as their untiled loops will
    run: the one ``innermost_member`` picks last (members of a band permute freely)."""
    rows = list(sched.rows)
    for band in sched.bands():
        if rows[band[0]].band not in bands:
            continue
        members = [rows[k] for k in band]
        inner = innermost_member(list(scop.statements), members)
        for k, row in zip(band, [m for j, m in enumerate(members) if j != inner] + [members[inner]]):
            rows[k] = row
    return dataclasses.replace(sched, rows=rows)
