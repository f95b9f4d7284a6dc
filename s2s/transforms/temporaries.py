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
  and of containers nothing in the SCoP writes, or nothing writes between ``W`` and its
  readers, which follow it in the same loop body (so ``e`` means the same where it is read);
- every read of ``t`` is in a statement of the same loops as ``W``, or of loops inside them
  (then ``e`` has no call), and reads the value ``W`` wrote in the same iteration of ``W``'s
  loops (isl's exact dataflow), never one from before the SCoP;
and each statement that reads it does so through one computation. ``e`` goes in converted to
the type of ``t``, as the store did; ``W`` and the declaration of ``t`` go.

A temporary set on both branches of an if, ``if (c) t = e1; else t = e2;`` (each branch that one
assignment, ``c`` a condition on the loops' variables and the parameters), is written in as
``c ? e1 : e2`` on the same terms, so that it no longer orders the iterations either: clang keeps
the value of such an if in a phi, which the LLVM front end writes back this way. The reader then
names the elements of both ``e1`` and ``e2`` in each of its iterations, where each branch read
only its own: only where the SCoP touches every element so named anyway (the model's accesses
stay within what the program reads and writes).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import islpy as isl

from s2s.analysis import NotAffine, Scop, build_scop
from s2s.analysis.scop import Statement
from s2s.ir import Block, Cast, ControlNode, DataflowGraph, Declare, Expr, For, IfElse, Scalar, Sequence, Sym, Tasklet
from s2s.ir import expr as ex
from s2s.transforms.expansion import Expansion, own_flow


@dataclass(frozen=True)
class _Plan:
    """How one temporary is written into its readers."""

    writers: tuple[Statement, ...]   # the one assignment, or those of the then- and else-branch
    readers: tuple[Statement, ...]
    condition: Expr | None = None    # the if's, where there are two


def substitute_temporaries(scop: Scop) -> Expansion | None:
    """``scop`` with each temporary that may be written into its readers so written (module
    docstring), as an expansion without copies; None where there is none. A temporary whose value
    reads another is written in once that one is."""
    done: list[str] = []
    for _ in scop.declared:   # (each round writes one in at least)
        rewritten = _substituted(scop)
        if rewritten is None:
            break
        scop, names = rewritten
        done += names
    if not done:
        return None
    return Expansion(scop, (), (), None, (), f"{', '.join(sorted(done))} written into where "
                                             f"{'it is' if len(done) == 1 else 'they are'} read")


def _substituted(scop: Scop) -> tuple[Scop, list[str]] | None:
    """``scop`` with the temporaries that may be written in as it is so written, and their names."""
    containers = scop.sdfg.container_map
    written = scop.written_names
    plans: dict[str, _Plan] = {}
    for name in scop.declared:
        data = containers.get(name)
        if isinstance(data, Scalar) and not data.address_taken:
            plan = _plan(scop, name, written)
            if plan is not None:
                plans[name] = plan
    # (one whose value reads another written in this round goes in the next: its writer's
    # computation is gone with the other's)
    plans = {name: plan for name, plan in plans.items()
             if not any(e.data in plans and e.data != name for w in plan.writers for e in w.block.graph.edges)}
    if not plans:
        return None
    gone = {w.block.id for plan in plans.values() for w in plan.writers}
    readers: dict[str, list[tuple[str, _Plan]]] = {}
    for name, plan in plans.items():
        for r in plan.readers:
            readers.setdefault(r.block.id, []).append((name, plan))
    nodes = tuple(n for n in (_rewrite(n, gone, readers, set(plans), containers) for n in scop.nodes)
                  if n is not None)
    try:
        rewritten = build_scop(scop.sdfg, Sequence(f"S.substituted.{scop.nodes[0].id}", nodes), nodes,
                               scop.params, rewrites=scop)
    except NotAffine:
        return None
    return rewritten, sorted(plans)


def _plan(scop: Scop, name: str, written: set[str]) -> _Plan | None:
    """How ``name`` may be written into the statements that read it; None where it may not."""
    users = [s for s in scop.statements if any(m.get_tuple_name(isl.dim_type.out) == name for _, m in s.accesses)]
    writers = [s for s in users if any(w and m.get_tuple_name(isl.dim_type.out) == name for w, m in s.accesses)]
    condition = None
    if len(writers) == 2:
        branches = _branches_of_one_if(scop, writers)
        if branches is None:
            return None
        condition, writers = branches
    elif len(writers) != 1:
        return None
    readers = [s for s in users if s not in writers]
    if not readers:
        return None
    calls = False
    changing: set[str] = set()   # what the writers read that the SCoP writes
    for w in writers:
        tasklets = [n for n in w.block.graph.nodes if isinstance(n, Tasklet)]
        if len(tasklets) != 1 or len(w.block.graph.edges) != len(w.block.graph.in_edges(tasklets[0].id)) + 1:
            return None
        read = {e.data for e in w.block.graph.in_edges(tasklets[0].id)}
        if name in read:
            return None
        changing |= read & written
        calls = calls or bool(ex.calls(tasklets[0].expr))
    if changing and not _read_before_changed(scop, writers, readers, changing):
        return None
    w = writers[0]
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
    if (uses > 1 or deeper) and calls:
        return None
    flow = own_flow(scop, name)
    if flow is None or len(flow) == 0:
        return None
    depth = len(w.loops)
    sources = {s.name for s in writers}
    for dep in flow:
        if dep.get_tuple_name(isl.dim_type.in_) not in sources:
            return None
        same = dep
        for k in range(depth):
            same = same.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
        if not dep.is_subset(same):
            return None
    sinks = {d.get_tuple_name(isl.dim_type.out) for d in flow}
    if any(r.name not in sinks for r in readers) or not _every_read_has_a_source(scop, name, flow, readers):
        return None
    if condition is not None and not _reads_stay_touched(scop, writers, readers):
        return None
    return _Plan(tuple(writers), tuple(readers), condition)


def _read_before_changed(scop: Scop, writers: list[Statement], readers: list[Statement],
                         changing: set[str]) -> bool:
    """Whether every reader comes after the writers in the one body of loops they share, as a
    statement of that body, with nothing between that writes ``changing``: what the writers read
    is then what the reader would read in their place."""
    parent, at = _place(scop.nodes, {w.block.id for w in writers})
    if parent is None:
        return False
    own = [_block_ids(c) if isinstance(c, (Block, Declare)) else set() for c in parent.children]
    places = [next((k for k, ids in enumerate(own) if ids == {r.block.id}), -1) for r in readers]
    if min(places) <= at:
        return False
    between = set().union(*(_block_ids(c) for c in parent.children[at + 1:max(places)]))
    writing = {m.get_tuple_name(isl.dim_type.out) for s in scop.statements if s.block.id in between
               for w, m in s.accesses if w}
    return not writing & changing


def _place(nodes: tuple[ControlNode, ...], blocks: set[str]) -> tuple[Sequence | None, int]:
    """The Sequence one of whose children holds exactly the blocks ``blocks`` (a block, or an if of
    them), and that child's index."""
    todo = [Sequence("S.top", tuple(nodes))]
    while todo:
        seq = todo.pop()
        for k, c in enumerate(seq.children):
            if _block_ids(c) == blocks:
                return seq, k
            if isinstance(c, For):
                todo.append(c.body)
            elif isinstance(c, Sequence):
                todo.append(c)
            elif isinstance(c, IfElse):
                todo += [c.then] + ([c.other] if c.other is not None else [])
    return None, -1


def _block_ids(node: ControlNode) -> set[str]:
    if isinstance(node, Block):
        return {node.id}
    if isinstance(node, Sequence):
        return set().union(*(_block_ids(c) for c in node.children)) if node.children else set()
    if isinstance(node, For):
        return _block_ids(node.body)
    if isinstance(node, IfElse):
        return _block_ids(node.then) | (_block_ids(node.other) if node.other is not None else set())
    if isinstance(node, Declare):
        return _block_ids(node.init) if node.init is not None else set()
    return set()


def _branches_of_one_if(scop: Scop, writers: list[Statement]) -> tuple[Expr, list[Statement]] | None:
    """(the condition, [the then-branch's writer, the else-branch's]) where ``writers`` are the
    two branches of one if of the SCoP, each branch that writer alone, and the condition is on
    the variables of the loops around it and the parameters."""
    by_block = {w.block.id: w for w in writers}
    found = None
    todo = list(scop.nodes)
    while todo:
        node = todo.pop()
        if isinstance(node, IfElse):
            blocks = [b.children[0].id if b is not None and len(b.children) == 1 and isinstance(b.children[0], Block)
                      else None for b in (node.then, node.other)]
            if set(blocks) == set(by_block):
                found = node, [by_block[b] for b in blocks]
            todo += [node.then] + ([node.other] if node.other is not None else [])
        elif isinstance(node, Sequence):
            todo += node.children
        elif isinstance(node, For):
            todo.append(node.body)
        elif isinstance(node, Declare) and node.init is not None:
            todo.append(node.init)
    if found is None:
        return None
    node, ordered = found
    allowed = set(scop.params) | {l.node.var for l in ordered[0].loops}
    if any(isinstance(n, (ex.Access, ex.Call)) or isinstance(n, Sym) and n.name not in allowed
           for n in ex.walk(node.cond)):
        return None
    return node.cond, ordered


def _reads_stay_touched(scop: Scop, writers: tuple[Statement, ...] | list[Statement],
                        readers: list[Statement]) -> bool:
    """Whether what the writers read, named in every iteration of the readers (of the writers'
    loops), stays within the elements the SCoP touches: the reader reads both branches' elements
    in the model, where each branch read its own."""
    touched = scop.reads.union(scop.writes).intersect_domain(scop.domain).range()
    depth = len(writers[0].loops)
    for w in writers:
        instances = None
        for r in readers:
            d = r.domain.project_out(isl.dim_type.set, depth, r.domain.dim(isl.dim_type.set) - depth)
            d = d.set_tuple_name(w.name)
            instances = d if instances is None else instances.union(d)
        for is_write, access in w.accesses:
            if is_write:
                continue
            pieces: list[isl.MultiAff] = []
            try:
                isl.PwMultiAff.from_map(access).foreach_piece(lambda _set, ma: pieces.append(ma))
            except isl.Error:
                return False
            if len(pieces) != 1:
                return False
            named = isl.Map.from_multi_aff(pieces[0]).intersect_domain(instances).range()
            if not isl.UnionSet.from_set(named).is_subset(touched):
                return False
    return True


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
        then = _rewrite(node.then, gone, readers, names, containers)
        other = None if node.other is None else _rewrite(node.other, gone, readers, names, containers)
        if not then.children and (other is None or not other.children):
            return None   # (the if of a temporary's two values, now written in)
        return dataclasses.replace(node, then=then, other=other)
    return node


def _written_in(graph: DataflowGraph, found: list[tuple[str, _Plan]], containers) -> DataflowGraph:
    """``graph`` with each scalar of ``found`` (its name and plan) replaced in the one computation
    that reads it by what its writers computed, converted to its type."""
    nodes, edges = list(graph.nodes), list(graph.edges)
    for n, (name, plan) in enumerate(found):
        (reader,) = [t for t in nodes if isinstance(t, Tasklet) and any(
            e.dst == t.id and e.data == name for e in edges)]
        taken = {t.id for t in nodes}
        values, renamed, inputs = [], {}, []
        serial = n   # (connectors of its own: the reader may hold those of an earlier round)
        while any(c.startswith((f"fw{serial}_", f"fw{serial}a_", f"fw{serial}b_")) for c in reader.inputs):
            serial += 1
        for k, w in enumerate(plan.writers):
            (source,) = [t for t in w.block.graph.nodes if isinstance(t, Tasklet)]
            prefix = f"fw{serial}_" if len(plan.writers) == 1 else f"fw{serial}{'ab'[k]}_"
            own = {e.dst_conn: prefix + e.dst_conn for e in w.block.graph.in_edges(source.id)}
            renamed.update(own)
            inputs += [(w.block.graph, e, own[e.dst_conn]) for e in w.block.graph.in_edges(source.id)]
            computed = ex.substitute(source.expr, {c: Sym(v) for c, v in own.items()})
            spelling = containers[name].dtype.spelling
            copied = [e.data for e in w.block.graph.in_edges(source.id) if Sym(e.dst_conn) == source.expr]
            same_type = copied and getattr(containers.get(copied[0]), "dtype", None) == containers[name].dtype
            values.append(computed if same_type else Cast(spelling, computed))   # (a copy needs no cast)
        value = values[0] if plan.condition is None else ex.Ternary(plan.condition, values[0], values[1])
        gone_edges = [e for e in edges if e.dst == reader.id and e.data == name]
        mapping = {e.dst_conn: value for e in gone_edges}
        new_reader = dataclasses.replace(
            reader, expr=ex.substitute(reader.expr, mapping),
            inputs=tuple(c for c in reader.inputs if c not in mapping) + tuple(renamed.values()))
        gone_nodes = {e.src for e in gone_edges}
        edges = [e for e in edges if e not in gone_edges]
        nodes = [new_reader if t is reader else t for t in nodes
                 if t.id not in gone_nodes or any(e.src == t.id or e.dst == t.id for e in edges)]
        for source_graph, e, connector in inputs:
            access = source_graph.node(e.src)
            new_id = connector.split("_", 1)[0] + "_" + access.id
            while new_id in taken:
                new_id += "_"
            taken.add(new_id)
            nodes.append(dataclasses.replace(access, id=new_id))
            edges.append(dataclasses.replace(e, src=new_id, dst=reader.id, dst_conn=connector))
    return DataflowGraph(tuple(nodes), tuple(edges))
