"""Parsing expression strings for the builder API (``"A[i][j] + alpha * B[i][j]"``).

The accepted syntax is the common ground of C and Python: arithmetic, comparisons, subscripts,
calls, ``and``/``or``/``not`` (or ``&&``/``||``/``!``), and unary minus. Front ends do not use
this: they build expression trees from their own ASTs.
"""
from __future__ import annotations

import ast
import re

from s2s.ir import expr as ex

_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Mod: "%", ast.FloorDiv: "/",
    ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


def parse_expr(text: str) -> ex.Expr:
    py = re.sub(r"&&", " and ", text)
    py = re.sub(r"\|\|", " or ", py)
    py = re.sub(r"!(?!=)", " not ", py)
    try:
        tree = ast.parse(py.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"cannot parse expression {text!r}: {exc.msg}") from None
    return _convert(tree, text)


def _convert(node: ast.AST, text: str) -> ex.Expr:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return ex.Const.of(node.value)
    if isinstance(node, ast.Name):
        return ex.Sym(node.id)
    if isinstance(node, ast.Subscript):
        indices: list[ex.Expr] = []
        while isinstance(node, ast.Subscript):
            indices.insert(0, _convert(node.slice, text))
            node = node.value
        if not isinstance(node, ast.Name):
            raise ValueError(f"subscripted value must be a name in {text!r}")
        return ex.Access(node.id, tuple(indices))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return ex.Binary(_BINOPS[type(node.op)], _convert(node.left, text), _convert(node.right, text))
    if isinstance(node, ast.UnaryOp):
        op = {ast.USub: "-", ast.UAdd: "+", ast.Not: "!", ast.Invert: "~"}[type(node.op)]
        return ex.Unary(op, _convert(node.operand, text))
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMPOPS:
        return ex.Binary(_CMPOPS[type(node.ops[0])], _convert(node.left, text), _convert(node.comparators[0], text))
    if isinstance(node, ast.BoolOp):
        op = "&&" if isinstance(node.op, ast.And) else "||"
        result = _convert(node.values[0], text)
        for v in node.values[1:]:
            result = ex.Binary(op, result, _convert(v, text))
        return result
    if isinstance(node, ast.IfExp):
        return ex.Ternary(_convert(node.test, text), _convert(node.body, text), _convert(node.orelse, text))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return ex.Call(node.func.id, tuple(_convert(a, text) for a in node.args))
    raise ValueError(f"unsupported expression syntax in {text!r}: {ast.dump(node)[:60]}")
