"""The values of enum constants, where integer constant expressions give them: a constant of
known value is read as its number, as a ``#define`` would have put it there."""
from __future__ import annotations

import re

from pycparser import c_ast


def enum_values(enumerators: list[c_ast.Enumerator], known: dict[str, int]) -> dict[str, int]:
    """The values of ``enumerators`` that integer constant expressions give (literals, earlier
    constants, ``+ - * << ( )``), as C numbers them; none after one it cannot evaluate."""
    values: dict[str, int] = {}
    following = 0
    for e in enumerators:
        value = following if e.value is None else _constant_value(e.value, {**known, **values})
        if value is None:
            break
        values[e.name] = value
        following = value + 1
    return values


def _constant_value(node: c_ast.Node, known: dict[str, int]) -> int | None:
    if isinstance(node, c_ast.Constant) and node.type in ("int", "long int", "long long int"):
        digits = node.value.rstrip("uUlL")
        try:
            return int(digits, 8) if re.fullmatch(r"0[0-7]+", digits) else int(digits, 0)
        except ValueError:
            return None
    if isinstance(node, c_ast.ID):
        return known.get(node.name)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        v = _constant_value(node.expr, known)
        return None if v is None else (-v if node.op == "-" else v)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "<<"):
        a, b = _constant_value(node.left, known), _constant_value(node.right, known)
        if a is None or b is None or (node.op == "<<" and not 0 <= b < 31):
            return None
        if node.op == "<<":
            return a << b
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None
