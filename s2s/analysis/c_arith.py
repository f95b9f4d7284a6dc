"""The C type of an integer expression (C11 6.3.1: integer promotions and the usual arithmetic
conversions), as far as the polyhedral model needs it: which subexpressions C computes modulo
2^n. The model reads ``j - 1`` as the integer it would be; C reads it, for an unsigned ``j``, as
``j - 1 + 2^32`` at ``j = 0``. The two agree only where the value stays in ``[0, 2^n)``;
``AffineBuilder`` requires every such subexpression not to be negative where it is evaluated
(``wrapping``; a sum of sizes and counters past 2^n is left out: no loop nest runs that far).
"""
from __future__ import annotations

from collections.abc import Callable

from s2s.ir.expr import Binary, Call, Cast, Const, Expr, Sym, Ternary, Unary
from s2s.ir.types import ScalarType, TypeKind, scalar_type

INT = scalar_type("int")
_ARITHMETIC = {"+", "-", "*", "/", "%", "&", "|", "^"}
_SHIFTS = {"<<", ">>"}
_COMPARISONS = {"<", "<=", ">", ">=", "==", "!=", "&&", "||"}

TypeOf = Callable[[str], "ScalarType | None"]


def width(t: ScalarType) -> int:
    """Its bits (a typedef of unknown width taken as 64, the widest)."""
    return t.bits or 64


def promoted(t: ScalarType | None) -> ScalarType | None:
    """After the integer promotions: narrower than int is int; None for what is not an integer."""
    if t is None or not t.is_integer:
        return None
    if t.kind is TypeKind.BOOL or (t.bits and t.bits < 32):
        return INT
    return t


def converted(a: ScalarType | None, b: ScalarType | None) -> ScalarType | None:
    """The common type of two promoted integer operands (the usual arithmetic conversions)."""
    if a is None or b is None:
        return None
    if a.kind is b.kind:
        return a if width(a) >= width(b) else b
    unsigned, signed = (a, b) if a.kind is TypeKind.UNSIGNED else (b, a)
    if width(unsigned) >= width(signed):
        return unsigned
    return signed       # (a wider signed type holds every value of the unsigned one)


def constant_type(c: Const) -> ScalarType | None:
    value = c.int_value
    if value is None:
        return None
    suffix = c.text[len(c.text.rstrip("uUlL")):].lower()
    longs = suffix.count("l")
    if "u" in suffix:
        return scalar_type("unsigned long" if longs or value >= 2 ** 32 else "unsigned int")
    if longs or value >= 2 ** 31:
        return scalar_type("long")
    return INT


def type_of(e: Expr, names: TypeOf) -> ScalarType | None:
    """``e``'s C type after promotion, where every name in it has a known integer type (None else)."""
    if isinstance(e, Const):
        return constant_type(e)
    if isinstance(e, Sym):
        return promoted(names(e.name))
    if isinstance(e, Cast):
        return promoted(scalar_type(e.type))
    if isinstance(e, Unary):
        return INT if e.op == "!" else type_of(e.operand, names)
    if isinstance(e, Binary):
        if e.op in _COMPARISONS:
            return INT
        if e.op in _SHIFTS:
            return type_of(e.lhs, names)
        if e.op in _ARITHMETIC:
            return converted(type_of(e.lhs, names), type_of(e.rhs, names))
        return None
    if isinstance(e, Ternary):
        return converted(type_of(e.then, names), type_of(e.other, names))
    if isinstance(e, Call) and e.func in ("min", "max") and len(e.args) == 2:
        return converted(type_of(e.args[0], names), type_of(e.args[1], names))
    return None


def wrapping(t: ScalarType | None) -> bool:
    """Whether C computes values of type ``t`` modulo 2^n."""
    return t is not None and t.kind is TypeKind.UNSIGNED


def ring_only(e: Expr, bits: int, names: TypeOf) -> bool:
    """Whether ``e`` is sums, differences and products only, every unsigned step of them at least
    ``bits`` wide: then its value modulo 2^bits is the true one's, however its steps wrapped (C's
    unsigned arithmetic is arithmetic modulo 2^n, and 2^bits divides 2^n)."""
    if isinstance(e, (Const, Sym)):
        return True
    if isinstance(e, Unary):
        return e.op in "+-" and ring_only(e.operand, bits, names)
    if isinstance(e, Binary):
        if e.op not in "+-*" or len(e.op) != 1:
            return False
        t = type_of(e, names)
        return (t is not None and (not wrapping(t) or width(t) >= bits)
                and ring_only(e.lhs, bits, names) and ring_only(e.rhs, bits, names))
    if isinstance(e, Cast):
        t = scalar_type(e.type)
        return t.is_integer and width(t) >= bits and ring_only(e.operand, bits, names)
    return False
