"""Constant sizes read as parameters: the family of loop nests a nest of constant sizes stands for.

A loop nest whose sizes are constants (``#define N 1000``, or the sizes clang propagates into a
static function) poses a Pluto-style scheduler integer programs in which those constants are
coefficients, where the same nest over a parameter ``n`` has a parameter: isl's integer
programming can take minutes on the first and milliseconds on the second, and a cost bound
``u.n + w`` has no ``n`` to grow with, so bands end where the parametric nest's go on. So the
scheduler may work on a copy of the SCoP in which each constant of a loop bound, condition or
subscript that is at least ``MIN_SIZE``, with those within ``NEAR`` of it, is a parameter plus an
offset (``998`` and ``999`` beside ``1000`` are ``N - 2`` and ``N - 1``).

The copy is checked to be exact: with each parameter fixed to its value it has the original's
domains, accesses and order, statement by statement. A schedule legal for every member of the
family is legal for that one. A constant that also multiplies or divides (the row width of a
flat array, ``a[i * 1000 + j]``) stays a constant, with those near it: as a parameter, the rows
of the family's other members would overlap, dependences the constant nest does not have.
"""
from __future__ import annotations

import islpy as isl

from s2s.analysis.affine import NotAffine
from s2s.analysis.scop import Scop, build_scop
from s2s.ir import Binary, Block, Call, Cast, Const, Declare, Expr, For, IfElse, Sym, Ternary, Unary, walk

MIN_SIZE = 32   # smaller constants are offsets, radii, channel counts: what they are
NEAR = 8        # constants this close to a size are that size plus an offset
_FACTOR_OPS = ("*", "/", "%", "<<", ">>")


def size_parameters(scop: Scop) -> Scop | None:
    """``scop`` with its constant sizes as parameters (named ``s2s_size_<value>``), or None where
    it has none, or where the copy would not be exact."""
    adding: set[int] = set()
    scaling: set[int] = set()
    for e in _affine_parts(scop):
        _constants(e, adding, scaling, False)
    sizes: dict[int, tuple[str, int]] = {}
    for group in _groups(sorted(v for v in adding if v >= MIN_SIZE)):
        if any(group[0] - NEAR <= v <= group[-1] + NEAR for v in scaling):
            continue
        name = f"s2s_size_{group[-1]}"
        if name in scop.params:
            continue
        for v in group:
            sizes[v] = (name, v - group[-1])
    if not sizes:
        return None
    new = sorted({name for name, _ in sizes.values()})
    try:
        sized = build_scop(scop.sdfg, scop.parent, scop.nodes, scop.params + tuple(new), sizes=sizes)
    except NotAffine:
        return None
    values = {name: v for v, (name, offset) in sizes.items() if offset == 0}
    return sized if _exact(scop, sized, values) else None


def _affine_parts(scop: Scop):
    """The expressions the model reads as affine: bounds, conditions, subscripts."""
    for root in scop.nodes:
        for n in walk(root):
            if isinstance(n, For):
                yield n.init
                yield n.cond
            elif isinstance(n, IfElse):
                yield n.cond
            blocks = [n] if isinstance(n, Block) else [n.init] if isinstance(n, Declare) and n.init is not None else []
            for b in blocks:
                for edge in b.graph.edges:
                    yield from edge.subset


def _constants(e: Expr, adding: set[int], scaling: set[int], factor: bool) -> None:
    if isinstance(e, Const):
        v = e.int_value
        if v is not None:
            (scaling if factor else adding).add(abs(v))
    elif isinstance(e, (Cast, Unary)):
        _constants(e.operand, adding, scaling, factor)
    elif isinstance(e, Binary):
        inner = factor or e.op in _FACTOR_OPS
        _constants(e.lhs, adding, scaling, inner)
        _constants(e.rhs, adding, scaling, inner)
    elif isinstance(e, Ternary):
        for part in (e.cond, e.then, e.other):
            _constants(part, adding, scaling, factor)
    elif isinstance(e, Call):
        for a in e.args:
            _constants(a, adding, scaling, factor)
    elif not isinstance(e, Sym):
        for part in getattr(e, "indices", ()) or ():   # (an element read in a subscript: not affine anyway)
            _constants(part, adding, scaling, True)


def _groups(values: list[int]) -> list[list[int]]:
    groups: list[list[int]] = []
    for v in values:
        if groups and v - groups[-1][-1] <= NEAR:
            groups[-1].append(v)
        else:
            groups.append([v])
    return groups


def _fixed(x, values: dict[str, int]):
    """``x`` with each size parameter fixed to its value and projected out."""
    for name, value in values.items():
        pos = x.find_dim_by_name(isl.dim_type.param, name)
        if pos >= 0:
            x = x.fix_val(isl.dim_type.param, pos, isl.Val.int_from_si(x.get_ctx(), value))
            x = x.project_out(isl.dim_type.param, pos, 1)
    return x


def _exact(scop: Scop, sized: Scop, values: dict[str, int]) -> bool:
    if [s.name for s in scop.statements] != [s.name for s in sized.statements]:
        return False
    for a, b in zip(scop.statements, sized.statements):
        if len(a.accesses) != len(b.accesses) or not _fixed(b.domain, values).is_equal(a.domain):
            return False
        if not _fixed(b.schedule, values).is_equal(a.schedule):
            return False
        for (wa, ma), (wb, mb) in zip(a.accesses, b.accesses):
            if wa != wb or not _fixed(mb, values).is_equal(ma):
                return False
    return True
