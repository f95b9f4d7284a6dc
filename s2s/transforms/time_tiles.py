"""Whether time tiles pay: where the data a stencil sweeps each time step leave the last-level
cache.

A time-tiled stencil (a skewed band whose point loops run one statement at a time, vectorized:
``s2s/schedule/statement_split.py``) reads each tile's data from the L1 and L2 caches for many
time steps, where the user's order streams all of its arrays once per time step. That streaming
runs at the speed of the cache the arrays fit in; the tiles' partial edges, shorter vector
loops and skewed bounds cost a share of the time whatever the sizes. So the tiles gain where the
arrays come from memory (or from a last-level cache shared with another core's traffic), and
lose where they stay within this core's share of the last-level cache.
"""
from __future__ import annotations

import islpy as isl

from s2s.analysis.scop import Scop
from s2s.ir.data import Array

DEFAULT_LLC_BYTES = 8 * 1024 * 1024   # a core's share of the last-level cache, where it is not known


def data_bytes(scop: Scop, domains: dict[str, isl.Set]) -> int | None:
    """Bytes of the arrays the SCoP's statements touch over ``domains`` (per array, the box that
    bounds the elements its accesses reach, times the element's size); None where a box is not
    bounded by constants or an element's size is not known."""
    reached: dict[str, isl.Set] = {}
    for st in scop.statements:
        for _, access in st.accesses:
            name = access.get_tuple_name(isl.dim_type.out)
            image = access.intersect_domain(domains[st.name]).range()
            reached[name] = image if name not in reached else reached[name].union(image)
    total = 0
    for name, elements in reached.items():
        array = scop.sdfg.container_map.get(name)
        if not isinstance(array, Array):
            continue    # (scalars live in registers)
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


def byte_size(size: int) -> str:
    """``size`` bytes in MiB, or KiB below one MiB."""
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 2**10:.0f} KiB"
