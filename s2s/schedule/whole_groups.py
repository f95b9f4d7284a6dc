"""Unrolled copies in whole groups, generated apart from the partial ones and without guards.

A loop unrolled by 4 under another (rows jammed into a loop over j) runs every copy in most
iterations of the loop above it, and fewer only at the end of the rows' range or of a triangle.
isl's ``isolate`` option on that band makes its AST generator emit the iterations where every
copy runs as a loop of their own, with no guard inside, which code generation needs to keep the
copies' elements in locals (``scalar_replacement.py``). The option names the dimensions of the
loops around the band, so a band that has it cannot be moved under new bands: the tree is built
with a mark in its place, and the options are set once the tree is complete.
"""
from __future__ import annotations

import islpy as isl

WHOLE_GROUPS_MARK = "whole-groups"


def mark_whole_groups(unrolled: isl.ScheduleNode, extents: list[int]) -> isl.ScheduleNode:
    """Band ``unrolled`` (right below the band whose iterations should be split), unrolled with
    ``extents`` values per member, marked for ``isolate_marked_groups``. Returns the band."""
    name = f"{WHOLE_GROUPS_MARK}:{','.join(map(str, extents))}"
    return unrolled.insert_mark(isl.Id(name)).child(0)


def isolate_marked_groups(schedule: isl.Schedule) -> isl.Schedule:
    """``schedule`` with each whole-groups mark removed and the isolate option set on the band
    above it."""

    def isolate(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.mark:
            return node
        kind, _, extents = node.mark_get_id().get_name().partition(":")
        if kind != WHOLE_GROUPS_MARK:
            return node
        above = node.delete().parent()
        if above.band_get_ast_build_options().is_empty():
            above = above.band_set_ast_build_options(_whole_groups(above, [int(e) for e in extents.split(",")]))
        return above.child(0)

    return schedule.map_schedule_node_bottom_up(isolate)


def _whole_groups(outer: isl.ScheduleNode, extents: list[int]) -> isl.UnionSet:
    """The isolate option of band ``outer`` whose child band is unrolled with ``extents`` values
    per member (from 0, as isl's tiling shifts point loops): the iterations of ``outer`` (given
    the loops around it) that run every copy."""
    unrolled = outer.child(0)
    times = isl.Set.from_union_set(unrolled.child(0).get_prefix_schedule_relation().range())
    depth = times.dim(isl.dim_type.set)
    copies = len(extents)
    around = depth - copies - outer.band_n_member()
    ctx = times.get_ctx()
    every = times.drop_constraints_involving_dims(isl.dim_type.set, depth - copies, copies)
    for k, extent in enumerate(extents):
        every = every.lower_bound_val(isl.dim_type.set, depth - copies + k, isl.Val.zero(ctx))
        every = every.upper_bound_val(isl.dim_type.set, depth - copies + k, isl.Val.int_from_si(ctx, extent - 1))
    missing = every.subtract(times).project_out(isl.dim_type.set, depth - copies, copies)
    whole = times.project_out(isl.dim_type.set, depth - copies, copies).subtract(missing).coalesce()
    option = isl.Map.from_range(whole).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, around)
    return isl.UnionSet.from_set(option.wrap().set_tuple_name("isolate"))
