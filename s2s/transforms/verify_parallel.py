"""Parallel loops are proven on the generated code itself.

Marks in the schedule tree only suggest which loop isl's AST generator will make parallel (a
degenerate tile loop disappears and the mark then sits over another loop). So every Map of the
generated code is checked again: the code is analysed as a SCoP (Maps as loops), and a Map whose
loop carries a dependence (other than through privatizable temporaries) becomes a plain loop.
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from s2s.analysis import find_scops
from s2s.analysis.dependences import carries_conflict
from s2s.ir import SDFG, Binary, For, Map, Schedule, Sequence, Sym, walk
from s2s.ir.rewrite import map_sequences
from s2s.time_limit import isl_operation_limit

CROSS_CHECK_OPERATIONS = 300_000


def _as_loop(m: Map) -> For:
    return For(m.id, m.var, m.start, Binary("<", Sym(m.var), m.stop), Binary("+", Sym(m.var), m.step), m.body,
               declares_var=True, origin=m.origin)


def _maps_to_loops(seq: Sequence, which) -> Sequence:
    """``seq`` with the Maps for which ``which(map)`` holds turned into sequential For loops."""

    def fn(s: Sequence) -> Sequence:
        children = tuple(_as_loop(c) if isinstance(c, Map) and which(c) else c for c in s.children)
        return dataclasses.replace(s, children=children)

    return map_sequences(seq, fn)  # type: ignore[return-value]


def proven_parallel(sdfg: SDFG, seq: Sequence) -> set[str]:
    """Ids of the loops of ``seq`` (generated code, in ``sdfg``'s containers) proven parallel."""
    probe = dataclasses.replace(sdfg, body=Sequence("S.probe", (_maps_to_loops(seq, lambda m: True),)))
    wanted = {n.id for n in walk(seq) if isinstance(n, Map)}
    proven: set[str] = set()
    for scop in find_scops(probe):
        for loop in scop.loops:
            if loop.node.id not in wanted:
                continue
            try:
                with isl_operation_limit(CROSS_CHECK_OPERATIONS):
                    conflict = carries_conflict(scop, loop)
            except isl.Error:
                conflict = False   # too dear to cross-check: the schedule's proof stands
            if not conflict:
                proven.add(loop.node.id)
    return proven


def demote_unproven_maps(sdfg: SDFG, seq: Sequence) -> tuple[Sequence, list[str]]:
    """``seq`` with every parallel or SIMD Map that is not proven parallel turned into a plain
    loop (and every parallel Map inside another, which would run sequentially anyway); also
    returns the ids of those not proven."""
    maps = [n for n in walk(seq) if isinstance(n, Map) and n.schedule is not Schedule.SEQUENTIAL]
    if not maps:
        return seq, []
    proven = proven_parallel(sdfg, seq)
    unproven = [m.id for m in maps if m.id not in proven]
    demoted = set(unproven)
    for m in maps:
        if m.schedule is Schedule.CPU_MULTICORE and m.id not in demoted:
            for inner in walk(m.body):
                if isinstance(inner, Map) and inner.schedule is Schedule.CPU_MULTICORE:
                    demoted.add(inner.id)
    return _maps_to_loops(seq, lambda m: m.id in demoted), unproven
