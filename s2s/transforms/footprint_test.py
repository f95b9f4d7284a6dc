"""Tiles only where the sizes met at run time need them.

The cache model leaves a band untiled where one iteration of its outermost loop touches little
enough data for its reuse to stay in cache (``s2s.schedule.tile_sizes.untiled_footprint``). Where
the band's extents are parameters (a filter's radius, an image's width, passed at run time) that
footprint is not known when compiling and the band is tiled; tiles then cost what they cost (a
reduction accumulated in memory instead of a register, partial tiles, shorter vector loops) at
sizes where the user's loops keep their data in cache anyway. ``footprint_test`` gives the
condition, in the parameters, under which the tiles pay: some band's footprint leaves the cache
budget (or the lines it touches across rows leave L1). The generated code tests it before the
tiled version runs, the user's loops otherwise.
"""
from __future__ import annotations

import islpy as isl

from s2s.analysis.scop import Scop, Statement
from s2s.ir.expr import Binary, Const, Expr
from s2s.schedule.pluto import Row
from s2s.schedule.point_order import access_subscripts
from s2s.schedule.tile_sizes import LINE_BYTES, UnknownFootprint
from s2s.transforms.work_guard import set_work


def _values(member: Row, st: Statement) -> isl.Set:
    """The values ``member`` takes on the instances of ``st``."""
    c = member.coefficients[st.name]
    value = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(st.domain.get_space()))
    for pos, a in enumerate(c[:-1]):
        value = value.set_coefficient_val(isl.dim_type.in_, pos, a)
    value = value.set_constant_val(c[-1])
    return isl.Map.from_aff(value).intersect_domain(st.domain).range()


def _extent(scop: Scop, stmts: tuple[Statement, ...], member: Row) -> Expr | None:
    """How many values ``member`` takes on ``stmts``, as C in the parameters (None: unknown)."""
    values = None
    for st in stmts:
        v = _values(member, st)
        values = v if values is None else values.align_params(v.get_space()).union(v.align_params(values.get_space()))
    if values is None:
        return None
    work = set_work([values.coalesce()], scop.context)
    if work.count is not None:
        return Const(f"{float(work.count):.1f}")
    return work.expr


def _sum(total: Expr | None, term: Expr) -> Expr:
    return term if total is None else Binary("+", total, term)


def footprint_test(scop: Scop, bands: list[UnknownFootprint]) -> Expr | None:
    """The run-time condition that some of ``bands`` untiled would not keep its reuse in cache
    (None where an extent cannot be written in C)."""
    test: Expr | None = None
    for band in bands:
        extents: dict[int, Expr] = {}
        for j in sorted(set().union(*(t.members for t in band.terms))):
            extent = _extent(scop, band.stmts, band.members[j])
            if extent is None:
                return None
            extents[j] = extent
        total: Expr | None = None
        strided: Expr | None = None
        for term in band.terms:
            size: Expr = Const(f"{float(term.bytes):.1f}")
            for j in sorted(term.members):
                size = Binary("*", size, extents[j])
            total = _sum(total, size)
            if term.across_rows:
                strided = _sum(strided, size)
        if total is None:
            return None
        leaves: Expr = Binary(">", total, Const(f"{float(band.budget_bytes):.1f}"))
        if strided is not None:
            leaves = Binary("||", leaves, Binary(">", strided, Const(f"{float(band.l1_bytes):.1f}")))
        test = leaves if test is None else Binary("||", test, leaves)
    return test


def column_walk_test(scop: Scop, l1_bytes: int) -> Expr | None:
    """The run-time condition that the user's innermost loops walk across rows over more
    lines than L1 holds (per statement, the lines its accesses across rows touch in one run of
    its innermost loop); None where no access walks across rows there (or the counts cannot be
    written in C). A sum the user keeps in a register over a short column walk (a filter's taps
    down an image's rows) reads its lines from L1 anyway; a long one (a covariance down a
    table's rows) is what tiles are for."""
    total: Expr | None = None
    for st in scop.statements:
        if not st.iterators:
            continue
        inner = len(st.iterators) - 1
        across = 0
        for _, access in st.accesses:
            subscripts = access_subscripts(access, st)
            if subscripts is None:
                return None
            # (an interleaved array's pixel is a few bytes: moving along its row stays in a line)
            rows = subscripts[:1] if access.get_tuple_name(isl.dim_type.out) in scop.channels else subscripts[:-1]
            if subscripts and any(sub[inner] for sub in rows) and not subscripts[-1][inner]:
                across += 1
        if not across:
            continue
        values = st.domain.project_out(isl.dim_type.set, 0, inner)
        work = set_work([values.coalesce()], scop.context)
        extent = Const(f"{float(work.count):.1f}") if work.count is not None else work.expr
        if extent is None:
            return None
        total = _sum(total, Binary("*", Const(f"{float(across * LINE_BYTES):.1f}"), extent))
    return None if total is None else Binary(">", total, Const(f"{float(l1_bytes):.1f}"))
