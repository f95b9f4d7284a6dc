"""Structured control flow: the tree that orders dataflow blocks.

Every node has a stable ``id`` (assigned once when the IR is built, kept by transformations, so a
tuning recipe can name a loop) and an ``origin``: where in the user's file it came from, which the
C back end uses to splice regenerated code into the original text.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Iterator, Union

from s2s.ir.dataflow import DataflowGraph
from s2s.ir.expr import Expr


@dataclass(frozen=True)
class SourceSpan:
    """Characters ``start:end`` of ``file`` (0-based offsets), starting at 1-based line:column.
    A span with negative offsets only says where the code starts (it cannot be spliced)."""

    file: str
    start: int
    end: int
    line: int
    column: int

    @property
    def spliceable(self) -> bool:
        return 0 <= self.start <= self.end


class Schedule(enum.Enum):
    """How the iterations of a Map are executed. Back ends decide what each means for them."""

    SEQUENTIAL = "sequential"
    CPU_MULTICORE = "cpu-multicore"
    SIMD = "simd"
    GPU_DEVICE = "gpu-device"


@dataclass(frozen=True)
class Block:
    """Straight-line dataflow: one or more statements' worth of access nodes and tasklets."""

    id: str
    graph: DataflowGraph
    origin: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Declare:
    """Brings container ``name`` into scope here. ``init`` is a block that computes its initial value
    (emitted as ``T x = expr;``); ``init_text`` is an initializer kept verbatim (``{1, 2, 3}``).
    ``assigned_later``: statements after it set the value (a SCoP's temporary declared before its
    new loops), so a ``const`` of the user's declaration does not apply."""

    id: str
    name: str
    init: Block | None = None
    init_text: str | None = None
    origin: SourceSpan | None = field(default=None, compare=False)
    assigned_later: bool = False


@dataclass(frozen=True)
class Sequence:
    """Children executed in order; a C compound statement (a scope for its declarations)."""

    id: str
    children: tuple["ControlNode", ...] = ()
    origin: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True)
class For:
    """``for (var = init; cond; var = update) body``. ``declares_var``: the loop declares ``var``
    (``for (int i = ...)``)."""

    id: str
    var: str
    init: Expr
    cond: Expr
    update: Expr
    body: Sequence
    declares_var: bool = False
    origin: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Map:
    """A loop whose iterations are independent: ``var`` from ``start`` to ``stop`` (exclusive) by
    ``step``, executed according to ``schedule``. Each iteration works on a copy of its own of
    the arrays and scalars named in ``private``; after the loop each of them holds what the last
    iteration left in it (OpenMP's ``lastprivate``): run in order, the loop means the same without
    copies. Each scalar of ``reductions`` is only updated, ``x = x op e``, with its operator
    (``+ * & | ^``): a thread may sum its iterations' updates apart and add the sum to ``x`` at the
    end (OpenMP's ``reduction``; a reordering the optimizer allows only where it may).
    A parallel one (``CPU_MULTICORE``) starts its threads only where ``team_if`` holds at run time
    (None: where the back end's own test says the cores are free; ``TESTED_BEFORE``: always, a
    branch around it having tested its condition)."""

    id: str
    var: str
    start: Expr
    stop: Expr
    step: Expr
    body: Sequence
    schedule: Schedule = Schedule.SEQUENTIAL
    origin: SourceSpan | None = field(default=None, compare=False)
    private: tuple[str, ...] = ()
    team_if: Expr | None = None
    omp_schedule: str | None = None   # a recipe's OpenMP schedule for it (None: the back end's)
    reductions: tuple[tuple[str, str], ...] = ()   # (scalar, operator)


@dataclass(frozen=True)
class IfElse:
    id: str
    cond: Expr
    then: Sequence
    other: Sequence | None = None
    origin: SourceSpan | None = field(default=None, compare=False)
    # the then-branch is the one expected to run (a version test: arrays apart, work enough); the C
    # back end tells the compiler so, which would otherwise judge a long && chain unlikely and
    # compile the optimized version as cold code
    likely: bool = False
    # either branch may be the one that runs, as the sizes or the state of the threads decide (a
    # test on the work): the C back end tells the compiler to compile neither as cold code
    balanced: bool = False
    # the then-branch may become a function of its own, called here (the C back end does so where
    # it can pass it what it uses): the else-branch, the user's code, is then compiled in a
    # function the size of the user's, as the compiler would compile it without s2s
    outline: bool = False


@dataclass(frozen=True)
class While:
    """``while (cond) body``, or ``do body while (cond);`` when ``test_first`` is False."""

    id: str
    cond: Expr
    body: Sequence
    test_first: bool = True
    origin: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Break:
    id: str
    origin: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Continue:
    id: str
    origin: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Return:
    id: str
    value: Expr | None = None
    origin: SourceSpan | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Opaque:
    """Code s2s does not model (goto, switch, inline asm, pointer walks, ...), carried verbatim.
    Analyses treat it as reading and writing anything."""

    id: str
    text: str
    reason: str
    origin: SourceSpan | None = field(default=None, compare=False)


ControlNode = Union[Block, Declare, Sequence, For, Map, IfElse, While, Break, Continue, Return, Opaque]
LOOPS = (For, Map, While)


def child_nodes(node: ControlNode) -> tuple[ControlNode, ...]:
    if isinstance(node, Sequence):
        return node.children
    if isinstance(node, (For, Map, While)):
        return (node.body,)
    if isinstance(node, IfElse):
        return (node.then,) if node.other is None else (node.then, node.other)
    if isinstance(node, Declare):
        return (node.init,) if node.init is not None else ()
    return ()


def walk(node: ControlNode) -> Iterator[ControlNode]:
    """Pre-order traversal of a control tree."""
    yield node
    for c in child_nodes(node):
        yield from walk(c)


def contains_loop(node: ControlNode) -> bool:
    return any(isinstance(n, LOOPS) for n in walk(node))
