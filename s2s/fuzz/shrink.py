"""Shrinks a failing program to a small one that still fails, on the program model.

Greedy delta debugging: try one edit at a time, biggest first (drop a whole nest, then a loop or a
statement anywhere, replace a loop by its first iteration, an ``if`` by one branch, an expression
by one of its operands or a constant, ``+=`` by ``=``, smaller parameters and bounds, default
build settings), keep an edit whenever the program still fails the same way, start over from the
smaller program. Array sizes and view offsets are recomputed after every edit (``finalize``), so
every candidate stays free of undefined behaviour; a candidate that renders to text already tried
is not built again.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace

from s2s.fuzz.model import (
    Access, BinOp, BuildConfig, Const, Expr, If, Loop, LoopVar, Node, Poly, Program, ScalarDecl, ScalarRef, Stmt,
    const, walk_nodes,
)
from s2s.fuzz.printer import to_c
from s2s.fuzz.sizing import TooBig, finalize


def shrink(program: Program, still_fails: Callable[[Program], bool], max_checks: int = 120,
           max_seconds: float = 600.0) -> Program:
    deadline = time.monotonic() + max_seconds
    seen = {to_c(program)}
    checks = 0
    current = program
    progress = True
    while progress and checks < max_checks and time.monotonic() < deadline:
        progress = False
        for candidate in edits(current):
            try:
                candidate = finalize(_drop_unused_scalars(candidate))
            except TooBig:
                continue
            text = to_c(candidate)
            if text in seen:
                continue
            seen.add(text)
            checks += 1
            if still_fails(candidate):
                current = candidate
                progress = True
                break
            if checks >= max_checks or time.monotonic() >= deadline:
                break
    return current


def size(program: Program) -> int:
    """Nodes in the kernel: what shrinking reduces."""
    return sum(1 for _ in walk_nodes(program.body))


def edits(p: Program) -> Iterator[Program]:
    for body in _body_edits(p.body):
        yield replace(p, body=body)
    # (with other counter types than int a size of 0 is where unsigned bounds wrap)
    least = 0 if p.types else 1
    for k, (name, value) in enumerate(p.params):
        for smaller in sorted({value // 2, value - 1, 2, 1, least} - {value}):
            if least <= smaller < value:
                params = p.params[:k] + ((name, smaller),) + p.params[k + 1:]
                yield replace(p, params=params)
    if p.types:  # still failing with int counters: not a bug of the types
        yield replace(p, types=())
    if p.config != BuildConfig():
        yield replace(p, config=BuildConfig())
        for field_name, default in (("tile", ""), ("fuse", "smart"), ("kernels", "on"), ("work", ""),
                                    ("profitability", "on")):
            if getattr(p.config, field_name) != default:
                yield replace(p, config=replace(p.config, **{field_name: default}))


def _body_edits(body: tuple[Node, ...]) -> Iterator[tuple[Node, ...]]:
    for i, n in enumerate(body):
        if not isinstance(n, ScalarDecl):  # unused declarations go by themselves
            yield body[:i] + body[i + 1:]
    for i, n in enumerate(body):
        for replacement in _node_edits(n):
            yield body[:i] + replacement + body[i + 1:]


def _node_edits(n: Node) -> Iterator[tuple[Node, ...]]:
    if isinstance(n, Loop):
        first = _first_value(n)
        if first is not None:
            yield tuple(_substitute(c, n.var, first) for c in n.body)
        for body in _body_edits(n.body):
            yield (replace(n, body=body),)
        if n.step != 1:
            yield (replace(n, step=1),)
        if n.descending:
            yield (replace(n, descending=False, style=""),)
        if n.style:
            yield (replace(n, style=""),)
        if n.inclusive:
            yield (replace(n, inclusive=False),)
        if n.lower.terms or n.lower.const:
            yield (replace(n, lower=const(0)),)
        if not n.upper.terms and n.upper.const > 1:
            yield (replace(n, upper=const(n.upper.const // 2)),)
    elif isinstance(n, If):
        yield n.then
        if n.orelse:
            yield n.orelse
            yield (replace(n, orelse=()),)
        for body in _body_edits(n.then):
            yield (replace(n, then=body),)
        for body in _body_edits(n.orelse):
            yield (replace(n, orelse=body),)
    elif isinstance(n, Stmt):
        for e in _simpler(n.expr):
            yield (replace(n, expr=e),)
        if n.op != "=":
            yield (replace(n, op="="),)


def _first_value(n: Loop) -> int | None:
    """The counter's first value where the loop's bounds are constants (None where they are not, or
    the loop counts down from ``upper - 1``: left to other edits)."""
    if n.descending and n.style in ("postdec", "gt"):
        top = n.top()
        return None if top.terms else top.const - (1 if n.style == "postdec" else 0)
    first = n.upper if n.descending else n.lower
    if first.terms or (n.descending and not n.inclusive):
        return None
    return first.const


def _simpler(e: Expr) -> Iterator[Expr]:
    if isinstance(e, BinOp):
        yield e.left
        yield e.right
        for left in _simpler(e.left):
            yield replace(e, left=left)
        for right in _simpler(e.right):
            yield replace(e, right=right)
    if not isinstance(e, Const):
        yield Const(1, "1")


def _substitute(n: Node, name: str, value: int) -> Node:
    """``n`` with loop variable ``name`` fixed at ``value`` (the loop around it removed)."""
    def poly(p: Poly) -> Poly:
        return p.substitute(name, value)

    def expr(e):
        if isinstance(e, LoopVar) and e.name == name:
            return Const(value, str(value) if value >= 0 else f"({value})")
        if isinstance(e, Access):
            return Access(e.array, tuple(poly(p) for p in e.index))
        if isinstance(e, BinOp):
            return replace(e, left=expr(e.left), right=expr(e.right))
        return e

    if isinstance(n, Stmt):
        return replace(n, target=expr(n.target), expr=expr(n.expr))
    if isinstance(n, Loop):
        return replace(n, lower=poly(n.lower), upper=poly(n.upper),
                       body=tuple(_substitute(c, name, value) for c in n.body))
    if isinstance(n, If):
        cond = replace(n.cond, lhs=poly(n.cond.lhs), rhs=poly(n.cond.rhs),
                       data=expr(n.cond.data) if n.cond.data is not None else None)
        return replace(n, cond=cond, then=tuple(_substitute(c, name, value) for c in n.then),
                       orelse=tuple(_substitute(c, name, value) for c in n.orelse))
    return n


def _drop_unused_scalars(p: Program) -> Program:
    used: set[str] = set()

    def expr(e) -> None:
        if isinstance(e, ScalarRef):
            used.add(e.name)
        elif isinstance(e, BinOp):
            expr(e.left)
            expr(e.right)

    for n in walk_nodes(p.body):
        if isinstance(n, Stmt):
            expr(n.target)
            expr(n.expr)
        elif isinstance(n, If) and n.cond.data is not None:
            expr(n.cond.data)

    def prune(nodes) -> tuple[Node, ...]:
        out = []
        for n in nodes:
            if isinstance(n, ScalarDecl) and n.name not in used:
                continue
            if isinstance(n, Loop):
                n = replace(n, body=prune(n.body))
            elif isinstance(n, If):
                n = replace(n, then=prune(n.then), orelse=prune(n.orelse))
            out.append(n)
        return tuple(out)

    return replace(p, body=prune(p.body), scalars=tuple(s for s in p.scalars if s.name in used))
