"""Checking an SDFG's invariants. Each problem names the function, the element and the rule."""
from __future__ import annotations

from s2s.errors import ValidationError
from s2s.ir import expr as ex
from s2s.ir.control import LOOPS, Block, Break, Continue, ControlNode, Declare, For, Map, child_nodes
from s2s.ir.data import Array, Scalar
from s2s.ir.dataflow import AccessNode, LibraryNode, Tasklet
from s2s.ir.sdfg import SDFG, TranslationUnit


def problems(sdfg: SDFG) -> list[str]:
    """Every invariant violation in ``sdfg`` (empty when valid)."""
    out: list[str] = []
    containers = sdfg.container_map
    where = sdfg.name

    if len(containers) != len(sdfg.containers):
        out.append(f"{where}: duplicate container names")
    for p in sdfg.params:
        if p not in containers:
            out.append(f"{where}: parameter {p!r} has no container")

    seen: set[str] = set()

    def visit(node: ControlNode, loop_depth: int) -> None:
        if node.id in seen:
            out.append(f"{where}: element id {node.id!r} is used twice")
        seen.add(node.id)
        if isinstance(node, (Break, Continue)) and loop_depth == 0:
            out.append(f"{where}/{node.id}: {type(node).__name__.lower()} outside a loop")
        if isinstance(node, (For, Map)) and not isinstance(containers.get(node.var), Scalar):
            out.append(f"{where}/{node.id}: loop variable {node.var!r} is not a scalar container")
        if isinstance(node, Map):
            out.extend(f"{where}/{node.id}: private copies of {name!r}, which is not a container"
                       for name in node.private if not isinstance(containers.get(name), (Array, Scalar)))
            out.extend(f"{where}/{node.id}: reduction into {name!r}, which is not a scalar container"
                       for name, _ in node.reductions if not isinstance(containers.get(name), Scalar))
        if isinstance(node, Declare) and node.name not in containers:
            out.append(f"{where}/{node.id}: declares unknown container {node.name!r}")
        if isinstance(node, Block):
            out.extend(_block_problems(sdfg, node))
        inner = loop_depth + 1 if isinstance(node, LOOPS) else loop_depth
        for c in child_nodes(node):
            visit(c, inner)

    visit(sdfg.body, 0)
    return out


def _block_problems(sdfg: SDFG, block: Block) -> list[str]:
    out: list[str] = []
    where = f"{sdfg.name}/{block.id}"
    g = block.graph
    containers = sdfg.container_map
    ids = [n.id for n in g.nodes]
    if len(set(ids)) != len(ids):
        out.append(f"{where}: duplicate dataflow node ids")
    known = set(ids)
    for e in g.edges:
        if e.src not in known or e.dst not in known:
            out.append(f"{where}: memlet {e.src}->{e.dst} names a missing node")
            continue
        data = containers.get(e.data)
        if data is None:
            out.append(f"{where}: memlet on unknown container {e.data!r}")
        elif isinstance(data, Array) and len(e.subset) != data.rank:
            out.append(f"{where}: memlet on {e.data} has {len(e.subset)} subscripts, rank is {data.rank}")
        elif not isinstance(data, Array) and e.subset:
            out.append(f"{where}: memlet on scalar {e.data} has a subset")
        for n in (e.src, e.dst):
            node = g.node(n) if n in known else None
            if isinstance(node, AccessNode) and node.data != e.data:
                out.append(f"{where}: memlet data {e.data!r} differs from access node {node.id} ({node.data})")
    for n in g.nodes:
        if isinstance(n, AccessNode) and n.data not in containers:
            out.append(f"{where}: access node {n.id} of unknown container {n.data!r}")
        if isinstance(n, (Tasklet, LibraryNode)):
            incoming = [e.dst_conn for e in g.in_edges(n.id)]
            for conn in n.inputs:
                if incoming.count(conn) != 1:
                    out.append(f"{where}: input connector {n.id}.{conn} has {incoming.count(conn)} memlets, needs 1")
            outs = [e.src_conn for e in g.out_edges(n.id)]
            for conn in (n.outputs if isinstance(n, LibraryNode) else ([n.output] if n.output else [])):
                if outs.count(conn) != 1:
                    out.append(f"{where}: output connector {n.id}.{conn} has {outs.count(conn)} memlets, needs 1")
        if isinstance(n, Tasklet):
            for sub in ex.walk(n.expr):
                if isinstance(sub, ex.Access):
                    out.append(f"{where}: tasklet {n.id} reads {sub.name}[...] directly instead of through a memlet")
    import networkx as nx

    if not nx.is_directed_acyclic_graph(g.as_networkx()):
        out.append(f"{where}: dataflow graph has a cycle")
    return out


def validate(obj: SDFG | TranslationUnit) -> None:
    """Raises ValidationError listing every problem."""
    sdfgs = obj.functions if isinstance(obj, TranslationUnit) else (obj,)
    found = [p for s in sdfgs for p in problems(s)]
    if found:
        raise ValidationError("invalid IR:\n  " + "\n  ".join(found))
