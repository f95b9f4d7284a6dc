"""Point loops of a time-tiled band run one statement at a time.

A skewed band over the statements of a time step (jacobi-2d's two sweeps, fdtd-2d's three fields
and their update) fuses them with shifts: inside a tile, the innermost point loop runs an
instance of each statement per iteration, each under a guard of its own, and carries the
dependences between them. Neither vectorizes. Under the outermost point loop (the time step
within the tile), running each statement's instances of the tile as a loop nest of its own, in
the source's order, leaves loops that hold one statement, unguarded (their bounds are the
tile's), whose innermost loop is parallel wherever that statement alone has no dependence
along it within a time step: a loop the compiler vectorizes.

Legal, on top of the band's own permutability, when no dependence that the loops above the band
leave unordered runs from a statement to one before it in the source's order at distance zero
on the outermost point member. Every other dependence keeps its order: within a statement the
point loops are the band's; from one statement to a later one at the same time step the sequence
orders them; otherwise the target runs at a later time step, in the same tile or (distances on
a permutable band being non-negative) a later one.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from s2s.analysis.scop import Scop, Statement


@dataclass(frozen=True)
class StatementSplit:
    """Statements (in the source's order) whose point loops run apart under the outermost one,
    and per statement whether its innermost point loop is parallel."""

    statements: tuple[Statement, ...]
    parallel: tuple[bool, ...]


def statement_split(scop: Scop, stmts: list[Statement], times: isl.UnionMap, first: int,
                    validity: isl.UnionMap) -> StatementSplit | None:
    """How the point loops of a band may run one statement at a time: ``times`` maps each
    statement to the schedule's rows down to the band's point members in the order the code runs
    them, the outermost at ``first``. None when that is not legal, or gains no vector loop (every
    statement's innermost point loop carries a dependence)."""
    ordered = sorted(stmts, key=scop.statements.index)
    at = {s.name: k for k, s in enumerate(ordered)}
    parallel = [True] * len(ordered)
    for a in ordered:
        for b in ordered:
            between = validity.intersect_domain(isl.UnionSet.from_set(a.domain)).intersect_range(
                isl.UnionSet.from_set(b.domain))
            for deltas in _deltas(between, times):
                tied = _zero(deltas, range(first))
                if at[a.name] > at[b.name] and not _zero(tied, [first]).is_empty():
                    return None
                if a is b and not _zero(tied, range(first, deltas.dim(isl.dim_type.set) - 1)).is_empty():
                    parallel[at[a.name]] = False
    if not any(parallel):
        return None
    return StatementSplit(tuple(ordered), tuple(parallel))


def _deltas(dependences: isl.UnionMap, times: isl.UnionMap) -> list[isl.Set]:
    found: list[isl.Set] = []
    dependences.apply_domain(times).apply_range(times).deltas().foreach_set(found.append)
    return found


def _zero(distances: isl.Set, dims) -> isl.Set:
    ctx = distances.get_ctx()
    for k in dims:
        distances = distances.fix_val(isl.dim_type.set, k, isl.Val.zero(ctx))
    return distances
