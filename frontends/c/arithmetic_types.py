"""C arithmetic types: one spelling for each, and the type of a lifted IR expression where plain.

Inlining a helper (inline_functions.py) converts each argument to its parameter's type and the
result to the return type, as the call did. A cast is always correct; it is left out only where
the expression provably has that type already, so the inlined code reads as the user would write
it. So ``type_of`` answers only what it can be sure of and says None otherwise:

* ``canonical`` spells each arithmetic type one way (``long unsigned int`` is ``unsigned long``),
  through the file's typedefs (``size_t``); a name some function also typedefs in a block is
  ambiguous, and so is anything not arithmetic (pointers, structs, enums, ``_Complex``);
* ``type_of`` knows literals, names it is told the type of, casts, ``+ - * /`` and ternaries
  under the usual arithmetic conversions (floating types, and integers where both are signed or
  both the same), comparisons and logical operators (``int``) and the <math.h> functions.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from pycparser import c_ast

from s2s.ir import Access, Binary, Call, Cast, Const, Expr, Sym, Ternary, Unary
from s2s.ir.expr import MATH_FUNCTIONS

_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__", "register", "__const"}
_FLOATING = ("float", "double", "long double")
# integer types by rank; the promotions turn those below int into int
_SIGNED = ("signed char", "short", "int", "long", "long long")
_UNSIGNED = ("unsigned char", "unsigned short", "unsigned int", "unsigned long", "unsigned long long")
_PROMOTED_TO_INT = {"_Bool", "char", "signed char", "unsigned char", "short", "unsigned short"}
ARITHMETIC = frozenset({"_Bool", "char", *_SIGNED, *_UNSIGNED, *_FLOATING})
_INTEGERS = ARITHMETIC - set(_FLOATING)

_COMPARISONS = {"<", "<=", ">", ">=", "==", "!=", "&&", "||"}
MATH_RESULT = {
    **{f: "double" for f in MATH_FUNCTIONS}, **{f + "f": "float" for f in MATH_FUNCTIONS},
    **{f + "l": "long double" for f in MATH_FUNCTIONS},
    "abs": "int", "labs": "long", "llabs": "long long", "__builtin_fabs": "double", "__builtin_sqrt": "double",
}


_TYPE_WORDS = {"signed", "unsigned", "char", "short", "int", "long", "float", "double", "_Bool"}


def _keywords(words: list[str]) -> str | None:
    """The canonical spelling of a list of type keywords (``long unsigned int``), or None."""
    if not words or any(w not in _TYPE_WORDS for w in words):
        return None
    longs = words.count("long")
    sign = [w for w in words if w in ("signed", "unsigned")]
    base = {w for w in words if w not in ("long", "signed", "unsigned")}
    if longs > 2 or len(sign) > 1 or len(words) != longs + len(sign) + len(base):
        return None
    unsigned = "unsigned " if sign == ["unsigned"] else ""
    if base in ({"float"}, {"_Bool"}) and not longs and not sign:
        return base.pop()
    if base == {"double"} and longs <= 1 and not sign:
        return "long double" if longs else "double"
    if base == {"char"} and not longs:
        return f"{sign[0]} char" if sign else "char"
    if "short" in base and base <= {"short", "int"} and not longs:
        return unsigned + "short"
    if base <= {"int"}:
        return unsigned + ("int", "long", "long long")[longs]
    return None


@dataclass
class ArithmeticTypes:
    """The file's typedefs of arithmetic types, for ``canonical``."""

    typedefs: dict[str, str | None] = field(default_factory=dict)   # name -> canonical (None: not arithmetic)
    ambiguous: set[str] = field(default_factory=set)                # also typedef'd inside a function

    @staticmethod
    def of(ast: c_ast.FileAST) -> "ArithmeticTypes":
        types = ArithmeticTypes()
        for ext in ast.ext:
            if isinstance(ext, c_ast.Typedef):
                t = ext.type
                words = t.type.names if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
                    else None
                types.typedefs[ext.name] = None if words is None else types.canonical(" ".join(words))
            elif isinstance(ext, c_ast.FuncDef):
                types.ambiguous |= _block_typedefs(ext.body)
        return types

    def canonical(self, spelling: str) -> str | None:
        """``unsigned long`` for ``long unsigned int`` or a typedef of it; None where not a plain
        arithmetic type (or volatile: every read of it counts)."""
        words = [w for w in spelling.split() if w not in _QUALIFIERS]
        if "volatile" in spelling.split():
            return None
        if len(words) == 1 and words[0] in self.typedefs:
            return None if words[0] in self.ambiguous else self.typedefs[words[0]]
        return _keywords(words)


def _block_typedefs(node: c_ast.Node) -> set[str]:
    out: set[str] = set()

    class V(c_ast.NodeVisitor):
        def visit_Typedef(self, n):
            out.add(n.name)

    V().visit(node)
    return out


_FLOAT_LITERAL = re.compile(r"(?:(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+"
                            r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)([fFlL]?)")
_INT_MAX, _UINT_MAX, _LLONG_MAX, _ULLONG_MAX = 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 63 - 1, 2 ** 64 - 1
_INTEGER_LITERAL = re.compile(r"([1-9]\d*|0[xX][0-9a-fA-F]+|0[0-7]*)(u?(?:l|ll)?|(?:l|ll)u)", re.IGNORECASE)


def _literal_type(text: str) -> str | None:
    """The type of a literal (int 32 bits wide, long and long long at least that; where the
    type depends on the width of long, None)."""
    if re.fullmatch(r"'(?:[^'\\]|\\.)'", text):
        return "int"
    m = _INTEGER_LITERAL.fullmatch(text)
    if m:
        digits, suffix = m.group(1), m.group(2).lower()
        value = int(digits, 8) if re.fullmatch(r"0[0-7]*", digits) else int(digits, 0)
        unsigned, longs = "u" in suffix, suffix.count("l")
        if not unsigned and longs == 0:
            if value <= _INT_MAX:
                return "int"
            return "unsigned int" if digits[0] == "0" and value <= _UINT_MAX else None
        if longs < 2 and value <= (_UINT_MAX if unsigned else _INT_MAX):
            return ("unsigned " if unsigned else "") + ("long" if longs else "int")
        if longs == 2 and value <= (_ULLONG_MAX if unsigned else _LLONG_MAX):
            return "unsigned long long" if unsigned else "long long"
        return None
    m = _FLOAT_LITERAL.fullmatch(text)
    if m:
        return {"": "double", "f": "float", "l": "long double"}[m.group(1).lower()]
    return None


def promoted(t: str | None) -> str | None:
    return "int" if t in _PROMOTED_TO_INT else t


def usual_conversion(a: str | None, b: str | None) -> str | None:
    """The common type of two arithmetic operands where plain; None otherwise."""
    if a is None or b is None:
        return None
    for f in reversed(_FLOATING):
        if f in (a, b):
            return f
    a, b = promoted(a), promoted(b)
    if a == b:
        return a
    for ranks in (_SIGNED, _UNSIGNED):
        if a in ranks and b in ranks:
            return max(a, b, key=ranks.index)
    if a in _SIGNED:
        a, b = b, a   # a unsigned, b signed: a's type where its rank is not below b's
    return a if _UNSIGNED.index(a) >= _SIGNED.index(b) else None


LeafType = Callable[[Sym | Access], str | None]


def type_of(e: Expr, leaf_type: LeafType) -> str | None:
    """The canonical type of ``e`` where it is plain; None where not sure. ``leaf_type`` gives
    the canonical type of a name or of an array element (None where not sure)."""
    if isinstance(e, Const):
        return _literal_type(e.text)
    if isinstance(e, (Sym, Access)):
        return leaf_type(e)
    if isinstance(e, Cast):
        return e.type if e.type in ARITHMETIC else None
    if isinstance(e, Unary):
        inner = type_of(e.operand, leaf_type)
        if e.op == "!":
            return "int"
        if e.op == "~":
            return promoted(inner) if inner in _INTEGERS else None
        return promoted(inner) if e.op in ("+", "-") and inner in ARITHMETIC else None
    if isinstance(e, Binary):
        if e.op in _COMPARISONS:
            return "int"
        lhs, rhs = type_of(e.lhs, leaf_type), type_of(e.rhs, leaf_type)
        if e.op in ("+", "-", "*", "/"):
            return usual_conversion(lhs, rhs)
        if lhs not in _INTEGERS or rhs not in _INTEGERS:
            return None
        if e.op in ("%", "&", "|", "^"):
            return usual_conversion(lhs, rhs)
        return promoted(lhs) if e.op in ("<<", ">>") else None
    if isinstance(e, Ternary):
        return usual_conversion(type_of(e.then, leaf_type), type_of(e.other, leaf_type))
    if isinstance(e, Call):
        return MATH_RESULT.get(e.func)
    return None


def converted(to: str, e: Expr, leaf_type: LeafType) -> Expr:
    """``e`` converted to the canonical arithmetic type ``to``, as an assignment, argument or
    return converts it: a cast unless ``e`` has that type already."""
    return e if type_of(e, leaf_type) == to else Cast(to, e)
