"""Symbolic expressions: loop bounds, conditions, memlet subsets and tasklet bodies.

Expressions are immutable trees that keep the structure (and literal spelling) of the user's code,
so printing one gives back C with the same meaning: parentheses are added exactly where the tree
needs them, and literals are kept as written (``1.5e-3f`` stays ``1.5e-3f``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Union


@dataclass(frozen=True)
class Const:
    """A literal, spelled as in the source: ``3``, ``10UL``, ``0.5``, ``'a'``, ``"%d\\n"``."""

    text: str

    @staticmethod
    def of(value: int | float) -> "Const":
        return Const(repr(value) if isinstance(value, float) else str(value))

    @property
    def int_value(self) -> int | None:
        """The value of a plain decimal/hex/octal integer literal, else None."""
        t = self.text.rstrip("uUlL")
        try:
            if t.lower().startswith("0x"):
                return int(t, 16)
            if len(t) > 1 and t.startswith("0") and t.isdigit():
                return int(t, 8)
            return int(t)
        except ValueError:
            return None


@dataclass(frozen=True)
class Sym:
    """A name: a scalar container, a symbol (integer parameter), or a tasklet connector."""

    name: str


@dataclass(frozen=True)
class Access:
    """An array element read inside a control expression (``j < len[i]``). Tasklets read through
    memlets instead, so this never appears in a tasklet body."""

    name: str
    indices: tuple["Expr", ...]


@dataclass(frozen=True)
class Unary:
    op: str  # one of - + ! ~ * &
    operand: "Expr"


@dataclass(frozen=True)
class Binary:
    op: str
    lhs: "Expr"
    rhs: "Expr"


@dataclass(frozen=True)
class Ternary:
    cond: "Expr"
    then: "Expr"
    other: "Expr"


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple["Expr", ...]


@dataclass(frozen=True)
class Cast:
    type: str  # C type name as written: "double", "unsigned long", "float *"
    operand: "Expr"


@dataclass(frozen=True)
class SizeOf:
    """``sizeof(type)`` (``type`` set) or ``sizeof expr`` (``operand`` set)."""

    type: str | None = None
    operand: "Expr | None" = None


Expr = Union[Const, Sym, Access, Unary, Binary, Ternary, Call, Cast, SizeOf]

# Math functions from <math.h> that are pure: tasklets may call them, and analyses may reorder them.
# the <math.h> functions of doubles (each also with an f and an l suffix, of float and long double)
MATH_FUNCTIONS = tuple((
    "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 log log2 log10 "
    "log1p pow sqrt cbrt hypot fabs floor ceil round trunc rint nearbyint fmod remainder fmin fmax fma "
    "fdim copysign erf erfc tgamma lgamma ldexp"
).split())
PURE_FUNCTIONS = frozenset(f + suffix for f in MATH_FUNCTIONS for suffix in ("", "f", "l")) | frozenset(
    {"abs", "labs", "llabs", "__builtin_expect", "__builtin_fabs", "__builtin_sqrt"})


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, (Const, Sym)):
        return ()
    if isinstance(e, Access):
        return e.indices
    if isinstance(e, (Unary, Cast)):
        return (e.operand,)
    if isinstance(e, Binary):
        return (e.lhs, e.rhs)
    if isinstance(e, Ternary):
        return (e.cond, e.then, e.other)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, SizeOf):
        return (e.operand,) if e.operand is not None else ()
    raise TypeError(f"not an expression: {e!r}")


def walk(e: Expr) -> Iterator[Expr]:
    """Pre-order traversal."""
    yield e
    for c in children(e):
        yield from walk(c)


def names(e: Expr) -> set[str]:
    """Every container, symbol or connector name the expression refers to (arrays included)."""
    out: set[str] = set()
    for n in walk(e):
        if isinstance(n, Sym):
            out.add(n.name)
        elif isinstance(n, Access):
            out.add(n.name)
    return out


def calls(e: Expr) -> set[str]:
    return {n.func for n in walk(e) if isinstance(n, Call)}


def is_pure(e: Expr) -> bool:
    """No side effects: no impure calls, no dereference of pointers we do not model."""
    return all(
        (not isinstance(n, Call) or n.func in PURE_FUNCTIONS) and not (isinstance(n, Unary) and n.op == "*")
        for n in walk(e)
    )


def rebuild_children(e: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """``e`` with ``fn`` applied to each direct child (a top-down rewrite step)."""
    if isinstance(e, Access):
        return Access(e.name, tuple(fn(i) for i in e.indices))
    if isinstance(e, Unary):
        return Unary(e.op, fn(e.operand))
    if isinstance(e, Cast):
        return Cast(e.type, fn(e.operand))
    if isinstance(e, Binary):
        return Binary(e.op, fn(e.lhs), fn(e.rhs))
    if isinstance(e, Ternary):
        return Ternary(fn(e.cond), fn(e.then), fn(e.other))
    if isinstance(e, Call):
        return Call(e.func, tuple(fn(a) for a in e.args))
    if isinstance(e, SizeOf) and e.operand is not None:
        return SizeOf(None, fn(e.operand))
    return e


def rebuild(e: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """Bottom-up rewrite: ``fn`` returns a replacement or None to keep the (rebuilt) node."""
    e = rebuild_children(e, lambda c: rebuild(c, fn))
    replaced = fn(e)
    return e if replaced is None else replaced


def substitute(e: Expr, mapping: Mapping[str, Expr]) -> Expr:
    """Replace symbols by expressions (array names in Access are renamed when mapped to a Sym)."""

    def repl(n: Expr) -> Expr | None:
        if isinstance(n, Sym) and n.name in mapping:
            return mapping[n.name]
        if isinstance(n, Access) and n.name in mapping:
            target = mapping[n.name]
            if isinstance(target, Sym):
                return Access(target.name, n.indices)
        return None

    return rebuild(e, repl)


def plus_one(e: Expr) -> Expr:
    """``e + 1``, folded for a constant and for ``x - 1`` (the inclusive bounds isl gives)."""
    if isinstance(e, Const) and e.int_value is not None:
        return Const(str(e.int_value + 1))
    if isinstance(e, Binary) and e.op == "-" and e.rhs == Const("1"):
        return e.lhs
    return Binary("+", e, Const("1"))


def minus_one(e: Expr) -> Expr:
    """``e - 1``, folded for a constant and for ``x + 1``."""
    if isinstance(e, Const) and e.int_value is not None:
        return Const(str(e.int_value - 1))
    if isinstance(e, Binary) and e.op == "+" and e.rhs == Const("1"):
        return e.lhs
    return Binary("-", e, Const("1"))


# --- printing as C ------------------------------------------------------------------------------

_BINARY_PRECEDENCE = {
    "*": 13, "/": 13, "%": 13, "+": 12, "-": 12, "<<": 11, ">>": 11,
    "<": 10, "<=": 10, ">": 10, ">=": 10, "==": 9, "!=": 9,
    "&": 8, "^": 7, "|": 6, "&&": 5, "||": 4,
}
_UNARY = 14
_POSTFIX = 15

_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})
# Nestings that C parses without parentheses but that gcc's -Wparentheses reports, as readers
# misread them: the inner operator is parenthesized anyway.
_CLARIFIED = {
    "||": frozenset({"&&"}),
    "<<": frozenset({"+", "-"}), ">>": frozenset({"+", "-"}),
    "&": frozenset({"+", "-"}) | _COMPARISONS,
    "^": frozenset({"&", "+", "-"}) | _COMPARISONS,
    "|": frozenset({"&", "^", "+", "-"}) | _COMPARISONS,
    **{op: _COMPARISONS for op in _COMPARISONS},
}
_TERNARY = 3


def precedence(e: Expr) -> int:
    if isinstance(e, Binary):
        return _BINARY_PRECEDENCE[e.op]
    if isinstance(e, (Unary, Cast, SizeOf)):
        return _UNARY
    if isinstance(e, Ternary):
        return _TERNARY
    if isinstance(e, Const) and e.text.startswith("-"):
        return _UNARY
    return _POSTFIX


class ExprPrinter:
    """Prints expressions as C. Back ends subclass it to rename calls or symbols."""

    def __call__(self, e: Expr) -> str:
        return self.print(e)

    def print(self, e: Expr, min_precedence: int = 0) -> str:
        method = getattr(self, "print_" + type(e).__name__, None)
        if method is None:
            raise TypeError(f"{type(self).__name__} cannot print {type(e).__name__}")
        text = method(e)
        return f"({text})" if precedence(e) < min_precedence else text

    def print_Const(self, e: Const) -> str:
        return e.text

    def print_Sym(self, e: Sym) -> str:
        return e.name

    def print_Access(self, e: Access) -> str:
        return e.name + "".join(f"[{self.print(i)}]" for i in e.indices)

    def print_Unary(self, e: Unary) -> str:
        inner = self.print(e.operand, _UNARY)
        if inner.startswith(e.op[0]) and e.op in "-+&":
            inner = f"({inner})"  # keep "- -x" from becoming "--x"
        return e.op + inner

    def print_Cast(self, e: Cast) -> str:
        return f"({e.type}){self.print(e.operand, _UNARY)}"

    def print_SizeOf(self, e: SizeOf) -> str:
        return f"sizeof({e.type})" if e.type is not None else f"sizeof({self.print(e.operand)})"

    def print_Binary(self, e: Binary) -> str:
        p = _BINARY_PRECEDENCE[e.op]
        return f"{self._operand(e.op, e.lhs, p)} {e.op} {self._operand(e.op, e.rhs, p + 1)}"

    def _operand(self, op: str, operand: Expr, min_precedence: int) -> str:
        if isinstance(operand, Binary) and operand.op in _CLARIFIED.get(op, ()) or (
                op in _COMPARISONS and isinstance(operand, Unary) and operand.op == "!"):
            return f"({self.print(operand)})"   # (gcc: -Wparentheses, -Wlogical-not-parentheses)
        return self.print(operand, min_precedence)

    def print_Ternary(self, e: Ternary) -> str:
        # The middle operand is parsed as if parenthesised; the last one binds like an assignment.
        return f"{self.print(e.cond, _TERNARY + 1)} ? {self.print(e.then)} : {self.print(e.other, _TERNARY)}"

    def print_Call(self, e: Call) -> str:
        return f"{e.func}({', '.join(self.print(a, 2) for a in e.args)})"


format_expr = ExprPrinter()
