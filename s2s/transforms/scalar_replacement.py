"""Array elements that an innermost loop of regenerated code uses in every iteration (``w[i]`` in
the loop over j, updated or only read), kept in a local variable for the loop's duration: loaded
before it, stored after it where the loop writes it.

Compilers do this only where they can tell the element from every other access of the loop;
through pointer arrays they cannot, and an update then goes through memory in every iteration
(a store, then a reload: several cycles added to each link of the chain). In a SCoP's
regenerated code s2s knows more than the compiler: distinct containers do not overlap where the
SCoP touches them (declared arrays, or pointers proven, or checked at run time, not to), so an
element is reached only through its own container, and every access of the loop to that
container is to that same element.

A loop whose other accesses reach such an element at one iteration only (``path[i][k]`` in
Floyd-Warshall's loop over j, written at ``j == k``) is split there (``loop_split``): the loops
before and after that iteration keep it in a local, and the compiler, which otherwise tests on
every row whether the element overlaps the row it writes, vectorizes them.

The load is guarded by the loop's first test: where the loop runs no iteration, the element is
not touched (it may not exist).
"""
from __future__ import annotations

import dataclasses
import itertools

from s2s.ir import (
    AccessNode, Array, Binary, Block, Cast, Const, ControlNode, DataflowGraph, Declare, Expr, For, IfElse, Memlet, Range,
    Scalar, Sequence, Storage, Sym, Tasklet, copy_graph,
)
from s2s.analysis.affine import AffineBuilder, NotAffine
from s2s.analysis.scop import wraps
from s2s.ir import expr as ex
from s2s.ir.rewrite import map_sequences
from s2s.transforms.loop_split import counted_upward, may_run_long, reached_only_at, split_at

SPLIT_MIN_TRIPS = 256   # a loop bounded below this many iterations is not split (loop_split.may_run_long)


@dataclasses.dataclass(frozen=True)
class _Element:
    data: str
    subset: tuple[Expr, ...]
    written: bool


def keep_elements_in_locals(seq: Sequence, containers: dict) -> tuple[Sequence, list[Scalar]]:
    """``seq`` (regenerated code of one SCoP) with the invariant elements of its innermost loops
    in locals, and those locals' containers (declared where they are used)."""
    taken = set(containers)
    added: list[Scalar] = []

    def fresh(base: str) -> str:
        for k in itertools.count():
            name = f"{base}_r{k}"
            if name not in taken:
                taken.add(name)
                return name
        raise AssertionError

    def with_locals(loop: For, elements: list[_Element]) -> ControlNode:
        locals_ = {}
        for e in elements:
            name = fresh(e.data)
            locals_[e] = name
            added.append(Scalar(name, containers[e.data].dtype, Storage.STACK))
        return _with_locals(loop, locals_)

    def fn(s: Sequence) -> Sequence:
        children: list[ControlNode] = []
        changed = False
        for child in s.children:
            if not isinstance(child, For):
                children.append(child)
                continue
            elements = _invariant_elements(child, containers)
            if elements:
                children.append(with_locals(child, elements))
                changed = True
                continue
            point = _split_point(child, containers)
            if point is not None:
                before, at, after = split_at(child, point).children
                outer = [(p, _invariant_elements(p, containers)) for p in (before, after)]
                if all(elements for _, elements in outer):
                    children += [with_locals(*outer[0]), at, with_locals(*outer[1])]
                    changed = True
                    continue
            children.append(child)
        return dataclasses.replace(s, children=tuple(children)) if changed else s

    out = map_sequences(seq, fn)
    return out, added  # type: ignore[return-value]


@dataclasses.dataclass(frozen=True)
class _ArrayUses:
    """The subscripts at which an innermost loop accesses one array: ``invariant``, those that do
    not change in it (pairwise different elements), and ``moving``, the others."""

    data: str
    invariant: list[tuple[Expr, ...]]
    moving: list[tuple[Expr, ...]]
    written: set[tuple[Expr, ...]]


def _array_uses(loop: For, containers: dict) -> tuple[set[str], list[_ArrayUses]]:
    """What ``loop`` (innermost: a body of dataflow blocks only, each of pure tasklets) changes
    (its variable and the scalars it writes), and per array it accesses at subscripts of which
    some do not change in it, those subscripts."""
    blocks = loop.body.children
    if not blocks or not all(isinstance(b, Block) for b in blocks):
        return set(), []
    edges: list[tuple[Memlet, bool]] = []
    for b in blocks:
        writes = b.graph.writes()
        for comp in b.graph.computations():
            if not isinstance(comp, Tasklet) or not ex.is_pure(comp.expr):
                return set(), []
        edges += [(e, e in writes) for e in b.graph.edges]
    changing = {loop.var} | {e.data for e, w in edges if w and isinstance(containers.get(e.data), Scalar)}
    by_data: dict[str, list[tuple[Memlet, bool]]] = {}
    for e, w in edges:
        by_data.setdefault(e.data, []).append((e, w))
    found = []
    for data, uses in sorted(by_data.items()):
        if not isinstance(containers.get(data), Array) or any(e.wcr for e, _ in uses):
            continue
        subsets = list(dict.fromkeys(e.subset for e, _ in uses))
        if not all(s and not any(isinstance(d, Range) for d in s) for s in subsets):
            continue
        invariant = [s for s in subsets if not set().union(*(ex.names(d) for d in s)) & changing]
        if not invariant or not _pairwise_apart(invariant):
            continue
        found.append(_ArrayUses(data, invariant, [s for s in subsets if s not in invariant],
                                {e.subset for e, w in uses if w}))
    return changing, found


def _invariant_elements(loop: For, containers: dict) -> list[_Element]:
    """The elements of arrays that ``loop`` accesses at one subscript that does not change in it,
    and that it reaches through no other subscript."""
    changing, arrays = _array_uses(loop, containers)
    found = []
    for uses in arrays:
        # (others that move with the loop: only where no iteration reaches a kept element through
        # them, trisolv's x[j] for j below the rows x[8 * c0 + r] that the loop updates)
        if uses.moving and (not _moves_with_loop_only(uses, changing, loop) or not all(
                _apart_in_loop(loop, k, m) for k in uses.invariant for m in uses.moving)):
            continue
        found += [_Element(uses.data, s, s in uses.written) for s in uses.invariant]
    return found


def _split_point(loop: For, containers: dict) -> Expr | None:
    """The one iteration of ``loop`` at which it reaches, through subscripts that move with it,
    the invariant elements it could otherwise keep in locals, where there is exactly one such
    iteration and the loop is written so that it can be split there (``loop_split``)."""
    if counted_upward(loop) is None:
        return None
    changing, arrays = _array_uses(loop, containers)
    if not any(uses.moving for uses in arrays) or not may_run_long(loop, SPLIT_MIN_TRIPS):
        return None
    points = []
    for uses in arrays:
        if not _moves_with_loop_only(uses, changing, loop):
            return None
        for k in uses.invariant:
            for m in uses.moving:
                if not _apart_in_loop(loop, k, m):
                    point = reached_only_at(loop, k, m)
                    if point is None:
                        return None
                    points.append(point)
    distinct = list(dict.fromkeys(points))
    if len(distinct) != 1:
        return None
    # (the point is an integer of the subscripts' values, i - 2 where i may be 0: the variables C
    # computes with modulo 2^n read as signed 64-bit numbers, whose arithmetic does not wrap)
    point = distinct[0]
    return ex.substitute(point, {n: Cast("long long", Sym(n)) for n in ex.names(point) if wraps(containers, n)})


def _moves_with_loop_only(uses: _ArrayUses, changing: set[str], loop: For) -> bool:
    """Whether the subscripts of ``uses`` that move with ``loop`` move only with its variable (not
    with a scalar the loop writes, whose values the loop's range does not tell)."""
    others = changing - {loop.var}
    return not any(ex.names(d) & others for s in uses.moving for d in s)


def _apart_in_loop(loop: For, kept: tuple[Expr, ...], moving: tuple[Expr, ...]) -> bool:
    """Whether subscripts ``moving`` reach element ``kept`` in no iteration of ``loop``, whatever
    the values of the variables around it (False where the loop's range is not affine)."""
    v = loop.var
    update = loop.update
    if not (isinstance(update, Binary) and update.op in ("+", "-") and update.lhs == Sym(v)
            and isinstance(update.rhs, Const) and update.rhs.int_value == 1):
        return False
    upward = update.op == "+"
    if not (isinstance(loop.cond, Binary) and loop.cond.lhs == Sym(v) and v not in ex.names(loop.cond.rhs)):
        return False
    names = sorted(set().union(*(ex.names(d) for d in kept + moving), ex.names(loop.init),
                               ex.names(loop.cond.rhs)) | {v})
    build = AffineBuilder([], names)
    try:
        var, first, bound = build.var(v), build.pw_aff(loop.init), build.pw_aff(loop.cond.rhs)
        same = [build.pw_aff(a).eq_set(build.pw_aff(b)) for a, b in zip(kept, moving)]
    except NotAffine:
        return False
    ranges = {"<": var.lt_set(bound), "<=": var.le_set(bound), ">": var.gt_set(bound), ">=": var.ge_set(bound)}
    if loop.cond.op not in ranges:
        return False
    reached = ranges[loop.cond.op].intersect(var.ge_set(first) if upward else var.le_set(first))
    for s in same:
        reached = reached.intersect(s)
    return reached.is_empty()


def _pairwise_apart(subsets: list[tuple[Expr, ...]]) -> bool:
    """Whether the subscripts are different elements whatever the values of their variables:
    each two differ by a constant other than 0 in some dimension (``w[i]`` and ``w[i + 1]``)."""
    if len(subsets) == 1:
        return True
    names = sorted(set().union(*(ex.names(d) for s in subsets for d in s)))
    build = AffineBuilder([], names)
    try:
        affs = [[build.pw_aff(d) for d in s] for s in subsets]
    except NotAffine:
        return False
    for a, b in itertools.combinations(affs, 2):
        if not any(_nonzero_constant(x.sub(y)) for x, y in zip(a, b)):
            return False
    return True


def _nonzero_constant(diff) -> bool:
    if not diff.is_cst() or diff.n_piece() != 1:
        return False
    ((_, aff),) = diff.get_pieces()
    return not aff.get_constant_val().is_zero()


def _with_locals(loop: For, locals_: dict[_Element, str]) -> ControlNode:
    """``{ T x = a[e]; for (...) ...x...; a[e] = x; }`` under the loop's first test."""
    renamed = {(e.data, e.subset): name for e, name in locals_.items()}
    body = Sequence(loop.body.id, tuple(_renamed_block(b, renamed) for b in loop.body.children),
                    loop.body.origin)
    new_loop = dataclasses.replace(loop, body=body)
    loads = tuple(Declare(f"D.{name}", name, init=_copy(f"load.{name}", e.data, e.subset, name, ()))
                  for e, name in locals_.items())
    stores = tuple(Block(f"B.store.{name}", _copy(f"store.{name}", name, (), e.data, e.subset).graph)
                   for e, name in locals_.items() if e.written)
    inner = Sequence(f"S.locals.{loop.id}", loads + (new_loop,) + stores)
    first = ex.substitute(loop.cond, {loop.var: loop.init})
    if _true_constant(first):
        return inner
    return IfElse(f"C.locals.{loop.id}", first, inner)


def _renamed_block(block: Block, renamed: dict[tuple[str, tuple], str]) -> Block:
    """``block`` with each access to a kept element going to its local: a memlet of such an
    element gets an access node of its own for the local (an access node may carry several
    elements); access nodes left without memlets go."""
    nodes = list(block.graph.nodes)
    edges = []
    for k, e in enumerate(block.graph.edges):
        name = renamed.get((e.data, e.subset))
        if name is None:
            edges.append(e)
            continue
        local = AccessNode(f"{block.id}.{name}.{k}", name)
        nodes.append(local)
        if isinstance(block.graph.node(e.src), AccessNode):
            e = dataclasses.replace(e, src=local.id)
        else:
            e = dataclasses.replace(e, dst=local.id)
        edges.append(dataclasses.replace(e, data=name, subset=()))
    used = {e.src for e in edges} | {e.dst for e in edges}
    kept = tuple(n for n in nodes if not isinstance(n, AccessNode) or n.id in used)
    return dataclasses.replace(block, graph=DataflowGraph(kept, tuple(edges)))


def _copy(tag: str, src: str, src_subset, dst: str, dst_subset) -> Block:
    return Block(f"B.{tag}", copy_graph(tag, src, src_subset, dst, dst_subset))


def _true_constant(e: Expr) -> bool:
    """Whether ``e`` is a comparison of two integer constants that holds."""
    if not (isinstance(e, Binary) and isinstance(e.lhs, Const) and isinstance(e.rhs, Const)):
        return False
    a, b = e.lhs.int_value, e.rhs.int_value
    if a is None or b is None:
        return False
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "!=": a != b, "==": a == b}.get(e.op, False)
