"""Scalar accumulators forwarded into the array element they end up in (the simplest case of
Polly's DeLICM: a scalar's values mapped onto an array element that is unused meanwhile).

ludcmp computes each ``A[i][j]`` as ``w = A[i][j]; for (k ..) w -= A[i][k] * A[k][j];
A[i][j] = w / A[j][j];``: every iteration of (i, j) writes and reads the one scalar ``w``, which
orders all of them (memory-based dependences) though no value passes from one to the next. With
``A[i][j]`` itself as the accumulator the nest is lu's, whose loops may be tiled and reordered;
``s = 0; for (k ..) s += A[i][k] * B[k][j]; C[i][j] = s;`` becomes a matrix multiply into ``C``
with no copy of it (expansion.py would need one).

A scalar ``s`` is forwarded into the element ``X[f]`` that one statement ``U`` stores it in when
- ``s`` is read only in the iteration of the loops around all its accesses that wrote it, never
  before the SCoP (isl's exact dataflow, as for expansion), and nothing reads it after the SCoP;
- ``U`` (``X[f] = g(s, ..)``, ``f`` in the variables of those loops, the same type as ``s``) is
  the last access of ``s`` in each iteration and the only one that reads it without writing it;
  the first is a write (``s = e``) in every iteration in which ``U`` runs, and only then;
- between that first write and ``U``, no statement touches ``X[f]`` of the same iteration, and
  ``U`` reads it only through ``s``;
- no other scalar forwarded into ``X`` has an access between those two in the text.
Every access of ``s`` then goes to ``X[f]``: ``X[f]`` takes its final value at ``U`` as before,
and nobody sees the values it holds in between. Copies of an element into itself that this leaves
(``w = A[i][j]``, ``C[i][j] = s``) are dropped.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import islpy as isl
import networkx as nx

from s2s.analysis import NotAffine, Scop, build_scop
from s2s.analysis.liveness import live_after
from s2s.analysis.scop import Statement
from s2s.ir import (
    AccessNode, Array, Block, ControlNode, DataflowGraph, Declare, ExprPrinter, For, IfElse, Scalar, Sequence,
    Sym, Tasklet,
)
from s2s.transforms.expansion import Expansion, common_loops, own_flow, within_iterations


@dataclass(frozen=True)
class Forwarding:
    scalar: str
    statements: frozenset[str]   # the accesses of one of its webs (values flow only among them)
    array: str
    subset: tuple     # the element's subscripts, in the variables of the loops around the web


def forwardable(scop: Scop) -> list[Forwarding]:
    """The webs of the scalars of ``scop`` that may live in the element they are stored to
    (module docstring)."""
    found = []
    containers = scop.sdfg.container_map
    written = sorted({m.get_tuple_name(isl.dim_type.out) for s in scop.statements for w, m in s.accesses if w})
    for name in written:
        if isinstance(containers.get(name), Scalar) and any(_may_store(s, name) for s in scop.statements):
            found += _forwardings(scop, name)
    return _apart(scop, found)


def _apart(scop: Scop, forwardings: list[Forwarding]) -> list[Forwarding]:
    """Those of ``forwardings`` (each proven alone) that may all be done, first come first kept:
    two into the same array must not interleave in the text. Each was checked against the code as
    written: ``a = i; b = j; X[f] = a + b;`` forwards ``a`` or ``b`` into ``X[f]``, not both
    (with both, ``X[f] = j`` overwrote ``a``'s value before the store read it)."""
    position = {s.name: s.position for s in scop.statements}
    spans = [(min(position[n] for n in f.statements), max(position[n] for n in f.statements)) for f in forwardings]
    kept: list[int] = []
    for i, f in enumerate(forwardings):
        if all(forwardings[k].array != f.array or spans[k][1] < spans[i][0] or spans[i][1] < spans[k][0]
               for k in kept):
            kept.append(i)
    return [forwardings[i] for i in kept]


def _may_store(stmt: Statement, name: str) -> bool:
    """Whether ``stmt`` could be the store of a web of ``name``: inside a loop, it reads the
    scalar without writing it and writes an array element (a cheap test before isl's dataflow)."""
    return (bool(stmt.loops) and _touches(stmt, name, write=False) and not _touches(stmt, name, write=True)
            and any(w and m.dim(isl.dim_type.out) > 0 for w, m in stmt.accesses))


def _forwardings(scop: Scop, name: str) -> list[Forwarding]:
    """Each web of ``name`` (statements joined by the flow of its values: ludcmp's ``w`` has
    four, one per loop nest) that may live in the element it is stored to."""
    dependences = own_flow(scop, name)
    if dependences is None or (name not in scop.declared and live_after(scop, {name})):
        return []   # (unknown, a value from before the SCoP read, or one read after it)
    users = [s for s in scop.statements if _touches(s, name, True) or _touches(s, name, False)]
    webs = nx.Graph()
    webs.add_nodes_from(s.name for s in users)
    webs.add_edges_from((d.get_tuple_name(isl.dim_type.in_), d.get_tuple_name(isl.dim_type.out)) for d in dependences)
    found = []
    for web in nx.connected_components(webs):
        statements = [s for s in users if s.name in web]
        within = [d for d in dependences if d.get_tuple_name(isl.dim_type.in_) in web]
        forwarding = _forwarding(scop, name, statements, within)
        if forwarding is not None:
            found.append(forwarding)
    return found


def _forwarding(scop: Scop, name: str, users: list[Statement], dependences: list[isl.Map]) -> Forwarding | None:
    common = common_loops(users)
    if common == 0 or not within_iterations(dependences, common):
        return None
    reading = [s for s in users if _touches(s, name, write=False)]
    uses = [s for s in reading if not _touches(s, name, write=True)]
    if len(uses) != 1 or len(uses[0].loops) != common:
        return None
    store = uses[0]
    first = min(users, key=lambda s: s.position)
    iterations = _projected(store, common)
    if (store.position != max(s.position for s in users) or first is store or len(first.loops) != common
            or _touches(first, name, write=False) or len(first.block.graph.writes()) != 1
            or not _projected(first, common).is_equal(iterations)):
        return None
    if any(not _projected(s, common).is_subset(iterations) for s in users):
        return None   # (a write of s in an iteration where nothing stores it)
    writes = store.block.graph.writes()
    scalar = scop.sdfg.container_map[name]
    if len(writes) != 1 or not writes[0].subset or writes[0].wcr is not None:
        return None
    target = scop.sdfg.container_map.get(writes[0].data)
    if not isinstance(target, Array) or target.dtype != scalar.dtype:
        return None   # (accumulated in another type, the sums would round differently)
    element = _element(store, writes[0].data)
    if element is None or any(not m.intersect(element).is_empty() for m in _reads(store, writes[0].data)):
        return None   # U reads the element other than through s
    between = [s for s in scop.statements if s.position[:common] == first.position[:common]
               and first.position[common] < s.position[common] < store.position[common]]
    for s in between:
        if not _accesses_of(s, writes[0].data).intersect(_per_iteration(s, store, common, element)).is_empty():
            return None
    return Forwarding(name, frozenset(s.name for s in users), writes[0].data, tuple(writes[0].subset))


def _touches(stmt: Statement, name: str, write: bool) -> bool:
    return any(w == write and m.get_tuple_name(isl.dim_type.out) == name for w, m in stmt.accesses)


def _projected(stmt: Statement, common: int) -> isl.Set:
    """The iterations of the outer ``common`` loops in which ``stmt`` runs (as an unnamed set)."""
    d = stmt.domain
    return d.project_out(isl.dim_type.set, common, d.dim(isl.dim_type.set) - common).reset_tuple_id()


def _element(store: Statement, array: str) -> isl.Map | None:
    maps = [m for w, m in store.accesses if w and m.get_tuple_name(isl.dim_type.out) == array]
    return maps[0] if len(maps) == 1 else None


def _reads(stmt: Statement, array: str) -> list[isl.Map]:
    return [m for w, m in stmt.accesses if not w and m.get_tuple_name(isl.dim_type.out) == array]


def _accesses_of(stmt: Statement, array: str) -> isl.UnionMap:
    out = isl.UnionMap.empty(isl.Space.params_alloc(stmt.domain.get_ctx(), 0))
    for _, m in stmt.accesses:
        if m.get_tuple_name(isl.dim_type.out) == array:
            out = out.union(isl.UnionMap.from_map(m.intersect_domain(stmt.domain)))
    return out


def _per_iteration(stmt: Statement, store: Statement, common: int, element: isl.Map) -> isl.UnionMap:
    """Each instance of ``stmt`` to the element ``store`` stores to in the same iteration of the
    outer ``common`` loops."""
    names = [f"c{d}" for d in range(len(stmt.iterators))]
    to_store = isl.Map(f"{{ {stmt.name}[{', '.join(names)}] -> {store.name}[{', '.join(names[:common])}] }}")
    return isl.UnionMap.from_map(to_store.intersect_domain(stmt.domain).apply_range(element))


def forward(scop: Scop, forwardings: list[Forwarding]) -> Expansion | None:
    """``scop`` with each of ``forwardings`` done, as an expansion without copies (None where the
    rewritten code is not one the polyhedral model can describe)."""
    by_block = {st.block.id: f for f in forwardings for st in scop.statements if st.name in f.statements}
    users: dict[str, set[str]] = {}
    for st in scop.statements:
        for _, m in st.accesses:
            users.setdefault(m.get_tuple_name(isl.dim_type.out), set()).add(st.name)
    gone = {f.scalar for f in forwardings
            if users[f.scalar] <= {n for g in forwardings if g.scalar == f.scalar for n in g.statements}}
    nodes = tuple(n for n in (_rewrite(n, by_block, gone) for n in scop.nodes) if n is not None)
    if not nodes:
        return None
    try:
        rewritten = build_scop(scop.sdfg, Sequence(f"S.forwarded.{scop.nodes[0].id}", nodes), nodes, scop.params,
                               rewrites=scop)
    except NotAffine:
        return None
    printer = ExprPrinter()
    notes = dict.fromkeys(f"{f.scalar} accumulated in {f.array}" + "".join(f"[{printer(e)}]" for e in f.subset)
                          for f in forwardings)
    return Expansion(rewritten, (), (), None, (), ", ".join(notes))


def _rewrite(node: ControlNode, by_block: dict[str, Forwarding], gone: set[str]) -> ControlNode | None:
    """``node`` with the accesses of each forwarded statement (by block id) to its scalar going to
    the element; declarations of scalars ``gone`` altogether dropped (their initializations kept,
    rewritten)."""
    if isinstance(node, Block):
        f = by_block.get(node.id)
        if f is None:
            return node
        edges = tuple(dataclasses.replace(e, data=f.array, subset=f.subset) if e.data == f.scalar else e
                      for e in node.graph.edges)
        nodes = tuple(dataclasses.replace(n, data=f.array) if isinstance(n, AccessNode) and n.data == f.scalar else n
                      for n in node.graph.nodes)
        block = dataclasses.replace(node, graph=DataflowGraph(nodes, edges))
        return None if _copies_into_itself(block) else block
    if isinstance(node, Declare) and node.init is not None and node.init.id in by_block:
        init = _rewrite(node.init, by_block, gone)
        if node.name in gone:
            return init
        kept = dataclasses.replace(node, init=None)
        return kept if init is None else Sequence(f"{node.id}.split", (kept, init))
    if isinstance(node, Declare) and node.name in gone:
        return None
    if isinstance(node, Sequence):
        children = (_rewrite(c, by_block, gone) for c in node.children)
        return dataclasses.replace(node, children=tuple(c for c in children if c is not None))
    if isinstance(node, For):
        return dataclasses.replace(node, body=_rewrite(node.body, by_block, gone))
    if isinstance(node, IfElse):
        return dataclasses.replace(node, then=_rewrite(node.then, by_block, gone),
                                   other=None if node.other is None else _rewrite(node.other, by_block, gone))
    return node


def _copies_into_itself(block: Block) -> bool:
    """``X[f] = X[f]``: one tasklet passing its one input on to the element it was read from."""
    graph = block.graph
    tasklets = [n for n in graph.nodes if isinstance(n, Tasklet)]
    if len(tasklets) != 1 or len(graph.writes()) != 1 or len(graph.reads()) != 1:
        return False
    (tasklet,), (write,), (read,) = tasklets, graph.writes(), graph.reads()
    return (tasklet.expr == Sym(read.dst_conn) and write.wcr is None and write.data == read.data
            and tuple(write.subset) == tuple(read.subset))
