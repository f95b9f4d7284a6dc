"""Innermost loops proven independent, as SIMD Maps: for back ends that vectorize such loops
themselves (Highway) rather than leave them to the compiler, which the C target does where the
schedule marks no SIMD loop (a band of one loop, a loop gcc vectorizes by itself).

Only the optimized code is looked at: the then-branch of each version test (its else-branch is
the user's code), or a region without one. Each counted innermost ``for`` becomes a Map, and it
stays one only where the dependence analysis of the generated code proves that it carries no
conflict (verify_parallel.py); the others are the loops they were.
"""
from __future__ import annotations

import dataclasses

from s2s.ir import SDFG, VERSION_TEST_PREFIX, ControlNode, For, IfElse, Map, Schedule, Sequence, walk
from s2s.ir.rewrite import free_names, map_sequences
from s2s.schedule.codegen import loop_as_map
from s2s.transforms.verify_parallel import proven_parallel


def innermost_as_simd(sdfg: SDFG, node: ControlNode) -> ControlNode:
    """``node`` with its optimized code's independent innermost loops as SIMD Maps."""
    tests = [n for n in walk(node) if isinstance(n, IfElse) and n.id.startswith(VERSION_TEST_PREFIX)]
    if not tests:
        made = _marked(sdfg, Sequence(f"S.simd.{getattr(node, 'id', 'n')}", (node,)))
        return made.children[0]
    out = node
    for test in tests:
        then = _marked(sdfg, test.then)
        if then is not test.then:
            new = dataclasses.replace(test, then=then)
            out = map_sequences(out, lambda s, old=test, new=new: dataclasses.replace(
                s, children=tuple(new if isinstance(c, IfElse) and c.id == old.id else c for c in s.children)))
    return out


def _innermost(node) -> bool:
    return isinstance(node, For) and not any(isinstance(n, (For, Map)) for n in walk(node.body))


def _marked(sdfg: SDFG, seq: Sequence) -> Sequence:
    originals: dict[str, For] = {}
    # A Map declares its variable: a loop counting with one of the function's may become one only
    # where nothing outside such loops reads that variable (its value after the loop is lost).
    own = map_sequences(seq, lambda s: dataclasses.replace(s, children=tuple(
        dataclasses.replace(c, declares_var=True) if _innermost(c) else c for c in s.children)))
    read_outside = free_names(own)

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
        proven = proven_parallel(sdfg, candidate)
    except Exception:   # (an analysis that fails proves nothing: the loops stay as they were)
        return seq
    if not proven & set(originals):
        return seq
    return map_sequences(candidate, lambda s: dataclasses.replace(s, children=tuple(
        originals[c.id] if isinstance(c, Map) and c.id in originals and c.id not in proven else c
        for c in s.children)))
