"""Outer loops made parallel by giving each thread copies of its own of the scratch arrays and
scalars they reuse, and partial results of its own of the scalars they reduce into.

doitgen's batch loop r reruns a matrix multiply into the expanded scratch array ``sum_x`` in
every iteration: its iterations conflict on that memory only (each writes every element before
it reads it), so with a copy of ``sum_x`` per thread they are independent. One parallel region
around r then does what three per iteration of r did (zeroing, the kernel, the copy back), each
thread running whole iterations, kernel included, on its own.

A row sum ``s = 0; for (j ...) s += a[i][j] * x[j]; y[i] = s;`` into a scalar the loop body
declares orders the rows through ``s`` alone: with a copy per thread (OpenMP's ``lastprivate``,
which leaves the last iteration's value, as the loop in order would) the rows run in parallel.
A sum over the whole loop, ``e += m[i] * v[i] * v[i]``, runs in parallel as a partial sum per
thread added to ``e`` at the end (``reduction(+:e)``), where reassociation is allowed
(reductions.py).
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from s2s.analysis.dependences import conflicting_arrays
from s2s.analysis.privatization import privatizable
from s2s.analysis.reductions import loop_reductions
from s2s.ir import SDFG, Block, Const, For, Map, MatMul, Schedule, Sequence, walk
from s2s.ir.rewrite import map_sequences, outermost_loops
from s2s.schedule.codegen import loop_as_map
from s2s.time_limit import isl_operation_limit
from s2s.transforms.verify_parallel import probe_scops

# Whole iterations go to the threads: with fewer, some threads would idle where the loops inside
# could have shared the work.
MIN_ITERATIONS = 16
ANALYSIS_OPERATIONS = 1_000_000


def parallel_over_private_copies(sdfg: SDFG, seq: Sequence, scratch: set[str], scalars: frozenset[str] = frozenset(),
                                 reduced: frozenset[str] = frozenset(), floats: bool = False,
                                 plain: bool = False) -> tuple[Sequence, list[str]]:
    """``seq`` (generated code, in ``sdfg``'s containers) with each outermost sequential loop whose
    iterations conflict only through
    - arrays of ``scratch`` (arrays nothing reads after the code) and scalars of ``scalars``
      (declared in the code), each of which every iteration may have a copy of its own
      (``privatizable``),
    - scalars of ``reduced`` that the loop only updates, as ``loop_reductions`` allows them
      (``floats``: floating-point ones too),
    made a parallel Map with those copies and reductions; with ``plain``, also each such loop
    that carries no conflict at all, and loops without a loop inside. Also returns a note per
    loop so made."""
    candidates = {loop.id: loop for loop in outermost_loops(seq) if isinstance(loop, For)
                  and _worth_a_region(loop, flat=plain or bool(reduced))}
    if not candidates or not (scratch or scalars or reduced or plain):
        return seq, []
    chosen: dict[str, Map] = {}
    notes: list[str] = []
    try:
        with isl_operation_limit(ANALYSIS_OPERATIONS):
            for scop in probe_scops(sdfg, seq):
                for loop in scop.loops:
                    found = candidates.get(loop.node.id)
                    if found is None:
                        continue
                    arrays = conflicting_arrays(scop, loop)
                    reductions = loop_reductions(scop, loop, arrays & reduced, floats)
                    copied = arrays - set(reductions)
                    if not (arrays or plain) or not copied <= scratch | scalars or not all(
                            privatizable(scop, loop, a) for a in copied):
                        continue
                    as_map = loop_as_map(found, Schedule.CPU_MULTICORE)
                    if isinstance(as_map, Map):
                        chosen[found.id] = dataclasses.replace(as_map, private=tuple(sorted(copied)),
                                                               reductions=tuple(sorted(reductions.items())))
                        notes.append(f"{found.var} parallel" + "".join(
                            f" {what} {', '.join(sorted(names))}" for what, names in (
                                ("on private copies of", copied), ("reducing", reductions)) if names))
    except isl.Error:
        return seq, []
    return map_sequences(seq, lambda s: dataclasses.replace(s, children=tuple(
        chosen.get(c.id, c) if isinstance(c, For) else c for c in s.children))), notes


def _worth_a_region(loop: For, flat: bool) -> bool:
    """A loop with loops (or a library node) inside (``flat``: or without), of enough iterations
    or an unknown number."""
    if not flat and not any(isinstance(n, (For, Map)) or isinstance(n, Block) and any(
            isinstance(d, MatMul) for d in n.graph.nodes) for n in walk(loop.body)):
        return False
    as_map = loop_as_map(loop, Schedule.CPU_MULTICORE)
    if not isinstance(as_map, Map):
        return False
    start, stop, step = (e.int_value if isinstance(e, Const) else None for e in (as_map.start, as_map.stop, as_map.step))
    if start is None or stop is None or step is None:
        return True
    return step > 0 and (stop - start + step - 1) // step >= MIN_ITERATIONS
