"""Reductions: statements ``x = x op e`` (``+ - * & | ^``), ``x = fmax(x, e)``, ``x = e > x ? e : x``
and the like, whose order among themselves does not matter where ``op`` may be reassociated.

A loop whose iterations conflict only through such updates of a scalar, all with one operator,
may run in parallel with a private partial result per thread, combined at the end (OpenMP's
``reduction`` clause). That reorders the updates: exact for integer arithmetic (wrapping, which
is what the machine does) and integer maxima, a different rounding (or sign of a zero maximum)
for floating point, which only the user may allow (``-ffast-math``, ``-fassociative-math``,
``--s2s-reassociate``).
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from s2s.analysis.scop import Loop, Scop, Statement
from s2s.ir import Binary, Scalar, Tasklet, TypeKind, expr as ex, scalar_type

# The operators of ``x = x op e`` that make a reduction, and the OpenMP reduction each is: ``x -
# e`` adds ``-e`` (OpenMP's own ``-`` reduction means the same and is deprecated).
_OPERATORS = {"+": "+", "-": "+", "*": "*", "&": "&", "|": "|", "^": "^"}
_COMMUTATIVE = frozenset({"+", "*", "&", "|", "^"})
# ``x = fmax(x, e)``: exact in any order but for the sign of a zero maximum (fmax(-0.0, +0.0) is
# either), so only where floating point may be reordered.
_MAX_MIN_CALLS = {"fmax": "max", "fmaxf": "max", "fmaxl": "max", "fmin": "min", "fminf": "min", "fminl": "min"}
_COMPARISONS = frozenset({">", ">=", "<", "<="})


@dataclass(frozen=True)
class Reduction:
    statement: str
    target: str
    op: str


@dataclass(frozen=True)
class _Update:
    """``target = target op term`` in one statement: ``op`` an OpenMP reduction operator, or the
    operator as written where ``written`` is a plain binary one (``x - e``: ``-``)."""
    target: str
    op: str
    written: str
    term: ex.Expr
    types: dict           # the scalar type of each name ``term`` reads (None where unknown)
    exact: bool           # the same in any order for an integer ``target`` (max/min as a comparison)
    swapped: bool = False  # written ``e op x``


def reductions(scop: Scop) -> list[Reduction]:
    """Statements ``x = x op e`` (op associative and commutative: + * & | ^) where ``e`` does not
    read ``x``: candidates for parallel reduction (floating point only under -ffast-math)."""
    return [Reduction(s.name, u.target, u.written) for s in scop.statements for u in _updates(s, {})
            if u.written in _COMMUTATIVE and not u.swapped]


def _updates(s: Statement, containers) -> list[_Update]:
    """The updates of a scalar by itself and a term that does not read it, in ``s``: ``x = x op
    e`` (``op`` one of _OPERATORS; ``e op x`` too where ``op`` commutes), ``x = fmax(x, e)`` and
    the like, ``x = e > x ? e : x`` and the like."""
    out = []
    graph = s.block.graph
    for comp in graph.computations():
        if not isinstance(comp, Tasklet):
            continue
        (write,) = [e for e in graph.out_edges(comp.id)]
        inputs = {e.dst_conn: e for e in graph.in_edges(comp.id)}
        own = {n for n, e in inputs.items() if (e.data, e.subset) == (write.data, write.subset)}
        found = _update_of(comp.expr, own)
        if found is None:
            continue
        op, written, term, exact, swapped = found
        if any(inputs[n].data == write.data for n in ex.names(term) if n in inputs):
            continue
        types = {n: getattr(containers.get(n), "dtype", None) for n in ex.names(term)}
        types.update({n: getattr(containers.get(e.data), "dtype", None) for n, e in inputs.items()})
        out.append(_Update(write.data, op, written, term, types, exact, swapped))
    return out


def _update_of(e: ex.Expr, own: set[str]) -> tuple[str, str, ex.Expr, bool, bool] | None:
    """(OpenMP operator, operator as written, term, exact for integers, written ``e op x``) where
    ``e`` combines one read of the target (a connector of ``own``) with a term."""
    def is_own(x: ex.Expr) -> bool:
        return isinstance(x, ex.Sym) and x.name in own

    if isinstance(e, Binary) and e.op in _OPERATORS:
        if is_own(e.lhs):
            return _OPERATORS[e.op], e.op, e.rhs, True, False
        if e.op in _COMMUTATIVE and is_own(e.rhs):
            return _OPERATORS[e.op], e.op, e.lhs, True, True
    if isinstance(e, ex.Call) and e.func in _MAX_MIN_CALLS and len(e.args) == 2:
        a, b = e.args
        if is_own(a) != is_own(b):
            return _MAX_MIN_CALLS[e.func], e.func, b if is_own(a) else a, False, is_own(b)
    if isinstance(e, ex.Ternary) and isinstance(e.cond, Binary) and e.cond.op in _COMPARISONS:
        a, b = e.cond.lhs, e.cond.rhs
        if is_own(a) != is_own(b) and {e.then, e.other} == {a, b}:
            # (``a > b ? a : b`` is the larger; ``a > b ? b : a`` the smaller)
            larger = (e.then == a) == (e.cond.op in (">", ">="))
            return ("max" if larger else "min"), e.cond.op, b if is_own(a) else a, True, is_own(b)
    return None


def loop_reductions(scop: Scop, loop: Loop, names: set[str], floats: bool) -> dict[str, str]:
    """Of the scalars ``names``, those that every statement inside ``loop`` touching them only
    updates, as one update (``_updates``) with one OpenMP reduction operator for all, each with
    that operator: integer scalars updated by integer arithmetic (in any order the same, modulo
    2^n, or the same maximum), and with ``floats`` floating-point ones (which then round
    differently)."""
    containers = scop.sdfg.container_map
    found: dict[str, str] = {}
    refused: set[str] = set()
    for s in scop.statements_in(loop):
        touched = {m.get_tuple_name(isl.dim_type.out) for _, m in s.accesses} & names
        if not touched:
            continue
        updates = {u.target: u for u in _updates(s, containers)}
        for name in touched:
            # (one read of the old value, one write of the new: nothing else of the statement sees it)
            count = sum(1 for _, m in s.accesses if m.get_tuple_name(isl.dim_type.out) == name)
            update = updates.get(name)
            data = containers.get(name)
            integer = reducible(data, floats=False)
            exact = integer and update is not None and update.exact and (
                _integer(update.term, update.types)) and (update.op not in ("max", "min") or _fits(
                    _type_of(update.term, update.types), data.dtype))
            rounded = floats and not integer and reducible(data, floats=True)
            if (update is None or count != 2 or not (exact or rounded)
                    or found.setdefault(name, update.op) != update.op):
                refused.add(name)
    return {name: op for name, op in found.items() if name not in refused}


_INTEGERS = (TypeKind.SIGNED, TypeKind.UNSIGNED)


def reducible(data, floats: bool) -> bool:
    """Whether the container ``data`` is a scalar whose updates may be reduced in parallel at all:
    an integer, or with ``floats`` a floating-point number."""
    return isinstance(data, Scalar) and (data.dtype.kind in _INTEGERS or floats and data.dtype.is_float)
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "~", "<<", ">>"})
_TRUTH = frozenset({"<", "<=", ">", ">=", "==", "!=", "&&", "||", "!"})


def _integer(e: ex.Expr, types) -> bool:
    """Whether ``e`` is computed in integer arithmetic: integer literals, scalars and elements,
    conversions to an integer type, comparisons (of anything), and integer arithmetic on those
    (a floating-point term added to an integer is rounded to it after each update: an order of
    its own)."""
    if isinstance(e, ex.Const):
        return e.int_value is not None
    if isinstance(e, ex.Sym):
        t = types.get(e.name)
        return t is not None and t.kind in _INTEGERS
    if isinstance(e, ex.Cast):
        return scalar_type(e.type).kind in _INTEGERS
    if isinstance(e, (Binary, ex.Unary)) and e.op in _TRUTH:
        return True
    if isinstance(e, Binary) and e.op in _ARITHMETIC:
        return _integer(e.lhs, types) and _integer(e.rhs, types)
    if isinstance(e, ex.Unary) and e.op in _ARITHMETIC:
        return _integer(e.operand, types)
    if isinstance(e, ex.Ternary):
        return _integer(e.then, types) and _integer(e.other, types)
    return False


def _type_of(e: ex.Expr, types):
    """The scalar type of a term that is one name or a conversion (None for anything else)."""
    if isinstance(e, ex.Sym):
        return types.get(e.name)
    if isinstance(e, ex.Cast):
        return scalar_type(e.type)
    return None


def _fits(term, target) -> bool:
    """Whether every value of integer type ``term`` is one of ``target``: a maximum taken in the
    type the comparison promotes to is then the maximum in ``target`` (``unsigned char m = x < m ?
    x : m`` with a ``long x`` keeps the low byte of each smaller ``x``: an order of its own).
    Plain ``char`` has the sign of the platform, a typedef of the user's an unknown width: never."""
    if term is None or term.kind not in _INTEGERS or "char" in (term.spelling, target.spelling) or not (
            term.bits and target.bits):
        return False
    if term.kind is target.kind:
        return term.bits <= target.bits
    return term.kind is TypeKind.UNSIGNED and term.bits < target.bits
