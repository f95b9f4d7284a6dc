"""A region as a function of flat parameters, for a unit in another language (C++, CUDA).

C++ and CUDA have no variably modified types: ``double A[n][m]`` cannot be a parameter there. So
a region moved into such a unit takes each array as a pointer to its first element, each scalar
it reads by value (the extents among them), and its subscripts are linearized
(``A[i][j]`` as ``A[(long)(i) * (m) + (j)]``, ``FlatExprPrinter``). The C side declares the
function ``extern`` and calls it with its arrays cast to element pointers (``prototype``,
``call``); the other side defines it with ``parameter_list`` (``extern "C"``).

``flat_region`` refuses (None) what such a unit could not compile as C means it, or what the
function could not give back: a region that writes a scalar at file scope, or one of its
function unless asked to pass those by address (``scalars_out``: the function then works on a
local copy, read at its start and stored back at its end), returns, has text the IR does not
model (Opaque) or library nodes (matrix-multiply kernels print GNU C), arrays declared inside it,
arrays reached through row pointers, calls of anything but <math.h>'s pure functions, types
other than C's arithmetic ones.
"""
from __future__ import annotations

from dataclasses import dataclass

from s2s.ir import (
    Array, Block, Declare, Expr, ExprPrinter, For, IfElse, LibraryNode, Map, Opaque, Return, Scalar, Sequence,
    Storage, Tasklet, While, walk,
)
from s2s.ir import expr as ex
from s2s.ir.types import TypeKind

from backends.c.outline import _NotOutlinable, _Uses

TYPE_CHECKING = False
if TYPE_CHECKING:
    from backends.c.printer import CPrinter

# C types whose spelling means the same in C++ and CUDA (with <stddef.h> and <stdint.h>)
PORTABLE_TYPES = frozenset({
    "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long",
    "unsigned long", "long long", "unsigned long long", "float", "double", "size_t", "ptrdiff_t",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "intptr_t", "uintptr_t"})

# The compilers' predefined names of <stddef.h>'s and <stdint.h>'s types: the C file's declaration
# of the function stands before its own includes, where only these are known
PREDEFINED_NAMES = {"size_t": "__SIZE_TYPE__", "ptrdiff_t": "__PTRDIFF_TYPE__", "intptr_t": "__INTPTR_TYPE__",
                    "uintptr_t": "__UINTPTR_TYPE__", **{f"int{b}_t": f"__INT{b}_TYPE__" for b in (8, 16, 32, 64)},
                    **{f"uint{b}_t": f"__UINT{b}_TYPE__" for b in (8, 16, 32, 64)}}

# <math.h>'s functions a region may call, by the type their arguments are converted to (C's
# prototypes convert them; C++'s overloads would not: ``sqrt(float)`` there is the float one)
_NO_CAST = {"abs", "labs", "llabs"}
MATH_CALLS = {f + s: t for f in ex.MATH_FUNCTIONS if f != "ldexp" for s, t in (("", "double"), ("f", "float"))}


@dataclass(frozen=True)
class FlatParam:
    name: str
    type: str                          # a scalar's C type; an array's element type
    array: bool = False
    extents: tuple[Expr | None, ...] = ()   # an array's, outermost first (the first may be None)
    written: bool = False              # an array the region writes (else passed as const)
    out: bool = False                  # a scalar the region writes: passed by address

    @property
    def address(self) -> str:
        """The parameter's name where it is an address (an ``out`` scalar's)."""
        return f"s2s_io_{self.name}" if self.out else self.name


@dataclass(frozen=True)
class FlatRegion:
    name: str                          # the function's name (external linkage: make it unique)
    params: tuple[FlatParam, ...]      # scalars first (the extents name them), then arrays
    body: Sequence                     # the region's statements, as in the IR
    locals: tuple[tuple[str, str], ...]  # (type, name): loop variables it counts with undeclared

    def parameter_list(self, restrict: str = "__restrict__", predefined: bool = False) -> str:
        """The parameters as the other unit declares them (``int n, double *__restrict__ A``):
        the region runs only where its arrays do not overlap (proven, or tested before the call).
        ``predefined``: typedef'd types by the compiler's own names for them."""
        return ", ".join(self._param(p, restrict, predefined) for p in self.params) or "void"

    @staticmethod
    def _param(p: FlatParam, restrict: str, predefined: bool) -> str:
        type_ = PREDEFINED_NAMES.get(p.type, p.type) if predefined else p.type
        if p.out:
            return f"{type_} *{restrict + ' ' if restrict else ''}{p.address}"
        if not p.array:
            return f"{type_} {p.name}"
        return f"{'' if p.written else 'const '}{type_} *{restrict + ' ' if restrict else ''}{p.name}"

    def prototype(self) -> str:
        """The C declaration of the function, for the caller's file (built-in types only: it
        stands before the file's includes)."""
        return f"extern void {self.name}({self.parameter_list('', predefined=True)});"

    def call(self) -> str:
        """The C statement that calls it where the region stood."""
        args = [f"({'' if p.written else 'const '}{p.type} *)({p.name})" if p.array else f"&{p.name}" if p.out
                else p.name for p in self.params]
        return f"{self.name}({', '.join(args)});"

    def copies_in(self) -> list[str]:
        """The function's first statements: its local copies of the scalars it writes."""
        return [f"{p.type} {p.name} = *{p.address};" for p in self.params if p.out]

    def copies_out(self) -> list[str]:
        """Its last: those copies given back."""
        return [f"*{p.address} = {p.name};" for p in self.params if p.out]


class FlatExprPrinter(ExprPrinter):
    """Expressions with the subscripts of ``arrays`` (name -> extents) linearized, and <math.h>'s
    calls with their arguments converted as C's prototypes convert them."""

    def __init__(self, arrays: dict[str, tuple[Expr | None, ...]]):
        super().__init__()
        self.arrays = arrays

    def linear(self, name: str, indices: tuple[Expr, ...]) -> Expr:
        """The element's offset from the array's start, as an expression (long arithmetic)."""
        extents = self.arrays[name]
        offset: Expr = indices[0]
        if len(indices) > 1:
            offset = ex.Cast("long", offset)
        for index, extent in zip(indices[1:], extents[1:]):
            offset = ex.Binary("+", ex.Binary("*", offset, extent), index)
        return offset

    def print_Access(self, e: ex.Access) -> str:
        if e.name not in self.arrays:
            return super().print_Access(e)
        return f"{e.name}[{self.print(self.linear(e.name, e.indices))}]"

    def print_Call(self, e: ex.Call) -> str:
        to = MATH_CALLS.get(e.func)
        if to is None:
            return super().print_Call(e)
        return f"{e.func}({', '.join(f'({to})({self.print(a)})' for a in e.args)})"


def flat_region(printer: "CPrinter", body: Sequence, name: str, scalars_out: bool = False) -> FlatRegion | None:
    """``body`` as the flat function ``name``; None where it cannot be (module docstring)."""
    containers = printer.containers
    uses = _Uses(printer, scalars_out)
    try:
        uses.visit(body, frozenset())
    except _NotOutlinable:
        return None
    declared = set()
    written_arrays = set()
    written_scalars = set()   # the function's, passed by address
    for n in walk(body):
        if isinstance(n, (Opaque, While, Return)) or isinstance(n, Declare) and (
                n.init_text not in (None, "0") or not isinstance(containers.get(n.name), Scalar)):
            return None   # (a verbatim initializer but the zero of a hoisted temporary: C's text)
        if isinstance(n, Declare):
            data = containers[n.name]
            # (the other unit declares it as ``type name``: a static or a typedef would not mean the same)
            if data.storage is Storage.STATIC_LOCAL or data.dtype.spelling not in PORTABLE_TYPES:
                return None
            declared.add(n.name)
        if isinstance(n, Map) and n.team_if is not None and ex.calls(n.team_if):
            return None
        if isinstance(n, Map) and n.private and (not scalars_out or any(
                not isinstance(containers.get(v), Scalar) for v in n.private)):
            return None   # (private arrays are copies on the heap: C's code)
        if isinstance(n, Block):
            for c in n.graph.computations():
                if isinstance(c, LibraryNode) or not isinstance(c, Tasklet):
                    return None
            for m in n.graph.writes():
                if not m.subset and m.data not in declared and not _declared_inside(body, m.data):
                    data = containers.get(m.data)
                    if not scalars_out or not isinstance(data, Scalar) or data.storage not in (
                            Storage.STACK, Storage.ARGUMENT):
                        return None   # (a scalar of the file, or one the call cannot give back)
                    written_scalars.add(m.data)
                if m.subset:
                    written_arrays.add(m.data)
        for e in _expressions(printer, n):
            if any(c not in MATH_CALLS and c not in _NO_CAST for c in ex.calls(e)):
                return None
            if any(isinstance(s, (ex.SizeOf,)) or isinstance(s, ex.Unary) and s.op in "*&"
                   or isinstance(s, ex.Cast) and s.type not in PORTABLE_TYPES for s in ex.walk(e)):
                return None
    read = list(uses.read) + sorted(written_scalars - set(uses.read))
    if uses.loop_vars & (set(read) | written_scalars):
        return None
    for n in list(read):
        data = containers[n]
        if isinstance(data, Array):
            for extent in data.shape:
                if extent is not None:
                    read += [w for w in ex.names(extent) if w in containers and w not in read]
    scalars, arrays = [], []
    order = {c: k for k, c in enumerate(containers)}
    for n in sorted(read, key=lambda n: order[n]):
        data = containers[n]
        if data.dtype.spelling not in PORTABLE_TYPES or data.dtype.kind is TypeKind.OTHER:
            return None
        if isinstance(data, Array):
            if data.row_pointers or any(e is None for e in data.shape[1:]):
                return None
            arrays.append(FlatParam(n, data.dtype.spelling, True, data.shape, n in written_arrays))
        else:
            if data.storage is Storage.STATIC_LOCAL or getattr(data, "address_taken", False):
                return None
            scalars.append(FlatParam(n, data.dtype.spelling, out=n in written_scalars))
    local = []
    for v in sorted(uses.loop_vars):
        data = containers[v]
        if not isinstance(data, Scalar) or data.dtype.spelling not in PORTABLE_TYPES:
            return None
        local.append((data.dtype.spelling, v))
    return FlatRegion(name, tuple(scalars + arrays), body, tuple(local))


def _declared_inside(body: Sequence, name: str) -> bool:
    return any(isinstance(n, Declare) and n.name == name for n in walk(body))


def _expressions(printer: "CPrinter", node) -> list[Expr]:
    """The expressions a node prints itself (not those of its children)."""
    if isinstance(node, For):
        return [node.init, node.cond, node.update]
    if isinstance(node, Map):
        return [node.start, node.stop, node.step]
    if isinstance(node, IfElse):
        return [node.cond]
    if isinstance(node, Block):
        return [printer.tasklet_value(node, t) for t in node.graph.computations() if isinstance(t, Tasklet)]
    if isinstance(node, Declare) and node.init is not None:
        return _expressions(printer, node.init)
    return []
