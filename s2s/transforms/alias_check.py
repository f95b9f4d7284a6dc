"""Run-time checks that pointer arrays do not overlap (the model assumes they are distinct).

A reordered SCoP is only correct if names that C allows to share memory (s2s.analysis.aliasing:
pointers of any kind, a pointer and a declared array or global scalar) do not overlap where one is
written. The optimized code runs under a check of the address ranges the SCoP touches, with the
original code as the other branch (as Polly does). Rows reached through row pointers
(``float **rows``) are checked to lie apart in ascending order.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from s2s.analysis.affine import NotAffine, aff_expr
from s2s.analysis.dependences import maps_of
from s2s.analysis.scop import Scop
from s2s.ir import ROWS_APART, Access, Array, Binary, Call, Cast, Const, Expr, SizeOf, Sym, Ternary, Unary
from s2s.ir.expr import substitute


class Uncheckable(Exception):
    """The touched range of an array cannot be written as a C expression."""


def _aff_expr(aff: isl.Aff, params: tuple[str, ...]) -> Expr:
    try:
        return aff_expr(aff, params)
    except NotAffine as e:
        raise Uncheckable(str(e)) from None


def _bound(pa: isl.PwAff, params: tuple[str, ...], lowest: bool, context: isl.Set) -> Expr:
    """A C expression for ``pa`` where it is defined. A piecewise bound picks its piece by the
    piece's condition on the parameters; where a condition cannot be written in C, it becomes
    the smallest (``lowest``) or largest of its pieces, each evaluated at the run-time
    parameters: a box that may be wider than the touched one, never narrower."""
    pieces: list[tuple[isl.Set, isl.Aff]] = []
    pa.foreach_piece(lambda s, a: pieces.append((s, a)))
    if not pieces:
        raise Uncheckable("empty range")
    values = [_aff_expr(a, params) for _, a in pieces]
    where = pa.domain().intersect_params(context)
    try:
        out = values[-1]
        for (s, _), e in zip(reversed(pieces[:-1]), reversed(values[:-1])):
            if e != out:
                condition = _params_condition(s.gist(where).coalesce(), params)
                out = e if condition is None else Ternary(condition, e, out)
        return out
    except Uncheckable:
        out = values[0]
        for e in values[1:]:
            if e != out:
                out = Ternary(Binary("<" if lowest else ">", e, out), e, out)
        return out


@dataclass(frozen=True)
class Box:
    """Per dimension, the smallest and largest index of an array the SCoP touches, and the
    condition on the parameters under which it touches any (None: whenever the SCoP runs; the
    bounds mean nothing where it is false)."""

    lo: list[Expr]
    hi: list[Expr]
    nonempty: Expr | None


def _constraint_expr(c: isl.Constraint, params: tuple[str, ...]) -> Expr:
    value = _aff_expr(c.get_aff(), params)
    return Binary("==" if c.is_equality() else ">=", value, Const("0"))


def _params_condition(s: isl.Set, params: tuple[str, ...]) -> Expr | None:
    """A C condition for a set of parameter values (None: all of them; ``0`` for none)."""
    if s.plain_is_universe():
        return None
    if s.is_empty():
        return Const("0")
    out: Expr | None = None
    for basic in s.get_basic_sets():
        if basic.dim(isl.dim_type.div):
            raise Uncheckable("parameter condition with a division")
        term: Expr | None = None
        for c in basic.get_constraints():
            e = _constraint_expr(c, params)
            term = e if term is None else Binary("&&", term, e)
        term = term if term is not None else Const("1")
        out = term if out is None else Binary("||", out, term)
    return out


def assumed_condition(scop: Scop) -> Expr | None:
    """The C condition on the parameters under which the SCoP's model holds (``Scop.context``:
    what its delinearized subscripts and ``!=`` loop exits assume), None where it assumes
    nothing. The parameters are read as ``long long``: ``n - lo >= 0`` of unsigned ``n`` and
    ``lo`` is true in C whatever they are."""
    context = scop.context.coalesce()
    condition = None if context.plain_is_universe() else _params_condition(context, scop.params)
    return None if condition is None else substitute(condition, {p: Cast("long long", Sym(p)) for p in scop.params})


def touched_box(scop: Scop, array: str) -> Box:
    """The box of ``array``'s elements the SCoP touches."""
    touched = None
    for m in maps_of(scop.reads.union(scop.writes)):
        if m.get_tuple_name(isl.dim_type.out) == array:
            r = m.range()
            touched = r if touched is None else touched.union(r)
    if touched is None:
        raise Uncheckable(f"{array} is not accessed")
    touched = touched.coalesce()
    n = touched.dim(isl.dim_type.set)
    lo = [_bound(touched.dim_min(k), scop.params, lowest=True, context=scop.context) for k in range(n)]
    hi = [_bound(touched.dim_max(k), scop.params, lowest=False, context=scop.context) for k in range(n)]
    nonempty = _params_condition(touched.params().gist(scop.context).coalesce(), scop.params)
    return Box(lo, hi, nonempty)


def _address(scop: Scop, name: str, index: list[Expr], past: bool = False) -> Expr:
    row = scop.delinearized.get(name)
    if row is not None and name in scop.channels:   # A[outer][middle][inner]: A[(outer * row + middle) * K + inner]
        outer, middle, inner = index
        pixel = Binary("+", Binary("*", outer, Sym(row)), middle)
        index = [Binary("+", Binary("*", pixel, Const(str(scop.channels[name]))), inner)]
    elif row is not None:   # modelled as A[outer][inner], written A[outer * row + inner]
        outer, inner = index
        index = [Binary("+", Binary("*", outer, Sym(row)), inner)]
    elif name in scop.grids:
        index = [scop.grids[name].address(index)]
    element: Expr = Unary("&", Access(name, tuple(index)) if index else Sym(name))
    if past:
        element = Binary("+", element, Const("1"))
    return Cast("unsigned long", element)


def _rows_apart(scop: Scop, name: str, box: Box) -> Expr:
    """True when the rows of ``name`` that the SCoP touches lie apart, in ascending order."""
    data = scop.sdfg.container_map[name]
    if data.row_pointers != 1 or data.rank != 2:
        raise Uncheckable(f"rows of rows of {name} reached through pointers")
    return Call(ROWS_APART, (Cast("const void *const *", Sym(name)), box.lo[0], box.hi[0], box.lo[1], box.hi[1],
                             SizeOf(data.dtype.spelling)))


def _only_if(condition: Expr | None, check: Expr) -> Expr:
    return check if condition is None else Binary("||", Unary("!", condition), check)


def no_overlap_condition(scop: Scop) -> Expr | None:
    """A C condition true when no two names that may alias overlap (None: nothing to check).
    Rows reached through row pointers are checked to lie apart first, where the SCoP writes
    them or they meet another name, so that their rows lie between their first and last
    element. Raises Uncheckable when some range cannot be expressed."""
    pairs = scop.may_alias()
    rows = [r for r in dict.fromkeys(scop.overlapping_rows() + [n for p in pairs for n in (p.first, p.second)])
            if isinstance(scop.sdfg.container_map[r], Array) and scop.sdfg.container_map[r].row_pointers]
    if not pairs and not rows:
        return None
    boxes = {name: touched_box(scop, name) for name in {n for p in pairs for n in (p.first, p.second)} | set(rows)}
    checks: list[Expr] = [_only_if(boxes[r].nonempty, _rows_apart(scop, r, boxes[r])) for r in rows]
    for pair in pairs:
        a, b = pair.first, pair.second
        (alo, ahi), (blo, bhi) = (boxes[a].lo, boxes[a].hi), (boxes[b].lo, boxes[b].hi)
        disjoint = Binary("||", Binary("<=", _address(scop, a, ahi, past=True), _address(scop, b, blo)),
                          Binary("<=", _address(scop, b, bhi, past=True), _address(scop, a, alo)))
        # where a row array touches nothing, its addresses are not computed (they load rows)
        for name in (a, b):
            if name in rows:
                disjoint = _only_if(boxes[name].nonempty, disjoint)
        checks.append(disjoint)
    cond = checks[0]
    for c in checks[1:]:
        cond = Binary("&&", cond, c)
    return cond
