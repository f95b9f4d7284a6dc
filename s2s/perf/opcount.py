"""What one execution of a statement costs: arithmetic operations (from the tasklet's expression
tree) and memory accesses (from its memlets), statically.

The counting rule is PolyBench's (``polybench/registry.py``), so that a profile's FLOP count of a
PolyBench kernel equals the registry's formula:

* every binary ``+ - * /`` on data values counts 1, including the arithmetic of compound
  assignments (``x += a*b`` is 2); a call to a math function (``sqrt``, ``exp``, ``pow``, ``sin``,
  ...) counts 1, ``fma`` 2; ``fabs``, ``copysign`` and unary minus count 0 (sign-bit operations);
* a comparison of data values counts 1; ``&&``, ``||``, ``!`` count 0;
* integer arithmetic on loop variables, parameters and integer scalars (index arithmetic) is not
  counted; integer arithmetic on values loaded from integer arrays is (as integer ops, ``iops``);
* addresses (``&A[i]``, which the run-time alias checks around reordered code compute and
  compare) are not data: their arithmetic and comparisons count 0, and taking one loads nothing;
* an operation is floating-point when its result (for a comparison: its operands) has a floating
  type: ``f64`` for double and long double, ``f32`` for float;
* ``c ? a : b`` counts the condition plus the dearer branch, a branch's subexpressions that the
  condition already computed being free (``x < y + z ? x : y + z`` is ``min(x, y + z)``: 2). When
  the two branches cost differently the count is an upper bound and says so (``upper_bound``).

Accesses: per statement instance, each distinct array element read counts once and each distinct
element written counts once (``C[i][j] += ...`` is one load and one store); scalars live in
registers and do not count; an index read from an array (``B[idx[i]]``) is a read of ``idx``.
Bytes are accesses times the element size.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from s2s.ir import (
    SDFG, Access, Array, Binary, Block, Call, Cast, Const, Expr, LibraryNode, Range, ScalarType, SizeOf, Sym, Tasklet,
    Ternary, TypeKind, Unary, scalar_type,
)
from s2s.ir import expr as ex

OP_KINDS = ("add", "mul", "div", "cmp", "math", "other")
_ARITH = {"+": "add", "-": "add", "*": "mul", "/": "div", "%": "div"}
_COMPARE = {"<", "<=", ">", ">=", "==", "!="}
_BITWISE = {"&", "|", "^", "<<", ">>"}
_FREE_CALLS = {"fabs", "copysign", "abs", "labs", "llabs", "__builtin_fabs"}
_PASS_CALLS = {"__builtin_expect"}


@dataclass(frozen=True)
class OpCounts:
    """Operations of one evaluation (or, scaled, of many)."""

    f64: int = 0                 # floating-point ops in double (or long double)
    f32: int = 0                 # floating-point ops in float
    iops: int = 0                # integer ops on data values
    kinds: tuple[tuple[str, int], ...] = ()   # (kind, count) over OP_KINDS, all precisions
    upper_bound: bool = False    # a ?: with branches of different cost
    unknown: tuple[str, ...] = ()  # calls whose cost is not known (user functions)

    @property
    def flops(self) -> int:
        return self.f64 + self.f32

    def kind(self, name: str) -> int:
        return dict(self.kinds).get(name, 0)

    def __add__(self, o: "OpCounts") -> "OpCounts":
        k = dict(self.kinds)
        for name, n in o.kinds:
            k[name] = k.get(name, 0) + n
        return OpCounts(self.f64 + o.f64, self.f32 + o.f32, self.iops + o.iops,
                        tuple(sorted(k.items())), self.upper_bound or o.upper_bound,
                        tuple(sorted(set(self.unknown) | set(o.unknown))))

    def scaled(self, n: int) -> "OpCounts":
        return replace(self, f64=self.f64 * n, f32=self.f32 * n, iops=self.iops * n,
                       kinds=tuple((k, v * n) for k, v in self.kinds))

    @property
    def is_zero(self) -> bool:
        return not (self.f64 or self.f32 or self.iops)

    def to_json(self) -> dict:
        return {"flops": self.flops, "f64": self.f64, "f32": self.f32, "iops": self.iops, **dict(self.kinds),
                "upper_bound": self.upper_bound, "unknown_calls": list(self.unknown)}


ZERO = OpCounts()


def _one(kind: str, precision: str | None) -> OpCounts:
    """One op of ``kind``: ``precision`` "f64"/"f32" (floating) or None (integer data op)."""
    if precision == "f64":
        return OpCounts(f64=1, kinds=((kind, 1),))
    if precision == "f32":
        return OpCounts(f32=1, kinds=((kind, 1),))
    return OpCounts(iops=1, kinds=((kind, 1),))


# --- types ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ValueType:
    kind: str        # "f64", "f32" or "int"
    data: bool       # derived from memory (or floating): its arithmetic is counted


INT_INDEX = ValueType("int", False)
ADDRESS = INT_INDEX     # ``&A[i]``: arithmetic and comparisons on addresses are not data operations


def type_class(t: ScalarType | None) -> str | None:
    """"f64", "f32", "int", or None (pointers, structs, unknown typedefs)."""
    if t is None:
        return None
    if t.kind is TypeKind.FLOAT:
        return "f32" if t.bits == 32 else "f64"
    if t.is_integer:
        return "int"
    return None


def element_bytes(t: ScalarType | None) -> int | None:
    if t is None or not t.bits:
        return None
    return {8: 1, 16: 2, 32: 4, 64: 8, 80: 16, 128: 16}.get(t.bits)


_TYPEDEF = re.compile(r"\btypedef\s+([A-Za-z_][\w\s]*?)\s+([A-Za-z_]\w*)\s*;")


def lift_with_typedefs(source: str, cpp_args, cc: str = "cc"):
    """``source`` lifted (a ``TranslationUnit``), its text, and its plain scalar typedefs (none
    when its preprocessed text cannot be read for them)."""
    from pathlib import Path

    from frontends.c import lift_c_file
    from frontends.c.preprocess import preprocess

    text = Path(source).read_text(errors="surrogateescape")
    unit, _ = lift_c_file(source, list(cpp_args), cc, text=text)
    try:
        typedefs = typedefs_of(preprocess(source, list(cpp_args), cc))
    except Exception:
        typedefs = {}
    return unit, text, typedefs


def typedefs_of(preprocessed: str) -> dict[str, ScalarType]:
    """Plain scalar typedefs of a preprocessed file (``typedef double real;``), resolved through
    chains; what the IR keeps as kind OTHER."""
    raw: dict[str, str] = {}
    for m in _TYPEDEF.finditer(preprocessed):
        spelling = " ".join(m.group(1).split())
        if spelling.startswith(("struct", "union", "enum")):
            continue
        raw[m.group(2)] = spelling
    out: dict[str, ScalarType] = {}
    for name in raw:
        seen, spelling = set(), raw[name]
        while spelling in raw and spelling not in seen:
            seen.add(spelling)
            spelling = raw[spelling]
        t = scalar_type(spelling)
        if t.kind is not TypeKind.OTHER:
            out[name] = ScalarType(name, t.kind, t.bits)
    return out


class TypeEnv:
    """Types of the names an expression may use: containers of the SDFG, typedefs resolved."""

    def __init__(self, sdfg: SDFG, typedefs: dict[str, ScalarType] | None = None):
        self.containers = sdfg.container_map
        self.typedefs = typedefs or {}

    def dtype(self, name: str) -> ScalarType | None:
        c = self.containers.get(name)
        if c is None:
            return None
        return self.resolve(c.dtype)

    def resolve(self, t: ScalarType) -> ScalarType:
        if t.kind is TypeKind.OTHER:
            key = " ".join(t.spelling.replace("const", " ").replace("volatile", " ").split())
            return self.typedefs.get(key, t)
        return t

    def spelled(self, spelling: str) -> ScalarType:
        return self.resolve(scalar_type(spelling))

    def is_array(self, name: str) -> bool:
        return isinstance(self.containers.get(name), Array)

    def value_type(self, name: str, through_memory: bool) -> ValueType:
        cls = type_class(self.dtype(name)) or "int"
        return ValueType(cls, through_memory or cls != "int")


def _literal_type(text: str) -> ValueType:
    t = text.lower()
    if t.startswith(("'", '"')):
        return INT_INDEX
    is_hex = t.startswith("0x")
    if ("." in t or (not is_hex and "e" in t) or (is_hex and "p" in t)) and not t.endswith(("u", "ul", "ull")):
        return ValueType("f32" if t.endswith("f") else "f64", False)
    return INT_INDEX


def _promote(a: ValueType, b: ValueType) -> ValueType:
    order = {"int": 0, "f32": 1, "f64": 2}
    kind = a.kind if order[a.kind] >= order[b.kind] else b.kind
    return ValueType(kind, a.data or b.data)


# --- counting --------------------------------------------------------------------------------------------

class _Counter:
    def __init__(self, env: TypeEnv, data_syms: dict[str, str]):
        self.env = env
        self.data_syms = data_syms   # connector or scalar name -> container name (values from memory)

    def typeof(self, e: Expr) -> ValueType:
        return self.visit(e, frozenset())[0]

    def visit(self, e: Expr, free: frozenset) -> tuple[ValueType, OpCounts]:
        """(type, ops) of ``e``; subexpressions in ``free`` were computed already and cost nothing."""
        if isinstance(e, Const):
            return _literal_type(e.text), ZERO
        if isinstance(e, Sym):
            if e.name in self.data_syms:
                container = self.data_syms[e.name]
                return self.env.value_type(container, self.env.is_array(container)), ZERO
            return self.env.value_type(e.name, False), ZERO
        if isinstance(e, Access):
            ops = ZERO
            for i in e.indices:
                ops = ops + self._cost(i, free)
            return self.env.value_type(e.name, True), ops
        if isinstance(e, SizeOf):
            return INT_INDEX, ZERO
        if isinstance(e, Cast):
            t, ops = self.visit(e.operand, free)
            cls = type_class(self.env.spelled(e.type)) or "int"
            return ValueType(cls, t.data or cls != "int"), ops
        if isinstance(e, Unary) and e.op == "&":
            # An address (the run-time alias checks compare them): pointer arithmetic, no load. Only
            # what its subscripts compute counts (an index read from an array, ``&A[idx[i]]``).
            target = e.operand
            parts = target.indices if isinstance(target, Access) else (target,)
            ops = ZERO
            for part in parts:
                ops = ops + self._cost(part, free)
            return ADDRESS, ops
        if isinstance(e, Unary):
            t, ops = self.visit(e.operand, free)
            return (ValueType("int", t.data) if e.op == "!" else t), ops
        if isinstance(e, Binary):
            return self._binary(e, free)
        if isinstance(e, Ternary):
            ct, cops = self.visit(e.cond, free)
            inner_free = free | frozenset(ex.walk(e.cond))
            tt, tops = self.visit(e.then, inner_free) if e.then not in inner_free else (self.typeof(e.then), ZERO)
            ot, oops = self.visit(e.other, inner_free) if e.other not in inner_free else (self.typeof(e.other), ZERO)
            dearer = tops if _weight(tops) >= _weight(oops) else oops
            if _weight(tops) != _weight(oops):
                dearer = replace(dearer, upper_bound=True)
            return _promote(tt, ot), cops + dearer
        if isinstance(e, Call):
            return self._call(e, free)
        raise TypeError(f"cannot count {type(e).__name__}")

    def _cost(self, e: Expr, free: frozenset) -> OpCounts:
        return ZERO if e in free else self.visit(e, free)[1]

    def _binary(self, e: Binary, free: frozenset) -> tuple[ValueType, OpCounts]:
        lt, lops = (self.typeof(e.lhs), ZERO) if e.lhs in free else self.visit(e.lhs, free)
        rt, rops = (self.typeof(e.rhs), ZERO) if e.rhs in free else self.visit(e.rhs, free)
        ops = lops + rops
        t = _promote(lt, rt)
        if e.op in ("&&", "||"):
            return ValueType("int", t.data), ops
        if e.op in _COMPARE:
            if t.kind != "int":
                ops = ops + _one("cmp", t.kind)
            elif t.data:
                ops = ops + _one("cmp", None)
            return ValueType("int", t.data), ops
        if e.op in _ARITH:
            if t.kind != "int":
                ops = ops + _one(_ARITH[e.op], t.kind)
            elif t.data:
                ops = ops + _one(_ARITH[e.op], None)
            return t, ops
        if e.op in _BITWISE:
            if t.data:
                ops = ops + _one("other", None)
            return ValueType("int", t.data), ops
        return t, ops   # comma and the like: not produced by the front end

    def _call(self, e: Call, free: frozenset) -> tuple[ValueType, OpCounts]:
        ops = ZERO
        types = []
        for a in e.args:
            t, o = (self.typeof(a), ZERO) if a in free else self.visit(a, free)
            types.append(t)
            ops = ops + o
        name = e.func
        if name in _PASS_CALLS:
            return (types[0] if types else INT_INDEX), ops
        if name not in ex.PURE_FUNCTIONS:
            return ValueType("f64", True), replace(ops, unknown=tuple(sorted(set(ops.unknown) | {name})))
        base = name.removeprefix("__builtin_")
        if base in ("abs", "labs", "llabs"):
            return (types[0] if types else INT_INDEX), ops
        precision = "f32" if base.endswith("f") and base[:-1] in _MATH_BASES else "f64"
        if base in _FREE_CALLS or base.rstrip("fl") in _FREE_CALLS:
            return ValueType(precision, True), ops
        n = 2 if base.rstrip("fl") == "fma" else 1
        for _ in range(n):
            ops = ops + _one("math" if base.rstrip("fl") not in ("fmin", "fmax", "fdim") else "cmp", precision)
        return ValueType(precision, True), ops


_MATH_BASES = {f.rstrip("fl") for f in ex.PURE_FUNCTIONS} | {f for f in ex.PURE_FUNCTIONS}


def _weight(o: OpCounts) -> tuple[int, int]:
    return (o.flops, o.iops)


def expr_ops(e: Expr, env: TypeEnv, data_syms: dict[str, str] | None = None) -> OpCounts:
    """Operations of one evaluation of ``e`` (a control expression, or a tasklet body whose
    connectors ``data_syms`` maps to containers)."""
    return _Counter(env, data_syms or {}).visit(e, frozenset())[1]


def expr_accesses(e: Expr) -> list[Access]:
    """Distinct array elements read by a control expression (``j < len[i]``). ``&A[i]`` reads
    nothing of ``A`` (only what its subscripts read)."""
    out: list[Access] = []

    def visit(n: Expr, address_of: bool) -> None:
        if isinstance(n, Access) and not address_of and n not in out:
            out.append(n)
        for c in ex.children(n):
            visit(c, isinstance(n, Unary) and n.op == "&" and isinstance(c, Access))

    visit(e, False)
    return out


# --- statements -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cost:
    """What one execution of a block (or one evaluation of a control expression) does."""

    ops: OpCounts = ZERO
    reads: tuple[tuple[str, tuple], ...] = ()    # distinct (array, subset) read
    writes: tuple[tuple[str, tuple], ...] = ()   # distinct (array, subset) written
    bytes: int = 0                                # (reads + writes) x element size
    runtime_bytes: tuple[Expr, ...] = ()          # bytes known only at run time (memcpy sizes)
    exact: bool = True
    reasons: tuple[str, ...] = ()

    @property
    def accesses(self) -> int:
        return len(self.reads) + len(self.writes)

    @property
    def is_zero(self) -> bool:
        return self.ops.is_zero and not self.bytes and not self.runtime_bytes and not self.reads and not self.writes

    def __add__(self, o: "Cost") -> "Cost":
        return Cost(self.ops + o.ops, self.reads + o.reads, self.writes + o.writes, self.bytes + o.bytes,
                    self.runtime_bytes + o.runtime_bytes, self.exact and o.exact,
                    tuple(dict.fromkeys(self.reasons + o.reasons)))


def _element(data: str, subset) -> Expr:
    return Access(data, tuple(subset)) if subset else Sym(data)


def block_cost(block: Block, env: TypeEnv) -> Cost:
    reads: list[tuple[str, tuple]] = []
    writes: list[tuple[str, tuple]] = []
    ops = ZERO
    runtime: list[Expr] = []
    exact, reasons = True, []
    graph = block.graph

    def add_indices(subset) -> None:
        for s in subset:
            parts = (s.start, s.stop, s.step) if isinstance(s, Range) else (s,)
            for p in parts:
                for a in expr_accesses(p):
                    key = (a.name, a.indices)
                    if env.is_array(a.name) and key not in reads:
                        reads.append(key)

    for e in graph.reads():
        if env.is_array(e.data):
            if any(isinstance(s, Range) for s in e.subset):
                continue   # a library node's whole-array memlet: counted from its arguments
            key = (e.data, tuple(e.subset))
            if key not in reads:
                reads.append(key)
        add_indices(e.subset)
    for e in graph.writes():
        if env.is_array(e.data):
            if any(isinstance(s, Range) for s in e.subset):
                continue
            key = (e.data, tuple(e.subset))
            if key not in writes:
                writes.append(key)
        add_indices(e.subset)
    for comp in graph.computations():
        if isinstance(comp, Tasklet):
            inputs = {e.dst_conn: e for e in graph.in_edges(comp.id)}
            value = ex.substitute(comp.expr, {c: _element(m.data, m.subset) for c, m in inputs.items()
                                              if c is not None and not any(isinstance(s, Range) for s in m.subset)})
            o = expr_ops(value, env)
            ops = ops + o
            if o.unknown:
                exact = False
                reasons.append(f"calls {', '.join(o.unknown)} (their work is not counted)")
        elif isinstance(comp, LibraryNode):
            size = _library_bytes(comp)
            if size is None:
                exact = False
                reasons.append(f"{comp.name}: bytes not known")
            else:
                runtime.append(size)
    nbytes = 0
    for name, _ in reads + writes:
        size = element_bytes(env.dtype(name))
        if size is None:
            exact = False
            reasons.append(f"element size of {name} unknown")
        else:
            nbytes += size
    if ops.upper_bound:
        reasons.append("a ?: whose branches cost differently: its count is the dearer branch")
    return Cost(ops, tuple(reads), tuple(writes), nbytes, tuple(runtime), exact, tuple(reasons))


def _library_bytes(node: LibraryNode) -> Expr | None:
    """Bytes moved by memset (n written) and memcpy/memmove (n read and n written)."""
    if node.name == "memset" and len(node.args) == 3:
        return node.args[2]
    if node.name in ("memcpy", "memmove") and len(node.args) == 3:
        return Binary("*", Const("2"), node.args[2])
    return None


def control_cost(e: Expr, env: TypeEnv) -> Cost:
    """One evaluation of a control expression (a branch or loop condition)."""
    ops = expr_ops(e, env)
    reads = tuple((a.name, a.indices) for a in expr_accesses(e) if env.is_array(a.name))
    nbytes, exact, reasons = 0, True, []
    for name, _ in reads:
        size = element_bytes(env.dtype(name))
        if size is None:
            exact = False
            reasons.append(f"element size of {name} unknown")
        else:
            nbytes += size
    if ops.unknown:
        exact = False
        reasons.append(f"calls {', '.join(ops.unknown)} in a condition")
    return Cost(ops, reads, (), nbytes, (), exact, tuple(reasons))
