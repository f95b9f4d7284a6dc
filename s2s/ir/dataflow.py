"""Dataflow blocks: a small acyclic multigraph of access nodes, tasklets and library nodes whose
edges (memlets) say exactly which elements of which container flow where."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from s2s.ir.expr import Expr, Sym


@dataclass(frozen=True)
class Range:
    """A strided interval of indices, ``start <= i < stop`` by ``step`` (a memlet dimension)."""

    start: Expr
    stop: Expr
    step: Expr


Subscript = Union[Expr, Range]


@dataclass(frozen=True)
class AccessNode:
    """A read or write of a container within a block."""

    id: str
    data: str


@dataclass(frozen=True)
class Tasklet:
    """``output = expr(inputs)``: a typed expression whose free names are its input connectors.

    ``output`` is None for an expression evaluated for its effect only (a call such as
    ``printf``); ``expr`` may call functions outside PURE_FUNCTIONS, which makes the tasklet
    impure (analyses then treat it as touching unknown memory).

    ``guarded_store``: ``expr`` is ``c ? e : x`` with ``x`` the element written, from the user's
    ``if (c) x = e;`` (s2s.analysis.data_conditions); back ends print it so, storing only where
    ``c`` holds, as the program did.
    """

    id: str
    inputs: tuple[str, ...]
    output: str | None
    expr: Expr
    dtype: str | None = None  # C type of the value written, when known
    guarded_store: bool = False


@dataclass(frozen=True)
class LibraryNode:
    """A call to a well-known routine whose effect on memory is known (``memset``, ``memcpy``, ...).

    ``args`` are the call's arguments as written (arrays passed by name); the memlets on its
    connectors say which elements it reads and writes.
    """

    id: str
    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    args: tuple[Expr, ...]


DataflowNode = Union[AccessNode, Tasklet, LibraryNode]


@dataclass(frozen=True)
class Memlet:
    """An edge: elements ``subset`` of container ``data`` moving from ``src`` to ``dst``.

    ``subset`` is one subscript per dimension (an element or a Range); empty for scalars.
    ``wcr`` is the write-conflict resolution of a reduction edge ("+", "*", "min", "max"), else None.
    """

    src: str
    src_conn: str | None
    dst: str
    dst_conn: str | None
    data: str
    subset: tuple[Subscript, ...] = ()
    wcr: str | None = None


@dataclass(frozen=True)
class DataflowGraph:
    nodes: tuple[DataflowNode, ...]
    edges: tuple[Memlet, ...]

    def node(self, node_id: str) -> DataflowNode:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def in_edges(self, node_id: str) -> list[Memlet]:
        return [e for e in self.edges if e.dst == node_id]

    def out_edges(self, node_id: str) -> list[Memlet]:
        return [e for e in self.edges if e.src == node_id]

    def as_networkx(self):
        import networkx as nx  # imported on use: s2s-cc's start-up time matters

        g = nx.MultiDiGraph()
        for n in self.nodes:
            g.add_node(n.id, node=n)
        for e in self.edges:
            g.add_edge(e.src, e.dst, memlet=e)
        return g

    def topological_nodes(self) -> list[DataflowNode]:
        """Nodes in an order that respects the edges, ties broken by their position in ``nodes``."""
        import networkx as nx

        position = {n.id: i for i, n in enumerate(self.nodes)}
        order = nx.lexicographical_topological_sort(self.as_networkx(), key=lambda i: position[i])
        return [self.node(i) for i in order]

    def computations(self) -> list[Tasklet | LibraryNode]:
        return [n for n in self.topological_nodes() if not isinstance(n, AccessNode)]

    def reads(self) -> list[Memlet]:
        """Memlets from containers into computations."""
        access = {n.id for n in self.nodes if isinstance(n, AccessNode)}
        return [e for e in self.edges if e.src in access]

    def writes(self) -> list[Memlet]:
        access = {n.id for n in self.nodes if isinstance(n, AccessNode)}
        return [e for e in self.edges if e.dst in access]


def copy_graph(tag: str, src: str, src_subset: tuple, dst: str, dst_subset: tuple) -> DataflowGraph:
    """``dst[dst_subset] = src[src_subset]`` (node ids from ``tag``)."""
    tasklet = Tasklet(f"T.{tag}", ("in",), "out", Sym("in"))
    a, b = AccessNode(f"A.{tag}.src", src), AccessNode(f"A.{tag}.dst", dst)
    return DataflowGraph((a, tasklet, b), (Memlet(a.id, None, tasklet.id, "in", src, tuple(src_subset)),
                                           Memlet(tasklet.id, "out", b.id, None, dst, tuple(dst_subset))))
