"""An SDFG is one function: its containers and its control tree. A TranslationUnit is one file."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from s2s.ir.control import ControlNode, Sequence, SourceSpan, walk
from s2s.ir.data import Data
from s2s.ir.expr import Expr


@dataclass(frozen=True)
class SDFG:
    """A function. ``containers`` lists every name its body refers to: parameters, locals (unique
    names; shadowed C names are renamed), and the globals it uses. ``signature`` is the C text of
    the function head (``static void kernel(int n, double A[n][n])``)."""

    name: str
    signature: str
    params: tuple[str, ...]
    containers: tuple[Data, ...]
    body: Sequence
    origin: SourceSpan | None = field(default=None, compare=False)
    # (name, declaration) of each parameter as the file writes it, macros unexpanded
    # (``DATA_TYPE POLYBENCH_2D(A, N, N, n, n)``); empty where the file does not plainly show them
    param_texts: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    # integer locals declared in the body with a value they keep (``const long sz = (long)nx *
    # ny;``, never written, nor what it reads after it): (name, value), for the model of the
    # subscripts that read them (frontends/c/index_temporaries.py)
    fixed_values: tuple[tuple[str, Expr], ...] = field(default=(), compare=False)

    def container(self, name: str) -> Data:
        for c in self.containers:
            if c.name == name:
                return c
        raise KeyError(f"{self.name}: no container {name!r}")

    @property
    def container_map(self) -> dict[str, Data]:
        return {c.name: c for c in self.containers}

    def nodes(self) -> Iterator[ControlNode]:
        return walk(self.body)

    def find(self, element_id: str) -> ControlNode:
        for n in self.nodes():
            if n.id == element_id:
                return n
        raise KeyError(f"{self.name}: no element {element_id!r}")


@dataclass(frozen=True)
class TranslationUnit:
    """A C file as the IR sees it: its functions (in file order) and the file's text, which the
    C back end splices regenerated regions into."""

    path: str
    functions: tuple[SDFG, ...]
    source: str = field(default="", repr=False)

    def function(self, name: str) -> SDFG:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)
