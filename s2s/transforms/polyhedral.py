"""The polyhedral optimizer: a Pluto-style schedule per SCoP, tiled, with parallel and SIMD loops,
checked for legality before it is used (else the SCoP keeps its original order)."""
from __future__ import annotations

import dataclasses
import functools
import itertools
from dataclasses import dataclass

import islpy as isl

from s2s.ir import Blocking, Scalar, expr as ex
from s2s.analysis import Dependences, compute_dependences
from s2s.analysis.dependences import conflicting_arrays, loop_info
from s2s.analysis.privatization import privatizable
from s2s.analysis.reductions import loop_reductions
from s2s.analysis.scop import Scop
from s2s.analysis.size_parameters import size_parameters
from s2s.schedule.ast_order import AST_CHECK_OPERATIONS, TOO_DEAR, ast_fault
from s2s.schedule.band_order import reordered_bands
from s2s.schedule.band_reuse import inner_member_last, streaming_bands
from s2s.schedule.legality import check, is_legal
from s2s.schedule.matmul import (
    KernelTarget, MatMulPattern, alone_at_top, batch_outermost, blocking_for, deepest_k_run, k_moves_with_rows,
    kernel_order_is_legal, mark_name, match_matmul, no_deeper_than,
)
from s2s.schedule.outer_jam import JAM_CHECK_OPERATIONS, JamRows, chain_moves_with, groups_apart, jammable_rows
from s2s.schedule.pluto import BUDGET_S, PlutoSchedule, PlutoScheduler, SchedulingFailed
from s2s.schedule.point_order import innermost_locality, reaches_read_once, reads_an_array
from s2s.schedule.tile_sizes import DEFAULT_L1_BYTES, DEFAULT_TILE_BUDGET
from s2s.schedule.tree import TreeOptions, TreeReport, build_tree, rows_map
from s2s.schedule.triangle_jam import triangle_jam
from s2s.transforms.accumulators import forward, forwardable
from s2s.transforms.decisions import Refusal, Step, parse_band_target, read_steps, steps_taken
from s2s.transforms.expansion import Expansion, ScratchArray, expand, scratch_arrays, then
from s2s.transforms.footprint_test import column_walk_test, footprint_test
from s2s.transforms.time_tiles import DEFAULT_FAST_CACHE, FastCache, byte_size, data_bytes, data_test
from s2s.transforms.temporaries import substitute_temporaries
from s2s.transforms.webs import split_webs
from s2s.transforms.work_guard import Work, WorkThresholds, scop_work, set_work, short_count
from s2s.time_limit import TimeLimitExceeded, isl_operation_limit, run_with_cpu_limit


USER_ORDER_OPERATIONS = 2_000_000   # isl's steps to find the outer loops that copies make parallel
# The budget of the fallback to isl's scheduler (isl counts its own elementary operations).
ISL_FALLBACK_OPERATIONS = 20_000_000
ISL_FALLBACK_MAX_STATEMENTS = 16  # isl's scheduler, like ours, can run for minutes on large SCoPs
# isl's AST generator separates the cases of several fused statements with different extents
# (3mm's initialization: a loop nest per combination of parameter orders) and of unrolled copies
# in partial tiles, which can take seconds and give tens of kilobytes of code. Past this budget
# (0.1-0.3 s for a few statements; it grows with their number, as their code does: adi's rows
# jammed over its 27 statements) the tiles go without unroll-and-jam, and past
# it again the user's code stays: isl's atomic loops would be smaller, but their bounds are
# disjunctions that our SCoP builder (the parallel cross-check re-reads the code) takes far
# longer over.
AST_OPERATIONS = 500_000
AST_OPERATIONS_PER_STATEMENT = 100_000
AST_LAGGED_JAM_FACTOR = 8   # copies lagged along a skewed loop: partial groups at both of its ends


@dataclass(frozen=True)
class OptimizeOptions:
    fusion: str = "smart"
    tile: bool = True
    tile_sizes: tuple[int, ...] | None = None   # None: from the cache model
    tile_budget_bytes: int = DEFAULT_TILE_BUDGET
    l1_bytes: int = DEFAULT_L1_BYTES
    fast_cache: FastCache = DEFAULT_FAST_CACHE   # what time tiles must leave to pay (time_tiles.py)
    parallel: bool = True
    wavefront: bool = True
    simd: bool = True
    budget_s: float = BUDGET_S
    matmul: KernelTarget | None = None   # run matrix-multiply statements as register-blocked
                                         # library nodes for this machine (None: as loops)
    thresholds: WorkThresholds = WorkThresholds.none()   # the work optimized code needs to pay for
                                                         # itself (optimize_options: this machine's)
    profitability: bool = True   # False: a legal schedule replaces the user's loops even where the
                                 # rules expect no gain (every band tiled): fuzzing and tuning
    triangle_rows: int = 8   # rows of a triangular solve jammed over the columns before them
                             # (triangle_jam.py): as many chains as multiply-adds in flight
    steps: tuple[Step, ...] = ()   # a recipe's decisions to replay (decisions.py); (): the rules'
    band_plans: tuple = ()         # (set from ``steps``) TreeOptions.band_plans
    sequential_plans: tuple = ()   # (set from a ``sequential`` step) those of the sequential code
    kernel_blockings: tuple = ()   # (set from a ``matmul-kernel`` step) (statement index, Blocking)
    expansion: tuple | None = None   # (set from an ``expand`` step) (array, loops); None: the rules'
    reassociate: bool = False   # floating-point arithmetic may be reordered (-ffast-math,
                                # -fassociative-math, --s2s-reassociate): parallel reductions
    accumulators_in_memory: bool = False   # (set for a rewriting whose accumulators were forwarded
                                           # to memory, accumulators.py: their registers are the
                                           # user's loops' and not its own original order's)


@dataclass(frozen=True)
class Choice:
    """What to generate for a SCoP: code from ``schedule`` (None: the user's code stays), on the
    expanded arrays of ``expansion`` when it is set (``schedule`` is then one of its SCoP)."""

    schedule: isl.Schedule | None
    note: str
    expansion: Expansion | None = None
    ast: isl.AstNode | None = None    # isl's AST of ``schedule``, when choosing it built one
    scheduler_failed: bool = False    # the Pluto-style scheduler gave up (out of budget, or no solution)
    parallel: bool = False            # the target runs loops in parallel (outer loops may then get
                                      # private copies of the expanded arrays)
    work: Work = Work()               # the SCoP's statement instances
    min_work: int = 0                 # what ``schedule``'s code needs to pay for itself (run-time
                                      # guard when ``work`` is known only then; a register-blocked
                                      # kernel may ask for more than the optimize threshold)
    min_region_work: int = 0          # what one of its parallel regions needs
    min_kernel_region_work: int = 0   # what a parallel register-blocked kernel needs
    min_team_start_work: int = 0      # what the SCoP needs to start the threads (work_guard.team_test)
    min_team_wake_work: int = 0       # and to wake them once they sleep
    min_wavefront_work: int = 0       # what it needs for its wavefront of tiles to run on threads
    data_test: ex.Expr | None = None  # a run-time condition for ``schedule``'s code besides the work:
                                      # its arrays exceed the last-level cache (time_tiles.py)
    parallel_only: bool = False       # the schedule gains only where a parallel region runs (on one
                                      # thread it walks memory no better than the user's loops)
    wavefront: bool = False           # its parallelism is a wavefront of tiles
    sequential: "Choice | None" = None   # what the sequential target chose, where it differs, for
                                         # where no region runs in parallel (a wavefront walks tiles
                                         # diagonally, for nothing on one thread; other parallel
                                         # orders may walk memory worse than the sequential one)
    steps: tuple[Step, ...] = ()      # the decisions taken, as a recipe's steps (decisions.py)
    sequential_steps: tuple[Step, ...] = ()   # those of the code for where no region runs in
                                              # parallel (``sequential``, or all of it)
    refused: tuple[Refusal, ...] = () # steps of a replayed recipe that did not apply, and why
    reassociate: bool = False         # floating-point sums may be reordered (parallel reductions)
    outer_parallel: bool = False      # ``schedule`` is the user's order, whose outer loops run in
                                      # parallel wherever proven, on copies of the scalars their
                                      # body declares and partial results of its reductions


def choose_schedule(scop: Scop, options: OptimizeOptions) -> Choice:
    """``_choose_schedule``, with a recipe's steps (``options.steps``) replayed where they apply,
    and the decisions taken recorded as steps (``Choice.steps``)."""
    options, refused, keep = _replayed(options)
    if keep is not None:
        return Choice(None, f"original code kept: the recipe says so ({keep.values.get('reason', '')})",
                      steps=(keep,), refused=refused)
    choice = _choose_schedule(scop, options)
    taken = {s.target for s in choice.steps if s.kind == "tile"}
    refused += choice.refused
    refused += tuple(Refusal(s, "no such band in this schedule") for s in options.steps
                     if parse_band_target(s.target) is not None and s.target not in taken)
    wanted = next((s for s in options.steps if s.kind == "schedule"), None)
    found = next((s for s in choice.steps if s.kind == "schedule"), None)
    if wanted is not None and found is not None and wanted.values != found.values:
        refused += (Refusal(wanted, "the scheduler found other rows: band steps may not mean the same loops"),)
    if choice.schedule is None:
        steps = (Step.of("keep-original", "scop", reason=choice.note),)
    else:
        steps = (Step.of("fuse", "scop", policy=options.fusion),
                 Step.of("parallelize", "scop", enabled=options.parallel))
        if not options.profitability:
            steps = (Step.of("profitability", "scop", enabled=False),) + steps
        if options.matmul is None:
            steps += (Step.of("matmul-kernel", "scop", enabled=False),)
        if (choice.expansion is not None and choice.expansion.along) or options.expansion is not None:
            steps += (Step.of("expand", "scop", arrays=dict(choice.expansion.along if choice.expansion else ())),)
        steps += choice.steps
        if choice.sequential_steps:
            steps += (Step.sequential(choice.sequential_steps),)
    if refused:
        note = choice.note + "; recipe: " + "; ".join(map(str, refused))
        choice = dataclasses.replace(choice, note=note)
    return dataclasses.replace(choice, steps=steps, refused=refused)


def _replayed(options: OptimizeOptions) -> tuple[OptimizeOptions, tuple[Refusal, ...], Step | None]:
    """``options`` with a recipe's steps applied (``decisions.read_steps``), the steps refused and
    why, and the ``keep-original`` step if there is one."""
    replay = read_steps(options.steps, threads=options.parallel, kernels=options.matmul is not None)
    options = dataclasses.replace(
        options, fusion=replay.fusion or options.fusion, parallel=options.parallel and replay.parallel is not False,
        matmul=None if replay.kernels is False else options.matmul,
        profitability=options.profitability if replay.profitability is None else replay.profitability,
        band_plans=replay.band_plans, sequential_plans=replay.sequential_plans,
        kernel_blockings=replay.kernel_blockings, expansion=replay.expansion)
    return options, replay.refused, replay.keep


def _choose_schedule(scop: Scop, options: OptimizeOptions) -> Choice:
    """The schedule to generate code from, and a note on how it was found. Scratch arrays are
    expanded where that makes a statement a matrix multiply the schedule runs as a kernel, or
    where the SCoP would otherwise stay as written (symm's ``temp2`` orders all its iterations).
    (Not after the scheduler gave up on the SCoP: on more statements it would fail again, and
    twice the budget would break the optimizer's time limit.)

    Scalar accumulators are first forwarded into the elements they are stored to, where they
    may be (accumulators.py: ludcmp's ``w``); the code is then the rewritten SCoP's.

    A SCoP known when compiling to do less work than ``options.thresholds.optimize`` stays as
    written; one whose work is known only at run time gets that test in front of its code."""
    work = scop_work(scop)
    threshold = options.thresholds.optimize
    if work.below(threshold):
        return Choice(None, f"original code kept: {work.describe()} statement instances, below the "
                            f"{short_count(threshold)} that optimized code needs to pay for itself", work=work)
    choice = _rules_choice(scop, options, work)
    if choice.schedule is None and options.parallel:
        return _user_order_in_parallel(scop, options, work, choice) or choice
    return choice


def _rules_choice(scop: Scop, options: OptimizeOptions, work: Work) -> Choice:
    """``_choose_schedule``'s choice for a SCoP of ``work`` statement instances, where enough."""
    split = split_webs(scop)
    if split is not None:
        scop = split.scop
    substituted = substitute_temporaries(scop)
    if substituted is not None:
        scop = substituted.scop
    forwardings = forwardable(scop)
    forwarded = forward(scop, forwardings) if forwardings else None
    rewritten = [e for e in (split, substituted, forwarded) if e is not None]
    if not rewritten:
        return _choose_for(scop, options, work)
    choice = _choose_for(rewritten[-1].scop, dataclasses.replace(
        options, accumulators_in_memory=forwarded is not None), work)
    if choice.schedule is None and choice.note == SUMS_IN_REGISTERS:
        # (the sums as the user keeps them, in registers: what the SCoP gains without forwarding)
        unforwarded = _choose_for(scop, options, work)
        if unforwarded.schedule is None:
            return choice
        choice, rewritten = unforwarded, rewritten[:-1]
        if not rewritten:
            return choice
    if choice.schedule is None:
        return choice
    expansion = functools.reduce(then, rewritten[1:] + [choice.expansion], rewritten[0])
    return dataclasses.replace(choice, note="; ".join([choice.note] + [e.note for e in reversed(rewritten)]),
                               expansion=expansion)


def _choose_for(scop: Scop, options: OptimizeOptions, work: Work) -> Choice:
    """``_choose_schedule``'s choice for ``scop`` as it is (accumulators forwarded or not),
    ``work`` its statement instances."""
    found = _Found()
    choice = _with_or_without_expansion(scop, options, found)
    threaded_steps = choice.steps
    alone_options = dataclasses.replace(options, parallel=False, band_plans=options.sequential_plans)
    alone = None
    if choice.schedule is None and options.parallel and not choice.scheduler_failed:
        # (where nothing is worth it with threads, what the sequential target runs: an OpenMP
        # build is never behind a sequential one; trisolv's rows jammed)
        alone = _with_or_without_expansion(scop, alone_options, found)
        if alone.schedule is not None:
            choice = dataclasses.replace(alone, steps=threaded_steps, sequential_steps=alone.steps)
    may_run_alone = choice.wavefront or (options.parallel and not _starts_threads(work, options.thresholds))
    if choice.schedule is not None and choice.expansion is None and may_run_alone and alone is None:
        sequential = _with_or_without_expansion(scop, alone_options, found)
        if (choice.wavefront and options.profitability and sequential.schedule is None
                and not sequential.scheduler_failed):
            # (trisolv: its tiles cut every row's dot product into short streams, and the wavefront's
            # few tiles per diagonal did not make up for it on two cores: 0.8x of gcc)
            return dataclasses.replace(sequential, note=f"{sequential.note}; only a wavefront of tiles would run "
                                                        f"in parallel, and its tiles gain nothing on one thread",
                                       parallel=options.parallel, work=work)
        # (an alternative is taken where no region runs in parallel, whatever its own tests say)
        if (sequential.expansion is None and sequential.data_test is None
                and not _same_order(sequential.schedule, choice.schedule)):
            choice = dataclasses.replace(choice, sequential=sequential, sequential_steps=sequential.steps)
    return _with_thresholds(choice, options, work)


def _with_thresholds(choice: Choice, options: OptimizeOptions, work: Work) -> Choice:
    """``choice`` with the work its code and its parallel regions need (``options.thresholds``)."""
    return dataclasses.replace(choice, parallel=options.parallel, work=work,
                               min_work=max(options.thresholds.optimize, choice.min_work),
                               min_region_work=options.thresholds.parallel,
                               min_kernel_region_work=options.thresholds.parallel_kernel,
                               min_team_start_work=options.thresholds.parallel_start,
                               min_team_wake_work=options.thresholds.parallel_wake,
                               min_wavefront_work=options.thresholds.parallel_wavefront,
                               reassociate=options.reassociate)


def _user_order_in_parallel(scop: Scop, options: OptimizeOptions, work: Work, kept: Choice) -> Choice | None:
    """Where the rules keep the user's code (``kept``) under threads: the user's order, its outer
    loops in parallel, where some outer loop that reads an array conflicts between iterations
    only through scalars its body declares, of which each iteration may have a copy of its own,
    and through scalars it only reduces into (integers, or any number where ``options``
    allows reassociation): the nests the schedule cannot run in parallel, as it orders all
    iterations by those scalars (private_copies.py makes the loops parallel, on the generated
    code)."""
    declared = {n for n in scop.declared if isinstance(scop.sdfg.container_map.get(n), Scalar)}
    written = scop.written_names
    found = []
    try:
        with isl_operation_limit(USER_ORDER_OPERATIONS):
            for loop in (lp for lp in scop.loops if lp.depth == 0):
                inside = scop.statements_in(loop)
                if not reads_an_array(inside):
                    continue
                conflicts = conflicting_arrays(scop, loop)
                reduced = loop_reductions(scop, loop, conflicts & written, options.reassociate)
                copied = conflicts - set(reduced)
                if conflicts and copied <= declared and all(privatizable(scop, loop, a) for a in copied):
                    found.append(loop.node.var + "".join(f" ({what} {', '.join(sorted(names))})" for what, names in (
                        ("a copy per thread of", copied), ("reducing", reduced)) if names))
    except isl.Error:
        return None
    if not found:
        return None
    note = (f"user's order, its outer loops in parallel ({'; '.join(found)}), where the rules kept it: "
            f"{kept.note.removeprefix('original code kept: ')}")
    return _with_thresholds(Choice(scop.schedule_tree, note, parallel_only=True, outer_parallel=True), options, work)


def _starts_threads(work: Work, thresholds: WorkThresholds) -> bool:
    """Whether the SCoP is known when compiling to do the work that starts its threads (their
    run-time test, work_guard.team_test, then holds on free cores)."""
    return work.count is not None and work.count >= thresholds.parallel_start


def _same_order(a: isl.Schedule | None, b: isl.Schedule | None) -> bool:
    """Whether two schedules run the statement instances in the same order (their marks and
    loop options aside)."""
    if a is None or b is None:
        return a is b
    try:
        return a.get_map().is_equal(b.get_map())
    except isl.Error:
        return False


@dataclass(frozen=True)
class _Scheduled:
    deps: Dependences
    scheduler: PlutoScheduler | None
    schedule: PlutoSchedule | None         # None: the scheduler gave up (``failure`` says why)
    failure: SchedulingFailed | None = None


class _Found:
    """What choosing a SCoP's code finds that does not depend on the target (its expansion, its
    dependences and Pluto-style schedule), found once: a wavefront's sequential alternative asks
    the same questions for another target."""

    def __init__(self) -> None:
        # (keyed by identity; each entry keeps its SCoP alive so that the identity stays unique)
        self._expansions: dict[int, tuple[Scop, tuple[Expansion | None, ...]]] = {}
        self._innermost: dict[int, tuple[Scop, list[ScratchArray]]] = {}
        self._expanded: dict[tuple, tuple[Scop, Expansion | None]] = {}
        self._asked: dict[tuple, tuple[Scop, tuple[Expansion | None, tuple[Refusal, ...]]]] = {}
        self._schedules: dict[int, tuple[Scop, _Scheduled]] = {}

    def expansion(self, scop: Scop) -> Expansion | None:
        """The SCoP's scratch arrays expanded along the innermost loop around each, but for the
        scalars it declares (a temporary that only orders the loops around it is private to
        their iterations already; expanded, it would cost memory traffic of its own)."""
        return self._expand(scop, [s for s in self._along_innermost(scop) if s.name not in scop.declared])

    def expansions(self, scop: Scop) -> tuple[Expansion | None, ...]:
        """The SCoP's scratch arrays expanded along 1, 2, ... of the loops around each, while a
        deeper expansion changes anything (None where one cannot be modelled): the ways of making
        matrix multiplies of reductions into them."""
        if id(scop) not in self._expansions:
            found: list[Expansion | None] = []
            settled: list = []   # (arrays with fewer loops around them than the depth)
            deeper = None        # (the arrays that may go one loop deeper)
            for depth in itertools.count(1):
                scratch = self._along_innermost(scop) if depth == 1 else scratch_arrays(scop, depth, deeper)
                if not any(len(s.loops) == depth for s in scratch):
                    break
                found.append(self._expand(scop, sorted(settled + scratch, key=lambda s: s.name)))
                settled += [s for s in scratch if len(s.loops) < depth]
                deeper = {s.name for s in scratch if len(s.loops) == depth}
            self._expansions[id(scop)] = scop, tuple(found)
        return self._expansions[id(scop)][1]

    def _along_innermost(self, scop: Scop) -> list[ScratchArray]:
        if id(scop) not in self._innermost:
            self._innermost[id(scop)] = scop, scratch_arrays(scop)
        return self._innermost[id(scop)][1]

    def _expand(self, scop: Scop, scratch: list[ScratchArray]) -> Expansion | None:
        """``expand``, once per SCoP and set of arrays (the plain and the kernels' paths ask for
        the same one where the SCoP declares no scratch scalar)."""
        key = (id(scop), tuple((s.name, len(s.loops)) for s in scratch))
        if key not in self._expanded:
            self._expanded[key] = scop, expand(scop, scratch) if scratch else None
        return self._expanded[key][1]

    def asked_expansion(self, scop: Scop, asked: tuple[tuple[str, int], ...]
                        ) -> tuple[Expansion | None, tuple[Refusal, ...]]:
        """The SCoP's arrays expanded along as many loops as ``asked`` (array, loops) says, and
        the arrays that cannot be, as refusals of an ``expand`` step."""
        if (id(scop), asked) not in self._asked:
            scratch, refused = [], []
            for name, depth in asked:
                if depth == 0:
                    continue
                match = [s for s in scratch_arrays(scop, depth) if s.name == name and len(s.loops) == depth]
                scratch += match
                if not match:
                    refused.append(Refusal(Step.of("expand", "scop", arrays={name: depth}),
                                           f"{name} cannot be expanded along {depth} loop(s) around it"))
            self._asked[id(scop), asked] = scop, (expand(scop, scratch) if scratch else None, tuple(refused))
        return self._asked[id(scop), asked][1]

    def schedule(self, scop: Scop, options: OptimizeOptions) -> _Scheduled:
        if id(scop) not in self._schedules:
            deps = compute_dependences(scop)
            # (constant sizes as parameters: the scheduler's rows, legal for the whole family,
            # are legal for this nest, and its integer programs stay small)
            sized = size_parameters(scop)
            try:   # (the scheduler may refuse the SCoP as soon as it is built)
                scheduler = PlutoScheduler(sized or scop, compute_dependences(sized) if sized else deps,
                                           options.fusion, options.budget_s)
                scheduled = _Scheduled(deps, scheduler, scheduler.schedule())
            except SchedulingFailed as why:
                scheduled = _Scheduled(deps, None, None, why)
            self._schedules[id(scop)] = scop, scheduled
        return self._schedules[id(scop)][1]


def _with_or_without_expansion(scop: Scop, options: OptimizeOptions, found: _Found) -> Choice:
    if options.expansion is not None:
        return _asked_expansion(scop, options, found)
    if options.matmul is not None:
        # (the expansion that makes the most matrix multiplies, along the fewest loops)
        counted = [(_kernel_count(e.scop), -depth, e) for depth, e in enumerate(found.expansions(scop)) if e]
        unexpanded = _kernel_count(scop) if counted else 0
        for kernels, _, expansion in sorted(counted, key=lambda c: c[:2], reverse=True):
            if kernels <= unexpanded:
                break
            choice, kernels = _choose(expansion.scop, options, found)
            if choice.schedule is not None and kernels:
                return dataclasses.replace(choice, note=f"{choice.note}; {expansion.note}", expansion=expansion)
    expansion = found.expansion(scop)
    plain = _choose(scop, options, found)[0]
    if plain.schedule is None and not plain.scheduler_failed and expansion is not None:
        choice = _choose(expansion.scop, options, found)[0]
        if choice.schedule is not None:
            return dataclasses.replace(choice, note=f"{choice.note}; {expansion.note}", expansion=expansion)
    return plain


def _asked_expansion(scop: Scop, options: OptimizeOptions, found: _Found) -> Choice:
    """The code chosen for ``scop`` with its scratch arrays expanded as a recipe's ``expand``
    step asks (an array that cannot be is refused, the others expanded all the same)."""
    expansion, refused = found.asked_expansion(scop, options.expansion)
    if expansion is not None:
        choice = _choose(expansion.scop, options, found)[0]
        if choice.schedule is not None:
            return dataclasses.replace(choice, note=f"{choice.note}; {expansion.note}", expansion=expansion,
                                       refused=choice.refused + refused)
    plain = _choose(scop, options, found)[0]
    return dataclasses.replace(plain, refused=plain.refused + refused)


def _kernel_count(scop: Scop) -> int:
    return sum(1 for s in scop.statements if match_matmul(scop, s) is not None)


def _choose(scop: Scop, options: OptimizeOptions, found: _Found,
            time_tiles_under_threads: bool = True) -> tuple[Choice, tuple]:
    """The code for ``scop`` and the kernels it runs (``time_tiles_under_threads``: False
    where a wavefront of time tiles was tried under threads and did not come about)."""
    scheduled = found.schedule(scop, options)
    deps, scheduler, sched, why = scheduled.deps, scheduled.scheduler, scheduled.schedule, scheduled.failure
    if sched is None:
        if len(scop.statements) > ISL_FALLBACK_MAX_STATEMENTS:
            return Choice(None, f"original order kept (Pluto-style scheduler: {why})", scheduler_failed=True), ()
        # (half the budget: isl's scheduler either succeeds quickly or not at all)
        schedule, ast, note = _isl_fallback(scop, deps, f"Pluto-style scheduler: {why}", options.budget_s / 2)
        return Choice(schedule, note, ast=ast, scheduler_failed=True), ()
    gain_rules = options.profitability
    if gain_rules and any(_kernel_below_threshold(scop, st, options) for st in scop.statements):
        # (tiled loops ran slower than gcc on the user's i-k-j at such sizes: syrk at SMALL 0.67x)
        return Choice(None, f"original code kept: a matrix multiply along rows with fewer than "
                            f"{short_count(options.thresholds.kernel)} multiply-adds"), ()
    sched, kernels = _matmul_kernels(scop, deps, sched, scheduler, options)
    if gain_rules and not kernels and not options.parallel:
        # (on one thread the rows of a triangular solve jammed beat tiles that cut each row's
        # chain into short pieces, and column sweeps)
        jammed = _triangle_jam(scop, deps, scheduler.original_order(), options)
        if jammed is not None:
            return jammed, ()
    # (a library node is a gain of its own: these rules are about new loop orders only)
    plain = ""
    streaming = streaming_bands(scop, sched) if options.tile and gain_rules else frozenset()
    sched = inner_member_last(scop, sched, streaming)
    if not kernels and _only_streaming_bands(sched, streaming):
        original = scheduler.original_order()
        gain = _locality_gain(scop, original, sched)
        if gain is not None and gain >= 0:
            # (the new order's fused loops of unrelated nests carry guards that stop vectorization)
            sched, streaming = original, frozenset()
            plain = "; original order kept: no band reuses a cache line across its loops"
    original_jams: JamRows = ()
    sched_jams: JamRows | None = None
    if gain_rules and not kernels:
        # (bicg: the schedule fuses its two products with one read down A's columns; the user's
        # order with four rows jammed reads A along rows once, for both)
        original = scheduler.original_order()
        gain = _locality_gain(scop, original, sched)
        # (or walks memory as well as a schedule that distributes its loops, and tiles none or,
        # with rows swept backwards reflected, tiles each sweep alone, its rows' chains one after
        # the other: adi's)
        as_well = gain == 0 and _loop_count(scop, original) < _loop_count(scop, sched)
        if as_well and any(len(b) > 1 for b in sched.bands()):
            if scheduler.reflects:
                sched_jams = _jams(scop, deps, sched, options)
            as_well = scheduler.reflects and not sched_jams
        original_jams = _jams(scop, deps, original, options) if gain is not None and (gain > 0 or as_well) else ()
    if original_jams:
        sched, streaming, jams = original, frozenset(), original_jams
        plain = "; original order kept, its rows jammed: it walks memory " + (
            "better" if gain else "as well, and the copies' chains run side by side")
    else:
        jams = sched_jams if sched_jams is not None else _jams(scop, deps, sched, options)
    # (jams on a schedule that walks memory worse than the user's order, which has none to
    # make, are no gain of their own: a back substitution turned to walk down columns four at
    # a time ran at 0.36x of the user's rows)
    worse = gain_rules and not kernels and not original_jams and (gain or 0) > 0
    reason = None if kernels or (jams and not worse) or not gain_rules else _not_worth_regenerating(
        scop, sched, scheduler, options, streaming)
    if reason:
        return Choice(None, reason), ()
    # (what the new order gains on one thread; if nothing, it pays only where a region runs)
    parallel_only = gain_rules and options.parallel and not kernels and _not_worth_regenerating(
        scop, sched, scheduler, dataclasses.replace(options, parallel=False), streaming) is not None
    time_tiles = False   # (skewed tiles chosen over the original order's vector loops)
    beyond_test = None   # (the run-time test that chooses them where sizes are not known)
    if sched.skewed and not kernels and gain_rules:
        # Skewed tiles (time-tiled stencils) vectorize only where their point loops can run one
        # statement at a time, and beat the original order's loops only beyond the cache (under
        # threads, as a wavefront of them).
        original = scheduler.original_order()
        if not any(r.parallel for r in original.rows) and any(
                info.parallel_if_privatized for info in loop_info(scop, deps, distances=False)):
            # (a filter summing into a float it declares per pixel: the skew only works around that float)
            return Choice(None, "original code kept: skewed tiles would not vectorize, and the original order's "
                                "loops are parallel but for temporaries they declare"), ()
        original_parallel = any(r.parallel for r in original.rows)
        data = data_bytes(scop, scop.domains_within_extents()) if original_parallel else None
        beyond = data is not None and data > options.fast_cache.bytes
        if original_parallel and not options.parallel and data is None:
            # (sizes known only at run time: the time tiles where the arrays turn out larger; not
            # on a rewriting's arrays, such as a scratch array expanded along time)
            beyond_test = data_test(scop, options.fast_cache.bytes) if scop.origin is None else None
            if beyond_test is None:
                return Choice(None, "original code kept: the size of its data is not known, and time "
                                    "tiles pay only beyond the cache"), ()
        elif original_parallel and not options.parallel and not beyond:
            return Choice(None, f"original code kept: its {byte_size(data)} of data stay in this core's "
                                f"{byte_size(options.fast_cache.bytes)} of {options.fast_cache.level}, where time tiles "
                                f"would not pay"), ()
        if original_parallel and options.parallel and not (beyond and time_tiles_under_threads):
            sched, plain = original, "; original order kept instead of skewed tiles, its parallel loops marked"
            parallel_only, streaming = True, frozenset()   # (the original order has no band)
            jams = _jams(scop, deps, sched, options)
        else:
            time_tiles = original_parallel
    # (the recipe's interchange and skew, on top of the rows the rules settled on: its steps
    # record those rows, and the reorder as steps of its own)
    settled = sched
    reordered = reordered_bands(sched, options.band_plans, scheduler.mark_parallel)
    if reordered.applied:
        sched = reordered.schedule
        jams = _jams(scop, deps, sched, options) if jams else jams
    refused = tuple(Refusal(s, reordered.refused[band[0]]) for s in options.steps if s.kind in ("permute", "skew")
                    and (band := parse_band_target(s.target)) is not None and band[0] in reordered.refused)
    tree_options = TreeOptions(tile=options.tile, tile_sizes=options.tile_sizes,
                               tile_budget_bytes=options.tile_budget_bytes, l1_bytes=options.l1_bytes,
                               parallel=options.parallel,
                               wavefront=options.wavefront, simd=options.simd, kernels=kernels,
                               streaming_bands=streaming, jams=jams, band_plans=options.band_plans,
                               chains_pay_anywhere=not options.accumulators_in_memory)
    report = TreeReport()
    tree = build_tree(scop, sched, tree_options, report, deps.validity)
    ast = _ast_within_budget(scop, tree, report)
    # (code generation too dear: with fewer chains jammed, without unroll-and-jam, then without
    # the wavefront of tiles, whose skewed tile loops under run-time bounds cost isl the most)
    for what in (FEWER_CHAINS, UNROLL_JAM, WAVEFRONT):
        if ast is not None:
            break
        if (simpler := _without(what, scop, deps, sched, tree_options, report)) is not None:
            plain += f"; {_simpler(what, tree_options)} (its code generation is too dear here)"
            tree_options, report, tree = simpler
            ast = _ast_within_budget(scop, tree, report)
    # (under threads, time tiles pay as a wavefront of them; else the original order's parallel loops)
    threads_instead = time_tiles and options.parallel
    if time_tiles and not (report.split_bands and (report.wavefronts or not options.parallel)):
        if threads_instead:
            return _choose(scop, options, found, time_tiles_under_threads=False)
        return Choice(None, "original code kept: skewed tiles would not vectorize; the original "
                            "order's loops do"), ()
    if report.outer_jams:
        parallel_only = False   # (jammed rows gain on one thread)
    if gain_rules and not kernels and not report.reshaped:
        # (bands the cache model left untiled: a new loop order is all the schedule brings)
        as_run = inner_member_last(scop, sched, frozenset(sched.rows[b[0]].band for b in sched.bands()))
        original = scheduler.original_order()
        loss = _untiled_loss(scop, as_run, original, options.parallel)
        if loss:
            return Choice(None, f"original code kept: the schedule tiles nothing and {loss}"), ()
        parallel_only = parallel_only or (options.parallel and _untiled_loss(
            scop, as_run, original, parallel=False) is not None)
    sizes_test = None   # (the run-time test that the tiles of bands of unknown extents pay)
    if (gain_rules and not kernels and beyond_test is None and report.unknown_footprints
            and report.reshaped == len(report.unknown_footprints) and not report.outer_jams
            and not report.wavefronts):
        # (every band tiled only for want of its sizes: untiled, would the new order gain? Where
        # accumulators were forwarded to memory, the user's loops keep them in registers, which
        # this rewriting's original order does not: its tiles pay only where the user's loops
        # also walk down more rows than L1 holds, docs/optimizer.md)
        as_run = inner_member_last(scop, sched, frozenset(sched.rows[b[0]].band for b in sched.bands()))
        walk_test = column_walk_test(scop.origin or scop, options.l1_bytes) if options.accumulators_in_memory else None
        if options.accumulators_in_memory and walk_test is None and not options.steps:
            return Choice(None, SUMS_IN_REGISTERS), ()
        if options.accumulators_in_memory or _untiled_loss(scop, as_run, scheduler.original_order(),
                                                           options.parallel):
            sizes_test = footprint_test(scop, report.unknown_footprints)
            if sizes_test is not None and walk_test is not None:
                sizes_test = ex.Binary("&&", sizes_test, walk_test)
            if sizes_test is not None:
                plain += "; tiles only where the data of their loops leave the cache (run-time test)"
            elif walk_test is not None and not options.steps:
                return Choice(None, SUMS_IN_REGISTERS), ()
    if sizes_test is None:   # (a recipe records the test only where it is made)
        report.bands = [dataclasses.replace(b, beyond_cache=False) for b in report.bands]
    if ast is None:
        if threads_instead:
            return _choose(scop, options, found, time_tiles_under_threads=False)
        return Choice(None, "original code kept: code generation for the new schedule is too dear here"), ()
    ok, how = check(deps, rows_map(scop, sched.rows), tree, sched.bands())
    if not ok:
        if threads_instead:
            return _choose(scop, options, found, time_tiles_under_threads=False)
        return Choice(None, f"original order kept: {how}"), ()
    fault = ast_fault(scop, deps, ast, _check_operations(report))
    # (too dear to check: without the wavefront of tiles, then with fewer chains jammed, then
    # without unroll-and-jam)
    for what in (WAVEFRONT, FEWER_CHAINS, UNROLL_JAM):
        if fault != TOO_DEAR:
            break
        if (simpler := _without(what, scop, deps, sched, tree_options, report)) is not None:
            text = _simpler(what, tree_options)
            tree_options, report, tree = simpler
            ast = _ast_within_budget(scop, tree, report)
            if ast is None:
                break
            plain += f"; {text} (its code is too dear to check here)"
            fault = ast_fault(scop, deps, ast, _check_operations(report))
    if threads_instead and (fault or not report.wavefronts):
        return _choose(scop, options, found, time_tiles_under_threads=False)
    if fault:
        return Choice(None, f"original order kept: {fault}"), ()
    bands = ", ".join(str(len(b)) for b in sched.bands()) or "none"
    parallel = sum(1 for r in sched.rows if r.parallel)
    tiles = f", {'; '.join(dict.fromkeys(report.notes))}" if report.notes else ""
    if kernels:
        plain += f"; {len(kernels)} matrix-multiply statement(s) as register-blocked kernels"
    if beyond_test is not None:
        plain += f"; time tiles only where its data exceed {byte_size(options.fast_cache.bytes)} (run-time test)"
    return Choice(tree, f"Pluto schedule: bands of {bands}, {parallel} parallel hyperplanes{tiles}, {how}, "
                        f"{sched.seconds:.2f} s{plain}", ast=ast,
                  min_work=_kernel_min_work(scop, kernels, options), parallel_only=parallel_only,
                  wavefront=report.wavefronts > 0, data_test=beyond_test if sizes_test is None else sizes_test,
                  steps=steps_taken(scop, settled, report, kernels, jams if report.outer_jams else (),
                                    report.outer_jam_factor, reordered.applied), refused=refused), kernels


SUMS_IN_REGISTERS = ("original code kept: its tiles are for sizes known only at run time, and they would sum "
                     "its accumulators in memory instead of registers")
UNROLL_JAM = "unroll-and-jam"
WAVEFRONT = "wavefront of tiles"
FEWER_CHAINS = "fewer chains"   # (unroll-and-jam into chains by the SIMD loops' factor)


def _simpler(what: str, tree_options: TreeOptions) -> str:
    if what == FEWER_CHAINS:
        return f"{UNROLL_JAM} {tree_options.unroll_jam} into chains, not {tree_options.chain_jam}"
    return f"no {what}"


def _without(what: str, scop: Scop, deps: Dependences, sched: PlutoSchedule, tree_options: TreeOptions,
             report: TreeReport) -> tuple[TreeOptions, TreeReport, isl.Schedule] | None:
    """The tree of ``sched`` built again without ``what`` (``UNROLL_JAM`` or ``WAVEFRONT``; with
    ``FEWER_CHAINS``, as many copies jammed into chains as into SIMD loops), with its options and
    report; None where the tree ``report`` describes has none."""
    if what == FEWER_CHAINS:
        present = (tree_options.chain_jam > tree_options.unroll_jam > 1
                   and any(f"{UNROLL_JAM} {tree_options.chain_jam}" in t for t in report.notes))
        change = {"chain_jam": tree_options.unroll_jam}
    elif what == UNROLL_JAM:
        present, change = any(UNROLL_JAM in t for t in report.notes), {"unroll_jam": 0}
    else:
        present, change = report.wavefronts > 0, {"wavefront": False}
    if not present:
        return None
    tree_options = dataclasses.replace(tree_options, **change)
    report = TreeReport()
    return tree_options, report, build_tree(scop, sched, tree_options, report, deps.validity)


def _jams(scop: Scop, deps: Dependences, sched: PlutoSchedule, options: OptimizeOptions) -> JamRows:
    """The rows of ``sched`` to unroll and jam over the loops inside them (outer_jam.py)."""
    return jammable_rows(scop, deps, sched, rows_map(scop, sched.rows)) if options.tile else ()


def _matmul_kernels(scop: Scop, deps, sched: PlutoSchedule, scheduler: PlutoScheduler,
                    options: OptimizeOptions) -> tuple[PlutoSchedule, tuple[tuple[str, str], ...]]:
    """Matrix-multiply statements to run as MatMul library nodes (with their tree marks), and the
    schedule that sets them apart: ``sched``, or the unfused one, or the original order distributed
    inside a kernel's batch loops, whichever sets apart the most of them."""
    if options.matmul is None:
        return sched, ()
    found = []
    for stmt in scop.statements:
        pattern = match_matmul(scop, stmt)
        if pattern is not None and _kernel_pays(scop, stmt, pattern, options) and kernel_order_is_legal(
                deps, stmt, pattern):
            found.append(pattern)
    if not found:
        return sched, ()

    def apart(candidate: PlutoSchedule) -> list[MatMulPattern]:
        return [p for p in found if alone_at_top(candidate.rows, p, scop.statements)]

    chosen = apart(sched)
    if len(chosen) < len(found) and options.fusion != "no":
        try:
            unfused = PlutoScheduler(scop, deps, "no", options.budget_s).schedule()
        except SchedulingFailed:
            unfused = None
        if unfused is not None and len(apart(unfused)) > len(chosen) and _kernels_do_the_bulk(scop, apart(unfused)):
            sched, chosen = unfused, apart(unfused)
    for p in found:
        if p.batch and p not in chosen:
            batched = batch_outermost(scheduler.original_order(), scop.statements, p)
            if len(apart(batched)) > len(chosen):
                sched, chosen = batched, apart(batched)
    target, index = options.matmul, {st.name: k for k, st in enumerate(scop.statements)}
    statements, blockings = {st.name: st for st in scop.statements}, dict(options.kernel_blockings)

    def blocking(p: MatMulPattern) -> Blocking:
        stmt = statements[p.statement]
        chosen = blockings.get(index[p.statement]) or blocking_for(
            target, 8 if p.dtype == "double" else 4, len(p.lefts), k_moves_with_rows(stmt, p))
        return no_deeper_than(chosen, deepest_k_run(scop, stmt, p))
    return sched, tuple((p.statement, mark_name(p, blocking(p), options.parallel)) for p in chosen)


def _kernels_do_the_bulk(scop: Scop, kernels: list[MatMulPattern]) -> bool:
    """Whether most of the statements in the deepest loops are ``kernels``: only then is a
    schedule chosen for setting kernels apart rather than for all the work (in symm the other
    half of the multiply-adds, a reduction into ``temp2``, lost its tiles and its parallel loop
    to the unfused schedule)."""
    names = {p.statement for p in kernels}
    deepest = max(len(s.iterators) for s in scop.statements)
    in_kernels = sum(1 for s in scop.statements if len(s.iterators) == deepest and s.name in names)
    return 2 * in_kernels > sum(1 for s in scop.statements if len(s.iterators) == deepest)


def _kernel_pays(scop: Scop, stmt, pattern: MatMulPattern, options: OptimizeOptions) -> bool:
    """Whether a register-blocked kernel pays for its panels, judged when compiling (at run time
    where the sizes are parameters: ``_kernel_min_work``)."""
    return not set_work([stmt.domain], scop.context).below(_kernel_threshold(stmt, pattern, options))


def _kernel_threshold(stmt, pattern: MatMulPattern, options: OptimizeOptions) -> int:
    """The multiply-adds from which a kernel pays: ``kernel`` where the user's innermost loop
    already runs along the rows of the result (gemm's i-k-j, syrk's and syr2k's, which gcc
    vectorizes well even where a factor is read down a column) or where k moves with the row
    (trmm's triangle: each block's cells at the diagonal run one at a time), else ``kernel_min``
    (2mm's i-j-k, doitgen's: a reduction innermost, only the panels' fixed cost to pay)."""
    if stmt.iterators[-1] == pattern.j or k_moves_with_rows(stmt, pattern):
        return options.thresholds.kernel
    return options.thresholds.kernel_min


def _runs_along_rows(stmt, pattern: MatMulPattern) -> bool:
    """Whether the user's innermost loop is j and every right factor is read along a row in it
    (j in its last subscript only)."""
    if stmt.iterators[-1] != pattern.j:
        return False
    for right in pattern.rights:
        for a in ex.walk(right):
            if isinstance(a, ex.Access) and a.indices and (
                    pattern.j not in ex.names(a.indices[-1])
                    or any(pattern.j in ex.names(s) for s in a.indices[:-1])):
                return False
    return True


def _kernel_min_work(scop: Scop, kernels, options: OptimizeOptions) -> int:
    """The work the SCoP must do at run time for its kernels to pay: the largest threshold of
    those whose size is known only then (at compile time ``_kernel_pays`` has decided), else 0."""
    by_name = {s.name: s for s in scop.statements}
    needed = 0
    for name, _ in kernels:
        stmt = by_name[name]
        pattern = match_matmul(scop, stmt)
        if pattern is not None and set_work([stmt.domain], scop.context).count is None:
            needed = max(needed, _kernel_threshold(stmt, pattern, options))
    return needed


def _kernel_below_threshold(scop: Scop, stmt, options: OptimizeOptions) -> bool:
    """A matrix multiply along rows too small for a kernel: the user's loops beat tiled ones
    there (other orders below ``kernel_min`` are scheduled as loops)."""
    if options.matmul is None:
        return False
    pattern = match_matmul(scop, stmt)
    return pattern is not None and _runs_along_rows(stmt, pattern) and not _kernel_pays(scop, stmt, pattern, options)


def _triangle_jam(scop: Scop, deps: Dependences, original: PlutoSchedule, options: OptimizeOptions) -> Choice | None:
    """The user's order with the rows of its outer loop jammed over the columns before their
    group (triangle_jam.py), where its inner loop carries a chain that moves with the row and
    the tree and its code are proven to keep every dependence; None elsewhere."""
    outer = next((r for r in original.rows if r.kind == "hyperplane"), None)
    if not options.tile or outer is None or not any(
            len(st.iterators) == 2 and chain_moves_with(st, original.rows, outer) for st in scop.statements):
        return None
    factor = options.triangle_rows
    tree = triangle_jam(scop, factor)
    if tree is None:
        return None
    try:
        with isl_operation_limit(JAM_CHECK_OPERATIONS):
            legal = is_legal(deps, tree)
    except isl.Error:
        legal = False
    ast = _ast_within_budget(scop, tree) if legal else None
    if ast is None or ast_fault(scop, deps, ast):
        return None
    return Choice(tree, f"original order kept, {factor} rows jammed over the columns before them "
                        f"(the rest of each row's triangle after), checked exactly", ast=ast,
                  steps=(Step.of("triangle-jam", "scop", copies=factor),))


def _loop_count(scop: Scop, sched: PlutoSchedule) -> int:
    """How many loops the code of ``sched`` has: per hyperplane row, one per group of the
    statements it moves that the scalar rows before it set apart."""
    return sum(len(groups_apart(sched.rows, k, [st for st in scop.statements if any(row.coefficients[st.name][:-1])]))
               for k, row in enumerate(sched.rows) if row.kind == "hyperplane")


def _only_streaming_bands(sched: PlutoSchedule, streaming: frozenset[int]) -> bool:
    """Whether every band of two or more members is one that tiles cannot help (band_reuse.py)."""
    tileable = [sched.rows[b[0]].band for b in sched.bands() if len(b) > 1]
    return bool(tileable) and all(b in streaming for b in tileable)


def _locality_gain(scop: Scop, first: PlutoSchedule, second: PlutoSchedule) -> int | None:
    """How much better the innermost loops of ``first`` walk memory than those of ``second``
    (``innermost_locality`` scores; None where either is unknown)."""
    a = innermost_locality(list(scop.statements), first.rows)
    b = innermost_locality(list(scop.statements), second.rows)
    return None if a is None or b is None else a - b


def _not_worth_regenerating(scop: Scop, sched: PlutoSchedule, scheduler: PlutoScheduler,
                            options: OptimizeOptions, streaming: frozenset[int]) -> str | None:
    if not sched.bands() and not (options.parallel and any(r.parallel for r in sched.rows)):
        # the original order, split into pieces, with nothing to tile or run in parallel: the
        # regenerated code would lose what the compiler did well with the user's own
        return "original code kept: no permutable band and no parallel loop"
    if all(len(b) < 2 or sched.rows[b[0]].band in streaming for b in sched.bands()):
        loss = _untiled_loss(scop, sched, scheduler.original_order(), options.parallel)
        if loss:
            return f"original code kept: the schedule tiles nothing and {loss}"
    return None


def _untiled_loss(scop: Scop, sched: PlutoSchedule, original: PlutoSchedule, parallel: bool) -> str | None:
    """Why a schedule without tiles is not worth regenerating the SCoP (None: it is). Its new loop
    order is all it changes: a column walk (trisolv's L[i][j] with i innermost) costs more than
    the parallelism it may bring, and an order that walks memory no better gains nothing unless
    a loop worth a parallel region runs in parallel (``_parallel_loop_pays``) or an innermost loop
    is split to keep an element it reads in a register (``reaches_read_once``)."""
    new = innermost_locality(list(scop.statements), sched.rows)
    old = innermost_locality(list(scop.statements), original.rows)
    runs_parallel = parallel and _parallel_loop_pays(scop, sched)
    if new is None or old is None:
        return None if runs_parallel else ("its loop order is not comparable with the original's, with no "
                                           "parallel loop worth a region")
    if new < old:
        return "its innermost loop walks memory worse"
    if new == old and not runs_parallel and not reaches_read_once(list(scop.statements)):
        return "walks memory no better, with no parallel loop worth a region"
    return None


def _parallel_loop_pays(scop: Scop, sched: PlutoSchedule) -> bool:
    """Whether some parallel loop of the schedule is worth regenerating the SCoP for: one with a
    loop inside, or one outside every sequential loop of a statement that reads an array. A
    parallel loop with no loop inside, in a sequential one, starts a region in every iteration
    of that one, for a single statement instance per iteration, on data the sequential code
    around it has just written on another core (deriche's column pass under OpenMP ran at 0.71x
    of gcc on an AMD Zen 5); one that only stores constants (an expanded scalar's reset) has no
    work to share."""
    for st in scop.statements:
        loops = sched.loops_of(st.name)
        for depth, row in enumerate(loops):
            inner_loop = depth < len(loops) - 1
            outermost = all(r.parallel for r in loops[:depth])
            if row.parallel and (inner_loop or (outermost and reads_an_array([st]))):
                return True
    return False


def _only_lagged_jams(report: TreeReport | None) -> bool:
    """Whether the tree ``report`` describes reshapes bands only by lagged jams (whose partial
    groups need larger budgets; with tiles or wavefronts beside them, isl's step counter, which
    misses some of its work in code generation, let a larger budget run for minutes)."""
    return report is not None and report.lagged_jams > 0 and (
        report.lagged_jams == report.reshaped and not report.wavefronts)


def _check_operations(report: TreeReport) -> int:
    """isl's steps for reading back and checking the AST of the tree ``report`` describes."""
    return AST_CHECK_OPERATIONS * (AST_LAGGED_JAM_FACTOR if _only_lagged_jams(report) else 1)


def _ast_within_budget(scop: Scop, tree: isl.Schedule, report: TreeReport | None = None) -> isl.AstNode | None:
    """isl's AST of ``tree`` (code generation uses it), or None past the budget (larger where
    ``report`` says the tree has lagged copies)."""
    budget = max(AST_OPERATIONS, AST_OPERATIONS_PER_STATEMENT * len(scop.statements))
    if _only_lagged_jams(report):
        budget *= AST_LAGGED_JAM_FACTOR
    try:
        with isl_operation_limit(budget):
            return isl.AstBuild.from_context(scop.context).node_from_schedule(tree)
    except isl.Error:
        return None


def _isl_fallback(scop: Scop, deps, reason: str,
                  budget_s: float) -> tuple[isl.Schedule | None, isl.AstNode | None, str]:
    validity = deps.flow.union(deps.anti).union(deps.output)

    def compute() -> str:
        # (in a child process killed at the budget: isl's operation counter misses parts of its
        # scheduler, which ran for many minutes on heat-3d once the Pluto budget had run out)
        with isl_operation_limit(ISL_FALLBACK_OPERATIONS):
            sc = isl.ScheduleConstraints.on_domain(scop.domain).set_validity(validity).set_proximity(validity)
            return sc.compute_schedule().to_str()

    try:
        text = run_with_cpu_limit(compute, budget_s)
        schedule = isl.Schedule.read_from_str(scop.domain.get_ctx(), text)
        with isl_operation_limit(ISL_FALLBACK_OPERATIONS):
            legal = is_legal(deps, schedule)
    except TimeLimitExceeded:
        return None, None, f"original order kept ({reason}; isl scheduler out of its {budget_s:g} s too)"
    except isl.Error as exc:
        return None, None, f"original order kept ({reason}; isl scheduler gave up: {str(exc).splitlines()[0][:60]})"
    if not legal:
        return None, None, f"original order kept ({reason}; isl's schedule failed the legality check)"
    ast = _ast_within_budget(scop, schedule)
    fault = "its code generation is too dear here" if ast is None else ast_fault(scop, deps, ast)
    if fault:
        return None, None, f"original order kept ({reason}; isl's schedule: {fault})"
    return schedule, ast, f"isl scheduler ({reason})"
