"""Packing moved out of loops: a matrix-multiply node whose right factors are the same in every
iteration of the loops around it gets them packed once, before the outermost of those loops,
into an array of their own (a PackedRight node), and packs none itself.

doitgen calls its kernel once per iteration of the batch loop r, and C4, its right factor, is
read-only: packed in every call, its 160 x 160 elements cost a twentieth of the kernel's time.
The right factors are invariant when nothing they read (arrays, scalars) is written anywhere in
the code and they, like the node's columns and k range, use none of the variables of the loops
around the node. They are packed only where the node runs at least once (every loop around it,
and its rows, with bounds that do not move with those loops, have an iteration), so that
nothing is read that the loops would not have read.
"""
from __future__ import annotations

import dataclasses
from typing import Mapping

from s2s.ir import (
    AccessNode, Array, Binary, Block, ControlNode, Data, DataflowGraph, Declare, Expr, For, IfElse, Map, MatMul,
    Memlet, Opaque, PackedRight, Range, Schedule, Sequence, Storage, While, child_nodes, expr as ex,
    packed_right_size, walk,
)
from s2s.ir.rewrite import fresh_name, map_sequences, mentioned_names, outermost_loops
from s2s.schedule.codegen import loop_as_map
from s2s.transforms.expansion import heap_allocation


@dataclasses.dataclass(frozen=True)
class _Hoisted:
    loop: ControlNode   # the outermost loop around the node, in its sequence
    block: Block        # the node's block
    node: MatMul
    buffer: Array
    runs: Expr          # true when the node runs at least once (the packing reads nothing before)


def pack_invariant_rights_once(seq: Sequence, containers: Mapping[str, Data]) -> tuple[Sequence, list[Array], list[str]]:
    """``seq`` (generated code) with the right factors of each matrix-multiply node that is
    invariant in the loops around it packed before the outermost of them; also the arrays that
    hold them (containers to add) and a note per node."""
    written = _written(seq)
    taken = set(containers) | set(mentioned_names(seq))
    found: list[_Hoisted] = []
    for loop in outermost_loops(seq):
        for block, node, around in _matmuls(loop, ()):
            uses = set().union(*(ex.names(e) for e in node.rights + (node.j.start, node.j.stop, node.k.start,
                                                                        node.k.stop))) - {node.j.var, node.k.var}
            runs = _runs(around, node)
            if node.packed_right is not None or node.i.var in uses or runs is None:
                continue
            if uses & (written | {m.var for m in around}):
                continue
            target = node.target.name if isinstance(node.target, ex.Access) else ""
            if not isinstance(containers.get(target), Array):
                continue
            name = fresh_name(f"s2s_packed_{_first_array(node)}", taken)
            buffer = Array(name, containers[target].dtype, (packed_right_size(node),), Storage.HEAP,
                           declaration=f"{node.dtype} *{name}")
            found.append(_Hoisted(loop, block, node, buffer, runs))
    if not found:
        return seq, [], []
    return (_rewrite(seq, found), [h.buffer for h in found],
            [f"right factors of the kernel packed once, before loop {_var(h.loop)}" for h in found])


def _matmuls(node: ControlNode, around: tuple[Map | None, ...]):
    """The MatMul nodes under ``node``, each with its block and the loops around it (as Maps;
    None for a loop of another shape, a branch, or a while loop)."""
    if isinstance(node, Block):
        for n in node.graph.nodes:
            if isinstance(n, MatMul):
                yield node, n, around
        return
    if isinstance(node, For):
        as_map = loop_as_map(node, Schedule.SEQUENTIAL)
        around = around + (as_map if isinstance(as_map, Map) else None,)
    elif isinstance(node, Map):
        around = around + (node,)
    elif isinstance(node, (While, IfElse)):
        around = around + (None,)
    for child in child_nodes(node):
        yield from _matmuls(child, around)


def _runs(around: tuple[Map | None, ...], node: MatMul) -> Expr | None:
    """A condition, evaluated before the loops, under which the node runs at least once: each
    loop around it and its rows have an iteration (None: no such condition, where a bound moves
    with a loop around the node, or a branch or while loop decides)."""
    if any(m is None for m in around):
        return None
    variables = {m.var for m in around if m is not None}
    bounds = [(m.start, m.stop) for m in around if m is not None] + [(node.i.start, node.i.stop)]
    if any(variables & (ex.names(a) | ex.names(b)) for a, b in bounds):
        return None
    cond: Expr | None = None
    for a, b in bounds:
        c = Binary("<", a, b)
        cond = c if cond is None else Binary("&&", cond, c)
    return cond


def _written(seq: Sequence) -> set[str]:
    """Every container the code writes or declares, and every loop variable."""
    out: set[str] = set()
    for n in walk(seq):
        if isinstance(n, Block):
            out |= {e.data for e in n.graph.writes()}
        elif isinstance(n, (For, Map)):
            out.add(n.var)
        elif isinstance(n, Declare):
            out.add(n.name)
        elif isinstance(n, Opaque):
            out |= set(mentioned_names(n))
    return out


def _first_array(node: MatMul) -> str:
    names = [a.name for e in node.rights for a in ex.walk(e) if isinstance(a, ex.Access)]
    return names[0] if names else "right"


def _var(loop: ControlNode) -> str:
    return loop.var if isinstance(loop, (For, Map)) else "while"


def _rewrite(seq: Sequence, found: list[_Hoisted]) -> Sequence:
    by_loop: dict[str, list[_Hoisted]] = {}
    for h in found:
        by_loop.setdefault(h.loop.id, []).append(h)
    use = {h.node.id: h.buffer.name for h in found}

    def packed(block: Block) -> Block:
        nodes = tuple(dataclasses.replace(n, packed_right=use[n.id]) if isinstance(n, MatMul) and n.id in use
                      else n for n in block.graph.nodes)
        return dataclasses.replace(block, graph=dataclasses.replace(block.graph, nodes=nodes))

    def fn(s: Sequence) -> Sequence:
        children: list[ControlNode] = []
        for c in s.children:
            hoisted = by_loop.get(c.id, [])
            children += [step for h in hoisted for step in _before(h)]
            children.append(packed(c) if isinstance(c, Block) else c)
            children += [Opaque(f"O.free.{h.buffer.name}", f"__builtin_free({h.buffer.name});",
                                "release of packed right factors") for h in hoisted]
        return dataclasses.replace(s, children=tuple(children))

    return map_sequences(seq, fn)  # type: ignore[return-value]


def _before(h: _Hoisted) -> list[ControlNode]:
    """The allocation of the packed factors and the node that packs them (reading what the
    matrix-multiply node reads of the right factors' arrays)."""
    name = h.buffer.name
    size = h.buffer.shape[0]
    reads = {a.name for e in h.node.rights for a in ex.walk(e) if isinstance(a, ex.Access)}
    pack_id = f"{h.node.id}.pack"
    inputs = [e for e in h.block.graph.in_edges(h.node.id) if e.data in reads]
    pack = PackedRight(pack_id, "packed_right", tuple(e.dst_conn for e in inputs), (f"out_{name}",), (), h.node, name)
    nodes = [AccessNode(f"{pack_id}.r.{e.data}", e.data) for e in inputs] + [pack, AccessNode(f"{pack_id}.w", name)]
    edges = [dataclasses.replace(e, src=f"{pack_id}.r.{e.data}", dst=pack_id) for e in inputs]
    edges.append(Memlet(pack_id, f"out_{name}", f"{pack_id}.w", None, name, (Range(ex.Const("0"), size, ex.Const("1")),)))
    graph = DataflowGraph(tuple(nodes), tuple(edges))
    # (where the node would not run, the factors are not read: they may not be there to read)
    return [heap_allocation(h.buffer, size, (), f"{h.node.dtype} *"), IfElse(
        f"C.pack.{name}", h.runs, Sequence(f"S.pack.{name}", (Block(f"B.pack.{name}", graph),)))]
