"""Rewriting a pycparser AST in place, children first where the caller asks."""
from __future__ import annotations

from typing import Callable

from pycparser import c_ast


def rewrite_children(node: c_ast.Node, rewrite: Callable[[c_ast.Node], c_ast.Node]) -> c_ast.Node:
    """``node`` with each child (a node, or a node in a list) replaced by ``rewrite(child)``."""
    for attr in node.__slots__:
        if attr in ("coord", "__weakref__"):
            continue
        value = getattr(node, attr, None)
        if isinstance(value, c_ast.Node):
            setattr(node, attr, rewrite(value))
        elif isinstance(value, list):
            setattr(node, attr, [rewrite(v) if isinstance(v, c_ast.Node) else v for v in value])
    return node
