"""Code generation: an isl AST built from a SCoP's schedule, turned back into IR.

Loops become For nodes (named after the original loop variable when they still mean the same
thing), guards IfElse nodes, and each statement instance a copy of the statement's Block with
the original loop variables replaced by what isl says they are. isl's ``floord``/``min``/``max``
become plain C expressions, so the output needs no helper macros.
"""
from __future__ import annotations

import dataclasses
import itertools

import islpy as isl

from s2s.analysis.scop import Scop, wraps
from s2s.ir import (
    Binary, Block, Call, Cast, Const, ControlNode, Declare, Expr, For, IfElse, Map, Range, Scalar, Schedule, Sequence,
    Sym, Tasklet, Ternary, TypeKind, Unary, expr as ex, walk,
)
from s2s.schedule.loop_merge import merge_adjacent_loops
from s2s.schedule.matmul import match_matmul, matmul_block, parse_mark_name
from s2s.schedule.tree import PARALLEL_MARK, SIMD_MARK, parse_mark, parse_parallel_mark


class CodegenError(Exception):
    pass


_BINARY = {
    isl.ast_expr_op_type.add: "+", isl.ast_expr_op_type.sub: "-", isl.ast_expr_op_type.mul: "*",
    isl.ast_expr_op_type.div: "/", isl.ast_expr_op_type.pdiv_q: "/", isl.ast_expr_op_type.pdiv_r: "%",
    isl.ast_expr_op_type.zdiv_r: "%", isl.ast_expr_op_type.and_: "&&", isl.ast_expr_op_type.and_then: "&&",
    isl.ast_expr_op_type.or_: "||", isl.ast_expr_op_type.or_else: "||", isl.ast_expr_op_type.eq: "==",
    isl.ast_expr_op_type.le: "<=", isl.ast_expr_op_type.lt: "<", isl.ast_expr_op_type.ge: ">=",
    isl.ast_expr_op_type.gt: ">",
}


def negate(e: Expr) -> Expr:
    """``-e``, folding constants and double negations."""
    if isinstance(e, Const) and e.int_value is not None:
        return Const(str(-e.int_value if not e.text.startswith("-") else int(e.text[1:])))
    if isinstance(e, Unary) and e.op == "-":
        return e.operand
    return Unary("-", e)


def signed_parameters(scop: Scop) -> dict[str, Expr]:
    """The renaming of isl's expressions that reads unsigned parameters as ``(long long)p``:
    their bounds and conditions subtract and compare (``-n + c1 + 3``, ``n - 2 > 0``), which C
    would do modulo 2^64 in the parameter's own type."""
    return {p: Cast("long long", Sym(p)) for p in scop.params if wraps(scop.sdfg.container_map, p)}


def ast_expr_to_ir(e: isl.AstExpr, rename: dict[str, Expr]) -> Expr:
    t = e.get_type()
    if t == isl.ast_expr_type.int:
        return Const(str(e.get_val().to_python()))
    if t == isl.ast_expr_type.id:
        name = e.get_id().get_name()
        return rename.get(name, Sym(name))
    op = e.get_op_type()
    args = [ast_expr_to_ir(e.get_op_arg(k), rename) for k in range(e.get_op_n_arg())]
    if op in _BINARY:
        result = args[0]
        for a in args[1:]:
            result = Binary(_BINARY[op], result, a)
        return result
    if op == isl.ast_expr_op_type.minus:
        return negate(args[0])
    if op in (isl.ast_expr_op_type.min, isl.ast_expr_op_type.max):
        cmp = "<" if op == isl.ast_expr_op_type.min else ">"
        result = args[0]
        for a in args[1:]:
            result = Ternary(Binary(cmp, result, a), result, a)
        return result
    if op == isl.ast_expr_op_type.fdiv_q:
        a, b = args
        # floor division for a positive constant divisor, without a helper macro
        return Ternary(Binary("<", a, Const("0")),
                       Unary("-", Binary("/", Binary("-", Binary("+", Unary("-", a), b), Const("1")), b)),
                       Binary("/", a, b))
    if op in (isl.ast_expr_op_type.cond, isl.ast_expr_op_type.select):
        return Ternary(*args)
    if op == isl.ast_expr_op_type.call:
        return Call(str(args[0].name) if isinstance(args[0], Sym) else "?", tuple(args[1:]))
    raise CodegenError(f"isl AST operation {op} not supported")


class _Generator:
    def __init__(self, scop: Scop, fresh_ids: itertools.count, build: isl.AstBuild):
        self.scop = scop
        self.build = build
        self.statements = {s.name: s for s in scop.statements}
        self.original_for = {l.node.var: l.node for l in scop.loops}
        self.used_ids: set[str] = set()
        self.fresh = fresh_ids
        self.new_vars: list[str] = []

    def _id(self, base: str) -> str:
        if base not in self.used_ids:
            self.used_ids.add(base)
            return base
        return f"{base}_{next(self.fresh)}"  # (isl statement names allow no dots)

    def node(self, n: isl.AstNode, rename: dict[str, Expr]) -> list[ControlNode]:
        t = n.get_type()
        if t == isl.ast_node_type.block:
            children = n.block_get_children()
            return [c for k in range(children.n_ast_node()) for c in self.node(children.get_at(k), rename)]
        if t == isl.ast_node_type.for_:
            return [self._for(n, rename)]
        if t == isl.ast_node_type.if_:
            cond = ast_expr_to_ir(n.if_get_cond(), rename)
            then = Sequence(self._id("S.then"), tuple(self.node(n.if_get_then_node(), rename)))
            other = None
            if n.if_has_else_node():
                other = Sequence(self._id("S.else"), tuple(self.node(n.if_get_else_node(), rename)))
            return [IfElse(self._id("C.gen"), cond, then, other)]
        if t == isl.ast_node_type.user:
            return [self._user(n.user_get_expr(), rename)]
        if t == isl.ast_node_type.mark:
            child = n.mark_get_node()
            kind, depth = parse_mark(n.mark_get_id().get_name())
            kernel = parse_mark_name(kind)
            if kernel is not None:
                # the library node runs the statement's whole domain; isl's loops for it are unused
                name, blocking, parallel = kernel
                pattern = match_matmul(self.scop, self.statements[name])
                if pattern is None or any(Sym(b) not in rename.values() for b in pattern.batch):
                    # (the tree puts a loop named after each batch iterator around the mark)
                    raise CodegenError(f"matrix-multiply kernel {name} outside its batch loops")
                bound = lambda pa: ast_expr_to_ir(self.build.expr_from_pw_aff(pa), signed_parameters(self.scop))  # noqa: E731
                return [matmul_block(self.scop, self.statements[name], pattern, blocking, parallel, bound,
                                     self._id(self.statements[name].block.id))]
            kind, omp_schedule = parse_parallel_mark(kind)
            schedule = _MARK_SCHEDULES.get(kind)
            # the marked band member's loop may come in pieces (the whole groups of an
            # unroll-and-jam isolated from the partial one): each piece runs as marked
            pieces = [child]
            if child.get_type() == isl.ast_node_type.block:
                children = child.block_get_children()
                pieces = [children.get_at(k) for k in range(children.n_ast_node())]
            inner = []
            for piece in pieces:
                made = self.node(piece, rename)
                # only the loop of the marked band member (see tree.mark_id), never the next one
                marked_loop = (piece.get_type() == isl.ast_node_type.for_ and depth is not None
                               and piece.for_get_iterator().get_id().get_name() == f"c{depth}")
                if (schedule is not None and marked_loop and len(made) == 1 and isinstance(made[0], For)
                        and not (schedule is Schedule.SIMD and (_invariant_guard(made[0]) or _calls(made[0])))):
                    made = [loop_as_map(made[0], schedule, omp_schedule)]
                inner.extend(made)
            return inner
        raise CodegenError(f"isl AST node {t} not supported")

    def _for(self, n: isl.AstNode, rename: dict[str, Expr]) -> For:
        iterator = n.for_get_iterator().get_id().get_name()
        name, sign = self._original_name(n, iterator, rename)
        inner = dict(rename)
        inner[iterator] = Sym(name) if sign > 0 else Unary("-", Sym(name))
        original = self.original_for.get(name)
        # the loop's own bounds are in terms of the AST iterator, i.e. of sign * name
        init = ast_expr_to_ir(n.for_get_init(), rename)
        cond = ast_expr_to_ir(n.for_get_cond(), {**rename, iterator: Sym(iterator)})
        inc = ast_expr_to_ir(n.for_get_inc(), rename)
        if sign < 0:
            cond = _reverse_condition(cond, iterator, name)
            init, update = negate(init), Binary("-", Sym(name), inc)
        else:
            cond = ex.substitute(cond, {iterator: Sym(name)})
            update = Binary("+", Sym(name), inc)
        body = Sequence(self._id(original.body.id if original else "S.gen"), tuple(self.node(n.for_get_body(), inner)))
        if original is None:
            self.new_vars.append(name)
        loop_id = self._id(original.id if original else "L.gen")
        return For(loop_id, name, init, cond, update, body,
                   declares_var=original.declares_var if original else True)

    def _original_name(self, n: isl.AstNode, iterator: str, rename: dict[str, Expr]) -> tuple[str, int]:
        """The original loop variable this AST loop enumerates (and whether it runs backwards,
        as ``-i``), if every statement below says so; else a fresh name."""
        candidates: set[tuple[str, int]] = set()
        ok = True

        def is_iterator(arg: isl.AstExpr) -> bool:
            return arg.get_type() == isl.ast_expr_type.id and arg.get_id().get_name() == iterator

        def visit(node: isl.AstNode) -> bool:
            nonlocal ok
            if node.get_type() == isl.ast_node_type.user:
                call = node.user_get_expr()
                stmt = self.statements[call.get_op_arg(0).get_id().get_name()]
                hits = []
                for k in range(1, call.get_op_n_arg()):
                    arg = call.get_op_arg(k)
                    if is_iterator(arg):
                        hits.append((stmt.iterators[k - 1], 1))
                    elif (arg.get_type() == isl.ast_expr_type.op and arg.get_op_type() == isl.ast_expr_op_type.minus
                          and is_iterator(arg.get_op_arg(0))):
                        hits.append((stmt.iterators[k - 1], -1))
                if len(hits) > 1:  # (none: isl fixed this statement's value of the loop variable)
                    ok = False
                candidates.update(hits)
            return True

        n.foreach_descendant_top_down(visit)
        taken = {v.name for v in rename.values() if isinstance(v, Sym)} | {
            v.operand.name for v in rename.values() if isinstance(v, Unary) and isinstance(v.operand, Sym)}
        if ok and len(candidates) == 1:
            ((name, sign),) = candidates
            if name not in taken and not wraps(self.scop.sdfg.container_map, name):   # (an unsigned one: a fresh int)
                return name, sign
        return self._fresh_var(iterator, taken), 1

    def _fresh_var(self, base: str, taken: set[str]) -> str:
        containers = self.scop.sdfg.container_map
        name = base
        k = 0
        while name in containers or name in taken:
            k += 1
            name = f"{base}_{k}"
        return name

    def _user(self, call: isl.AstExpr, rename: dict[str, Expr]) -> Block:
        stmt = self.statements[call.get_op_arg(0).get_id().get_name()]
        values = [ast_expr_to_ir(call.get_op_arg(k), rename) for k in range(1, call.get_op_n_arg())]
        containers = self.scop.sdfg.container_map
        # (a variable of an unsigned type keeps it: ``i - 5`` in the statement wraps as written)
        mapping = {var: Cast(str(containers[var].dtype), v) if wraps(containers, var) and v != Sym(var) else v
                   for var, v in zip(stmt.iterators, values)}
        identity = all(v == Sym(k) for k, v in mapping.items())
        block = stmt.block if identity else substitute_block(stmt.block, mapping)
        return dataclasses.replace(block, id=self._id(stmt.block.id))


_MARK_SCHEDULES = {PARALLEL_MARK: Schedule.CPU_MULTICORE, SIMD_MARK: Schedule.SIMD}
# what compilers vectorize as instructions; other calls in an ``omp simd`` loop (``sqrtf``, which
# may set errno) make clang warn that the loop was not vectorized, an error under -Werror
_VECTOR_CALLS = frozenset({"fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "min", "max"})


def _calls(loop: For) -> bool:
    """Whether ``loop``'s statements call a function compilers do not vectorize as written."""
    return any(ex.calls(t.expr) - _VECTOR_CALLS for b in walk(loop.body) if isinstance(b, Block)
               for t in b.graph.nodes if isinstance(t, Tasklet))


def _invariant_guard(loop: For) -> bool:
    """Whether ``loop``'s body has a guard that does not change with the loop (an unroll-and-jam's
    copies past the last row, each under its own ``if``): a compiler left free takes such a test
    out of the loop and vectorizes each version, where ``omp simd`` makes it mask every
    iteration (three times slower on a jammed stencil)."""
    return any(isinstance(n, IfElse) and loop.var not in ex.names(n.cond) for n in walk(loop.body))


def loop_as_map(loop: For, schedule: Schedule, omp_schedule: str | None = None) -> ControlNode:
    """A counted loop ``for (v = a; v <= b; v += s)`` as a Map; other loop shapes stay For."""
    v = Sym(loop.var)
    cond, update = loop.cond, loop.update
    if not (isinstance(update, Binary) and update.op == "+" and update.lhs == v):
        return loop
    if isinstance(cond, Binary) and cond.lhs == v and cond.op in ("<", "<=") and loop.var not in ex.names(cond.rhs):
        stop = cond.rhs if cond.op == "<" else ex.plus_one(cond.rhs)
        return Map(loop.id, loop.var, loop.init, stop, update.rhs, loop.body, schedule, omp_schedule=omp_schedule)
    return loop


_FLIP = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}


def _reverse_condition(cond: Expr, iterator: str, name: str) -> Expr:
    """``c <= ub`` with ``c = -name`` becomes ``name >= -ub`` (conjunctions term by term)."""
    if isinstance(cond, Binary) and cond.op == "&&":
        return Binary("&&", _reverse_condition(cond.lhs, iterator, name), _reverse_condition(cond.rhs, iterator, name))
    if isinstance(cond, Binary) and cond.op in _FLIP and cond.lhs == Sym(iterator) and iterator not in ex.names(cond.rhs):
        return Binary(_FLIP[cond.op], Sym(name), negate(cond.rhs))
    return ex.substitute(cond, {iterator: Unary("-", Sym(name))})


def substitute_block(block: Block, mapping: dict[str, Expr]) -> Block:
    """``block`` with loop variables replaced (in memlet subsets and tasklet bodies)."""

    def sub(s):
        if isinstance(s, Range):
            return Range(ex.substitute(s.start, mapping), ex.substitute(s.stop, mapping), ex.substitute(s.step, mapping))
        return ex.substitute(s, mapping)

    nodes = tuple(dataclasses.replace(n, expr=ex.substitute(n.expr, mapping)) if isinstance(n, Tasklet) else n
                  for n in block.graph.nodes)
    edges = tuple(dataclasses.replace(e, subset=tuple(sub(s) for s in e.subset)) for e in block.graph.edges)
    return dataclasses.replace(block, graph=dataclasses.replace(block.graph, nodes=nodes, edges=edges))


def generate(scop: Scop, schedule: isl.Schedule | None = None,
             ast: isl.AstNode | None = None) -> tuple[Sequence, list[str]]:
    """IR for ``scop`` executed in the order of ``schedule`` (default: its original schedule), from
    ``ast`` when the caller already has isl's AST of that schedule.

    Returns the new sequence (hoisted declarations of the SCoP's temporaries first) and the names
    of loop variables code generation had to invent (the caller declares them as ``int``)."""
    schedule = schedule if schedule is not None else scop.schedule_tree
    build = isl.AstBuild.from_context(scop.context)
    if ast is None:
        ast = build.node_from_schedule(schedule)
    gen = _Generator(scop, itertools.count(), build)
    body = merge_adjacent_loops(Sequence("S.gen", tuple(gen.node(ast, signed_parameters(scop)))), scop.params,
                                scop.context).children
    used = {m.get_tuple_name(isl.dim_type.out) for st in scop.statements for _, m in st.accesses}
    hoisted = [_hoisted(scop, name) for name in scop.declared] + [
        _hoisted(scop, name) for name in scop.fresh if name in used]
    return Sequence(f"S.scop.{scop.nodes[0].id}", tuple(hoisted) + body), gen.new_vars


def _hoisted(scop: Scop, name: str) -> Declare:
    """The declaration of a SCoP's temporary at the top of its new code. Each of its reads follows a
    write in the statements' order; a plain number is set anyway where the type takes one, since
    gcc cannot always see that through tiled loops (-Wmaybe-uninitialized, where the user's code
    drew no warning)."""
    data = scop.sdfg.container_map.get(name)
    plain = isinstance(data, Scalar) and (data.dtype.is_integer or data.dtype.is_float
                                          or data.dtype.kind is TypeKind.POINTER)
    return Declare(f"D.hoist.{name}", name, init_text="0" if plain else None, assigned_later=True)


