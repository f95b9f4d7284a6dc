"""Transfer elimination: the copies between host and device memory that a region with kernels
needs, and no more.

The naive plan copies every array a kernel touches to the device before each launch, and every
array it writes back after it. The plan made here follows, at each point of the region's control
tree, where each array's current values are known to be, on every path that reaches the point:
in host memory, in its device container, or in both (a must-analysis). A kernel needs its arrays
valid on the device (also those it only writes: a kernel may write part of an array, and the rest
must be right in the copy that goes back); the host's statements need them valid on the host. A
copy is placed only where a statement needs an array valid where it is not, and a write leaves the
array valid only where it was written. So:

* an array is copied in only if some kernel uses it before the host has the only valid values
  again, and it stays on the device across the kernels of a region;
* it is copied out only where the host reads or writes it afterwards, or where it is live after
  the region (every array is, unless the IR proves it dead: a local array of the function that no
  statement after the region names); an array no kernel writes is valid on the host still, so it
  is never copied back;
* a host loop that touches an array only in kernels gets its copy in before the loop, one that
  touches it only on the host its copy out before the loop: the states at the loop's head on entry
  and around the back edge are met (intersected) until they agree, and where they share no place
  the body's end copies the array to where it was on entry; so an array stays on the device across
  the iterations of a time loop whose host code does not touch it. A branch's two ends are met so too.

Copies are of whole arrays (the extents are known: gpu_kernels.py offloads no other), so bytes
moved are the arrays' sizes times the trips of the host loops around each copy (both branches of a
branch counted).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from s2s.ir import (
    Access, Array, Block, ControlNode, For, IfElse, Map, Schedule, Sequence, walk,
)
from s2s.ir import expr as ex
from s2s.ir.dataflow import Range
from s2s.ir.device import GPU_MATMUL, TO_DEVICE, TO_HOST, DeviceCopy, copy_block_graph, whole

HOST, DEVICE = "host", "device"
_SIZES = {"char": 1, "signed char": 1, "unsigned char": 1, "_Bool": 1, "int8_t": 1, "uint8_t": 1,
          "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "float": 4, "int": 4,
          "unsigned int": 4, "unsigned": 4, "int32_t": 4, "uint32_t": 4, "double": 8, "long": 8,
          "unsigned long": 8, "long long": 8, "unsigned long long": 8, "int64_t": 8, "uint64_t": 8,
          "size_t": 8}


def is_kernel(node: ControlNode) -> bool:
    """A kernel: a GPU_DEVICE Map nest, or a block of a matrix multiplication the GPU runs."""
    if isinstance(node, Block):
        return any(getattr(d, "name", None) == GPU_MATMUL for d in node.graph.nodes)
    return isinstance(node, Map) and node.schedule is Schedule.GPU_DEVICE


def element_bytes(array: Array) -> int:
    return _SIZES.get(" ".join(array.dtype.spelling.split()), max(array.dtype.bits // 8, 1))


def touched(node: ControlNode) -> tuple[set[str], set[str]]:
    """(read, written) containers of ``node``: arrays through memlets and subscripts of control
    expressions (a copy counts for its memlets too)."""
    reads: set[str] = set()
    writes: set[str] = set()
    for n in walk(node):
        exprs: list[ex.Expr] = []
        if isinstance(n, Block):
            reads |= {e.data for e in n.graph.reads()}
            writes |= {e.data for e in n.graph.writes()}
            for e in n.graph.edges:
                exprs += [x for s in e.subset for x in ((s.start, s.stop, s.step) if isinstance(s, Range) else (s,))]
        elif isinstance(n, For):
            exprs += [n.init, n.cond, n.update]
        elif isinstance(n, Map):
            exprs += [n.start, n.stop, n.step]
        elif isinstance(n, IfElse):
            exprs.append(n.cond)
        for x in exprs:
            reads |= {a.name for a in ex.walk(x) if isinstance(a, Access)}
    return reads, writes


@dataclass(frozen=True)
class Bytes:
    """A number of bytes as a polynomial in the region's parameters: monomial (sorted names, with
    repeats) -> coefficient; ``opaque`` terms are expressions it cannot expand, as C text."""

    terms: tuple[tuple[tuple[str, ...], int], ...] = ()
    opaque: tuple[str, ...] = ()

    @staticmethod
    def const(value: int) -> "Bytes":
        return Bytes((((), value),) if value else ())

    def __add__(self, other: "Bytes") -> "Bytes":
        out = dict(self.terms)
        for m, c in other.terms:
            out[m] = out.get(m, 0) + c
        return Bytes(tuple(sorted((m, c) for m, c in out.items() if c)), self.opaque + other.opaque)

    def __mul__(self, other: "Bytes") -> "Bytes":
        out: dict[tuple[str, ...], int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                out[m] = out.get(m, 0) + c1 * c2
        opaque = tuple(f"({a}) * ({b})" for a in self.opaque for b in other.opaque + tuple(
            _monomial_text(m, c) for m, c in other.terms)) + tuple(
            f"({_monomial_text(m, c)}) * ({b})" for m, c in self.terms for b in other.opaque)
        return Bytes(tuple(sorted((m, c) for m, c in out.items() if c)), opaque)

    @property
    def value(self) -> int | None:
        """The number, where it does not depend on parameters."""
        if self.opaque or any(m for m, _ in self.terms):
            return None
        return sum(c for _, c in self.terms)

    def __str__(self) -> str:
        if self.value is not None:
            return str(self.value)
        parts = [_monomial_text(m, c) for m, c in sorted(self.terms, key=lambda t: (-len(t[0]), t[0]))]
        return " + ".join(parts + list(self.opaque)).replace("+ -", "- ")


def _monomial_text(m: tuple[str, ...], c: int) -> str:
    factors = []
    for name in dict.fromkeys(m):
        k = m.count(name)
        factors.append(name if k == 1 else f"{name}^{k}")
    if not factors:
        return str(c)
    return ("" if c == 1 else "-" if c == -1 else f"{c}*") + "*".join(factors)


def polynomial(e: ex.Expr) -> Bytes:
    """``e`` expanded as a polynomial where it is one of names and integers (else opaque)."""
    if isinstance(e, ex.Const) and e.int_value is not None:
        return Bytes.const(e.int_value)
    if isinstance(e, ex.Sym):
        return Bytes((((e.name,), 1),))
    if isinstance(e, ex.Binary) and e.op in "+-*":
        a, b = polynomial(e.lhs), polynomial(e.rhs)
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a + b * Bytes.const(-1)
        return a * b
    if isinstance(e, ex.Unary) and e.op == "-":
        return polynomial(e.operand) * Bytes.const(-1)
    if isinstance(e, ex.Cast):
        return polynomial(e.operand)
    return Bytes((), (ex.format_expr(e),))


def array_bytes(array: Array) -> Bytes:
    size = Bytes.const(element_bytes(array))
    for extent in array.shape:
        size = size * polynomial(extent)
    return size


@dataclass(frozen=True)
class Traffic:
    to_device: Bytes = Bytes()
    to_host: Bytes = Bytes()
    copies: int = 0   # copy nodes in the plan

    @property
    def total(self) -> Bytes:
        return self.to_device + self.to_host

    def text(self) -> str:
        return f"{self.total} (to the device {self.to_device}, back {self.to_host})"


def traffic(body: ControlNode, containers) -> Traffic:
    """The bytes a plan moves, each copy counted once per trip of the host loops around it."""
    def visit(node: ControlNode, times: Bytes, outer: frozenset = frozenset()) -> Traffic:
        if isinstance(node, Block):
            out = Traffic()
            for d in node.graph.nodes:
                if isinstance(d, DeviceCopy):
                    host = d.src if d.direction == TO_DEVICE else d.dst
                    moved = array_bytes(containers[host]) * times
                    out = Traffic(out.to_device + (moved if d.direction == TO_DEVICE else Bytes()),
                                  out.to_host + (moved if d.direction == TO_HOST else Bytes()), out.copies + 1)
            return out
        if is_kernel(node):
            return Traffic()
        inner = times
        if isinstance(node, (For, Map)):
            trips = _trips(node)
            if any(name in outer for m, _ in trips.terms for name in m):
                # (a triangle's trips vary with the loops around: not a product)
                trips = Bytes((), (f"trips of the loop on {node.var}",))
            inner = times * trips
            outer = outer | {node.var}
        total = Traffic()
        for c in _children(node):
            t = visit(c, inner, outer)
            total = Traffic(total.to_device + t.to_device, total.to_host + t.to_host, total.copies + t.copies)
        return total

    return visit(body, Bytes.const(1))


def _children(node: ControlNode) -> tuple[ControlNode, ...]:
    if isinstance(node, Sequence):
        return node.children
    if isinstance(node, (For, Map)):
        return (node.body,)
    if isinstance(node, IfElse):
        return (node.then,) + (() if node.other is None else (node.other,))
    return ()


def _trips(loop: For | Map) -> Bytes:
    if isinstance(loop, Map):
        start, stop, step = loop.start, loop.stop, loop.step
    else:
        from s2s.schedule.codegen import loop_as_map

        as_map = loop_as_map(loop, Schedule.SEQUENTIAL)
        if not isinstance(as_map, Map):
            return Bytes((), (f"trips of the loop on {loop.var}",))
        start, stop, step = as_map.start, as_map.stop, as_map.step
    if step == ex.Const("1"):
        return polynomial(stop) + polynomial(start) * Bytes.const(-1)
    return Bytes((), (ex.format_expr(ex.Binary("/", ex.Binary("-", stop, start), step)),))


@dataclass
class _Placer:
    device_of: dict[str, str]
    containers: dict
    count: int = 0
    host_of: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        self.host_of = {d: h for h, d in self.device_of.items()}

    def copy(self, host: str, where: str) -> Block:
        self.count += 1
        dev = self.device_of[host]
        src, dst, direction = (host, dev, TO_DEVICE) if where == DEVICE else (dev, host, TO_HOST)
        tag = f"xfer{self.count}.{host}"
        return Block(f"B.{tag}", copy_block_graph(tag, src, dst, direction, whole(self.containers[host])))

    def ensure(self, state: dict, host: str, where: str) -> list[ControlNode]:
        if where in state[host]:
            return []
        state[host] = state[host] | {where}
        return [self.copy(host, where)]

    def uses(self, node: ControlNode) -> tuple[set[str], set[str]]:
        """(arrays the kernels in ``node`` touch, arrays its host code touches), by host name."""
        on_device: set[str] = set()
        on_host: set[str] = set()
        for n in _host_parts(node):
            r, w = touched(n)
            if is_kernel(n):
                on_device |= {self.host_of[d] for d in r | w if d in self.host_of}
            else:
                on_host |= {h for h in r | w if h in self.device_of}
        return on_device, on_host

    def sequence(self, seq: Sequence, state: dict) -> tuple[Sequence, dict]:
        out: list[ControlNode] = []
        for child in seq.children:
            made, state = self.node(child, state)
            out += made
        return dataclasses.replace(seq, children=tuple(out)), state

    def node(self, n: ControlNode, state: dict) -> tuple[list[ControlNode], dict]:
        state = dict(state)
        if is_kernel(n):
            r, w = touched(n)
            out: list[ControlNode] = []
            for h in sorted(self.host_of[d] for d in r | w if d in self.host_of):
                if self.device_of[h] not in r and fully_written(n, self.device_of[h], self.containers):
                    continue   # (no element's old value survives the kernel)
                out += self.ensure(state, h, DEVICE)
            for d in w:
                if d in self.host_of:
                    state[self.host_of[d]] = frozenset({DEVICE})
            return out + [n], state
        if isinstance(n, Sequence):
            made, state = self.sequence(n, state)
            return [made], state
        if isinstance(n, (For, Map)):
            on_device, on_host = self.uses(n.body)
            # (the header is evaluated on the host before each trip: its arrays are the host's then)
            header = self.header_reads(n)
            on_host |= header
            out = []
            for h in sorted(on_device - on_host):
                out += self.ensure(state, h, DEVICE)
            for h in sorted(on_host - on_device):
                out += self.ensure(state, h, HOST)
            for h in sorted(header):
                out += self.ensure(state, h, HOST)
            entry = dict(state)
            while True:
                count = self.count
                body, end = self.sequence(n.body, dict(entry))
                body, end = self.rejoin(body, end, {**entry, **{h: frozenset({HOST}) for h in header}})
                met = {h: entry[h] & end[h] for h in entry}
                if met == entry:
                    break
                self.count = count
                entry = met
            return out + [dataclasses.replace(n, body=body)], entry
        if isinstance(n, IfElse):
            out = []
            for h in sorted(self.header_reads(n)):
                out += self.ensure(state, h, HOST)
            then, then_end = self.sequence(n.then, dict(state))
            other, other_end = (self.sequence(n.other, dict(state)) if n.other is not None
                                else (None, dict(state)))
            met = {h: then_end[h] & other_end[h] for h in state}
            for h in state:
                if not met[h]:   # (one valid place on each path, not the same: both go back to the host)
                    met[h] = frozenset({HOST})
                    then, then_end = self.rejoin(then, then_end, {**then_end, h: frozenset({HOST})})
                    if other is None:
                        other = Sequence(f"{n.id}.xfer.else", ())
                    other, other_end = self.rejoin(other, other_end, {**other_end, h: frozenset({HOST})})
            if other is not None and n.other is None and not other.children:
                other = None   # (the path around the branch needed no copy)
            return out + [dataclasses.replace(n, then=then, other=other)], met
        r, w = touched(n)
        out = []
        for h in sorted((r | w) & set(self.device_of)):
            out += self.ensure(state, h, HOST)
        for h in w & set(self.device_of):
            state[h] = frozenset({HOST})
        return out + [n], state

    def header_reads(self, n: For | Map | IfElse) -> set[str]:
        """The tracked arrays a loop's or a branch's own expressions read (not its body's)."""
        if isinstance(n, IfElse):
            head = dataclasses.replace(n, then=Sequence(n.then.id, ()), other=None)
        else:
            head = dataclasses.replace(n, body=Sequence(n.body.id, ()))
        return touched(head)[0] & set(self.device_of)

    def rejoin(self, body: Sequence, end: dict, entry: dict) -> tuple[Sequence, dict]:
        """``body`` with copies at its end for the arrays valid nowhere that ``entry`` has them."""
        extra: list[ControlNode] = []
        end = dict(end)
        for h in sorted(entry):
            if not end[h] & entry[h]:
                where = HOST if HOST in entry[h] else DEVICE
                extra += self.ensure(end, h, where)
        if not extra:
            return body, end
        return dataclasses.replace(body, children=body.children + tuple(extra)), end


def fully_written(kernel: Map, array: str, containers) -> bool:
    """Whether every element of ``array`` is written by ``kernel``, which does not read it: each
    subscript of a write is a grid dimension's variable whose range is the array's extent from 0
    by 1, and the writes stand unconditionally in the body every grid point runs."""
    if not isinstance(kernel, Map):
        return False
    dims = [kernel]
    while (len(dims[-1].body.children) == 1 and is_kernel(dims[-1].body.children[0])):
        dims.append(dims[-1].body.children[0])
    shape = containers[array].shape
    ranges = {d.var: d for d in dims}
    writes = [e for n in walk(kernel) if isinstance(n, Block) for e in n.graph.writes() if e.data == array]
    direct = [e for n in dims[-1].body.children if isinstance(n, Block) for e in n.graph.writes() if e.data == array]
    if not writes or len(writes) != len(direct) or array in touched(kernel)[0]:
        return False
    for e in direct:
        subset = [_widened(s) for s in e.subset]
        if len(subset) != len(shape) or not all(isinstance(s, ex.Sym) and s.name in ranges for s in subset):
            return False
        if len({s.name for s in subset}) != len(shape):
            return False
        for s, extent in zip(subset, shape):
            d = ranges[s.name]
            if not (polynomial(d.start) == Bytes() and d.step == ex.Const("1") and polynomial(d.stop) == polynomial(extent)):
                return False
    return True


_WIDE = {"long", "long long", "size_t", "unsigned long", "unsigned long long", "ptrdiff_t", "int64_t", "uint64_t"}


def _widened(e):
    """A subscript less casts to 64-bit types, which keep an index in [0, extent) as it is."""
    while isinstance(e, ex.Cast) and " ".join(e.type.split()) in _WIDE:
        e = e.operand
    return e


def _host_parts(node: ControlNode):
    """The kernels of ``node`` and its host statements (leaves outside kernels)."""
    if is_kernel(node):
        yield node
    elif isinstance(node, (Sequence, For, Map, IfElse)):
        if isinstance(node, (For, Map)):
            yield dataclasses.replace(node, body=Sequence(node.body.id, ()))   # (its bounds)
        elif isinstance(node, IfElse):
            yield dataclasses.replace(node, then=Sequence(node.then.id, ()), other=None)
        for c in _children(node):
            yield from _host_parts(c)
    else:
        yield node


@dataclass(frozen=True)
class TransferPlan:
    """A region's code with its copies: ``body`` as placed here, and what the naive plan and this
    one move."""

    body: Sequence
    naive: Traffic
    placed: Traffic


def naive_copies(body: Sequence, device_of: dict[str, str], containers) -> Sequence:
    """Every array a kernel touches copied in before each launch, each it writes copied out after."""
    placer = _Placer(device_of, containers)

    def visit(node: ControlNode) -> list[ControlNode]:
        if is_kernel(node):
            r, w = touched(node)
            ins = [placer.copy(placer.host_of[d], DEVICE) for d in sorted(r | w) if d in placer.host_of]
            outs = [placer.copy(placer.host_of[d], HOST) for d in sorted(w) if d in placer.host_of]
            return ins + [node] + outs
        if isinstance(node, Sequence):
            return [dataclasses.replace(node, children=tuple(x for c in node.children for x in visit(c)))]
        if isinstance(node, (For, Map)):
            return [dataclasses.replace(node, body=visit(node.body)[0])]
        if isinstance(node, IfElse):
            return [dataclasses.replace(node, then=visit(node.then)[0],
                                        other=None if node.other is None else visit(node.other)[0])]
        return [node]

    return visit(body)[0]


def place_transfers(body: Sequence, device_of: dict[str, str], containers, live_after: set[str]) -> TransferPlan:
    """The region ``body`` (kernels over the device containers ``device_of`` names) with the copies
    it needs (see the module docstring). ``live_after``: the host arrays that may be read after it."""
    placer = _Placer(device_of, containers)
    start = {h: frozenset({HOST}) for h in device_of}
    placed, end = placer.sequence(body, start)
    tail: list[ControlNode] = []
    for h in sorted(device_of):
        if h in live_after:
            tail += placer.ensure(end, h, HOST)
    placed = dataclasses.replace(placed, children=placed.children + tuple(tail))
    return TransferPlan(placed, traffic(naive_copies(body, device_of, containers), containers),
                        traffic(placed, containers))


def dead_after(function_body: Sequence, region: ControlNode, containers) -> set[str]:
    """Local arrays of the function (objects on its stack) that no statement after ``region``
    names: what the IR proves dead after it. Every other array is live."""
    from s2s.ir import Storage
    from s2s.ir.rewrite import free_names

    from s2s.ir import Opaque

    children = function_body.children
    at = [k for k, c in enumerate(children) if c is region]
    if not at or any(isinstance(n, Opaque) for n in walk(function_body)):
        return set()   # (a goto may lead back to statements before the region)
    later: set[str] = set()
    for c in children[at[0] + 1:]:
        later |= free_names(c)
    return {n for n, d in containers.items() if isinstance(d, Array) and d.storage is Storage.STACK
            and d.is_object and n not in later}


__all__ = ["TransferPlan", "Traffic", "Bytes", "place_transfers", "naive_copies", "traffic", "dead_after",
           "is_kernel", "touched", "array_bytes"]


def copies_in_loops(body: ControlNode) -> int:
    """How many copies of a plan sit inside host loops (each moves its array once per trip)."""
    def visit(node: ControlNode, inside: bool) -> int:
        if isinstance(node, Block):
            return sum(isinstance(d, DeviceCopy) for d in node.graph.nodes) if inside else 0
        if is_kernel(node):
            return 0
        return sum(visit(c, inside or isinstance(node, (For, Map))) for c in _children(node))

    return visit(body, False)
