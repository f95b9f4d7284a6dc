"""Library nodes whose implementation a back end expands: a known computation over a whole
iteration space, kept as one node so that each back end writes its best code for it.

``MatMul`` is the update ``C[i][j] op= f(left_0(i, k) * right_0(k, j), ...)`` over (i, j, k),
``f`` a sum of such products (one for gemm, two for syr2k), j over a range that may move with i
(syrk's triangle), k over one that may too (trmm's ``k > i``). Its contract, which every
expansion keeps: for each (i, j) the updates are applied in ascending k, each computed as the
loops it replaces computed it, so the results round exactly as before; (i, j) pairs may be
visited in any order; a right factor that reads the target's array (trmm's in-place ``B[k][j]``)
reads the values from before the node's updates: packed for a k panel before any update in it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from s2s.ir import expr as ex
from s2s.ir.control import For, Sequence, SourceSpan
from s2s.ir.data import Data
from s2s.ir.dataflow import LibraryNode
from s2s.ir.expr import Binary, Const, Expr, Sym


@dataclass(frozen=True)
class Blocking:
    """How an expansion blocks a MatMul for one machine: ``rows`` x ``vectors`` vectors of
    ``lanes`` elements of the result stay in registers while k runs over a panel of ``depth``
    values; ``panel_rows`` rows of ``left`` are packed at a time (sized for L2, one panel per
    thread), ``panel_columns`` columns of ``right`` (sized for the shared L3), and a
    ``depth`` x (``vectors`` * ``lanes``) strip of those stays in L1 while it is used."""

    rows: int
    vectors: int
    lanes: int
    depth: int
    panel_rows: int
    panel_columns: int

    @property
    def columns(self) -> int:
        return self.vectors * self.lanes

    @property
    def text(self) -> str:
        return f"{self.rows}x{self.vectors}x{self.lanes}/{self.depth}/{self.panel_rows}/{self.panel_columns}"

    @staticmethod
    def parse(text: str) -> "Blocking":
        shape, depth, rows_panel, columns_panel = text.split("/")
        rows, vectors, lanes = (int(x) for x in shape.split("x"))
        return Blocking(rows, vectors, lanes, int(depth), int(rows_panel), int(columns_panel))


@dataclass(frozen=True)
class Extent:
    """Loop variable ``var`` from ``start`` to ``stop`` (exclusive), step 1 (for j the bounds
    may depend on i)."""

    var: str
    start: Expr
    stop: Expr


@dataclass(frozen=True)
class MatMul(LibraryNode):
    """``target op= update`` for ``i``, ``j``, ``k`` over their extents (see the module
    docstring). ``target`` is ``C[i][j]`` with j its last, stride-1 subscript. ``update`` is
    written in the names ``left<t>`` and ``right<t>`` for the terms' factors ``lefts[t]``
    (reading only i and k) and ``rights[t]`` (only k and j). ``dtype`` is the element type
    (``double``, ``float``)."""

    i: Extent
    j: Extent
    k: Extent
    target: Expr
    op: str
    update: Expr
    lefts: tuple[Expr, ...]
    rights: tuple[Expr, ...]
    dtype: str
    blocking: Blocking
    parallel: bool   # the row blocks may run on several threads
    # an array that a PackedRight node before this one filled with its right factors, which it
    # then packs no more (None: it packs them itself; the array's pointer may be null at run
    # time, allocation having failed, and it then packs them itself too)
    packed_right: str | None = None
    # with ``parallel``: the run-time condition for the threads to start, as a Map's ``team_if``
    team_if: Expr | None = None

    def update_of(self, lefts: list[Expr], rights: list[Expr]) -> Expr:
        """``update`` with ``lefts[t]``, ``rights[t]`` for the names of term t's factors."""
        names = {left_name(t): e for t, e in enumerate(lefts)} | {right_name(t): e for t, e in enumerate(rights)}
        return ex.substitute(self.update, names)


@dataclass(frozen=True)
class PackedRight(LibraryNode):
    """The right factors of ``matmul`` (every term, k and column) written once into ``buffer``
    (``packed_right_size`` elements, already allocated: nothing is done where it is null), in
    the order the node's expansion reads them: the packing moved out of loops in which every
    call of the node has the same right factors (doitgen's batch loop r, and C4). Only for a
    node whose columns do not depend on i."""

    matmul: MatMul
    buffer: str


def packed_right_size(node: MatMul) -> Expr:
    """How many elements the right factors of ``node`` take packed: per term, every k by the
    columns rounded up to whole strips of ``blocking.columns``."""
    nr = Const(str(node.blocking.columns))
    strips = Binary("/", Binary("+", Binary("-", node.j.stop, node.j.start), Const(str(node.blocking.columns - 1))), nr)
    depth = Binary("-", node.k.stop, node.k.start)
    return Binary("*", Binary("*", Const(str(len(node.rights))), depth), Binary("*", strips, nr))


def reads_target(rights: tuple[Expr, ...], target: Expr) -> bool:
    """Whether a right factor reads the target's array (trmm's ``B[k][j]`` for ``B[i][j]``): the
    values it reads are those from before the node's updates, which an expansion must keep."""
    name = target.name if isinstance(target, ex.Access) else None
    return any(isinstance(a, ex.Access) and a.name == name for e in rights for a in ex.walk(e))


def left_name(t: int) -> str:
    return f"left{t}"


def right_name(t: int) -> str:
    return f"right{t}"


def reference_loops(node: MatMul, containers: Mapping[str, Data], origin: SourceSpan | None = None) -> For:
    """``node`` as the loops it stands for (i, then k, then j, around the statement, which comes
    from ``origin``): its meaning, which every expansion must match, and what a counting build
    counts statement by statement."""
    from s2s.ir.builder import SDFGBuilder   # (the builder is for whole functions; used on demand)

    b = SDFGBuilder(node.id)
    for data in containers.values():
        b.add_container(data)
    value = Binary(node.op, node.target, node.update_of(list(node.lefts), list(node.rights)))
    block = b.assignment(node.target, value, free={node.i.var, node.j.var, node.k.var})
    # (the block's id names a statement of the polyhedral model, where dots are not allowed)
    block = replace(block, id=f"{node.id.replace('.', '_')}_stmt", origin=origin)
    loop = block
    for extent in (node.j, node.k, node.i):
        v = Sym(extent.var)
        body = Sequence(f"{node.id}.{extent.var}.body", (loop,))
        loop = For(f"{node.id}.{extent.var}", extent.var, extent.start, Binary("<", v, extent.stop),
                   Binary("+", v, Const("1")), body, declares_var=True)
    return loop


# A check that back ends define as a file-scope function: ``ROWS_APART(rows, first, last, lo, hi,
# size)`` is true when the rows ``rows[first..last]``, elements ``lo..hi`` of ``size`` bytes each,
# lie in ascending order of address with no two overlapping. It is pure (it only reads the row
# pointers), so the rows' elements lie within ``&rows[first][lo]`` and ``&rows[last][hi] + 1``.
ROWS_APART = "s2s_rows_apart"

# A check that back ends with threads define as a file-scope function: ``TEAM_PAYS(work, start,
# wake)`` is true when a parallel region, in an execution of a SCoP of ``work`` statement
# instances, is to run on the threads of its team. Their first start in the calling thread pays
# for itself from ``start`` instances, waking them once they sleep from ``wake``; while they are
# awake any region pays. False while the cores are busy with other work. It keeps the state it
# judges by, so a call that returns true must be followed by the region (or by others).
TEAM_PAYS = "s2s_team_pays"

# The ``team_if`` of a parallel region inside a branch that has tested its condition already.
TESTED_BEFORE = Const("1")

# How the ids of the IfElse nodes between a SCoP's optimized code (then) and the user's (else)
# begin (s2s.transforms.scop_codegen makes them; back ends that move the optimized code look for them).
VERSION_TEST_PREFIX = "C.alias."
