"""The Highway back end's C side: each region the optimizer rewrote becomes a C++ function of
the companion unit (kernel.py, unit.py), which the C file declares and calls where the region
stood; a region that cannot be a flat function (flat_outline.py) is printed as the C target's."""
from __future__ import annotations

import dataclasses

from backends.c.flat_outline import flat_region
from backends.c.matmul import MatMulCode
from backends.c.printer import CPrinter
from backends.highway.kernel import KernelPrinter, OpenMPKernelPrinter
from backends.highway.register_block import NotVectorUpdate, highway_register_block
from backends.highway.unit import KernelFunction
from backends.openmp.printer import OpenMPPrinter
from s2s.ir import SDFG, VERSION_TEST_PREFIX, ControlNode, IfElse, MatMul, Sequence, walk


class _Highway:
    """What the C side's printer adds to the C (or OpenMP) printer it derives from."""

    openmp = False

    def setup(self, tag: str) -> None:
        self.tag = tag
        self.kernels: list[KernelFunction] = []
        self.kernel_helpers: dict[str, str] = {}
        self.vector_loops = 0
        self.scalar_loops = 0
        self.regions_left_c = 0   # flat regions without a vector loop, printed as C
        self.register_blocks = 0  # matrix-multiply register blocks in the unit
        self._outline_as_is = True

    def statement(self, node: ControlNode) -> str:
        if not any(isinstance(n, IfElse) and n.id.startswith(VERSION_TEST_PREFIX) for n in walk(node)):
            call = self.flat_call(Sequence(f"S.hwy.{node.id}", (node,)))
            if call is not None:
                return "{\n" + self.pad(1) + call + "\n}"
        return super().statement(node)

    def print_IfElse(self, node: IfElse, level: int) -> list[str]:
        if not node.id.startswith(VERSION_TEST_PREFIX):
            return super().print_IfElse(node, level)
        self._outline_as_is = node.outline
        try:
            return super().print_IfElse(dataclasses.replace(node, outline=True), level)
        finally:
            self._outline_as_is = True

    def outlined_branch(self, header: str, branch: Sequence, level: int) -> list[str]:
        call = self.flat_call(branch)
        if call is not None:
            return [self.pad(level) + header + " {", self.pad(level + 1) + call, self.pad(level) + "}"]
        if not self._outline_as_is:
            return self.body(header, branch, level)
        return super().outlined_branch(header, branch, level)

    def matmul_helpers(self, node: MatMul, code: MatMulCode) -> None:
        """The register block as a function of the unit (register_block.py), which the C name
        the expansion calls forwards to; the panels' memory stays C."""
        name = f"s2s_hwy_{code.helper_name.removeprefix('s2s_')}_{self.tag}"
        try:
            kernel = highway_register_block(node, code.in_place, self.expr, name)
        except NotVectorUpdate:
            super().matmul_helpers(node, code)
            return
        if all(k.name != name for k in self.kernels):
            self.kernels.append(kernel)
            self.register_blocks += 1
        self.helpers[code.helper_name] = (
            f"extern void {name}({kernel.parameters});\n"
            f"static inline void {code.helper_name}({kernel.parameters})\n{{\n  {name}({kernel.arguments});\n}}\n"
            + code.panels)

    def flat_call(self, body: Sequence) -> str | None:
        """The C call of ``body`` made a function of the companion unit, or None: also where none
        of its loops is a vector loop (C++ would compile the same scalar code, at the cost of a
        second compiler, the C++ runtime and Highway's library)."""
        name = f"s2s_hwy_{self.sdfg.name}_{len(self.kernels) + 1}_{self.tag}"
        region = flat_region(self, body, name, scalars_out=True)
        if region is None:
            return None
        printer = (OpenMPKernelPrinter if self.openmp else KernelPrinter)(self.sdfg, region)
        try:
            lines = printer.function_body(region)
        except TypeError:
            return None
        if not printer.vector_loops:
            self.regions_left_c += 1
            return None
        self.kernels.append(KernelFunction(name, region.parameter_list(), ", ".join(p.address for p in region.params),
                                           lines))
        self.kernel_helpers.update(printer.helpers)
        self.vector_loops += printer.vector_loops
        self.scalar_loops += printer.scalar_loops
        self.helpers[name] = region.prototype() + "\n"
        return region.call()


class HighwayPrinter(_Highway, CPrinter):
    def __init__(self, sdfg: SDFG, outline: bool = False, tag: str = "0"):
        CPrinter.__init__(self, sdfg, outline=outline)
        self.setup(tag)


class HighwayOpenMPPrinter(_Highway, OpenMPPrinter):
    openmp = True

    def __init__(self, sdfg: SDFG, outline: bool = False, tag: str = "0"):
        OpenMPPrinter.__init__(self, sdfg, outline=outline)
        self.setup(tag)
