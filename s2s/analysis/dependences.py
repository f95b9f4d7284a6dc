"""Dependence analysis on a SCoP: exact value-based flow dependences, memory-based anti and output
dependences, which loops carry them, and distance summaries."""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from s2s.analysis.scop import Loop, Scop
from s2s.time_limit import TimeLimitExceeded, isl_operation_limit, run_with_cpu_limit

# isl's dataflow analysis can run for minutes on a few dozen accesses with modulo-like subscripts;
# past this many elementary steps, or this many CPU seconds (its counter misses steps on large
# integers: 5M steps took 44 s on fuzz seed 3002974), the memory-based superset stands in
DATAFLOW_MAX_OPERATIONS = 5_000_000
DATAFLOW_BUDGET_S = 5.0


@dataclass
class Dependences:
    flow: isl.UnionMap       # RAW, value-based (exact: each read to the write it reads from)
    anti: isl.UnionMap       # WAR, memory-based
    output: isl.UnionMap     # WAW, memory-based
    flow_memory: isl.UnionMap  # RAW, memory-based (what a transformation must respect)

    @property
    def validity(self) -> isl.UnionMap:
        """Every ordering a legal schedule must keep."""
        return self.flow_memory.union(self.anti).union(self.output)

    @property
    def all(self) -> dict[str, isl.UnionMap]:
        return {"flow": self.flow, "anti": self.anti, "output": self.output}


def compute_dependences(scop: Scop, array: str | None = None) -> Dependences:
    """All dependences of ``scop`` (only those through ``array``, if given)."""
    sched = scop.schedule_map
    reads, writes = scop.reads, scop.writes
    if array is not None:
        reads, writes = accesses_to(reads, array), accesses_to(writes, array)
    flow = last_access(reads, writes, sched, scop.schedule_tree)
    before = sched.lex_lt_union_map(sched)  # pairs of instances in execution order
    flow_memory = writes.apply_range(reads.reverse()).intersect(before)
    anti = reads.apply_range(writes.reverse()).intersect(before)
    output = writes.apply_range(writes.reverse()).intersect(before)
    return Dependences(coalesced(flow), coalesced(anti), coalesced(output), coalesced(flow_memory))


def coalesced(rel):
    """``rel`` with its pieces merged where isl can merge them, else as it is (the same relation
    either way): isl's coalescing fails on some fuzzed relations ("cannot relax redundant
    constraint", seeds 2004960 and 3022949)."""
    try:
        return rel.coalesce()
    except isl.Error:
        return rel


def last_access(sink: isl.UnionMap, source: isl.UnionMap, sched: isl.UnionMap,
                tree: isl.Schedule | None = None) -> isl.UnionMap:
    """Each instance of ``sink`` from the last instance of ``source`` before it, in the order of
    ``sched``, that touched its element (isl's dataflow analysis: the source to sink relation).
    Where isl cannot tell, or not within its budget (``exact_flow``), every earlier instance that
    touched it: a superset, which orders more and privatizes less, so is safe wherever the exact
    relation is used."""
    flow = exact_flow(sink, source, sched, tree)
    return flow.must_dependence if flow is not None else _memory_based(sink, source, sched)


@dataclass(frozen=True)
class Flow:
    """What isl's dataflow analysis found: each sink instance from its last source instance, and
    the sink instances that no source instance (certainly, possibly) wrote before."""

    must_dependence: isl.UnionMap
    must_no_source: isl.UnionMap
    may_no_source: isl.UnionMap


def exact_flow(sink: isl.UnionMap, source: isl.UnionMap, sched: isl.UnionMap,
               tree: isl.Schedule | None = None) -> Flow | None:
    """isl's dataflow analysis of ``sink`` from the must-sources ``source`` in the order of
    ``sched``, or None where isl cannot tell within DATAFLOW_MAX_OPERATIONS and DATAFLOW_BUDGET_S
    (callers then assume the worst). ``tree``, the same order as a schedule tree, is tried first:
    isl splits the problem along its sequences (about twice as fast on fuzzed programs of a dozen
    statements). It runs in a child process killed at the budget, as isl cannot be interrupted."""
    try:
        found = run_with_cpu_limit(lambda: _isl_flow(sink, source, sched, tree), DATAFLOW_BUDGET_S)
    except TimeLimitExceeded:
        return None
    if found is None:
        return None
    ctx = sink.get_ctx()
    return Flow(*(isl.UnionMap.read_from_str(ctx, text) for text in found))


def _isl_flow(sink: isl.UnionMap, source: isl.UnionMap, sched: isl.UnionMap,
              tree: isl.Schedule | None) -> tuple[str, str, str] | None:
    """The must-dependence, must-no-source and may-no-source relations, as text (they cross a
    process boundary), or None where isl cannot tell within DATAFLOW_MAX_OPERATIONS."""
    info = isl.UnionAccessInfo.from_sink(sink).set_must_source(source)
    # isl rejects some schedule maps with loops that run downward ("affine expression involves
    # some of the domain dimensions"); the same order as one band of a schedule tree often passes
    orders = [] if tree is None else [lambda: info.set_schedule(tree)]
    orders += [lambda: info.set_schedule_map(sched),
               lambda: info.set_schedule(isl.Schedule.from_domain(sched.domain()).insert_partial_schedule(
                   isl.MultiUnionPwAff.from_union_map(sched)))]
    for order in orders:
        try:
            with isl_operation_limit(DATAFLOW_MAX_OPERATIONS):
                flow = order().compute_flow()
        except isl.Error as error:
            if _out_of_quota(error):
                return None
            continue
        try:
            return (flow.get_must_dependence().to_str(), flow.get_must_no_source().to_str(),
                    flow.get_may_no_source().to_str())
        except isl.Error:
            # isl ran out of operations inside compute_flow and handed back a flow without its
            # relations (fuzz seed 2015706): it could not tell
            return None
    return None


def _memory_based(sink: isl.UnionMap, source: isl.UnionMap, sched: isl.UnionMap) -> isl.UnionMap:
    return source.apply_range(sink.reverse()).intersect(sched.lex_lt_union_map(sched))


def _out_of_quota(error: isl.Error) -> bool:
    return "maximal number of operations exceeded" in str(error)


def carries_conflict(scop: Scop, loop: Loop) -> bool:
    """Whether two iterations of ``loop`` (in one iteration of the loops around it) touch one
    element, one of them writing: what a loop must not do to run in parallel. Checked per pair of
    accesses (no exact flow analysis, no global execution order): cheap even on generated code,
    whose tiled domains make those slow."""
    return bool(conflicting_arrays(scop, loop, first_only=True))


def conflicting_arrays(scop: Scop, loop: Loop, first_only: bool = False) -> set[str]:
    """The arrays (and scalars) through which ``loop`` carries a conflict (see
    ``carries_conflict``); with ``first_only``, at most one of them."""
    inside = scop.statements_in(loop)
    dim = 2 * loop.depth + 1
    found: set[str] = set()
    for s in inside:
        for t in inside:
            for s_write, a in s.accesses:
                for t_write, b in t.accesses:
                    name = a.get_tuple_name(isl.dim_type.out)
                    if not (s_write or t_write) or name in found or name != b.get_tuple_name(isl.dim_type.out):
                        continue
                    times = a.apply_range(b.reverse()).apply_domain(s.schedule).apply_range(t.schedule)
                    delta = times.deltas()
                    for k in range(dim):
                        delta = delta.fix_val(isl.dim_type.set, k, isl.Val.zero(delta.get_ctx()))
                    if not delta.lower_bound_val(isl.dim_type.set, dim, isl.Val.one(delta.get_ctx())).is_empty():
                        found.add(name)
                        if first_only:
                            return found
    return found


def accesses_to(accesses: isl.UnionMap, array: str) -> isl.UnionMap:
    """The relations of ``accesses`` that reach ``array``."""
    out = isl.UnionMap.empty(accesses.get_space())
    for m in maps_of(accesses):
        if m.get_tuple_name(isl.dim_type.out) == array:
            out = out.union(isl.UnionMap.from_map(m))
    return out


def _in_schedule_space(deps: isl.UnionMap, scop: Scop) -> isl.UnionMap:
    sched = scop.schedule_map
    return deps.apply_domain(sched).apply_range(sched)


def carried_deltas(deps: isl.UnionMap, scop: Scop, loop: Loop) -> isl.Set | None:
    """Distance vectors (flat schedule space) of the dependences between instances of statements
    inside ``loop`` that the loop carries; None if none."""
    names = {s.name for s in scop.statements_in(loop)}
    restricted = deps.intersect_domain(_named_union(scop, names)).intersect_range(_named_union(scop, names))
    if restricted.is_empty():
        return None
    deltas = _in_schedule_space(restricted, scop).deltas()
    dim = 2 * loop.depth + 1
    found = None
    for c in sets_of(deltas):
        for k in range(dim):
            c = c.fix_val(isl.dim_type.set, k, isl.Val.zero(c.get_ctx()))
        c = c.lower_bound_val(isl.dim_type.set, dim, isl.Val.one(c.get_ctx()))
        if not c.is_empty():
            found = c if found is None else found.union(c)
    return found


def sets_of(u: isl.UnionSet) -> list[isl.Set]:
    out: list[isl.Set] = []
    u.foreach_set(out.append)
    return out


def maps_of(u: isl.UnionMap) -> list[isl.Map]:
    out: list[isl.Map] = []
    u.foreach_map(out.append)
    return out


def _named_union(scop: Scop, names: set[str]) -> isl.UnionSet:
    out = None
    for s in scop.statements:
        if s.name in names:
            u = isl.UnionSet.from_set(s.domain)
            out = u if out is None else out.union(u)
    return out


@dataclass(frozen=True)
class LoopInfo:
    loop: Loop
    parallel: bool              # no dependence of any kind is carried
    carried: tuple[str, ...]    # which kinds are carried ("flow", "anti", "output")
    carried_on: tuple[str, ...]  # containers with a carried dependence
    distances: str              # carried value-based flow distances at this loop ("1", "1..n", "*", "-")
    privatizable: tuple[str, ...] = ()  # scalars whose carried dependences vanish if each iteration has its own copy

    @property
    def parallel_if_privatized(self) -> bool:
        return not self.parallel and set(self.carried_on) <= set(self.privatizable)


def loop_info(scop: Scop, deps: Dependences, distances: bool = True) -> list[LoopInfo]:
    """Per loop of ``scop``, what it carries; ``distances``: the range of its carried flow
    distances too, a text for people that isl may take long to bound (strided subscripts)."""
    arrays = sorted({m.get_tuple_name(isl.dim_type.out) for m in maps_of(scop.reads.union(scop.writes))})
    per_array = {a: compute_dependences(scop, a) for a in arrays}
    out = []
    for loop in scop.loops:
        kinds: list[str] = []
        distance = "-"
        for kind, rel in (("flow", deps.flow_memory), ("anti", deps.anti), ("output", deps.output)):
            if carried_deltas(rel, scop, loop) is not None:
                kinds.append(kind)
        value_flow = carried_deltas(deps.flow, scop, loop)
        if value_flow is not None:
            distance = _range_text(value_flow, 2 * loop.depth + 1) if distances else "*"
        carried_on = {a for a, da in per_array.items() if any(
            carried_deltas(r, scop, loop) is not None for r in (da.flow_memory, da.anti, da.output))}
        value_carried = {a for a, da in per_array.items() if carried_deltas(da.flow, scop, loop) is not None}
        private = tuple(sorted(a for a in carried_on - value_carried if _is_scalar(scop, a) and a in scop.declared))
        out.append(LoopInfo(loop, not kinds, tuple(kinds), tuple(sorted(carried_on)), distance, private))
    return out


def _is_scalar(scop: Scop, name: str) -> bool:
    from s2s.ir import Scalar
    return isinstance(scop.sdfg.container_map.get(name), Scalar)


def _range_text(deltas: isl.Set, dim: int) -> str:
    try:
        return bound_text(deltas.dim_min(dim), deltas.dim_max(dim))
    except isl.Error:
        return "*"


def bound_text(lo: isl.PwAff, hi: isl.PwAff) -> str:
    """``"1"``, ``"0..n - 1"`` or ``"*"``: a readable range of one distance component."""

    def one(p: isl.PwAff) -> str:
        if p.n_piece() != 1:
            return "*"
        text = str(p)
        return text[text.rfind("[") + 1:text.rfind("]")].strip("() ") or "*"

    a, b = one(lo), one(hi)
    return a if a == b else f"{a}..{b}"
