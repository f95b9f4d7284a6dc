"""Temporaries written into the statements that read them (Polly's operand-tree forwarding).

    for (i ..) for (j ..) {                       for (i ..) for (j ..)
        double d = v[i][j] - mean[j];      ->         sd[j] += (double)(v[i][j] - mean[j]) *
        sd[j] += d * d;                                        (double)(v[i][j] - mean[j]);
    }

The scalar ``d`` orders every iteration of (i, j) by its own reuse (memory-based dependences),
so the schedule cannot run the column loop in parallel or tile the pair; written in place, its
value is recomputed where it is read (gcc computes it once again), and the nest is the one of
column sums. A scalar ``t`` the SCoP declares is so written in when
- one statement ``W`` writes it, as one computation ``t = e`` of no call (or it is read once)
  and of containers nothing in the SCoP writes (so ``e`` means the same where it is read);
- every read of ``t`` is in a statement of the same loops as ``W``, or of loops inside them
  (then ``e`` has no call), and reads the value ``W`` wrote in the same iteration of ``W``'s
  loops (isl's exact dataflow), never one from before the SCoP;
and each statement that reads it does so through one computation. ``e`` goes in converted to
the type of ``t``, as the store did; ``W`` and the declaration of ``t`` go.
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from s2s.analysis import NotAffine, Scop, build_scop
from s2s.analysis.scop import Statement
from s2s.ir import Block, Cast, ControlNode, DataflowGraph, Declare, For, IfElse, Scalar, Sequence, Sym, Tasklet
from s2s.ir import expr as ex
from s2s.transforms.expansion import Expansion, own_flow


def substitute_temporaries(scop: Scop) -> Expansion | None:
    """``scop`` with each temporary that may be written into its readers so written (module
    docstring), as an expansion without copies; None where there is none."""
    containers = scop.sdfg.container_map
    written = scop.written_names
    plans: dict[str, tuple[Statement, list[Statement]]] = {}
    for name in scop.declared:
        data = containers.get(name)
        if isinstance(data, Scalar) and not data.address_taken:
            plan = _plan(scop, name, written)
            if plan is not None:
                plans[name] = plan
    if not plans:
        return None
    gone = {w.block.id for w, _ in plans.values()}
    readers: dict[str, list[tuple[str, Tasklet, DataflowGraph]]] = {}
    for name, (w, rs) in plans.items():
        (tasklet,) = [n for n in w.block.graph.nodes if isinstance(n, Tasklet)]
        for r in rs:
            readers.setdefault(r.block.id, []).append((name, tasklet, w.block.graph))
    nodes = tuple(n for n in (_rewrite(n, gone, readers, set(plans), containers) for n in scop.nodes)
                  if n is not None)
    try:
        rewritten = build_scop(scop.sdfg, Sequence(f"S.substituted.{scop.nodes[0].id}", nodes), nodes,
                               scop.params, rewrites=scop)
    except NotAffine:
        return None
    return Expansion(rewritten, (), (), None, (), f"{', '.join(sorted(plans))} written into where "
                                                  f"{'it is' if len(plans) == 1 else 'they are'} read")


def _plan(scop: Scop, name: str, written: set[str]) -> tuple[Statement, list[Statement]] | None:
    """(the statement that writes ``name``, those that read it) where it may be written in."""
    users = [s for s in scop.statements if any(m.get_tuple_name(isl.dim_type.out) == name for _, m in s.accesses)]
    writers = [s for s in users if any(w and m.get_tuple_name(isl.dim_type.out) == name for w, m in s.accesses)]
    if len(writers) != 1:
        return None
    (w,) = writers
    readers = [s for s in users if s is not w]
    tasklets = [n for n in w.block.graph.nodes if isinstance(n, Tasklet)]
    if not readers or len(tasklets) != 1 or len(w.block.graph.edges) != len(w.block.graph.in_edges(tasklets[0].id)) + 1:
        return None
    (tasklet,) = tasklets
    read = {e.data for e in w.block.graph.in_edges(tasklet.id)}
    uses = 0
    deeper = False   # (a reader in a loop inside W's: e is computed again in each of its iterations)
    for r in readers:
        if any(wr and m.get_tuple_name(isl.dim_type.out) == name for wr, m in r.accesses):
            return None
        if [l.node.id for l in r.loops[:len(w.loops)]] != [l.node.id for l in w.loops]:
            return None
        deeper = deeper or len(r.loops) > len(w.loops)
        into = [n for n in r.block.graph.nodes if isinstance(n, Tasklet)
                and any(e.data == name for e in r.block.graph.in_edges(n.id))]
        if len(into) != 1:
            return None
        connectors = {e.dst_conn for e in r.block.graph.in_edges(into[0].id) if e.data == name}
        uses += sum(1 for n in ex.walk(into[0].expr) if isinstance(n, Sym) and n.name in connectors)
    if read & written or name in read or ((uses > 1 or deeper) and ex.calls(tasklet.expr)):
        return None
    flow = own_flow(scop, name)
    if flow is None or len(flow) == 0:
        return None
    depth = len(w.loops)
    for dep in flow:
        if dep.get_tuple_name(isl.dim_type.in_) != w.name:
            return None
        same = dep
        for k in range(depth):
            same = same.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
        if not dep.is_subset(same):
            return None
    sinks = {d.get_tuple_name(isl.dim_type.out) for d in flow}
    if any(r.name not in sinks for r in readers) or not _every_read_has_a_source(scop, name, flow, readers):
        return None
    return w, readers


def _every_read_has_a_source(scop: Scop, name: str, flow: list[isl.Map], readers: list[Statement]) -> bool:
    """Whether every instance of a reader is the sink of the flow (none reads a value from before
    the SCoP)."""
    for r in readers:
        reached = None
        for d in flow:
            if d.get_tuple_name(isl.dim_type.out) == r.name:
                sinks = d.range()
                reached = sinks if reached is None else reached.union(sinks)
        if reached is None or not r.domain.is_subset(reached):
            return False
    return True


def _rewrite(node: ControlNode, gone: set[str], readers, names: set[str], containers) -> ControlNode | None:
    if isinstance(node, Block):
        if node.id in gone:
            return None
        found = readers.get(node.id)
        return node if not found else dataclasses.replace(node, graph=_written_in(node.graph, found, containers))
    if isinstance(node, Declare):
        if node.name in names:
            return None if node.init is None or node.init.id in gone else node.init
        return node if node.init is None else dataclasses.replace(
            node, init=_rewrite(node.init, gone, readers, names, containers))
    if isinstance(node, Sequence):
        children = (_rewrite(c, gone, readers, names, containers) for c in node.children)
        return dataclasses.replace(node, children=tuple(c for c in children if c is not None))
    if isinstance(node, For):
        return dataclasses.replace(node, body=_rewrite(node.body, gone, readers, names, containers))
    if isinstance(node, IfElse):
        return dataclasses.replace(node, then=_rewrite(node.then, gone, readers, names, containers),
                                   other=None if node.other is None
                                   else _rewrite(node.other, gone, readers, names, containers))
    return node


def _written_in(graph: DataflowGraph, found: list[tuple[str, Tasklet, DataflowGraph]], containers) -> DataflowGraph:
    """``graph`` with each scalar of ``found`` (name, the tasklet that computed it and its graph)
    replaced in the one computation that reads it by that computation, converted to its type."""
    nodes, edges = list(graph.nodes), list(graph.edges)
    for n, (name, source, source_graph) in enumerate(found):
        (reader,) = [t for t in nodes if isinstance(t, Tasklet) and any(
            e.dst == t.id and e.data == name for e in edges)]
        prefix = f"fw{n}_"
        taken = {t.id for t in nodes}
        inputs = [e for e in source_graph.in_edges(source.id)]
        renamed = {e.dst_conn: prefix + e.dst_conn for e in inputs}
        value = Cast(containers[name].dtype.spelling, ex.substitute(source.expr, {c: Sym(v) for c, v in renamed.items()}))
        gone_edges = [e for e in edges if e.dst == reader.id and e.data == name]
        mapping = {e.dst_conn: value for e in gone_edges}
        new_reader = dataclasses.replace(
            reader, expr=ex.substitute(reader.expr, mapping),
            inputs=tuple(c for c in reader.inputs if c not in mapping) + tuple(renamed.values()))
        gone_nodes = {e.src for e in gone_edges}
        edges = [e for e in edges if e not in gone_edges]
        nodes = [new_reader if t is reader else t for t in nodes
                 if t.id not in gone_nodes or any(e.src == t.id or e.dst == t.id for e in edges)]
        for e in inputs:
            access = source_graph.node(e.src)
            new_id = prefix + access.id
            while new_id in taken:
                new_id += "_"
            taken.add(new_id)
            nodes.append(dataclasses.replace(access, id=new_id))
            edges.append(dataclasses.replace(e, src=new_id, dst=reader.id, dst_conn=renamed[e.dst_conn]))
    return DataflowGraph(tuple(nodes), tuple(edges))
