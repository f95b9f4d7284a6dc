"""Innermost loops proven independent, as SIMD Maps: for back ends that vectorize such loops
themselves (Highway) rather than leave them to the compiler, which the C target does where the
schedule marks no SIMD loop (a band of one loop, a loop gcc vectorizes by itself).

Only the optimized code is looked at: the then-branch of each version test (its else-branch is
the user's code), or a region without one. Each counted innermost ``for`` becomes a Map, and it
stays one only where the dependence analysis of the generated code proves that it carries no
conflict (verify_parallel.py); the others are the loops they were. Where floating-point sums
may be reordered (``reassociate``), a loop whose only conflicts are updates of scalars it
reduces (reductions.py: ``s = s + a[i] * b[i]``) is a Map with those reductions too: its lanes
sum apart, and the sums are added at the end.
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from s2s.analysis.dependences import conflicting_arrays
from s2s.analysis.reductions import loop_reductions, reducible
from s2s.ir import SDFG, VERSION_TEST_PREFIX, ControlNode, Declare, For, IfElse, Map, Schedule, Sequence, walk
from s2s.ir import expr as ex
from s2s.ir.control import child_nodes
from s2s.ir.rewrite import free_names, map_sequences, own_names
from s2s.schedule.codegen import loop_as_map
from s2s.time_limit import isl_operation_limit
from s2s.transforms.verify_parallel import CROSS_CHECK_OPERATIONS, probe_scops, proven_parallel


def innermost_as_simd(sdfg: SDFG, node: ControlNode, reassociate: bool = False) -> ControlNode:
    """``node`` with its optimized code's independent innermost loops as SIMD Maps (with
    ``reassociate``, also those independent but for the floating-point sums they reduce)."""
    tests = [n for n in walk(node) if isinstance(n, IfElse) and n.id.startswith(VERSION_TEST_PREFIX)]
    if not tests:
        made = _marked(sdfg, Sequence(f"S.simd.{getattr(node, 'id', 'n')}", (node,)), reassociate)
        return made.children[0]
    out = node
    for test in tests:
        then = _marked(sdfg, test.then, reassociate)
        if then is not test.then:
            new = dataclasses.replace(test, then=then)
            out = map_sequences(out, lambda s, old=test, new=new: dataclasses.replace(
                s, children=tuple(new if isinstance(c, IfElse) and c.id == old.id else c for c in s.children)))
    return out


def _innermost(node) -> bool:
    return isinstance(node, For) and not any(isinstance(n, (For, Map)) for n in walk(node.body))


def _read_outside_their_loops(body: ControlNode) -> set[str]:
    """The variables that ``body`` (a function's) mentions outside every loop counting with
    them (and outside their declarations): a Map's own variable may stand for any other, whose
    value after a loop no code reads before a loop sets it again."""
    out: set[str] = set()

    def visit(node: ControlNode, counting: frozenset[str]) -> None:
        if isinstance(node, For):   # (its first value is read before it counts: ``k = k``)
            out.update(name for name in ex.names(node.init) if name not in counting)
            counting = counting | {node.var}
            out.update(name for e in (node.cond, node.update) for name in ex.names(e) if name not in counting)
        elif not isinstance(node, Declare):
            out.update(name for name in own_names(node) if name not in counting)
        for child in child_nodes(node):
            visit(child, counting)

    visit(body, frozenset())
    return out


def _marked(sdfg: SDFG, seq: Sequence, reassociate: bool) -> Sequence:
    originals: dict[str, For] = {}
    # A Map declares its variable: a loop counting with one of the function's may become one only
    # where nothing outside such loops reads that variable, in this region or after it (its value
    # after the loop is lost).
    own = map_sequences(seq, lambda s: dataclasses.replace(s, children=tuple(
        dataclasses.replace(c, declares_var=True) if _innermost(c) else c for c in s.children)))
    read_outside = free_names(own) | _read_outside_their_loops(sdfg.body)

    def fn(s: Sequence) -> Sequence:
        children = []
        for c in s.children:
            if _innermost(c) and (c.declares_var or c.var not in read_outside):
                m = loop_as_map(c, Schedule.SIMD)
                if isinstance(m, Map):
                    originals[m.id] = c
                    c = m
            children.append(c)
        return dataclasses.replace(s, children=tuple(children))

    candidate = map_sequences(seq, fn)
    if not originals:
        return seq
    try:
        # (the SCoPs the analyses see have the Maps as loops: the same with reductions or without)
        scops = probe_scops(sdfg, candidate)
        proven = proven_parallel(sdfg, candidate, scops)
        if reassociate and set(originals) - proven:
            reducing = _reductions(sdfg, scops, set(originals) - proven)
            if reducing:
                candidate = map_sequences(candidate, lambda s: dataclasses.replace(s, children=tuple(
                    dataclasses.replace(c, reductions=reducing[c.id]) if isinstance(c, Map) and c.id in reducing
                    else c for c in s.children)))
                proven |= proven_parallel(sdfg, candidate, scops) & set(reducing)
    except Exception:   # (an analysis that fails proves nothing: the loops stay as they were)
        return seq
    if not proven & set(originals):
        return seq
    return map_sequences(candidate, lambda s: dataclasses.replace(s, children=tuple(
        originals[c.id] if isinstance(c, Map) and c.id in originals and c.id not in proven else c
        for c in s.children)))


def _reductions(sdfg: SDFG, scops: list, ids: set[str]) -> dict[str, tuple[tuple[str, str], ...]]:
    """The Maps of ``ids`` (loops of ``scops``, probe_scops') whose conflicts are all sums into
    scalars, with those reductions (verify_parallel.py checks them again, as it checks every Map's)."""
    containers = sdfg.container_map
    found: dict[str, tuple[tuple[str, str], ...]] = {}
    for scop in scops:
        for loop in scop.loops:
            if loop.node.id not in ids:
                continue
            try:
                with isl_operation_limit(CROSS_CHECK_OPERATIONS):
                    conflicts = conflicting_arrays(scop, loop)
                    if not conflicts or not all(reducible(containers.get(n), floats=True) for n in conflicts):
                        continue
                    reduced = loop_reductions(scop, loop, conflicts, floats=True)
            except isl.Error:
                continue
            if set(reduced) == conflicts and set(reduced.values()) == {"+"}:
                found[loop.node.id] = tuple(sorted(reduced.items()))
    return found
