"""Optimized code must pay for itself at the sizes it meets: how much work a SCoP (or one parallel
region of it) does, and the thresholds below which the user's loops run instead.

Work is counted in statement instances. Where the parameters are known when compiling (PolyBench's
sizes are #defines), the count is a number and the choice is made then, with no branch; otherwise
it is a C expression in the parameters (per statement, the product of the number of values each
loop index takes between its bounds: an upper bound for triangles) that the generated code tests
before the optimized version runs.

The thresholds are settings (``WorkThresholds``): the defaults below, changed by the environment
variable ``S2S_WORK_THRESHOLDS`` (``optimize=1e4,parallel=5e4,kernel=1e6,kernel_min=5e4,
parallel_kernel=1e6,parallel_start=5e7,parallel_wake=1e6,parallel_wavefront=5e8``) for a user or
a tuner.

Whether a region's threads are worth starting also depends on what they are doing: a SCoP's
regions run on them only where ``TEAM_PAYS`` says so at run time, from the SCoP's work and the
``parallel_start`` and ``parallel_wake`` thresholds (``team_test``).
"""
from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, fields, replace

import islpy as isl

from s2s.ir import TEAM_PAYS, TESTED_BEFORE, Binary, Call, Cast, Const, Expr, Ternary
from s2s.time_limit import isl_operation_limit, isl_operation_limit_lifted

# Above this many points in its bounding box a set is not counted point by point (isl's count
# takes about 30 ns a point): its box, which bounds it, is used.
EXACT_COUNT_LIMIT = 4_000_000
COUNT_OPERATIONS = 300_000  # isl's elementary steps for one count


@dataclass(frozen=True)
class WorkThresholds:
    """Statement instances the optimized code of a SCoP must execute to run at all (tiles, kernels
    with packed panels, expanded arrays on the heap each cost something before they gain), and
    those a parallel region must carry, all threads together (starting and joining the threads,
    and on a busy machine waiting for one that was descheduled)."""

    optimize: int = 10_000
    parallel: int = 50_000
    kernel: int = 1_000_000   # multiply-adds of a matrix-multiply statement whose user's loops
                              # already run along rows, for a register-blocked kernel with packed
                              # panels (below: loops, tiled or as written)
    kernel_min: int = 50_000  # multiply-adds of any matrix-multiply statement for a kernel (its
                              # panels' fixed cost)
    parallel_kernel: int = 1_000_000   # multiply-adds of a register-blocked kernel for it to run
                                       # on all cores (each thread packs panels of its own)
    parallel_start: int = 50_000_000   # statement instances of a SCoP execution that pay for the
                                       # first start of the threads (libgomp creating them: up
                                       # to milliseconds on a VM)
    parallel_wake: int = 1_000_000     # those that pay for waking them once they sleep
    parallel_wavefront: int = 500_000_000   # those of a SCoP for a wavefront of tiles to run on
                                            # threads (a region per diagonal, few tiles in the
                                            # first and last ones; else the sequential order)

    @staticmethod
    def none() -> "WorkThresholds":
        """No threshold: optimized code whatever the sizes."""
        return WorkThresholds(optimize=0, parallel=0, kernel=0, kernel_min=0, parallel_kernel=0,
                              parallel_start=0, parallel_wake=0, parallel_wavefront=0)

    @staticmethod
    def parse(text: str, base: "WorkThresholds | None" = None) -> "WorkThresholds":
        """``name=value,...`` over ``base`` (the defaults): unknown names and bad values raise ValueError."""
        out = base or WorkThresholds()
        known = {f.name for f in fields(WorkThresholds)}
        for item in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = item.partition("=")
            name = name.strip()
            if name not in known:
                raise ValueError(f"unknown work threshold {name!r} (expected {', '.join(sorted(known))})")
            out = replace(out, **{name: int(float(value))})
        return out


def work_thresholds() -> WorkThresholds:
    """The thresholds in force: ``$S2S_WORK_THRESHOLDS`` over the defaults (ignored if malformed)."""
    text = os.environ.get("S2S_WORK_THRESHOLDS", "")
    try:
        return WorkThresholds.parse(text)
    except ValueError:
        return WorkThresholds()


@dataclass(frozen=True)
class Work:
    """The statement instances of a SCoP: ``count`` when known at compile time (``exact`` when
    counted point by point, else an upper bound), else ``expr``, a C expression (double) of the
    parameters that bounds it; both None when not even a bound is known."""

    count: int | None = None
    expr: Expr | None = None
    exact: bool = False

    def below(self, threshold: int) -> bool:
        """Known at compile time to be below ``threshold``."""
        return self.count is not None and self.count < threshold

    def describe(self) -> str:
        if self.count is None:
            return "a run-time number of"
        return f"{self.count}" if self.exact else f"at most {self.count}"

    def guard(self, threshold: int) -> Expr | None:
        """The run-time condition that the work reaches ``threshold`` (None: known at compile time,
        or unknown)."""
        if self.count is not None or self.expr is None:
            return None
        return Binary(">=", self.expr, Const(f"{float(threshold):.1f}"))


def count_points(s: isl.Set) -> tuple[int, bool] | None:
    """The number of points of a parameter-free set (exact, or its bounding box's), or None when
    it is unbounded."""
    box = 1
    for d in range(s.dim(isl.dim_type.set)):
        lo, hi = s.dim_min_val(d), s.dim_max_val(d)
        if not (lo.is_int() and hi.is_int()):
            return (0, True) if s.is_empty() else None
        box *= max(0, hi.to_python() - lo.to_python() + 1)
    if box == 0:
        return 0, True
    if box <= EXACT_COUNT_LIMIT:
        with isl_operation_limit_lifted():   # (the box bounds the count's work)
            return s.count_val().to_python(), True
    return box, False


def set_work(sets: list[isl.Set], context: isl.Set) -> Work:
    """The points of ``sets`` (with the same parameters), together; unknown where isl would
    take long to tell (bounds of generated code's tiled domains can take minutes)."""
    try:
        with isl_operation_limit(COUNT_OPERATIONS):
            return _set_work(sets, context)
    except isl.Error:
        return Work()


def _set_work(sets: list[isl.Set], context: isl.Set) -> Work:
    if all(s.dim(isl.dim_type.param) == 0 or _params_unused(s) for s in sets):
        total, exact = 0, True
        for s in sets:
            c = count_points(s.project_out(isl.dim_type.param, 0, s.dim(isl.dim_type.param)))
            if c is None:
                return Work()
            total += c[0]
            exact = exact and c[1]
        return Work(count=total, exact=exact)
    build = isl.AstBuild.from_context(context)
    expr: Expr | None = None
    for s in sets:
        term: Expr | None = None
        # (the bounds of the pieces' hull: one expression where the pieces' own ones, of a tiled
        # and unrolled domain, run to pages of C and to minutes of isl)
        hull = s if s.n_basic_set() <= 1 else isl.Set.from_basic_set(s.simple_hull())
        for d in range(s.dim(isl.dim_type.set)):
            try:
                lo, hi = hull.dim_min(d), hull.dim_max(d)
                stride = s.get_stride(d)   # (a tile loop's index takes one value in `stride`)
                extent = hi.sub(lo).scale_down_val(stride).floor().add_constant_val(isl.Val.one(s.get_ctx()))
                factor = _ir(build.expr_from_pw_aff(extent.coalesce()))
            except isl.Error:
                return Work()
            factor = Cast("double", Ternary(Binary(">", factor, Const("0")), factor, Const("0")))
            term = factor if term is None else Binary("*", term, factor)
        if term is None:
            term = Const("1.0")
        expr = term if expr is None else Binary("+", expr, term)
    return Work(expr=expr)


def _params_unused(s: isl.Set) -> bool:
    """Whether no constraint of ``s`` involves its parameters."""
    n = s.dim(isl.dim_type.param)
    return all(not s.involves_dims(isl.dim_type.param, k, 1) for k in range(n))


def _ir(e: isl.AstExpr) -> Expr:
    from s2s.schedule.codegen import ast_expr_to_ir
    return ast_expr_to_ir(e, {})


def scop_work(scop) -> Work:
    """The statement instances of one execution of ``scop``."""
    try:
        return set_work([st.domain for st in scop.statements], scop.context)
    except isl.Error:
        return Work()


def short_count(n: int) -> str:
    """``n`` for a report line: ``3.4e5``."""
    if n <= 0:
        return "0"
    e = int(math.floor(math.log10(n)))
    return f"{n / 10 ** e:.1f}e{e}"


# --- expanded arrays: no heap below the threshold ---------------------------------------------------

def allocated_only_with(expansion, cond: Expr):
    """``expansion`` (``s2s.transforms.expansion.Expansion``) whose arrays are allocated only where
    ``cond`` holds, null otherwise (which its ``allocated`` test already sends to the user's loops)."""
    from s2s.ir import Declare, Tasklet

    def conditional(d: Declare) -> Declare:
        if d.init is None:
            return d
        nodes = []
        for n in d.init.graph.nodes:
            if isinstance(n, Tasklet) and isinstance(n.expr, Cast):
                n = replace(n, expr=Ternary(cond, n.expr, Cast(n.expr.type, Const("0"))))
            nodes.append(n)
        return replace(d, init=replace(d.init, graph=replace(d.init.graph, nodes=tuple(nodes))))

    return replace(expansion, allocations=tuple(conditional(d) for d in expansion.allocations))


# --- parallel regions: each must carry enough work ---------------------------------------------------

@dataclass(frozen=True)
class SmallRegions:
    """What ``sequential_small_regions`` made of generated code."""

    seq: object                  # the code (an IR Sequence)
    notes: list[str]             # what was changed, for the report
    runs_parallel: Expr | bool   # whether some region runs on all threads: always, never, or where
                                 # this run-time test holds


def sequential_small_regions(sdfg, seq, threshold: int, kernel_threshold: int, scops=None,
                             scop_work: Work | None = None) -> SmallRegions:
    """``seq`` (generated code, in ``sdfg``'s containers) with every parallel loop whose region
    carries less than ``threshold`` statement instances, all threads together, run as a plain
    loop, and every matrix-multiply node with fewer multiply-adds than ``kernel_threshold`` run
    on the calling thread; where that work is known only at run time, the parallel loop or the
    node's block is versioned on it. Also returns notes on what was so changed, for the report,
    and whether any region still runs in parallel.
    ``scops``: ``probe_scops(sdfg, seq)`` where the caller has them (reading generated code can
    take seconds). ``scop_work``, the work of the whole SCoP, also bounds a region's run-time
    work on average over its executions (``_average_test``)."""
    from s2s.ir import Block, IfElse, Map, MatMul, Schedule, Sequence, walk
    from s2s.ir.rewrite import map_sequences, with_id_suffix
    from s2s.transforms.verify_parallel import _as_loop, _one_thread, probe_scops

    maps = {n.id: n for n in walk(seq) if isinstance(n, Map) and n.schedule is Schedule.CPU_MULTICORE}
    kernels = {}
    for b in walk(seq):
        if isinstance(b, Block):
            for n in b.graph.nodes:
                if isinstance(n, MatMul) and n.parallel:
                    kernels[f"{n.id}.{n.i.var}"] = b.id
    if not maps and not kernels:
        return SmallRegions(seq, [], False)
    if threshold <= 0 and kernel_threshold <= 0:
        return SmallRegions(seq, [], True)
    try:
        scops = probe_scops(sdfg, seq) if scops is None else scops
    except Exception:   # (the cross-check's own reading failed: nothing is known of the work)
        return SmallRegions(seq, [], True)
    works: dict[str, Work] = {}
    averages: dict[str, Expr] = {}
    for scop in scops:
        for loop in scop.loops:
            if loop.node.id in maps or loop.node.id in kernels:
                works[loop.node.id] = _region_work(scop, loop)
            if loop.node.id in maps and scop_work is not None and scop_work.expr is not None:
                average = _average_test(scop, loop, scop_work.expr, threshold)
                if average is not None:
                    averages[loop.node.id] = average
    small_maps = {i for i in maps if i in works and works[i].below(threshold)}
    versioned = {i: works[i].guard(threshold) for i in maps if i in works and works[i].guard(threshold) is not None}
    versioned = {i: Binary("&&", g, averages[i]) if i in averages else g for i, g in versioned.items()}
    small_blocks = {kernels[i] for i in kernels if i in works and works[i].below(kernel_threshold)}
    versioned_blocks = {kernels[i]: works[i].guard(kernel_threshold) for i in kernels
                        if i in works and kernel_threshold > 0 and works[i].guard(kernel_threshold) is not None}
    if not (small_maps or versioned or small_blocks or versioned_blocks):
        return SmallRegions(seq, [], True)

    def fn(s: Sequence) -> Sequence:
        children = []
        for c in s.children:
            if isinstance(c, Map) and c.id in small_maps:
                c = _as_loop(c)
            elif isinstance(c, Map) and c.id in versioned:
                plain = with_id_suffix(_as_loop(c), "_seq")
                c = IfElse(f"C.work.{c.id}", versioned[c.id], Sequence(f"S.par.{c.id}", (c,)),
                           Sequence(f"S.seq.{c.id}", (plain,)), balanced=True)
            elif isinstance(c, Block) and c.id in small_blocks:
                c = _one_thread(c)
            elif isinstance(c, Block) and c.id in versioned_blocks:
                c = IfElse(f"C.work.{c.id}", versioned_blocks[c.id], Sequence(f"S.par.{c.id}", (c,)),
                           Sequence(f"S.seq.{c.id}", (with_id_suffix(_one_thread(c), "_seq"),)), balanced=True)
            children.append(c)
        return replace(s, children=tuple(children))

    notes = []
    if small_maps or small_blocks:
        notes.append(f"{len(small_maps) + len(small_blocks)} parallel region(s) run on one thread: too little work")
    if versioned or versioned_blocks:
        notes.append(f"{len(versioned) + len(versioned_blocks)} parallel loop(s) versioned on their work")
    always = (set(maps) - small_maps - set(versioned)) | (set(kernels.values()) - small_blocks - set(versioned_blocks))
    conditions = list(dict.fromkeys([*versioned.values(), *versioned_blocks.values()]))
    runs_parallel: Expr | bool = bool(always) or (
        bool(conditions) and functools.reduce(lambda a, b: Binary("||", a, b), conditions))
    return SmallRegions(map_sequences(seq, fn), notes, runs_parallel)


def team_test(work: Work, start: int, wake: int) -> Expr | None:
    """The run-time test that the threads of a SCoP's regions pay for their start or their wake
    (``TEAM_PAYS``) in an execution of ``work``; None where there is nothing to test (no
    thresholds, or the work unknown)."""
    if start <= 0 and wake <= 0:
        return None
    amount = Const(f"{float(work.count):.1f}") if work.count is not None else work.expr
    if amount is None:
        return None
    return Call(TEAM_PAYS, (amount, Const(f"{float(start):g}"), Const(f"{float(wake):g}")))


def with_team_test(seq, test: Expr):
    """``seq`` with ``test`` the condition of every parallel region in it to start its threads;
    a region already versioned on its work (``sequential_small_regions``) gets it in that test."""
    from s2s.ir import Block, IfElse, Map, MatMul, Schedule, Sequence
    from s2s.ir.rewrite import map_sequences

    def tested(node, condition: Expr):
        if isinstance(node, Map) and node.schedule is Schedule.CPU_MULTICORE:
            return replace(node, team_if=condition)
        if isinstance(node, Block) and any(isinstance(n, MatMul) and n.parallel for n in node.graph.nodes):
            nodes = tuple(replace(n, team_if=condition) if isinstance(n, MatMul) and n.parallel else n
                          for n in node.graph.nodes)
            return replace(node, graph=replace(node.graph, nodes=nodes))
        return node

    def fn(s: Sequence) -> Sequence:
        children = []
        for c in s.children:
            if isinstance(c, IfElse) and c.id.startswith("C.work."):
                (region,) = c.then.children
                c = replace(c, cond=Binary("&&", c.cond, test),
                            then=replace(c.then, children=(tested(region, TESTED_BEFORE),)))
            else:
                c = tested(c, test)
            children.append(c)
        return replace(s, children=tuple(children))

    return map_sequences(seq, fn)


def without_tests_implied_by(seq, test: Expr):
    """``seq`` with each region versioned on ``test`` itself reduced to its parallel version:
    where the whole SCoP runs only when ``test`` holds (the one test of ``sequential_small_regions``
    put in front of it), their sequential copies would never run. The tests are in the
    parameters only, so they hold for the whole SCoP once they hold before it. Returns the
    sequence and how many regions lost their test."""
    from s2s.ir import IfElse, Sequence
    from s2s.ir.rewrite import map_sequences

    removed = 0

    def fn(s: Sequence) -> Sequence:
        nonlocal removed
        children = []
        for c in s.children:
            if isinstance(c, IfElse) and c.id.startswith("C.work.") and c.cond == test:
                children.extend(c.then.children)
                removed += 1
            else:
                children.append(c)
        return s if children == list(s.children) else replace(s, children=tuple(children))

    out = map_sequences(seq, fn)
    return out, removed


def _average_test(scop, loop, scop_work: Expr, threshold: int) -> Expr | None:
    """The run-time test that the SCoP's work, spread over the executions of ``loop`` (its
    region), reaches ``threshold`` on average: the bounding box of one execution is loose for
    a tile of a wavefront, while the SCoP's work, counted on the user's loops, is close. None
    when the executions are not known."""
    inside = [(st, [l.node.id for l in st.loops].index(loop.node.id))
              for st in scop.statements if any(l.node.id == loop.node.id for l in st.loops)]
    if not inside or inside[0][1] == 0:
        return None
    outer = None
    for st, depth in inside:   # (the loops around are the same for all: their executions, once)
        mine = st.domain.project_out(isl.dim_type.set, depth, st.domain.dim(isl.dim_type.set) - depth).reset_tuple_id()
        outer = mine if outer is None else outer.union(mine)
    try:
        with isl_operation_limit(COUNT_OPERATIONS):
            executions = set_work([outer.coalesce()], scop.context)
    except isl.Error:
        return None
    if executions.expr is None:
        return None
    return Binary(">=", scop_work, Binary("*", Const(f"{float(threshold):.1f}"), executions.expr))


def _region_work(scop, loop) -> Work:
    """The statement instances of one execution of ``loop`` of ``scop`` (a SCoP of generated
    code): the instances of its statements over the executions of the loops around it when
    both are known at compile time, else (per statement, in the parameters and the loops around
    it) the bounding box of its instances with those loops projected out, which bounds it."""
    inside = [(st, [l.node.id for l in st.loops].index(loop.node.id))
              for st in scop.statements if any(l.node.id == loop.node.id for l in st.loops)]
    if not inside:
        return Work()
    try:
        with isl_operation_limit(COUNT_OPERATIONS):
            return _instances_per_execution(scop, inside)
    except isl.Error:
        return Work()


def _instances_per_execution(scop, inside) -> Work:
    if all(st.domain.dim(isl.dim_type.param) == 0 or _params_unused(st.domain) for st, _ in inside):
        total, executions, exact = 0, 1, True
        for st, depth in inside:
            dom = st.domain.project_out(isl.dim_type.param, 0, st.domain.dim(isl.dim_type.param))
            n = count_points(dom)
            outer = count_points(dom.project_out(isl.dim_type.set, depth, dom.dim(isl.dim_type.set) - depth))
            if n is None or outer is None:
                return Work()
            total += n[0]
            executions = max(executions, outer[0])
            exact = exact and n[1] and outer[1]
        return Work(count=total // max(executions, 1), exact=exact)
    # (the loops around as parameters, then eliminated: a bound over all their values)
    sets = [st.domain.project_out(isl.dim_type.set, 0, depth) for st, depth in inside]
    return set_work(sets, scop.context)
