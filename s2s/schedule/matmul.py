"""Matrix-multiply statements, run as one register-blocked library node.

A statement ``C[i][j] op= left(i, k) * right(k, j)`` (op: + or -; the update may also be a sum
of such products, as in syr2k) where j runs over a range that may move with i (syrk's
triangle) and k over one that may too (trmm's ``k > i``) is what gemm, 2mm, 3mm, syrk, syr2k and
trmm spend their time in. Tiled
loops leave it at a fraction of the machine's peak: every k step loads and stores the row of C.
The MatMul library node (s2s.ir.library) keeps a block of C in vector registers instead, with
packed panels of the factors (the BLIS scheme); back ends expand it.

Loops around the three may be *batch* loops (doitgen's ``r`` in ``T[q][p] += A[r][q][s] *
C4[s][p]``): the node then runs once per batch iteration, inside those loops, and the
(i, j, k) domain must be the same for every batch iteration.

The node changes the order of the statement's instances, so it is used only when it is proven
legal (``kernel_order_is_legal``): below its batch loops the statement must be alone where the
schedule puts it (no loop shared with another statement) and every dependence among its own
instances must run along k for the same batch and (i, j), or to a later batch iteration.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import islpy as isl

from s2s.analysis.affine import only_through
from s2s.analysis.dependences import Dependences
from s2s.analysis.scop import Scop, Statement, split_linearized
from s2s.ir import (
    Access, AccessNode, Array, Binary, Block, Blocking, Const, DataflowGraph, Expr, Extent, MatMul, Memlet,
    Range, Scalar, Sym, Symbol, Tasklet, Unary, expr as ex, reads_target,
)
from s2s.ir.library import left_name, right_name
from s2s.schedule.pluto import PlutoSchedule, Row

MATMUL_MARK = "matmul"
_TYPES = ("double", "float")


@dataclass(frozen=True)
class KernelTarget:
    """What the blocking of a MatMul depends on: the machine's vector registers and caches."""

    vector_bytes: int = 32
    vector_registers: int = 16
    l1_bytes: int = 32 * 1024
    l2_bytes: int = 512 * 1024    # one core's share
    l3_bytes: int = 8 * 1024 * 1024   # shared by the threads


def blocking_for(target: KernelTarget, element_bytes: int, terms: int = 1, k_moves: bool = False) -> Blocking:
    """Accumulators for a rows x (vectors x lanes) block of the result, leaving registers for
    one row of each term's ``right`` and one broadcast ``left`` value per term (6 x 2 vectors with
    16 registers and one term, 8 x 3 with 32); a k panel of the right factors' strip that fills
    half of L2 (half of L1 where k's range moves with the rows: triangles along k), rows of the
    left factors that fill half of L2 with it (the other halves for the result and for what
    comes next), columns of the right factors that fill half of L3."""
    lanes = max(target.vector_bytes // element_bytes, 1)
    vectors = 2 if target.vector_registers <= 16 else 3
    rows = max(1, min(8, (target.vector_registers - terms * (vectors + 1)) // vectors))
    depth = (target.l1_bytes if k_moves else target.l2_bytes) // 2 // (terms * vectors * lanes * element_bytes)
    depth = max(64, min(512, depth // 16 * 16))
    panel = target.l2_bytes // 2 // (terms * depth * element_bytes)
    panel = max(rows, min(16 * rows, panel // rows * rows))
    columns = vectors * lanes
    panel_columns = max(columns, target.l3_bytes // 2 // (terms * depth * element_bytes) // columns * columns)
    return Blocking(rows, vectors, lanes, depth, panel, panel_columns)


@dataclass(frozen=True)
class MatMulPattern:
    """The statement's update in the model's terms: a flat array the model delinearized
    (``a[i * n + k]``) is read as ``a[i][k]`` here, and ``flat`` gives its row length."""
    statement: str
    i: str
    j: str
    k: str
    target: Access
    op: str
    update: Expr               # in the names left<t>, right<t> (s2s.ir.library)
    lefts: tuple[Expr, ...]
    rights: tuple[Expr, ...]
    dtype: str
    batch: tuple[str, ...] = ()   # iterators of the loops around the node, outermost first
    flat: tuple[tuple[str, str], ...] = ()   # (array, the parameter its rows are long) of the flat ones

    def linear(self, e: Expr) -> Expr:
        """``e`` with the flat arrays' elements as the code reads them (``a[i * n + k]``)."""
        rows = dict(self.flat)

        def back(n: Expr) -> Expr | None:
            if isinstance(n, Access) and n.name in rows and len(n.indices) == 2:
                outer, inner = n.indices
                return Access(n.name, (Binary("+", Binary("*", outer, Sym(rows[n.name])), inner),))
            return None

        return ex.rebuild(e, back) if rows else e


def match_matmul(scop: Scop, stmt: Statement) -> MatMulPattern | None:
    """``stmt`` as a matrix-multiply update, or None when it is not one (or not one the node
    can run exactly as written)."""
    if len(stmt.loops) < 3 or any(l.step != 1 for l in stmt.loops):
        return None   # k must run upward: the node adds the terms in ascending k
    computations = stmt.block.graph.computations()
    if len(computations) != 1 or not isinstance(computations[0], Tasklet):
        return None
    tasklet = computations[0]
    writes = stmt.block.graph.writes()
    if tasklet.output is None or len(writes) != 1:
        return None
    containers = scop.sdfg.container_map
    out = writes[0]
    array = containers.get(out.data)
    if not isinstance(array, Array) or array.dtype.spelling not in _TYPES or not (
            array.rank == 2 or array.rank == 1 and out.data in scop.delinearized):
        return None
    target = _as_modelled(scop, out.data, out.subset)
    value = ex.substitute(tasklet.expr, {e.dst_conn: (_as_modelled(scop, e.data, e.subset) if e.subset
                                                      else Sym(e.data))
                                         for e in stmt.block.graph.in_edges(tasklet.id)})
    if not (isinstance(value, Binary) and value.op in ("+", "-")):
        return None
    if value.lhs == target:
        increment = value.rhs
    elif value.op == "+" and value.rhs == target:
        increment = value.lhs
    else:
        return None
    iters = stmt.iterators
    i, j = (_iterator_of(sub, iters) for sub in target.indices)
    if i is None or j is None or i == j:
        return None
    *batch, k = [v for v in iters if v not in (i, j)]
    if iters[:len(batch)] != batch:
        return None   # batch loops must be outside the three the node runs
    lefts: list[Expr] = []
    rights: list[Expr] = []
    update = _split_products(increment, i, j, lefts, rights)
    if update is None:
        return None
    dtype = array.dtype.spelling
    if not (all(_plain(e, scop, out.data, dtype) for e in lefts)
            and all(_plain(e, scop, out.data, dtype, column=j) for e in rights)):
        return None
    read = {a.name for e in (target, *lefts, *rights) for a in ex.walk(e) if isinstance(a, Access)}
    flat = tuple(sorted((name, scop.delinearized[name]) for name in read if name in scop.delinearized))
    pattern = MatMulPattern(stmt.name, i, j, k, target, value.op, update, tuple(lefts), tuple(rights), dtype,
                            tuple(batch), flat)
    core = core_domain(stmt, pattern)
    if core is None or not _is_rows_by_band(_shape(core), *_core_positions(stmt, pattern)):
        return None
    return pattern


def _shape(domain: isl.Set) -> isl.Set:
    """``domain`` without its conditions on the parameters alone (what other statements' flat
    arrays assume of them, ``n <= 0 or n <= ldc``, splits it into pieces of one shape)."""
    out = None
    for piece in domain.get_basic_sets():
        piece = piece.drop_constraints_not_involving_dims(isl.dim_type.set, 0, piece.dim(isl.dim_type.set)).to_set()
        out = piece if out is None else out.union(piece)
    return domain if out is None else out.coalesce()


def _iterator_of(subscript: Expr, iterators) -> str | None:
    """The loop variable a subscript is, give or take a constant (``i``, ``i - 1``: Fortran's
    first element is 1), or None."""
    if isinstance(subscript, Binary) and subscript.op in ("+", "-"):
        offset = subscript.rhs.operand if isinstance(subscript.rhs, Unary) and subscript.rhs.op == "-" \
            else subscript.rhs
        if isinstance(offset, Const) and offset.int_value is not None:
            subscript = subscript.lhs
    return subscript.name if isinstance(subscript, Sym) and subscript.name in iterators else None


def _as_modelled(scop: Scop, data: str, subset) -> Access:
    """An element as the model indexes it: ``a[i][k]`` for ``a[i * n + k]`` of a flat array the
    model delinearized."""
    if data in scop.delinearized and len(subset) == 1:
        _, outer, inner = split_linearized(subset[0], scop.params)
        return Access(data, (outer, inner))
    return Access(data, tuple(subset))


def core_domain(stmt: Statement, pattern: MatMulPattern) -> isl.Set | None:
    """The (i, j, k) part of the statement's domain, the same in every batch iteration (None
    when it is not: then the node cannot run each batch alike)."""
    n = len(pattern.batch)
    if n == 0:
        return stmt.domain
    batches = only_through(stmt.domain, tuple(range(n)))
    rest = only_through(stmt.domain, tuple(range(n, len(stmt.iterators))))
    if not batches.intersect(rest).is_equal(stmt.domain):
        return None
    return stmt.domain.project_out(isl.dim_type.set, 0, n).set_tuple_name(stmt.domain.get_tuple_name())


def _core_positions(stmt: Statement, pattern: MatMulPattern) -> tuple[int, int, int]:
    n = len(pattern.batch)
    return tuple(stmt.iterators.index(v) - n for v in (pattern.i, pattern.j, pattern.k))  # type: ignore[return-value]


def _split_products(e: Expr, i: str, j: str, lefts: list[Expr], rights: list[Expr]) -> Expr | None:
    """``e``, a sum or difference of products of a factor without j by a factor without i,
    rewritten in the names left<t>, right<t> (the factors appended to ``lefts``, ``rights``)."""
    if isinstance(e, Binary) and e.op in ("+", "-"):
        a = _split_products(e.lhs, i, j, lefts, rights)
        b = _split_products(e.rhs, i, j, lefts, rights) if a is not None else None
        return None if b is None else Binary(e.op, a, b)
    if not (isinstance(e, Binary) and e.op == "*"):
        return None
    left, right = e.lhs, e.rhs
    swapped = j in ex.names(left) or i in ex.names(right)
    if swapped:
        left, right = right, left
    if j in ex.names(left) or i in ex.names(right):
        return None
    t = len(lefts)
    lefts.append(left)
    rights.append(right)
    names = (Sym(right_name(t)), Sym(left_name(t))) if swapped else (Sym(left_name(t)), Sym(right_name(t)))
    return Binary("*", *names)


def _plain(e: Expr, scop: Scop, target_array: str, dtype: str, column: str | None = None) -> bool:
    """Arithmetic on reads that evaluates, in the target's type, to what the statement computes:
    no call, every value of the target's type (double constants only in double code; integer
    constants are exact in both), no array of channels (``A[(y * w + x) * 3 + c]``). The
    target's array is read only in a right factor (``column``
    given), and there only as ``T[e][j]``, an element of the column the statement updates
    (trmm's ``B[k][j]``): whether each such read sees the value it saw in the user's order is
    ``kernel_order_is_legal``'s to prove."""
    containers = scop.sdfg.container_map
    loop_vars = {l.node.var for l in scop.loops}

    def ok(n: Expr) -> bool:
        if isinstance(n, Binary):
            return n.op in ("+", "-", "*", "/") and ok(n.lhs) and ok(n.rhs)
        if isinstance(n, Unary):
            return n.op == "-" and ok(n.operand)
        if isinstance(n, Const):
            return n.int_value is not None or dtype == "double" and not n.text.lower().endswith(("f", "l"))
        if isinstance(n, Access):
            data = containers.get(n.name)
            if n.name == target_array and not (column is not None and _reads_own_column(n, column)):
                return False
            return n.name not in scop.channels and isinstance(data, Array) and data.dtype.spelling == dtype
        if isinstance(n, Sym):
            data = containers.get(n.name)
            return isinstance(data, (Scalar, Symbol)) and n.name not in loop_vars and data.dtype.spelling == dtype
        return False

    return ok(e)


def _reads_own_column(a: Access, column: str) -> bool:
    """``a`` is ``T[e][column]``, ``e`` without ``column``."""
    return (len(a.indices) == 2 and a.indices[1] == Sym(column)
            and column not in ex.names(a.indices[0]))


def _is_rows_by_band(domain: isl.Set, i: int, j: int, k: int) -> bool:
    """Whether the domain is rows i between bounds on the parameters, and for each row j
    between affine bounds on i and the parameters, k between affine bounds on i and the
    parameters (trmm's ``k > i``), the two ranges independent of each other: one convex piece."""
    if domain.coalesce().n_basic_set() != 1 or domain.dim_min(i).n_piece() != 1 or domain.dim_max(i).n_piece() != 1:
        return False
    lo, hi = j_bounds(domain, i, j, k)
    if lo.n_piece() != 1 or hi.n_piece() != 1 or not (_unit_slope(lo) and _unit_slope(hi)):
        return False
    if any(b.n_piece() != 1 for b in k_bounds(domain, i, j, k)):
        return False
    rows_cols = only_through(domain, (i, j))
    rows_depth = only_through(domain, (i, k))
    return rows_cols.intersect(rows_depth).is_equal(domain)


def _unit_slope(bound: isl.PwAff) -> bool:
    """A bound of j that moves by at most one from row to row (i is the last parameter): the
    columns of a block of rows are then one interval, and every one is read by the loops."""
    ((_, aff),) = bound.get_pieces()
    slope = aff.get_coefficient_val(isl.dim_type.param, aff.dim(isl.dim_type.param) - 1).to_python()
    return abs(slope) <= 1


def j_bounds(domain: isl.Set, i: int, j: int, k: int) -> tuple[isl.PwAff, isl.PwAff]:
    """The least and greatest j of row i, as functions of the parameters and of i (a parameter
    named after it)."""
    return _bounds_per_row(domain, i, k)


def k_bounds(domain: isl.Set, i: int, j: int, k: int) -> tuple[isl.PwAff, isl.PwAff]:
    """The least and greatest k of row i, as functions of the parameters and of i (a parameter
    named after it)."""
    return _bounds_per_row(domain, i, j)


def deepest_k_run(scop: Scop, stmt: Statement, pattern: MatMulPattern) -> int | None:
    """The most values k takes in the statement, given the constant extents its arrays are
    declared with (None where they do not bound it)."""
    domain = scop.domain_within_extents(stmt)
    domain = domain.project_out(isl.dim_type.param, 0, domain.dim(isl.dim_type.param))
    if domain.is_empty():
        return None
    k = stmt.iterators.index(pattern.k)
    high, low = domain.dim_max_val(k), domain.dim_min_val(k)
    if not (high.is_int() and low.is_int()):
        return None
    return high.to_python() - low.to_python() + 1


def no_deeper_than(blocking: Blocking, values: int | None) -> Blocking:
    """``blocking`` with its k panel no deeper than k's ``values``: a panel past them moves
    nothing more, and gcc, which sees both the panel's bound and an array's, warns of a
    subscript past the array (-Warray-bounds) on the path no run takes."""
    if values is None or values >= blocking.depth or values < 1:
        return blocking
    return dataclasses.replace(blocking, depth=values)


def k_moves_with_rows(stmt: Statement, pattern: MatMulPattern) -> bool:
    """Whether the statement's k range moves with its row (a triangle along k)."""
    core = core_domain(stmt, pattern)
    i, j, k = _core_positions(stmt, pattern)
    n = core.dim(isl.dim_type.param)   # (i is the parameter after the others)
    return any(aff.get_coefficient_val(isl.dim_type.param, n).to_python() != 0
               for bound in k_bounds(core, i, j, k) for _, aff in bound.get_pieces())


def _bounds_per_row(domain: isl.Set, i: int, other: int) -> tuple[isl.PwAff, isl.PwAff]:
    """The bounds of the dimension that is neither ``i`` nor ``other`` (``other`` projected out),
    as functions of the parameters and of i."""
    name = domain.get_dim_name(isl.dim_type.set, i)
    rows = domain.project_out(isl.dim_type.set, other, 1)
    n = rows.dim(isl.dim_type.param)
    per_row = rows.move_dims(isl.dim_type.param, n, isl.dim_type.set, i - (1 if i > other else 0), 1)
    per_row = per_row.set_dim_name(isl.dim_type.param, n, name)
    return per_row.dim_min(0), per_row.dim_max(0)


def alone_at_top(rows, pattern: MatMulPattern, statements: list[Statement]) -> bool:
    """Whether the schedule ``rows`` sets the pattern's statement apart from every other
    statement (scalar rows) before any loop that another statement shares, except its batch
    loops: one row per batch iterator, outermost first, that is that iterator for the statement
    (code generation then names the loop after it, and the node inside reads it)."""
    stmt = pattern.statement
    iterators = next(s.iterators for s in statements if s.name == stmt)
    group = [s.name for s in statements]
    batch = list(pattern.batch)
    for row in rows:
        if len(group) == 1:
            break
        if row.kind == "scalar":
            value = row.coefficients[stmt][0]
            group = [s for s in group if row.coefficients[s][0] == value]
        elif any(any(row.coefficients[s][:-1]) for s in group) or len({row.coefficients[s][-1] for s in group}) > 1:
            if not batch or tuple(row.coefficients[stmt]) != tuple(
                    int(v == batch[0]) for v in iterators) + (0,):
                return False
            batch.pop(0)
    return len(group) == 1 and not batch


def batch_outermost(original: PlutoSchedule, statements: list[Statement], pattern: MatMulPattern) -> PlutoSchedule:
    """The original order with every statement apart, in textual order, inside the kernel's batch
    loops (a distribution there): what sets a batched kernel apart when the scheduler puts another
    loop outermost (doitgen's parallel q). Code generation checks it like any schedule."""
    cut = 2 * len(pattern.batch)    # the original rows: a scalar, then a loop, per depth
    order = sorted(statements, key=lambda s: s.position)
    apart = Row("scalar", {s.name: (n,) for n, s in enumerate(order)})
    return PlutoSchedule(original.rows[:cut] + [apart] + original.rows[cut:], log=original.log + [
        f"statements apart inside the batch loops of {pattern.statement}"])


def kernel_order_is_legal(deps: Dependences, stmt: Statement, pattern: MatMulPattern) -> bool:
    """Every dependence between two instances of the statement joins the same (i, j) at a larger
    k: then any order of (i, j) with ascending k for each keeps them all. Reads of the target's
    array by a right factor (trmm's ``B[k][j]``) are the exception ``_stale_reads_kept`` allows."""
    names = stmt.iterators
    src = ", ".join(names)
    dst = ", ".join(f"{v}_" for v in names)
    same_batch = "".join(f"{b}_ = {b} and " for b in pattern.batch)
    allowed = isl.Map(f"{{ {stmt.name}[{src}] -> {stmt.name}[{dst}] : {same_batch}"
                      f"{pattern.i}_ = {pattern.i} and {pattern.j}_ = {pattern.j} and {pattern.k}_ > {pattern.k} }}")
    allowed = allowed.union(_to_later_batch(stmt, pattern))
    own = isl.UnionSet.from_set(stmt.domain)
    among = deps.validity.intersect_domain(own).intersect_range(own)   # memory-based: any reordering
    stale = _stale_reads(stmt, pattern)
    if stale is not None:
        if not _stale_reads_kept(stmt, pattern, stale):
            return False
        among = among.subtract(isl.UnionMap.from_map(stale))
    return among.is_subset(isl.UnionMap.from_map(allowed))


def _to_later_batch(stmt: Statement, pattern: MatMulPattern) -> isl.Map:
    """Pairs of instances in different iterations of the batch loops, the first one earlier:
    the batch loops run in order, one call of the node in each."""
    names = stmt.iterators
    src = ", ".join(names)
    dst = ", ".join(f"{v}_" for v in names)
    later = isl.Map(f"{{ {stmt.name}[{src}] -> {stmt.name}[{dst}] : false }}")
    batch = pattern.batch
    for n, b in enumerate(batch):
        earlier = "".join(f"{c}_ = {c} and " for c in batch[:n])
        later = later.union(isl.Map(f"{{ {stmt.name}[{src}] -> {stmt.name}[{dst}] : {earlier}{b}_ > {b} }}"))
    return later


def _stale_reads(stmt: Statement, pattern: MatMulPattern) -> isl.Map | None:
    """Where a right factor reads an element of the target's array that the statement writes:
    each instance that reads it to each instance that writes it (None: no factor reads it)."""
    if not reads_target(pattern.rights, pattern.target):
        return None
    name = pattern.target.name
    relations = [(w, r) for w, r in stmt.accesses if r.get_tuple_name(isl.dim_type.out) == name]
    writes = [r for w, r in relations if w]
    factor_reads = [r for w, r in relations if not w and not any(r.is_equal(x) for x in writes)]
    stale = isl.Map.empty(isl.Space.map_from_domain_and_range(stmt.domain.get_space(), stmt.domain.get_space()))
    for read in factor_reads:
        for write in writes:
            stale = stale.union(read.apply_range(write.reverse()))
    return stale.intersect_domain(stmt.domain).intersect_range(stmt.domain)


def _stale_reads_kept(stmt: Statement, pattern: MatMulPattern, stale: isl.Map) -> bool:
    """Whether the node reads, for a right factor, the value the user's order read, where that is
    an element of the target's array: in the user's order no instance writes it before an
    instance reads it as a factor (so every such read sees the value from before the statement),
    and in the node's orders every read comes first too. The node packs the right factors of a
    k panel before it updates any cell in that panel, so a read at k comes before a write at a
    k that is not smaller; without panel memory it runs the reference loops (i, then k, then j),
    where a read comes first when the writer's (i, k) is not lexicographically smaller."""
    names = stmt.iterators
    src = ", ".join(names)
    dst = ", ".join(f"{v}_" for v in names)
    first_in_user_order = stmt.domain.lex_le_set(stmt.domain)
    i, k = pattern.i, pattern.k
    same_batch = " and ".join([f"{b}_ = {b}" for b in pattern.batch] + ["true"])
    first_in_node = isl.Map(f"{{ {stmt.name}[{src}] -> {stmt.name}[{dst}] : {same_batch} and {k}_ >= {k} and "
                            f"({i}_ > {i} or ({i}_ = {i} and {k}_ >= {k})) }}").union(_to_later_batch(stmt, pattern))
    return stale.is_subset(first_in_user_order.intersect(first_in_node))


def mark_name(pattern: MatMulPattern, blocking: Blocking, parallel: bool) -> str:
    return f"{MATMUL_MARK}:{pattern.statement}:{blocking.text}:{int(parallel)}"


def parse_mark_name(kind: str) -> tuple[str, Blocking, bool] | None:
    parts = kind.split(":")
    if len(parts) != 4 or parts[0] != MATMUL_MARK:
        return None
    return parts[1], Blocking.parse(parts[2]), parts[3] == "1"


def matmul_block(scop: Scop, stmt: Statement, pattern: MatMulPattern, blocking: Blocking, parallel: bool, bound_expr,
                 block_id: str) -> Block:
    """The statement's whole domain (for one iteration of its batch loops, whose variables the
    node reads) as one dataflow block around a MatMul node. ``bound_expr`` turns an isl
    piecewise affine function of the parameters (and of i, for the bounds of j) into an
    expression."""
    core = core_domain(stmt, pattern)
    i, j, k = _core_positions(stmt, pattern)
    lo, hi = j_bounds(core, i, j, k)
    k_lo, k_hi = k_bounds(core, i, j, k)
    extents = {
        pattern.i: Extent(pattern.i, bound_expr(core.dim_min(i)), ex.plus_one(bound_expr(core.dim_max(i)))),
        pattern.j: Extent(pattern.j, bound_expr(lo), ex.plus_one(bound_expr(hi))),
        pattern.k: Extent(pattern.k, bound_expr(k_lo), ex.plus_one(bound_expr(k_hi))),
    }
    nodes: list = []
    edges: list[Memlet] = []
    inputs: list[str] = []
    factors = pattern.lefts + pattern.rights
    reads = [a.name for e in factors for a in _accesses(e)] + [pattern.target.name]
    scalars = sorted({n.name for e in factors for n in ex.walk(e) if isinstance(n, Sym)})
    node_id = f"{block_id}.mm"
    seen: set[str] = set()
    for name in reads + scalars:
        if name in seen:
            continue
        seen.add(name)
        conn = f"in_{name}"
        inputs.append(conn)
        nodes.append(AccessNode(f"{node_id}.r.{name}", name))
        edges.append(Memlet(f"{node_id}.r.{name}", None, node_id, conn, name, _box(scop, stmt, pattern, name, False,
                                                                                 bound_expr)))
    target = pattern.target.name
    nodes.append(AccessNode(f"{node_id}.w.{target}", target))
    edges.append(Memlet(node_id, f"out_{target}", f"{node_id}.w.{target}", None, target,
                        _box(scop, stmt, pattern, target, True, bound_expr), wcr=pattern.op))
    node = MatMul(node_id, "matmul", tuple(inputs), (f"out_{target}",), (), extents[pattern.i], extents[pattern.j],
                  extents[pattern.k], pattern.linear(pattern.target), pattern.op, pattern.update,
                  tuple(map(pattern.linear, pattern.lefts)), tuple(map(pattern.linear, pattern.rights)),
                  pattern.dtype, blocking, parallel)
    nodes.insert(len(nodes) - 1, node)
    return Block(block_id, DataflowGraph(tuple(nodes), tuple(edges)), origin=stmt.block.origin)


def _accesses(e: Expr) -> list[Access]:
    return [n for n in ex.walk(e) if isinstance(n, Access)]


def _box(scop: Scop, stmt: Statement, pattern: MatMulPattern, name: str, write: bool, bound_expr) -> tuple:
    """The elements of ``name`` the statement touches in one batch iteration, as one range per
    dimension (a subscript in the batch variables alone: that one element)."""
    data = scop.sdfg.container_map[name]
    if not isinstance(data, Array):
        return ()
    n = len(pattern.batch)
    touched = None
    for is_write, relation in stmt.accesses:
        if relation.get_tuple_name(isl.dim_type.out) == name and is_write == write:
            image = relation.project_out(isl.dim_type.in_, 0, n).range()
            touched = image if touched is None else touched.union(image)
    rows = dict(pattern.flat).get(name)
    if rows is not None:   # (a flat array: from the first row's first element to the last's last)
        first = Binary("+", Binary("*", bound_expr(touched.dim_min(0)), Sym(rows)), bound_expr(touched.dim_min(1)))
        last = Binary("+", Binary("*", bound_expr(touched.dim_max(0)), Sym(rows)), bound_expr(touched.dim_max(1)))
        return (Range(first, ex.plus_one(last), Const("1")),)
    edges = stmt.block.graph.writes() if write else stmt.block.graph.reads()
    subscripts = {tuple(e.subset) for e in edges if e.data == name}
    others = set(stmt.iterators) - set(pattern.batch)
    subset = []
    for d in range(data.rank):
        same = {sub[d] for sub in subscripts}
        if n and len(same) == 1 and not ex.names(next(iter(same))) & others:
            (sub,) = same
            subset.append(Range(sub, ex.plus_one(sub), Const("1")))
        else:
            subset.append(Range(bound_expr(touched.dim_min(d)), ex.plus_one(bound_expr(touched.dim_max(d))), Const("1")))
    return tuple(subset)
