"""The fuzzer's program model: a small tree of dataclasses that prints itself as one C file.

Generation, sizing and shrinking all work on this tree rather than on C text, so a shrinking step
("drop this statement", "halve n") can never produce a program that does not parse, and array
sizes can be recomputed from the accesses after every step (``s2s.fuzz.generator.finalize``).

Every array is stored in a file-scope array named ``g_<name>``; how the kernel reaches it is the
array's ``kind``:

* ``global``: the kernel uses the file-scope array itself;
* ``param``: a parameter of array type (``double A[8][9]``), as PolyBench passes them;
* ``ptr``: a flat ``T *`` parameter indexed by a linearized subscript (``A[i * 17 + j]``);
* ``view``: a flat pointer into another array's storage at an offset (``buffer``/``offset``), reached
  as a local pointer in the kernel, a pointer parameter or a file-scope pointer (``view_kind``).
  Views of one buffer alias one another: that is the point of them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterator
from typing import Union

INT_TYPES = ("int", "unsigned")
FLOAT_TYPES = ("float", "double")
INT_MASK = 1023  # every int result is masked to 10 bits, so sums of small products never overflow


# ---- subscripts and bounds: sums of products of names (loop variables, parameters) ---------------------------
@dataclass(frozen=True)
class Poly:
    """``sum(coef * prod(names)) + const``. Affine in loop variables except for linearized subscripts
    with a parameter leading dimension (``i * n + j``), which the optimizer may or may not model."""

    terms: tuple[tuple[int, tuple[str, ...]], ...] = ()
    const: int = 0

    def evaluate(self, env: dict[str, int]) -> int:
        total = self.const
        for coef, names in self.terms:
            value = coef
            for name in names:
                value *= env[name]
            total += value
        return total

    def names(self) -> set[str]:
        return {n for _, names in self.terms for n in names}

    def shifted(self, delta: int) -> Poly:
        return Poly(self.terms, self.const + delta)

    def substitute(self, name: str, value: int) -> Poly:
        terms: list[tuple[int, tuple[str, ...]]] = []
        const = self.const
        for coef, names in self.terms:
            k = names.count(name)
            rest = tuple(n for n in names if n != name)
            coef *= value ** k
            if coef == 0:
                continue
            if rest:
                terms.append((coef, rest))
            else:
                const += coef
        return Poly(tuple(terms), const)

    def c(self) -> str:
        parts: list[str] = []
        for coef, names in self.terms:
            body = "*".join(names)
            mag = abs(coef)
            text = body if mag == 1 else f"{mag}*{body}"
            parts.append(("- " if coef < 0 else "+ ") + text)
        if self.const or not parts:
            parts.append(("- " if self.const < 0 else "+ ") + str(abs(self.const)))
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else "-" + text[2:]


def var(name: str, coef: int = 1, const: int = 0) -> Poly:
    return Poly(((coef, (name,)),), const)


def const(value: int) -> Poly:
    return Poly((), value)


# ---- value expressions -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Const:
    value: float | int
    text: str  # as written in C: decimal constants that are not dyadic test the optimizer's printing


@dataclass(frozen=True)
class LoopVar:
    name: str  # a loop variable or a parameter, read as a value


@dataclass(frozen=True)
class ScalarRef:
    name: str


@dataclass(frozen=True)
class Access:
    array: str
    index: tuple[Poly, ...]


@dataclass(frozen=True)
class BinOp:
    op: str  # + - *
    left: "Expr"
    right: "Expr"


Expr = Union[Const, LoopVar, ScalarRef, Access, BinOp]


# ---- statements and control ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stmt:
    target: Access | ScalarRef
    op: str  # = += -= *=
    expr: Expr


@dataclass(frozen=True)
class ScalarDecl:
    """A local scalar, declared where it stands (a reduction variable reset in every outer iteration)."""

    name: str
    ctype: str
    init: Const


@dataclass(frozen=True)
class Cond:
    """``lhs op rhs``, or with ``modulus`` ``(lhs) % modulus == rhs.const`` (C's truncating %)."""

    lhs: Poly
    op: str
    rhs: Poly
    modulus: int = 0

    def holds(self, env: dict[str, int]) -> bool:
        a = self.lhs.evaluate(env)
        if self.modulus:
            return int(_c_mod(a, self.modulus)) == self.rhs.const
        b = self.rhs.evaluate(env)
        return {"<": a < b, "<=": a <= b, "==": a == b, "!=": a != b, ">=": a >= b, ">": a > b}[self.op]

    def c(self) -> str:
        if self.modulus:
            return f"({self.lhs.c()}) % {self.modulus} == {self.rhs.const}"
        return f"{self.lhs.c()} {self.op} {self.rhs.c()}"


def _c_mod(a: int, m: int) -> int:
    r = abs(a) % m
    return -r if a < 0 else r


@dataclass(frozen=True)
class If:
    cond: Cond
    then: tuple["Node", ...]
    orelse: tuple["Node", ...] = ()


@dataclass(frozen=True)
class Loop:
    """``for (v = lower; v < upper (or <=); v += step)``, or from the top down when ``descending``
    (``for (v = upper - 1 (or upper); v >= lower; v -= step)``)."""

    var: str
    lower: Poly
    upper: Poly
    body: tuple["Node", ...]
    inclusive: bool = False
    step: int = 1
    descending: bool = False

    def values(self, env: dict[str, int]) -> range:
        lo = self.lower.evaluate(env)
        hi = self.upper.evaluate(env) + (1 if self.inclusive else 0)  # exclusive
        if self.descending:
            return range(hi - 1, lo - 1, -self.step)
        return range(lo, hi, self.step)


Node = Union[Loop, If, Stmt, ScalarDecl]


def walk_nodes(body: tuple[Node, ...]) -> Iterator[Node]:
    """Every node of ``body`` and of the loops and branches in it, outer ones first."""
    for n in body:
        yield n
        if isinstance(n, Loop):
            yield from walk_nodes(n.body)
        elif isinstance(n, If):
            yield from walk_nodes(n.then)
            yield from walk_nodes(n.orelse)


# ---- arrays and the program --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Array:
    name: str
    ctype: str
    kind: str  # global | param | ptr | view | buffer
    dims: tuple[int, ...] = ()  # storage extents; set by finalize from the accesses
    buffer: str = ""  # view: the array whose storage it points into
    offset: int = 0  # view: element offset into the buffer
    view_kind: str = ""  # view: local | param | global


@dataclass(frozen=True)
class BuildConfig:
    """How s2s-cc is told to optimize this program (varied so tiling edges and policies get exercised)."""

    tile: str = ""  # S2S_TILE, empty for the cache model's sizes
    fuse: str = "smart"
    kernels: str = "on"
    # S2S_WORK_THRESHOLDS: our programs are small, and below the default thresholds s2s keeps the
    # user's loops; zero thresholds make it optimize them (empty: the defaults, their versioning tested)
    work: str = ""
    # S2S_PROFITABILITY: "off" makes s2s replace the loops by any legal schedule, tiled, gain or not,
    # so that its code generator meets the schedules its gain rules would turn down
    profitability: str = "on"

    def env(self) -> dict[str, str]:
        env = {"S2S_FUSE": self.fuse, "S2S_KERNELS": self.kernels, "S2S_PROFITABILITY": self.profitability}
        if self.tile:
            env["S2S_TILE"] = self.tile
        if self.work:
            env["S2S_WORK_THRESHOLDS"] = self.work
        return env


@dataclass(frozen=True)
class Program:
    seed: int
    params: tuple[tuple[str, int], ...]
    arrays: tuple[Array, ...]
    scalars: tuple[ScalarDecl, ...]  # kernel-level scalars, stored into g_result at the end
    body: tuple[Node, ...]
    config: BuildConfig = field(default_factory=BuildConfig)
    # C89 style: these loop variables are declared at the kernel's top (``int i, j;``), not by their
    # loops; those in ``read_after`` start at 0 and their final values go into g_result
    declared_at_top: tuple[str, ...] = ()
    read_after: tuple[str, ...] = ()

    def array(self, name: str) -> Array:
        return next(a for a in self.arrays if a.name == name)

    def args(self) -> list[str]:
        return [str(v) for _, v in self.params]

    def has_views(self) -> bool:
        return any(a.kind == "view" for a in self.arrays)
