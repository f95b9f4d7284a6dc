"""Two loops that run the same body over adjacent ranges, one after the other, become one loop.

isl's code generator gives every statement loops of its own. Where the user wrote one update
twice, split at a bound (lu's ``A[i][j] -= A[i][k] * A[k][j]`` for ``j < i`` and again for
``j >= i``) and the new schedule runs both copies in the same loops, the result is two short
loops back to back::

    for (j = c0 + 1; j < i; j++) B(j);
    for (j = i; j < n; j++) B(j);

which execute exactly what ``for (j = c0 + 1; j < n; j++) B(j);`` does, in the same order, with
one loop entry, one vector remainder and one alias check where the compiler vectorizes. The
first loop runs ``[a, b)`` and the second ``[b, c)``; one loop over ``[a, c)`` runs their
concatenation where the loops around prove that an empty first loop has ``a = b`` and an empty
second one ``c = b`` (lu's: ``c0 + 1 <= i`` and ``i < n``). Other pairs, which would need a
``min``/``max`` bound, stay apart (docs/optimizer.md says why). Only sequential loops are merged:
the iterations of two parallel loops may not run side by side.
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from s2s.analysis.affine import AffineBuilder, NotAffine
from s2s.ir import Binary, Block, ControlNode, Expr, For, IfElse, Map, Sequence, Sym, Unary, While
from s2s.ir import expr as ex
from s2s.ir.control import walk


@dataclasses.dataclass(frozen=True)
class _Facts:
    """What holds where a node runs: the loop variables around it (outermost first) and the
    conditions on them and on the parameters (those isl cannot read are left out: fewer facts
    only prove less)."""

    dims: tuple[str, ...] = ()
    conditions: tuple[Expr, ...] = ()

    def inside(self, var: str, *conditions: Expr) -> "_Facts":
        return _Facts(self.dims + (var,), self.conditions + conditions)

    def given(self, condition: Expr) -> "_Facts":
        return _Facts(self.dims, self.conditions + (condition,))


class _Prover:
    """Claims about the loops' bounds, decided by isl over the SCoP's parameters and context."""

    def __init__(self, params: tuple[str, ...], context: isl.Set):
        self.params = params
        self.context = context

    def holds(self, facts: _Facts, claim: Expr) -> bool:
        """Whether ``claim`` is true wherever ``facts`` hold (False when isl cannot tell)."""
        try:
            build = AffineBuilder(facts.dims, self.params)
            known = build.domain
            for c in facts.conditions:
                try:
                    known = known.intersect(build.condition(c))
                except NotAffine:
                    pass
            context = self.context.align_params(known.get_space())
            known = known.intersect_params(context)
            return known.intersect(build.condition(claim).complement()).is_empty()
        except (NotAffine, isl.Error):
            return False


def merge_adjacent_loops(body: Sequence, params: tuple[str, ...], context: isl.Set) -> Sequence:
    """``body`` with every pair of adjacent sequential loops over one body and adjacent ranges
    made one loop (see the module's docstring)."""
    return _merge(body, _Facts(), _Prover(params, context))  # type: ignore[return-value]


def _merge(node: ControlNode, facts: _Facts, prover: _Prover) -> ControlNode:
    if isinstance(node, Sequence):
        children: list[ControlNode] = []
        for child in node.children:
            child = _merge(child, facts, prover)
            merged = _joined(children[-1], child, facts, prover) if children else None
            if merged is not None:
                children[-1] = merged
            else:
                children.append(child)
        if len(children) == len(node.children) and all(a is b for a, b in zip(children, node.children)):
            return node
        return dataclasses.replace(node, children=tuple(children))
    if isinstance(node, For):
        inner = facts.inside(node.var, Binary(">=", Sym(node.var), node.init), node.cond) \
            if _counted(node) is not None else facts.inside(node.var)
        body = _merge(node.body, inner, prover)
        return node if body is node.body else dataclasses.replace(node, body=body)
    if isinstance(node, Map):
        inner = facts.inside(node.var, Binary(">=", Sym(node.var), node.start), Binary("<", Sym(node.var), node.stop))
        body = _merge(node.body, inner, prover)
        return node if body is node.body else dataclasses.replace(node, body=body)
    if isinstance(node, While):
        body = _merge(node.body, facts, prover)
        return node if body is node.body else dataclasses.replace(node, body=body)
    if isinstance(node, IfElse):
        then = _merge(node.then, facts.given(node.cond), prover)
        other = None if node.other is None else _merge(node.other, facts.given(Unary("!", node.cond)), prover)
        if then is node.then and other is node.other:
            return node
        return dataclasses.replace(node, then=then, other=other)
    return node


def _counted(loop: For) -> Expr | None:
    """The exclusive upper bound of ``for (v = a; v < b or v <= b; v = v + 1)``, else None."""
    v = Sym(loop.var)
    update, cond = loop.update, loop.cond
    if not (isinstance(update, Binary) and update.op == "+" and update.lhs == v and update.rhs == ex.Const("1")):
        return None
    if isinstance(cond, Binary) and cond.op in ("<", "<=") and cond.lhs == v and loop.var not in ex.names(cond.rhs) \
            and loop.var not in ex.names(loop.init):
        return cond.rhs if cond.op == "<" else ex.plus_one(cond.rhs)
    return None


def _joined(first: ControlNode, second: ControlNode, facts: _Facts, prover: _Prover) -> For | None:
    """One loop doing what ``first`` then ``second`` do, when they are sequential loops of one
    variable over one body, ``first`` stops where ``second`` starts, and the loops around prove
    that the first's start and the second's stop bound the merged loop; else None."""
    if not (isinstance(first, For) and isinstance(second, For) and first.var == second.var
            and first.declares_var == second.declares_var):
        return None
    stop1, stop2 = _counted(first), _counted(second)
    if stop1 is None or stop2 is None or not _same_code(first.body, second.body):
        return None
    start1, start2 = first.init, second.init
    in_bounds = {n for e in (start1, stop1, start2, stop2) for n in ex.names(e)} | {first.var}
    if in_bounds & _written(first.body):
        return None
    runs1, runs2 = Binary("<", start1, stop1), Binary("<", start2, stop2)
    idle1, idle2 = Binary(">=", start1, stop1), Binary(">=", start2, stop2)
    adjacent = stop1 == start2 or (
        # where both run, the second starts where the first stops; where neither does, the
        # merged loop [start1, stop2) = [start2, stop1) (below) runs nothing either
        prover.holds(facts.given(runs1).given(runs2), Binary("==", stop1, start2))
        and prover.holds(facts.given(idle1).given(idle2), Binary(">=", start2, stop1)))
    # where the first runs nothing it starts where the second does, and where the second runs
    # nothing it stops where the first does
    if not (adjacent and prover.holds(facts, Binary("||", runs1, Binary("==", start1, start2)))
            and prover.holds(facts, Binary("||", runs2, Binary("==", stop2, stop1)))):
        return None
    return dataclasses.replace(first, cond=second.cond)


def _written(node: ControlNode) -> set[str]:
    """Names a subtree assigns: containers its blocks write, and its loop variables."""
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, Block):
            out.update(e.data for e in n.graph.writes())
        elif isinstance(n, (For, Map)):
            out.add(n.var)
    return out


_STRUCTURED = (Sequence, For, Map, IfElse, While)


def _same_code(a: ControlNode, b: ControlNode) -> bool:
    """Whether two subtrees are the same code, node ids apart (blocks and structured control
    only: any other node, opaque code or a declaration, is never the same as another)."""
    return _shape(a) == _shape(b)


def _shape(node: ControlNode) -> object:
    if isinstance(node, Block):
        graph = node.graph
        position = {n.id: str(k) for k, n in enumerate(graph.nodes)}
        nodes = tuple(dataclasses.replace(n, id=position[n.id]) for n in graph.nodes)
        edges = tuple(dataclasses.replace(e, src=position.get(e.src, e.src), dst=position.get(e.dst, e.dst))
                      for e in graph.edges)
        return ("block", nodes, edges)
    if isinstance(node, _STRUCTURED):
        parts = []
        for f in dataclasses.fields(node):
            if f.name == "id" or not f.compare:
                continue
            value = getattr(node, f.name)
            if isinstance(value, (Block, *_STRUCTURED)):
                value = _shape(value)
            elif f.name == "children":
                value = tuple(_shape(c) for c in value)
            parts.append((f.name, value))
        return (type(node).__name__, tuple(parts))
    return object()
