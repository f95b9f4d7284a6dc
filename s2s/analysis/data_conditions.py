"""Branches on data written as selects, so that the loop nests holding them can be SCoPs.

    for (i ..)                                    for (i ..)
        if (a[i] > mx) { mx = a[i]; at = i; }  ->     c = a[i] > mx;
                                                      mx = c ? a[i] : mx;     (printed: if (c) mx = a[i];)
                                                      at = c ? i : at;        (printed: if (c) at = i;)

The polyhedral model describes a branch by the iterations it runs in, which a condition on
array elements or on scalars the loops write does not give. Written as a select, each assignment
of a branch is a statement of every iteration that reads what the condition reads and, where the
branch may not run, the element it writes (its old value is what stays): the model's accesses
then hold every access the branch makes, and its dependences every order the program needs.
Such a tasklet is marked ``guarded_store``: the back ends print it as the user's ``if``, which
stores only where the condition holds (no store the program does not make, which a thread of the
user's own parallel loop may rely on).

An if is so written when it sits in a loop, its condition reads array elements or scalars the
loop nest writes (other conditions are the model's own), every computation it guards is a pure
assignment (no loop, call with effects or jump in its branches), and each arm's value converts
to the type of the element it is stored to as the store did. A local a branch declares (the only
declaration of its name in the function) is declared before the selects, and given ``c ? e : 0``:
only the branch reads it, and no iteration then reads another's. The condition is
evaluated once, as the if did: inside the assignment where the if guards one, else into a scalar
of its own that the guarded assignments read (the branches may change what it reads, through any
name). ``if (c) x = e1; else x = e2;`` of one element becomes ``x = c ? e1 : e2``.
"""
from __future__ import annotations

import collections
import dataclasses

from s2s.analysis.c_arith import type_of
from s2s.ir import (
    SDFG, Array, Block, ControlNode, Declare, For, IfElse, Scalar, Sequence, Storage, Tasklet, While, child_nodes, walk, expr as ex,
)
from s2s.ir.dataflow import AccessNode, DataflowGraph, Memlet
from s2s.ir.rewrite import fresh_name
from s2s.ir.types import scalar_type

CONDITION_NAME = "s2s_cond"   # the base name of a condition's own scalar


def selects_for_data_conditions(sdfg: SDFG) -> SDFG:
    """``sdfg`` with each if on data that may be a select so written (module docstring); the same
    object where there is none."""
    if not _has_if_in_loop(sdfg.body, False):
        return sdfg
    rewriter = _Rewriter(sdfg)
    body = rewriter.node(sdfg.body, (), frozenset())
    if body is sdfg.body:
        return sdfg
    return dataclasses.replace(sdfg, body=body, containers=sdfg.containers + tuple(rewriter.added))


def _has_if_in_loop(node: ControlNode, in_loop: bool) -> bool:
    if isinstance(node, IfElse) and in_loop:
        return True
    inside = in_loop or isinstance(node, For)
    return any(_has_if_in_loop(c, inside) for c in child_nodes(node))


class _Rewriter:
    def __init__(self, sdfg: SDFG):
        self.containers = dict(sdfg.container_map)
        self.taken = set(self.containers) | _all_names(sdfg.body)
        self.added: list[Scalar] = []
        self.declared = collections.Counter(n.name for n in walk(sdfg.body) if isinstance(n, Declare))

    def node(self, node: ControlNode, loop_vars: tuple[str, ...], nest_writes: frozenset[str]) -> ControlNode:
        if isinstance(node, For):
            writes = nest_writes or frozenset(_writes_of(node))
            body = self.node(node.body, loop_vars + (node.var,), writes)
            return node if body is node.body else dataclasses.replace(node, body=body)
        if isinstance(node, Sequence):
            children: list[ControlNode] = []
            changed = False
            for child in node.children:
                converted = None
                if isinstance(child, IfElse) and loop_vars:
                    converted = self.if_else(child, loop_vars, nest_writes)
                if converted is not None:
                    children.extend(converted)
                    changed = True
                    continue
                new = self.node(child, loop_vars, nest_writes)
                changed |= new is not child
                children.append(new)
            return dataclasses.replace(node, children=tuple(children)) if changed else node
        if isinstance(node, IfElse):
            then = self.node(node.then, loop_vars, nest_writes)
            other = self.node(node.other, loop_vars, nest_writes) if node.other is not None else None
            if then is node.then and other is node.other:
                return node
            return dataclasses.replace(node, then=then, other=other)
        if isinstance(node, While):
            body = self.node(node.body, loop_vars, nest_writes)
            return node if body is node.body else dataclasses.replace(node, body=body)
        return node

    # --- one if ---------------------------------------------------------------------------------

    def if_else(self, node: IfElse, loop_vars: tuple[str, ...], nest_writes: frozenset[str]) -> list[ControlNode] | None:
        """The statements that replace ``node``, or None where it stays an if."""
        if node.likely or node.balanced or node.outline or not self._on_data(node.cond, loop_vars, nest_writes):
            return None
        if not ex.is_pure(node.cond) or any(isinstance(n, ex.SizeOf) for n in ex.walk(node.cond)):
            return None
        if any(isinstance(n, ex.Access) and any(isinstance(m, ex.Access) for i in n.indices for m in ex.walk(i))
               for n in ex.walk(node.cond)):
            return None   # (an element chosen by data, a[idx[i]]: the nest is no SCoP either way)
        then = self._assignments(node.then, loop_vars, nest_writes)
        other = self._assignments(node.other, loop_vars, nest_writes) if node.other is not None else ([], [])
        if then is None or other is None:
            return None
        (then, declared), (other, declared_else) = then, other
        if not then and not other:
            return None
        out: list[ControlNode] = [dataclasses.replace(d, init=None, assigned_later=True)
                                  for d in declared + declared_else]
        own_locals = frozenset(d.name for d in declared + declared_else)
        merged = self._merged(node, then, other, loop_vars)
        if merged is not None:
            return out + [merged]
        if len(then) + len(other) == 1:
            cond = node.cond
        else:
            name = fresh_name(CONDITION_NAME, self.taken)
            self.added.append(Scalar(name, scalar_type("int"), Storage.STACK))
            self.containers[name] = self.added[-1]
            out.append(Declare(f"{node.id}_d", name, origin=node.origin, assigned_later=True))
            out.append(self._block(f"{node.id}_c", ex.Sym(name), _truth(node.cond),
                                   None, loop_vars, node))
            cond = ex.Sym(name)
        for k, g in enumerate(then):
            out.append(self._guarded(f"{node.id}_t{k}", g, cond, loop_vars, own_locals))
        negated = ex.Unary("!", cond)
        for k, g in enumerate(other):
            out.append(self._guarded(f"{node.id}_e{k}", g, negated, loop_vars, own_locals))
        return out

    def _on_data(self, cond: ex.Expr, loop_vars: tuple[str, ...], nest_writes: frozenset[str]) -> bool:
        for n in ex.walk(cond):
            if isinstance(n, ex.Access):
                return True
            if isinstance(n, ex.Sym) and n.name not in loop_vars and n.name in nest_writes \
                    and isinstance(self.containers.get(n.name), Scalar):
                return True
        return False

    def _assignments(self, seq: Sequence, loop_vars, nest_writes) -> tuple[list[Block], list[Declare]] | None:
        """The assignments a branch makes, in order, each a block of one tasklet (those of a nested
        if on data already selects, a local's initial value), and the locals it declares; None
        where the branch holds anything else."""
        out: list[Block] = []
        declared: list[Declare] = []
        for child in seq.children:
            if isinstance(child, Block):
                for comp in child.graph.computations():
                    if not isinstance(comp, Tasklet) or comp.output is None or not ex.is_pure(comp.expr):
                        return None
                    out.append(_one_tasklet(child, comp))
            elif isinstance(child, Declare):
                if not self._temporary(child):
                    return None
                declared.append(child)
                if child.init is not None:
                    inner = self._assignments(Sequence(f"{child.id}_i", (child.init,)), loop_vars, nest_writes)
                    if inner is None:
                        return None
                    out += inner[0]
            elif isinstance(child, Sequence):
                inner = self._assignments(child, loop_vars, nest_writes)
                if inner is None:
                    return None
                out += inner[0]
                declared += inner[1]
            elif isinstance(child, IfElse):
                nested = self.if_else(child, loop_vars, nest_writes)
                if nested is None or any(not isinstance(n, Block) for n in nested):
                    return None   # (an affine if, or one that needs a scalar of its own, stays)
                out += nested
            else:
                return None
        return out, declared

    def _temporary(self, declare: Declare) -> bool:
        """Whether a local a branch declares may be declared before the selects instead: a number
        of the stack, its value given by an expression, the only declaration of its name in the
        function (so the wider scope shadows and clashes with nothing)."""
        data = self.containers.get(declare.name)
        return isinstance(data, Scalar) and data.storage is Storage.STACK and declare.init_text is None \
            and (data.dtype.is_float or data.dtype.is_integer) and self.declared[declare.name] == 1

    def _merged(self, node: IfElse, then: list[Block], other: list[Block], loop_vars) -> Block | None:
        """``x = c ? e1 : e2`` where each branch stores one value to the same element ``x``."""
        if len(then) != 1 or len(other) != 1:
            return None
        (a, ta), (b, tb) = _only(then[0]), _only(other[0])
        wa, wb = a.graph.out_edges(ta.id)[0], b.graph.out_edges(tb.id)[0]
        if (wa.data, wa.subset) != (wb.data, wb.subset) or ta.guarded_store or tb.guarded_store:
            return None
        target = self._typed(wa.data)
        graph, inputs, values = _joined([a, b], [ta, tb])
        cond, graph, inputs = self._with_reads(node.cond, graph, inputs, ta.id, loop_vars)
        value = ex.Ternary(cond, _converted(values[0], target, graph, ta.id, self.containers),
                           _converted(values[1], target, graph, ta.id, self.containers))
        return _single(f"{node.id}_s", graph, dataclasses.replace(ta, inputs=tuple(inputs), expr=value), node)

    def _guarded(self, ident: str, assignment: Block, cond: ex.Expr, loop_vars, own_locals: frozenset[str]) -> Block:
        """``x = cond ? e : x`` of an assignment ``x = e`` of a branch (``x = cond && c ? e : x`` of
        one already stored only where ``c`` holds); ``x = cond ? e : 0`` of a local the if's own
        branches declare (``own_locals``; a nested if's branch keeps the value it does not set)."""
        block, t = _only(assignment)
        (write,) = block.graph.out_edges(t.id)
        graph, inputs = block.graph, list(t.inputs)
        value = t.expr
        if write.data in own_locals and not t.guarded_store:
            # (a branch's local, read only in the branch: its value where the branch does not run
            # is never read, and a constant there keeps iterations from reading each other's)
            target = self._typed(write.data)
            cond_expr, graph, inputs = self._with_reads(cond, graph, inputs, t.id, loop_vars)
            value = ex.Ternary(cond_expr, _converted(value, target, graph, t.id, self.containers), ex.Const("0"))
            return _single(ident, graph, dataclasses.replace(t, inputs=tuple(inputs), expr=value), block)
        if t.guarded_store:
            inner = value
            assert isinstance(inner, ex.Ternary)
            cond_expr, graph, inputs = self._with_reads(cond, graph, inputs, t.id, loop_vars)
            value = ex.Ternary(ex.Binary("&&", cond_expr, inner.cond), inner.then, inner.other)
        else:
            target = self._typed(write.data)
            cond_expr, graph, inputs = self._with_reads(cond, graph, inputs, t.id, loop_vars)
            old = _fresh_connector("old", inputs)
            graph = _with_input(graph, t.id, old, write.data, write.subset)
            inputs.append(old)
            value = ex.Ternary(cond_expr, _converted(value, target, graph, t.id, self.containers), ex.Sym(old))
        tasklet = dataclasses.replace(t, inputs=tuple(inputs), expr=value, guarded_store=True)
        return _single(ident, graph, tasklet, block)

    def _block(self, ident: str, target: ex.Sym, value: ex.Expr, dtype: str | None, loop_vars, origin_of) -> Block:
        """``target = value`` as a block (``value`` over containers and loop variables)."""
        tid = "T.cond"
        write = AccessNode("A.cond.out", target.name)
        graph = DataflowGraph((), ())
        inputs: list[str] = []
        expr, graph, inputs = self._with_reads(value, graph, inputs, tid, loop_vars)
        tasklet = Tasklet(tid, tuple(inputs), "out", expr, dtype or "int")
        graph = DataflowGraph(graph.nodes + (tasklet, write),
                              graph.edges + (Memlet(tid, "out", write.id, None, target.name, ()),))
        return Block(ident, graph, origin=origin_of.origin)

    def _with_reads(self, e: ex.Expr, graph: DataflowGraph, inputs: list[str], tasklet: str, loop_vars):
        """``e`` with each element and scalar it reads as an input connector of ``tasklet``, and
        the graph with the memlets of those reads."""
        inputs = list(inputs)
        known: dict[tuple, str] = {}

        def read(n: ex.Expr) -> ex.Expr:
            nonlocal graph
            key = None
            if isinstance(n, ex.Access) and isinstance(self.containers.get(n.name), Array):
                key = (n.name, n.indices)
            elif isinstance(n, ex.Sym) and n.name not in loop_vars and isinstance(self.containers.get(n.name), Scalar):
                key = (n.name, ())
            if key is None:
                return ex.rebuild_children(n, read)
            if key not in known:
                conn = _fresh_connector(f"c_{key[0]}", inputs)
                inputs.append(conn)
                graph = _with_input(graph, tasklet, conn, key[0], key[1])
                known[key] = conn
            return ex.Sym(known[key])

        return read(e), graph, inputs

    def _typed(self, name: str) -> str:
        data = self.containers[name]
        return data.dtype.spelling


def _converted(value: ex.Expr, target: str, graph: DataflowGraph, tasklet: str, containers) -> ex.Expr:
    """``value`` as an arm of a select stored to an element of type ``target``: converted to it
    first, as the store converts it, where the arms' common type could change the other arm
    (an integer element through a floating-point type). A floating-point element is exact in
    any common type; integers convert modulo 2^n, in any order."""
    target_type = scalar_type(target)
    if target_type.is_float:
        return value
    sources = {e.dst_conn: e.data for e in graph.in_edges(tasklet)}

    def type_of_name(name: str):
        data = containers.get(sources.get(name, name))
        return data.dtype if data is not None and data.dtype.is_integer else None

    if target_type.is_integer and type_of(value, type_of_name) is not None:
        return value
    return ex.Cast(target, value)


def _truth(cond: ex.Expr) -> ex.Expr:
    """``cond`` as an int that is 0 or 1 (a comparison or logical operator already is)."""
    if isinstance(cond, ex.Binary) and cond.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||") \
            or isinstance(cond, ex.Unary) and cond.op == "!":
        return cond
    return ex.Binary("!=", cond, ex.Const("0"))


def _only(block: Block) -> tuple[Block, Tasklet]:
    (t,) = [c for c in block.graph.computations() if isinstance(c, Tasklet)]
    return block, t


def _one_tasklet(block: Block, t: Tasklet) -> Block:
    """``block`` cut to the tasklet ``t``, its memlets and their access nodes."""
    edges = tuple(e for e in block.graph.edges if t.id in (e.src, e.dst))
    ends = {e.src for e in edges} | {e.dst for e in edges}
    nodes = tuple(n for n in block.graph.nodes if n.id in ends)
    if len(nodes) == len(block.graph.nodes):
        return block
    return dataclasses.replace(block, graph=DataflowGraph(nodes, edges))


def _joined(blocks: list[Block], tasklets: list[Tasklet]) -> tuple[DataflowGraph, list[str], list[ex.Expr]]:
    """One graph of the reads of several single-tasklet blocks into the first tasklet, with the
    connectors renamed apart: the graph, the connectors and each tasklet's expression in them."""
    first = tasklets[0]
    nodes: list = []
    edges: list[Memlet] = []
    inputs: list[str] = []
    values: list[ex.Expr] = []
    for k, (block, t) in enumerate(zip(blocks, tasklets)):
        renames: dict[str, ex.Expr] = {}
        for e in block.graph.in_edges(t.id):
            conn = _fresh_connector(e.dst_conn, inputs)
            inputs.append(conn)
            renames[e.dst_conn] = ex.Sym(conn)
            access = AccessNode(f"A.arm{k}.{e.src}", e.data)
            nodes.append(access)
            edges.append(dataclasses.replace(e, src=access.id, dst=first.id, dst_conn=conn))
        values.append(ex.substitute(t.expr, renames))
    (write,) = blocks[0].graph.out_edges(first.id)
    out_node = blocks[0].graph.node(write.dst)
    return DataflowGraph(tuple(nodes) + (out_node,), tuple(edges) + (write,)), inputs, values


def _single(ident: str, graph: DataflowGraph, tasklet: Tasklet, origin_of: ControlNode) -> Block:
    """A block of ``graph`` with ``tasklet`` in place of the one of the same id."""
    nodes = tuple(n for n in graph.nodes if n.id != tasklet.id) + (tasklet,)
    return Block(ident, DataflowGraph(nodes, graph.edges), origin=origin_of.origin)


def _with_input(graph: DataflowGraph, tasklet: str, conn: str, data: str, subset: tuple) -> DataflowGraph:
    access = AccessNode(f"A.{tasklet}.{conn}", data)
    return DataflowGraph(graph.nodes + (access,), graph.edges + (Memlet(access.id, None, tasklet, conn, data, subset),))


def _fresh_connector(base: str, taken: list[str]) -> str:
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name


def _writes_of(node: ControlNode) -> set[str]:
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, Block):
            out.update(e.data for e in n.graph.writes())
        elif isinstance(n, For):
            out.add(n.var)
        elif isinstance(n, Declare):
            out.add(n.name)
    return out


def _all_names(body: ControlNode) -> set[str]:
    """Every name the tree's expressions use (a new scalar's name must shadow none of them:
    macros and enumerators the IR does not hold as containers)."""
    out: set[str] = set()
    for n in walk(body):
        if isinstance(n, Block):
            for c in n.graph.nodes:
                if isinstance(c, Tasklet):
                    out |= ex.names(c.expr)
        elif isinstance(n, (For, IfElse, While)):
            out |= ex.names(n.cond)
    return out
