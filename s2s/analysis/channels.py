"""Interleaved arrays: ``in[(y * w + x) * 3 + c]``, an image of ``w`` pixels a row and three
channels a pixel, in a flat buffer.

Expanded, the subscript is ``3*w*y + 3*x + c``: a product of the row length ``w`` and a loop
variable (not affine), times the channel count. ``split_channels`` takes it apart as
``(Y * p + X) * K + C`` with ``p`` a parameter, ``K`` a constant (the gcd of the coefficients of
the terms with ``p``), ``Y``, ``X`` and ``C`` affine: the array is then modelled as
``A[Y][X][C]``, exact where ``0 <= X < p`` and ``0 <= C < K`` on every access (which the SCoP
checks on its domains, as for ``A[i * n + j]``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from s2s.analysis.affine import INT_CASTS
from s2s.ir import expr as ex
from s2s.ir.expr import Binary, Const, Sym

Monomial = tuple[str, ...]   # the names multiplied, sorted (): the constant term


def polynomial(e: ex.Expr) -> dict[Monomial, int] | None:
    """``e`` as a sum of integer multiples of products of names (None: something else, such as
    a division, a call or a non-integer constant)."""
    if isinstance(e, Const):
        v = e.int_value
        return None if v is None else ({(): v} if v else {})
    if isinstance(e, Sym):
        return {(e.name,): 1}
    if isinstance(e, ex.Cast) and " ".join(e.type.split()) in INT_CASTS:
        return polynomial(e.operand)
    if isinstance(e, ex.Unary) and e.op in "+-":
        p = polynomial(e.operand)
        return None if p is None else {m: -c if e.op == "-" else c for m, c in p.items()}
    if isinstance(e, Binary) and e.op in ("+", "-", "*"):
        a, b = polynomial(e.lhs), polynomial(e.rhs)
        if a is None or b is None:
            return None
        if e.op == "*":
            out: dict[Monomial, int] = {}
            for ma, ca in a.items():
                for mb, cb in b.items():
                    m = tuple(sorted(ma + mb))
                    out[m] = out.get(m, 0) + ca * cb
        else:
            out = dict(a)
            for m, c in b.items():
                out[m] = out.get(m, 0) + (c if e.op == "+" else -c)
        return {m: c for m, c in out.items() if c}
    return None


def expression_of(terms: dict[Monomial, int]) -> ex.Expr:
    """``terms`` (as ``polynomial`` gives them) as an expression."""
    out: ex.Expr | None = None
    for m, c in sorted(terms.items()):
        term: ex.Expr = Const(str(abs(c)))
        for name in m:
            term = Sym(name) if term == Const("1") else Binary("*", term, Sym(name))
        out = (term if c > 0 else ex.Unary("-", term)) if out is None else Binary("+" if c > 0 else "-", out, term)
    return out if out is not None else Const("0")


@dataclass(frozen=True)
class Channels:
    """``A[(outer * param + middle) * times + inner]``."""

    param: str
    times: int
    outer: ex.Expr
    middle: ex.Expr
    inner: ex.Expr


def split_channels(e: ex.Expr, params: tuple[str, ...]) -> Channels | None:
    """``e`` as ``(Y * p + X) * K + C`` (None where it is not of that form with ``K >= 2``)."""
    poly = polynomial(e)
    if poly is None:
        return None
    wide = {m: c for m, c in poly.items() if len(m) > 1}
    if not wide or any(len(m) != 2 for m in wide):
        return None
    shared = set.intersection(*(set(m) & set(params) for m in wide))
    if len(shared) != 1:
        return None
    p = shared.pop()
    times = math.gcd(*wide.values())
    if times < 2:
        return None
    outer = {tuple(n for n in m if n != p) if m.count(p) == 1 else (p,): c // times for m, c in wide.items()}
    middle: dict[Monomial, int] = {}
    inner: dict[Monomial, int] = {}
    for m, c in poly.items():
        if len(m) > 1:
            continue
        if m == (p,) and c % times == 0:   # (``-3 * w``: a row up)
            outer[()] = outer.get((), 0) + c // times
        elif m == ():
            q, r = divmod(c, times)   # (a constant offset: whole pixels, then channels)
            if q:
                middle[m] = q
            if r:
                inner[m] = r
        elif c % times == 0:
            middle[m] = c // times
        else:
            inner[m] = c
    return Channels(p, times, expression_of({m: c for m, c in outer.items() if c}), expression_of(middle),
                    expression_of(inner))
