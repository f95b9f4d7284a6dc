"""The order of the point loops inside a tile: the innermost one should walk memory with stride 1
(and be parallel, so it vectorizes). Any order is legal: the members of a permutable band may be
permuted freely once the tile loops around them are fixed.

For each band member we compute, per statement, the direction it moves in the iteration space
(the column of the inverse of the band's coefficient matrix), and score each access of the
statement along it: unchanged (a register reuses it), stride 1 (a vector loads it), or strided.
"""
from __future__ import annotations

from fractions import Fraction

import islpy as isl

from s2s.analysis.scop import Statement
from s2s.schedule.pluto import Row

INVARIANT, STRIDE_ONE, STRIDED = 1, 2, -4   # per access; a write counts twice (load and store)
PARALLEL_BONUS = 2                           # per statement: the loop can be a SIMD loop


def innermost_member(stmts: list[Statement], members: list[Row]) -> int:
    """Index of the member to run innermost in the point band (the last one on a tie)."""
    scores = [0] * len(members)
    for st in stmts:
        directions = member_directions(st, members)
        if directions is None:
            continue
        subscripts = [(w, access_subscripts(m, st)) for w, m in st.accesses]
        for j, d in enumerate(directions):
            scores[j] += _score_along(subscripts, d)
            if members[j].parallel:
                scores[j] += PARALLEL_BONUS
    best = max(scores)
    return max(j for j, s in enumerate(scores) if s == best)


def member_to_sink(stmts: list[Statement], rows: list[Row], members: list[Row], end: int) -> int | None:
    """The parallel member of a band (``members``, which ``rows[end:]`` follow) whose point loop
    should run below the loops of the later bands too, because it walks memory better than the
    innermost loop there does (symm: ``C[k][j]`` along j rather than k); None when none does."""
    deeper = [st for st in stmts if any(r.kind == "hyperplane" and any(r.coefficients[st.name][:-1])
                                        for r in rows[end:])]
    if not deeper:
        return None
    now = innermost_locality(deeper, rows)
    if now is None:
        return None
    best, best_score = None, now
    for j, m in enumerate(members):
        if not m.parallel:
            continue
        score = innermost_locality(deeper, [r for r in rows if r is not m] + [m])
        if score is not None and score > best_score:
            best, best_score = j, score
    return best


def innermost_locality(stmts: list[Statement], rows: list[Row]) -> int | None:
    """How well the innermost loop of a schedule walks memory: the access scores of the deepest
    statements along the direction of their innermost varying row (None when a statement's rows
    do not determine it)."""
    depth = max((len(st.iterators) for st in stmts), default=0)
    total = 0
    for st in stmts:
        if len(st.iterators) != depth or depth == 0:
            continue
        directions = member_directions(st, loops_of(st, rows))
        if directions is None:
            return None
        total += _score_along([(w, access_subscripts(m, st)) for w, m in st.accesses], directions[-1])
    return total


def reads_an_array(stmts: list[Statement]) -> bool:
    """Whether some statement reads an element of an array (not only scalars)."""
    return any(not is_write and access.dim(isl.dim_type.out) > 0 for st in stmts for is_write, access in st.accesses)


def loops_of(st: Statement, rows: list[Row]) -> list[Row]:
    """The hyperplanes of ``rows`` that make a loop around ``st``: those that move it, less any
    that only repeats earlier ones (a linear combination of them, as the original order's rows
    appended after a band may be: constant once those are fixed)."""
    import numpy as np  # imported on use: s2s-cc's start-up time matters

    n = len(st.iterators)
    kept: list[Row] = []
    for r in rows:
        if r.kind != "hyperplane" or not any(r.coefficients[st.name][:n]):
            continue
        matrix = np.array([list(x.coefficients[st.name][:n]) for x in kept + [r]], dtype=float)
        if np.linalg.matrix_rank(matrix) == len(kept) + 1:
            kept.append(r)
    return kept


def member_directions(st: Statement, members: list[Row]) -> list[list[Fraction]] | None:
    """Per member: the change of ``st``'s iterators when that member's loop advances by one and
    the other members stay; None when the band does not determine it (fewer members than loops,
    or a singular matrix)."""
    n = len(st.iterators)
    rows = [list(r.coefficients[st.name][:n]) for r in members]
    if n == 0 or len(rows) != n:
        return None
    import numpy as np  # imported on use: s2s-cc's start-up time matters

    matrix = np.array(rows, dtype=float)
    if abs(np.linalg.det(matrix)) < 0.5:
        return None
    inverse = np.linalg.inv(matrix)
    return [[Fraction(float(inverse[v][j])).limit_denominator(64) for v in range(n)] for j in range(n)]


def access_subscripts(access: isl.Map, st: Statement) -> list[list[int]] | None:
    """The iterator coefficients of each subscript of ``access`` (None if not one affine piece)."""
    try:
        affs = one_piece(isl.PwMultiAff.from_map(access))
    except isl.Error:
        return None
    if affs is None or any(aff.dim(isl.dim_type.div) for aff in affs):
        return None
    return [[aff.get_coefficient_val(isl.dim_type.in_, v).to_python() for v in range(len(st.iterators))]
            for aff in affs]


def one_piece(pma: isl.PwMultiAff) -> list[isl.Aff] | None:
    """Each output of ``pma`` as one affine function, or None where it has several pieces."""
    if pma.n_piece() != 1:
        return None
    out = []
    for k in range(pma.dim(isl.dim_type.out)):
        pieces: list[isl.Aff] = []
        pma.get_pw_aff(k).foreach_piece(lambda _set, aff: pieces.append(aff))
        if len(pieces) != 1:
            return None
        out.append(pieces[0])
    return out


def _score_along(subscripts: list[tuple[bool, list[list[int]] | None]], direction: list[Fraction]) -> int:
    """One statement's accesses (is_write, subscripts) scored along ``direction``."""
    return sum(_access_score(subs, direction) * (2 if is_write else 1) for is_write, subs in subscripts
               if subs is not None)


def moves_along(subscript: list[int], direction: list[Fraction]) -> Fraction:
    """How far one subscript (its iterator coefficients) moves when the loops take ``direction``."""
    return sum((c * d for c, d in zip(subscript, direction)), Fraction(0))


def element(access: isl.Map, st: Statement) -> tuple[str, str]:
    """A key naming the element (array and subscripts) that ``access`` of ``st`` touches."""
    return access.get_tuple_name(isl.dim_type.out), str(access_subscripts(access, st))


def _access_score(subscripts: list[list[int]], direction: list[Fraction]) -> int:
    moves = [moves_along(sub, direction) for sub in subscripts]
    if all(m == 0 for m in moves):
        return INVARIANT
    if all(m == 0 for m in moves[:-1]) and abs(moves[-1]) == 1:
        return STRIDE_ONE
    return STRIDED


def chain_stores(stmts: list[Statement], members: list[Row], inner: int) -> int | None:
    """Where member ``inner``'s loop carries a chain of updates of one element (some statement
    reads and writes an element that stays the same along it: ``w[i]`` in the loop over j), how
    many elements the loop stores to per iteration; None where it carries no such chain. (With
    one store, compilers keep the element in a register from one iteration to the next; with
    several, they cannot tell it from the arrays the loop reads, and reload it each time.)"""
    updates = False
    stores: set[tuple[str, str]] = set()
    for st in stmts:
        directions = member_directions(st, members)
        if directions is None:
            return None
        along = directions[inner]
        reads = {element(a, st) for is_write, a in st.accesses if not is_write}
        for is_write, access in st.accesses:
            if not is_write:
                continue
            subscripts = access_subscripts(access, st)
            if subscripts is None:
                return None
            stored = element(access, st)
            stores.add(stored)
            if stored in reads and all(moves_along(sub, along) == 0 for sub in subscripts):
                updates = True
    return len(stores) if updates else None


def copies_read_neighbours(stmts: list[Statement], row: Row) -> bool:
    """Whether copies of ``row``'s loop, jammed into the loops inside it, read neighbouring
    elements there: some array read that moves with those loops has the row's iterator, by one,
    in its last subscript (gemver's ``A[j][i]``, ``i`` jammed over ``j``)."""
    for st in stmts:
        n = len(st.iterators)
        along = list(row.coefficients[st.name][:n])
        if sum(1 for c in along if c) != 1:
            continue
        v = next(k for k, c in enumerate(along) if c)
        for is_write, access in st.accesses:
            subscripts = None if is_write else access_subscripts(access, st)
            if not subscripts or abs(subscripts[-1][v]) != 1:
                continue
            if any(c for sub in subscripts for k, c in enumerate(sub) if k != v):
                return True
    return False


def reaches_read_once(stmts: list[Statement]) -> bool:
    """Whether the innermost loop of some statements reads an element that stays the same along
    it and that a write of theirs reaches at one iteration of it (Floyd-Warshall's ``path[i][j]``
    reaching ``path[i][k]`` at ``j == k``): regenerated, that loop is split there and each piece
    keeps the element in a register (``s2s.transforms.loop_split``); as the user wrote it,
    compilers reload the element in every iteration, or test on every run of the loop whether
    the row it writes overlaps it."""
    by_loops: dict[tuple, list[Statement]] = {}
    for st in stmts:
        if st.iterators:
            by_loops.setdefault(tuple(id(l) for l in st.loops), []).append(st)
    for group in by_loops.values():
        v = len(group[0].iterators) - 1
        for writer in group:
            for is_write, write in writer.accesses:
                subs = access_subscripts(write, writer) if is_write else None
                if subs is None or not any(abs(sub[v]) == 1 for sub in subs):
                    continue
                for reader in group:
                    if _reads_as_invariant(reader, write, writer, v):
                        return True
    return False


def _reads_as_invariant(reader: Statement, write: isl.Map, writer: Statement, v: int) -> bool:
    """Whether ``reader`` reads, at a subscript that loop ``v`` does not move, an element that
    ``write`` of ``writer`` (in the same loops) reaches."""
    array = write.get_tuple_name(isl.dim_type.out)
    name = writer.domain.get_tuple_name()
    for is_write, read in reader.accesses:
        if is_write or read.get_tuple_name(isl.dim_type.out) != array:
            continue
        subs = access_subscripts(read, reader)
        if subs is None or any(sub[v] for sub in subs):
            continue
        read = read.set_tuple_name(isl.dim_type.in_, name)
        both = writer.domain.intersect(reader.domain.set_tuple_name(name))
        if not write.intersect(read).intersect_domain(both).is_empty():
            return True
    return False
