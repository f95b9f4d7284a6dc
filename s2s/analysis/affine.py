"""IR expressions -> isl, with named dimensions. Every use of isl for affine expressions goes
through here, so no other module counts dimension positions."""
from __future__ import annotations

from typing import Mapping, Sequence

import islpy as isl

from s2s.analysis.c_arith import TypeOf, converted, ring_only, type_of, width, wrapping
from s2s.ir import Binary, Call, Cast, Const, Expr, Sym, Ternary, Unary
from s2s.ir.types import TypeKind, scalar_type

CTX = isl.DEFAULT_CONTEXT  # the context of objects islpy parses from strings

INT_CASTS = {"int", "long", "unsigned", "unsigned int", "long long", "unsigned long", "size_t", "short",
              "long int", "unsigned long long", "int64_t", "int32_t", "uint64_t", "uint32_t", "ptrdiff_t"}


class NotAffine(Exception):
    """The expression is not affine (quasi-affine) in the loop variables and parameters."""


def set_space(name: str | None, dims: Sequence[str], params: Sequence[str]) -> isl.Space:
    space = isl.Space.create_from_names(CTX, set=list(dims), params=list(params))
    return space.set_tuple_name(isl.dim_type.set, name) if name else space


def universe(name: str | None, dims: Sequence[str], params: Sequence[str]) -> isl.Set:
    return isl.Set.universe(set_space(name, dims, params))


class AffineBuilder:
    """Builds PwAffs and Sets over one named space (``dims`` are loop variables, ``params`` the
    SCoP's parameters)."""

    def __init__(self, dims: Sequence[str], params: Sequence[str], name: str | None = None,
                 sizes: Mapping[int, tuple[str, int]] | None = None, types: TypeOf | None = None):
        self.dims = list(dims)
        self.params = list(params)
        self.space = set_space(name, dims, params)
        self.domain = isl.Set.universe(self.space)
        self.ls = isl.LocalSpace.from_space(self.space)
        # constants read as a parameter plus an offset where they add (size_parameters.py); a
        # factor or divisor stays the constant it is
        self.sizes = dict(sizes or {})
        self._factors = 0   # > 0 while the operands of a product or division are read
        # with ``types`` (the C type of each name), where C's unsigned values are the model's: per
        # subexpression C computes modulo 2^n, the set where it is not negative (``take_wrapping``)
        self.types = types
        self.wrapping: list[isl.Set] = []

    def const(self, value: int) -> isl.PwAff:
        val = isl.Val.int_from_si(CTX, value) if -2 ** 63 <= value < 2 ** 63 else isl.Val.read_from_str(CTX, str(value))
        return isl.PwAff.from_aff(isl.Aff.val_on_domain(self.ls, val))

    def var(self, name: str) -> isl.PwAff:
        # the innermost loop variable of that name wins (loops may reuse a name only when renamed)
        if name in self.dims:
            pos = len(self.dims) - 1 - self.dims[::-1].index(name)
            return isl.PwAff.var_on_domain(self.ls, isl.dim_type.set, pos)
        if name in self.params:
            return isl.PwAff.var_on_domain(self.ls, isl.dim_type.param, self.params.index(name))
        raise NotAffine(f"{name!r} is neither a loop variable nor a parameter")

    def take_wrapping(self) -> list[isl.Set]:
        """The sets (over this builder's space) where the unsigned subexpressions read since the
        last call keep their C values; the caller requires them where the expressions run."""
        out, self.wrapping = self.wrapping, []
        return out

    def _unsigned(self, e: Expr, value: isl.PwAff, t=None) -> isl.PwAff:
        if self.types is not None:
            t = t or type_of(e, self.types)
            if wrapping(t):
                # (below 0 only: a sum of sizes and counters past 2^n is not a loop nest anyone runs)
                self.wrapping.append(value.ge_set(self.const(0)))
        return value

    def pw_aff(self, e: Expr) -> isl.PwAff:
        if isinstance(e, Cast) and self.types is not None:
            return self._cast(e)
        value = self._pw_aff(e)
        return self._unsigned(e, value) if isinstance(e, (Binary, Unary)) else value

    def _cast(self, e: Cast) -> isl.PwAff:
        """A cast: to an unsigned type, its value must not be negative; to a signed type of n
        bits, of sums and products computed modulo 2^m, m >= n (``(int)((unsigned)i + (unsigned)-1)``,
        as LLVM's front ends write ``i - 1``), its value is the model's whatever they wrapped."""
        first = len(self.wrapping)
        value = self._pw_aff(e)
        target = scalar_type(e.type)
        if target.kind is TypeKind.SIGNED and ring_only(e.operand, width(target), self.types):
            del self.wrapping[first:]
            return value
        return self._unsigned(e, value)

    def _pw_aff(self, e: Expr) -> isl.PwAff:
        if isinstance(e, Const):
            v = e.int_value
            if v is None:
                raise NotAffine(f"constant {e.text}")
            if self.sizes and not self._factors and abs(v) in self.sizes:
                param, offset = self.sizes[abs(v)]
                size = self.var(param).add(self.const(offset))
                return size if v > 0 else size.neg()
            return self.const(v)
        if isinstance(e, Sym):
            return self.var(e.name)
        if isinstance(e, Cast):
            if " ".join(e.type.split()) not in INT_CASTS:
                raise NotAffine(f"cast to {e.type}")
            return self.pw_aff(e.operand)
        if isinstance(e, Unary):
            if e.op == "-":
                return self.pw_aff(e.operand).neg()
            if e.op == "+":
                return self.pw_aff(e.operand)
            raise NotAffine(f"unary {e.op}")
        if isinstance(e, Binary):
            if e.op in ("+", "-"):
                a, b = self.pw_aff(e.lhs), self.pw_aff(e.rhs)
                return a.add(b) if e.op == "+" else a.sub(b)
            if e.op == "*":
                a, b = self._factor(e.lhs), self._factor(e.rhs)
                if not (a.is_cst() or b.is_cst()):
                    raise NotAffine("product of two variables")
                return a.mul(b)
            if e.op in ("/", "%"):
                a, b = self._factor(e.lhs), self._factor(e.rhs)
                if not b.is_cst():
                    raise NotAffine("division by a variable")
                return a.tdiv_q(b) if e.op == "/" else a.tdiv_r(b)  # C truncates toward zero
            raise NotAffine(f"operator {e.op} in an index")
        if isinstance(e, Ternary):
            cond = self.condition(e.cond)
            return isl.PwAff.cond(cond.indicator_function(), self.pw_aff(e.then), self.pw_aff(e.other))
        if isinstance(e, Call) and e.func in ("min", "max") and len(e.args) == 2:
            a, b = self.pw_aff(e.args[0]), self.pw_aff(e.args[1])
            return a.min(b) if e.func == "min" else a.max(b)
        raise NotAffine(f"{type(e).__name__} expression")

    def _factor(self, e: Expr) -> isl.PwAff:
        """``e`` as an operand of a product or division: its constants stay constants."""
        self._factors += 1
        try:
            return self.pw_aff(e)
        finally:
            self._factors -= 1

    def condition(self, e: Expr) -> isl.Set:
        if isinstance(e, Binary):
            if e.op == "&&":
                return self.condition(e.lhs).intersect(self.condition(e.rhs))
            if e.op == "||":
                return self.condition(e.lhs).union(self.condition(e.rhs))
            compare = {"<": "lt_set", "<=": "le_set", ">": "gt_set", ">=": "ge_set", "==": "eq_set", "!=": "ne_set"}
            if e.op in compare:
                a, b = self.pw_aff(e.lhs), self.pw_aff(e.rhs)
                if self.types is not None:   # (both operands are compared as their common type)
                    common = converted(type_of(e.lhs, self.types), type_of(e.rhs, self.types))
                    if wrapping(common):
                        self._unsigned(e.lhs, a, common)
                        self._unsigned(e.rhs, b, common)
                return getattr(a, compare[e.op])(b)
        if isinstance(e, Unary) and e.op == "!":
            return self.condition(e.operand).complement()
        # any other integer expression: true when non-zero
        return self.pw_aff(e).non_zero_set()


def aff_expr(aff: isl.Aff, params: Sequence[str]) -> Expr:
    """``aff``, a function of the parameters ``params`` alone, as a C expression (NotAffine for
    one with a division)."""
    if not aff.get_denominator_val().is_one() or aff.dim(isl.dim_type.div) > 0:
        raise NotAffine("bound with a division")
    terms = [(aff.get_coefficient_val(isl.dim_type.param, k).to_python(), name) for k, name in enumerate(params)]
    terms = [t for t in terms if t[0] > 0] + [t for t in terms if t[0] < 0]   # (k - c2, not -1 * c2 + k)
    out: Expr | None = None
    for c, name in terms:
        size = abs(c)
        term: Expr = Sym(name) if size == 1 else Binary("*", Const(str(size)), Sym(name))
        if out is None:
            out = term if c > 0 else Binary("*", Const(str(c)), Sym(name))
        else:
            out = Binary("+" if c > 0 else "-", out, term)
    const = aff.get_constant_val().to_python()
    if out is None:
        return Const(str(const))
    if const:
        out = Binary("+", out, Const(str(const))) if const > 0 else Binary("-", out, Const(str(-const)))
    return out

def named(s: isl.Set | isl.Map, tuple_name: str) -> isl.Set:
    return s.set_tuple_name(tuple_name)


def only_through(domain: isl.Set, dims: tuple[int, ...]) -> isl.Set:
    """``domain`` constrained only through ``dims`` (the others projected out and put back free)."""
    out = domain
    for d in reversed(range(domain.dim(isl.dim_type.set))):
        if d not in dims:
            out = out.project_out(isl.dim_type.set, d, 1).insert_dims(isl.dim_type.set, d, 1)
    return out.set_tuple_name(domain.get_tuple_name())


def is_product(s: isl.Set) -> bool:
    """Whether each dimension's bounds are independent of the others' (conditions on the
    parameters alone allowed): ``s`` is the product of its projections on each dimension."""
    product = isl.Set.universe(s.get_space()).intersect_params(s.params())
    for d in range(s.dim(isl.dim_type.set)):
        product = product.intersect(only_through(s, (d,)))
    return product.is_equal(s)
