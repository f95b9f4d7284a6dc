"""Makes every access of a fuzz program in bounds by construction.

The generator writes subscripts freely (``A[i - 1][2*j + 1]``, ``v[i*n + j]``); ``finalize`` then runs
the program's iteration space with the parameter values it will be run with (the programs are small),
records the range each subscript takes, shifts a declared array's subscripts that would go below
zero, sizes every array to what is touched, and places each pointer view far enough into its buffer
that its lowest access is the buffer's element 0 or later. Doing this on the model, not on C text,
is also what lets the shrinker change anything and stay free of undefined behaviour.

Where counters or sizes are unsigned or wider than ``int`` (``Program.types``), the loops and
conditions run as C runs them (``s2s.fuzz.cint``), and a last walk checks that every subscript C
computes is the one the model computed: a bound that wraps, a counter that runs past 0, or a
subscript ``i - 1`` that wraps at ``i = 0`` makes the program too big for the fuzzer, like one
that runs too long.
"""
from __future__ import annotations

from dataclasses import replace

from s2s.fuzz import cint
from s2s.fuzz.model import Access, BinOp, If, Loop, Node, Poly, Program, Stmt

MAX_INSTANCES = 150_000  # statement instances per program: keeps -O0 runs and this walk fast
MAX_ELEMENTS = 1 << 20  # per array


class TooBig(Exception):
    """The program would run too long or need too much memory; the generator draws another."""


def finalize(program: Program) -> Program:
    ranges = subscript_ranges(program)
    shifts: dict[tuple[str, int], int] = {}
    # With unsigned counters a view's subscript below zero would wrap: it is shifted up, and the
    # view placed as far down its buffer, so that it touches the same elements.
    shift_views = any(cint.is_unsigned(t) for _, t in program.types)
    for (name, dim), (lo, _) in ranges.items():
        if (program.array(name).kind != "view" or shift_views) and lo < 0:
            shifts[(name, dim)] = -lo
    if shifts:
        program = map_accesses(program, lambda a: _shift(a, shifts))
    arrays = []
    views_of: dict[str, list] = {}
    for a in program.arrays:
        if a.kind == "view":
            if not _rank_probe(program, a.name):
                continue  # never accessed
            lo, hi = ranges.get((a.name, 0), (0, 0))  # (0, 0): accessed only where nothing runs
            if (a.name, 0) in shifts:
                lo, hi, a = 0, hi + shifts[(a.name, 0)], replace(a, offset=max(0, a.offset - shifts[(a.name, 0)]))
            a = replace(a, offset=max(a.offset, -lo))
            views_of.setdefault(a.buffer, []).append((a, hi))
            arrays.append(a)
        elif a.kind != "buffer":
            rank = len(_rank_probe(program, a.name))
            if rank == 0:
                continue
            dims = []
            for d in range(rank):
                lo, hi = ranges.get((a.name, d), (0, 0))
                dims.append(hi + shifts.get((a.name, d), 0) + 1)
            a = replace(a, dims=tuple(dims))
            arrays.append(a)
        else:
            arrays.append(a)
    sized = []
    for a in arrays:
        if a.kind == "buffer":
            views = views_of.get(a.name)
            if not views:
                continue
            a = replace(a, dims=(max(v.offset + hi + 1 for v, hi in views),))
        total = 1
        for d in a.dims:
            total *= d
        if total > MAX_ELEMENTS:
            raise TooBig(f"{a.name} has {total} elements")
        sized.append(a)
    program = replace(program, arrays=tuple(sized))
    if program.types:
        _check_subscripts_in_c(program)
    return program


def subscript_ranges(program: Program) -> dict[tuple[str, int], tuple[int, int]]:
    """(array, dimension) -> (lowest, highest) subscript over every access the program runs."""
    ranges: dict[tuple[str, int], list[int]] = {}

    def record(a: Access, env: dict[str, int]) -> None:
        for d, p in enumerate(a.index):
            v = p.evaluate(env)
            r = ranges.get((a.array, d))
            if r is None:
                ranges[(a.array, d)] = [v, v]
            elif v < r[0]:
                r[0] = v
            elif v > r[1]:
                r[1] = v

    _run_accesses(program, record)
    return {k: (v[0], v[1]) for k, v in ranges.items()}


def _check_subscripts_in_c(program: Program) -> None:
    """Every subscript as C computes it (unsigned ones modulo 2^width) must be the model's."""
    types = dict(program.types)

    def check(a: Access, env: dict[str, int]) -> None:
        for p in a.index:
            try:
                in_c = cint.evaluate(p, env, types).value
            except cint.Unrunnable as e:
                raise TooBig(f"{a.array}[{p.c()}]: {e}") from None
            if in_c != p.evaluate(env):
                raise TooBig(f"{a.array}[{p.c()}] wraps to {in_c}")

    _run_accesses(program, check)


def _run_accesses(program: Program, visit) -> None:
    """Run the program's loops and conditions and ``visit(access, env)`` every access of every
    statement instance (only the first and last iterations of an innermost loop of statements)."""
    types = dict(program.types)
    count = 0
    accesses_of: dict[int, list[Access]] = {}

    def record(s: Stmt, env: dict[str, int]) -> None:
        acc = accesses_of.get(id(s))
        if acc is None:
            acc = accesses_of[id(s)] = list(statement_accesses(s))
        for a in acc:
            visit(a, env)

    def run(nodes: tuple[Node, ...], env: dict[str, int]) -> None:
        nonlocal count
        for n in nodes:
            if isinstance(n, Stmt):
                count += 1
                if count > MAX_INSTANCES:
                    raise TooBig("too many statement instances")
                record(n, env)
            elif isinstance(n, Loop):
                try:
                    values = n.values(env, types)
                except cint.Unrunnable as e:
                    raise TooBig(str(e)) from None
                if len(values) > 2 and all(isinstance(c, Stmt) for c in n.body):
                    # Subscripts are linear in each loop variable (a loop variable is only ever
                    # multiplied by constants and parameters), so an innermost loop's first and last
                    # iterations give its extremes.
                    count += (len(values) - 2) * len(n.body)
                    values = (values[0], values[-1])
                for v in values:
                    env[n.var] = v
                    run(n.body, env)
                env.pop(n.var, None)
            elif isinstance(n, If) and n.cond.data is not None:
                for a in expr_accesses(n.cond.data):   # (either branch may run)
                    visit(a, env)
                run(n.then, env)
                run(n.orelse, env)
            elif isinstance(n, If):
                try:
                    holds = n.cond.holds(env, types)
                except cint.Unrunnable as e:
                    raise TooBig(str(e)) from None
                run(n.then if holds else n.orelse, env)

    run(program.body, dict(program.params))


def statement_accesses(s: Stmt):
    if isinstance(s.target, Access):
        yield s.target
    yield from expr_accesses(s.expr)


def expr_accesses(e):
    if isinstance(e, Access):
        yield e
    elif isinstance(e, BinOp):
        yield from expr_accesses(e.left)
        yield from expr_accesses(e.right)


def map_accesses(program: Program, fn) -> Program:
    def expr(e):
        if isinstance(e, Access):
            return fn(e)
        if isinstance(e, BinOp):
            return replace(e, left=expr(e.left), right=expr(e.right))
        return e

    def node(n):
        if isinstance(n, Stmt):
            return replace(n, target=expr(n.target), expr=expr(n.expr))
        if isinstance(n, Loop):
            return replace(n, body=tuple(node(c) for c in n.body))
        if isinstance(n, If):
            cond = n.cond if n.cond.data is None else replace(n.cond, data=expr(n.cond.data))
            return replace(n, cond=cond, then=tuple(node(c) for c in n.then), orelse=tuple(node(c) for c in n.orelse))
        return n

    return replace(program, body=tuple(node(n) for n in program.body))


def _shift(a: Access, shifts: dict[tuple[str, int], int]) -> Access:
    index = tuple(p.shifted(shifts.get((a.array, d), 0)) for d, p in enumerate(a.index))
    return Access(a.array, index)


def _rank_probe(program: Program, name: str) -> tuple[Poly, ...]:
    """The subscripts of any access of ``name`` (all have the array's rank), or () if none."""
    found: list[tuple[Poly, ...]] = []

    def fn(a: Access) -> Access:
        if a.array == name and not found:
            found.append(a.index)
        return a

    map_accesses(program, fn)
    return found[0] if found else ()
