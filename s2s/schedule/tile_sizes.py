"""Tile sizes from a cache model: the data one tile touches should fit in a share of the cache.

A tile of sizes ``T`` touches, per array, about the product of the sizes of the band members its
subscripts move with (``C[i][j]`` in an (i, j, k) band: ``Ti * Tj`` elements). Starting from
``BASE`` per member, the innermost point loop (the stride-1 one) grows first, for long vector
loops, then the others, doubling while the footprint stays within ``budget_bytes`` (half the
per-core L2 by default: the other half for what the tile evicts and for the next tile).

A band whose loops below the outermost one touch no more than that untiled
(``untiled_footprint``: gemver's ``w[i] += A[i][j] * x[j]`` keeps its 16 KB of ``x`` in cache
from one i to the next) has all its reuse in cache already and is left untiled: tiles would
only cut the rows of ``A`` into short pieces (gemver on one core ran at 0.64x of gcc with
512 x 64 tiles on an AMD Zen 5, at 1.0x untiled). Not where the innermost loop walks an array
across its rows and the lines it touches do not all fit in L1: tiles keep them there for the
next iterations (bicg's ``A[j][i]`` with j innermost, ``A`` a 2100 x 1900 array). Extents that
are run-time parameters are taken where the arrays' declared extents bound them
(``Scop.domains_within_extents``): ``L[2000][2000]`` with ``i < n`` runs i below 2000. Where
nothing bounds them (flat pointers) and the band is one statement's sweep along rows with no
loop around it (a stencil step over a grid, a filter over an image), they are taken as
``ASSUMED_EXTENT`` (``sweep_footprint``): its rows stay in cache untiled, as those of a known
length do. A sweep over a grid of three such extents (``grid_sweep``) streams its planes
through the last-level cache untiled.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import islpy as isl

from s2s.analysis.scop import Statement
from s2s.schedule.pluto import Row
from s2s.schedule.point_order import access_subscripts, loops_of, member_directions

BASE = 32
MAX_INNERMOST = 512
MAX_OTHER = 256
ELEMENT_BYTES = 8            # doubles; a float tile is then half as large as assumed
LINE_BYTES = 64
DEFAULT_TILE_BUDGET = 512 * 1024   # where the machine's caches are not known: half a 1 MiB L2
DEFAULT_L1_BYTES = 32 * 1024
# a size known only at run time, as the cache model takes it for a sweep along rows (the side of
# a large image or grid)
ASSUMED_EXTENT = 4096


def tile_sizes(stmts: list[Statement], members: list[Row], innermost: int, budget_bytes: int) -> list[int]:
    n = len(members)
    moved_by = _arrays_moved_by(stmts, members)
    sizes = [BASE] * n
    if moved_by is None:
        return sizes

    def footprint(s: list[int]) -> int:
        return _footprint(moved_by, s)

    order = [innermost] + [j for j in range(n) if j != innermost]
    for j in order:
        cap = MAX_INNERMOST if j == innermost else MAX_OTHER
        while sizes[j] * 2 <= cap:
            grown = sizes[:j] + [sizes[j] * 2] + sizes[j + 1:]
            if footprint(grown) > budget_bytes:
                break
            sizes = grown
    return sizes


@dataclass(frozen=True)
class Footprint:
    """Bytes that one iteration of a band's outermost loop touches, untiled: what must stay in
    cache for the reuse that loop carries, the farthest reuse of the band; ``strided``: the part
    of it that the innermost loop walks across rows (a cache line per element, each line used
    again only by the next iterations of an outer loop, so from L1 only if they all fit there)."""

    total: int
    strided: int


@dataclass(frozen=True)
class _Walk:
    """How the band's loops move one access: ``moved``, the members it moves with;
    ``across_rows``, whether the innermost one moves it in another subscript than the last."""

    array: str
    moved: frozenset[int]
    across_rows: bool


@dataclass(frozen=True)
class FootprintTerm:
    """One way a band moves an access, as the untiled footprint counts it: ``bytes`` (a line
    where it walks across rows, else an element) times the extents of ``members``."""

    bytes: int
    members: frozenset[int]
    across_rows: bool


def footprint_terms(stmts: list[Statement], members: list[Row], innermost: int,
                    outer: list[Row] | None = None) -> list[FootprintTerm] | None:
    """The terms of ``untiled_footprint`` (None where an access is not known): one iteration of
    the band's outermost loop (the first member that is not ``innermost``) touches, per term,
    the product of the extents of its members."""
    walks = _walks(stmts, members, innermost, outer or [])
    if not walks:
        return None
    first = next(j for j in range(len(members)) if j != innermost)
    return [FootprintTerm(LINE_BYTES if w.across_rows else ELEMENT_BYTES, frozenset(w.moved) - {first}, w.across_rows)
            for w in sorted(walks, key=lambda w: (w.array, sorted(w.moved), w.across_rows))]


@dataclass(frozen=True)
class UnknownFootprint:
    """A band tiled because its untiled footprint is not known when compiling (extents that
    are parameters): untiled, it would keep its reuse in cache where its ``terms`` add up to at
    most ``budget_bytes`` and those across rows to at most ``l1_bytes``, which only the sizes
    met at run time tell."""

    stmts: tuple[Statement, ...]
    members: tuple[Row, ...]
    terms: tuple[FootprintTerm, ...]
    budget_bytes: int
    l1_bytes: int


def untiled_footprint(stmts: list[Statement], members: list[Row], innermost: int,
                      domains: dict[str, isl.Set] | None = None, outer: list[Row] | None = None) -> Footprint | None:
    """The band's footprint untiled, with ``innermost`` innermost, over the statements'
    ``domains`` (default: their own; a SCoP's domains within its arrays' extents bound sizes
    that are parameters); None where an extent or an access is not known. ``outer``: the rows
    of the schedule before the band, whose loops stay put while the band's run (Floyd-Warshall's
    k around its band over i and j)."""
    extents = [_extent(m, stmts, domains) for m in members]
    terms = footprint_terms(stmts, members, innermost, outer)
    if None in extents or not terms:
        return None
    total = strided = 0
    for term in terms:
        size = term.bytes
        for j in term.members:
            size *= extents[j]
        total += size
        strided += size if term.across_rows else 0
    return Footprint(total, strided)


def _walks(stmts: list[Statement], members: list[Row], innermost: int,
           outer: list[Row] | None = None) -> set[_Walk] | None:
    """The distinct ways the band moves the statements' accesses (None: an access is not known),
    the loops of the ``outer`` rows held still."""
    walks: set[_Walk] = set()
    for st in stmts:
        around = loops_of(st, outer) if outer else []
        directions = member_directions(st, around + members)
        if directions is None:
            continue      # fewer loops than the band: it moves with members it shares
        directions = directions[len(around):]
        for _, access in st.accesses:
            subscripts = _moving_subscripts(access, st)
            if subscripts is None:
                return None
            moves = [{j for j, d in enumerate(directions) if sum(c * x for c, x in zip(sub, d))}
                     for sub in subscripts]
            moved = frozenset().union(*moves)
            across_rows = bool(moves) and innermost in moved and innermost not in moves[-1]
            walks.add(_Walk(access.get_tuple_name(isl.dim_type.out), moved, across_rows))
    return walks


def _moving_subscripts(access: isl.Map, st: Statement) -> list[list[Fraction]] | None:
    """The iterator coefficients of each subscript of ``access``, as the cache model needs them
    (which loops move it, and by about how much): ``floor(e / d)`` as ``e / d``; of pieces, per
    subscript and loop the largest coefficient of any piece (a clamped row,
    ``i / 2 + 1 < m ? i / 2 + 1 : m - 1``, moves with i). None where isl cannot say."""
    exact = access_subscripts(access, st)
    if exact is not None:
        return [[Fraction(c) for c in sub] for sub in exact]
    try:
        pma = isl.PwMultiAff.from_map(access)
    except isl.Error:
        return None
    n = len(st.iterators)
    merged: list[list[Fraction]] = []

    def piece(_set: isl.Set, ma: isl.MultiAff) -> None:
        rows = [_rational_coefficients(ma.get_at(k), n) for k in range(ma.dim(isl.dim_type.out))]
        merged[:] = rows if not merged else [[a if abs(a) >= abs(b) else b for a, b in zip(old, new)]
                                             for old, new in zip(merged, rows)]

    pma.foreach_piece(piece)
    return merged or None


def _rational_coefficients(aff: isl.Aff, n: int) -> list[Fraction]:
    coefficients = [Fraction(str(aff.get_coefficient_val(isl.dim_type.in_, v))) for v in range(n)]
    for d in range(aff.dim(isl.dim_type.div)):
        times = Fraction(str(aff.get_coefficient_val(isl.dim_type.div, d)))
        if times:
            inner = _rational_coefficients(aff.get_div(d), n)
            coefficients = [c + times * x for c, x in zip(coefficients, inner)]
    return coefficients


def _footprint(moved_by: dict[str, set[int]], sizes: list[int]) -> int:
    total = 0
    for members_of_array in moved_by.values():
        size = ELEMENT_BYTES
        for j in members_of_array:
            size *= sizes[j]
        total += size
    return total


def _extent(member: Row, stmts: list[Statement], domains: dict[str, isl.Set] | None = None) -> int | None:
    """How many values ``member`` takes on the statements' instances (None: not a constant)."""
    bounds = member_range(member, stmts, domains)
    return None if bounds is None else bounds[1] - bounds[0] + 1


def sweep_footprint(stmts: list[Statement], members: list[Row], innermost: int,
                    domains: dict[str, isl.Set]) -> Footprint | None:
    """``untiled_footprint`` of a band of two loops whose extents are known only at run time
    (and any of constant extents: an image's channels), taking them as at most ASSUMED_EXTENT,
    where it sweeps along rows (no access walks across them): a filter's or a stencil step's
    reuse, between neighbouring rows, stays in cache untiled, and so does a map over pixels
    that stores several planes (statements that each write an element per point). None for
    any other band."""
    if len(members) < 2 or len(stmts) > 1 and not all(_maps_along(st, members, innermost) for st in stmts):
        return None
    if sum(_extent(m, stmts, domains) is None for m in members) > 2:
        return None
    bounded = {}
    for name, domain in domains.items():
        for i in range(domain.dim(isl.dim_type.param)):
            domain = domain.lower_bound_val(isl.dim_type.param, i, 0)
            domain = domain.upper_bound_val(isl.dim_type.param, i, ASSUMED_EXTENT)
        bounded[name] = domain
    footprint = untiled_footprint(stmts, members, innermost, bounded)
    return footprint if footprint is not None and footprint.strided == 0 else None


def grid_sweep(stmts: list[Statement], members: list[Row], innermost: int,
               domains: dict[str, isl.Set]) -> bool:
    """Whether the band is one sweep over a grid of three or more run-time extents: every
    statement's loops are the band's, each writes an element per point, and no access walks
    across rows. Its reuse is between neighbouring points and planes (a stencil's), which
    reach it from the last-level cache untiled, as it streams; tiles would cut its rows into
    short pieces for reuse it has anyway."""
    if len(members) < 3 or sum(_extent(m, stmts, domains) is None for m in members) <= 2:
        return False
    for st in stmts:
        if len(st.iterators) != len(members):
            return False
        for is_write, access in st.accesses:
            if is_write and not access.intersect_domain(st.domain).is_injective():
                return False
    terms = footprint_terms(stmts, members, innermost)
    return terms is not None and not any(t.across_rows for t in terms)


def _maps_along(st: Statement, members: list[Row], innermost: int) -> bool:
    """Whether every element ``st`` writes moves with the innermost member (a map over the sweep's
    points, not a sum along its rows, whose tiles keep the sums' row in L1)."""
    directions = member_directions(st, members)
    if directions is None:
        return False
    for is_write, access in st.accesses:
        subscripts = _moving_subscripts(access, st) if is_write else None
        if is_write and (subscripts is None or not any(
                sum(c * x for c, x in zip(sub, directions[innermost])) for sub in subscripts)):
            return False
    return True


def member_range(member: Row, stmts: list[Statement],
                 domains: dict[str, isl.Set] | None = None) -> tuple[int, int] | None:
    """The least and greatest value of ``member`` on the statements' instances (in ``domains``
    where given; None: not constants)."""
    low = high = None
    for st in stmts:
        domain = st.domain if domains is None else domains[st.name]
        c = member.coefficients[st.name]
        value = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(st.domain.get_space()))
        for pos, a in enumerate(c[:-1]):
            value = value.set_coefficient_val(isl.dim_type.in_, pos, a)
        value = value.set_constant_val(c[-1])
        lo, hi = domain.min_val(value), domain.max_val(value)
        if not (lo.is_int() and hi.is_int()):
            return None
        low = lo.to_python() if low is None else min(low, lo.to_python())
        high = hi.to_python() if high is None else max(high, hi.to_python())
    return None if low is None else (low, high)


def _arrays_moved_by(stmts: list[Statement], members: list[Row]) -> dict[str, set[int]] | None:
    """Per array: the members along which some access to it moves (None: not known)."""
    walks = _walks(stmts, members, 0)
    if walks is None:
        return None
    out: dict[str, set[int]] = {}
    for walk in walks:
        out.setdefault(walk.array, set()).update(walk.moved)
    return out or None
