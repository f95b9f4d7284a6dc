"""One independent innermost loop as Highway code: whole vectors of iterations, then the rest
one at a time.

Lanes are iterations: each statement of the body runs for a vector of iterations at once, in
the body's order. That is the loop's meaning because a Map's iterations are independent (no
iteration reads or writes what another writes), so every scalar statement's own order of
operations is kept and no sum is reassociated. The loop is vectorized only where each
statement is expressed exactly:

* array elements whose last subscript is the loop variable plus an offset (``LoadU``/``StoreU``
  at ``p + offset + i``: stencils' neighbours included), the loop variable in no other subscript;
* elements, scalars and constants that do not vary with it: broadcasts (``Set``), converted to
  the loop's element type as C's arithmetic conversions convert them;
* ``+ - * /``, unary minus, ``sqrt``, ``fabs``, casts to the element type, comparisons with
  ``&& || !`` as masks and ``?:`` as ``IfThenElse``; an ``if`` whose condition does not vary
  with the loop as a C++ ``if`` around vector statements;
* one floating-point type for every vector value (no operation that C would do in a wider type).

A store under a condition (the user's ``if (c) x = e;``, a ``guarded_store``) is not
vectorized: a whole vector's store would write elements the program does not, which another
thread of the user's own parallel loop may be writing.
A load that runs only under a lane's condition in the scalar loop (a branch of ``?:``, the right
operand of ``&&``) is done for every lane, so it must read an element that the iteration reads
anyway (unconditionally, or in both branches). No fused multiply-add is printed: the compiler contracts
Highway's ``Mul`` and ``Add`` where the C build contracts (CompanionUnit.contract_as_c), and
nowhere where it does not.
The iterations left after the whole vectors run in vectors of at most 8, 4 and 2 lanes
(``CappedTag``), then one at a time as the scalar loop: Highway 1.0.3's masked loads and stores
(``FirstN``) read and write whole vectors on some targets (SSE4, NEON), past the array's end.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from s2s.ir import Array, Block, Declare, For, IfElse, Map, Scalar, Schedule, Sequence, Tasklet, walk
from s2s.ir import expr as ex
from s2s.ir.types import scalar_type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from backends.highway.kernel import KernelPrinter

VECTOR_TYPES = ("double", "float")
_ARITH = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}
# (``!=`` as the negation of ``Eq``: C's is true where an operand is NaN, Highway's ``Ne`` on x86
# is the ordered comparison, false there)
_COMPARE = {"<": "Lt", "<=": "Le", ">": "Gt", ">=": "Ge", "==": "Eq", "!=": "Eq"}
_SQRT = {"double": ("sqrt", "__builtin_sqrt"), "float": ("sqrtf", "__builtin_sqrtf")}
_ABS = {"double": ("fabs", "__builtin_fabs"), "float": ("fabsf", "__builtin_fabsf")}
TAG = "s2s_d"


class NotVector(Exception):
    """The loop has a statement that Highway's ops would not compute exactly as C does."""


@dataclass
class _Value:
    kind: str      # "vec", "mask" or "scalar" (C++ text of a loop-invariant value)
    text: str
    ctype: str     # the C type of the value ("int" for every integer type)


@dataclass
class _Frame:
    """The elements loaded at one level of conditions."""

    loads: set = field(default_factory=set)


def vectorizable(node: Map, parallel_maps: bool) -> bool:
    """Whether ``node`` is a loop whose iterations may be lanes: a SIMD Map (or, where parallel
    Maps run in order, an innermost parallel one), unit step, no private copies, no reductions
    but sums, no loop inside."""
    kinds = (Schedule.SIMD, Schedule.CPU_MULTICORE) if parallel_maps else (Schedule.SIMD,)
    return (node.schedule in kinds and all(op == "+" for _, op in node.reductions) and not node.private
            and node.step == ex.Const("1") and not any(isinstance(n, (For, Map)) for n in walk(node.body)))


REMAINDER_CAPS = (8, 4, 2)
FIRST = "s2s_first"   # the whole vectors' first iteration, where their rows' pointers point


def vector_loop(printer: "KernelPrinter", node: Map, level: int) -> list[str] | None:
    """The Highway lines of ``node`` (see the module docstring), or None where it is not exact."""
    try:
        v = _Vectorizer(printer, node)
        body = v.sequence(node.body)
        whole = _Vectorizer(printer, node, hoist=True)
        whole_body = whole.sequence(node.body)
    except NotVector:
        return None
    pad, inner = printer.pad(level), printer.pad(level + 1)
    var = node.var
    lanes, stop = "s2s_lanes", "s2s_stop"
    # each sum's lanes start at zero, and their total is added to it where a loop of vectors ends
    sums = [(printer.expr(ex.Sym(name)), v.locals[name]) for name, _ in node.reductions]
    zeros = [f"auto {acc} = hn::Zero({TAG});" for _, acc in sums]
    totals = [f"{target} = {target} + hn::GetLane(hn::SumOfLanes({TAG}, {acc}));" for target, acc in sums]
    out = [pad + "{",
           inner + f"const hn::ScalableTag<{v.T}> {TAG};",
           inner + f"const long {lanes} = static_cast<long>(hn::Lanes({TAG}));",
           inner + f"const long {stop} = static_cast<long>({printer.expr(node.stop)});",
           inner + f"{_counter(printer, var)} = {printer.expr(node.start)};",
           inner + f"if (static_cast<long>({var}) + {lanes} <= {stop}) {{"]
    out += [printer.pad(level + 2) + f"const auto {name} = {broadcast};" for broadcast, name in whole.hoisted.items()]
    if whole.rows:
        out += [printer.pad(level + 2) + f"const long {FIRST} = {var};"]
        out += [printer.pad(level + 2) + f"auto *const {name} = {row} + {FIRST};" for row, name in whole.rows.items()]
    out += [printer.pad(level + 2) + line for line in zeros]
    out += [printer.pad(level + 2) + f"do {{"]
    out += [printer.pad(level + 3) + line for line in whole_body]
    out += [printer.pad(level + 2) + f"  {var} += static_cast<int>({lanes});",
            printer.pad(level + 2) + f"}} while (static_cast<long>({var}) + {lanes} <= {stop});"]
    out += [printer.pad(level + 2) + line for line in totals]
    out += [inner + "}"]
    # what is left, less than a vector: in vectors of at most 8, 4 and 2 lanes (each a scope of
    # its own whose tag shadows the whole vectors' one), then one at a time
    for cap in REMAINDER_CAPS:
        loop = [f"for (; static_cast<long>({var}) + {lanes} <= {stop}; {var} += static_cast<int>({lanes})) {{",
                *("  " + line for line in body), "}"]
        if sums:   # (no total added where no vector ran: a sum of -0.0 stays -0.0)
            loop = [f"if (static_cast<long>({var}) + {lanes} <= {stop}) {{",
                    *("  " + line for line in zeros + loop + totals), "}"]
        out += [inner + "{",
                inner + f"  const hn::CappedTag<{v.T}, {cap}> {TAG};",
                inner + f"  const long {lanes} = static_cast<long>(hn::Lanes({TAG}));"]
        out += [inner + "  " + line for line in loop]
        out += [inner + "}"]
    rest = printer.body(f"for (; {printer.expr(ex.Binary('<', ex.Sym(var), node.stop))}; {var}++)", node.body, level + 1)
    out += rest + [pad + "}"]
    return out


def _counter(printer: "KernelPrinter", var: str) -> str:
    """The declaration of the loop's counter, which the loop's scope declares anew: an ``int`` as
    a ``long`` (it is only a subscript there, never a value, so it takes the same values; the
    addresses then need no sign extension at each access)."""
    data = printer.containers.get(var)
    if isinstance(data, Scalar) and data.dtype.spelling == "int":
        return f"long {var}"
    return printer.declaration(var)


class _Vectorizer:
    def __init__(self, printer: "KernelPrinter", node: Map, hoist: bool = False):
        self.p = printer
        self.hoist = hoist                   # loop-invariant broadcasts and rows made once
        self.hoisted: dict[str, str] = {}    # broadcast -> the name of its vector before the loop
        self.rows: dict[str, str] = {}       # an element's row, ``A + (offset)`` -> its pointer's name
        self.scalar_arrays: dict[str, frozenset] = {}   # a scalar's text -> the arrays it reads
        self.stored_arrays: set[str] = set()  # arrays stored by the statements so far
        self.var = node.var
        self.containers = printer.containers
        self.locals: dict[str, str] = {}     # a scalar declared in the body -> its vector variable
        for name, _ in node.reductions:      # (and a sum's partial sums, one per lane)
            data = self.containers.get(name)
            if not isinstance(data, Scalar) or name == node.var:
                raise NotVector("a reduction into other than a scalar")
            self.locals[name] = f"s2s_r_{name}"
        self.frames = [_Frame()]
        self.guarded: set = set()            # loads under a condition, to be found unconditional
        self.stored: set = set()             # elements stored unconditionally so far
        types = set()
        for n in walk(node.body):
            if isinstance(n, Block):
                for m in n.graph.writes():
                    types.add(self.containers[m.data].dtype.spelling)
        if len(types) != 1 or next(iter(types)) not in VECTOR_TYPES:
            raise NotVector("one floating-point type")
        self.T = next(iter(types))
        if any(self.containers[name].dtype.spelling != self.T for name, _ in node.reductions):
            raise NotVector("a sum of another type")

    # -- statements -----------------------------------------------------------------------------
    def sequence(self, seq: Sequence) -> list[str]:
        lines: list[str] = []
        for child in seq.children:
            lines += self.statement(child)
        unconditional = self.frames[0].loads | self.stored
        if not self.guarded <= unconditional:
            raise NotVector("a load under a condition")
        return lines

    def statement(self, node) -> list[str]:
        if isinstance(node, Block):
            out = []
            for t in node.graph.computations():
                if not isinstance(t, Tasklet) or t.output is None:
                    raise NotVector("not a tasklet")
                if t.guarded_store:
                    raise NotVector("a store under a condition")
                (edge,) = [e for e in node.graph.out_edges(t.id) if e.src_conn == t.output]
                out += self.assign(edge.data, edge.subset, self.value(self.p.tasklet_value(node, t)))
            return out
        if isinstance(node, Declare):
            data = self.containers[node.name]
            if not isinstance(data, Scalar) or data.dtype.spelling != self.T or len(self.frames) > 1:
                raise NotVector("a local of another type")
            name = f"s2s_v_{node.name}"
            self.locals[node.name] = name
            init = f"hn::Zero({TAG})"
            if node.init is not None:
                (t,) = node.init.graph.computations()
                init = self.as_vector(self.value(self.p.tasklet_value(node.init, t)))
            return [f"auto {name} = {init};"]
        if isinstance(node, IfElse):
            return self.if_else(node)
        raise NotVector(type(node).__name__)

    def target(self, data: str, subset) -> tuple:
        """(key, pointer text) of a store's target: an element at unit stride or a local."""
        if not subset:
            if data not in self.locals:
                raise NotVector("a scalar of the function written")
            return ("local", data), self.locals[data]
        key, pointer = self.element(data, tuple(subset))
        if pointer is None:
            raise NotVector("a store to an element the lanes share")
        return key, pointer

    def assign(self, data: str, subset, value: _Value) -> list[str]:
        if self.containers[data].dtype.spelling != self.T:
            raise NotVector("mixed types")
        key, pointer = self.target(data, subset)
        text = self.as_vector(value)
        if key[0] == "local":
            return [f"{pointer} = {text};"]
        self.stored.add(key)
        self.stored_arrays.add(data)
        return [f"hn::StoreU({text}, {TAG}, {pointer});"]

    def if_else(self, node: IfElse) -> list[str]:
        # (an if whose condition varies with the lanes is not reached: a condition on the data
        # makes no SCoP, and the loop variable as a value is refused; such an if stays scalar)
        cond = self.value(node.cond)
        if cond.kind != "scalar":
            raise NotVector("a condition that varies with the lanes")
        return self.shared_condition(node, cond.text)

    def shared_condition(self, node: IfElse, cond: str) -> list[str]:
        """An ``if`` whose condition does not vary with the loop: a C++ ``if`` around the vector
        statements of its branches (every lane takes the same branch, as every iteration does)."""
        stored = set(self.stored)
        out = [f"if ({cond}) {{"]
        for branch, header in ((node.then, None), (node.other, "} else {")):
            if branch is None:
                continue
            if header:
                out.append(header)
            self.frames.append(_Frame())   # (its loads run only where the iterations' do)
            for child in branch.children:
                if not isinstance(child, (Block, IfElse)):
                    raise NotVector("a branch of other statements")
                out += ["  " + line for line in self.statement(child)]
            self.frames.pop()
            self.stored = set(stored)
        return out + ["}"]

    # -- values ---------------------------------------------------------------------------------
    def element(self, name: str, indices: tuple) -> tuple:
        """(key, pointer text or None where no lane's subscript varies) of an element."""
        data = self.containers.get(name)
        if not isinstance(data, Array) or len(indices) != len(data.shape):
            raise NotVector("not an array element")
        for index in indices:
            if ex.names(index) & set(self.locals):
                raise NotVector("a subscript of a vector value")
        if any(self.var in ex.names(i) for i in indices[:-1]):
            raise NotVector("the loop variable in an outer subscript (a gather)")
        if self.var not in ex.names(indices[-1]):
            return ("scalar", self.p.expr(ex.Access(name, indices))), None
        offset = _unit_offset(indices[-1], self.var)
        if offset is None:
            raise NotVector("not at unit stride")
        start = self.p.expr.linear(name, (*indices[:-1], offset))
        key = (name, self.p.expr(start))
        row = f"{name} + ({key[1]})"
        if not self.hoist:
            return key, f"{row} + {self.var}"
        # (a pointer per row, to the element of the first iteration, which the loop reads or
        # writes, so it is in the array: the compiler then steps one index for all of them
        # instead of adding each row's offset at every access)
        if row not in self.rows:
            self.rows[row] = f"s2s_p{len(self.rows)}"
        return key, f"{self.rows[row]} + ({self.var} - {FIRST})"

    def load(self, name: str, indices: tuple) -> _Value:
        key, pointer = self.element(name, indices)
        self.frames[-1].loads.add(key)
        ctype = _kind(self.containers[name].dtype.spelling)
        if pointer is None:
            return self.scalar(ex.Access(name, indices), ctype)
        if ctype != self.T:
            raise NotVector("mixed types")
        return _Value("vec", f"hn::LoadU({TAG}, {pointer})", self.T)

    def value(self, e) -> _Value:
        if isinstance(e, ex.Const):
            return self.scalar(e, _literal_type(e.text))
        if isinstance(e, ex.Sym):
            if e.name == self.var:
                raise NotVector("the loop variable as a value")
            if e.name in self.locals:
                return _Value("vec", self.locals[e.name], self.T)
            data = self.containers.get(e.name)
            if data is None or isinstance(data, Array):
                raise NotVector("an unknown name")
            return self.scalar(e, _kind(data.dtype.spelling))
        if isinstance(e, ex.Access):
            return self.load(e.name, e.indices)
        if isinstance(e, ex.Binary):
            return self.binary(e)
        if isinstance(e, ex.Unary):
            a = self.value(e.operand)
            if a.kind == "scalar":
                return self.scalar(e, "int" if e.op == "!" else a.ctype)
            if e.op == "-" and a.kind == "vec":
                return _Value("vec", f"hn::Neg({a.text})", a.ctype)
            if e.op == "+" and a.kind == "vec":
                return a
            if e.op == "!" and a.kind == "mask":
                return _Value("mask", f"hn::Not({a.text})", "int")
            raise NotVector(f"unary {e.op}")
        if isinstance(e, ex.Ternary):
            c = self.value(e.cond)
            a, b = self.guarded_values(e.then, e.other)
            if c.kind == "scalar" and a.kind == b.kind == "scalar":
                return self.scalar(e, _arith(a.ctype, b.ctype))
            if c.kind != "mask" or _arith(a.ctype, b.ctype) != self.T:
                raise NotVector("a choice of other types")
            return _Value("vec", f"hn::IfThenElse({c.text}, {self.as_vector(a)}, {self.as_vector(b)})", self.T)
        if isinstance(e, ex.Call):
            args = [self.value(a) for a in e.args]
            if all(a.kind == "scalar" for a in args):
                return self.scalar(e, _call_type(e.func))
            if len(args) == 1 and args[0].kind == "vec" and args[0].ctype == self.T:
                if e.func in _SQRT[self.T]:
                    return _Value("vec", f"hn::Sqrt({args[0].text})", self.T)
                if e.func in _ABS[self.T]:
                    return _Value("vec", f"hn::Abs({args[0].text})", self.T)
            raise NotVector(f"a call of {e.func}")
        if isinstance(e, ex.Cast):
            a = self.value(e.operand)
            if a.kind == "scalar":
                return self.scalar(e, _kind(e.type))
            if a.kind == "vec" and e.type == self.T:
                return a
            raise NotVector("a conversion")
        raise NotVector(type(e).__name__)

    def guarded_values(self, *exprs) -> list[_Value]:
        """Values evaluated only where a condition holds: their loads must be done anyway."""
        values, loads = [], []
        for e in exprs:
            self.frames.append(_Frame())
            values.append(self.value(e))
            loads.append(self.frames.pop().loads)
        both = set.intersection(*loads) if len(loads) > 1 else set()
        self.frames[-1].loads |= both
        self.guarded |= set().union(*loads) - both
        return values

    def binary(self, e: ex.Binary) -> _Value:
        if e.op in ("&&", "||"):
            a = self.value(e.lhs)
            (b,) = self.guarded_values(e.rhs)
            if a.kind == b.kind == "scalar":
                return self.scalar(e, "int")
            if a.kind == b.kind == "mask":
                return _Value("mask", f"hn::{'And' if e.op == '&&' else 'Or'}({a.text}, {b.text})", "int")
            raise NotVector("a condition of mixed kinds")
        a, b = self.value(e.lhs), self.value(e.rhs)
        if a.kind == b.kind == "scalar":
            return self.scalar(e, "int" if e.op in _COMPARE else _arith(a.ctype, b.ctype))
        if "mask" in (a.kind, b.kind) or _arith(a.ctype, b.ctype) != self.T:
            raise NotVector("mixed types")
        if e.op in _ARITH:
            return _Value("vec", f"hn::{_ARITH[e.op]}({self.as_vector(a)}, {self.as_vector(b)})", self.T)
        if e.op in _COMPARE:
            mask = f"hn::{_COMPARE[e.op]}({self.as_vector(a)}, {self.as_vector(b)})"
            return _Value("mask", f"hn::Not({mask})" if e.op == "!=" else mask, "int")
        raise NotVector(f"operator {e.op}")

    def scalar(self, e, ctype: str) -> _Value:
        """The loop-invariant value ``e`` (of C type ``ctype``)."""
        text = self.p.expr(e)
        self.scalar_arrays[text] = frozenset(n.name for n in ex.walk(e) if isinstance(n, ex.Access))
        return _Value("scalar", text, ctype)

    def as_vector(self, v: _Value) -> str:
        if v.kind == "vec":
            return v.text
        if v.kind == "scalar" and v.ctype in ("int", "float", "double"):
            # (C converts the other operand, or the value assigned, to the element type)
            broadcast = f"hn::Set({TAG}, static_cast<{self.T}>({v.text}))"
            if not self.hoist or len(self.frames) > 1 or self.scalar_arrays.get(v.text, frozenset()) & self.stored_arrays:
                return broadcast
            # every iteration computes it the same before anything in the body writes what it
            # reads, and no other iteration writes that (they are independent): once before the loop
            if broadcast not in self.hoisted:
                self.hoisted[broadcast] = f"s2s_b{len(self.hoisted)}"
            return self.hoisted[broadcast]
        raise NotVector("a mask as a number")


def _bare(index):
    """``index`` without its conversions to 64-bit integer types (``(size_t)j``, ``(long)(j + 1)``):
    a subscript in bounds has the value of the expression converted, which is then not negative
    (an unsigned type) or kept whole (a signed one); consecutive iterations stay consecutive."""
    while isinstance(index, ex.Cast):
        t = scalar_type(index.type)
        if not t.is_integer or t.bits < 64:
            break
        index = index.operand
    return index


def _unit_offset(index, var: str):
    """``index - var`` where ``index`` is ``var``, ``var + c``, ``c + var`` or ``var - c`` with
    ``c`` free of ``var`` (each perhaps converted to a 64-bit integer type); else None."""
    index = _bare(index)
    if index == ex.Sym(var):
        return ex.Const("0")
    if isinstance(index, ex.Binary) and index.op in "+-":
        if _bare(index.lhs) == ex.Sym(var) and var not in ex.names(index.rhs):
            return index.rhs if index.op == "+" else ex.Unary("-", index.rhs)
        if index.op == "+" and _bare(index.rhs) == ex.Sym(var) and var not in ex.names(index.lhs):
            return index.lhs
        if index.op == "+" and isinstance(index.lhs, (ex.Binary, ex.Cast)):
            inner = _unit_offset(index.lhs, var)
            if inner is not None and var not in ex.names(index.rhs):
                return ex.Binary("+", inner, index.rhs)
        if index.op == "-" and isinstance(index.lhs, (ex.Binary, ex.Cast)):
            inner = _unit_offset(index.lhs, var)
            if inner is not None and var not in ex.names(index.rhs):
                return ex.Binary("-", inner, index.rhs)
    return None


def _kind(spelling: str) -> str:
    """A C type as the arithmetic conversions see it: double, float, long double or int."""
    if spelling in ("double", "float", "long double"):
        return spelling
    return "int"


def _arith(a: str, b: str) -> str:
    for t in ("long double", "double", "float"):
        if t in (a, b):
            return t
    return "int"


def _literal_type(text: str) -> str:
    t = text.lower()
    if t.startswith("0x") and "p" not in t or "'" in t:
        return "int"
    if any(c in t for c in ".ep"):
        return "float" if t.endswith("f") else "long double" if t.endswith("l") else "double"
    return "int"


def _call_type(func: str) -> str:
    if func in ("abs", "labs", "llabs"):
        return "int"
    return "float" if func.endswith("f") else "double"
