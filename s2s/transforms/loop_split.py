"""Index-set splitting of a counted loop at one iteration: ``for (v = a; v < b; v++) body``
becomes the loops over ``[a, min(b, p))``, ``[max(a, p), min(b, p + 1))`` and ``[max(a, p + 1), b)``,
which run the same iterations in the same order. Where the loop reads an element that its other
accesses reach only at ``v == p`` (Floyd-Warshall's ``path[i][k]``, written at ``j == k`` of the
loop over j; a row divided by its own diagonal element), each outer piece may keep that element
in a register, and the compiler vectorizes it without a run-time test on every row.
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from s2s.analysis.affine import AffineBuilder, NotAffine, aff_expr
from s2s.ir import Binary, Const, Expr, For, Sequence, Sym, Ternary
from s2s.ir import expr as ex
from s2s.ir.rewrite import with_id_suffix


def counted_upward(loop: For) -> Expr | None:
    """The exclusive upper bound of ``loop`` when it is ``for (v = a; v < b (or <=); v++)`` with a
    bound that does not change in it; else None. (The pieces leave ``v`` at another value after
    them: in a SCoP's regenerated code no loop variable is read after its loop.)"""
    v = loop.var
    update, cond = loop.update, loop.cond
    if not (isinstance(update, Binary) and update.op == "+" and update.lhs == Sym(v)
            and isinstance(update.rhs, Const) and update.rhs.int_value == 1):
        return None
    if not (isinstance(cond, Binary) and cond.op in ("<", "<=") and cond.lhs == Sym(v)
            and v not in ex.names(cond.rhs)):
        return None
    return cond.rhs if cond.op == "<" else ex.plus_one(cond.rhs)


def may_run_long(loop: For, trips: int) -> bool:
    """Whether ``loop`` (``counted_upward``) may run ``trips`` iterations or more: not a tile's
    point loop, whose bounds keep it shorter whatever the variables around it (its end below a
    constant, as s2s writes point loops from 0 in each tile, or its length). (A split costs two
    more loops' set-up, and the compiler's vector prologue and epilogue, on every run of the
    loop: on a few dozen iterations more than the reloads it saves.)"""
    end = counted_upward(loop)
    assert end is not None
    names = sorted(ex.names(loop.init) | ex.names(end))
    build = AffineBuilder([], names)
    try:
        last, first = build.pw_aff(end), build.pw_aff(loop.init)
    except NotAffine:
        return True
    least = build.const(trips)
    return not (last.ge_set(least).is_empty() or last.sub(first).ge_set(least).is_empty())


def reached_only_at(loop: For, kept: tuple[Expr, ...], moving: tuple[Expr, ...]) -> Expr | None:
    """The one value of ``loop``'s variable at which subscripts ``moving`` may name the element
    ``kept`` (which does not move with the loop), as an expression of the variables around the
    loop: the solution of one subscript that moves by exactly one element per iteration. None
    where no subscript does so (or one is not affine)."""
    v = loop.var
    names = sorted(set().union(*(ex.names(d) for d in kept + moving)) | {v})
    build = AffineBuilder([], names)
    for k, m in zip(kept, moving):
        try:
            diff = build.pw_aff(m).sub(build.pw_aff(k))
        except NotAffine:
            return None
        if diff.n_piece() != 1:
            continue
        ((_, aff),) = diff.get_pieces()
        step = aff.get_coefficient_val(isl.dim_type.param, names.index(v)).to_python()
        if step not in (1, -1):
            continue
        # (diff = step * v + rest vanishes only at v = -step * rest)
        at = build.pw_aff(Sym(v)).sub(diff.scale_val(isl.Val.int_from_si(diff.get_ctx(), step)))
        ((_, point),) = at.get_pieces()
        try:
            return aff_expr(point, names)
        except NotAffine:
            return None
    return None


def split_at(loop: For, point: Expr) -> Sequence:
    """``loop`` (``counted_upward``) as the three loops before, at and after ``v == point``."""
    end = counted_upward(loop)
    assert end is not None
    v = Sym(loop.var)
    after = ex.plus_one(point)

    def piece(suffix: str, first: Expr, stop: Expr) -> For:
        copy = with_id_suffix(loop, suffix)
        assert isinstance(copy, For)
        return dataclasses.replace(copy, init=first, cond=Binary("<", v, stop))

    return Sequence(f"S.split.{loop.id}", (
        piece("_before", loop.init, _least(end, point)),
        piece("_at", _greatest(loop.init, point), _least(end, after)),
        piece("_after", _greatest(loop.init, after), end),
    ), loop.origin)


def _least(a: Expr, b: Expr) -> Expr:
    return Ternary(Binary("<", a, b), a, b)


def _greatest(a: Expr, b: Expr) -> Expr:
    return Ternary(Binary(">", a, b), a, b)

