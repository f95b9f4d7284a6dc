"""From a Pluto schedule to an isl schedule tree: bands (permutable, coincident members), tiling,
wavefronts, and marks that tell code generation which loops run in parallel or as SIMD."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import islpy as isl

from s2s.analysis.scop import Scop, Statement
from s2s.schedule.lagged_jam import copy_lag, distances, recurrence_moves_with
from s2s.schedule.outer_jam import JamRows, jam_over_inner_loops, may_jam
from s2s.schedule.pluto import PlutoSchedule, Row
from s2s.schedule.point_order import (
    chain_stores, copies_read_neighbours, innermost_member, member_to_sink, reads_an_array,
)
from s2s.schedule.statement_split import StatementSplit, statement_split
from s2s.schedule.tile_sizes import (
    ASSUMED_EXTENT, DEFAULT_L1_BYTES, DEFAULT_TILE_BUDGET, UnknownFootprint, footprint_terms, grid_sweep,
    sweep_footprint, tile_sizes, untiled_footprint,
)
from s2s.schedule.whole_groups import isolate_marked_groups, mark_whole_groups
from s2s.time_limit import isl_operation_limit

PARALLEL_MARK = "parallel"
SIMD_MARK = "simd"
LAG_OPERATIONS = 2_000_000   # isl's steps for the dependence distances that prove a lag

Lag = Callable[[Row, Row, int], int | None]   # (outer, inner, copies) -> lag (lagged_jam.copy_lag)
Split = Callable[[list[Row]], StatementSplit | None]   # point members in code order -> statement_split


def _numbered_marks(schedule: isl.Schedule) -> isl.Schedule:
    """Each mark named ``kind@depth`` with the schedule depth of the band it marks, which names the
    loop isl's AST generator makes of it (``c<depth>``). Code generation checks it: when that loop
    is degenerate, no loop is made and the mark would land on the next one. (Numbered once the
    tree is complete: depths inside a subtree under construction are not yet final.)"""

    def number(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.mark:
            return node
        kind, _ = parse_mark(node.mark_get_id().get_name())
        depth = node.get_schedule_depth()
        return node.delete().insert_mark(isl.Id(f"{kind}@{depth}"))

    return schedule.map_schedule_node_bottom_up(number)


def parse_mark(name: str) -> tuple[str, int | None]:
    kind, _, depth = name.partition("@")
    return kind, int(depth) if depth.isdigit() else None


def parallel_mark(omp_schedule: str | None = None) -> str:
    """The mark of a parallel loop, with the OpenMP schedule a recipe asked for
    (``parallel/dynamic``); ``parse_parallel_mark`` reads it back."""
    return PARALLEL_MARK if omp_schedule is None else f"{PARALLEL_MARK}/{omp_schedule}"


def parse_parallel_mark(kind: str) -> tuple[str, str | None]:
    base, _, omp_schedule = kind.partition("/")
    return base, omp_schedule or None


@dataclass(frozen=True)
class BandPlan:
    """A recipe's decisions for one permutable band (None: the rules decide)."""

    tile: tuple[int, ...] | None = None   # sizes per member, in the band's order; (): untiled
    jam: int | None = None                # copies unrolled and jammed (0, 1: none)
    wavefront: bool | None = None         # a wavefront of tiles where no tile loop is parallel
    order: tuple[int, ...] | None = None  # the members in this order (decisions.py ``permute``)
    skew: tuple[tuple[int, int, int], ...] = ()   # (member, plus member, times factor), after ``order``
    parallel_loop: int | None = None      # the band's loop to run in parallel, outermost first as the
                                          # code runs them (its tile loops where tiled)
    omp_schedule: str | None = None       # that loop's OpenMP schedule (decisions.OMP_SCHEDULES)
    split: bool | None = None             # point loops one statement at a time where legal (statement_split.py)
    beyond_cache: bool | None = None      # tiles only where the untiled loops' data leave the cache
                                          # (a run-time test: transforms/footprint_test.py)


@dataclass(frozen=True)
class BandDecision:
    """What the tree made of one permutable band for some of its statements."""

    band: int                        # the band's number in the schedule (``Row.band``)
    statements: tuple[int, ...]      # the statements, by their index in the SCoP
    tile: tuple[int, ...]            # sizes per member in the band's order; (): untiled
    jam: int = 0                     # copies unrolled and jammed (0: none)
    lag: int = 0                     # iterations each copy runs behind the one before
    wavefront: bool = False
    split: bool = False              # point loops one statement at a time
    beyond_cache: bool = False       # tiled only where the untiled loops' data leave the cache
    parallel_loop: int | None = None     # a recipe's parallel loop and OpenMP schedule (BandPlan)
    omp_schedule: str | None = None


@dataclass(frozen=True)
class TreeOptions:
    tile: bool = True
    tile_sizes: tuple[int, ...] | None = None    # per band member, outermost first, the last repeats;
                                                 # None: from the cache model (tile_sizes.py)
    tile_budget_bytes: int = DEFAULT_TILE_BUDGET  # what one tile's data may occupy
    l1_bytes: int = DEFAULT_L1_BYTES             # a core's L1 data cache: the most that the lines an
                                                 # untiled band walks across rows may occupy
    parallel: bool = True                        # mark the outermost parallel (tile) loop
    wavefront: bool = True                       # skew tile loops when no tile loop is parallel
    simd: bool = True                            # mark the innermost parallel point loop
    unroll_jam: int = 4                          # unroll a parallel point loop by this into the innermost
                                                 # SIMD loop (0, 1: no jams at all)
    chains_pay_anywhere: bool = True             # copies jammed into chains gain at any size (not
                                                 # where the chains are sums forwarded to memory)
    chain_jam: int = 8                           # copies of a loop jammed into one that carries a chain of
                                                 # updates: as many chains as multiply-adds in flight
                                                 # (``unroll_jam`` where they read neighbours: _chain_jam)
    recurrence_jam: int = 4                      # unroll a point loop by this into an innermost loop that
                                                 # carries a recurrence, the copies lagged (lagged_jam.py)
    kernels: tuple[tuple[str, str], ...] = ()    # (statement, mark): statements run by a library node,
                                                 # each alone at the top of the schedule (matmul.py)
    streaming_bands: frozenset[int] = frozenset()  # bands left untiled: no cache line used again across
                                                 # their outer loops (band_reuse.py)
    band_plans: tuple[tuple[tuple[int, frozenset[int]], BandPlan], ...] = ()  # ((band, statements), plan):
                                                 # a recipe's decisions for some bands
    jams: JamRows = ()                           # rows, each a band of its own, that may be unrolled by
                                                 # ``chain_jam`` and jammed over the loops inside them,
                                                 # except for some statements (outer_jam.py)


CHAIN_JAM_STATEMENTS = 32   # the most statements that copies jammed into chains may make


@dataclass
class TreeReport:
    """What ``build_tree`` did with the bands: how each was tiled (a line each, for the user), and
    how many became a wavefront of tiles (parallelism a sequential target would not want)."""

    notes: list[str] = dataclasses.field(default_factory=list)
    wavefronts: int = 0
    reshaped: int = 0    # bands tiled or unrolled and jammed: more than a new loop order
    outer_jams: int = 0  # loops unrolled and jammed over the loops inside them
    outer_jam_factor: int = 0   # the copies of the last of them
    lagged_jams: int = 0  # loops unrolled and jammed into a recurrence, the copies lagged
    split_bands: int = 0  # tiled bands whose point loops run one statement at a time
    bands: list[BandDecision] = dataclasses.field(default_factory=list)   # per permutable band
    unknown_footprints: list[UnknownFootprint] = dataclasses.field(default_factory=list)   # bands tiled
                                                                  # for want of their sizes


def _row_expr(row: Row, stmt: Statement) -> str:
    c = row.coefficients[stmt.name]
    if row.kind == "scalar":
        return str(c[0])
    terms = [f"{a}*{v}" for a, v in zip(c, stmt.iterators) if a]
    if c[len(stmt.iterators)]:
        terms.append(str(c[len(stmt.iterators)]))
    return " + ".join(terms) if terms else "0"


def _varies(row: Row, stmts: list[Statement]) -> bool:
    """Whether ``row`` takes more than one value on the instances of ``stmts``."""
    return any(any(row.coefficients[s.name][:-1]) for s in stmts) or len(
        {row.coefficients[s.name][-1] for s in stmts}) > 1


def _mupa(scop: Scop, stmts: list[Statement], rows: list[Row]) -> isl.MultiUnionPwAff:
    parts = [f"{s.name}[{', '.join(s.iterators)}] -> [{', '.join(_row_expr(r, s) for r in rows)}]" for s in stmts]
    umap = isl.UnionMap(f"{_params(scop)}{{ {'; '.join(parts)} }}")
    domain = isl.UnionSet.empty(umap.get_space().params())
    for s in stmts:
        domain = domain.union(isl.UnionSet.from_set(s.domain))
    restricted = umap.intersect_domain(domain)
    # isl reads the range space off the map's pieces: with none (statements that never run, as in
    # for (j = 1; j < 1; j++)) the unrestricted map gives it, and the same empty schedule.
    return isl.MultiUnionPwAff.from_union_map(umap if restricted.is_empty() else restricted)


def rows_map(scop: Scop, rows: list[Row]) -> isl.UnionMap:
    """The schedule ``rows`` as one map per statement to a time space with one dimension per row."""
    parts = [f"{s.name}[{', '.join(s.iterators)}] -> [{', '.join(_row_expr(r, s) for r in rows)}]"
             for s in scop.statements]
    return isl.UnionMap(f"{_params(scop)}{{ {'; '.join(parts)} }}").intersect_domain(scop.domain)


def build_tree(scop: Scop, sched: PlutoSchedule, options: TreeOptions = TreeOptions(),
               report: TreeReport | None = None, validity: isl.UnionMap | None = None) -> isl.Schedule:
    """The schedule tree of ``sched``; what was tiled how goes to ``report``. With the
    dependences (``validity``), a point loop may be jammed into a recurrence (lagged_jam.py)."""
    rows = sched.rows
    report = report if report is not None else TreeReport()
    found_distances: list[isl.Set | None] = []

    def lag_within(end: int) -> Lag:
        """How far each copy of one of the rows before ``end`` must run behind the one before it
        along another for the copies to be independent (``copy_lag``)."""

        def lag(outer: Row, inner: Row, factor: int) -> int | None:
            if not found_distances:
                try:
                    with isl_operation_limit(LAG_OPERATIONS):
                        found_distances.append(distances(validity, rows_map(scop, rows)))
                except isl.Error:   # (too dear: no lag is proven)
                    found_distances.append(None)
            if found_distances[0] is None:
                return None
            at = {id(r): k for k, r in enumerate(rows)}
            o, i = at[id(outer)], at[id(inner)]
            try:
                with isl_operation_limit(LAG_OPERATIONS):
                    return copy_lag(found_distances[0], [k for k in range(end) if k not in (o, i)], o, i, factor)
            except isl.Error:
                return None

        return lag

    def domain_of(stmts: list[Statement]) -> isl.UnionSet:
        out = isl.UnionSet.from_set(stmts[0].domain)
        for s in stmts[1:]:
            out = out.union(isl.UnionSet.from_set(s.domain))
        return out

    kernels = dict(options.kernels)
    bounded = scop.domains_within_extents()
    index = {st.name: k for k, st in enumerate(scop.statements)}

    def build(stmts: list[Statement], k: int, sunk: Row | None = None) -> isl.Schedule:
        if len(stmts) == 1 and stmts[0].name in kernels:
            return _kernel_branch(scop, stmts[0], kernels[stmts[0].name])
        if k == len(rows):
            leaf = isl.Schedule.from_domain(domain_of(stmts))
            if sunk is None or not _varies(sunk, stmts):
                return leaf
            band = leaf.insert_partial_schedule(_mupa(scop, stmts, [sunk])).get_root().child(0)
            band = band.band_member_set_coincident(0, 1)
            return (band.insert_mark(isl.Id(SIMD_MARK)) if options.simd else band).get_schedule()
        row = rows[k]
        if row.kind == "scalar":
            values = sorted({row.coefficients[s.name][0] for s in stmts})
            if len(values) == 1:
                return build(stmts, k + 1, sunk)
            out = None
            for v in values:
                part = build([s for s in stmts if row.coefficients[s.name][0] == v], k + 1, sunk)
                out = part if out is None else out.sequence(part)
            return out
        end = k + 1
        if row.band >= 0:
            while end < len(rows) and rows[end].kind == "hyperplane" and rows[end].band == row.band:
                end += 1
        # members constant on these statements make no loop (another statement's dimension)
        members = [r for r in rows[k:end] if _varies(r, stmts)]
        permutable = row.band >= 0 and len(members) > 1
        streaming = row.band in options.streaming_bands
        sink = None
        if permutable and options.tile and sunk is None and not kernels and not streaming:
            sink = member_to_sink(stmts, rows, members, end)
        inner = build(stmts, end, sunk if sink is None else members[sink])
        if not members:
            return inner
        if sink is not None:
            return _tile_sinking(scop, inner, stmts, members, sink, options,
                                 report).get_schedule()
        schedule = inner.insert_partial_schedule(_mupa(scop, stmts, members))
        node = schedule.get_root().child(0)
        node = node.band_set_permutable(1 if permutable else 0)
        for j, r in enumerate(members):
            node = node.band_member_set_coincident(j, 1 if r.parallel else 0)
        jammed = (len(members) == 1 and not permutable and options.unroll_jam > 1
                  and may_jam(options.jams, rows, members[0], stmts))
        factor = _chain_jam(stmts, members[0], options) if jammed else 0
        if factor > 1:
            node = jam_over_inner_loops(node, factor)
            report.notes.append(f"loop unroll-and-jam {factor} over the loops inside it")
            report.reshaped += 1
            report.outer_jams += 1
            report.outer_jam_factor = factor
            if options.parallel:
                node = _mark_parallel(node, [members[0].parallel], options)
        elif permutable and options.tile:
            # (above a sunk loop, the SIMD loop is that one)
            band_options = options if sunk is None else dataclasses.replace(options, simd=False)
            innermost = sunk is None and not any(r.kind == "hyperplane" and _varies(r, stmts) for r in rows[end:])
            lags = lag_within(end) if validity is not None and innermost else None
            key = (members[0].band, frozenset(index[st.name] for st in stmts))
            plan = dict(options.band_plans).get(key, BandPlan())

            def split(ordered: list[Row], stmts: list[Statement] = stmts,
                      outer: list[Row] = rows[:k]) -> StatementSplit | None:
                return statement_split(scop, stmts, rows_map(scop, outer + ordered), len(outer), validity)

            splits = split if validity is not None and innermost else None
            node = _tile(node, stmts, members, band_options, report, bounded, lags, plan, key, rows[:k], splits)
        elif options.parallel:
            node = _mark_parallel(node, [r.parallel for r in members], options)
        return node.get_schedule()

    return _numbered_marks(isolate_marked_groups(build(list(scop.statements), 0)))


def _kernel_branch(scop: Scop, stmt: Statement, mark: str) -> isl.Schedule:
    """The statement in its original order under ``mark``: code generation puts the library
    node the mark names in place of these loops."""
    names = ", ".join(stmt.iterators)
    umap = isl.UnionMap(f"{_params(scop)}{{ {stmt.name}[{names}] -> [{names}] }}")
    schedule = isl.Schedule.from_domain(isl.UnionSet.from_set(stmt.domain)).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(umap.intersect_domain(isl.UnionSet.from_set(stmt.domain))))
    return schedule.get_root().child(0).insert_mark(isl.Id(mark)).get_schedule()


def _params(scop: Scop) -> str:
    return f"[{', '.join(scop.params)}] -> " if scop.params else ""


def _tile(node: isl.ScheduleNode, stmts: list[Statement], members: list[Row], options: TreeOptions,
          report: TreeReport, bounded: dict[str, isl.Set], lags: Lag | None = None,
          plan: BandPlan = BandPlan(), key: tuple[int, frozenset[int]] = (-1, frozenset()),
          outer: list[Row] | None = None, splits: Split | None = None) -> isl.ScheduleNode:
    n = len(members)
    # (a recipe's order of the members is theirs to the innermost; else the member with the best
    # locality runs innermost)
    inner = n - 1 if plan.order is not None else innermost_member(stmts, members) if n > 1 else 0
    coincident = [r.parallel for r in members]
    order = [j for j in range(n) if j != inner] + [inner]
    if plan.tile and len(plan.tile) != n:
        report.notes.append(f"the recipe's tile sizes {'x'.join(map(str, plan.tile))} refused: they do not fit "
                            f"a band of {n} loops")
        plan = dataclasses.replace(plan, tile=None)
    if plan.jam is not None:
        options = dataclasses.replace(options, unroll_jam=plan.jam, recurrence_jam=plan.jam, chain_jam=plan.jam)
    if plan.wavefront is not None:
        options = dataclasses.replace(options, wavefront=plan.wavefront)
    decided = BandDecision(key[0], tuple(sorted(key[1])), (), parallel_loop=plan.parallel_loop,
                           omp_schedule=plan.omp_schedule)
    untiled_args = (node, stmts, members, inner, [coincident[j] for j in order], options, report)
    if not plan.tile and lags is not None and not coincident[inner] and not _jam_into_chain(stmts, members, inner) and (
            lagged := _lagged_jam(stmts, [members[j] for j in order], options, lags)):
        # (tiles would not shorten the recurrence's chain, and its copies' code is too dear to
        # generate and check inside skewed tiles)
        return _untiled(*untiled_args, decided, lagged, plan=plan)
    if plan.tile == ():
        report.notes.append("untiled, as the recipe says")
        return _untiled(*untiled_args, decided, plan=plan)
    if plan.tile is None and members[0].band in options.streaming_bands:
        report.notes.append("untiled: no cache line is used again across its outer loops")
        return _untiled(*untiled_args, decided, plan=plan)
    untiled = None if options.tile_sizes or plan.tile else untiled_footprint(stmts, members, inner, bounded, outer)
    assumed = ""
    if untiled is None and not options.tile_sizes and not plan.tile and not outer:
        # (a sweep over rows of run-time length: a grid's or an image's)
        untiled = sweep_footprint(stmts, members, inner, bounded)
        assumed = f" at sizes up to {ASSUMED_EXTENT}"
        if untiled is None and grid_sweep(stmts, members, inner, bounded):
            report.notes.append("untiled: a sweep over a grid, its neighbouring planes streamed through the cache")
            return _untiled(*untiled_args, decided, plan=plan)
    # untiled, the parallel loop of an OpenMP band is one of its own loops, never the SIMD loop;
    # a band with no parallel loop would be tiled only for a wavefront, a barrier per diagonal
    # for data that stays in cache without tiles (Floyd-Warshall's rows, once per k)
    may_stay_untiled = not options.parallel or not any(coincident) or any(coincident[j] for j in order[:-1])
    if (untiled is not None and untiled.total <= options.tile_budget_bytes
            and untiled.strided <= options.l1_bytes and may_stay_untiled):
        report.notes.append(f"untiled: its inner loops touch {untiled.total // 1024} KiB{assumed}, which stay in cache")
        return _untiled(*untiled_args, decided, plan=plan)
    sizes = list(plan.tile) if plan.tile else _tile_sizes(stmts, members, inner, options)
    node = node.band_tile(_multi_val(node.band_get_space(), sizes))  # the tile band; its child: the point band
    if inner != n - 1:
        node = _permute_points(node.child(0), inner, coincident).parent()
    point_coincident = [coincident[j] for j in order]
    simd = options.simd and point_coincident[-1]
    factor = options.unroll_jam
    jam = _jam_position(stmts, point_coincident, [sizes[j] for j in order], factor) if (
        simd or not point_coincident[-1]) else None
    if jam is not None and not simd:
        chains = chain_stores(stmts, members, inner)
        factor = _chain_jam(stmts, members[order[jam]], options, chains) if chains is not None else 0
        jam = _jam_position(stmts, point_coincident, [sizes[j] for j in order], factor)
    # (where copies jam into the chains the innermost loop carries, they run side by side already)
    split = splits([members[j] for j in order]) if (
        splits is not None and jam is None and not simd and n > 1 and plan.split is not False) else None
    if jam is not None:
        node = _unroll_and_jam(node.child(0), jam, factor, isolate=not simd).parent()
    if split is not None:
        node = _split_points(node, split)
        report.notes.append("its point loops one statement at a time")
        report.split_bands += 1
    if simd:
        point = node.child(0)
        if n > 1:
            point = point.band_split(n - 1).child(0)   # the innermost point loop as its own band
        mark = point.insert_mark(isl.Id(SIMD_MARK))
        node = mark.parent().parent() if n > 1 else mark.parent()  # back to the tile band
    report.notes.append(f"tiles {'x'.join(map(str, sizes))}" + _jam_note(jam, point_coincident, factor))
    report.reshaped += 1
    # (tiled for want of its sizes, or as the recipe says: the tiles may run only where their
    # data leave the cache; not where copies jam into the chains the innermost loop carries,
    # which gain at any size, unless those chains are sums forwarded to memory)
    beyond_cache = untiled is None and may_stay_untiled and not options.tile_sizes and (
        plan.beyond_cache if plan.tile else plan.beyond_cache is not False) and (
        jam is None or simd or not options.chains_pay_anywhere) and (
        terms := footprint_terms(stmts, members, inner, outer))
    if beyond_cache:
        report.unknown_footprints.append(UnknownFootprint(tuple(stmts), tuple(members), tuple(terms),
                                                          options.tile_budget_bytes, options.l1_bytes))
    decided = dataclasses.replace(decided, tile=tuple(sizes), jam=factor if jam is not None else 0,
                                  split=split is not None, beyond_cache=bool(beyond_cache))
    if options.parallel and not any(coincident) and options.wavefront and n > 1:
        report.notes.append("wavefront of tiles")
        report.wavefronts += 1
        report.bands.append(dataclasses.replace(decided, wavefront=True))
        return _wavefront(node)
    report.bands.append(decided)
    if not options.parallel:
        return node
    if any(coincident):
        return _mark_parallel(node, coincident, options, plan, report)
    return node


def _jam_position(stmts: list[Statement], ordered: list[bool], sizes: list[int | None],
                  factor: int) -> int | None:
    """The point loop to unroll by ``factor`` into the innermost one (``ordered``: the
    members' coincidence in loop order; ``sizes``: their tile sizes, None untiled), one whose
    tiles hold whole groups of copies. Into a SIMD loop, its copies share the loads of what does
    not depend on it (gemm's ``B[k][j]``): the outermost parallel one. Into a loop that carries
    a chain of updates of one element (a reduction, each row's sum in its own order), they are
    independent chains where there was one (gesummv's rows): the outermost parallel one, else
    the outermost (bicg's rows, which also add to one ``s[j]`` in turn: copies of a permutable
    band's member are legal in any case, as a tiling and a permutation of the band)."""
    if factor < 2 or not reads_an_array(stmts):   # (copies of plain stores share nothing)
        return None
    whole = [p for p in range(len(ordered) - 1)
             if sizes[p] is None or (sizes[p] % factor == 0 and sizes[p] >= 2 * factor)]
    parallel = [p for p in whole if ordered[p]]
    if parallel:
        return parallel[0]
    return whole[0] if whole and not ordered[-1] else None


def _lagged_jam(stmts: list[Statement], ordered: list[Row], options: TreeOptions,
                lags: Lag) -> tuple[int, int] | None:
    """(loop, lag): the outermost loop of a band (``ordered``: its members in loop order) along
    which the innermost loop's recurrence moves, and whose ``options.recurrence_jam`` copies
    jammed into that loop some lag makes independent (lagged_jam.py)."""
    factor = options.recurrence_jam
    if factor < 2 or options.unroll_jam < 2 or not reads_an_array(stmts):
        return None
    for p in range(len(ordered) - 1):
        if recurrence_moves_with(stmts, ordered, p) and (lag := lags(ordered[p], ordered[-1], factor)) is not None:
            return p, lag
    return None


def _jam_into_chain(stmts: list[Statement], members: list[Row], inner: int) -> bool:
    """Whether member ``inner``'s loop, which does not run in parallel, carries a chain of
    updates of one element, which copies of an outer loop unrolled into it make independent.
    With one element stored per iteration that pays once code generation keeps the copies'
    elements in locals (scalar_replacement.py), which needs a loop with no guard inside: the
    copies' whole groups are generated apart from the partial ones (``_unroll_and_jam``)."""
    return chain_stores(stmts, members, inner) is not None


def _chain_jam(stmts: list[Statement], row: Row, options: TreeOptions, chains: int = 1) -> int:
    """How many copies of ``row``'s loop to jam into a loop that carries ``chains`` chains of
    updates: enough for ``chain_jam`` chains (no fewer than ``unroll_jam`` copies), or
    ``unroll_jam`` where the copies read neighbouring elements or would be more than
    ``CHAIN_JAM_STATEMENTS`` statements. Compilers vectorize across neighbours' copies
    (superword parallelism: one vector of chains), four of them in every build gcc makes, eight
    not in all (not in gemver's OpenMP build); many statements' copies cost isl's code
    generation and its check more than the chains gain (adi's sweeps)."""
    if options.unroll_jam < 2:
        return 0
    copies = max(options.chain_jam // max(chains, 1), options.unroll_jam)
    if len(stmts) * copies > CHAIN_JAM_STATEMENTS or copies_read_neighbours(stmts, row):
        return options.unroll_jam
    return copies


def _jam_note(jam: int | None, ordered: list[bool], factor: int) -> str:
    if jam is None:
        return ""
    into = "" if ordered[-1] else " into a loop that carries a chain of updates"
    return f" unroll-and-jam {factor}{into}"


def _untiled(node: isl.ScheduleNode, stmts: list[Statement], members: list[Row], inner: int,
             ordered: list[bool], options: TreeOptions, report: TreeReport, decided: BandDecision,
             lagged: tuple[int, int] | None = None, plan: BandPlan = BandPlan()) -> isl.ScheduleNode:
    """The band as one loop per member, ``inner`` innermost (a SIMD loop where it is parallel),
    the outermost parallel one of the others marked parallel (``ordered``: the members'
    coincidence in that loop order); where the innermost loop carries a chain of updates, a
    parallel one unrolled and jammed into it; where it carries a recurrence, the loop of
    ``lagged`` (loop, lag), its copies each that many iterations behind the one before."""
    coincident = [r.parallel for r in members]
    n = len(coincident)
    if inner != n - 1:
        node = _permute_points(node, inner, coincident)
    if lagged is not None:
        (jam, lag), factor = lagged, options.recurrence_jam
        node = _unroll_and_jam(node, jam, factor, isolate=True, lag=lag)
        report.notes.append(f"untiled: unroll-and-jam {factor} into a recurrence, each copy {lag} "
                            f"iteration(s) behind the one before")
        report.reshaped += 1
        report.lagged_jams += 1
        decided = dataclasses.replace(decided, jam=factor, lag=lag)
    elif not ordered[-1]:
        jam = _jam_position(stmts, ordered, [None] * n, options.unroll_jam)
        order = [j for j in range(n) if j != inner] + [inner]
        chains = chain_stores(stmts, members, inner) if jam is not None else None
        factor = _chain_jam(stmts, members[order[jam]], options, chains) if chains is not None else 0
        if factor > 1:
            node = _unroll_and_jam(node, jam, factor, isolate=True)
            report.notes.append(_jam_note(jam, ordered, factor).strip())
            report.reshaped += 1
            decided = dataclasses.replace(decided, jam=factor)
    report.bands.append(decided)
    if options.simd and ordered[-1]:
        node = node.band_split(n - 1).child(0).insert_mark(isl.Id(SIMD_MARK)).parent()
        ordered = ordered[:-1]
    return _mark_parallel(node, ordered, options, plan, report) if options.parallel else node


def _tile_sinking(scop: Scop, inner: isl.Schedule, stmts: list[Statement], members: list[Row], sink: int,
                  options: TreeOptions, report: TreeReport) -> isl.ScheduleNode:
    """The band tiled, with the point loop of member ``sink`` left out here: ``inner`` (built
    below it) runs it innermost, under the loops of the bands that follow (symm's j below k).
    Legal because ``sink`` is parallel: every dependence that the loops before the band leave
    unordered has distance zero on it, so the other loops order them as before."""
    sizes = _tile_sizes(stmts, members, sink, options)
    kept = [r for j, r in enumerate(members) if j != sink]
    node = inner.insert_partial_schedule(_mupa(scop, stmts, kept)).get_root().child(0)
    node = node.band_set_permutable(1)
    for j, r in enumerate(kept):
        node = node.band_member_set_coincident(j, 1 if r.parallel else 0)
    tiles = _mupa(scop, stmts, members)
    node = node.insert_partial_schedule(tiles.scale_down_multi_val(_multi_val(tiles.get_space(), sizes)).floor())
    node = node.band_set_permutable(1)
    coincident = [r.parallel for r in members]
    for j, c in enumerate(coincident):
        node = node.band_member_set_coincident(j, 1 if c else 0)
    report.notes.append(f"tiles {'x'.join(map(str, sizes))}, point loop {sink + 1} innermost below the inner loops")
    report.reshaped += 1
    # (the sunk member is parallel, so some tile loop is: no wavefront here)
    return _mark_parallel(node, coincident, options) if options.parallel else node


def _split_points(tiles: isl.ScheduleNode, split: StatementSplit) -> isl.ScheduleNode:
    """Below tile band ``tiles``, the outermost point loop, then per statement of ``split`` in
    turn its other point loops (statement_split.py). Returns the tile band. Their innermost
    loops carry no SIMD mark: gcc vectorizes a loop of one statement with the tile's bounds by
    itself, and a mark would have the generated code read back as a SCoP to prove it, whose
    skewed bounds take isl tens of seconds (heat-3d)."""
    depth = tiles.get_tree_depth()
    point = tiles.child(0).band_split(1).child(0)
    inner = point.band_n_member()   # (the point loops below the outermost)
    filters = isl.UnionSetList.alloc(point.get_ctx(), len(split.statements))
    for st in split.statements:
        filters = filters.add(isl.UnionSet.from_set(st.domain))
    node = point.insert_sequence(filters)
    for k, parallel in enumerate(split.parallel):
        band = node.child(k).child(0).band_member_set_coincident(inner - 1, 1 if parallel else 0)
        node = band.parent().parent()   # the sequence again
    while node.get_tree_depth() > depth:
        node = node.parent()
    return node


def _tile_sizes(stmts: list[Statement], members: list[Row], innermost: int, options: TreeOptions) -> list[int]:
    if options.tile_sizes:
        return [options.tile_sizes[min(j, len(options.tile_sizes) - 1)] for j in range(len(members))]
    return tile_sizes(stmts, members, innermost, options.tile_budget_bytes)


def _multi_val(space: isl.Space, values: list[int]) -> isl.MultiVal:
    mv = isl.MultiVal.zero(space)
    for j, v in enumerate(values):
        mv = mv.set_val(j, isl.Val.int_from_si(space.get_ctx(), v))
    return mv


def _unroll_and_jam(point: isl.ScheduleNode, position: int, factor: int, isolate: bool = False,
                    lag: int = 0) -> isl.ScheduleNode:
    """Point loop ``position`` strip-mined by ``factor``, its inner part moved below all the point
    loops and unrolled: ``factor`` copies of the body in the innermost (SIMD) loop, independent
    chains that share its loads (gemm's ``B[k][j]`` across four rows of ``C``). Legal wherever
    the point band is: it is a tiling of the band followed by a permutation of its members.
    With ``isolate``, the whole groups of copies are generated apart, with no guard inside.
    With ``lag``, the innermost point loop is first skewed by ``lag`` times loop ``position``
    (each copy that many iterations behind the one before: lagged_jam.py).
    Returns the (outer) point band."""
    if lag:
        point = _skew_innermost(point, position, lag)
    space = point.band_get_space()
    point = point.band_tile(_multi_val(space, [factor if k == position else 1
                                               for k in range(space.dim(isl.dim_type.set))]))
    inner = point.child(0)
    for k in range(inner.band_n_member()):
        inner = inner.band_member_set_ast_loop_type(k, isl.ast_loop_type.unroll)
    if isolate:
        inner = mark_whole_groups(inner, [factor if k == position else 1 for k in range(inner.band_n_member())])
        return inner.parent().parent()
    return inner.parent()


def _skew_innermost(point: isl.ScheduleNode, by: int, factor: int) -> isl.ScheduleNode:
    """The point band with ``factor`` times member ``by`` added to its innermost member."""
    mupa = point.band_get_partial_schedule()
    n = mupa.dim(isl.dim_type.set)
    coincident = [point.band_member_get_coincident(k) for k in range(n)]
    scale = isl.Val.int_from_si(mupa.get_ctx(), factor)
    skewed = mupa.set_union_pw_aff(n - 1, mupa.get_union_pw_aff(n - 1).add(
        mupa.get_union_pw_aff(by).scale_val(scale)))
    point = point.delete().insert_partial_schedule(skewed).band_set_permutable(1)
    for k, c in enumerate(coincident):
        point = point.band_member_set_coincident(k, 1 if c and k != n - 1 else 0)
    return point


def _permute_points(point: isl.ScheduleNode, inner: int, coincident: list[bool]) -> isl.ScheduleNode:
    """The point band with member ``inner`` moved innermost (the others keep their order)."""
    mupa = point.band_get_partial_schedule()
    n = mupa.dim(isl.dim_type.set)
    order = [j for j in range(n) if j != inner] + [inner]
    permuted = mupa
    for k, j in enumerate(order):
        permuted = permuted.set_union_pw_aff(k, mupa.get_union_pw_aff(j))
    point = point.delete().insert_partial_schedule(permuted)
    point = point.band_set_permutable(1)
    for k, j in enumerate(order):
        point = point.band_member_set_coincident(k, 1 if coincident[j] else 0)
    return point


def _mark_parallel(node: isl.ScheduleNode, coincident: list[bool], options: TreeOptions,
                   plan: BandPlan = BandPlan(), report: TreeReport | None = None) -> isl.ScheduleNode:
    """The outermost parallel loop of the band marked parallel, or the one ``plan`` asks for
    (refused, with a note, where that loop is not parallel), with ``plan``'s OpenMP schedule."""
    if not any(coincident):
        return node
    first = coincident.index(True)
    if plan.parallel_loop is not None:
        if plan.parallel_loop < len(coincident) and coincident[plan.parallel_loop]:
            first = plan.parallel_loop
        elif report is not None:
            report.notes.append(f"the recipe's parallel loop {plan.parallel_loop} refused: not a parallel "
                                f"loop of this band")
    mark = isl.Id(parallel_mark(plan.omp_schedule))
    if first > 0:
        node = node.band_split(first).child(0)
        node = node.insert_mark(mark).parent()
        return node
    return node.insert_mark(mark).child(0)


def _wavefront(node: isl.ScheduleNode) -> isl.ScheduleNode:
    """Tile loops (T0, T1, ...) become (T0 + T1, T1, ...): tiles on one anti-diagonal are
    independent when every dependence has non-negative distances on the tile band."""
    mupa = node.band_get_partial_schedule()
    upa0 = mupa.get_union_pw_aff(0).add(mupa.get_union_pw_aff(1))
    mupa = mupa.set_union_pw_aff(0, upa0)
    node = node.delete()
    node = node.insert_partial_schedule(mupa)
    node = node.band_set_permutable(0)
    node = node.band_member_set_coincident(1, 1)
    node = node.band_split(1).child(0)
    return node.insert_mark(isl.Id(PARALLEL_MARK)).parent()
