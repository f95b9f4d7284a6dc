"""Flat grids: ``u[(k * ny + j) * nx + i]``, a three-dimensional grid of ``nz x ny x nx``
points in one buffer, as scientific codes write it (often through a macro ``IDX(i, j, k)``, or
expanded as ``k * ny * nx + j * nx + i``).

Expanded, the subscript has products of the extents and a loop variable (not affine).
``GridLayout.split`` takes it apart from the innermost extent out: the terms with ``nx`` are the
outer part, divided by ``nx``, the others the innermost index; then the same for ``ny`` in the
outer part. The array is then modelled as ``u[k][j][i]``, exact where ``0 <= j < ny`` and
``0 <= i < nx`` on every access (which the SCoP checks on its domains, or assumes and tests at
run time, as for ``A[i * n + j]``). Two extents and more; a single one is ``split_linearized``'s,
a constant innermost one (an image's channels) ``split_channels``'.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from s2s.analysis.channels import Monomial, expression_of, polynomial
from s2s.ir import expr as ex


@dataclass(frozen=True)
class GridLayout:
    """``A[e0][e1]...[ed]`` at ``((e0 * extents[0] + e1) * extents[1] + ...) + ed``: the
    extents (parameters) from the outermost in."""

    extents: tuple[str, ...]

    def split(self, e: ex.Expr, inside: frozenset[str] = frozenset()) -> tuple[ex.Expr, ...] | None:
        """``e``'s indices in this layout (None where ``e`` is not of its form: an index that is
        not affine once the extents are taken out). An extent alone among the terms (``-nx`` of
        ``(j - 1) * nx``) is a step of the index outside it, or for the extents in ``inside``,
        part of the index it is next to (``(k * ny + ny - 1) * nx + i``: the last row, j = ny -
        1)."""
        poly = polynomial(e)
        if poly is None:
            return None
        indices: list[dict[Monomial, int]] = []
        for extent in reversed(self.extents):
            outer, index = _peel(poly, extent, extent in inside)
            if not _affine(index):
                return None
            indices.append(index)
            poly = outer
        if not _affine(poly):
            return None
        indices.append(poly)
        return tuple(expression_of(p) for p in reversed(indices))

    def address(self, indices: Iterable[ex.Expr]) -> ex.Expr:
        """The flat subscript of the element at ``indices``."""
        first, *rest = indices
        out = first
        for extent, index in zip(self.extents, rest):
            out = ex.Binary("+", ex.Binary("*", out, ex.Sym(extent)), index)
        return out


def grid_layout(subscripts: Iterable[ex.Expr], params: tuple[str, ...]) -> GridLayout | None:
    """The layout of two or more parametric extents in which every one of ``subscripts`` (all
    of one array's) splits, None where there is none. The extents are read from the subscript
    that shows them in an order (``j * nx`` besides ``k * ny * nx``: ``nx`` is the inner one)."""
    subscripts = list(subscripts)
    layout = None
    for e in subscripts:
        found = _extents(e, params)
        if found is None:
            return None
        found = max(found, _written_extents(e, params), key=len)
        if len(found) > (0 if layout is None else len(layout.extents)):
            layout = GridLayout(found)
    if layout is None or len(layout.extents) < 2:
        return None
    if any(layout.split(e) is None for e in subscripts):
        return None
    return layout


def _extents(e: ex.Expr, params: tuple[str, ...]) -> tuple[str, ...] | None:
    """The extents ``e`` shows from the outermost in (as far as they are unambiguous), None where
    it is not a polynomial in affine parts and parameters."""
    poly = polynomial(e)
    if poly is None:
        return None
    extents: list[str] = []
    while any(len(m) > 1 for m in poly):
        wide = [m for m in poly if len(m) > 1]
        shared = set.intersection(*(set(m) & set(params) for m in wide))
        if len(shared) != 1:   # (``k * ny * nx`` alone: which one is the inner extent is not said)
            break
        extent = shared.pop()
        poly, index = _peel(poly, extent)
        if not _affine(index):
            return None
        extents.append(extent)
    return tuple(reversed(extents))


def _written_extents(e: ex.Expr, params: tuple[str, ...]) -> tuple[str, ...]:
    """The extents ``e`` shows by the way it is written, from the outermost in: ``(k * ny + j) *
    nx + i`` (an ``IDX(i, j, k)`` macro's) multiplies by ``nx`` last, whatever ``j`` is (``0``
    at a boundary, where the expanded terms alone do not tell ``nx`` from ``ny``)."""
    terms: list[ex.Expr] = []

    def flatten(x: ex.Expr) -> None:
        if isinstance(x, ex.Binary) and x.op in "+-":
            flatten(x.lhs)
            terms.append(x.rhs)
        elif isinstance(x, ex.Cast):
            flatten(x.operand)
        else:
            terms.append(x)

    flatten(e)
    factors = {side.name for t in terms if isinstance(t, ex.Binary) and t.op == "*"
               for side in (t.lhs, t.rhs) if isinstance(side, ex.Sym) and side.name in params}
    if len(factors) != 1:
        return ()
    extent = factors.pop()
    outer = [other for t in terms if isinstance(t, ex.Binary) and t.op == "*"
             for side, other in ((t.rhs, t.lhs), (t.lhs, t.rhs)) if side == ex.Sym(extent)]
    return (*max((_written_extents(o, params) for o in outer), key=len, default=()), extent)


def _peel(poly: dict[Monomial, int], extent: str,
          alone_inside: bool = False) -> tuple[dict[Monomial, int], dict[Monomial, int]]:
    """``poly`` as ``outer * extent + index``: the terms with ``extent`` (one factor of it taken
    out), and the others (with ``alone_inside``, ``extent`` alone too)."""
    outer: dict[Monomial, int] = {}
    index: dict[Monomial, int] = {}
    for m, c in poly.items():
        if extent in m and not (alone_inside and m == (extent,)):
            k = m.index(extent)
            rest = m[:k] + m[k + 1:]
            outer[rest] = outer.get(rest, 0) + c
        else:
            index[m] = c
    return {m: c for m, c in outer.items() if c}, index


def _affine(poly: dict[Monomial, int]) -> bool:
    return all(len(m) <= 1 for m in poly)
