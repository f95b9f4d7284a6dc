"""Walking and rewriting a pycparser AST."""
from __future__ import annotations

import copy
from typing import Callable, Container, Iterator

from pycparser import c_ast


def walk(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """``node`` and every node below it, parents first."""
    yield node
    for _, child in node.children():
        yield from walk(child)


def identifiers(node: c_ast.Node) -> set[str]:
    """Every name ``node`` spells as an identifier (member names of ``.``/``->`` too)."""
    return {n.name for n in walk(node) if isinstance(n, c_ast.ID)}


def written_names(node: c_ast.Node) -> set[str]:
    """Names assigned, incremented or whose address is taken anywhere below ``node``."""
    out: set[str] = set()
    for n in walk(node):
        target = n.lvalue if isinstance(n, c_ast.Assignment) else n.expr if isinstance(n, c_ast.UnaryOp) and n.op in (
            "++", "--", "p++", "p--", "&") else None
        if isinstance(target, c_ast.ID):
            out.add(target.name)
    return out


def has_effects(node: c_ast.Node | None, pure: Container[str] = frozenset()) -> bool:
    """Whether evaluating ``node`` may do more than read: an assignment, ``++`` or ``--``, or a
    call of anything but the functions named in ``pure``."""
    if node is None:
        return False
    for n in walk(node):
        if isinstance(n, c_ast.Assignment) or isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
            return True
        if isinstance(n, c_ast.FuncCall) and not (isinstance(n.name, c_ast.ID) and n.name.name in pure):
            return True
    return False


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


def substitute_names(node: c_ast.Node, values: dict[str, c_ast.Node]) -> c_ast.Node:
    """``node`` with each name of ``values`` replaced by a copy of its value (member names of
    ``.``/``->`` are not names), in place where a child is replaced."""
    if isinstance(node, c_ast.ID) and node.name in values:
        return copy.deepcopy(values[node.name])
    if isinstance(node, c_ast.StructRef):
        node.name = substitute_names(node.name, values)
        return node
    return rewrite_children(node, lambda child: substitute_names(child, values))
