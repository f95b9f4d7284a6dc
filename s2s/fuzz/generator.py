"""Random programs of affine loop nests, one per seed (``generate(seed)`` is a pure function of it).

What is drawn, and why each is there:

* 1-4 nests of 1-4 loops with rectangular, triangular (``j = i ..``), parametric (``i < n``) and
  banded (``j < i + 3``) bounds, steps of 2 and 3, loops that count down, ``<=`` bounds: the shapes
  the scheduler's domains and the code generator's bounds must get exactly right;
* statements at every depth (imperfect nests), subscripts with offsets and coefficients,
  targets that omit a loop variable (reductions, overwrites): the dependences;
* scalar reductions reset in an outer loop, and kernel-level scalars: privatization and expansion;
  temporaries combined in one store (``t0 = ..; t1 = ..; X[..] = t0 * t1``): accumulators;
* affine and modulo ``if``s: guards the scheduler must keep on their statements;
* ``if``s on the values of integer elements, whose branches at times compute in a local of their
  own that a nested if sets again (``T t = e; if (..) t = e2; X[..] = t``): selects, where the
  local keeps its value wherever the nested if does not hold;
* ``C[i][j] += A[i][k] * B[k][j]``, also through a scalar per cell (``s = 0; s += ..; C[i][j] = s``,
  expanded into a matrix): the matrix-multiply kernels, which promise bit-exact results;
* Gauss-Seidel sweeps in place (``A[i][j]`` from its new left neighbour): lagged copies;
* arrays as globals, as array parameters, as flat pointers (some ``restrict``) with linearized
  subscripts (constant or parameter leading dimensions, 3-D grids whose planes are products of
  two parameters), and several pointer views of one buffer (aliasing);
* int (masked to stay small: no signed overflow), unsigned (wraps), float and double elements;
* a big parameter (4096+) on single loops, where OpenMP versioning on the trip count switches;
* small tile sizes and other fusion policies, so tiles have edges at these small sizes, and mostly
  zero work thresholds, so that s2s optimizes these small programs rather than keep them as written;
* in about three programs in ten, counters and sizes of another type than ``int``, one per name
  (``size_t``/``unsigned long``, ``unsigned``, or ``long``/``long long`` beside ``int``), in the
  idioms real code writes for them (``i + 2 < n``, ``if (n >= 1)`` before ``i < n - 1``,
  ``for (size_t i = n; i-- > 0;)``, ``for (unsigned i = n; i > 0; i--)`` over ``a[i - 1]``) and,
  in most of them, a size of 0 to 3, where ``n - 1`` and the optimizer's own bounds wrap in
  unsigned arithmetic: what C computes there is the reference (``s2s.fuzz.cint``).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace

from s2s.fuzz.cint import is_unsigned
from s2s.fuzz.model import (
    FLOAT_TYPES, INT_TYPES, Access, Array, BinOp, BuildConfig, Cond, Const, Expr, If, Loop, LoopVar, Node, Poly,
    Program, ScalarDecl, ScalarRef, Stmt, const, var, walk_nodes,
)
from s2s.fuzz.sizing import TooBig, finalize

LOOP_VARS = ("i", "j", "k", "l")
PARAM_NAMES = ("n", "m", "p")
BIG_PARAM = "nb"
# (threads started for any work: their run-time test is generated, and holds)
ZERO_WORK = ("optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,"
             "parallel_start=1,parallel_wake=1,parallel_wavefront=1")
FLOAT_CONSTS = ("0.5", "1.5", "0.25", "2.0", "0.1", "3.3", "0.75", "1.0")
TYPED_SHARE = 0.3  # programs whose counters and sizes are not int; the rest keep int's coverage


@dataclass(frozen=True)
class IndexFamily:
    """Types that a program's counters and sizes are drawn from, one per name. A family never mixes
    signedness, so that no comparison is signed against unsigned, nor a 32-bit unsigned value with a
    64-bit type (``-i + n`` would wrap at 32 bits and then widen)."""

    weight: int
    counters: tuple[str, ...]
    sizes: tuple[str, ...]


INDEX_FAMILIES = (
    IndexFamily(3, ("size_t", "size_t", "unsigned long"), ("size_t", "size_t", "unsigned long")),
    IndexFamily(2, ("unsigned",), ("unsigned",)),
    IndexFamily(2, ("long", "long", "long long", "int"), ("long", "long long")),
)


COMPARES = ("<", ">", "==", "!=")


def generate(seed: int) -> Program:
    rng = random.Random(seed)
    for _ in range(50):
        draft = _Draft(rng, seed).program()
        try:
            program = finalize(draft)
            program = finalize(_place_views(program, rng))
        except TooBig:
            continue
        program = _with_index_types(program, random.Random(f"{seed}/types"))
        return _declare_at_top(program, random.Random(f"{seed}/declarations"))
    raise RuntimeError(f"seed {seed}: no program small enough in 50 draws")


def _declare_at_top(program: Program, rng: random.Random) -> Program:
    """In some programs, C89 style: the loop variables are declared at the kernel's top, and some
    are read after their loops (the optimizer must keep their final values or the user's loops).
    A random stream of its own keeps the rest of each seed's program as it was."""
    if rng.random() >= 0.35:
        return program
    names = tuple(dict.fromkeys(n.var for n in walk_nodes(program.body) if isinstance(n, Loop)))
    read_after = tuple(v for v in names if rng.random() < 0.4)
    return replace(program, declared_at_top=names, read_after=read_after)


def _with_index_types(program: Program, rng: random.Random) -> Program:
    """In some programs, counters and sizes of other types than int (``Program.types``), written
    the way C code writes them safely, and often a size small enough that ``n - 1`` wraps. The
    program is drawn first as an int one, and these choices come from a random stream of their own,
    so that every other seed's program stays what it was. Where a draw still wraps out of bounds
    (``finalize`` runs it as C would), another is drawn; after a few, the program keeps int."""
    if rng.random() >= TYPED_SHARE:
        return program
    family = rng.choices(INDEX_FAMILIES, [f.weight for f in INDEX_FAMILIES])[0]
    for attempt in range(6):
        try:
            return finalize(_retyped(program, rng, family, small_sizes=attempt < 4))
        except TooBig:
            continue
    return program


def _retyped(program: Program, rng: random.Random, family: IndexFamily, small_sizes: bool) -> Program:
    counters = tuple(dict.fromkeys(n.var for n in walk_nodes(program.body) if isinstance(n, Loop)))
    types = {v: rng.choice(family.counters) for v in counters}
    types.update((name, rng.choice(family.sizes)) for name, _ in program.params)
    params = list(program.params)
    small = [k for k, (name, _) in enumerate(params) if name != BIG_PARAM]
    if small_sizes and small and rng.random() < 0.75:
        first = rng.choice(small)
        for k in small:
            if k == first or rng.random() < 0.2:
                params[k] = (params[k][0], rng.choice((0, 1, 1, 2, 2, 3)))
    sizes = dict(params)
    body = tuple(_restyled(n, rng, types, sizes) for n in program.body)
    return replace(program, params=tuple(params), body=body,
                   types=tuple((name, t) for name, t in types.items() if t != "int"))


def _restyled(node: Node, rng: random.Random, types: dict[str, str], sizes: dict[str, int]) -> Node:
    """``node`` with its loops written in the idioms of their counters' types (see ``Loop.style``);
    a bound that subtracts from a size smaller than what it subtracts is guarded by an ``if`` or
    moved to the counter's side, as careful code does."""
    if isinstance(node, If):
        return replace(node, then=tuple(_restyled(c, rng, types, sizes) for c in node.then),
                       orelse=tuple(_restyled(c, rng, types, sizes) for c in node.orelse))
    if not isinstance(node, Loop):
        return node
    loop = replace(node, body=tuple(_restyled(c, rng, types, sizes) for c in node.body))
    unsigned = is_unsigned(types.get(loop.var, "int"))
    if loop.descending:
        loop = _downward_idiom(loop, rng, unsigned)
        bound = loop.top()
    else:
        if loop.upper.const in (-1, -2) and len(loop.upper.terms) == 1 and loop.upper.terms[0][1][0] in sizes \
                and rng.random() < 0.2:  # (n - 3 wraps at more of the small sizes)
            loop = replace(loop, upper=Poly(loop.upper.terms, -3))
        bound = loop.upper
        if bound.terms and bound.const < 0 and rng.random() < (0.5 if unsigned else 0.3):
            return replace(loop, style="plus")
    if not unsigned or not bound.terms or bound.const >= 0:
        return loop
    return _kept_from_wrapping(loop, bound, rng, sizes)


def _downward_idiom(loop: Loop, rng: random.Random, unsigned: bool) -> Loop:
    """An unsigned counter cannot count down to ``i >= 0``: ``i-- > 0`` or ``i > 0`` over
    ``a[i - 1]``; a signed one sometimes the first way too."""
    if unsigned:
        loop = replace(loop, style=rng.choice(("postdec", "gt")), step=1)
    elif loop.step == 1 and rng.random() < 0.3:
        loop = replace(loop, style="postdec")
    if loop.style == "gt":  # the body reads a[i - 1] where it read a[i]
        loop = replace(loop, body=tuple(_shifted_var(c, loop.var, -1) for c in loop.body))
    return loop


def _kept_from_wrapping(loop: Loop, bound: Poly, rng: random.Random, sizes: dict[str, int]) -> Node:
    """``loop``, whose unsigned ``bound`` subtracts a constant, behind ``if (n >= c)`` or as
    ``i + c < n`` where the program's size is below ``c`` (and sometimes where it is not)."""
    names = bound.terms[0][1] if len(bound.terms) == 1 else ()
    wraps = not (len(names) == 1 and bound.terms[0][0] == 1 and sizes.get(names[0], -1) >= -bound.const)
    if not wraps and rng.random() >= 0.3:
        return loop
    if len(names) == 1 and names[0] in sizes:
        return If(Cond(Poly(bound.terms, 0), ">=", const(-bound.const)), (loop,))
    return replace(loop, style="plus") if not loop.descending else loop


def _shifted_var(node: Node, name: str, delta: int) -> Node:
    """``node`` with every subscript, bound and condition reading ``name + delta`` for ``name``."""
    def access(a):
        if isinstance(a, Access):
            return Access(a.array, tuple(p.shift_var(name, delta) for p in a.index))
        if isinstance(a, BinOp):
            return replace(a, left=access(a.left), right=access(a.right))
        return a

    if isinstance(node, Stmt):
        return replace(node, target=access(node.target), expr=access(node.expr))
    if isinstance(node, Loop):
        return replace(node, lower=node.lower.shift_var(name, delta), upper=node.upper.shift_var(name, delta),
                       body=tuple(_shifted_var(c, name, delta) for c in node.body))
    if isinstance(node, If):
        cond = replace(node.cond, lhs=node.cond.lhs.shift_var(name, delta), rhs=node.cond.rhs.shift_var(name, delta),
                       data=access(node.cond.data) if node.cond.data is not None else None)
        return replace(node, cond=cond, then=tuple(_shifted_var(c, name, delta) for c in node.then),
                       orelse=tuple(_shifted_var(c, name, delta) for c in node.orelse))
    return node


def _place_views(program: Program, rng: random.Random) -> Program:
    """Move views further into their buffer by random amounts, so that they overlap in varied ways
    (entirely, partly, or not at all)."""
    arrays = []
    for a in program.arrays:
        if a.kind == "view":
            a = replace(a, offset=a.offset + rng.choice((0, 0, 1, 2, 5, 17, 64, 300)))
        arrays.append(a)
    return replace(program, arrays=tuple(arrays))


class _Draft:
    def __init__(self, rng: random.Random, seed: int) -> None:
        self.rng = rng
        self.seed = seed
        self.scalar_count = 0
        self.scalar_types: dict[str, str] = {}
        # (a stream of its own: a program that draws no compare is the one it was before them)
        self.compares = random.Random(f"{seed}/compares")
        self.data_ifs = random.Random(f"{seed}/data-ifs")   # (likewise for ifs on data)
        self.branch_locals = random.Random(f"{seed}/branch-locals")   # (and for their branches' locals)

    # ---- the program ---------------------------------------------------------------------------------
    def program(self) -> Program:
        r = self.rng
        nparams = r.choice((1, 2, 2, 3))
        self.params = [(name, r.randint(3, 20)) for name in PARAM_NAMES[:nparams]]
        self.big = r.random() < 0.12
        if self.big:
            self.params.append((BIG_PARAM, r.randint(4096, 6000)))
        flavour = r.random()
        if flavour < 0.2:
            types = ("int", "unsigned")
        elif flavour < 0.35:
            types = ("int", "float", "double")
        else:
            types = (r.choice(FLOAT_TYPES),)
        self.arrays: list[Array] = []
        self.rank: dict[str, int] = {}
        self.stride: dict[str, tuple[Poly | str, ...]] = {}  # flat arrays: leading dimension per logical dim
        names = iter("ABCDEFGH")
        for _ in range(r.randint(2, 5)):
            kind = r.choices(("global", "param", "ptr"), (3, 3, 2))[0]
            extra = {"restrict": r.random() < 0.3} if kind == "ptr" else {}
            self._add_array(next(names), r.choice(types), kind, **extra)
        if r.random() < 0.3:
            ctype = r.choice(types)
            buf = Array("buf", ctype, "buffer")
            self.arrays.append(buf)
            for v in range(r.randint(2, 3)):
                view_kind = r.choice(("local", "param", "global"))
                self._add_array(f"v{v}", ctype, "view", buffer="buf", view_kind=view_kind)
        self.scalars = [self._new_scalar(r.choice(types)) for _ in range(r.choice((0, 0, 1, 2)))]
        body = [self._nest(1, r.choices((1, 2, 3, 4), (2, 4, 4, 1))[0]) for _ in range(r.choice((1, 2, 2, 3, 4)))]
        if r.random() < 0.1 and self.scalars:
            body.insert(r.randrange(len(body) + 1), self._stmt([], self.scalars))
        config = BuildConfig(
            tile=",".join(str(r.choice((2, 3, 4, 5, 8))) for _ in range(3)) if r.random() < 0.4 else "",
            fuse=r.choices(("smart", "max", "no"), (6, 2, 2))[0],
            kernels="on" if r.random() < 0.9 else "off",
            work=ZERO_WORK if r.random() < 0.8 else "",
            profitability="off" if r.random() < 0.5 else "on")
        return Program(self.seed, tuple(self.params), tuple(self.arrays), tuple(self.scalars), tuple(body), config)

    def _add_array(self, name: str, ctype: str, kind: str, **extra) -> None:
        r = self.rng
        flat = kind in ("ptr", "view")
        rank = r.choices((1, 2, 3), (3, 5, 1) if not flat else (3, 4, 1))[0]
        self.arrays.append(Array(name, ctype, kind, **extra))
        self.rank[name] = rank
        if flat:
            small = [n for n, _ in self.params if n != BIG_PARAM]
            strides = [const(1)]
            for _ in range(rank - 1):
                inner = strides[0]
                if small and inner.terms and r.random() < 0.7:   # a grid's plane: u[(i * m + j) * n + k]
                    strides.insert(0, Poly(((1, tuple(sorted(inner.terms[0][1] + (r.choice(small),)))),), 0))
                elif small and r.random() < 0.3:
                    strides.insert(0, Poly(((1, (r.choice(small),)),), 0))
                else:
                    strides.insert(0, const(r.randint(4, 24)))
            self.stride[name] = tuple(strides)

    def _new_scalar(self, ctype: str) -> ScalarDecl:
        name = f"s{self.scalar_count}"
        self.scalar_count += 1
        self.scalar_types[name] = ctype
        return ScalarDecl(name, ctype, self._const(ctype, zero=True))

    # ---- loops -----------------------------------------------------------------------------------------
    def _nest(self, level: int, depth: int, outer: tuple[str, ...] = (), scalars: tuple[ScalarDecl, ...] = ()) -> Node:
        r = self.rng
        if level == 1 and depth == 3 and r.random() < 0.4:
            mm = self._matmul()
            if mm is not None:
                return mm
        if level == 1 and depth == 2 and r.random() < 0.3:
            rows = self._row_products()
            if rows is not None:
                return rows
        if level == 1 and depth in (2, 3) and r.random() < 0.15:
            sweep = self._sweep(depth)
            if sweep is not None:
                return sweep
        name = LOOP_VARS[level - 1]
        lower, upper, inclusive = self._bounds(outer, depth)
        step = r.choices((1, 2, 3), (8, 1, 1))[0]
        descending = r.random() < 0.1
        inner = outer + (name,)
        scalars = tuple(scalars) + tuple(self.scalars if level == 1 else ())
        body: list[Node] = []
        if depth > 1:
            if r.random() < 0.15:  # a scalar reduced over the loop inside, then stored
                body += self._scalar_reduction(level + 1, depth - 1, inner, scalars)
            else:
                if r.random() < 0.3:
                    body.append(self._maybe_if(self._stmt(inner, scalars), inner))
                for _ in range(r.choice((1, 1, 1, 2))):
                    body.append(self._nest(level + 1, depth - 1, inner, scalars))
                if r.random() < 0.3:
                    body.append(self._maybe_if(self._stmt(inner, scalars), inner))
        else:
            for _ in range(r.choice((1, 1, 2, 3))):
                body.append(self._maybe_if(self._stmt(inner, scalars), inner))
            if r.random() < 0.1:
                body += self._temporaries(inner, scalars)
        return Loop(name, lower, upper, tuple(body), inclusive, step, descending)

    def _temporaries(self, vars: tuple[str, ...], scalars: tuple[ScalarDecl, ...]) -> list[Node]:
        """``t0 = e0; t1 = e1; X[..] = t0 op t1``: temporaries combined in one store, as a
        gradient's two components are (each alone could live in the element, not all of them)."""
        r = self.rng
        target = self._target_array(vars)
        ctype = self._type_of(target)
        temps = [self._new_scalar(ctype) for _ in range(r.choice((2, 2, 3)))]
        nodes: list[Node] = []
        for t in temps:
            nodes += [t, Stmt(ScalarRef(t.name), "=", self._expr(ctype, vars, scalars, 2))]
        combined: Expr = ScalarRef(temps[0].name)
        for t in temps[1:]:
            combined = BinOp(r.choice(("+", "-", "*") if ctype in FLOAT_TYPES else ("+", "-")), combined,
                             ScalarRef(t.name))
        return nodes + [Stmt(target, "=", combined)]

    def _bounds(self, outer: tuple[str, ...], depth: int) -> tuple[Poly, Poly, bool]:
        r = self.rng
        small = [n for n, _ in self.params if n != BIG_PARAM]
        inclusive = r.random() < 0.2
        lower = const(r.choice((0, 0, 0, 1, 2)))
        shape = r.choices(("const", "param", "tri_low", "tri_up", "band", "big"),
                          (3, 4, 2 if outer else 0, 2 if outer else 0, 1 if outer else 0,
                           3 if self.big and depth == 1 else 0))[0]
        if shape == "const":
            upper = const(r.randint(2, 16))
        elif shape == "param":
            upper = Poly(((1, (r.choice(small),)),), r.choice((0, 0, -1, 1, -2)))
        elif shape == "tri_low":  # j from i
            lower = var(r.choice(outer), 1, r.choice((0, 0, 1)))
            upper = Poly(((1, (r.choice(small),)),), 0) if r.random() < 0.7 else const(r.randint(4, 16))
        elif shape == "tri_up":  # j up to i
            upper = var(r.choice(outer), 1, r.choice((0, 1)))
        elif shape == "band":
            o = r.choice(outer)
            lower = var(o, 1, -r.randint(0, 2))
            upper = var(o, 1, r.randint(1, 3))
        else:
            upper = Poly(((1, (BIG_PARAM,)),), r.choice((0, -1)))
        return lower, upper, inclusive

    def _matmul(self) -> Node | None:
        """``C[i][j] (+|-)= [alpha *] A[i][k] * B[k][j]``, the MatMul kernels' pattern: over a box,
        or with k's range moving with i (trmm's ``k > i``, a lower-triangular ``k <= i``); the
        left factor may be read down a column (``A[k][i]``), the right one may be a row of C
        itself (trmm in place: legal where those rows change only later)."""
        r = self.rng
        two_d = [a for a in self.arrays_used() if self.rank[a.name] == 2 and a.ctype in FLOAT_TYPES]
        if len(two_d) < 2:
            return None
        c = r.choice(two_d)
        sources = [x for x in two_d if x is not c]
        if not sources:
            return None
        a, b = r.choice(sources), (c if r.random() < 0.25 else r.choice(sources))
        small = [n for n, _ in self.params if n != BIG_PARAM]
        ext = [Poly(((1, (r.choice(small),)),), 0) if r.random() < 0.5 else const(r.randint(2, 40)) for _ in range(3)]
        k_lo, k_hi = const(0), ext[2]
        shape = r.choices(("box", "after_i", "up_to_i"), (5, 3, 2))[0]
        if shape == "after_i":
            k_lo = var("i", 1, r.choice((0, 1)))
        elif shape == "up_to_i":
            k_hi = var("i", 1, r.choice((0, 1)))
        left = (var("k"), var("i")) if r.random() < 0.4 else (var("i"), var("k"))
        prod: Expr = BinOp("*", self._flat(a, left), self._flat(b, (var("k"), var("j"))))
        if r.random() < 0.4:
            prod = BinOp("*", self._const(c.ctype), prod)
        target = self._flat(c, (var("i"), var("j")))
        if r.random() < 0.35:   # as most hand-written products: a dot product per cell in a scalar
            kept = [s for s in self.scalars if s.ctype == c.ctype]
            acc = r.choice(kept) if kept and r.random() < 0.3 else self._new_scalar(c.ctype)
            reset = Stmt(ScalarRef(acc.name), "=", target if r.random() < 0.3 else self._const(c.ctype, zero=True))
            k = Loop("k", k_lo, k_hi, (Stmt(ScalarRef(acc.name), r.choice(("+=", "+=", "-=")), prod),))
            store = Stmt(target, r.choice(("=", "+=")), ScalarRef(acc.name))
            cell: tuple[Node, ...] = (reset, k, store) if acc in kept else (acc, reset, k, store)
            return Loop("i", const(0), ext[0], (Loop("j", const(0), ext[1], cell),))
        stmt = Stmt(target, r.choice(("+=", "+=", "-=")), prod)
        k = Loop("k", k_lo, k_hi, (stmt,))
        j = Loop("j", const(0), ext[1], (k,))
        return Loop("i", const(0), ext[0], (j,))

    def _row_products(self) -> Node | None:
        """A matrix-vector product by rows and an update by each row, atax's shape: per i a sum
        over j into an element that moves with i (a chain of updates), then, in a second loop over
        j, a vector updated by that row and that sum. (The vectors may be one array, or views of
        one buffer: then the rows depend on each other.)"""
        r = self.rng
        floats = [a for a in self.arrays_used() if a.ctype in FLOAT_TYPES]
        matrices = [a for a in floats if self.rank[a.name] == 2]
        vectors = [a for a in floats if self.rank[a.name] == 1]
        if not matrices or not vectors:
            return None
        a, sums = r.choice(matrices), r.choice(vectors)
        others = [v for v in vectors if v is not sums]
        x = r.choice(others) if others and r.random() < 0.7 else r.choice(vectors)
        small = [n for n, _ in self.params if n != BIG_PARAM]
        rows, cols = (Poly(((1, (r.choice(small),)),), 0) if r.random() < 0.6 else const(r.randint(2, 40))
                      for _ in range(2))
        i, j = var(LOOP_VARS[0]), var(LOOP_VARS[1])
        body: list[Node] = []
        if r.random() < 0.7:
            body.append(Stmt(self._flat(sums, (i,)), "=", self._const(sums.ctype, zero=True)))
        dot = BinOp("*", self._flat(a, (i, j)), self._flat(x, (j,)))
        body.append(Loop(LOOP_VARS[1], const(0), cols, (Stmt(self._flat(sums, (i,)), "+=", dot),)))
        if r.random() < 0.6:
            apart = [v for v in vectors if v is not sums and v is not x]
            y = r.choice(apart) if apart and r.random() < 0.7 else r.choice(vectors)
            update = BinOp("*", self._flat(a, (i, j)), self._flat(sums, (i,)))
            body.append(Loop(LOOP_VARS[1], const(0), cols, (Stmt(self._flat(y, (j,)), r.choice(("+=", "-=")), update),)))
        return Loop(LOOP_VARS[0], const(0), rows, tuple(body))

    def _sweep(self, depth: int) -> Node | None:
        """Gauss-Seidel sweeps in place, seidel-2d's shape: ``A[i][j] = c * (A[i][j - 1] + ...)``
        with some of the other eight neighbours, those above and to the left read after this
        sweep updated them, under a loop of sweeps (``depth`` 3) or not: a recurrence along j
        whose copies of an outer loop must run some iterations behind each other."""
        r = self.rng
        grids = [a for a in self.arrays_used() if self.rank[a.name] == 2 and a.ctype in FLOAT_TYPES]
        if not grids:
            return None
        a = r.choice(grids)
        small = [n for n, _ in self.params if n != BIG_PARAM]
        rows, cols = (Poly(((1, (r.choice(small),)),), -1) if r.random() < 0.6 else const(r.randint(3, 30))
                      for _ in range(2))
        i, j = LOOP_VARS[depth - 2], LOOP_VARS[depth - 1]
        around = [(-1, -1), (-1, 0), (-1, 1), (0, 0), (0, 1), (1, -1), (1, 0), (1, 1)]
        offsets = [(0, -1)] + r.sample(around, r.randint(1, 5))
        r.shuffle(offsets)
        total: Expr = self._flat(a, (var(i, 1, offsets[0][0]), var(j, 1, offsets[0][1])))
        for di, dj in offsets[1:]:
            total = BinOp("+", total, self._flat(a, (var(i, 1, di), var(j, 1, dj))))
        stmt = Stmt(self._flat(a, (var(i), var(j))), "=", BinOp("*", self._const(a.ctype), total))
        nest = Loop(i, const(1), rows, (Loop(j, const(1), cols, (stmt,)),))
        if depth == 3:
            nest = Loop(LOOP_VARS[0], const(0), const(r.randint(1, 6)), (nest,))
        return nest

    def _scalar_reduction(self, level: int, depth: int, outer: tuple[str, ...],
                          scalars: tuple[ScalarDecl, ...]) -> list[Node]:
        r = self.rng
        target = self._target_array(outer)
        ctype = self._type_of(target)
        decl = self._new_scalar(ctype)
        inner = self._nest(level, depth, outer, scalars + (decl,))
        # make the innermost statements accumulate into the scalar
        update = Stmt(ScalarRef(decl.name), "+=" if ctype != "int" else "+=", self._expr(ctype, outer + (LOOP_VARS[level - 1],), scalars, 2))
        inner = _append_innermost(inner, update)
        store = Stmt(target, r.choice(("=", "+=")), ScalarRef(decl.name))
        return [decl, inner, store]

    def _maybe_if(self, node: Node, vars: tuple[str, ...]) -> Node:
        r = self.rng
        if not vars or r.random() > 0.15:
            return node
        data_if = self._data_if(node, vars)
        if data_if is not None:
            return data_if
        a = r.choice(vars)
        small = [n for n, _ in self.params if n != BIG_PARAM]
        if r.random() < 0.3:
            cond = Cond(var(a, 1, r.choice((0, 0, -1))), "==", const(r.randint(0, 1)), modulus=r.choice((2, 3)))
        else:
            other = r.choice(vars + tuple(small))
            rhs = Poly(((1, (other,)),), r.randint(-2, 2)) if other != a else const(r.randint(1, 8))
            cond = Cond(var(a), r.choice(("<", "<=", ">", ">=", "!=", "==")), rhs)
        orelse = (self._stmt(vars, ()),) if r.random() < 0.3 else ()
        return If(cond, (node,), orelse)

    def _data_if(self, node: Node, vars: tuple[str, ...]) -> Node | None:
        """An if on the values of integer elements (``if (A[i][j] + 3 > 5)``), around ``node`` and
        at times a second statement, with an else at times; None for most ifs (and every one of a
        program without integer arrays)."""
        d = self.data_ifs
        readable = [a for a in self.arrays_used() if a.ctype in INT_TYPES]
        if not readable or d.random() > 0.4:
            return None
        a = d.choice(readable)
        data: Expr = self._access(a, vars)
        if d.random() < 0.3:
            data = BinOp(d.choice(("+", "-")), data, self._leaf(a.ctype, vars, ()))
        bound = d.randint(0, 7)
        cond = Cond(const(0), d.choice(("<", ">", "<=", ">=", "==", "!=")), const(bound), data=data, data_type=a.ctype)
        then = (node, self._stmt(vars, ())) if d.random() < 0.35 else (node,)
        orelse = (self._stmt(vars, ()),) if d.random() < 0.3 else ()
        if isinstance(node, Stmt) and self.branch_locals.random() < 0.35:
            then = self._through_local(node, vars) + then[1:]
        return If(cond, then, orelse)

    def _through_local(self, stmt: Stmt, vars: tuple[str, ...]) -> tuple[Node, ...]:
        """``stmt`` as a branch computes it in a local of its own: ``T t = e; [if (..) t = e2;]
        X op= t``, the nested if (on the local itself where it is an integer, else on integer
        elements) keeping ``t`` where it does not hold: a clip or a correction, as filters write."""
        b = self.branch_locals
        saved, self.rng = self.rng, b   # (every draw from a stream of its own: other programs stay)
        try:
            ctype = self._stmt_type(stmt)
            local = self._new_scalar(ctype)
            nodes: list[Node] = [local, Stmt(ScalarRef(local.name), "=", stmt.expr)]
            if b.random() < 0.7:
                readable = [a for a in self.arrays_used() if a.ctype in INT_TYPES]
                if ctype in INT_TYPES and (not readable or b.random() < 0.6):
                    data: Expr = ScalarRef(local.name)
                    data_type = ctype
                else:
                    a = b.choice(readable)
                    data, data_type = self._access(a, vars), a.ctype
                bound = b.randint(0, 7)
                cond = Cond(const(0), b.choice(("<", ">", "<=", ">=", "!=")), const(bound), data=data,
                            data_type=data_type)
                ops = ("=", "+=", "-=", "*=") if ctype != "int" else ("=", "+=", "-=")
                fix = Stmt(ScalarRef(local.name), b.choice(ops), self._expr(ctype, vars, (local,), 1))
                orelse = (Stmt(ScalarRef(local.name), b.choice(ops), self._expr(ctype, vars, (), 1)),) \
                    if b.random() < 0.25 else ()
                nodes.append(If(cond, (fix,), orelse))
            nodes.append(Stmt(stmt.target, stmt.op, ScalarRef(local.name)))
            return tuple(nodes)
        finally:
            self.rng = saved

    def _stmt_type(self, stmt: Stmt) -> str:
        if isinstance(stmt.target, Access):
            return self._type_of(stmt.target)
        return self.scalar_types[stmt.target.name]

    # ---- statements and expressions -----------------------------------------------------------------------
    def _stmt(self, vars: tuple[str, ...], scalars: tuple[ScalarDecl, ...]) -> Stmt:
        r = self.rng
        if scalars and r.random() < 0.15:
            s = r.choice(scalars)
            target: Access | ScalarRef = ScalarRef(s.name)
            ctype = s.ctype
        else:
            target = self._target_array(vars)
            ctype = self._type_of(target)
        ops = ("=", "+=", "-=", "*=") if ctype != "int" else ("=", "+=", "-=")
        op = r.choices(ops, (4, 4, 1, 1)[:len(ops)])[0]
        return Stmt(target, op, self._expr(ctype, vars, scalars, 2))

    def _target_array(self, vars: tuple[str, ...]) -> Access:
        a = self.rng.choice(self.arrays_used())
        return self._access(a, vars)

    def arrays_used(self) -> list[Array]:
        return [a for a in self.arrays if a.kind != "buffer"]

    def _type_of(self, target: Access) -> str:
        return next(a.ctype for a in self.arrays if a.name == target.array)

    def _access(self, a: Array, vars: tuple[str, ...]) -> Access:
        r = self.rng
        subs: list[Poly] = []
        pool = list(vars)
        r.shuffle(pool)
        for _ in range(self.rank[a.name]):
            if pool and r.random() < 0.9:
                v = pool.pop() if r.random() < 0.8 else r.choice(vars)
                coef = r.choices((1, 2, -1), (8, 1, 1))[0]
                subs.append(var(v, coef, r.choice((0, 0, 0, 1, -1, 2))))
            else:
                subs.append(const(r.randint(0, 3)))
        return self._flat(a, tuple(subs))

    def _flat(self, a: Array, subs: tuple[Poly, ...]) -> Access:
        if a.kind not in ("ptr", "view"):
            return Access(a.name, subs)
        terms: list[tuple[int, tuple[str, ...]]] = []
        total = 0
        for sub, stride in zip(subs, self.stride[a.name]):
            total += sub.const * stride.const if not stride.terms else 0
            for coef, names in sub.terms:
                if stride.terms:
                    terms.append((coef, names + stride.terms[0][1]))
                else:
                    terms.append((coef * stride.const, names))
            if stride.terms and sub.const:
                terms.append((sub.const, stride.terms[0][1]))
        return Access(a.name, (Poly(tuple(terms), total),))

    def _expr(self, ctype: str, vars: tuple[str, ...], scalars: tuple[ScalarDecl, ...], depth: int) -> Expr:
        r = self.rng
        if depth == 0 or r.random() < 0.3:
            return self._leaf(ctype, vars, scalars)
        if ctype in INT_TYPES and self.compares.random() < 0.2:
            # a compare as a number, 0 or 1 (LLVM extends it, signed where it is subtracted);
            # integer only: a float compare would flip on a contracted multiply-add
            compared = self._expr(ctype, vars, scalars, depth - 1)
            if isinstance(compared, BinOp) and compared.op in COMPARES:
                return compared   # (a compare of a compare: gcc's -Wbool-compare)
            bound = self.compares.randint(1, 7)   # (a plain int: no signed-against-unsigned compare)
            return BinOp(self.compares.choice(COMPARES), compared, Const(bound, str(bound)))
        op = r.choices(("+", "-", "*"), (4, 2, 3))[0]
        if op == "*" and ctype in INT_TYPES:  # a product of two leaves at most: ints stay far from overflow
            return BinOp("*", self._leaf(ctype, vars, scalars), self._leaf(ctype, vars, scalars))
        return BinOp(op, self._expr(ctype, vars, scalars, depth - 1), self._expr(ctype, vars, scalars, depth - 1))

    def _leaf(self, ctype: str, vars: tuple[str, ...], scalars: tuple[ScalarDecl, ...]) -> Expr:
        r = self.rng
        # an int statement never reads floating point (the conversion could be out of range)
        readable = [a for a in self.arrays_used() if ctype in FLOAT_TYPES or a.ctype in INT_TYPES]
        usable_scalars = [s for s in scalars if ctype in FLOAT_TYPES or s.ctype in INT_TYPES]
        roll = r.random()
        if readable and roll < 0.65:
            return self._access(r.choice(readable), vars)
        if vars and roll < 0.78:
            return LoopVar(r.choice(vars))
        if usable_scalars and roll < 0.85:
            return ScalarRef(r.choice(usable_scalars).name)
        return self._const(ctype)

    def _const(self, ctype: str, zero: bool = False) -> Const:
        r = self.rng
        if ctype in INT_TYPES:
            v = 0 if zero else r.randint(1, 7)
            return Const(v, f"{v}u" if ctype == "unsigned" else str(v))
        text = "0.0" if zero else r.choice(FLOAT_CONSTS)
        return Const(float(text), text + ("f" if ctype == "float" else ""))


def _append_innermost(node: Node, stmt: Stmt) -> Node:
    """Add ``stmt`` at the end of the innermost loop of the first chain of loops in ``node``."""
    if isinstance(node, Loop):
        loops = [c for c in node.body if isinstance(c, Loop)]
        if loops:
            first = loops[0]
            body = tuple(_append_innermost(c, stmt) if c is first else c for c in node.body)
            return replace(node, body=body)
        return replace(node, body=node.body + (stmt,))
    return node
