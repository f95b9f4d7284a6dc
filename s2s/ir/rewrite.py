"""Rebuilding immutable control trees: replace a run of children of one Sequence."""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterator

from s2s.ir import expr as ex
from s2s.ir.control import (
    LOOPS, Block, ControlNode, Declare, For, IfElse, Map, Opaque, Return, Sequence, While, child_nodes, walk,
)


def map_sequences(node: ControlNode, fn: Callable[[Sequence], Sequence]) -> ControlNode:
    """Apply ``fn`` to every Sequence, bottom-up, rebuilding only what changed."""
    if isinstance(node, Sequence):
        children = tuple(map_sequences(c, fn) for c in node.children)
        if any(a is not b for a, b in zip(children, node.children)):
            node = dataclasses.replace(node, children=children)
        return fn(node)
    if isinstance(node, (For, Map, While)):
        body = map_sequences(node.body, fn)
        return node if body is node.body else dataclasses.replace(node, body=body)
    if isinstance(node, IfElse):
        then = map_sequences(node.then, fn)
        other = None if node.other is None else map_sequences(node.other, fn)
        if then is node.then and other is node.other:
            return node
        return dataclasses.replace(node, then=then, other=other)
    return node


def replace_run(root: Sequence, parent_id: str, first_id: str, count: int, new: ControlNode) -> Sequence:
    """``root`` with ``count`` children of Sequence ``parent_id``, starting at ``first_id``, replaced by ``new``."""

    def fn(seq: Sequence) -> Sequence:
        if seq.id != parent_id:
            return seq
        ids = [c.id for c in seq.children]
        k = ids.index(first_id)
        return dataclasses.replace(seq, children=seq.children[:k] + (new,) + seq.children[k + count:])

    return map_sequences(root, fn)  # type: ignore[return-value]


def mentioned_names(node: ControlNode) -> Iterator[str]:
    """Every name a subtree refers to (reads or writes), including inside opaque text."""
    for n in walk(node):
        yield from own_names(n)


def own_names(n: ControlNode) -> Iterator[str]:
    """The names one node refers to itself, not through its children."""
    if isinstance(n, (For,)):
        yield n.var
        for e in (n.init, n.cond, n.update):
            yield from ex.names(e)
    elif isinstance(n, Map):
        yield n.var
        yield from n.private
        yield from (name for name, _ in n.reductions)
        for e in (n.start, n.stop, n.step) + ((n.team_if,) if n.team_if is not None else ()):
            yield from ex.names(e)
    elif isinstance(n, (IfElse, While)):
        yield from ex.names(n.cond)
    elif isinstance(n, Return) and n.value is not None:
        yield from ex.names(n.value)
    elif isinstance(n, Declare):
        yield n.name
        if n.init_text is not None:
            yield from re.findall(r"[A-Za-z_]\w*", n.init_text)
    elif isinstance(n, Block):
        for e in n.graph.edges:
            yield e.data
            for s in e.subset:
                if not hasattr(s, "start"):
                    yield from ex.names(s)
        for c in n.graph.computations():
            if hasattr(c, "expr"):
                yield from ex.names(c.expr)
    elif isinstance(n, Opaque):
        yield from re.findall(r"[A-Za-z_]\w*", n.text)


def free_names(node: ControlNode) -> set[str]:
    """The names a subtree refers to that it does not declare itself, as C scopes them: a
    declaration covers the rest of its sequence (its own initializer included), a loop that
    declares its variable covers that loop."""
    if isinstance(node, Sequence):
        out: set[str] = set()
        declared: set[str] = set()
        for child in node.children:
            out |= free_names(child) - declared
            if isinstance(child, Declare):
                declared.add(child.name)
        return out
    own = set(own_names(node))
    for child in child_nodes(node):
        own |= free_names(child)
    if isinstance(node, Declare) or isinstance(node, Map) or (isinstance(node, For) and node.declares_var):
        own.discard(node.var if isinstance(node, (For, Map)) else node.name)
    return own


def with_id_suffix(node: ControlNode, suffix: str) -> ControlNode:
    """A copy of ``node`` whose control elements all have ``suffix`` appended to their ids (a
    second copy of the same code, e.g. the original version behind a run-time check)."""
    if isinstance(node, Sequence):
        return dataclasses.replace(node, id=node.id + suffix,
                                   children=tuple(with_id_suffix(c, suffix) for c in node.children))
    if isinstance(node, (For, Map, While)):
        return dataclasses.replace(node, id=node.id + suffix, body=with_id_suffix(node.body, suffix))
    if isinstance(node, IfElse):
        return dataclasses.replace(node, id=node.id + suffix, then=with_id_suffix(node.then, suffix),
                                   other=None if node.other is None else with_id_suffix(node.other, suffix))
    if isinstance(node, Declare):
        return dataclasses.replace(node, id=node.id + suffix,
                                   init=None if node.init is None else with_id_suffix(node.init, suffix))
    return dataclasses.replace(node, id=node.id + suffix)


def outermost_loops(node: ControlNode) -> list[ControlNode]:
    """The loops of ``node`` that no other loop of it encloses (through sequences and branches)."""
    if isinstance(node, LOOPS):
        return [node]
    if isinstance(node, Sequence):
        return [loop for c in node.children for loop in outermost_loops(c)]
    if isinstance(node, IfElse):
        return outermost_loops(node.then) + (outermost_loops(node.other) if node.other is not None else [])
    return []


def fresh_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_1``, ``base_2``... whichever is first not in ``taken`` (which it joins)."""
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    return name
