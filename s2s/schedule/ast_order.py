"""The order in which isl's AST runs the statement instances, read back from the AST itself.

A schedule proven legal is only half the proof: the code is what runs, and isl's AST generator
is not free of bugs (docs/fuzzing.md, seed 2008158). So the AST is read back as a polyhedral
relation, each statement instance to the time the AST runs it at (loop iterators and positions
in blocks, as a 2d+1 schedule), and that relation is checked like a schedule: every instance of
the domain runs, exactly once, and every dependence still goes forward.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from s2s.analysis.dependences import Dependences
from s2s.analysis.scop import Scop
from s2s.schedule.legality import is_legal
from s2s.time_limit import TimeLimitExceeded, isl_operation_limit, run_with_cpu_limit

# Reading back and checking a tiled AST costs a few times the schedule's own check
AST_CHECK_OPERATIONS = 2_000_000
AST_CHECK_BUDGET_S = 2.0
TOO_DEAR = "the generated code is too dear to check"


class AstNotUnderstood(Exception):
    """An AST construct this reader does not model (its order cannot be checked)."""


@dataclass(frozen=True)
class _TimeEntry:
    """One coordinate of a user node's time: a block position, or an enclosing loop's iterator."""
    position: int | None = None
    iterator: int | None = None


@dataclass(frozen=True)
class _Instance:
    """A user node: where it runs (a set of iterator values), what it runs, and when."""
    where: isl.Set
    statement: str
    args: tuple[isl.PwAff, ...]
    time: tuple[_TimeEntry, ...]


class _Reader:
    def __init__(self, scop: Scop):
        self.scop = scop
        self.params = scop.context.get_space()
        self.found: list[_Instance] = []

    def node(self, n: isl.AstNode, where: isl.Set, names: list[str], time: tuple[_TimeEntry, ...]) -> None:
        t = n.get_type()
        if t == isl.ast_node_type.block:
            children = n.block_get_children()
            for k in range(children.n_ast_node()):
                self.node(children.get_at(k), where, names, time + (_TimeEntry(position=k),))
        elif t == isl.ast_node_type.for_:
            self._for(n, where, names, time)
        elif t == isl.ast_node_type.if_:
            cond = _Expressions(where.get_space(), names).condition(n.if_get_cond())
            self.node(n.if_get_then_node(), where.intersect(cond), names, time)
            if n.if_has_else_node():
                self.node(n.if_get_else_node(), where.subtract(cond), names, time)
        elif t == isl.ast_node_type.user:
            call = n.user_get_expr()
            if call.get_type() != isl.ast_expr_type.op or call.get_op_type() != isl.ast_expr_op_type.call:
                raise AstNotUnderstood("a user node that is not a call")
            exprs = _Expressions(where.get_space(), names)
            args = tuple(exprs.value(call.get_op_arg(k)) for k in range(1, call.get_op_n_arg()))
            self.found.append(_Instance(where, call.get_op_arg(0).get_id().get_name(), args, time))
        elif t == isl.ast_node_type.mark:
            self.node(n.mark_get_node(), where, names, time)
        else:
            raise AstNotUnderstood(f"AST node {t}")

    def _for(self, n: isl.AstNode, where: isl.Set, names: list[str], time: tuple[_TimeEntry, ...]) -> None:
        inc = _Expressions.constant(n.for_get_inc())
        if inc <= 0:
            raise AstNotUnderstood("a loop that does not count upward")
        iterator = n.for_get_iterator().get_id().get_name()
        k = len(names)
        inner_names = names + [iterator]
        body = where.add_dims(isl.dim_type.set, 1).set_dim_name(isl.dim_type.set, k, iterator)
        exprs = _Expressions(body.get_space(), inner_names)
        body = body.intersect(exprs.compare(isl.ast_expr_op_type.ge, n.for_get_iterator(), n.for_get_init()))
        body = body.intersect(exprs.condition(n.for_get_cond()))
        if inc > 1:
            offset = exprs.value(n.for_get_iterator()).sub(exprs.value(n.for_get_init()))
            body = body.intersect(offset.mod_val(isl.Val.int_from_si(body.get_ctx(), inc)).zero_set())
        self.node(n.for_get_body(), body, inner_names, time + (_TimeEntry(iterator=k),))

    def order(self) -> isl.UnionMap:
        depth = max((len(i.time) for i in self.found), default=0)
        statements = {s.name: s for s in self.scop.statements}
        out = None
        for inst in self.found:
            stmt = statements.get(inst.statement)
            if stmt is None or len(inst.args) != len(stmt.iterators):
                raise AstNotUnderstood(f"a call to {inst.statement} the SCoP does not have")
            space = inst.where.get_space()
            to_instance = _map_of(space, inst.args).set_tuple_name(isl.dim_type.out, inst.statement)
            coordinates = tuple(_time_value(space, e) for e in inst.time)
            coordinates += tuple(_time_value(space, _TimeEntry(position=0)) for _ in range(depth - len(inst.time)))
            to_time = _map_of(space, coordinates)
            relation = to_instance.intersect_domain(inst.where).reverse().apply_range(to_time)
            relation = isl.UnionMap.from_map(relation)
            out = relation if out is None else out.union(relation)
        if out is None:
            return isl.UnionMap.empty(self.params)
        return out


def _map_of(space: isl.Space, values: tuple[isl.PwAff, ...]) -> isl.Map:
    """The map from ``space`` to the tuple of ``values`` (each a function on ``space``)."""
    result = isl.Map.from_domain(isl.Set.universe(space))
    for v in values:
        result = result.flat_range_product(isl.Map.from_pw_aff(v))
    return result


def _time_value(space: isl.Space, entry: _TimeEntry) -> isl.PwAff:
    ls = isl.LocalSpace.from_space(space)
    if entry.iterator is not None:
        return isl.PwAff.from_aff(isl.Aff.var_on_domain(ls, isl.dim_type.set, entry.iterator))
    return isl.PwAff.from_aff(isl.Aff.val_on_domain(ls, isl.Val.int_from_si(space.get_ctx(), entry.position)))


class _Expressions:
    """isl AST expressions as isl functions (values) and sets (conditions) on a loop nest's
    iterators and the SCoP's parameters."""

    _COMPARISONS = {
        isl.ast_expr_op_type.eq: "eq_set", isl.ast_expr_op_type.le: "le_set", isl.ast_expr_op_type.lt: "lt_set",
        isl.ast_expr_op_type.ge: "ge_set", isl.ast_expr_op_type.gt: "gt_set",
    }

    def __init__(self, space: isl.Space, names: list[str]):
        self.space = space
        self.ls = isl.LocalSpace.from_space(space)
        self.iterators = {name: k for k, name in enumerate(names)}
        self.params = {space.get_dim_name(isl.dim_type.param, k): k for k in range(space.dim(isl.dim_type.param))}

    @staticmethod
    def constant(e: isl.AstExpr) -> int:
        if e.get_type() != isl.ast_expr_type.int:
            raise AstNotUnderstood("a loop step that is not a constant")
        return e.get_val().to_python()

    def value(self, e: isl.AstExpr) -> isl.PwAff:
        t = e.get_type()
        if t == isl.ast_expr_type.int:
            return isl.PwAff.from_aff(isl.Aff.val_on_domain(self.ls, e.get_val()))
        if t == isl.ast_expr_type.id:
            name = e.get_id().get_name()
            if name in self.iterators:
                return isl.PwAff.from_aff(isl.Aff.var_on_domain(self.ls, isl.dim_type.set, self.iterators[name]))
            if name in self.params:
                return isl.PwAff.from_aff(isl.Aff.var_on_domain(self.ls, isl.dim_type.param, self.params[name]))
            raise AstNotUnderstood(f"unknown name {name}")
        op = e.get_op_type()
        ops = isl.ast_expr_op_type
        args = [e.get_op_arg(k) for k in range(e.get_op_n_arg())]
        if op in (ops.select, ops.cond):
            return self.condition(args[0]).indicator_function().cond(self.value(args[1]), self.value(args[2]))
        values = [self.value(a) for a in args]
        if op == ops.add:
            return values[0].add(values[1])
        if op == ops.sub:
            return values[0].sub(values[1])
        if op == ops.mul:
            return values[0].mul(values[1])
        if op == ops.minus:
            return values[0].neg()
        if op in (ops.min, ops.max):
            result = values[0]
            for v in values[1:]:
                result = result.min(v) if op == ops.min else result.max(v)
            return result
        if op in (ops.div, ops.fdiv_q, ops.pdiv_q):
            return values[0].div(values[1]).floor()
        if op in (ops.pdiv_r, ops.zdiv_r):
            # (isl emits zdiv_r only to test divisibility, where it agrees with the modulo)
            return values[0].mod_val(isl.Val.int_from_si(self.space.get_ctx(), self.constant(args[1])))
        raise AstNotUnderstood(f"AST operation {op}")

    def condition(self, e: isl.AstExpr) -> isl.Set:
        if e.get_type() != isl.ast_expr_type.op:
            raise AstNotUnderstood("a condition that is not a comparison")
        op = e.get_op_type()
        ops = isl.ast_expr_op_type
        args = [e.get_op_arg(k) for k in range(e.get_op_n_arg())]
        if op in (ops.and_, ops.and_then):
            return self.condition(args[0]).intersect(self.condition(args[1]))
        if op in (ops.or_, ops.or_else):
            return self.condition(args[0]).union(self.condition(args[1]))
        if op in self._COMPARISONS:
            return self.compare(op, args[0], args[1])
        raise AstNotUnderstood(f"AST condition {op}")

    def compare(self, op: isl.ast_expr_op_type, lhs: isl.AstExpr, rhs: isl.AstExpr) -> isl.Set:
        """``lhs op rhs``, a bound by a min or max taken apart: ``x <= min(a, b)`` as
        ``x <= a and x <= b`` (as a piecewise function, each of a loop's bounds would double the
        pieces of its iteration domain)."""
        ops = isl.ast_expr_op_type
        if op in _FLIPPED and _is_op(rhs, ops.min, ops.max) and not _is_op(lhs, ops.min, ops.max):
            return self.compare(_FLIPPED[op], rhs, lhs)
        if op in _FLIPPED and _is_op(lhs, ops.min, ops.max):
            # min(a, b) >= x: both; min(a, b) <= x: either (and the other way round for max)
            both = (lhs.get_op_type() == ops.min) == (op in (ops.ge, ops.gt))
            parts = [self.compare(op, lhs.get_op_arg(k), rhs) for k in range(lhs.get_op_n_arg())]
            result = parts[0]
            for p in parts[1:]:
                result = result.intersect(p) if both else result.union(p)
            return result
        return getattr(self.value(lhs), self._COMPARISONS[op])(self.value(rhs))


_FLIPPED = {isl.ast_expr_op_type.le: isl.ast_expr_op_type.ge, isl.ast_expr_op_type.ge: isl.ast_expr_op_type.le,
            isl.ast_expr_op_type.lt: isl.ast_expr_op_type.gt, isl.ast_expr_op_type.gt: isl.ast_expr_op_type.lt}


def _is_op(e: isl.AstExpr, *kinds: isl.ast_expr_op_type) -> bool:
    return e.get_type() == isl.ast_expr_type.op and e.get_op_type() in kinds


def ast_order(scop: Scop, ast: isl.AstNode) -> isl.UnionMap:
    """Each statement instance ``ast`` runs, to the time it runs it at (lexicographic order)."""
    reader = _Reader(scop)
    reader.node(ast, isl.Set.universe(scop.context.get_space().params().set_from_params()), [], ())
    return reader.order()


def ast_fault(scop: Scop, deps: Dependences, ast: isl.AstNode,
              max_operations: int = AST_CHECK_OPERATIONS, budget_s: float = AST_CHECK_BUDGET_S) -> str | None:
    """What is wrong with ``ast`` as code for ``scop`` (None: nothing): an instance of the
    domain it does not run, or runs twice, or a dependence it does not keep in order. Also a
    fault: an AST too dear to check (past ``max_operations`` isl steps or ``budget_s`` CPU seconds:
    isl's step counter misses some of its work, and it cannot be interrupted, so the check runs
    in a child process killed at the budget), or with a construct this reader does not model."""

    def check() -> str | None:
        try:
            with isl_operation_limit(max_operations):
                # (coalescing is exact; the checks below project each disjunct of what they read)
                order = ast_order(scop, ast).coalesce()
                domain = scop.domain.intersect_params(scop.context)
                ran = order.domain().intersect_params(scop.context)
                if not ran.is_equal(domain):
                    return "the generated code does not run every statement instance"
                if not order.is_single_valued():
                    return "the generated code runs a statement instance twice"
                if not is_legal(deps, order):
                    return "the generated code runs a dependence backwards"
        except AstNotUnderstood as why:
            return f"the generated code could not be read back ({why})"
        except isl.Error:
            return TOO_DEAR
        return None

    try:
        return run_with_cpu_limit(check, budget_s)
    except TimeLimitExceeded:
        return TOO_DEAR
