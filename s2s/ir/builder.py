"""Building SDFGs: one API for every front end, and for people writing IR by hand.

Front ends call the node constructors (``assignment``, ``for_loop``, ``if_else``, ...) which assign
stable ids and turn statements into dataflow. The context-manager API on top is for tests and users:

    b = SDFGBuilder("axpy")
    b.symbol("n"); b.array("x", "double", ["n"]); b.array("y", "double", ["n"]); b.scalar("a", "double")
    with b.loop("i", 0, "n"):
        b.assign("y[i]", "y[i] + a * x[i]")
    sdfg = b.build()
"""
from __future__ import annotations

import contextlib
import itertools
from collections import defaultdict
from typing import Collection, Iterator, Sequence as Seq

from s2s.ir import expr as ex
from s2s.ir.control import (
    Block, Break, Continue, ControlNode, Declare, For, IfElse, Map, Opaque, Return, Schedule, Sequence,
    SourceSpan, While,
)
from s2s.ir.data import Array, Data, Scalar, Storage, Symbol
from s2s.ir.dataflow import AccessNode, DataflowGraph, LibraryNode, Memlet, Tasklet
from s2s.ir.expr_parse import parse_expr
from s2s.ir.sdfg import SDFG
from s2s.ir.types import scalar_type

_ID_PREFIX = {
    Block: "B", Declare: "D", Sequence: "S", For: "L", Map: "M", IfElse: "C", While: "W",
    Break: "K", Continue: "N", Return: "R", Opaque: "O",
}


class SDFGBuilder:
    def __init__(self, name: str, signature: str = ""):
        self.name = name
        self.signature = signature
        self.params: list[str] = []
        self._containers: dict[str, Data] = {}
        self._counters: dict[str, itertools.count] = defaultdict(itertools.count)
        self._open: list[list[ControlNode]] = [[]]
        self._loop_vars: list[str] = []

    # --- ids and containers ---------------------------------------------------------------------

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._counters[prefix])}"

    def unique_name(self, base: str) -> str:
        if base not in self._containers:
            return base
        for k in itertools.count(1):
            candidate = f"{base}_{k}"
            if candidate not in self._containers:
                return candidate
        raise AssertionError("unreachable")

    def add_container(self, data: Data, param: bool = False) -> str:
        """Registers ``data`` (under a fresh name if its name is taken) and returns the name used."""
        name = self.unique_name(data.name)
        if name != data.name:
            data = type(data)(**{**data.__dict__, "name": name})
        self._containers[name] = data
        if param:
            self.params.append(name)
        return name

    def replace_container(self, data: Data) -> None:
        self._containers[data.name] = data

    def has_container(self, name: str) -> bool:
        return name in self._containers

    def container(self, name: str) -> Data:
        return self._containers[name]

    # --- node constructors (what front ends call) -------------------------------------------------

    def node(self, cls: type, /, **fields) -> ControlNode:
        return cls(id=self.new_id(_ID_PREFIX[cls]), **fields)

    def sequence(self, children: Seq[ControlNode], origin: SourceSpan | None = None) -> Sequence:
        return self.node(Sequence, children=tuple(children), origin=origin)

    def opaque(self, text: str, reason: str, origin: SourceSpan | None = None) -> Opaque:
        return self.node(Opaque, text=text, reason=reason, origin=origin)

    def assignment(
        self,
        target: ex.Sym | ex.Access | None,
        value: ex.Expr,
        free: Collection[str] = (),
        dtype: str | None = None,
        origin: SourceSpan | None = None,
    ) -> Block:
        """``target = value`` as a block of access nodes, one tasklet and memlets. ``target`` None
        evaluates ``value`` for its effect (a call). Names in ``free`` (loop variables, symbols,
        enum constants) stay symbolic; other scalar and array reads become memlets."""
        free = set(free) | {n for n, d in self._containers.items() if isinstance(d, Symbol)}
        nodes: list = []
        edges: list[Memlet] = []
        inputs: dict[tuple, str] = {}
        tasklet_id = self.new_id("T")
        used_connectors: set[str] = set()

        def connector_for(key: tuple, data: str) -> str:
            if key not in inputs:
                base = f"in_{data}"
                conn = base
                k = 1
                while conn in used_connectors:
                    conn = f"{base}_{k}"
                    k += 1
                used_connectors.add(conn)
                inputs[key] = conn
                access = AccessNode(self.new_id("A"), data)
                nodes.append(access)
                edges.append(Memlet(access.id, None, tasklet_id, conn, data, key[1]))
            return inputs[key]

        def to_connectors(n: ex.Expr) -> ex.Expr:
            # Subscripts stay as they are: memlet subsets are symbolic in container names.
            if isinstance(n, ex.Access) and n.name in self._containers:
                return ex.Sym(connector_for((n.name, n.indices), n.name))
            if isinstance(n, ex.Sym):
                if n.name not in free and isinstance(self._containers.get(n.name), Scalar):
                    return ex.Sym(connector_for((n.name, ()), n.name))
                return n
            if isinstance(n, ex.SizeOf):
                return n
            return ex.rebuild_children(n, to_connectors)

        body = to_connectors(value)
        output = None
        if target is not None:
            output = "out"
            out_data = target.name
            subset = target.indices if isinstance(target, ex.Access) else ()
            write = AccessNode(self.new_id("A"), out_data)
            edges.append(Memlet(tasklet_id, output, write.id, None, out_data, subset))
        tasklet = Tasklet(tasklet_id, tuple(inputs.values()), output, body, dtype)
        nodes.append(tasklet)
        if target is not None:
            nodes.append(write)
        return self.node(Block, graph=DataflowGraph(tuple(nodes), tuple(edges)), origin=origin)

    def library_call(self, name: str, args: Seq[ex.Expr], reads: Seq[tuple[str, tuple]],
                     writes: Seq[tuple[str, tuple]], origin: SourceSpan | None = None) -> Block:
        """A call of a well-known routine reading and writing the given (container, subset) pairs."""
        node_id = self.new_id("T")
        nodes: list = []
        edges: list[Memlet] = []
        ins, outs = [], []
        for k, (data, subset) in enumerate(reads):
            a = AccessNode(self.new_id("A"), data)
            nodes.append(a)
            ins.append(f"in{k}")
            edges.append(Memlet(a.id, None, node_id, f"in{k}", data, tuple(subset)))
        nodes.append(LibraryNode(node_id, name, tuple(ins), tuple(f"out{k}" for k in range(len(writes))), tuple(args)))
        for k, (data, subset) in enumerate(writes):
            a = AccessNode(self.new_id("A"), data)
            nodes.append(a)
            outs.append(f"out{k}")
            edges.append(Memlet(node_id, f"out{k}", a.id, None, data, tuple(subset)))
        return self.node(Block, graph=DataflowGraph(tuple(nodes), tuple(edges)), origin=origin)

    def build(self, body: Sequence | None = None, origin: SourceSpan | None = None) -> SDFG:
        if body is None:
            if len(self._open) != 1:
                raise ValueError("build() inside an open loop or branch")
            body = self.sequence(self._open[0])
        return SDFG(self.name, self.signature or f"void {self.name}(...)", tuple(self.params),
                    tuple(self._containers.values()), body, origin)

    # --- the structured API for people and tests --------------------------------------------------

    def symbol(self, name: str, dtype: str = "int") -> str:
        return self.add_container(Symbol(name, scalar_type(dtype)), param=True)

    def scalar(self, name: str, dtype: str = "double", storage: Storage = Storage.ARGUMENT) -> str:
        return self.add_container(Scalar(name, scalar_type(dtype), storage), param=storage is Storage.ARGUMENT)

    def array(self, name: str, dtype: str, shape: Seq[str | int | None], storage: Storage = Storage.ARGUMENT) -> str:
        dims = tuple(None if s is None else _as_expr(s) for s in shape)
        return self.add_container(Array(name, scalar_type(dtype), dims, storage), param=storage is Storage.ARGUMENT)

    def _append(self, node: ControlNode) -> ControlNode:
        self._open[-1].append(node)
        return node

    def assign(self, target: str, value: str) -> Block:
        t = parse_expr(target)
        if not isinstance(t, (ex.Sym, ex.Access)):
            raise ValueError(f"cannot assign to {target!r}")
        return self._append(self.assignment(t, parse_expr(value), free=self._loop_vars))

    def declare(self, name: str, dtype: str = "double") -> str:
        actual = self.add_container(Scalar(name, scalar_type(dtype), Storage.STACK))
        self._append(self.node(Declare, name=actual))
        return actual

    @contextlib.contextmanager
    def _body(self, var: str | None = None) -> Iterator[list[Sequence]]:
        """Collects the nodes appended inside a ``with`` into a Sequence (``var``: a loop variable,
        declared as an int if new, and symbolic inside)."""
        if var is not None and not self.has_container(var):
            self.add_container(Scalar(var, scalar_type("int"), Storage.STACK))
        self._open.append([])
        if var is not None:
            self._loop_vars.append(var)
        done: list[Sequence] = []
        try:
            yield done
        finally:
            if var is not None:
                self._loop_vars.pop()
            done.append(self.sequence(self._open.pop()))

    @contextlib.contextmanager
    def loop(self, var: str, start: str | int, stop: str | int, step: int = 1) -> Iterator[None]:
        """``for (var = start; var < stop; var += step)``, declaring ``var`` as an int."""
        with self._body(var) as body:
            yield
        v = ex.Sym(var)
        cond = ex.Binary("<" if step > 0 else ">", v, _as_expr(stop))
        update = ex.Binary("+", v, ex.Const(str(step))) if step > 0 else ex.Binary("-", v, ex.Const(str(-step)))
        self._append(self.node(For, var=var, init=_as_expr(start), cond=cond, update=update, body=body[0],
                               declares_var=True))

    @contextlib.contextmanager
    def map(self, var: str, start: str | int, stop: str | int, schedule: Schedule = Schedule.CPU_MULTICORE) -> Iterator[None]:
        with self._body(var) as body:
            yield
        self._append(self.node(Map, var=var, start=_as_expr(start), stop=_as_expr(stop), step=ex.Const("1"),
                               body=body[0], schedule=schedule))

    @contextlib.contextmanager
    def if_(self, cond: str) -> Iterator[None]:
        with self._body() as then:
            yield
        self._append(self.node(IfElse, cond=parse_expr(cond), then=then[0]))

    def ret(self, value: str | None = None) -> None:
        self._append(self.node(Return, value=None if value is None else parse_expr(value)))


def _as_expr(v: str | int | ex.Expr) -> ex.Expr:
    if isinstance(v, int):
        return ex.Const(str(v))
    if isinstance(v, str):
        return parse_expr(v)
    return v
