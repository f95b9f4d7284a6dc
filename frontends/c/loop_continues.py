"""``if (c) continue;`` in a loop body, as the condition it is on the statements after it.

    for (j = 0; j < n; j++) {            for (j = 0; j < n; j++) {
        if (j == i)                          if (!(j == i)) {
            continue;               ->           double d = x[j] - x[i];
        double d = x[j] - x[i];                  f += d * m[j];
        f += d * m[j];                       }
    }                                    }

Only where the ``continue`` belongs to the loop (a statement of the body itself, not of a loop
inside it) and the ``if`` has no ``else``: the iteration then goes on to the loop's step (or its
condition) either way, and the statements after it run exactly where ``c`` is false. Each such
``if`` among the body's statements nests the ones after it; one that is the body's last
statement, or a body with labels (a ``goto`` could enter the new block), stays as it is.
"""
from __future__ import annotations

from pycparser import c_ast

from frontends.c.ast_rewrite import walk


def without_continues(body: c_ast.Node) -> c_ast.Node:
    """``body`` (a loop's statement) with its ``if (c) continue;`` statements made conditions on
    the statements after them; ``body`` itself where there are none."""
    if not isinstance(body, c_ast.Compound) or not body.block_items:
        return body
    items = _conditioned(list(body.block_items))
    if items is None or any(isinstance(n, c_ast.Label) for n in walk(body)):
        return body
    return c_ast.Compound(items, body.coord)


def _conditioned(items: list[c_ast.Node]) -> list[c_ast.Node] | None:
    """``items`` with the first ``if (c) continue;`` that has statements after it made ``if (!(c))
    { those statements }`` (they in turn conditioned), or None where there is none."""
    for k, item in enumerate(items[:-1]):
        if _skips_iteration(item):
            rest = items[k + 1:]
            rest = _conditioned(rest) or rest
            negated = c_ast.UnaryOp("!", item.cond, item.cond.coord)
            return items[:k] + [c_ast.If(negated, c_ast.Compound(rest, item.coord), None, item.coord)]
    return None


def _skips_iteration(item: c_ast.Node) -> bool:
    """``if (c) continue;`` or ``if (c) { continue; }``."""
    if not isinstance(item, c_ast.If) or item.iffalse is not None:
        return False
    then = item.iftrue
    if isinstance(then, c_ast.Compound) and then.block_items and len(then.block_items) == 1:
        then = then.block_items[0]
    return isinstance(then, c_ast.Continue)
