"""A flat region (backends/c/flat_outline.py) as the body of a C++ function with Highway: its
vectorizable loops as vector code (vector_loop.py), everything else as the scalar C++ that means
what the C did."""
from __future__ import annotations

from backends.c.flat_outline import FlatExprPrinter, FlatRegion
from backends.c.printer import CPrinter
from backends.highway.vector_loop import vector_loop, vectorizable
from backends.openmp.printer import OpenMPPrinter
from s2s.ir import SDFG, Array, Map


class _Kernel:
    """What the C++ function's printer adds to the C printer it derives from."""

    def setup(self, region: FlatRegion, parallel_maps_in_order: bool) -> None:
        self.expr = FlatExprPrinter({p.name: p.extents for p in region.params if p.array})
        self.parallel_maps_in_order = parallel_maps_in_order
        self.vector_loops = 0
        self.scalar_loops = 0   # loops that could be vectors by the IR, left scalar

    def declaration(self, name: str) -> str:
        data = self.containers[name]
        if isinstance(data, Array):
            raise TypeError(f"an array declared in a flat region: {name}")
        return f"{data.dtype.spelling} {name}"

    def print_Map(self, node: Map, level: int) -> list[str]:
        if vectorizable(node, self.parallel_maps_in_order):
            lines = vector_loop(self, node, level)
            if lines is not None:
                self.vector_loops += 1
                return lines
            self.scalar_loops += 1
        return super().print_Map(node, level)

    def function_body(self, region: FlatRegion) -> list[str]:
        lines = [self.pad(1) + line for line in region.copies_in()]
        lines += [self.pad(1) + f"{t} {v};" for t, v in region.locals]
        for child in region.body.children:
            lines += self.lines(child, 1)
        return lines + [self.pad(1) + line for line in region.copies_out()]


class KernelPrinter(_Kernel, CPrinter):
    """The C++ statements of a region, its parallel loops in order."""

    def __init__(self, sdfg: SDFG, region: FlatRegion):
        CPrinter.__init__(self, sdfg)
        self.setup(region, True)


class OpenMPKernelPrinter(_Kernel, OpenMPPrinter):
    """The same with OpenMP's parallel loops (the unit is compiled with -fopenmp)."""

    def __init__(self, sdfg: SDFG, region: FlatRegion):
        OpenMPPrinter.__init__(self, sdfg)
        self.setup(region, False)
