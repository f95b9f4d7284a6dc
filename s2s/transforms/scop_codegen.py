"""Replacing each SCoP of a function by code generated from its (possibly new) schedule."""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Callable

from s2s.analysis.data_conditions import selects_for_data_conditions
from s2s.analysis.liveness import live_loop_variables
from s2s.analysis.reductions import reducible
from s2s.analysis.scop import Scop, find_scops
from s2s.analysis.scop_id import numbered_scop_ids
from s2s.ir import (
    SDFG, VERSION_TEST_PREFIX, Array, Binary, Expr, IfElse, Map, Opaque, Scalar, Schedule, Sequence, SourceSpan,
    Storage, scalar_type, walk, expr as ex,
)
from s2s.ir.rewrite import replace_run, with_id_suffix
from s2s.schedule.codegen import generate, signed_parameters
from s2s.transforms.alias_check import Uncheckable, assumed_condition, no_overlap_condition
from s2s.transforms.decisions import Step
from s2s.transforms.polyhedral import Choice
from s2s.transforms.packing_hoist import pack_invariant_rights_once
from s2s.transforms.private_copies import parallel_over_private_copies
from s2s.transforms.scalar_replacement import keep_elements_in_locals
from s2s.transforms.verify_parallel import demote_unproven_maps, probe_scops
from s2s.transforms.work_guard import (
    allocated_only_with, sequential_small_regions, short_count, team_test, with_team_test,
    without_tests_implied_by,
)

# Given a SCoP: what to generate from it (no schedule: the user's code stays).
ScheduleChooser = Callable[[Scop, str], Choice]   # (SCoP, its stable id) -> Choice


@dataclass(frozen=True)
class ScopOutcome:
    first_node: str
    line: int | None
    applied: bool
    reason: str
    scop_id: str = ""                 # stable across runs (s2s.analysis.scop_id)
    steps: tuple[Step, ...] = ()      # what was decided, as a recipe's steps (decisions.py)
    nodes: tuple[str, ...] = ()       # the ids of the statements it spans (first_node the first)


def _outcome(scop: Scop, ident: str, applied: bool, reason: str, steps: tuple[Step, ...] = ()) -> ScopOutcome:
    if not applied and [s.kind for s in steps] != ["keep-original"]:
        steps = (Step.of("keep-original", "scop", reason=reason),)
    return ScopOutcome(scop.nodes[0].id, scop.first_line, applied, reason, ident, steps,
                       tuple(n.id for n in scop.nodes))


def regenerate_scops(sdfg: SDFG, source: str, choose: ScheduleChooser | None = None,
                     ids: bool = False, scops: list[Scop] | None = None) -> tuple[SDFG, list[ScopOutcome]]:
    """``sdfg`` with every SCoP rebuilt by isl code generation from ``choose(scop)`` (without a
    chooser: the original schedule; a chooser that returns None leaves the SCoP as written). ``source`` is the file's text: a SCoP made of several top-level statements
    is only replaced when nothing but blanks and comments separates them. ``scops``: those
    ``find_scops(sdfg)`` gives, where the caller has them."""
    outcomes: list[ScopOutcome] = []
    sdfg = selects_for_data_conditions(sdfg)   # (as find_scops reads it: the SCoPs' nodes are its)
    body = sdfg.body
    containers = list(sdfg.containers)
    if scops is None:
        scops = find_scops(sdfg)
    # (the ids print every domain and access: 0.1 s for adi's 27 statements, which a build
    # without recipes or a report does not pay)
    for scop, ident in zip(scops, numbered_scop_ids(sdfg.name, scops) if ids else [""] * len(scops)):
        first = scop.nodes[0]
        pragma = _pragma_before(scop)
        if pragma:
            outcomes.append(_outcome(scop, ident, False, f"the user's `{pragma}` applies to the loop"))
            continue
        live = live_loop_variables(scop)
        if live:
            outcomes.append(_outcome(scop, ident, False,
                                        f"loop variable {', '.join(live)} is used after the loops"))
            continue
        try:
            choice = choose(scop, ident) if choose else Choice(None, "original schedule")
        except Exception as exc:  # noqa: BLE001 - a bug met on one SCoP keeps that SCoP as written
            why = str(exc).splitlines()[0][:120] if str(exc) else ""
            outcomes.append(_outcome(scop, ident, False,
                                        f"original code kept: internal error: {type(exc).__name__}: {why}"))
            continue
        schedule, note, expansion = choice.schedule, choice.note, choice.expansion
        if choose and schedule is None:
            # the optimizer found nothing better: the user's code stays exactly as written
            outcomes.append(_outcome(scop, ident, False, note, choice.steps))
            continue
        guard = None
        try:
            # (the user's order, regenerated, needs no overlap test; the model describes the
            # code only where what it assumes of the parameters holds, whatever the order)
            guard = no_overlap_condition(scop) if schedule is not None else None
            assumed = assumed_condition(scop)
        except Uncheckable as why:
            # the user's code stays exactly as written: its order is the only one known right
            outcomes.append(_outcome(scop, ident, False, f"original code kept: pointer arrays may overlap ({why})"))
            continue
        work_guard = _work_guard(choice) if schedule is not None else None
        if expansion is not None:
            containers.extend(expansion.containers)
            expansion = _allocated_only_with(expansion, work_guard)
        new, new_vars = generate(expansion.scop if expansion else scop, schedule,
                                 choice.ast if schedule is choice.schedule else None)
        probe = dataclasses.replace(sdfg, containers=tuple(containers) + tuple(
            Scalar(v, scalar_type("int"), Storage.STACK) for v in new_vars))
        if choice.parallel:
            new, private = _parallel_over_copies(choice, expansion.scop if expansion else scop, probe, new,
                                                 expansion.containers if expansion else ())
            note += "".join(f"; {p}" for p in private)
        # (the analyses read Maps as loops: demoting parallel loops leaves these SCoPs as they are)
        probed = probe_scops(probe, new) if any(isinstance(n, Map) and n.schedule is not Schedule.SEQUENTIAL
                                                for n in walk(new)) else None
        new, demoted = demote_unproven_maps(probe, new, probed)
        if demoted:
            note += f"; {len(demoted)} loop(s) not proven parallel kept sequential"
        new, buffers, packed = pack_invariant_rights_once(new, probe.container_map)
        containers.extend(buffers)
        note += "".join(f"; {p}" for p in packed)
        # (after the packing is hoisted: a region versioned on its work has the kernel twice)
        regions = sequential_small_regions(probe, new, choice.min_region_work, choice.min_kernel_region_work,
                                           None if packed else probed, choice.work)
        new = regions.seq
        note += "".join(f"; {s}" for s in regions.notes)
        new, runs_parallel, told = _where_threads_run(choice, new, regions.runs_parallel)
        note += told
        parallel_test = None
        copies = expansion is not None and expansion.copies
        alternative = choice.sequential if not copies and runs_parallel is not True else None
        parallel_only = choice.parallel_only
        if alternative is not None and alternative.schedule is not None:
            # (the main version's packing buffers among the names taken)
            taken = dataclasses.replace(probe, containers=probe.containers + tuple(buffers))
            new, seq_vars, seq_buffers, told = _sequential_where_no_region_runs(
                expansion.scop if expansion else scop, taken, new, alternative, runs_parallel)
            new_vars += [v for v in seq_vars if v not in new_vars]
            containers.extend(seq_buffers)
            note += told
        elif alternative is not None:
            parallel_only = True   # (the sequential target keeps the user's loops)
        if parallel_only and runs_parallel is not True:
            # (the new order gains only in parallel: where no region runs so, the user's loops run)
            if runs_parallel is False and not copies:
                outcomes.append(_outcome(scop, ident, False, "original code kept: the new order "
                                            "gains only in parallel, and no region has the work for it"))
                continue
            if runs_parallel is not False:
                parallel_test = runs_parallel
                new, once = without_tests_implied_by(new, parallel_test)
                note += "; the user's loops where no region has the work to run in parallel"
                note += f" (the test of {once} region(s), made once in front of the SCoP)" if once else ""
        if choose is not None:
            new, kept_in_locals = keep_elements_in_locals(new, {**probe.container_map, **{b.name: b for b in buffers}})
            containers.extend(kept_in_locals)
            if kept_in_locals:
                note += f"; {len(kept_in_locals)} array element(s) kept in locals across their loops"
        if guard is not None:
            note += "; under a run-time check that pointer arrays do not overlap"
        if assumed is not None:   # (first: the overlap check's addresses are the model's)
            note += "; under a run-time check of what its model assumes of the parameters"
            guard = assumed if guard is None else Binary("&&", assumed, guard)
        if work_guard is not None:
            note += f"; run only where its work reaches {short_count(choice.min_work)} statement instances (run-time test)"
            guard = work_guard if guard is None else Binary("&&", work_guard, guard)
        if choice.data_test is not None:
            guard = choice.data_test if guard is None else Binary("&&", choice.data_test, guard)
        if expansion is not None and expansion.allocated is not None:
            guard = expansion.allocated if guard is None else Binary("&&", guard, expansion.allocated)
        if parallel_test is not None:
            guard = parallel_test if guard is None else Binary("&&", guard, parallel_test)
        if guard is not None:
            # (its bounds and extents of unsigned parameters computed as signed numbers, as the model does)
            guard = ex.substitute(guard, signed_parameters(scop))
            # the original code, under the same scope, for arrays that do overlap at run time
            # (or expanded arrays that could not be allocated, or too little work)
            original = with_id_suffix(Sequence(f"S.orig.{first.id}", scop.nodes), "_orig")
            on_work = work_guard is not None or parallel_test is not None or choice.data_test is not None
            new = dataclasses.replace(new, children=(IfElse(f"{VERSION_TEST_PREFIX}{first.id}", guard,
                                                            Sequence(f"S.opt.{first.id}", new.children),
                                                            original, likely=not on_work, balanced=on_work,
                                                            outline=on_work),))
        if expansion is not None:
            new = dataclasses.replace(new, children=expansion.allocations + new.children + expansion.releases)
        if scop.parent.id == sdfg.body.id:
            span = _merged_span(scop, source)
            if span is None:
                outcomes.append(_outcome(scop, ident, False,
                                            "the loops are not one plain stretch of the source"))
                continue
            new = dataclasses.replace(new, origin=span)
        for v in new_vars:
            containers.append(Scalar(v, scalar_type("int"), Storage.STACK))
        body = replace_run(body, scop.parent.id, first.id, len(scop.nodes), new)
        outcomes.append(_outcome(scop, ident, True, f"{len(scop.statements)} statements; {note}", choice.steps))
    return dataclasses.replace(sdfg, body=body, containers=tuple(containers)), outcomes


def _parallel_over_copies(choice: Choice, scop: Scop, probe: SDFG, new: Sequence, expanded) -> tuple[Sequence, list[str]]:
    """``new`` with its outer loops made parallel where copies of the scratch arrays of the
    expansion, of the scalars the SCoP declares, and partial results of the scalars it updates
    make them so (private_copies.py); also a note per loop so made."""
    containers = probe.container_map
    scalars = frozenset(n for n in scop.declared if isinstance(containers.get(n), Scalar))
    reduced = frozenset(n for n in scop.written_names if reducible(containers.get(n), choice.reassociate))
    return parallel_over_private_copies(probe, new, {a.name for a in expanded if isinstance(a, Array)},
                                        scalars, reduced, choice.reassociate, plain=choice.outer_parallel)


def _where_threads_run(choice: Choice, new: Sequence, runs_parallel: Expr | bool
                       ) -> tuple[Sequence, Expr | bool, str]:
    """``new`` with the test that its threads pay for their start (``team_test``) on each of its
    parallel regions, and when some region runs on threads: ``runs_parallel`` (the regions'
    work tests) and that test, and for a wavefront its own threshold. Also a note."""
    note = ""
    team = team_test(choice.work, choice.min_team_start_work, choice.min_team_wake_work)
    if team is not None and runs_parallel is not False:
        # (last in every test: it counts on a region to follow where it holds)
        new = with_team_test(new, team)
        runs_parallel = team if runs_parallel is True else Binary("&&", runs_parallel, team)
        note += "; its threads only where they pay for their start (run-time test)"
    if choice.wavefront and runs_parallel is not False and choice.min_wavefront_work > 0:
        if choice.work.below(choice.min_wavefront_work):
            return new, False, note + f"; its wavefront below {short_count(choice.min_wavefront_work)} instances"
        enough = choice.work.guard(choice.min_wavefront_work)
        if enough is not None:   # (in front of the team's test)
            runs_parallel = enough if runs_parallel is True else Binary("&&", enough, runs_parallel)
    return new, runs_parallel, note


def _sequential_where_no_region_runs(scop: Scop, sdfg: SDFG, new: Sequence, alternative: Choice,
                                     runs_parallel: Expr | bool) -> tuple[Sequence, list[str], list, str]:
    """The parallel target's code where some region runs in parallel, else the sequential
    target's (``alternative``): on one thread a wavefront only walks its tiles diagonally, and
    other parallel orders may walk memory worse. Returns the code, the loop variables and
    packing buffers the alternative adds, and a note."""
    seq, seq_vars = generate(scop, alternative.schedule, alternative.ast)
    probe = dataclasses.replace(sdfg, containers=sdfg.containers + tuple(
        Scalar(v, scalar_type("int"), Storage.STACK) for v in seq_vars if v not in sdfg.container_map))
    if any(isinstance(n, Map) and n.schedule is not Schedule.SEQUENTIAL for n in walk(seq)):
        seq, _ = demote_unproven_maps(probe, seq, probe_scops(probe, seq))
    seq, buffers, _ = pack_invariant_rights_once(seq, probe.container_map)
    seq = with_id_suffix(seq, "_wseq")
    if runs_parallel is False:
        return seq, seq_vars, buffers, "; the sequential target's code: no region has the work to run in parallel"
    code = IfElse(f"C.wave.{new.id}", runs_parallel, Sequence(f"S.wave.{new.id}", new.children),
                  Sequence(f"S.tiles.{new.id}", seq.children), balanced=True)
    return (dataclasses.replace(new, children=(code,)), seq_vars, buffers,
            "; the sequential target's code where no region runs in parallel")


def _work_guard(choice: Choice) -> Expr | None:
    """The run-time test that the SCoP does enough work for ``choice``'s code to pay for itself
    (None: no threshold, or its work is known when compiling and reaches it)."""
    return choice.work.guard(choice.min_work) if choice.min_work > 0 else None


def _allocated_only_with(expansion, work_guard: Expr | None):
    """``expansion`` whose arrays are allocated only where ``work_guard`` holds (no heap below
    the threshold: the user's loops then run, as where an allocation fails)."""
    return expansion if work_guard is None else allocated_only_with(expansion, work_guard)


def _pragma_before(scop: Scop) -> str | None:
    """A ``#pragma`` (other than scop/endscop) right before the SCoP: it binds to the first loop,
    so that loop must stay the user's."""
    children = scop.parent.children
    k = next(i for i, c in enumerate(children) if c is scop.nodes[0])
    if k == 0 or not isinstance(children[k - 1], Opaque):
        return None
    text = children[k - 1].text.strip()
    if re.match(r"#\s*pragma\s+(scop|endscop)\b", text) or not text.startswith("#"):
        return None
    return text


def _merged_span(scop: Scop, source: str) -> SourceSpan | None:
    spans = [n.origin for n in scop.nodes]
    if any(s is None or not s.spliceable for s in spans):
        return None
    for a, b in zip(spans, spans[1:]):
        between = source[a.end:b.start]
        if re.sub(r"/\*.*?\*/|//[^\n]*|\s", "", between, flags=re.S):
            return None
    first, last = spans[0], spans[-1]
    return SourceSpan(first.file, first.start, last.end, first.line, first.column)
