"""Reductions: statements ``x = x op e`` whose order among themselves does not matter where ``op``
may be reassociated.

A loop whose iterations conflict only through such updates of a scalar, all with one operator,
may run in parallel with a private partial result per thread, combined at the end (OpenMP's
``reduction`` clause). That reorders the updates: exact for integer arithmetic (wrapping, which
is what the machine does), a different rounding for floating point, which only the user may
allow (``-ffast-math``, ``-fassociative-math``, ``--s2s-reassociate``).
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from s2s.analysis.scop import Loop, Scop, Statement
from s2s.ir import Binary, Tasklet, TypeKind, expr as ex, scalar_type

# The operators of ``x = x op e`` that make a reduction, and the OpenMP reduction each is: ``x -
# e`` adds ``-e`` (OpenMP's own ``-`` reduction means the same and is deprecated).
_OPERATORS = {"+": "+", "-": "+", "*": "*", "&": "&", "|": "|", "^": "^"}


@dataclass(frozen=True)
class Reduction:
    statement: str
    target: str
    op: str


def reductions(scop: Scop) -> list[Reduction]:
    """Statements ``x = x op e`` (op associative and commutative: + * & | ^) where ``e`` does not
    read ``x``: candidates for parallel reduction (floating point only under -ffast-math)."""
    return [r for s in scop.statements for r in _updates(s) if r.op != "-"]


def _updates(s: Statement) -> list[Reduction]:
    """The updates ``x = x op e`` (``op`` one of _OPERATORS, ``e`` not reading ``x``) of ``s``."""
    out = []
    for comp in s.block.graph.computations():
        if not isinstance(comp, Tasklet) or not isinstance(comp.expr, Binary):
            continue
        (write,) = [e for e in s.block.graph.out_edges(comp.id)]
        inputs = {e.dst_conn: e for e in s.block.graph.in_edges(comp.id)}
        e = comp.expr
        if e.op not in _OPERATORS or not isinstance(e.lhs, ex.Sym) or e.lhs.name not in inputs:
            continue
        src = inputs[e.lhs.name]
        others = [inputs[n] for n in ex.names(e.rhs) if n in inputs]
        if (src.data, src.subset) == (write.data, write.subset) and all(o.data != write.data for o in others):
            out.append(Reduction(s.name, write.data, e.op))
    return out


def loop_reductions(scop: Scop, loop: Loop, names: set[str], floats: bool) -> dict[str, str]:
    """Of the scalars ``names``, those that every statement inside ``loop`` touching them only
    updates, as one ``x = x op e`` with one OpenMP reduction operator for all, each with that
    operator: integer scalars updated by integer arithmetic (in any order the same, modulo 2^n),
    and with ``floats`` floating-point ones (``x = x op e`` then rounds differently)."""
    containers = scop.sdfg.container_map
    found: dict[str, str] = {}
    refused: set[str] = set()
    for s in scop.statements_in(loop):
        touched = {m.get_tuple_name(isl.dim_type.out) for _, m in s.accesses} & names
        if not touched:
            continue
        updates = {r.target: r for r in _updates(s)}
        for name in touched:
            # (one read of the old value, one write of the new: nothing else of the statement sees it)
            count = sum(1 for _, m in s.accesses if m.get_tuple_name(isl.dim_type.out) == name)
            update = updates.get(name)
            dtype = getattr(containers.get(name), "dtype", None)
            exact = dtype is not None and dtype.kind in (TypeKind.SIGNED, TypeKind.UNSIGNED) and (
                update is not None and _integer_update(s, update, containers))
            if (update is None or count != 2 or not (exact or floats and dtype is not None and dtype.is_float)
                    or found.setdefault(name, _OPERATORS[update.op]) != _OPERATORS[update.op]):
                refused.add(name)
    return {name: op for name, op in found.items() if name not in refused}


def _integer_update(s: Statement, update: Reduction, containers) -> bool:
    """Whether ``update``'s ``e`` is integer arithmetic: integer literals and scalars or elements
    of integer type under operators, without a call or a conversion (a floating-point ``e`` added
    to an integer is rounded to it after each update: an order of its own)."""
    graph = s.block.graph
    for comp in graph.computations():
        writes = [e.data for e in graph.out_edges(comp.id)]
        if not isinstance(comp, Tasklet) or not isinstance(comp.expr, Binary) or writes != [update.target]:
            continue
        # (a name that is no connector is a loop variable or parameter of the SCoP: a container)
        types = {n: getattr(containers.get(n), "dtype", None) for n in ex.names(comp.expr.rhs)}
        types.update({e.dst_conn: getattr(containers.get(e.data), "dtype", None) for e in graph.in_edges(comp.id)})
        return all(_integer_term(t, types) for t in ex.walk(comp.expr.rhs))
    return False


def _integer_term(e: ex.Expr, types) -> bool:
    if isinstance(e, ex.Const):
        return e.int_value is not None
    if isinstance(e, ex.Sym):
        t = types.get(e.name)
        return t is not None and t.kind in (TypeKind.SIGNED, TypeKind.UNSIGNED)
    if isinstance(e, ex.Cast):
        return scalar_type(e.type).kind in (TypeKind.SIGNED, TypeKind.UNSIGNED)
    return isinstance(e, (ex.Binary, ex.Unary)) and e.op in _INTEGER_OPERATORS


_INTEGER_OPERATORS = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "~", "<<", ">>"})
