"""A regenerated region's parallel loop nests as GPU kernels over device containers.

The outermost loop of a nest that the dependence analysis proves parallel (it carries no
conflict: no two of its iterations touch one element with one of them writing) becomes a
kernel's first grid dimension, and up to two loops perfectly nested in it that are proven so too
and whose bounds do not move with the dimensions above become the next ones: no two distinct
points of the grid then conflict, so its threads may run in any order. Loops around a kernel stay
on the host (one launch per iteration), loops inside it stay inside. A kernel is a Map with
``Schedule.GPU_DEVICE`` per dimension; inside it every array is named by its device container
(``Storage.DEVICE``), so the data a kernel needs are edges from those containers, and what moves
them between memories is for transfer_elimination.py to decide.

What is not offloaded, so stays as the C target prints it: a region without a parallel loop; one
whose arrays have an unknown extent (a copy could not be sized) or rows reached through pointers,
or whose element types are the user's typedefs; one that writes a scalar from before it other
than a loop variable (a kernel would need its value back); calls that are not pure math, library
nodes but matrix multiplications, and statements the IR does not model.

A matrix multiplication (the MatMul library node) that a GPU may run as one thread per element of
its target (``_one_matmul``) is a kernel of its own: its block, over device containers, with the
node renamed GPU_MATMUL; one it may not is replaced by the loops it stands for.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import islpy as isl

from s2s.analysis.dependences import carries_conflict
from s2s.ir import (
    SDFG, Access, Array, Block, ControlNode, Declare, For, IfElse, LibraryNode, Map, MatMul, Scalar, Schedule,
    Sequence, Symbol, Tasklet, walk,
)
from s2s.ir.library import reads_target
from s2s.ir import expr as ex
from s2s.ir.dataflow import AccessNode, DataflowGraph, Range
from s2s.ir.device import GPU_MATMUL, device_array
from s2s.ir.rewrite import fresh_name
from s2s.ir.types import TypeKind
from s2s.schedule.codegen import loop_as_map
from s2s.time_limit import isl_operation_limit
from s2s.transforms.verify_parallel import probe_scops

MAX_GRID_DIMENSIONS = 3

ANALYSIS_OPERATIONS = 1_000_000
_PLAIN_TYPES = {"char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int",
                "unsigned", "long", "unsigned long", "long long", "unsigned long long", "float", "double",
                "_Bool", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
                "uint64_t", "size_t"}


@dataclass(frozen=True)
class GpuRegion:
    """A region's code with its kernels: ``body`` has a GPU_DEVICE Map nest per kernel, over the
    device containers ``device`` names (host array -> device container)."""

    body: Sequence
    device: tuple[tuple[str, str], ...]
    containers: tuple[Array, ...]     # the device containers
    kernels: tuple[str, ...]          # ids of the kernels' outermost Maps

    @property
    def device_of(self) -> dict[str, str]:
        return dict(self.device)


def gpu_region(sdfg: SDFG, seq: Sequence) -> tuple[GpuRegion | None, str]:
    """``seq`` (generated code in ``sdfg``'s containers) with its parallel nests as kernels, and
    why not (None) where it stays on the host."""
    containers = sdfg.container_map
    seq = _loops_for_other_matmuls(seq, containers)
    problem = _host_problem(seq, containers)
    if problem:
        return None, problem
    try:
        with isl_operation_limit(ANALYSIS_OPERATIONS):
            parallel = {loop.node.id for scop in probe_scops(sdfg, seq) for loop in scop.loops
                        if not carries_conflict(scop, loop)}
    except isl.Error:
        return None, "too dear to prove its loops parallel"
    taken = set(containers)
    device: dict[str, str] = {}
    kernels: list[str] = []

    def kernel(node: ControlNode) -> Map | None:
        dims: list[Map] = []
        current = node
        while len(dims) < MAX_GRID_DIMENSIONS:
            as_map = _dimension(current, parallel, {d.var for d in dims})
            if as_map is None:
                break
            dims.append(as_map)
            inner = as_map.body.children
            if len(inner) != 1 or not isinstance(inner[0], (For, Map)):
                break
            current = inner[0]
        if not dims or _kernel_problem(dims[0], containers):
            return None
        for name in sorted(_arrays_in(dims[0])):
            if name not in device:
                device[name] = fresh_name(f"{name}_dev", taken)
                taken.add(device[name])
        body = _renamed(dims[-1].body, device)
        for d in reversed(dims):
            made = dataclasses.replace(d, body=body, schedule=Schedule.GPU_DEVICE, private=(), reductions=(),
                                       team_if=None)
            body = Sequence(f"{d.id}.gpu", (made,))
        kernels.append(made.id)
        return made

    def matmul(block: Block) -> Block | None:
        (node,) = block.graph.computations()
        for name in sorted(_arrays_in(block)):
            if name not in device:
                device[name] = fresh_name(f"{name}_dev", taken)
                taken.add(device[name])
        made = _renamed(block, device)
        (renamed,) = made.graph.computations()
        nodes = tuple(dataclasses.replace(renamed, name=GPU_MATMUL) if d is renamed else d for d in made.graph.nodes)
        kernels.append(block.id)
        return dataclasses.replace(made, graph=dataclasses.replace(made.graph, nodes=nodes))

    def host(node: ControlNode) -> ControlNode:
        if isinstance(node, Block) and _one_matmul(node) is not None:
            return matmul(node)
        if isinstance(node, (For, Map)):
            made = kernel(node)
            if made is not None:
                return made
            return dataclasses.replace(node, body=host(node.body))
        if isinstance(node, Sequence):
            return dataclasses.replace(node, children=tuple(host(c) for c in node.children))
        if isinstance(node, IfElse):
            return dataclasses.replace(node, then=host(node.then),
                                       other=None if node.other is None else host(node.other))
        return node

    body = host(seq)
    if not kernels:
        return None, "no loop proven parallel"
    made = tuple(device_array(containers[h], d) for h, d in device.items())
    return GpuRegion(body, tuple(device.items()), made, tuple(kernels)), ""


def _loops_for_other_matmuls(node: ControlNode, containers) -> ControlNode:
    """``node`` with each matrix multiplication a GPU does not run as such (``_one_matmul``) as
    the loops it stands for (its meaning), whose parallel ones may become kernels as any loop."""
    from s2s.ir.library import reference_loops

    if isinstance(node, Block):
        found = [d for d in node.graph.nodes if isinstance(d, MatMul) and type(d) is MatMul]
        if found and _one_matmul(node) is None and len(node.graph.computations()) == 1 \
                and found[0].packed_right is None:
            return Sequence(f"{node.id}.loops", (reference_loops(found[0], containers, node.origin),))
        return node
    if isinstance(node, Sequence):
        return dataclasses.replace(node, children=tuple(_loops_for_other_matmuls(c, containers) for c in node.children))
    if isinstance(node, (For, Map)):
        return dataclasses.replace(node, body=_loops_for_other_matmuls(node.body, containers))
    if isinstance(node, IfElse):
        return dataclasses.replace(node, then=_loops_for_other_matmuls(node.then, containers),
                                   other=None if node.other is None else _loops_for_other_matmuls(node.other, containers))
    return node


def _one_matmul(block: Block) -> MatMul | None:
    """The matrix multiplication a block is, where a GPU may run it as one thread per element of
    its target: its one computation, with no packed factors, whose right factors do not read the
    target (a row's thread would read rows other threads update), of one element type throughout
    (a factor is staged in that type), updated by ``+`` or ``*``."""
    nodes = block.graph.computations()
    if len(nodes) != 1 or not isinstance(nodes[0], MatMul) or type(nodes[0]) is not MatMul:
        return None
    node = nodes[0]
    if node.packed_right is not None or node.op not in "+*" or reads_target(node.rights + node.lefts, node.target):
        return None
    if not plain_type(node.dtype):
        return None
    return node


def _dimension(node: ControlNode, parallel: set[str], outer: set[str]) -> Map | None:
    """``node`` as a grid dimension's Map: a loop proven parallel, counted by a positive constant
    step, whose bounds do not move with the dimensions ``outer`` (the grid is a box)."""
    if not isinstance(node, (For, Map)) or node.id not in parallel:
        return None
    as_map = loop_as_map(node, Schedule.GPU_DEVICE) if isinstance(node, For) else node
    if not isinstance(as_map, Map) or as_map.private or as_map.reductions:
        return None
    step = as_map.step.int_value if isinstance(as_map.step, ex.Const) else None
    if step is None or step <= 0 or (ex.names(as_map.start) | ex.names(as_map.stop)) & outer:
        return None
    if any(isinstance(a, Access) for b in (as_map.start, as_map.stop) for a in ex.walk(b)):
        return None   # (its bounds are computed on the host, whose copy of an array may be stale)
    return as_map


def plain_type(spelling: str) -> bool:
    """A built-in C type that a CUDA unit knows without the user's headers."""
    return " ".join(spelling.split()) in _PLAIN_TYPES


def offloadable_array(data) -> bool:
    """An array a kernel may use: every extent known (its copies are sized by them) in names a
    launch can pass, no rows through pointers, a built-in element type."""
    return (isinstance(data, Array) and data.row_pointers == 0 and plain_type(data.dtype.spelling)
            and data.dtype.kind is not TypeKind.POINTER and all(d is not None for d in data.shape))


def _exprs_of(node: ControlNode):
    if isinstance(node, For):
        yield from (node.init, node.cond, node.update)
    elif isinstance(node, Map):
        yield from (node.start, node.stop, node.step)
    elif isinstance(node, IfElse):
        yield node.cond
    elif isinstance(node, Block):
        for e in node.graph.edges:
            yield from (s for s in _subscript_exprs(e.subset))
        for n in node.graph.nodes:
            if isinstance(n, Tasklet):
                yield n.expr


def _subscript_exprs(subset):
    for s in subset:
        if isinstance(s, Range):
            yield from (s.start, s.stop, s.step)
        else:
            yield s


def _arrays_in(node: ControlNode) -> set[str]:
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, Block):
            out |= {e.data for e in n.graph.edges if e.subset}
        for e in _exprs_of(n):
            out |= {a.name for a in ex.walk(e) if isinstance(a, Access)}
    return out


def _written_scalars(node: ControlNode) -> set[str]:
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, Block):
            mm = _one_matmul(n)
            if mm is not None:   # (its loop variables are its own, declared by its expansion)
                out |= {e.data for e in n.graph.writes() if not e.subset} - {mm.i.var, mm.j.var, mm.k.var}
                continue
            out |= {e.data for e in n.graph.writes() if not e.subset}
        elif isinstance(n, (For, Map)):
            out.add(n.var)
    return out


def _declared(node: ControlNode) -> set[str]:
    return {n.name for n in walk(node) if isinstance(n, Declare)} | {
        n.var for n in walk(node) if isinstance(n, (For, Map))}


def _common_problem(node: ControlNode, containers) -> str:
    for n in walk(node):
        if not isinstance(n, (Sequence, For, Map, IfElse, Block, Declare)):
            return f"a {type(n).__name__} statement"
        if isinstance(n, Declare) and n.init_text is not None:
            return "an initializer kept as text"
        if isinstance(n, Declare) and isinstance(containers.get(n.name), Array):
            return f"an array declared inside it ({n.name})"
        if isinstance(n, Block):
            if _one_matmul(n) is not None:
                if not isinstance(node, Map):
                    continue   # (a kernel of its own, on the host's level)
                return "a matrix multiplication inside a parallel loop"
            for d in n.graph.nodes:
                if isinstance(d, LibraryNode):
                    return f"a library node ({d.name})"
                if isinstance(d, Tasklet) and (d.output is None or not ex.is_pure(d.expr)):
                    return "a call that is not pure"
    for name in _arrays_in(node):
        if not offloadable_array(containers.get(name)):
            return f"array {name} of unknown extent, pointer rows or a type of the user's"
        for extent in containers[name].shape:
            if any(not isinstance(containers.get(s), Symbol) for s in ex.names(extent)):
                return f"array {name} sized by a variable the region may change"
    for name in ex_names_in(node) - _arrays_in(node):
        data = containers.get(name)
        if isinstance(data, (Scalar, Symbol)) and not plain_type(data.dtype.spelling):
            return f"scalar {name} of a type of the user's"
    return ""


def ex_names_in(node: ControlNode) -> set[str]:
    """The containers ``node`` names (in memlets and expressions)."""
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, Block):
            out |= {e.data for e in n.graph.edges}
            for e in _exprs_of(n):
                out |= {a for a in ex.names(e) if a not in _connectors(n.graph)}
        else:
            for e in _exprs_of(n):
                out |= ex.names(e)
        if isinstance(n, (For, Map)):
            out.add(n.var)
        if isinstance(n, Declare):
            out.add(n.name)
    return out


def _connectors(graph: DataflowGraph) -> set[str]:
    return {c for n in graph.nodes if isinstance(n, Tasklet) for c in n.inputs}


def _host_problem(seq: Sequence, containers) -> str:
    problem = _common_problem(seq, containers)
    if problem:
        return problem
    outside = _written_scalars(seq) - _declared(seq)
    if outside:
        return f"it writes scalar(s) {', '.join(sorted(outside))} of the code around it"
    return ""


def _kernel_problem(node: Map, containers) -> str:
    if any(isinstance(n, Block) and any(isinstance(d, LibraryNode) for d in n.graph.nodes) for n in walk(node)):
        return "a library node inside"
    outside = _written_scalars(node) - _declared(node)
    return f"scalar(s) {', '.join(sorted(outside))} written by every thread" if outside else ""


def _renamed(node: ControlNode, names: dict[str, str]) -> ControlNode:
    """``node`` with the arrays of ``names`` renamed (memlets, access nodes, expressions)."""
    def e(x: ex.Expr) -> ex.Expr:
        return ex.rebuild(x, lambda a: Access(names[a.name], tuple(e(i) for i in a.indices))
                          if isinstance(a, Access) and a.name in names else None)

    def subset(s):
        return tuple(Range(e(r.start), e(r.stop), e(r.step)) if isinstance(r, Range) else e(r) for r in s)

    def extent(x):
        return dataclasses.replace(x, start=e(x.start), stop=e(x.stop))

    def graph_node(n):
        if isinstance(n, AccessNode):
            return dataclasses.replace(n, data=names.get(n.data, n.data))
        if isinstance(n, MatMul):
            return dataclasses.replace(n, i=extent(n.i), j=extent(n.j), k=extent(n.k), target=e(n.target),
                                       lefts=tuple(e(x) for x in n.lefts), rights=tuple(e(x) for x in n.rights))
        return n

    def block(b: Block) -> Block:
        nodes = tuple(graph_node(n) for n in b.graph.nodes)
        edges = tuple(dataclasses.replace(m, data=names.get(m.data, m.data), subset=subset(m.subset))
                      for m in b.graph.edges)
        return dataclasses.replace(b, graph=DataflowGraph(nodes, edges))

    if isinstance(node, Block):
        return block(node)
    if isinstance(node, Sequence):
        return dataclasses.replace(node, children=tuple(_renamed(c, names) for c in node.children))
    if isinstance(node, For):
        return dataclasses.replace(node, init=e(node.init), cond=e(node.cond), update=e(node.update),
                                   body=_renamed(node.body, names))
    if isinstance(node, Map):
        return dataclasses.replace(node, start=e(node.start), stop=e(node.stop), step=e(node.step),
                                   body=_renamed(node.body, names))
    if isinstance(node, IfElse):
        return dataclasses.replace(node, cond=e(node.cond), then=_renamed(node.then, names),
                                   other=None if node.other is None else _renamed(node.other, names))
    if isinstance(node, Declare) and node.init is not None:
        return dataclasses.replace(node, init=block(node.init))
    return node


def kernel_maps(kernel: Map) -> list[Map]:
    """The grid dimensions of a kernel, outermost first."""
    dims = [kernel]
    while (len(dims[-1].body.children) == 1 and isinstance(dims[-1].body.children[0], Map)
           and dims[-1].body.children[0].schedule is Schedule.GPU_DEVICE):
        dims.append(dims[-1].body.children[0])
    return dims


def gpu_options(options):
    """The scheduler's options for a GPU: no tiles (a kernel's thread blocks are its tiles, over
    loops left whole), every legal schedule taken (the work a GPU pays for is not the CPU's), no
    run-time tests of the work. Matrix multiplications stay library nodes where ``options`` makes
    them: the GPU's expansion is a kernel of shared-memory tiles, the CPU fallback's the C one."""
    from s2s.transforms.work_guard import WorkThresholds

    return dataclasses.replace(options, tile=False, wavefront=False, profitability=False,
                               thresholds=WorkThresholds.none())


def gpu_choice(scop, choice):
    """``choice``, or the user's order where its schedule has no parallel loop (Pluto's skewed
    time bands are for tiles, which a GPU does not run as such): its parallel loops may then be
    the space loops of a time step."""
    from s2s.transforms.polyhedral import Choice

    if choice.schedule is not None and " 0 parallel hyperplanes" not in choice.note:
        return choice
    return Choice(scop.schedule_tree, "the user's order, for the GPU's parallel loops")
