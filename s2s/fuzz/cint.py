"""C's integer arithmetic on LP64, for the fuzz model's loop counters and sizes of other types than ``int``.

A program whose counters are ``size_t`` or ``unsigned`` means what C computes, wrap-around
included: ``for (size_t j = i - 2; j < i + 3; j++)`` runs no iteration at ``i = 0``, and
``(i - 1) % 2`` is 1 there, not -1. The reference build (``cc -O0``) runs those semantics, so the
model must too, or it would size the arrays for other iterations than the program runs. These
helpers evaluate a bound, a condition or a subscript exactly as its printed text parses in C (the
usual arithmetic conversions at every operator, unsigned results modulo 2^width), and say where the
program would leave defined behaviour (a signed overflow) so that the generator draws another.
"""
from __future__ import annotations

from dataclasses import dataclass

# name -> (bits, signed) on LP64; the rank order of long and long long does not change a result here
INDEX_TYPES: dict[str, tuple[int, bool]] = {
    "int": (32, True), "unsigned": (32, False), "long": (64, True), "long long": (64, True),
    "unsigned long": (64, False), "size_t": (64, False),
}
INT = INDEX_TYPES["int"]
SANE = 1 << 31  # a counter at or past this has wrapped (the programs' sizes are far below it)
MAX_TRIPS = 200_000  # a loop running longer has a bound that wrapped


class Unrunnable(Exception):
    """The program would leave what the fuzzer runs: the generator or the shrinker drops it."""


class SignedOverflow(Unrunnable):
    """The expression overflows a signed type: undefined behaviour."""


class RunsAway(Unrunnable):
    """A counter wrapped past 0 or a bound wrapped to near 2^width: out of bounds, or forever."""


@dataclass(frozen=True)
class Value:
    value: int
    kind: tuple[int, bool]  # (bits, signed)


def kind_of(ctype: str) -> tuple[int, bool]:
    return INDEX_TYPES[ctype]


def is_unsigned(ctype: str) -> bool:
    return not INDEX_TYPES[ctype][1]


def common(a: tuple[int, bool], b: tuple[int, bool]) -> tuple[int, bool]:
    """The usual arithmetic conversions between two integer types of int's rank or above."""
    if a[1] == b[1]:
        return (max(a[0], b[0]), a[1])
    unsigned, signed = (a, b) if not a[1] else (b, a)
    if unsigned[0] >= signed[0]:
        return (unsigned[0], False)
    return signed  # wider: it holds every value of the unsigned type


def convert(value: int, kind: tuple[int, bool]) -> int:
    """``value`` converted to ``kind`` (to a signed type out of its range: gcc's two's complement)."""
    bits, signed = kind
    value %= 1 << bits
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _checked(value: int, kind: tuple[int, bool]) -> Value:
    bits, signed = kind
    if not signed:
        return Value(value % (1 << bits), kind)
    if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
        raise SignedOverflow(f"{value} overflows a signed {bits}-bit type")
    return Value(value, kind)


def binop(op: str, a: Value, b: Value) -> Value:
    kind = common(a.kind, b.kind)
    x, y = convert(a.value, kind), convert(b.value, kind)
    return _checked(x + y if op == "+" else x - y if op == "-" else x * y, kind)


def negate(a: Value) -> Value:
    return _checked(-a.value, a.kind)


def compare(a: Value, op: str, b: Value) -> bool:
    kind = common(a.kind, b.kind)
    x, y = convert(a.value, kind), convert(b.value, kind)
    return {"<": x < y, "<=": x <= y, "==": x == y, "!=": x != y, ">=": x >= y, ">": x > y}[op]


def modulo(a: Value, m: int) -> Value:
    """``a % m`` with C's truncation, ``m`` an int constant."""
    kind = common(a.kind, INT)
    x = convert(a.value, kind)
    r = abs(x) % m
    return Value(-r if x < 0 else r, kind)


def evaluate(poly, env: dict[str, int], types: dict[str, str]) -> Value:
    """``poly`` (a ``model.Poly``) as C evaluates its printed text: ``-2*i*n + j - 3`` parses as
    ``(((-2) * i) * n + j) - 3``, a leading minus applying to the first factor alone."""
    acc: Value | None = None
    for k, (coef, names) in enumerate(poly.terms):
        factors = ([Value(abs(coef), INT)] if abs(coef) != 1 else []) + [
            Value(env[n], kind_of(types.get(n, "int"))) for n in names]
        if k == 0 and coef < 0:
            factors[0] = negate(factors[0])
        term = factors[0]
        for f in factors[1:]:
            term = binop("*", term, f)
        acc = term if k == 0 else binop("+" if coef > 0 else "-", acc, term)
    if poly.const or acc is None:
        c = Value(abs(poly.const), INT)
        if acc is None:
            return negate(c) if poly.const < 0 else c
        acc = binop("-" if poly.const < 0 else "+", acc, c)
    return acc
