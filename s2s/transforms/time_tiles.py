"""Whether time tiles pay: where the data a stencil sweeps each time step leave the largest cache
that streams much faster than memory.

A time-tiled stencil (a skewed band whose point loops run one statement at a time, vectorized:
``s2s/schedule/statement_split.py``) reads each tile's data from the L1 and L2 caches for many
time steps, where the user's order streams all of its arrays once per time step. That streaming
runs at the speed of the cache the arrays fit in; the tiles' partial edges, shorter vector
loops and skewed bounds cost a share of the time whatever the sizes. So the tiles gain where the
arrays come from memory (or from a cache that streams about as slowly as memory does, as a
server's last-level cache can from one core), and lose where they stay within this core's share
of a cache that is much faster (``machine_options.fast_cache``). Where the arrays' sizes are
parameters, a test at run time chooses (``data_test``).
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from s2s.analysis.scop import Scop
from s2s.ir.data import Array
from s2s.ir.expr import Binary, Const, Expr
from s2s.transforms.work_guard import set_work


@dataclass(frozen=True)
class FastCache:
    """One core's share of the largest cache that streams much faster than memory."""

    bytes: int
    level: str   # "L3", "L2": what the report names


DEFAULT_FAST_CACHE = FastCache(8 * 1024 * 1024, "the last-level cache")   # where the caches are not known


def data_bytes(scop: Scop, domains: dict[str, isl.Set]) -> int | None:
    """Bytes of the arrays the SCoP's statements touch over ``domains`` (per array, the box that
    bounds the elements its accesses reach, times the element's size); None where a box is not
    bounded by constants or an element's size is not known."""
    total = 0
    for array, elements in _reached(scop, domains):
        if array.dtype.bits <= 0:
            return None
        size = array.dtype.bits // 8
        for d in range(elements.dim(isl.dim_type.set)):
            low, high = elements.dim_min_val(d), elements.dim_max_val(d)
            if not (low.is_int() and high.is_int()):
                return None
            size *= max(high.to_python() - low.to_python() + 1, 0)
        total += size
    return total


def data_test(scop: Scop, limit_bytes: int) -> Expr | None:
    """The run-time condition that the arrays the SCoP's statements touch exceed ``limit_bytes``
    (per array, a bound of the elements its accesses reach, in the parameters, times the
    element's size); None where no such bound is known."""
    total: Expr | None = None
    for array, elements in _reached(scop, {st.name: st.domain for st in scop.statements}):
        work = set_work([elements], scop.context)
        count = work.expr if work.count is None else Const(f"{float(work.count):.1f}")
        if array.dtype.bits <= 0 or count is None:
            return None
        size = Binary("*", Const(f"{array.dtype.bits // 8}.0"), count)
        total = size if total is None else Binary("+", total, size)
    return None if total is None else Binary(">", total, Const(f"{float(limit_bytes):.1f}"))


def _reached(scop: Scop, domains: dict[str, isl.Set]) -> list[tuple[Array, isl.Set]]:
    """Per array the statements touch over ``domains``, the elements their accesses reach
    (scalars live in registers and do not count)."""
    reached: dict[str, isl.Set] = {}
    for st in scop.statements:
        for _, access in st.accesses:
            name = access.get_tuple_name(isl.dim_type.out)
            image = access.intersect_domain(domains[st.name]).range()
            reached[name] = image if name not in reached else reached[name].union(image)
    return [(array, elements) for name, elements in reached.items()
            if isinstance(array := scop.sdfg.container_map.get(name), Array)]


def byte_size(size: int) -> str:
    """``size`` bytes in MiB, or KiB below one MiB."""
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 2**10:.0f} KiB"
