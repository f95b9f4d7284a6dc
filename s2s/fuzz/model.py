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

from s2s.fuzz import cint

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

    def shift_var(self, name: str, delta: int) -> Poly:
        """``self`` with ``name`` replaced by ``name + delta`` (a loop variable occurs once per product)."""
        terms: list[tuple[int, tuple[str, ...]]] = []
        const = self.const
        for coef, names in self.terms:
            terms.append((coef, names))
            if name in names and delta:
                rest = tuple(n for n in names if n != name)
                if rest:
                    terms.append((coef * delta, rest))
                else:
                    const += coef * delta
        return Poly(tuple(terms), const)

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
    op: str  # + - *, or a compare < > == != (an int, 0 or 1)
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
    """``lhs op rhs``, or with ``modulus`` ``(lhs) % modulus == rhs.const`` (C's truncating %);
    or, with ``data``, ``(data) op rhs.const``: a condition on the values of integer elements and
    scalars (of type ``data_type``), which only a run of the program decides."""

    lhs: Poly
    op: str
    rhs: Poly
    modulus: int = 0
    data: "Expr | None" = None
    data_type: str = "int"

    def holds(self, env: dict[str, int], types: dict[str, str] | None = None) -> bool:
        if self.data is not None:
            raise ValueError("a condition on data holds where the program's values say")
        if types:
            return self._holds_in_c(env, types)
        a = self.lhs.evaluate(env)
        if self.modulus:
            return int(_c_mod(a, self.modulus)) == self.rhs.const
        b = self.rhs.evaluate(env)
        return {"<": a < b, "<=": a <= b, "==": a == b, "!=": a != b, ">=": a >= b, ">": a > b}[self.op]

    def _holds_in_c(self, env: dict[str, int], types: dict[str, str]) -> bool:
        """As C decides it where some names are unsigned: ``(i - 1) % 2`` is 1 at ``i = 0``."""
        lhs = cint.evaluate(self.lhs, env, types)
        if self.modulus:
            return cint.compare(cint.modulo(lhs, self.modulus), "==", cint.Value(self.rhs.const, cint.INT))
        return cint.compare(lhs, self.op, cint.evaluate(self.rhs, env, types))

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
    (``for (v = upper - 1 (or upper); v >= lower; v -= step)``).

    ``style`` is how the loop is written, the idioms of unsigned counters (all step 1 but ``plus``):

    * ``plus``: a bound that subtracts moved to the counter's side, ``v + 2 < n`` for ``v < n - 2``
      (the same iterations; never wraps);
    * ``postdec`` (descending): ``for (v = top; v-- > lower;)``, the body seeing ``top - 1 .. lower``;
    * ``gt`` (descending): ``for (v = top; v > lower; v--)``, the body seeing ``top .. lower + 1``
      (the generator writes its subscripts ``a[v - 1]``).

    where ``top`` is ``upper`` (``upper + 1`` when ``inclusive``)."""

    var: str
    lower: Poly
    upper: Poly
    body: tuple["Node", ...]
    inclusive: bool = False
    step: int = 1
    descending: bool = False
    style: str = ""

    def values(self, env: dict[str, int], types: dict[str, str] | None = None) -> range | list[int]:
        """The counter's values in order; with ``types`` (a program whose counters or sizes are not
        all ``int``) as C computes them, raising ``cint.Unrunnable`` where a counter runs away."""
        if types:
            return self._values_in_c(env, types)
        lo = self.lower.evaluate(env)
        hi = self.upper.evaluate(env) + (1 if self.inclusive else 0)  # exclusive
        if self.descending:
            if self.style == "postdec":
                return range(hi - 1, lo - 1, -1)
            if self.style == "gt":
                return range(hi, lo, -1)
            return range(hi - 1, lo - 1, -self.step)
        return range(lo, hi, self.step)

    def top(self) -> Poly:
        """What the descending idioms start from (``postdec`` and ``gt``)."""
        return self.upper.shifted(1) if self.inclusive else self.upper

    def plus_form(self) -> bool:
        """Whether the ``plus`` style applies: the bound subtracts a constant from a sum of names."""
        return self.style == "plus" and not self.descending and bool(self.upper.terms) and self.upper.const < 0

    def _values_in_c(self, env: dict[str, int], types: dict[str, str]) -> list[int]:
        kind = cint.kind_of(types.get(self.var, "int"))
        out: list[int] = []

        def ev(p: Poly) -> cint.Value:
            return cint.evaluate(p, env, types)

        def counter(v: int) -> cint.Value:
            return cint.Value(v, kind)

        def take(v: int) -> None:
            if abs(v) >= cint.SANE or len(out) >= cint.MAX_TRIPS:
                raise cint.RunsAway(f"{self.var} takes {v} after {len(out)} iterations")
            out.append(v)

        if not self.descending:
            v = cint.convert(ev(self.lower).value, kind)
            cmp = "<=" if self.inclusive else "<"
            if self.plus_form():
                bound, add = ev(Poly(self.upper.terms, 0)), -self.upper.const
            else:
                bound, add = ev(self.upper), 0
            while cint.compare(cint.binop("+", counter(v), cint.Value(add, cint.INT)) if add else counter(v),
                               cmp, bound):
                take(v)
                v = cint.binop("+", counter(v), cint.Value(self.step, cint.INT)).value
                v = cint.convert(v, kind)
            return out
        lower = ev(self.lower)
        if self.style in ("postdec", "gt"):
            v = cint.convert(ev(self.top()).value, kind)
            while cint.compare(counter(v), ">", lower):
                v = cint.convert(v - 1, kind)
                take(v if self.style == "postdec" else v + 1)
            return out
        v = cint.convert(ev(self.upper if self.inclusive else self.upper.shifted(-1)).value, kind)
        while cint.compare(counter(v), ">=", lower):
            take(v)
            v = cint.convert(cint.binop("-", counter(v), cint.Value(self.step, cint.INT)).value, kind)
        return out


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
    restrict: bool = False  # ptr: declared ``T *restrict name`` (its storage is its own)


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
    # C types of the loop variables and the size parameters that are not int (``size_t n``,
    # ``for (unsigned i ...``), one per name: see ``s2s.fuzz.cint`` for what they change
    types: tuple[tuple[str, str], ...] = ()

    def type_of(self, name: str) -> str:
        return dict(self.types).get(name, "int")

    def array(self, name: str) -> Array:
        return next(a for a in self.arrays if a.name == name)

    def args(self) -> list[str]:
        return [str(v) for _, v in self.params]

    def has_views(self) -> bool:
        return any(a.kind == "view" for a in self.arrays)
