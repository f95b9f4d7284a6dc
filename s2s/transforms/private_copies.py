"""Outer loops made parallel by giving each thread copies of its own of the scratch arrays they
reuse.

doitgen's batch loop r reruns a matrix multiply into the expanded scratch array ``sum_x`` in
every iteration: its iterations conflict on that memory only (each writes every element before
it reads it), so with a copy of ``sum_x`` per thread they are independent. One parallel region
around r then does what three per iteration of r did (zeroing, the kernel, the copy back), each
thread running whole iterations, kernel included, on its own.
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from s2s.analysis.dependences import conflicting_arrays
from s2s.analysis.privatization import privatizable
from s2s.ir import SDFG, Block, Const, For, Map, MatMul, Schedule, Sequence, walk
from s2s.ir.rewrite import map_sequences, outermost_loops
from s2s.schedule.codegen import loop_as_map
from s2s.time_limit import isl_operation_limit
from s2s.transforms.verify_parallel import probe_scops

# Whole iterations go to the threads: with fewer, some threads would idle where the loops inside
# could have shared the work.
MIN_ITERATIONS = 16
ANALYSIS_OPERATIONS = 1_000_000


def parallel_over_private_copies(sdfg: SDFG, seq: Sequence, scratch: set[str]) -> tuple[Sequence, list[str]]:
    """``seq`` (generated code, in ``sdfg``'s containers) with each outermost sequential loop whose
    iterations conflict only through arrays of ``scratch`` (arrays nothing reads after the
    code), each of which every iteration may have a copy of its own (``privatizable``), made a
    parallel Map with those copies. Also returns a note per loop so made."""
    candidates = {loop.id: loop for loop in outermost_loops(seq) if isinstance(loop, For) and _worth_a_region(loop)}
    if not candidates or not scratch:
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
                    if not arrays or not arrays <= scratch or not all(privatizable(scop, loop, a) for a in arrays):
                        continue
                    as_map = loop_as_map(found, Schedule.CPU_MULTICORE)
                    if isinstance(as_map, Map):
                        chosen[found.id] = dataclasses.replace(as_map, private=tuple(sorted(arrays)))
                        notes.append(f"{found.var} parallel on private copies of {', '.join(sorted(arrays))}")
    except isl.Error:
        return seq, []
    return map_sequences(seq, lambda s: dataclasses.replace(s, children=tuple(
        chosen.get(c.id, c) if isinstance(c, For) else c for c in s.children))), notes


def _worth_a_region(loop: For) -> bool:
    """A loop with loops (or a library node) inside, of enough iterations or an unknown number."""
    if not any(isinstance(n, (For, Map)) or isinstance(n, Block) and any(
            isinstance(d, MatMul) for d in n.graph.nodes) for n in walk(loop.body)):
        return False
    as_map = loop_as_map(loop, Schedule.CPU_MULTICORE)
    if not isinstance(as_map, Map):
        return False
    start, stop, step = (e.int_value if isinstance(e, Const) else None for e in (as_map.start, as_map.stop, as_map.step))
    if start is None or stop is None or step is None:
        return True
    return step > 0 and (stop - start + step - 1) // step >= MIN_ITERATIONS
