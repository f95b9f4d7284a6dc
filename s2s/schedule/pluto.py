"""A Pluto-style affine scheduler (Bondhugula et al., PLDI 2008), built on isl.

Hyperplanes are found one at a time. For every dependence not yet satisfied, a new hyperplane
``phi`` must keep ``phi(dst) - phi(src) >= 0`` (legality) and is bounded by ``u.n + w`` (the
cost: dependence distance, i.e. reuse distance and communication volume). Both conditions are
linearized with the affine form of Farkas' lemma, which isl computes (``Set.coefficients``), and
the lexicographically smallest ``(u, w, coefficients)`` is the integer program's answer, also
found by isl. Hyperplanes must be linearly independent of the ones found before for each
statement (the orthogonal-subspace condition), and non-negative as the rows are swept: the
unknown of a loop that counts down inside ones that count up is the coefficient of its negated
iterator, so that a recursive filter's right-to-left pass keeps its rows' band with the
left-to-right one (its own order is one the search may find). When no hyperplane exists, the
dependence graph's strongly connected components are separated by a scalar dimension (loop
distribution), according to the fusion policy; where that does not help either, the statements
that cannot get a hyperplane even alone get zero rows from then on, and the original order of
their loops at the end, so that the others go on. Consecutive hyperplanes found without a cut form
a permutable band (tilable); hyperplanes on which every remaining dependence has distance zero
are parallel.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from fractions import Fraction

import islpy as isl

from s2s.analysis.dependences import Dependences, coalesced, last_access, maps_of
from s2s.analysis.scop import Loop, Scop, Statement
from s2s.time_limit import TimeLimitExceeded, isl_operation_limit, run_with_cpu_limit, work_clock

FUSION_POLICIES = ("smart", "max", "no")
COEFFICIENT_BOUND = 4     # keeps the integer program small; Pluto's skewing factors rarely exceed it
# Larger integer programs are not even tried (the time budget would stop them anyway).
MAX_UNKNOWNS = 96
# CPU-time budget per SCoP: the whole optimizer must stay within a few seconds per file (parsing
# and code generation included); heat-3d's hundreds of Farkas constraints are the dearest of
# PolyBench's successful schedules.
BUDGET_S = 3.0


class SchedulingFailed(Exception):
    pass


@dataclass
class Row:
    """One schedule dimension: a hyperplane (per-statement coefficients) or a scalar (a constant
    per statement, from a cut)."""

    kind: str                                  # "hyperplane" or "scalar"
    coefficients: dict[str, tuple[int, ...]]   # statement -> (c_1..c_m, c_0)
    band: int = -1                             # band number of a hyperplane
    parallel: bool = False


@dataclass
class PlutoSchedule:
    rows: list[Row] = field(default_factory=list)
    seconds: float = 0.0
    log: list[str] = field(default_factory=list)

    @property
    def skewed(self) -> bool:
        """Whether a band row combines loops of a statement (a skew, as stencils need to tile)."""
        return any(r.kind == "hyperplane" and r.band >= 0 and sum(1 for a in c[:-1] if a) > 1
                   for r in self.rows for c in r.coefficients.values())

    def bands(self) -> list[list[int]]:
        """Row indices of each permutable band (rows of the original-order tail are in none)."""
        out: dict[int, list[int]] = {}
        for k, r in enumerate(self.rows):
            if r.kind == "hyperplane" and r.band >= 0:
                out.setdefault(r.band, []).append(k)
        return [out[b] for b in sorted(out)]

    def loops_of(self, stmt: str) -> list[Row]:
        """The rows that make a loop of statement ``stmt``, outermost first: each raises the rank
        of the statement's rows before it (a row that repeats them gives no loop of its own)."""
        loops: list[Row] = []
        for r in self.rows:
            c = r.coefficients[stmt][:-1]
            if r.kind != "hyperplane" or not any(c):
                continue
            if _rank([x.coefficients[stmt][:-1] for x in loops] + [c]) > len(loops):
                loops.append(r)
        return loops


def _sweeps(loops: list[Loop]) -> tuple[int, ...]:
    """Per loop, -1 where it counts down inside loops that all count up (a row swept backwards,
    as a recursive filter's second pass), else 1. A statement that runs backwards from its
    outermost loop on (a back substitution) is not one: it has no forward loop to share."""
    return tuple(-1 if loop.step < 0 and k and all(outer.step > 0 for outer in loops[:k]) else 1
                 for k, loop in enumerate(loops))


def _rank(rows: list[tuple[int, ...]]) -> int:
    m = [[Fraction(x) for x in r] for r in rows]
    rank, col = 0, 0
    ncols = len(m[0]) if m else 0
    while rank < len(m) and col < ncols:
        pivot = next((r for r in range(rank, len(m)) if m[r][col] != 0), None)
        if pivot is None:
            col += 1
            continue
        m[rank], m[pivot] = m[pivot], m[rank]
        for r in range(len(m)):
            if r != rank and m[r][col] != 0:
                f = m[r][col] / m[rank][col]
                m[r] = [a - f * b for a, b in zip(m[r], m[rank])]
        rank += 1
        col += 1
    return rank


def domain_equalities(domain: isl.Set) -> list[tuple[int, ...]]:
    """The iterator coefficients of the equalities that hold on all of ``domain`` (its affine
    hull; those through a floor division, as of a stride, left out)."""
    out = []
    for c in domain.affine_hull().get_constraints():
        if not c.is_equality() or any(not c.get_coefficient_val(isl.dim_type.div, k).is_zero()
                                       for k in range(c.dim(isl.dim_type.div))):
            continue
        row = tuple(c.get_coefficient_val(isl.dim_type.set, k).to_python() for k in range(c.dim(isl.dim_type.set)))
        if any(row):
            out.append(row)
    return out


def _orthogonal_complement(rows: list[tuple[int, ...]], n: int) -> list[tuple[int, ...]]:
    """Integer basis of the vectors orthogonal to ``rows`` (in Q^n)."""
    if not rows:
        return [tuple(1 if i == j else 0 for j in range(n)) for i in range(n)]
    m = [[Fraction(x) for x in r] for r in rows]
    pivots: list[int] = []
    rank = 0
    for col in range(n):
        pivot = next((r for r in range(rank, len(m)) if m[r][col] != 0), None)
        if pivot is None:
            continue
        m[rank], m[pivot] = m[pivot], m[rank]
        m[rank] = [a / m[rank][col] for a in m[rank]]
        for r in range(len(m)):
            if r != rank and m[r][col] != 0:
                f = m[r][col]
                m[r] = [a - f * b for a, b in zip(m[r], m[rank])]
        pivots.append(col)
        rank += 1
    free = [c for c in range(n) if c not in pivots]
    basis = []
    for f in free:
        v = [Fraction(0)] * n
        v[f] = Fraction(1)
        for r, p in enumerate(pivots):
            v[p] = -m[r][f]
        denom = 1
        for x in v:
            denom = denom * x.denominator // _gcd(denom, x.denominator)
        basis.append(tuple(int(x * denom) for x in v))
    return basis


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return abs(a)


def _one_a_write(s: Statement, s_write: bool, a: isl.Map, t: Statement, t_write: bool, b: isl.Map) -> bool:
    return s_write or t_write


def _access_pairs(scop: Scop, wanted=_one_a_write):
    """Every ordered pair of accesses to one array that ``wanted`` takes (by default those with
    at least one write), as the relation from the earlier instance to the later one: a simple
    polyhedron per pair (``A[i][j-1]`` against ``A[i][j]``), so Farkas' lemma stays cheap where
    the merged relations of a stencil would make large ones. Yields (source statement, target
    statement, relation)."""
    for s in scop.statements:
        for t in scop.statements:
            before = s.schedule.lex_lt_map(t.schedule)
            for s_write, a in s.accesses:
                for t_write, b in t.accesses:
                    if not wanted(s, s_write, a, t, t_write, b):
                        continue
                    if a.get_tuple_name(isl.dim_type.out) != b.get_tuple_name(isl.dim_type.out):
                        continue
                    rel = a.apply_range(b.reverse()).intersect(before)
                    if not rel.is_empty():
                        yield s.name, t.name, rel


def _pieces(rel: isl.Map) -> list[isl.Map]:
    return [isl.Map.from_basic_map(bm) for bm in coalesced(rel).get_basic_maps() if not bm.is_empty()]


def access_pair_dependences(scop: Scop) -> list[isl.Map]:
    """Memory-based dependences, one polyhedron per pair of accesses (as Pluto computes them)."""
    return _unique([p for _, _, rel in _access_pairs(scop) for p in _pieces(rel)])


def reuse_dependences(scop: Scop, deps: Dependences) -> list[isl.Map]:
    """Value-based dependences (each read to the write it reads, each write to the last read and
    the last write of its element before it), split by access pair: the reuse distances that the
    cost function bounds. Memory-based pairs would count a reduction's first and last iteration
    as reuse, which only a parametric bound (``u.n``) covers; with constant loop bounds they would
    end every band."""
    reads, writes, sched = scop.reads, scop.writes, scop.schedule_map

    tree = scop.schedule_tree
    value_based = deps.flow.union(last_access(writes, reads, sched, tree)).union(
        last_access(writes, writes, sched, tree))
    by_pair = {(m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)): m
               for m in maps_of(value_based)}
    out = []
    for src, dst, rel in _access_pairs(scop):
        if (src, dst) in by_pair:
            out.extend(_pieces(rel.intersect(by_pair[(src, dst)])))
    for rel in shared_reads(scop):
        out.extend(_pieces(rel))
    return _unique(out)


def shared_reads(scop: Scop) -> list[isl.Map]:
    """Reads of one array by statements of different loop nests, each reading every element once
    (``A[i][j]`` in one, ``A[j][i]`` in the other, as mvt's two products), from the earlier
    instance to the later one. As reuse (cost, never legality) they ask for a schedule that reads
    each element once for both, as Pluto's input dependences do. A read that a statement repeats
    along a loop (``y[j]`` over ``i``) is left out, as its reuse distance grows with the problem;
    so are statements of one nest, which share what the user's loops share already."""
    def wanted(s: Statement, s_write: bool, a: isl.Map, t: Statement, t_write: bool, b: isl.Map) -> bool:
        return (not s_write and not t_write and bool(s.loops) and bool(t.loops) and s.loops[0] is not t.loops[0]
                and a.is_injective() and b.is_injective())

    return [rel for _, _, rel in _access_pairs(scop, wanted)]


def _rows_key(m: isl.Map, rows: list[Row]) -> tuple:
    """What of ``rows`` a dependence ``m`` sees: their coefficients for its two statements."""
    src, dst = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)
    return tuple((r.kind, r.coefficients[src], r.coefficients[dst]) for r in rows)


def _unique(maps: list[isl.Map]) -> list[isl.Map]:
    out: list[isl.Map] = []
    for m in maps:
        if not any(m.is_equal(o) for o in out if o.get_space() == m.get_space()):
            out.append(m)
    return out


class PlutoScheduler:
    def __init__(self, scop: Scop, deps: Dependences, fusion: str = "smart", budget_s: float = BUDGET_S,
                 max_operations: int = 30_000_000):
        if fusion not in FUSION_POLICIES:
            raise ValueError(f"fusion policy {fusion!r} (expected one of {', '.join(FUSION_POLICIES)})")
        self.scop = scop
        self.fusion = fusion
        self.budget_s = budget_s
        # Bound on u and w: keeps isl's integer programming fast (larger bounds made stencils take
        # minutes); constant-size reuse distances beyond it end the band (original order after).
        self.cost_bound = 64
        self.deadline = work_clock() + budget_s
        self.max_operations = max_operations
        self.stmts = [s.name for s in scop.statements]
        self.dims = {s.name: len(s.iterators) for s in scop.statements}
        # what each statement's domain fixes (k = i - 1 for one iteration of k): a hyperplane
        # in their span orders nothing of the statement's own, so it counts as found already
        self.fixed = {s.name: domain_equalities(s.domain) for s in scop.statements}
        # -1 for a row swept backwards (a loop that counts down inside ones that count up): the
        # unknown of such a loop is the coefficient of its negated iterator
        self.signs = {s.name: _sweeps(s.loops[:len(s.iterators)]) for s in scop.statements}
        self.params = list(scop.params)
        # unknowns: u (one per parameter), w, then per statement a_1..a_m (iterator coefficients)
        # and b (its constant shift)
        self.names = [f"u{k}" for k in range(len(self.params))] + ["w"]
        for k, s in enumerate(self.stmts):
            # innermost coefficient first: lexmin then prefers the original loop order among
            # hyperplanes of equal cost
            self.names += [f"a{k}_{j}" for j in reversed(range(self.dims[s]))] + [f"b{k}"]
        if len(self.names) > MAX_UNKNOWNS:
            raise SchedulingFailed(f"{len(self.stmts)} statements make an integer program of {len(self.names)} "
                                   f"unknowns (limit {MAX_UNKNOWNS})")
        self.deps = access_pair_dependences(scop)   # legality
        self.reuse = reuse_dependences(scop, deps)  # cost
        # some statement has more loops than its arrays have dimensions: elements are reused O(n) times
        self._reuse_grows = any(
            len(st.iterators) > max((m.dim(isl.dim_type.out) for _, m in st.accesses), default=0)
            for st in scop.statements)
        self._legal: dict[int, isl.BasicSet] = {}   # by index into deps
        self._original: list[Row] | None = None     # original_order's rows, once found
        self._bound: dict[int, isl.BasicSet] = {}   # by index into reuse
        # what _satisfied and _zero_distance found, by dependence and the rows' effect on it
        self._ordered_by: dict[tuple[int, bool], list[tuple]] = {}
        self._unordered_by: set[tuple[int, bool, tuple]] = set()
        self._zero: dict[tuple[int, tuple], bool] = {}

    # --- Farkas: the coefficient constraints of one dependence -----------------------------------

    def _farkas(self, index: int, bounding: bool) -> isl.BasicSet:
        """Legality constraints of ``deps[index]``, or bounding constraints of ``reuse[index]``."""
        cache = self._bound if bounding else self._legal
        if index in cache:
            return cache[index]
        m = self.reuse[index] if bounding else self.deps[index]
        src, dst = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)
        # Farkas' lemma needs polyhedra: strided loops give dependences existential variables, whose
        # rational projection is a superset (constraints that hold on it hold on the dependence)
        coeffs = m.remove_divs().wrap().coefficients().flatten()
        # coefficient vector layout: [c_cst, c_params..., c_src..., c_dst...]
        ks, kd = self.stmts.index(src), self.stmts.index(dst)
        src_c = [f"a{ks}_{j}" for j in range(self.dims[src])]
        dst_c = [f"a{kd}_{j}" for j in range(self.dims[dst])]
        src_k, dst_k = f"b{ks}", f"b{kd}"
        sign = -1 if bounding else 1
        # phi_dst(t) - phi_src(s) (legality) or u.n + w - (phi_dst(t) - phi_src(s)) (bounding)
        cst = f"{sign} * ({dst_k} - {src_k})" + (" + w" if bounding else "")
        par = [f"u{k}" if bounding else "0" for k in range(len(self.params))]
        s_terms = [f"{-sign * way} * {c}" for c, way in zip(src_c, self.signs[src])]
        d_terms = [f"{sign * way} * {c}" for c, way in zip(dst_c, self.signs[dst])]
        ma = isl.MultiAff(f"{{ [{', '.join(self.names)}] -> [{', '.join([cst, *par, *s_terms, *d_terms])}] }}")
        result = coeffs.preimage_multi_aff(ma)
        # Farkas multipliers are rational; the constraints on our unknowns are plain inequalities
        result = isl.BasicSet(str(result).replace("rat: ", ""))
        cache[index] = result
        return result

    # --- the integer program for one hyperplane ----------------------------------------------------

    @functools.cached_property
    def _universe(self) -> isl.BasicSet:
        """The unknowns' bounds, the same for every hyperplane (parsed once)."""
        conds = []
        for n in self.names:
            if n.startswith("a"):
                conds.append(f"0 <= {n} <= {COEFFICIENT_BOUND}")
            elif n.startswith("b"):
                conds.append(f"0 <= {n} <= {8 * COEFFICIENT_BOUND}")
            else:
                conds.append(f"0 <= {n} <= {self.cost_bound}")
        return isl.BasicSet(f"{{ [{', '.join(self.names)}] : {' and '.join(conds)} }}")

    def _independence(self, found: dict[str, list[tuple[int, ...]]], exempt: frozenset[str] = frozenset(),
                      free: frozenset[str] = frozenset()) -> isl.BasicSet:
        """The new hyperplane must have a component outside the span of each statement's
        hyperplanes so far (Pluto's orthogonal-subspace condition), but for those ``free`` of it,
        and those ``exempt``, which get none (a row repeating an earlier one made isl's AST run
        a dependence backwards)."""
        conds = []
        for k, s in enumerate(self.stmts):
            m = self.dims[s]
            rows = [self._as_unknowns(s, r) for r in found[s] + self.fixed[s]]
            if s in exempt:
                conds += [f"a{k}_{j} = 0" for j in range(m)]
                continue
            if m == 0 or (rows and _rank(rows) >= m) or s in free:
                continue
            terms = []
            for r in _orthogonal_complement(rows, m):
                expr = " + ".join(f"{a} * a{k}_{j}" for j, a in enumerate(r) if a)
                if expr:
                    conds.append(f"{expr} >= 0")
                    terms.append(f"({expr})")
            if terms:
                conds.append(" + ".join(terms) + " >= 1")
        text = " and ".join(conds) if conds else "true"
        return isl.BasicSet(f"{{ [{', '.join(self.names)}] : {text} }}")

    def _solve(self, live: list[int], live_reuse: list[int], found: dict[str, list[tuple[int, ...]]],
               exempt: frozenset[str] = frozenset(), free: frozenset[str] = frozenset()):
        space = self._universe.intersect(self._independence(found, exempt, free))
        for d in live:
            space = space.intersect(self._farkas(d, False))
            self._tick()
        for d in live_reuse:
            space = space.intersect(self._farkas(d, True))
            self._tick()
        if space.is_empty():   # (quick to prove; a lexmin of an empty set can take seconds)
            return None
        point = space.lexmin()
        if point.is_empty():
            return None
        sample = point.sample_point()
        values = [sample.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(len(self.names))]
        return values

    # --- dependence bookkeeping ------------------------------------------------------------------

    def _tick(self) -> None:
        if work_clock() > self.deadline:
            raise SchedulingFailed(f"time budget of {self.budget_s:.0f} s exceeded")

    def _distances(self, m: isl.Map, rows: list[Row]) -> isl.Set:
        """The distance vectors (one component per row) of dependence ``m``."""
        self._tick()
        src, dst = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)

        def phi(row: Row, stmt: str, var: str) -> str:
            c = row.coefficients[stmt]
            if row.kind == "scalar":
                return str(c[0])
            n = self.dims[stmt]
            return " + ".join([f"{c[j]} * {var}{j}" for j in range(n)] + [str(c[n])])

        params = f"[{', '.join(self.params)}] -> " if self.params else ""
        s_vars = ", ".join(f"s{j}" for j in range(self.dims[src]))
        t_vars = ", ".join(f"t{j}" for j in range(self.dims[dst]))
        comps = ", ".join(f"({phi(r, dst, 't')}) - ({phi(r, src, 's')})" for r in rows)
        diff = isl.Map(f"{params}{{ [{src}[{s_vars}] -> {dst}[{t_vars}]] -> [{comps}] }}")
        return m.wrap().apply(diff)

    def _satisfied(self, index: int, rows: list[Row], reuse: bool = False) -> bool:
        """Every instance of dependence ``index`` (of ``reuse`` if set, else of ``deps``) is ordered
        by ``rows`` (its distance vector is lexicographically positive)."""
        m = self.reuse[index] if reuse else self.deps[index]
        src, dst = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)
        while rows and rows[0].kind == "scalar":   # a constant distance: no need for isl
            gap = rows[0].coefficients[dst][0] - rows[0].coefficients[src][0]
            if gap:
                return gap > 0
            rows = rows[1:]
        if not rows:
            return False
        key = _rows_key(m, rows)
        # rows that order a dependence still order it with more rows after them
        ordering = self._ordered_by.setdefault((index, reuse), [])
        if any(key[:len(k)] == k for k in ordering):
            return True
        if (index, reuse, key) in self._unordered_by:
            return False
        d = self._distances(m, rows)
        n = len(rows)
        disjuncts = []
        for k in range(n):
            eq = [f"x{j} = 0" for j in range(k)]
            disjuncts.append("(" + " and ".join(eq + [f"x{k} >= 1"]) + ")")
        xs = ", ".join(f"x{j}" for j in range(n))
        positive = isl.Set(f"{{ [{xs}] : {' or '.join(disjuncts)} }}").align_params(d.get_space())
        if d.is_subset(positive):
            ordering.append(key)
            return True
        self._unordered_by.add((index, reuse, key))
        return False

    def _zero_distance(self, index: int, row: Row) -> bool:
        key = (index, _rows_key(self.deps[index], [row]))
        if key not in self._zero:
            d = self._distances(self.deps[index], [row])
            self._zero[key] = d.is_subset(isl.Set("{ [x] : x = 0 }").align_params(d.get_space()))
        return self._zero[key]

    def _coefficients(self, values: list[int], stmt: str) -> tuple[int, ...]:
        """(a_1..a_m, b) of ``stmt`` from a solution vector, as coefficients of its iterators."""
        k = self.stmts.index(stmt)
        by_name = dict(zip(self.names, values))
        return self._as_unknowns(stmt, tuple(by_name[f"a{k}_{j}"] for j in range(self.dims[stmt]))) + (
            by_name[f"b{k}"],)

    @property
    def reflects(self) -> bool:
        """Whether some statement sweeps a row backwards (its loop's unknown negated)."""
        return any(-1 in signs for signs in self.signs.values())

    def _as_unknowns(self, stmt: str, row: tuple[int, ...]) -> tuple[int, ...]:
        """Iterator coefficients of ``stmt`` as the unknowns count them, or back (its own inverse)."""
        return tuple(c * way for c, way in zip(row, self.signs[stmt]))

    # --- the main loop -----------------------------------------------------------------------------

    def schedule(self) -> PlutoSchedule:
        """Finds the schedule within the CPU-time budget, or raises SchedulingFailed. It runs in
        a child process ended at the budget: isl's integer programming cannot be interrupted, and
        its operation counter does not cover every step (adi's first program alone runs a minute)."""
        try:
            return run_with_cpu_limit(self._schedule_counted, self.budget_s)
        except TimeLimitExceeded:
            raise SchedulingFailed(f"time budget of {self.budget_s:g} s exceeded") from None

    def _schedule_counted(self) -> PlutoSchedule:
        self.deadline = work_clock() + self.budget_s   # (a child's CPU clock starts afresh)
        try:
            with isl_operation_limit(self.max_operations):
                return self._schedule()
        except isl.Error as exc:
            raise SchedulingFailed(f"isl gave up ({str(exc).splitlines()[0][:80]})") from exc

    def _schedule(self) -> PlutoSchedule:
        start = time.perf_counter()
        result = PlutoSchedule()
        found: dict[str, list[tuple[int, ...]]] = {s: [] for s in self.stmts}
        unsatisfied = list(range(len(self.deps)))
        reuse_live = list(range(len(self.reuse)))
        band = 0
        band_rows: list[Row] = []
        if self.fusion in ("smart", "no"):
            cut = self._cut(unsatisfied, initial=True)
            if cut is not None:
                result.rows.append(cut)
                unsatisfied = [d for d in unsatisfied if not self._satisfied(d, [cut])]
                reuse_live = [d for d in reuse_live if not self._satisfied(d, [cut], reuse=True)]
        guard = 0
        exempt: frozenset[str] = frozenset()
        while any(_rank(found[s] + self.fixed[s]) < self.dims[s] for s in self.stmts if s not in exempt):
            guard += 1
            if guard > 64:
                raise SchedulingFailed("no progress")
            values = self._solve(unsatisfied, reuse_live, found, exempt)
            unbounded = values is None and bool(reuse_live) and bool(band_rows) and self._reuse_grows
            if unbounded:
                # With constant loop bounds there is no u.n term: a distance that grows with the
                # problem (cholesky's i - j, up to n) exceeds any small w. Pluto's w is unbounded;
                # ours is bounded for speed, so a band that has a hyperplane of bounded distances
                # may be deepened (for tiling) by hyperplanes found with legality alone. Bands
                # that would start with one went astray (nussinov, floyd-warshall), and where no
                # statement has more loops than its arrays have dimensions each element is used a
                # bounded number of times, so deeper tiles reuse nothing (trisolv ran 0.6x tiled).
                values = self._solve(unsatisfied, [], found, exempt)
            if values is not None:
                coeffs = {s: self._coefficients(values, s) for s in self.stmts}
                for s in self.stmts:
                    if any(coeffs[s][:-1]):
                        found[s].append(coeffs[s][:-1])
                row = Row("hyperplane", coeffs, band)
                result.rows.append(row)
                band_rows.append(row)
                result.log.append(f"band {band}: hyperplane " + "; ".join(
                    f"{s}: {coeffs[s]}" for s in self.stmts) + (" (distances unbounded)" if unbounded else ""))
                continue
            if band_rows:
                # close the band: dependences it satisfies need not constrain later hyperplanes
                unsatisfied = [d for d in unsatisfied if not self._satisfied(d, band_rows)]
                reuse_live = [d for d in reuse_live if not self._satisfied(d, band_rows, reuse=True)]
                band += 1
                band_rows = []
                continue
            cut = self._cut(unsatisfied, initial=False)
            before = len(unsatisfied)
            if cut is not None:
                unsatisfied = [d for d in unsatisfied if not self._satisfied(d, [cut])]
                reuse_live = [d for d in reuse_live if not self._satisfied(d, [cut], reuse=True)]
            if (cut is None or len(unsatisfied) == before) and not exempt:
                # Statements that no hyperplane can take further even alone (ludcmp's back
                # substitution: its loop runs down, and coefficients are non-negative) need not
                # hold up the others: they keep their original order once the others are done.
                exempt = self._stuck(unsatisfied, found)
                if exempt:
                    result.log.append("no hyperplane for " + ", ".join(sorted(exempt)) + ": the others go on")
                    continue
            if cut is None or len(unsatisfied) == before:
                # Stuck: finish with the original execution order of what is left, which is
                # legal because every remaining dependence has distance zero so far.
                result.rows.extend(self._original_tail(found, unsatisfied))
                result.log.append("no further hyperplane: original order for the remaining dimensions")
                break
            result.rows.append(cut)
            result.log.append("cut: " + ", ".join(f"{s}={cut.coefficients[s][0]}" for s in self.stmts))
        # Instances the hyperplanes leave tied (distance zero everywhere) are ordered by a last
        # scalar dimension: the dependence graph's components in topological order.
        left = [d for d in range(len(self.deps)) if not self._satisfied(d, result.rows)]
        if left:
            cut = self._cut(left, initial=False)
            if cut is not None and all(self._satisfied(d, result.rows + [cut]) for d in left):
                result.rows.append(cut)
                result.log.append("final cut orders statements that the hyperplanes leave tied")
            else:
                result.rows.extend(self._original_tail(found, left))
                result.log.append("tied instances: original order appended")
        self.mark_parallel(result.rows)
        result.seconds = time.perf_counter() - start
        return result

    def _stuck(self, live: list[int], found: dict[str, list[tuple[int, ...]]]) -> frozenset[str]:
        """The statements short of full rank for which no hyperplane exists even where the
        others need not get one (empty where that is all of them: nothing to go on with)."""
        short = [s for s in self.stmts if self.dims[s] and _rank(found[s] + self.fixed[s]) < self.dims[s]]
        stuck = frozenset(s for s in short
                          if self._solve(live, [], found, free=frozenset(short) - {s}) is None)
        return stuck if stuck and len(stuck) < len(short) else frozenset()

    def mark_parallel(self, rows: list[Row]) -> None:
        """Sets each hyperplane's ``parallel`` flag: true if every dependence that the rows before
        its band leave unordered has distance zero on it. Counting from the band's start (not from
        the row) keeps the flag true of the tile loop too: tiling a band whose (1, 1)-dependence
        the first member orders still leaves the second tile loop carrying it."""
        remaining = list(range(len(self.deps)))
        k = 0
        while k < len(rows):
            row = rows[k]
            end = k + 1
            if row.kind == "hyperplane" and row.band >= 0:
                while end < len(rows) and rows[end].kind == "hyperplane" and rows[end].band == row.band:
                    end += 1
            for member in rows[k:end]:
                if member.kind == "hyperplane":
                    member.parallel = all(self._zero_distance(d, member) for d in remaining)
            remaining = [d for d in remaining if not self._satisfied(d, rows[:end])]
            k = end

    def original_order(self) -> PlutoSchedule:
        """The SCoP's own order as a schedule (no band: nothing tiled), with its parallel loops.
        It has a budget of its own: it is asked for after the search, which may have spent most
        of the first. (Found once: callers get a list of their own, of the same rows.)"""
        if self._original is None:
            self.deadline = work_clock() + self.budget_s
            rows = self._original_rows()
            self.mark_parallel(rows)
            self._original = rows
        return PlutoSchedule(list(self._original), log=["original order"])

    def _original_tail(self, found: dict[str, list[tuple[int, ...]]], unsatisfied: list[int]) -> list[Row]:
        """The original schedule's rows to follow the hyperplanes found, less the hyperplanes each
        statement already has (floyd-warshall's k after the band of k): such a row makes a loop of
        one iteration, which isl drops but which would count as a parallel loop. A row is left out
        only if it also has distance zero on every unsatisfied dependence, so it orders nothing."""
        tail = []
        for row in self._original_rows():
            if row.kind == "hyperplane" and all(
                    not any(c[:-1]) or _rank(found[s] + self.fixed[s] + [c[:-1]]) == _rank(found[s] + self.fixed[s])
                    for s, c in row.coefficients.items()) and all(
                    self._zero_distance(d, row) for d in unsatisfied):
                continue
            tail.append(row)
        return tail

    def _original_rows(self) -> list[Row]:
        """The SCoP's original 2d+1 schedule as rows (scalar positions and +-iterators)."""
        depth = max((len(st.iterators) for st in self.scop.statements), default=0)
        rows = []
        for k in range(2 * depth + 1):
            if k % 2 == 0:
                level = k // 2
                rows.append(Row("scalar", {st.name: (st.position[level] if level < len(st.position) else 0,)
                                           for st in self.scop.statements}))
            else:
                level = k // 2
                coeffs = {}
                for st in self.scop.statements:
                    m = len(st.iterators)
                    c = [0] * (m + 1)
                    if level < m:
                        c[level] = 1 if st.loops[level].step > 0 else -1
                    coeffs[st.name] = tuple(c)
                rows.append(Row("hyperplane", coeffs, band=-1))
        return rows

    def _cut(self, unsatisfied: list[int], initial: bool) -> Row | None:
        """A scalar dimension that orders the strongly connected components of the dependence
        graph (of the unsatisfied dependences) topologically."""
        import networkx as nx  # imported on use: s2s-cc's start-up time matters

        g = nx.DiGraph()
        g.add_nodes_from(self.stmts)
        for d in unsatisfied:
            m = self.deps[d]
            g.add_edge(m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out))
        cond = nx.condensation(g)
        order = list(nx.lexicographical_topological_sort(
            cond, key=lambda c: min(self.stmts.index(s) for s in cond.nodes[c]["members"])))
        if len(order) <= 1:
            return None
        group_of: dict[str, int] = {}
        group = 0
        previous_dims = None
        for k, c in enumerate(order):
            members = cond.nodes[c]["members"]
            dims = max(self.dims[s] for s in members)
            if k > 0 and (self.fusion == "no" or not initial or (self.fusion == "smart" and dims != previous_dims)):
                group += 1
            for s in members:
                group_of[s] = group
            previous_dims = dims
        if group == 0:
            return None
        return Row("scalar", {s: (group_of[s],) for s in self.stmts})
