"""Run-time checks that pointer arrays do not overlap (the model assumes they are distinct).

A reordered SCoP is only correct if names that C allows to share memory (s2s.analysis.aliasing:
pointers of any kind, a pointer and a declared array or global scalar) do not overlap where one is
written. The optimized code runs under a check of the address ranges the SCoP touches, with the
original code as the other branch (as Polly does). Rows reached through row pointers are not
checked: such SCoPs keep their order.
"""
from __future__ import annotations

import islpy as isl

from s2s.analysis.dependences import maps_of
from s2s.analysis.scop import Scop
from s2s.ir import Access, Array, Binary, Cast, Const, Expr, Sym, Ternary, Unary


class Uncheckable(Exception):
    """The touched range of an array cannot be written as a C expression."""


def _aff_expr(aff: isl.Aff, params: tuple[str, ...]) -> Expr:
    if not aff.get_denominator_val().is_one() or aff.dim(isl.dim_type.div) > 0:
        raise Uncheckable("bound with a division")
    out: Expr | None = None
    for k, name in enumerate(params):
        c = aff.get_coefficient_val(isl.dim_type.param, k).to_python()
        if c:
            term: Expr = Sym(name) if c == 1 else Binary("*", Const(str(c)), Sym(name))
            out = term if out is None else Binary("+", out, term)
    const = aff.get_constant_val().to_python()
    if out is None:
        return Const(str(const))
    if const:
        out = Binary("+", out, Const(str(const))) if const > 0 else Binary("-", out, Const(str(-const)))
    return out


def _bound(pa: isl.PwAff, params: tuple[str, ...], lowest: bool) -> Expr:
    """A C expression for ``pa``; a piecewise bound becomes the smallest (``lowest``) or largest
    of its pieces, each evaluated at the run-time parameters: a box that may be wider than the
    touched one, never narrower."""
    pieces: list = []
    pa.foreach_piece(lambda s, a: pieces.append(a))
    if not pieces:
        raise Uncheckable("empty range")
    out = _aff_expr(pieces[0], params)
    for piece in pieces[1:]:
        e = _aff_expr(piece, params)
        if e != out:
            out = Ternary(Binary("<" if lowest else ">", e, out), e, out)
    return out


def touched_box(scop: Scop, array: str) -> tuple[list[Expr], list[Expr]]:
    """Per dimension, the smallest and largest index of ``array`` the SCoP touches."""
    touched = None
    for m in maps_of(scop.reads.union(scop.writes)):
        if m.get_tuple_name(isl.dim_type.out) == array:
            r = m.range()
            touched = r if touched is None else touched.union(r)
    if touched is None:
        raise Uncheckable(f"{array} is not accessed")
    touched = touched.coalesce()
    n = touched.dim(isl.dim_type.set)
    lo = [_bound(touched.dim_min(k), scop.params, lowest=True) for k in range(n)]
    hi = [_bound(touched.dim_max(k), scop.params, lowest=False) for k in range(n)]
    return lo, hi


def _address(scop: Scop, name: str, index: list[Expr], past: bool = False) -> Expr:
    row = scop.delinearized.get(name)
    if row is not None:   # modelled as A[outer][inner], written A[outer * row + inner]
        outer, inner = index
        index = [Binary("+", Binary("*", outer, Sym(row)), inner)]
    element: Expr = Unary("&", Access(name, tuple(index)) if index else Sym(name))
    if past:
        element = Binary("+", element, Const("1"))
    return Cast("unsigned long", element)


def no_overlap_condition(scop: Scop) -> Expr | None:
    """A C condition true when no two names that may alias overlap (None: nothing to check).
    Raises Uncheckable when some range cannot be expressed."""
    rows = scop.overlapping_rows()
    if rows:
        raise Uncheckable(f"rows of {', '.join(rows)} reached through pointers")
    pairs = scop.may_alias()
    if not pairs:
        return None
    boxes = {name: touched_box(scop, name) for pair in pairs for name in (pair.first, pair.second)}
    for name in boxes:
        data = scop.sdfg.container_map[name]
        if isinstance(data, Array) and data.row_pointers:
            raise Uncheckable(f"rows of {name} reached through pointers")
    cond: Expr | None = None
    for pair in pairs:
        a, b = pair.first, pair.second
        (alo, ahi), (blo, bhi) = boxes[a], boxes[b]
        disjoint = Binary("||", Binary("<=", _address(scop, a, ahi, past=True), _address(scop, b, blo)),
                          Binary("<=", _address(scop, b, bhi, past=True), _address(scop, a, alo)))
        cond = disjoint if cond is None else Binary("&&", cond, disjoint)
    return cond
