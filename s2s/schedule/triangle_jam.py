"""Rows of a triangular solve jammed over the columns they share (index-set splitting).

trisolv's row i sums ``L[i][j] * x[j]`` over j < i into ``x[i]``, then divides: every row reads
the x of all rows before it, so rows cannot run side by side over the whole loop over j (the
outer loop unrolled and jammed over its inner loops, outer_jam.py, would read an x before its
row has it). Over the columns before a group of rows, j < i0 for the rows i0, i0 + 1, .., they
can: those x are final before the group starts. So the loop over j is split there. A group
runs what its rows do before the loop over j (row after row), then the shared columns with its
rows jammed, independent chains (each row's sum in its own order, so results are bit for bit
the same), then, row after row, the rest of each row's loop over j and what follows it.

The schedule is a tree of its own (a piecewise one: which part of the loop over j an instance
is in depends on its row's group), built with isl and checked like any other: exactly against
the dependences, and its code again before it is used (ast_order.py).
"""
from __future__ import annotations

import islpy as isl

from s2s.analysis.scop import Scop, Statement
from s2s.schedule.whole_groups import isolate_marked_groups, mark_whole_groups


def triangle_jam(scop: Scop, factor: int) -> isl.Schedule | None:
    """The tree that jams ``factor`` rows of ``scop``'s outer loop over the columns before their
    group, or None where the SCoP is not one outer loop around statements, then one inner loop
    over the columns below the diagonal, then statements (and nothing deeper)."""
    shape = _shape(scop)
    if shape is None or factor < 2:
        return None
    before, inner, after = shape
    row, column = inner[0].iterators
    params = ", ".join(scop.params)

    def where(stmts: list[Statement], condition: str = "") -> isl.UnionSet:
        such_that = f" : {condition}" if condition else ""
        pieces = "; ".join(f"{s.name}[{', '.join(s.iterators)}]{such_that}" for s in stmts)
        return isl.UnionSet(f"[{params}] -> {{ {pieces} }}").intersect(scop.domain)

    def in_order(stmts: list[Statement], condition: str = "") -> isl.Schedule:
        out = None
        for s in stmts:
            part = isl.Schedule.from_domain(where([s], condition))
            out = part if out is None else out.sequence(part)
        return out

    def loop(schedule: isl.Schedule, stmts: list[Statement], value: str) -> isl.Schedule:
        pieces = "; ".join(f"{s.name}[{', '.join(s.iterators)}] -> [({value})]" for s in stmts)
        upma = isl.UnionPwMultiAff(f"[{params}] -> {{ {pieces} }}")
        return schedule.insert_partial_schedule(isl.MultiUnionPwAff.from_union_pw_multi_aff(upma))

    group = f"floor({row} / {factor})"
    first_of_group = f"exists (g : {factor} * g <= {row} < {factor} * g + {factor} and "
    # the columns before the group: j, then the group's rows unrolled (whole groups without guards)
    copies = loop(in_order(inner, first_of_group + f"{column} < {factor} * g)"), inner,
                  f"{row} - {factor} * {group}")
    band = copies.get_root().child(0).band_member_set_ast_loop_type(0, isl.ast_loop_type.unroll)
    shared = loop(mark_whole_groups(band, [factor]).get_schedule(), inner, column)
    # the rest, row after row: each row's other columns, then what follows its loop over j
    rest = loop(in_order(inner, first_of_group + f"{column} >= {factor} * g)"), inner, column)
    if after:
        rest = rest.sequence(in_order(after))
    rest = loop(rest, inner + after, row)
    parts = shared.sequence(rest)
    if before:   # (before the loop over j: row after row, in the order written)
        parts = loop(in_order(before), before, row).sequence(parts)
    return isolate_marked_groups(loop(parts, before + inner + after, group))


def _shape(scop: Scop) -> tuple[list[Statement], list[Statement], list[Statement]] | None:
    """The statements before the inner loop, in it, and after it, in the order written."""
    stmts = sorted(scop.statements, key=lambda s: s.position)
    if not stmts or any(len(s.iterators) not in (1, 2) or s.loops[0].node is not stmts[0].loops[0].node
                        for s in stmts):
        return None
    inner = [s for s in stmts if len(s.iterators) == 2]
    if not inner or any(s.loops[1].node is not inner[0].loops[1].node for s in inner):
        return None
    first, last = stmts.index(inner[0]), stmts.index(inner[-1])
    if last - first + 1 != len(inner) or not _below_the_diagonal(inner[0].domain):
        return None
    return stmts[:first], inner, stmts[last + 1:]


def _below_the_diagonal(domain: isl.Set) -> bool:
    """Whether the inner loop's last column is the row's, plus a constant (``j < i``): a
    triangle whose rows share the columns before them."""
    n = domain.dim(isl.dim_type.param)
    per_row = domain.move_dims(isl.dim_type.param, n, isl.dim_type.set, 0, 1)
    last = per_row.dim_max(0)
    if last.n_piece() != 1:
        return False
    ((_, aff),) = last.get_pieces()
    return aff.get_coefficient_val(isl.dim_type.param, n).to_python() == 1 and all(
        aff.get_coefficient_val(isl.dim_type.param, p).is_zero() for p in range(n))
