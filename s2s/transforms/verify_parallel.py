"""Parallel loops are proven on the generated code itself.

Marks in the schedule tree only suggest which loop isl's AST generator will make parallel (a
degenerate tile loop disappears and the mark then sits over another loop). So every Map of the
generated code is checked again: the code is analysed as a SCoP (Maps as loops), and a Map whose
loop carries a dependence (other than through arrays and scalars it copies per iteration, where
exact dataflow shows those copies suffice, and through the scalars it reduces, where only their
updates touch them) becomes a plain loop.
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from s2s.analysis import Scop, find_scops
from s2s.analysis.dependences import carries_conflict, conflicting_arrays
from s2s.analysis.privatization import privatizable
from s2s.analysis.reductions import loop_reductions
from s2s.ir import SDFG, Binary, Block, ControlNode, For, Map, MatMul, Schedule, Sequence, Sym, walk
from s2s.ir.library import reference_loops
from s2s.ir.rewrite import map_sequences
from s2s.time_limit import isl_operation_limit

CROSS_CHECK_OPERATIONS = 300_000
COPY_CHECK_OPERATIONS = 100_000   # more for each array or scalar copied or reduced (its dataflow)


def _as_loop(m: Map) -> For:
    return For(m.id, m.var, m.start, Binary("<", Sym(m.var), m.stop), Binary("+", Sym(m.var), m.step), m.body,
               declares_var=True, origin=m.origin)


def _maps_to_loops(seq: Sequence, which) -> Sequence:
    """``seq`` with the Maps for which ``which(map)`` holds turned into sequential For loops."""

    def fn(s: Sequence) -> Sequence:
        children = tuple(_as_loop(c) if isinstance(c, Map) and which(c) else c for c in s.children)
        return dataclasses.replace(s, children=children)

    return map_sequences(seq, fn)  # type: ignore[return-value]


def probe_scops(sdfg: SDFG, seq: Sequence) -> list[Scop]:
    """The SCoPs of ``seq`` (generated code, in ``sdfg``'s containers) as the analyses see it:
    Maps as loops, and each matrix-multiply library node as the loops it stands for."""
    containers = sdfg.container_map

    def fn(s: Sequence) -> Sequence:
        children = tuple(_reference(c, containers) if isinstance(c, Block) else c for c in s.children)
        return dataclasses.replace(s, children=children)

    plain = map_sequences(_maps_to_loops(seq, lambda m: True), fn)
    return find_scops(dataclasses.replace(sdfg, body=Sequence("S.probe", (plain,))))


def _reference(block: Block, containers) -> ControlNode:
    nodes = [n for n in block.graph.nodes if isinstance(n, MatMul)]
    return reference_loops(nodes[0], containers, block.origin) if len(nodes) == 1 else block


def proven_parallel(sdfg: SDFG, seq: Sequence, scops: list[Scop] | None = None) -> set[str]:
    """Ids of the loops of ``seq`` (generated code, in ``sdfg``'s containers) proven parallel: a
    loop that carries no conflict but on arrays it copies per iteration, which may be so copied.
    ``scops``: ``probe_scops(sdfg, seq)`` where the caller has them."""
    maps = {n.id: n for n in walk(seq) if isinstance(n, Map)}
    proven: set[str] = set()
    for scop in probe_scops(sdfg, seq) if scops is None else scops:
        for loop in scop.loops:
            m = maps.get(loop.node.id)
            if m is None:
                continue
            try:
                with isl_operation_limit(CROSS_CHECK_OPERATIONS + COPY_CHECK_OPERATIONS * (
                        len(m.private) + len(m.reductions))):
                    if m.private or m.reductions:
                        reduced = dict(m.reductions)
                        ok = (conflicting_arrays(scop, loop) <= set(m.private) | set(reduced)
                              and all(privatizable(scop, loop, a) for a in m.private)
                              and loop_reductions(scop, loop, set(reduced), floats=True) == reduced)
                    else:
                        ok = not carries_conflict(scop, loop)
            except isl.Error:
                # (too dear to cross-check: the schedule's proof stands, which knows no copies)
                ok = not m.private and not m.reductions
            if ok:
                proven.add(loop.node.id)
    return proven


def demote_unproven_maps(sdfg: SDFG, seq: Sequence, scops: list[Scop] | None = None) -> tuple[Sequence, list[str]]:
    """``seq`` with every parallel or SIMD Map that is not proven parallel turned into a plain
    loop (and every parallel Map inside another, which would run sequentially anyway, and every
    matrix-multiply library node in one runs on the thread that calls it); also returns the ids
    of those not proven."""
    maps = [n for n in walk(seq) if isinstance(n, Map) and n.schedule is not Schedule.SEQUENTIAL]
    if not maps:
        return seq, []
    proven = proven_parallel(sdfg, seq, scops)
    unproven = [m.id for m in maps if m.id not in proven]
    demoted = set(unproven)
    inner_blocks: set[str] = set()
    for m in maps:
        if m.schedule is Schedule.CPU_MULTICORE and m.id not in demoted:
            for inner in walk(m.body):
                if isinstance(inner, Map) and inner.schedule is Schedule.CPU_MULTICORE:
                    demoted.add(inner.id)
                elif isinstance(inner, Block):
                    inner_blocks.add(inner.id)
    seq = _maps_to_loops(seq, lambda m: m.id in demoted)
    return map_sequences(seq, lambda s: dataclasses.replace(s, children=tuple(
        _one_thread(c) if isinstance(c, Block) and c.id in inner_blocks else c for c in s.children))), unproven


def _one_thread(block: Block) -> Block:
    nodes = tuple(dataclasses.replace(n, parallel=False) if isinstance(n, MatMul) and n.parallel else n
                  for n in block.graph.nodes)
    return dataclasses.replace(block, graph=dataclasses.replace(block.graph, nodes=nodes))
