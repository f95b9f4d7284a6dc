"""The CUDA target's step of the pipeline: a regenerated region's kernels (gpu_kernels.py) and
their copies (transfer_elimination.py) printed as an entry point of the file's CUDA unit
(backends/cuda), and the region in the C file made a call of it, with the C code for where it
returns 0 (no GPU at run time)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from s2s import ir
from s2s.ir import expr as ex


@dataclass(frozen=True)
class Offload:
    node: ir.ControlNode          # the region for the C file: a call of the entry point, the C code
    region: object                # backends.cuda.CudaRegion
    plan: object                  # s2s.transforms.transfer_elimination.TransferPlan
    kernels: int

    def report(self) -> str:
        geometry = "; ".join(f"{l.kernel}: grid over {', '.join(f'{v} ({a})' for v, a in zip(l.variables, l.axes))}"
                             for l in self.region.launches)
        return (f"offloaded to CUDA as {self.region.entry} ({self.kernels} kernel(s): {geometry}); bytes moved "
                f"per run: {self.plan.naive.text()} before transfer elimination, {self.plan.placed.text()} after")


def offload(sdfg: ir.SDFG, node: ir.ControlNode, entry: str) -> tuple[Offload | None, str]:
    """``node`` (a top-level statement of ``sdfg`` the optimizer rewrote) offloaded, or why not."""
    from backends.cuda import print_region
    from s2s.transforms.gpu_kernels import gpu_region
    from s2s.transforms.transfer_elimination import copies_in_loops, dead_after, place_transfers

    from backends.c import CPrinter
    from backends.c.flat_outline import flat_region

    target = _optimized_branch(node)
    if target is None:
        return None, "not a sequence of statements"
    if flat_region(CPrinter(sdfg), _as_loops(target, sdfg.container_map), entry) is None:
        return None, "not a function of flat arrays and scalars (flat_outline.py)"
    gpu, why = gpu_region(sdfg, target)
    if gpu is None:
        return None, why
    with_device = dataclasses.replace(sdfg, containers=sdfg.containers + gpu.containers)
    containers = with_device.container_map
    live = set(gpu.device_of) - dead_after(sdfg.body, node, containers)
    plan = place_transfers(gpu.body, gpu.device_of, containers, live)
    if copies_in_loops(plan.body):
        # (each trip would move whole arrays for the host's statements: the CPU's code is faster)
        return None, (f"its host code touches the kernels' arrays in a loop around them ({plan.placed.text()} "
                      f"bytes moved per run)")
    region = print_region(with_device, plan.body, entry, gpu.device_of)
    args = tuple(ex.Cast(f"{containers[p.name].dtype.spelling} *", ex.Sym(p.name)) if p.pointer else ex.Sym(p.name)
                 for p in region.parameters)
    call = ir.IfElse(f"{target.id}.cuda", ex.Unary("!", ex.Call(entry, args)), target)
    return Offload(_replaced(node, target, ir.Sequence(f"{target.id}.offload", (call,))), region, plan,
                   len(gpu.kernels)), ""


def _as_loops(node: ir.ControlNode, containers) -> ir.ControlNode:
    """``node`` with its matrix multiplications as the loops they stand for (what the flat
    function's checks judge; the GPU runs them as kernels of their own)."""
    from s2s.ir.library import reference_loops

    if isinstance(node, ir.Block):
        found = [d for d in node.graph.nodes if isinstance(d, ir.MatMul)]
        return reference_loops(found[0], containers) if found else node
    if isinstance(node, ir.Sequence):
        return dataclasses.replace(node, children=tuple(_as_loops(c, containers) for c in node.children))
    if isinstance(node, (ir.For, ir.Map)):
        return dataclasses.replace(node, body=_as_loops(node.body, containers))
    if isinstance(node, ir.IfElse):
        return dataclasses.replace(node, then=_as_loops(node.then, containers),
                                   other=None if node.other is None else _as_loops(node.other, containers))
    return node


def _optimized_branch(node: ir.ControlNode) -> ir.Sequence | None:
    """The code of the new schedule in a rewritten region: the branch of its run-time checks that
    the checks expect, or the region itself."""
    if isinstance(node, ir.Sequence) and len(node.children) == 1 and isinstance(node.children[0], ir.IfElse):
        branch = node.children[0]
        if branch.likely or branch.balanced:
            return branch.then
    if isinstance(node, ir.Sequence):
        return node
    return None


def _replaced(node: ir.ControlNode, old: ir.ControlNode, new: ir.ControlNode) -> ir.ControlNode:
    if node is old:
        return new
    if isinstance(node, ir.Sequence):
        return dataclasses.replace(node, children=tuple(_replaced(c, old, new) for c in node.children))
    if isinstance(node, ir.IfElse):
        return dataclasses.replace(node, then=_replaced(node.then, old, new),
                                   other=None if node.other is None else _replaced(node.other, old, new))
    return node
