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

from s2s.time_limit import isl_operation_limit

WHOLE_GROUPS_MARK = "whole-groups"
WHOLE_GROUPS_OPERATIONS = 200_000   # isl's steps for one band's whole groups (milliseconds)


def mark_whole_groups(unrolled: isl.ScheduleNode, extents: list[int]) -> isl.ScheduleNode:
    """Band ``unrolled``, unrolled with ``extents`` values per member, marked for
    ``isolate_marked_groups``: the iterations of the nearest band above it (through filters and
    sequences) that run every copy are to be generated apart. Returns the band."""
    name = f"{WHOLE_GROUPS_MARK}:{','.join(map(str, extents))}"
    return unrolled.insert_mark(isl.Id(name)).child(0)


def band_above(node: isl.ScheduleNode) -> isl.ScheduleNode | None:
    """The nearest band above ``node`` (through filters, sequences, sets and marks), or None."""
    while node.has_parent():
        node = node.parent()
        if node.get_type() == isl.schedule_node_type.band:
            return node
    return None


def isolate_marked_groups(schedule: isl.Schedule) -> isl.Schedule:
    """``schedule`` with each whole-groups mark removed and the isolate option set on the band
    above it (an iteration of that band is whole when it is for every mark below it)."""

    def isolate(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.mark:
            return node
        kind, _, extents = node.mark_get_id().get_name().partition(":")
        if kind != WHOLE_GROUPS_MARK:
            return node
        unrolled = node.delete()
        above = band_above(unrolled)
        earlier = above.band_get_ast_isolate_option()   # (another copy band below it)
        if not above.band_get_ast_build_options().subtract(isl.UnionSet.from_set(earlier)).is_empty():
            return unrolled   # (a band with options of its own, such as unrolled copies: left as it is)
        try:
            with isl_operation_limit(WHOLE_GROUPS_OPERATIONS):
                whole = _whole_groups(above, unrolled, [int(e) for e in extents.split(",")])
        except isl.Error:   # (strided, skewed times can take isl minutes: the copies keep their guards)
            whole = None
        if whole is None:
            return unrolled
        if not earlier.is_empty():   # (whole for both; their sets may name different parameters)
            whole = whole.align_params(earlier.get_space()).intersect(earlier.align_params(whole.get_space()))
        path = []
        while unrolled.get_tree_depth() > above.get_tree_depth():
            path.append(unrolled.get_child_position())
            unrolled = unrolled.parent()
        node = above.band_set_ast_build_options(isl.UnionSet.from_set(whole))
        for position in reversed(path):
            node = node.child(position)
        return node

    return schedule.map_schedule_node_bottom_up(isolate)


def _whole_groups(outer: isl.ScheduleNode, unrolled: isl.ScheduleNode, extents: list[int]) -> isl.Set | None:
    """The isolate option of band ``outer`` for band ``unrolled`` below it, unrolled with
    ``extents`` values per member (from 0, as isl's tiling shifts point loops): the iterations
    of ``outer`` (given the loops around it) in which every copy runs. None where no statement
    instance runs there (its statements never run: nothing to isolate)."""
    times_of = unrolled.child(0).get_prefix_schedule_relation().range()
    if times_of.is_empty():
        return None
    times = isl.Set.from_union_set(times_of)
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
    return option.wrap().set_tuple_name("isolate")
