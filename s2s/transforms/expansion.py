"""Scratch arrays expanded along loops, so that each iteration of the loops has a copy of its own.

doitgen computes a row ``sum[p]`` for each (r, q) and copies it into ``A[r][q][p]``: all the
iterations of q overwrite the one ``sum``, which orders them (memory-based dependences) though no
value passes from one to the next. With a row per q, ``sum_x[q][p]``, those dependences are gone
and the reduction is a matrix multiply, ``sum_x[q][p] += A[r][q][s] * C4[s][p]`` (array
expansion in Feautrier's sense, along one loop). A scalar accumulator of a dot product per
(i, j) that cannot live in the element it is stored to (accumulators.py), symm's ``temp2``,
becomes a matrix multiply expanded along the two loops around it: ``s_x[i][j] += A[i][k] *
B[k][j]``.

An array (or scalar) is expanded along the ``depth`` innermost of the loops around every
statement of the SCoP that touches it when
- every read of it reads a value written in the same iteration of those loops and of the loops
  around them (isl's exact dataflow), never one from before the SCoP;
- the values of each loop's variable form one interval, affine in the parameters (the new
  dimensions; a loop whose range moves with an outer one gets the interval of all its values).
The original array then receives what the user's code leaves in it: each element from the copy of
the iteration that wrote it last, by a copy statement at the end of the SCoP (so only where that
iteration is one affine function of the parameters and the elements written form a box). A
scalar declared inside the SCoP ends its life there: nothing is copied back.
The copies live on the heap; code generation runs the new code only when the allocation
succeeded, and the user's loops otherwise.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass

import islpy as isl

from s2s.analysis import NotAffine, Scop, build_scop
from s2s.analysis.affine import is_product
from s2s.analysis.dependences import accesses_to, exact_flow, maps_of
from s2s.analysis.liveness import live_after
from s2s.analysis.scop import Loop, Statement
from s2s.ir import (
    AccessNode, Array, Binary, Block, Call, Cast, Const, ControlNode, DataflowGraph, Declare, Expr, ExprPrinter,
    For, IfElse, Memlet, Opaque, Scalar, SizeOf, Sequence, Storage, Sym, Tasklet, Ternary, copy_graph, scalar_type,
)
from s2s.schedule.codegen import ast_expr_to_ir, signed_parameters
from s2s.time_limit import isl_operation_limit


@dataclass(frozen=True)
class ScratchArray:
    name: str
    loops: tuple[Loop, ...]     # the loops it is expanded along, outermost first
    lowest: tuple[isl.Aff, ...]   # the least value of each loop's variable (where its dimension starts)
    count: tuple[isl.PwAff, ...]  # how many values each takes
    last: tuple[isl.Aff, ...] | None   # the iteration that leaves each element its final value (of
                                       # the parameters); None: declared in the SCoP, nothing copied back
    written: isl.Set | None     # the elements the SCoP writes (None: nothing copied back)
    # per dimension, how far the SCoP reaches into it where the array's declaration does not say
    # (a pointer parameter, ``double *sum`` or ``double A[][40]``): None where it does
    reach: tuple[isl.PwAff | None, ...] = ()


@dataclass(frozen=True)
class Expansion:
    """A SCoP rewritten on expanded copies of its scratch arrays, with what code generation puts
    around it: the copies' allocation, the condition that it succeeded, and their release. (A
    SCoP rewritten without copies, accumulators.py's or webs.py's, has none of these; ``then``
    puts one rewriting after another.)"""

    scop: Scop
    containers: tuple[Array | Scalar, ...]   # the copies, and the variables of the loops copying back
    allocations: tuple[Declare, ...]
    allocated: Expr | None                   # None: nothing to allocate
    releases: tuple[ControlNode, ...]
    note: str
    along: tuple[tuple[str, int], ...] = ()   # per array, how many loops it is expanded along

    @property
    def copies(self) -> bool:
        return bool(self.allocations)


def scratch_arrays(scop: Scop, depth: int = 1, names: set[str] | None = None) -> list[ScratchArray]:
    """The arrays and scalars of ``scop`` (of ``names``, where given) that may be expanded, each
    along the ``depth`` innermost loops around all its accesses or all of them where it has fewer
    (see the module docstring)."""
    found = []
    for name in sorted({m.get_tuple_name(isl.dim_type.out) for m in maps_of(scop.writes)}):
        if names is not None and name not in names:
            continue
        scratch = _scratch(scop, name, depth)
        if scratch is not None:
            found.append(scratch)
    return found


def _scratch(scop: Scop, name: str, depth: int) -> ScratchArray | None:
    data = scop.sdfg.container_map.get(name)
    flat = name in scop.delinearized or name in scop.channels or name in scop.grids
    if not isinstance(data, (Scalar, Array)) or flat:
        return None
    reach = _reach(scop, name, data) if isinstance(data, Array) else ()
    if reach is None:
        return None
    users = [s for s in scop.statements if any(m.get_tuple_name(isl.dim_type.out) == name for _, m in s.accesses)]
    common = common_loops(users)
    if common == 0:
        return None
    loops = tuple(users[0].loops[max(common - depth, 0):common])
    if not _values_stay_in_iterations(scop, name, common):
        return None
    writes = accesses_to(scop.writes, name)
    lowest, count = [], []
    for loop in loops:
        low, high = _interval(users, loop.depth)
        if low is None:
            return None
        lowest.append(low)
        count.append(high.sub(isl.PwAff.from_aff(low)).add(isl.PwAff.val_on_domain(high.domain(), isl.Val.one(high.get_ctx()))))
    if name in scop.declared or isinstance(data, Scalar) and not live_after(scop, {name}):
        return ScratchArray(name, loops, tuple(lowest), tuple(count), None, None, reach)
    written = writes.range()
    written = isl.Set.from_union_set(written) if not written.is_empty() else None
    if written is None or not _is_box(written):
        return None
    times = isl.Map.from_union_map(writes.reverse().apply_range(scop.schedule_map).lexmax())
    last = []
    for loop in loops:
        at = times.dim_max(2 * loop.depth + 1)
        aff = _one_affine(at.neg() if loop.step < 0 else at)
        if aff is None:
            return None
        rank = aff.dim(isl.dim_type.in_)
        if aff.involves_dims(isl.dim_type.in_, 0, rank):
            return None   # elements were left by different iterations
        last.append(aff.drop_dims(isl.dim_type.in_, 0, rank).project_domain_on_params())
    return ScratchArray(name, loops, tuple(lowest), tuple(count), tuple(last), written, reach)


def _reach(scop: Scop, name: str, data: Array) -> tuple[isl.PwAff | None, ...] | None:
    """Per dimension of ``name`` whose extent is not declared, one past the greatest subscript the
    SCoP reaches (what an expanded copy must hold); None where a subscript may be negative."""
    if all(d is not None for d in data.shape):
        return tuple(None for _ in data.shape)
    touched = accesses_to(scop.reads, name).union(accesses_to(scop.writes, name)).range()
    if touched.is_empty():
        return None
    touched = isl.Set.from_union_set(touched)
    out: list[isl.PwAff | None] = []
    for d, extent in enumerate(data.shape):
        if extent is not None:
            out.append(None)
            continue
        low = touched.dim_min(d)
        if not low.nonneg_set().is_equal(low.domain()):
            return None
        high = touched.dim_max(d)
        out.append(high.add(isl.PwAff.val_on_domain(high.domain(), isl.Val.one(high.get_ctx()))))
    return tuple(out)


def common_loops(statements: list[Statement]) -> int:
    """How many loops are around all of ``statements``."""
    common = 0
    while statements and all(len(s.loops) > common and s.loops[common].node.id == statements[0].loops[common].node.id
                             for s in statements):
        common += 1
    return common


def within_iterations(dependences: list[isl.Map], common: int) -> bool:
    """Whether each of ``dependences`` joins instances of one iteration of the outer ``common``
    loops."""
    for dep in dependences:
        same = dep
        for d in range(common):
            same = same.equate(isl.dim_type.in_, d, isl.dim_type.out, d)
        if not dep.is_subset(same):
            return False
    return True


def own_flow(scop: Scop, name: str) -> list[isl.Map] | None:
    """The flow of ``name``'s values within ``scop`` (isl's exact dataflow, writer instance to
    reader instance); None where isl cannot tell, or a read takes a value from before the SCoP."""
    flow = exact_flow(accesses_to(scop.reads, name), accesses_to(scop.writes, name), scop.schedule_map,
                      scop.schedule_tree)
    if flow is None or not flow.must_no_source.is_empty() or not flow.may_no_source.is_empty():
        return None
    return maps_of(flow.must_dependence)


def _values_stay_in_iterations(scop: Scop, name: str, common: int) -> bool:
    """Whether every read of ``name`` in ``scop`` reads a value written in the same iteration of
    its ``common`` outermost loops, none from before the SCoP."""
    flow = own_flow(scop, name)
    return flow is not None and within_iterations(flow, common)


def _interval(users, depth: int) -> tuple[isl.Aff | None, isl.PwAff | None]:
    """The least value of the loop at ``depth`` over the statements ``users`` (one affine
    function of the parameters, or None) and its greatest."""
    lows = [s.domain.dim_min(depth) for s in users]
    highs = [s.domain.dim_max(depth) for s in users]
    low, high = lows[0], highs[0]
    for a, b in zip(lows[1:], highs[1:]):
        low, high = low.union_min(a), high.union_max(b)
    lowest, highest = _one_affine(low), _one_affine(high)
    if lowest is None or highest is None:
        return None, None
    return lowest, isl.PwAff.from_aff(highest)


def _one_affine(f: isl.PwAff) -> isl.Aff | None:
    """The one affine function that is ``f`` wherever ``f`` is defined (isl may leave it in pieces
    that agree: the last i of a loop ``0 <= i < m`` is 0 where m = 1 and m - 1 beyond), or None."""
    f = f.coalesce()
    for _, aff in f.get_pieces():
        if isl.PwAff.from_aff(aff).intersect_domain(f.domain()).is_equal(f):
            return aff
    return None


BOX_OPERATIONS = 2_000_000   # isl's steps to tell whether an expanded array's copy back is a box


def _is_box(elements: isl.Set) -> bool:
    """Whether the copy back's loops, one per dimension from its least to its greatest value,
    visit exactly ``elements``: each dimension's bounds are independent of the others (the set
    is a product; the conditions on the parameters alone, a scalar's ``m > 0``, guard the copy
    back), and no dimension skips values (``A[j]`` for j = 0, 3, 6: a stride)."""
    try:
        # (the hull of a flat array's elements written through a permuted linearization of
        # run-time sizes, f[(q * 200 + x) * 150 + y] with x < nx, ran for minutes)
        with isl_operation_limit(BOX_OPERATIONS):
            hull = isl.Set.from_basic_set(elements.polyhedral_hull())
            return is_product(elements) and hull.is_equal(elements)
    except isl.Error:
        return False


def expand(scop: Scop, scratch: list[ScratchArray]) -> Expansion | None:
    """``scop`` with each of ``scratch`` expanded along its loops; None where the expanded code is
    not one the polyhedral model can describe (an expanded array whose rows it cannot tell apart)."""
    containers = scop.sdfg.container_map
    build = isl.AstBuild.from_context(scop.context)
    signed = signed_parameters(scop)

    def expr_of(pa: isl.PwAff | isl.Aff) -> Expr:
        if isinstance(pa, isl.Aff):
            pa = isl.PwAff.from_aff(pa)
        return ast_expr_to_ir(build.expr_from_pw_aff(pa), signed)

    taken = set(containers) | {l.node.var for l in scop.loops}
    fresh = fresh_names(taken)
    arrays: list[Array] = []
    renames: dict[str, tuple[str, tuple[Expr, ...]]] = {}
    allocations: list[Declare] = []
    copies: list[ControlNode] = []
    counters: list[Scalar] = []
    for s in scratch:
        data = containers[s.name]
        shape = tuple(d if d is not None else _at_least_one(expr_of(s.reach[k]))
                      for k, d in enumerate(data.shape)) if isinstance(data, Array) else ()
        new = fresh(f"{s.name}_x")
        offsets = [expr_of(low) for low in s.lowest]
        index = tuple(_minus(Sym(loop.node.var), offset) for loop, offset in zip(s.loops, offsets))
        renames[s.name] = (new, index)
        count, *rows = [expr_of(c) for c in s.count]
        rows = [_at_least_one(r) for r in rows]   # (a dimension of a variably modified type must be)
        row = "".join(f"[{ExprPrinter()(d)}]" for d in (*rows, *shape))
        pointer = f"{data.dtype.spelling} (*{new}){row}" if row else f"{data.dtype.spelling} *{new}"
        array = Array(new, data.dtype, (count, *rows, *shape), Storage.HEAP, declaration=pointer)
        arrays.append(array)
        allocations.append(heap_allocation(array, count, (*rows, *shape), pointer.replace(new, "", 1)))
        if s.last is not None:
            last = tuple(_minus(expr_of(at), offset) for at, offset in zip(s.last, offsets))
            copies.append(_copy_back(s, new, last, build, signed, fresh, counters))
    nodes = tuple(n for n in (_rewrite(n, renames) for n in scop.nodes) if n is not None) + tuple(copies)
    sdfg = dataclasses.replace(scop.sdfg, containers=tuple(scop.sdfg.containers) + tuple(arrays) + tuple(counters))
    parent = Sequence(f"S.expanded.{scop.nodes[0].id}", nodes)
    try:
        expanded = build_scop(sdfg, parent, nodes, scop.params, rewrites=scop)
    except NotAffine:
        return None
    allocated = None
    for a in arrays:
        cond = Binary("!=", Sym(a.name), Const("0"))
        allocated = cond if allocated is None else Binary("&&", allocated, cond)
    releases = tuple(Opaque(f"O.free.{a.name}", f"__builtin_free({a.name});", "release of an expanded array")
                     for a in arrays)
    along: dict[str, list[str]] = {}
    for s in scratch:
        along.setdefault(" and ".join(loop.node.var for loop in s.loops), []).append(s.name)
    note = ", ".join(f"{', '.join(names)} expanded along {loops}" for loops, names in along.items())
    return Expansion(expanded, tuple(arrays) + tuple(counters), tuple(allocations), allocated, releases, note,
                     tuple((s.name, len(s.loops)) for s in scratch))


def then(first: Expansion, second: Expansion | None) -> Expansion:
    """``second``, a rewriting of ``first``'s SCoP, with what ``first`` needs around it too."""
    if second is None:
        return first
    allocated = first.allocated if second.allocated is None else second.allocated if first.allocated is None else \
        Binary("&&", first.allocated, second.allocated)
    return Expansion(second.scop, first.containers + second.containers, first.allocations + second.allocations,
                     allocated, second.releases + first.releases, "; ".join(filter(None, (first.note, second.note))),
                     first.along + second.along)


def _minus(e: Expr, offset: Expr) -> Expr:
    return e if offset == Const("0") else Binary("-", e, offset)


def fresh_names(taken: set[str]):
    def fresh(base: str) -> str:
        name = base
        for k in itertools.count(1):
            if name not in taken:
                break
            name = f"{base}{k}"
        taken.add(name)
        return name

    return fresh


def heap_allocation(array: Array, count: Expr, shape, pointer_type: str) -> Declare:
    """``T (*x)[d1]... = (T (*)[d1]...) __builtin_malloc(sizeof(T) * count * d1 * ...)`` (at
    least one row, so that an empty loop does not look like a failed allocation)."""
    size: Expr = Binary("*", SizeOf(array.dtype.spelling), _at_least_one(count))
    for d in shape:
        size = Binary("*", size, d)
    value = Cast(pointer_type, Call("__builtin_malloc", (size,)))
    tasklet = Tasklet(f"T.alloc.{array.name}", (), "out", value)
    block = Block(f"B.alloc.{array.name}", DataflowGraph(
        (tasklet, AccessNode(f"A.alloc.{array.name}", array.name)),
        (Memlet(tasklet.id, "out", f"A.alloc.{array.name}", None, array.name, ()),)))
    return Declare(f"D.alloc.{array.name}", array.name, init=block)


def _at_least_one(e: Expr) -> Expr:
    if isinstance(e, Const) and e.int_value is not None and e.int_value >= 1:
        return e
    return Ternary(Binary(">", e, Const("0")), e, Const("1"))


def _copy_back(s: ScratchArray, new: str, last: tuple[Expr, ...], build: isl.AstBuild, signed: dict[str, Expr], fresh,
               counters: list[Scalar]) -> ControlNode:
    """``x[e] = x_x[last][e]`` for the written elements ``e`` (loops over the box, under the
    condition on the parameters that anything was written)."""
    rank = s.written.dim(isl.dim_type.set)
    names = [fresh(f"{s.name}_e{d}") for d in range(rank)]
    counters.extend(Scalar(n, scalar_type("int"), Storage.STACK) for n in names)
    element = tuple(Sym(n) for n in names)
    body: ControlNode = Block(f"Bcopy_{s.name}", copy_graph(f"copy.{s.name}", new, last + element, s.name, element))
    for d in reversed(range(rank)):
        lo = ast_expr_to_ir(build.expr_from_pw_aff(s.written.dim_min(d)), signed)
        hi = ast_expr_to_ir(build.expr_from_pw_aff(s.written.dim_max(d)), signed)
        var = Sym(names[d])
        body = For(f"L.copy.{s.name}.{d}", names[d], lo, Binary("<=", var, hi), Binary("+", var, Const("1")),
                   Sequence(f"S.copy.{s.name}.{d}", (body,)), declares_var=True)
    guard = ast_expr_to_ir(build.expr_from_set(s.written.params()), signed)
    if guard == Const("1"):
        return Sequence(f"S.copy.{s.name}", (body,))
    return IfElse(f"C.copy.{s.name}", guard, Sequence(f"S.copy.{s.name}", (body,)))


def _rewrite(node: ControlNode, renames: dict[str, tuple[str, tuple[Expr, ...]]]) -> ControlNode | None:
    """``node`` with each access to a renamed container going to its expanded copy (a renamed
    scalar's declaration becomes its initialization, or nothing)."""
    if isinstance(node, Block):
        edges = tuple(dataclasses.replace(e, data=renames[e.data][0], subset=renames[e.data][1] + tuple(e.subset))
                      if e.data in renames else e for e in node.graph.edges)
        nodes = tuple(dataclasses.replace(n, data=renames[n.data][0])
                      if isinstance(n, AccessNode) and n.data in renames else n for n in node.graph.nodes)
        return dataclasses.replace(node, graph=DataflowGraph(nodes, edges))
    if isinstance(node, Declare) and node.name in renames:
        return None if node.init is None else _rewrite(node.init, renames)
    if isinstance(node, Declare) and node.init is not None:
        # (its initial value may read a renamed container: ``double v = 0.5 * s`` with s expanded)
        return dataclasses.replace(node, init=_rewrite(node.init, renames))
    if isinstance(node, Sequence):
        children = (_rewrite(c, renames) for c in node.children)
        return dataclasses.replace(node, children=tuple(c for c in children if c is not None))
    if isinstance(node, For):
        return dataclasses.replace(node, body=_rewrite(node.body, renames))
    if isinstance(node, IfElse):
        return dataclasses.replace(node, then=_rewrite(node.then, renames),
                                   other=None if node.other is None else _rewrite(node.other, renames))
    return node
