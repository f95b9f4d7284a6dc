"""SCoP extraction: maximal runs of loops, branches and statements whose bounds, conditions and
subscripts are affine in the loop variables and the parameters, modelled with isl.

A SCoP is found on the IR of any function (no ``#pragma scop`` needed). Non-affine code splits
SCoPs and stays as it is. Scalars written inside a SCoP are zero-dimensional arrays, so their
dependences are modelled like any other; a scalar declared inside the SCoP is a temporary whose
declaration code generation hoists.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import islpy as isl

from s2s.analysis.affine import CTX, INT_CASTS, AffineBuilder, NotAffine
from s2s.analysis.channels import expression_of, polynomial, split_channels
from s2s.analysis.data_conditions import selects_for_data_conditions
from s2s.analysis.flat_grids import GridLayout, grid_layout
from s2s.analysis.aliasing import AliasPair, alias_pairs, overlapping_rows
from s2s.ir import (
    SDFG, Array, Binary, Block, Const, ControlNode, Declare, For, IfElse, Map, Opaque, Scalar, Sequence,
    SourceSpan, Sym, Symbol, Tasklet, TypeKind, While, child_nodes, walk, expr as ex,
)

# pieces (disjuncts) of a condition on the parameters the model may assume, tested at run time
MAX_ASSUMED_PIECES = 4


@dataclass(frozen=True)
class Loop:
    """A loop of the SCoP: its IR node, its depth (0 = outermost) and its constant step."""

    node: For
    depth: int
    step: int


@dataclass
class Statement:
    """One dataflow block of the SCoP with its polyhedral description."""

    name: str                    # isl tuple name, "S_<block id>"
    block: Block
    loops: tuple[Loop, ...]      # enclosing loops, outermost first
    domain: isl.Set
    reads: isl.UnionMap
    writes: isl.UnionMap
    schedule: isl.Map            # to the flat 2d+1 schedule space
    position: tuple[int, ...]    # textual positions (the 2d+1 vector's scalar dimensions)
    accesses: tuple[tuple[bool, isl.Map], ...] = ()  # (is_write, relation) per memlet, unmerged

    @property
    def iterators(self) -> list[str]:
        return [l.node.var for l in self.loops]


@dataclass
class Scop:
    """A static control part: ``nodes`` are consecutive children of ``parent`` (a Sequence)."""

    sdfg: SDFG
    parent: Sequence
    nodes: tuple[ControlNode, ...]
    params: tuple[str, ...]
    statements: list[Statement]
    schedule_tree: isl.Schedule
    loops: list[Loop]
    declared: tuple[str, ...]    # scalars declared inside the SCoP (hoisted by code generation)
    context: isl.Set             # what the model assumes of the parameters: the universe, or what its
                                 # delinearized subscripts need (``r >= 0`` for ``in[y * w + x]``
                                 # with x from r to w - r), tested at run time before optimized code
    # one-dimensional arrays modelled as two-dimensional: name -> the parameter p of ``A[e1 * p + e2]``
    delinearized: dict[str, str] = field(default_factory=dict)
    # those of them modelled as three-dimensional: name -> K of ``A[(e1 * p + e2) * K + e3]`` (channels.py)
    channels: dict[str, int] = field(default_factory=dict)
    # one-dimensional arrays modelled with a dimension per extent: ``u[(k * ny + j) * nx + i]``
    # as ``u[k][j][i]`` (flat_grids.py)
    grids: dict[str, GridLayout] = field(default_factory=dict)
    origin: "Scop | None" = None   # the user's SCoP, where this one is a transformation's rewriting of it
    # scalars a rewriting introduced (a web's own variable, webs.py): code generation declares
    # those the statements use, as it does the SCoP's temporaries
    fresh: tuple[str, ...] = ()

    @property
    def arrays(self) -> list[str]:
        names = {e.data for s in self.statements for e in s.block.graph.edges}
        return sorted(n for n in names if isinstance(self.sdfg.container_map.get(n), Array))

    def may_alias(self) -> list[AliasPair]:
        """Pairs of names of the SCoP, one of them written, that C allows to overlap. The model
        treats them as distinct; a transformation that reorders accesses to them must check at
        run time (s2s.analysis.aliasing says which pairs, and why)."""
        accessed = {e.data for s in self.statements for e in s.block.graph.edges}
        return alias_pairs(self.sdfg, accessed, self.written_names)

    def overlapping_rows(self) -> list[str]:
        """Written arrays of the SCoP reached through row pointers that may overlap."""
        return overlapping_rows(self.sdfg, self.written_names)

    @property
    def written_names(self) -> set[str]:
        return {e.data for s in self.statements for e in s.block.graph.writes()}

    @property
    def domain(self) -> isl.UnionSet:
        return _union_set([s.domain for s in self.statements])

    @property
    def reads(self) -> isl.UnionMap:
        return _union_map([s.reads for s in self.statements])

    @property
    def writes(self) -> isl.UnionMap:
        return _union_map([s.writes for s in self.statements])

    @property
    def schedule_map(self) -> isl.UnionMap:
        return _union_map([isl.UnionMap.from_map(s.schedule) for s in self.statements])

    def statement(self, name: str) -> Statement:
        return next(s for s in self.statements if s.name == name)

    def statements_in(self, loop: Loop) -> list[Statement]:
        return [s for s in self.statements if any(l.node.id == loop.node.id for l in s.loops)]

    def domains_within_extents(self) -> dict[str, isl.Set]:
        """Each statement's domain cut to the instances whose subscripts stay inside the arrays'
        constant declared extents (``double L[2000][2000]`` bounds ``i < n`` by 2000 too): the
        sizes a parameter can take, as an estimate for cost decisions, never for legality (a
        parameter's first extent binds nothing in C)."""
        return {st.name: self.domain_within_extents(st) for st in self.statements}

    def domain_within_extents(self, st: Statement) -> isl.Set:
        """One statement's domain as ``domains_within_extents`` gives it."""
        return _within_extents(st, self.sdfg)

    @property
    def first_line(self) -> int | None:
        for node in self.nodes:
            for n in walk(node):
                if n.origin is not None:
                    return n.origin.line
        return None


def _is_constant(e: ex.Expr) -> bool:
    """A number, or a negated one (``-13`` in ``i * -13`` is C's unary minus on 13)."""
    return isinstance(e, Const) or isinstance(e, ex.Unary) and e.op == "-" and _is_constant(e.operand)


def split_linearized(e: ex.Expr, params: tuple[str, ...]):
    """``e`` as ``outer * p + inner`` for a parameter ``p`` (None if it is not of that form):
    returns (p or None, outer, inner). A subscript of an array in ``Scop.delinearized`` is
    ``[outer][inner]`` to the model."""
    terms: list[tuple[int, ex.Expr]] = []

    def flatten(x: ex.Expr, sign: int) -> None:
        if isinstance(x, Binary) and x.op in "+-":
            flatten(x.lhs, sign)
            flatten(x.rhs, sign if x.op == "+" else -sign)
        elif isinstance(x, ex.Unary) and x.op == "-":
            flatten(x.operand, -sign)
        elif isinstance(x, ex.Cast) and " ".join(x.type.split()) in INT_CASTS:
            flatten(x.operand, sign)   # (an index temporary's ``(int)(j * nx)``, as the model reads casts)
        else:
            terms.append((sign, x))

    flatten(e, 1)
    factor = None
    outer: list[tuple[int, ex.Expr]] = []
    inner: list[tuple[int, ex.Expr]] = []
    for sign, t in terms:
        if isinstance(t, Binary) and t.op == "*" and (t.rhs in [Sym(p) for p in params] or t.lhs in [Sym(p) for p in params]):
            p, other = (t.rhs, t.lhs) if isinstance(t.rhs, Sym) and t.rhs.name in params else (t.lhs, t.rhs)
            if factor is not None and factor != p.name:
                return None
            factor = p.name
            outer.append((sign, other))
        else:
            inner.append((sign, t))
    if factor is not None and all(_is_constant(t) for _, t in outer):
        return None, Const("0"), e   # (``7 * i`` of a parameter ``i``: affine as it stands)
    # (``y * w - w + x``: a row up, the factor alone, is one times it)
    if factor is not None:
        outer += [(sign, Const("1")) for sign, t in inner if t == Sym(factor)]
        inner = [(sign, t) for sign, t in inner if t != Sym(factor)]

    def rebuild(parts):
        if not parts:
            return Const("0")
        out = parts[0][1] if parts[0][0] > 0 else ex.Unary("-", parts[0][1])
        for sign, t in parts[1:]:
            out = Binary("+" if sign > 0 else "-", out, t)
        return out

    return factor, rebuild(outer), rebuild(inner)


def _statement_name(block_id: str, taken: set[str]) -> str:
    """The isl tuple name of a block's statement: ``S_<block id>``, with the characters isl's
    names cannot hold (the dots of generated blocks' ids, ``B.load.C_r0``) written as ``_xx_``
    (hex), and a number after it where that name is taken."""
    name = "S_" + re.sub(r"[^A-Za-z0-9_]", lambda m: f"_{ord(m.group()):02x}_", block_id)
    base, k = name, 1
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name


def _within_extents(st: Statement, sdfg: SDFG) -> isl.Set:
    domain = st.domain
    for _, access in st.accesses:
        array = sdfg.container_map.get(access.get_tuple_name(isl.dim_type.out))
        if not isinstance(array, Array) or array.rank != access.dim(isl.dim_type.out):
            continue     # a scalar, or an array modelled with more dimensions than declared
        bounds = []
        for d, extent in enumerate(array.shape):
            value = _constant(extent)
            if value is not None:
                bounds.append(f"0 <= a{d} < {value}")
        if bounds:
            names = ", ".join(f"a{d}" for d in range(array.rank))
            box = isl.Set(f"{{ [{names}] : {' and '.join(bounds)} }}").set_tuple_name(array.name)
            box = box.align_params(access.get_space().params())
            domain = domain.intersect(access.intersect_range(box).domain())
    return domain


def _constant(e: ex.Expr | None) -> int | None:
    if e is None:
        return None
    try:
        value = AffineBuilder([], []).pw_aff(e)
    except (NotAffine, isl.Error):
        return None
    return value.as_aff().get_constant_val().to_python() if value.is_cst() else None


def _tested(var: isl.PwAff, init: isl.PwAff, iterations: isl.Set, k: int, step: int) -> isl.Set:
    """Where a loop's condition is evaluated: at its first value, and one step past each
    iteration (``iterations``: the points of loop ``k`` that run)."""
    space = iterations.get_space()
    shift = isl.MultiAff.identity(isl.Space.map_from_set(space))
    shift = shift.set_aff(k, shift.get_aff(k).add_constant_val(isl.Val.int_from_si(CTX, -step)))
    return var.eq_set(init).union(iterations.preimage_multi_aff(shift))


def wraps(containers: Mapping, name: str) -> bool:
    """Whether C computes with the variable ``name`` modulo 2^n (``ScalarType.wraps``)."""
    dtype = getattr(containers.get(name), "dtype", None)
    return dtype is not None and dtype.wraps


def _union_set(sets) -> isl.UnionSet:
    out = None
    for s in sets:
        u = isl.UnionSet.from_set(s)
        out = u if out is None else out.union(u)
    return out


def _union_map(maps) -> isl.UnionMap:
    out = None
    for m in maps:
        out = m if out is None else out.union(m)
    return out


# --- structural checks (no isl) ------------------------------------------------------------------

class _Reject(Exception):
    """Why a subtree cannot be part of a SCoP; ``node``: the construct that stops it."""

    def __init__(self, message: str, node: ControlNode | None = None):
        super().__init__(message)
        self.node = node


@dataclass(frozen=True)
class Obstacle:
    """The first construct that keeps a loop nest (``nest``) out of every SCoP: what it is, and
    where it starts in the user's file."""

    nest: ControlNode
    what: str
    origin: SourceSpan | None

    def describe(self) -> str:
        o = self.origin
        return self.what + (f" (at {o.file}:{o.line}:{o.column})" if o is not None else "")


def _loop_step(node: For) -> int:
    u = node.update
    if isinstance(u, Binary) and u.lhs == Sym(node.var) and u.op in "+-" and isinstance(u.rhs, Const):
        v = u.rhs.int_value
        if v:
            return v if u.op == "+" else -v
    raise _Reject(f"loop update of {node.var} is not a constant step", node)


def _writes_of(node: ControlNode) -> set[str]:
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, Block):
            out.update(e.data for e in n.graph.writes())
        elif isinstance(n, For):
            out.add(n.var)
    return out


_VOLATILE = re.compile(r"\bvolatile\b")


class _Checker:
    """Decides whether a subtree can be part of a SCoP and collects the names its affine
    expressions use."""

    def __init__(self, sdfg: SDFG):
        self.sdfg = sdfg
        self.containers = sdfg.container_map

    def check(self, node: ControlNode, loop_vars: tuple[str, ...], names: set[str]) -> None:
        if isinstance(node, Sequence):
            for c in node.children:
                self.check(c, loop_vars, names)
        elif isinstance(node, For):
            data = self.containers.get(node.var)
            if not isinstance(data, Scalar) or not data.dtype.is_integer:
                raise _Reject(f"loop variable {node.var} is not an integer scalar", node)
            _loop_step(node)
            if node.var in _writes_of(node.body):
                raise _Reject(f"loop variable {node.var} is written in the body", node)
            self._affine_names(node.init, names, node)
            self._affine_names(node.cond, names, node)
            if isinstance(node.cond, Binary) and node.cond.op == "!=" and _inequality_end(Loop(node, 0, _loop_step(node))) is None:
                raise _Reject("loop condition with != other than `i != n` stepping by one", node)
            self.check(node.body, loop_vars + (node.var,), names)
        elif isinstance(node, IfElse):
            self._affine_names(node.cond, names, node)
            self.check(node.then, loop_vars, names)
            if node.other is not None:
                self.check(node.other, loop_vars, names)
        elif isinstance(node, Block):
            self._block(node, names)
        elif isinstance(node, Declare):
            data = self.containers.get(node.name)
            if not isinstance(data, Scalar) or node.init_text is not None or data.dtype.kind.value == "other":
                raise _Reject(f"declaration of {node.name} cannot be hoisted", node)
            if node.init is not None:
                self._block(node.init, names)
        else:
            raise _Reject(*_not_in_a_run(node))

    def _affine_names(self, e: ex.Expr, names: set[str], node: ControlNode) -> None:
        for n in ex.walk(e):
            if isinstance(n, ex.Access):
                raise _Reject(f"array {n.name} read in {_where_read(node)}", node)
            if isinstance(n, ex.Call) and n.func not in ("min", "max"):
                raise _Reject(f"call {n.func} in {_where_read(node)}", node)
            if isinstance(n, Sym):
                names.add(n.name)

    def _block(self, block: Block, names: set[str]) -> None:
        for comp in block.graph.computations():
            if not isinstance(comp, Tasklet) or comp.output is None or not ex.is_pure(comp.expr):
                calls = [n.func for n in ex.walk(comp.expr) if isinstance(n, ex.Call)] if isinstance(comp, Tasklet) else []
                raise _Reject(f"call {calls[0]} that may have effects" if calls else "a call that may have effects", block)
            for n in ex.walk(comp.expr):
                if isinstance(n, Sym) and n.name not in comp.inputs:
                    names.add(n.name)  # loop variables and symbols used as values
        for e in block.graph.edges:
            data = self.containers.get(e.data)
            if isinstance(data, (Array, Scalar)) and _VOLATILE.search(data.declaration or ""):
                raise _Reject(f"volatile {e.data} (each access happens as written, in order)", block)
            if isinstance(data, Array):
                for s in e.subset:
                    if not isinstance(s, (ex.Const, Sym, ex.Binary, ex.Unary, ex.Ternary, ex.Cast, ex.Call)):
                        raise _Reject(f"array {e.data} with a data-dependent subscript", block)
                    self._affine_names(s, names, block)
            elif not isinstance(data, (Scalar, Symbol)):
                raise _Reject(f"access to {e.data}, neither an array nor a scalar", block)


# --- extraction -----------------------------------------------------------------------------------

def find_scops(sdfg: SDFG, obstacles: list[Obstacle] | None = None) -> list[Scop]:
    """All maximal SCoPs of ``sdfg``, outermost first, in program order. ``obstacles``, where
    given, receives for each loop nest left out (at any depth) the first construct that stopped
    it, once per construct. Ifs on data in loops are read as selects first (data_conditions.py:
    the SCoPs' ``sdfg`` is then the function so written)."""
    sdfg = selects_for_data_conditions(sdfg)
    checker = _Checker(sdfg)
    found: list[Scop] = []
    stopped_at: set[str] = set()
    inside: dict[str, str] = {}   # node id -> the reason its enclosing nest was left out for

    def left_out(nest: ControlNode, what: str, at: ControlNode | None) -> None:
        if obstacles is None or not _holds_loop(nest):
            return
        if isinstance(nest, Sequence) and at is not None and any(at is c for c in nest.children):
            return   # (a block's own statement, such as a declaration: its loops get lines of their own)
        at = at if at is not None and _origin(at) is not None else nest
        if at.id in stopped_at or inside.get(nest.id) == what:
            return   # (what stopped the enclosing nest stops this one)
        stopped_at.add(at.id)
        inside.update((n.id, what) for n in walk(nest))
        obstacles.append(Obstacle(nest, what, _origin(at)))

    def visit_sequence(seq: Sequence) -> None:
        run: list[ControlNode] = []
        run_names: set[str] = set()

        def close() -> None:
            nonlocal run, run_names
            if run and any(isinstance(n, For) for r in run for n in walk(r)):
                why: list[str] = []
                scop = _build(sdfg, seq, tuple(run), run_names, why)
                if scop is not None:
                    found.append(scop)
                else:  # something in the run is not affine after all: try its parts alone
                    for r in run:
                        single = _build(sdfg, seq, (r,), run_names, why) if len(run) > 1 else None
                        if single is not None:
                            found.append(single)
                        else:
                            left_out(r, why[-1] if why else "not affine", None)
                            descend(r)
            run, run_names = [], set()

        for child in seq.children:
            names: set[str] = set()
            # A declaration directly in the run would be hoisted into the regenerated block and so
            # vanish for the code after it: it ends the run (declarations inside loops are fine).
            ok = isinstance(child, (For, IfElse, Block, Sequence))
            if ok:
                try:
                    checker.check(child, (), names)
                except _Reject as exc:
                    ok = False
                    left_out(child, str(exc), exc.node)
                except NotAffine as exc:
                    ok = False
                    left_out(child, f"not affine: {exc}", None)
            else:
                left_out(child, *_not_in_a_run(child))
            if ok:
                run.append(child)
                run_names |= names
            else:
                close()
                descend(child)
        close()

    def descend(node: ControlNode) -> None:
        if isinstance(node, Sequence):   # a nested block: its own runs of affine children
            visit_sequence(node)
            return
        for c in child_nodes(node):
            if isinstance(c, Sequence):
                visit_sequence(c)
            else:
                descend(c)

    visit_sequence(sdfg.body)
    return found


def _inequality_end(loop: Loop) -> ex.Expr | None:
    """``n`` of a loop ``for (i = ...; i != n; i++)`` (or ``i--``, ``n != i``): the value at which
    it stops, where it steps by one; None for any other loop."""
    cond = loop.node.cond
    if not (isinstance(cond, Binary) and cond.op == "!=" and abs(loop.step) == 1):
        return None
    var = Sym(loop.node.var)
    if cond.lhs == var and var not in ex.walk(cond.rhs):
        return cond.rhs
    if cond.rhs == var and var not in ex.walk(cond.lhs):
        return cond.lhs
    return None


def _holds_loop(node: ControlNode) -> bool:
    return any(isinstance(n, (For, Map, While)) or isinstance(n, Opaque) and _LOOP_TEXT.search(n.text)
               for n in walk(node))


_LOOP_TEXT = re.compile(r"\b(for|while|do)\b")


def _origin(node: ControlNode) -> SourceSpan | None:
    return next((n.origin for n in walk(node) if n.origin is not None), None)


def _where_read(node: ControlNode) -> str:
    return {For: "a loop bound", IfElse: "a condition"}.get(type(node), "a subscript")


def _not_in_a_run(node: ControlNode) -> tuple[str, ControlNode]:
    """Why ``node``, a statement that cannot start or join a SCoP, cannot."""
    if isinstance(node, Opaque):
        return f"code s2s does not model: {node.reason}", node
    if isinstance(node, While):
        return "while loop (not a counted for loop)", node
    return f"{type(node).__name__.lower()} statement", node


def _build(sdfg: SDFG, parent: Sequence, nodes: tuple[ControlNode, ...], names: set[str],
           why: list[str] | None = None) -> Scop | None:
    """The SCoP of ``nodes``, or None (and the reason appended to ``why``)."""
    containers = sdfg.container_map
    written = set().union(*(_writes_of(n) for n in nodes))
    loop_vars = {n.var for r in nodes for n in walk(r) if isinstance(n, For)}
    reasons = why if why is not None else []
    # A loop variable read or written as data (``last = i;`` after the loop) would need the value
    # the loop leaves behind, which the model does not describe.
    used = sorted({e.data for r in nodes for n in walk(r) if isinstance(n, Block) for e in n.graph.edges} & loop_vars)
    if used:
        reasons.append(f"loop variable {used[0]} used as a value outside its loop")
        return None
    params = []
    for name in sorted(names - loop_vars):
        data = containers.get(name)
        if data is None:
            continue  # enum constants and the like are not in names of affine parts we accept
        if not isinstance(data, (Scalar, Symbol)) or not data.dtype.is_integer:
            reasons.append(f"{name}, in a bound or subscript, is not an integer")
            return None
        if name in written:
            reasons.append(f"{name}, in a bound or subscript, is written inside the loops")
            return None
        params.append(name)
    for value in _fixed_values(sdfg, params).values():   # (``sz`` as ``nx * ny``: they are parameters too)
        params += sorted({n.name for n in ex.walk(value) if isinstance(n, Sym)} - set(params))
    try:
        return _Model(sdfg, parent, nodes, tuple(params)).build()
    except (NotAffine, _Reject) as exc:
        reasons.append(f"not affine: {exc}" if isinstance(exc, NotAffine) else str(exc))
        return None


def _fixed_values(sdfg: SDFG, params: Iterable[str]) -> dict[str, ex.Expr]:
    """The values of those ``params`` that are locals keeping the value they were declared with
    (``SDFG.fixed_values``), in terms of names that are not such locals, as sums of products;
    only those whose value reads signed integer scalars alone."""
    fixed = dict(sdfg.fixed_values)
    containers = sdfg.container_map
    out: dict[str, ex.Expr] = {}
    for p in params:
        value = fixed.get(p)
        for _ in range(len(fixed)):
            if value is None or not any(isinstance(n, Sym) and n.name in fixed for n in ex.walk(value)):
                break
            value = ex.substitute(value, fixed)
        if value is None or any(isinstance(n, Sym) and n.name in fixed for n in ex.walk(value)):
            continue
        names = {n.name for n in ex.walk(value) if isinstance(n, Sym)}
        poly = polynomial(value)
        if poly is not None and all(isinstance(containers.get(n), (Scalar, Symbol))
                                    and containers[n].dtype.kind is TypeKind.SIGNED for n in names):
            out[p] = expression_of(poly)   # (its conversions widen signed values: the value itself)
    return out


def build_scop(sdfg: SDFG, parent: Sequence, nodes: tuple[ControlNode, ...], params: tuple[str, ...],
               rewrites: Scop | None = None, sizes: Mapping[int, tuple[str, int]] | None = None) -> Scop:
    """The model of ``nodes`` (children of ``parent``) with the given parameters, for code a
    transformation wrote (a SCoP whose statements it rewrote, ``rewrites``); raises NotAffine if
    it is none. ``sizes``: constants read as one of ``params`` plus an offset (AffineBuilder)."""
    try:
        scop = _Model(sdfg, parent, nodes, params, sizes).build()
    except _Reject as why:
        raise NotAffine(str(why)) from None
    if rewrites is not None:
        scop.origin = rewrites.origin or rewrites
        scop.fresh = rewrites.fresh
    return scop


class _Model:
    def __init__(self, sdfg: SDFG, parent: Sequence, nodes: tuple[ControlNode, ...], params: tuple[str, ...],
                 sizes: Mapping[int, tuple[str, int]] | None = None):
        self.sizes = sizes
        self.sdfg = sdfg
        self.parent = parent
        self.nodes = nodes
        self.params = params
        self.containers = sdfg.container_map
        self.statements: list[Statement] = []
        self.loops: list[Loop] = []
        self.declared: list[str] = []
        self.assumed: isl.Set | None = None   # what the delinearized subscripts need of the parameters
        # parameters read as the value they were declared with, in subscripts (``sz``: ``nx * ny``)
        self.values = _fixed_values(sdfg, params)

    def build(self) -> Scop:
        self.delinearized, self.channels, self.grids = self._delinearization()
        tree = self._sequence(list(self.nodes), (), [], ())
        depth = max((len(s.loops) for s in self.statements), default=0)
        for s in self.statements:
            s.schedule = self._flat_schedule(s, depth)
        context = isl.Set.universe(isl.Space.create_from_names(CTX, set=[], params=list(self.params)).params())
        if self.assumed is not None:   # (the model holds where they do: it describes nothing else)
            context = context.intersect(self.assumed)
            for st in self.statements:
                st.domain = st.domain.intersect_params(self.assumed)
                st.reads, st.writes = st.reads.intersect_params(self.assumed), st.writes.intersect_params(self.assumed)
                st.schedule = st.schedule.intersect_params(self.assumed)
                st.accesses = tuple((w, m.intersect_params(self.assumed)) for w, m in st.accesses)
            if tree is not None:
                tree = tree.intersect_domain(_union_set([st.domain for st in self.statements]))
        return Scop(self.sdfg, self.parent, self.nodes, self.params, self.statements, tree, self.loops,
                    tuple(self.declared), context, dict(self.delinearized), channels=dict(self.channels),
                    grids=dict(self.grids))

    # Each visit returns the isl schedule (tree) of what it visited, or None when it has no statement.
    def _sequence(self, children: list[ControlNode], loops: tuple[Loop, ...], conds: list, position: tuple[int, ...]):
        schedules = []
        counter = [0]
        self._children(children, loops, conds, position, counter, schedules)
        out = None
        for s in schedules:
            out = s if out is None else out.sequence(s)
        return out

    def _children(self, children, loops, conds, position, counter, schedules) -> None:
        for child in children:
            if isinstance(child, Sequence):
                self._children(list(child.children), loops, conds, position, counter, schedules)
            elif isinstance(child, IfElse):
                # branches are numbered into the enclosing sequence: their domains are disjoint
                self._children(list(child.then.children), loops, conds + [(child.cond, True)], position, counter, schedules)
                if child.other is not None:
                    self._children(list(child.other.children), loops, conds + [(child.cond, False)], position, counter, schedules)
            elif isinstance(child, Declare):
                if child.name not in self.declared:
                    self.declared.append(child.name)
                if child.init is not None:
                    schedules.append(self._statement(child.init, loops, conds, position + (counter[0],)))
                    counter[0] += 1
            elif isinstance(child, Block):
                schedules.append(self._statement(child, loops, conds, position + (counter[0],)))
                counter[0] += 1
            elif isinstance(child, For):
                loop = Loop(child, len(loops), _loop_step(child))
                self.loops.append(loop)
                inner = self._sequence(list(child.body.children), loops + (loop,), conds, position + (counter[0],))
                counter[0] += 1
                if inner is not None:
                    schedules.append(self._loop_schedule(inner, loop))
            else:
                raise _Reject(f"{type(child).__name__} in a SCoP")

    def _statement(self, block: Block, loops: tuple[Loop, ...], conds: list, position: tuple[int, ...]) -> isl.Schedule:
        name = _statement_name(block.id, {st.name for st in self.statements})
        dims = [l.node.var for l in loops]
        b = AffineBuilder(dims, self.params, name, self.sizes, self._type)
        domain = b.domain
        for k, loop in enumerate(loops):
            lb = AffineBuilder(dims[:k + 1], self.params, name, self.sizes, self._type)
            var = lb.var(loop.node.var)
            init = lb.pw_aff(loop.node.init)
            first = var.ge_set(init) if loop.step > 0 else var.le_set(init)
            end = _inequality_end(loop)
            if end is None:
                bound = lb.condition(loop.node.cond)
            else:   # (``i != n`` stepping by one: ``i < n``, where the first value is not past n)
                last = lb.pw_aff(end)
                bound = var.lt_set(last) if loop.step > 0 else var.gt_set(last)
                reached = init.le_set(last) if loop.step > 0 else init.ge_set(last)
                reached = reached.add_dims(isl.dim_type.set, len(dims) - k - 1)
                for j in range(k + 1, len(dims)):
                    reached = reached.set_dim_name(isl.dim_type.set, j, dims[j])
                if not self._assume(domain, reached.set_tuple_name(name)):
                    raise NotAffine("loop condition with != that may start past its end")
            s = bound.intersect(first)
            self._require(lb.take_wrapping(), domain, self._extended(_tested(var, init, s, k, loop.step), k, dims, name),
                          f"the bounds of loop {loop.node.var}")
            if abs(loop.step) != 1:
                # (var - init) is a multiple of the step
                s = s.intersect(var.sub(init).mod_val(isl.Val.int_from_si(CTX, abs(loop.step))).zero_set())
            s = s.add_dims(isl.dim_type.set, len(dims) - k - 1)
            for j in range(k + 1, len(dims)):
                s = s.set_dim_name(isl.dim_type.set, j, dims[j])
            # (coalesced at each loop: generated code's min/max bounds multiply their pieces)
            domain = domain.intersect(s.set_tuple_name(name)).coalesce()
            if wraps(self.containers, loop.node.var):
                # C's values are the model's only where none is negative, the value it leaves
                # the loop with included (``for (unsigned q = n - 1; q < n; q--)`` ends by
                # wrapping past 0, where the model's q would run on)
                low = max(0, -loop.step)
                above = lb.var(loop.node.var).ge_set(lb.const(low)).add_dims(isl.dim_type.set, len(dims) - k - 1)
                for j in range(k + 1, len(dims)):
                    above = above.set_dim_name(isl.dim_type.set, j, dims[j])
                if not self._assume(domain, above.set_tuple_name(name)):
                    raise NotAffine(f"unsigned loop variable {loop.node.var} may wrap around")
        for cond, positive in conds:
            c = b.condition(cond)
            self._require(b.take_wrapping(), domain, domain, "a condition")
            domain = domain.intersect(c if positive else c.complement())
        domain = domain.coalesce()
        reads, writes, accesses = self._accesses(block, b, domain)
        self._require(b.take_wrapping(), domain, domain, "a subscript")
        stmt = Statement(name, block, loops, domain, reads, writes, None, position, accesses)  # type: ignore[arg-type]
        self.statements.append(stmt)
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    def _type(self, name: str):
        """The C type of a loop variable or parameter (None: not a scalar of the SCoP's)."""
        return getattr(self.containers.get(name), "dtype", None)

    @staticmethod
    def _extended(s: isl.Set, k: int, dims: list[str], name: str) -> isl.Set:
        """``s``, a set over the loop variables ``dims[:k + 1]``, over all of ``dims``."""
        s = s.add_dims(isl.dim_type.set, len(dims) - k - 1)
        for j in range(k + 1, len(dims)):
            s = s.set_dim_name(isl.dim_type.set, j, dims[j])
        return s.set_tuple_name(name)

    def _require(self, within: list[isl.Set], domain: isl.Set, where: isl.Set, what: str) -> None:
        """That the unsigned subexpressions of ``what`` keep C's values (``within``, from
        ``AffineBuilder.take_wrapping``) wherever ``what`` is evaluated: ``where`` within
        ``domain``; known, or assumed of the parameters and tested at run time."""
        if not within:
            return
        evaluated = domain.intersect(where)
        for w in within:
            k = w.dim(isl.dim_type.set) - 1
            dims = [domain.get_dim_name(isl.dim_type.set, j) for j in range(domain.dim(isl.dim_type.set))]
            holds = self._extended(w, k, dims, domain.get_tuple_name()) if w.dim(isl.dim_type.set) < len(dims) \
                else w.set_tuple_name(domain.get_tuple_name())
            if not self._assume(evaluated, holds):
                raise NotAffine(f"unsigned arithmetic in {what} may wrap around")

    def _accesses(self, block: Block, b: AffineBuilder, domain: isl.Set):
        """Read and write relations (loop variables and symbols read as values are not memory
        accesses), merged per kind and also one per memlet."""
        reads = isl.UnionMap.empty(domain.get_space().params())
        writes = isl.UnionMap.empty(domain.get_space().params())
        each = []
        read_edges = block.graph.reads()
        for e in block.graph.edges:
            m = self._access_map(b, domain, e.data, e.subset)
            is_write = e not in read_edges
            each.append((is_write, m))
            if is_write:
                writes = writes.union(isl.UnionMap.from_map(m))
            else:
                reads = reads.union(isl.UnionMap.from_map(m))
        return reads, writes, tuple(each)

    def _delinearization(self) -> tuple[dict[str, str], dict[str, int], dict[str, GridLayout]]:
        """One-dimensional arrays indexed ``e1 * p + e2`` (``A[i * n + j]``) with the same
        parameter ``p`` everywhere in the SCoP: they are modelled as ``A[e1][e2]`` (checked to be
        exact: 0 <= e2 < p on every access); those indexed ``(e1 * p + e2) * K + e3`` with the
        same ``p`` and constant ``K`` (channels.py) as ``A[e1][e2][e3]``; those indexed
        ``(e1 * p + e2) * q + e3`` with the same parameters (flat_grids.py) likewise. Returns
        ``p`` by array, ``K`` by array of the second kind, the layout by array of the third."""
        subsets: dict[str, list] = {}
        for r in self.nodes:
            for n in walk(r):
                if isinstance(n, Block):
                    for e in n.graph.edges:
                        data = self.containers.get(e.data)
                        if isinstance(data, Array) and data.rank == 1:
                            subsets.setdefault(e.data, []).append(self._subscript(e.subset[0]))
        out: dict[str, str] = {}
        times: dict[str, int] = {}
        grids: dict[str, GridLayout] = {}
        for name, subs in subsets.items():
            layout = grid_layout(subs, self.params)   # (before ``A[e1 * p + e2]``: its ``e1`` would not be affine)
            if layout is not None:
                grids[name] = layout
                continue
            splits = [split_linearized(e, self.params) for e in subs]
            factors = {sp[0] for sp in splits if sp is not None and sp[0] is not None}
            if len(factors) == 1 and all(sp is not None for sp in splits):
                out[name] = factors.pop()
                continue
            channels = [split_channels(e, self.params) for e in subs]
            kinds = {(c.param, c.times) for c in channels if c is not None}
            if len(kinds) == 1 and all(c is not None for c in channels):
                out[name], times[name] = kinds.pop()
        return out, times, grids

    def _subscript(self, e: ex.Expr) -> ex.Expr:
        return ex.substitute(e, self.values) if self.values else e

    def _access_map(self, b: AffineBuilder, domain: isl.Set, data: str, subset) -> isl.Map:
        subset = tuple(self._subscript(e) for e in subset)
        if data in self.channels:
            split = split_channels(subset[0], self.params)
            self._assume_inside(b, domain, b.pw_aff(split.middle), b.var(split.param), data, split.param)
            self._assume_inside(b, domain, b.pw_aff(split.inner), b.const(split.times), data, str(split.times))
            subset = (split.outer, split.middle, split.inner)
        elif data in self.delinearized:
            _, outer, inner = split_linearized(subset[0], self.params)
            self._assume_inside(b, domain, b.pw_aff(inner), b.var(self.delinearized[data]), data,
                                self.delinearized[data])
            subset = (outer, inner)
        elif data in self.grids:
            subset = self._grid_indices(b, domain, data, subset[0])
        if not subset:
            target = isl.Set.universe(isl.Space.create_from_names(CTX, set=[], params=list(self.params))).set_tuple_name(data)
            return isl.Map.from_domain_and_range(domain, target)
        m = None
        for s in subset:
            part = isl.Map.from_pw_aff(b.pw_aff(s))
            m = part if m is None else m.flat_range_product(part)
        return m.set_tuple_name(isl.dim_type.out, data).intersect_domain(domain)

    def _grid_indices(self, b: AffineBuilder, domain: isl.Set, data: str, e: ex.Expr) -> tuple[ex.Expr, ...]:
        """The indices of ``data[e]`` in its grid's layout, each inside its extent on ``domain``
        (known or assumed): an extent alone in ``e`` read as a step outside (``(j - 1) * nx``) or,
        where that leaves an index outside, as part of the index (``(k * ny + ny - 1) * nx``,
        the last row)."""
        layout = self.grids[data]
        assumed = self.assumed
        readings = [frozenset(c) for k in range(len(layout.extents) + 1)
                    for c in itertools.combinations(layout.extents, k)]
        for inside in readings[:-1]:
            try:
                return self._inside_grid(b, domain, data, layout.split(e, inside))
            except NotAffine:
                self.assumed = assumed   # (what one reading assumed does not hold for the next)
        return self._inside_grid(b, domain, data, layout.split(e, readings[-1]))

    def _inside_grid(self, b: AffineBuilder, domain: isl.Set, data: str,
                     indices: tuple[ex.Expr, ...]) -> tuple[ex.Expr, ...]:
        for extent, index in zip(self.grids[data].extents, indices[1:]):
            self._assume_inside(b, domain, b.pw_aff(index), b.var(extent), data, extent)
        return indices

    def _assume_inside(self, b: AffineBuilder, domain: isl.Set, index: isl.PwAff, extent: isl.PwAff, data: str,
                       what: str) -> None:
        """That ``0 <= index < extent`` on ``domain`` (``r >= 0`` for ``x`` from ``r`` to
        ``w - r`` in ``in[y * w + x]``): known, or assumed (``_assume``)."""
        inside = index.ge_set(b.const(0)).intersect(index.lt_set(extent))
        if not self._assume(domain, inside):
            raise NotAffine(f"{data}: cannot delinearize (an index may leave [0, {what}))")

    def _assume(self, domain: isl.Set, holds: isl.Set) -> bool:
        """Whether ``holds`` holds on all of ``domain``: known, or assumed of the parameters where
        that is a plain condition (no division, at most MAX_ASSUMED_PIECES pieces) under which
        some instance runs; the optimized code then tests it at run time (``Scop.context``)."""
        domain = domain.intersect_params(self._known())
        if domain.is_subset(holds):
            return True
        try:
            assumed = domain.subtract(holds).params().complement().gist(self._known()).coalesce()
        except isl.Error:
            return False
        together = assumed if self.assumed is None else self.assumed.intersect(assumed)
        if (domain.intersect_params(together).is_empty()   # (no instance would run, with the assumptions before)
                or assumed.n_basic_set() > MAX_ASSUMED_PIECES
                or any(piece.dim(isl.dim_type.div) for piece in assumed.get_basic_sets())):
            return False
        self.assumed = together.coalesce()
        return True

    def _known(self) -> isl.Set:
        """What C says of the parameters: an unsigned one is not negative."""
        space = isl.Space.create_from_names(CTX, set=[], params=list(self.params)).params()
        known = isl.Set.universe(space)
        for k, p in enumerate(self.params):
            data = self.containers.get(p)
            if data is not None and data.dtype.kind is TypeKind.UNSIGNED:
                known = known.lower_bound_val(isl.dim_type.param, k, 0)
        return known

    def _loop_schedule(self, inner: isl.Schedule, loop: Loop) -> isl.Schedule:
        umap = None
        for s in self.statements:
            if any(l.node.id == loop.node.id for l in s.loops):
                dims = s.iterators
                pos = loop.depth
                sign = "" if loop.step > 0 else "-"
                params = f"[{', '.join(self.params)}] -> " if self.params else ""
                m = isl.UnionMap(f"{params}{{ {s.name}[{', '.join(dims)}] -> [{sign}{dims[pos]}] }}")
                umap = m if umap is None else umap.union(m)
        mupa = isl.MultiUnionPwAff.from_union_map(umap)
        return inner.insert_partial_schedule(mupa)

    def _flat_schedule(self, s: Statement, depth: int) -> isl.Map:
        parts: list[str] = []
        for k in range(depth + 1):
            parts.append(str(s.position[k]) if k < len(s.position) else "0")
            if k < depth:
                if k < len(s.loops):
                    sign = "" if s.loops[k].step > 0 else "-"
                    parts.append(f"{sign}{s.loops[k].node.var}")
                else:
                    parts.append("0")
        params = f"[{', '.join(self.params)}] -> " if self.params else ""
        m = isl.Map(f"{params}{{ {s.name}[{', '.join(s.iterators)}] -> [{', '.join(parts)}] }}")
        return m.intersect_domain(s.domain)

