"""``while`` loops that count, as the ``for`` loops they are.

    int i = 0;                       int i = 0;
    while (i < n) {          ->      for (i = 0; i < n; i++) {
        a[i] = 2 * b[i];                 a[i] = 2 * b[i];
        i++;                         }
    }

A ``while`` right after the statement that sets its variable (``int i = e;`` or ``i = e;``) is
such a loop where its condition compares the variable and reads nothing it changes (no call,
assignment or ``++``), its body ends with the variable's step (``i++``, ``++i``, ``i += c``,
``i = i + c``, or their ``-`` forms, ``c`` a constant), and nothing else in the body writes the
variable or takes its address, no ``continue`` (outside an inner loop) skips the step, and the
body declares nothing of its own (C89's ``int i, j;`` for the loops inside, which a rewritten
nest may no longer use, and -Werror builds would refuse as unused). The
first value is evaluated again in the ``for`` header: it must have no effects and read nothing
the statement before it could have changed but the variable itself (it is the statement's own
right-hand side, right before the loop).
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from frontends.c.ast_rewrite import has_effects, identifiers, walk, written_names

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


def _setting(item: c_ast.Node) -> tuple[str, c_ast.Node] | None:
    """(variable, first value) of ``int i = e;`` or ``i = e;``."""
    if isinstance(item, c_ast.Decl) and item.init is not None and not isinstance(item.init, c_ast.InitList) \
            and isinstance(item.type, c_ast.TypeDecl) and "static" not in (item.storage or []):
        return item.name, item.init
    if isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID):
        return item.lvalue.name, item.rvalue
    return None


def _is_step(item: c_ast.Node, var: str) -> bool:
    if isinstance(item, c_ast.UnaryOp) and item.op in ("++", "--", "p++", "p--"):
        return isinstance(item.expr, c_ast.ID) and item.expr.name == var
    if isinstance(item, c_ast.Assignment) and isinstance(item.lvalue, c_ast.ID) and item.lvalue.name == var:
        if item.op in ("+=", "-="):
            return isinstance(item.rvalue, c_ast.Constant)
        if item.op == "=" and isinstance(item.rvalue, c_ast.BinaryOp) and item.rvalue.op in "+-":
            left, right = item.rvalue.left, item.rvalue.right
            return isinstance(left, c_ast.ID) and left.name == var and isinstance(right, c_ast.Constant)
    return False


def _writes(node: c_ast.Node, var: str) -> bool:
    return var in written_names(node) or any(isinstance(n, c_ast.Decl) and n.name == var for n in walk(node))


def _continues(node: c_ast.Node) -> bool:
    """A ``continue`` of this loop (not of one inside it)."""
    if isinstance(node, c_ast.Continue):
        return True
    if isinstance(node, _LOOPS):
        return False
    return any(_continues(child) for _, child in node.children())


def as_for(before: c_ast.Node | None, loop: c_ast.Node) -> c_ast.For | None:
    """The ``for`` loop that ``loop``, a ``while`` right after ``before``, is (None: not one)."""
    if not isinstance(loop, c_ast.While) or before is None or (setting := _setting(before)) is None:
        return None
    var, first = setting
    cond = loop.cond
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">=", "!=")
            and var in identifiers(cond) and not has_effects(cond)):
        return None
    if has_effects(first) or var in identifiers(first):
        return None
    body = loop.stmt
    items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    if not items or not _is_step(items[-1], var):
        return None
    rest = items[:-1]
    if any(_writes(item, var) or _continues(item) or isinstance(item, c_ast.Decl) for item in rest):
        return None   # (a declaration in a time loop's body: the rewritten nest may not use it)
    init = c_ast.Assignment("=", c_ast.ID(var), copy.deepcopy(first))
    new_body = c_ast.Compound(rest, coord=body.coord)
    return c_ast.For(init, copy.deepcopy(cond), copy.deepcopy(items[-1]), new_body, coord=loop.coord)
