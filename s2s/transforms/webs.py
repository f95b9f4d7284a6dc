"""A scalar that several computations of a SCoP use apart, renamed: one variable per web.

deriche filters the rows of an image, then its columns, with the same scalars ``ym1``, ``ym2``
(each pass sets them to zero first): no value passes from one pass to the next, but the one
variable orders every pass after the others, and expansion (expansion.py) cannot give it a copy
per column, as no loop is around all its uses. A web of a scalar is a set of its accesses that
its values flow among (isl's exact dataflow, writer to reader, joined by statement); each web
but the first gets a variable of its own, and each pass then has its own scalars, which
expansion may give a copy per iteration of the loop around them.

A scalar is split when every read of it in the SCoP reads a value written in the SCoP (none from
before it) and nothing reads it after the SCoP, so that no web's value is seen from outside. A
scalar the SCoP declares (``float v = ...;`` in two loops: one container in the model) is split
where each web starts with a declaration of its own, with an initial value: the declaration is
renamed with the web, and code generation declares each name.
"""
from __future__ import annotations

import dataclasses
import re

import islpy as isl
import networkx as nx

from s2s.analysis import NotAffine, Scop, build_scop
from s2s.analysis.liveness import live_after
from s2s.analysis.scop import Statement
from s2s.ir import AccessNode, Block, ControlNode, DataflowGraph, Declare, For, IfElse, Scalar, Sequence, walk
from s2s.transforms.expansion import Expansion, fresh_names, own_flow


def split_webs(scop: Scop) -> Expansion | None:
    """``scop`` with each web of its scalars but the first (in the order of the code) renamed, as
    an expansion whose containers are the new scalars; None where no scalar has two webs."""
    containers = scop.sdfg.container_map
    fresh = fresh_names(set(containers) | {loop.node.var for loop in scop.loops})
    renames: dict[str, dict[str, str]] = {}   # block id -> {scalar: its web's name}
    scalars: list[Scalar] = []
    split: list[str] = []
    for name in sorted({m.get_tuple_name(isl.dim_type.out) for s in scop.statements for w, m in s.accesses if w}):
        data = containers.get(name)
        if not isinstance(data, Scalar) or data.address_taken:
            continue
        webs = _webs(scop, name)
        if len(webs) < 2 or name in scop.declared and not _declared_per_web(scop, name, webs):
            continue
        for number, web in enumerate(webs[1:], 2):
            new = fresh(f"{name}_{number}")
            declaration = data.declaration and re.sub(rf"\b{re.escape(name)}\b", new, data.declaration)
            scalars.append(dataclasses.replace(data, name=new, declaration=declaration))
            for st in web:
                renames.setdefault(st.block.id, {})[name] = new
        split.append(name)
    if not scalars:
        return None
    nodes = tuple(_rename(n, renames) for n in scop.nodes)
    try:
        rewritten = build_scop(dataclasses.replace(scop.sdfg, containers=tuple(scop.sdfg.containers) + tuple(scalars)),
                               Sequence(f"S.webs.{scop.nodes[0].id}", nodes), nodes, scop.params, rewrites=scop)
    except NotAffine:
        return None
    rewritten.fresh += tuple(s.name for s in scalars if s.name not in rewritten.declared)
    return Expansion(rewritten, tuple(scalars), (), None, (),
                     f"{', '.join(split)} split into a variable per computation (web) each")


def _webs(scop: Scop, name: str) -> list[list[Statement]]:
    """The webs of scalar ``name`` in the order of the code, each as its statements; one web
    where the scalar may not be split (module docstring)."""
    users = [s for s in scop.statements if any(m.get_tuple_name(isl.dim_type.out) == name for _, m in s.accesses)]
    writers = [s for s in users if any(w and m.get_tuple_name(isl.dim_type.out) == name for w, m in s.accesses)]
    # (each web has a writer: with one, isl's dataflow, a process of its own, is not asked)
    if len(writers) < 2 or name not in scop.declared and live_after(scop, {name}):
        return [users]
    flow = own_flow(scop, name)
    if flow is None:
        return [users]
    graph = nx.Graph()
    graph.add_nodes_from(s.name for s in users)
    graph.add_edges_from((d.get_tuple_name(isl.dim_type.in_), d.get_tuple_name(isl.dim_type.out)) for d in flow)
    webs = [sorted((s for s in users if s.name in web), key=lambda s: s.position)
            for web in nx.connected_components(graph)]
    return sorted(webs, key=lambda web: web[0].position)


def _declared_per_web(scop: Scop, name: str, webs: list[list[Statement]]) -> bool:
    """Whether each web of ``name``, a scalar the SCoP declares, starts with a declaration of its
    own: every declaration gives it an initial value, each web holds one of them."""
    found = [d for n in scop.nodes for d in walk(n) if isinstance(d, Declare) and d.name == name]
    if any(d.init is None for d in found):
        return False
    inits = {d.init.id for d in found}
    return all(sum(st.block.id in inits for st in web) == 1 for web in webs)


def _rename(node: ControlNode, renames: dict[str, dict[str, str]]) -> ControlNode:
    """``node`` with the accesses of each block in ``renames`` going to its webs' variables."""
    if isinstance(node, Block):
        names = renames.get(node.id)
        if not names:
            return node
        edges = tuple(dataclasses.replace(e, data=names[e.data]) if e.data in names else e for e in node.graph.edges)
        nodes = tuple(dataclasses.replace(n, data=names[n.data]) if isinstance(n, AccessNode) and n.data in names
                      else n for n in node.graph.nodes)
        return dataclasses.replace(node, graph=DataflowGraph(nodes, edges))
    if isinstance(node, Declare) and node.init is not None:
        names = renames.get(node.init.id, {})
        return dataclasses.replace(node, name=names.get(node.name, node.name), init=_rename(node.init, renames))
    if isinstance(node, Sequence):
        return dataclasses.replace(node, children=tuple(_rename(c, renames) for c in node.children))
    if isinstance(node, For):
        return dataclasses.replace(node, body=_rename(node.body, renames))
    if isinstance(node, IfElse):
        return dataclasses.replace(node, then=_rename(node.then, renames),
                                   other=None if node.other is None else _rename(node.other, renames))
    return node
