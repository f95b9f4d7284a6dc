"""A region with kernels (s2s.transforms.gpu_kernels) and its copies (transfer_elimination) as
CUDA: an ``extern "C"`` entry point taking the host's arrays as flat pointers and the sizes,
which allocates the device containers, runs the region's host code with its copies and a launch
per kernel, and returns 1; or returns 0 at once, having touched nothing, where no GPU is present
(checked once per process) or the device memory cannot be had: the caller then runs the CPU code.

Subscripts are linearized (``A[i][j]`` of ``double A[n][m]`` is ``A[(long)i * m + j]``) and
<math.h>'s calls take their arguments converted as C converts them (flat_outline.py's
``FlatExprPrinter``): the unit is C++, which has no variable-length array types and overloads
``sqrt``. A kernel's grid dimensions are walked by each
thread in grid-stride loops, so any extent is covered whatever the grid's limits; threadIdx.x runs
along the dimension whose variable most accesses take as their last, stride-1, subscript, so a
warp's accesses are coalesced.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from backends.c.flat_outline import PREDEFINED_NAMES, FlatExprPrinter
from backends.c.printer import CPrinter
from s2s.ir import (
    SDFG, Array, Block, ControlNode, Declare, DeviceCopy, For, Map, MatMul, Schedule,
    Scalar, Symbol, TO_DEVICE, walk,
)
from s2s.ir import expr as ex
from s2s.ir.device import GPU_MATMUL

PRESENT = "s2s_cuda_present"
CHECK = "S2S_CUDA_CHECK"
AXES = ("x", "y", "z")
TILE = 16   # a matrix multiplication's tiles: TILE x TILE threads, factors staged TILE deep
BLOCK_SHAPES = {1: {"x": 256}, 2: {"x": 32, "y": 8}, 3: {"x": 32, "y": 4, "z": 2}}
GRID_LIMITS = {"x": 2147483647, "y": 65535, "z": 65535}

PRELUDE = f"""/* s2s: CUDA unit (kernels and their launches); compiled with nvcc, joined to the C object */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifndef S2S_CUDA_EMULATE
#include <cuda_runtime.h>
#define S2S_LAUNCH(kernel, grid, block, ...) kernel<<<grid, block>>>(__VA_ARGS__)
#else
/* compiled as plain C++ (-DS2S_CUDA_EMULATE): each launch runs its threads one after another on
   the host, on device containers of their own, so a test without a GPU checks the kernels'
   indexing and the copies between the memories */
#include <string.h>
struct dim3 {{
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {{}}
}};
static dim3 blockIdx, threadIdx, blockDim, gridDim;
#define __global__
#define __restrict__ __restrict
typedef int cudaError_t;
enum {{ cudaSuccess = 0 }};
enum {{ cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost }};
static cudaError_t cudaMalloc(void **p, size_t n) {{ *p = malloc(n ? n : 1); return *p ? 0 : 1; }}
static cudaError_t cudaFree(void *p) {{ free(p); return 0; }}
static cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int) {{ memcpy(d, s, n); return 0; }}
static cudaError_t cudaGetLastError(void) {{ return 0; }}
static cudaError_t cudaDeviceSynchronize(void) {{ return 0; }}
static cudaError_t cudaGetDeviceCount(int *n) {{ *n = 1; return 0; }}
static const char *cudaGetErrorString(cudaError_t) {{ return "emulated"; }}
#define S2S_LAUNCH(kernel, grid, block, ...) do {{ \
    gridDim = (grid); blockDim = (block); \
    for (blockIdx.z = 0; blockIdx.z < gridDim.z; blockIdx.z++) \
      for (blockIdx.y = 0; blockIdx.y < gridDim.y; blockIdx.y++) \
        for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++) \
          for (threadIdx.z = 0; threadIdx.z < blockDim.z; threadIdx.z++) \
            for (threadIdx.y = 0; threadIdx.y < blockDim.y; threadIdx.y++) \
              for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++) \
                kernel(__VA_ARGS__); \
  }} while (0)
#endif

/* whether a GPU is there to run on: asked once per process (weak: one copy in the program) */
extern "C" __attribute__((weak)) int {PRESENT}(void)
{{
  static int present = -1;
  if (present < 0) {{
    int count = 0;
    const char *off = getenv("S2S_CUDA_DISABLE");
    present = !(off && *off && *off != '0') && cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  }}
  return present;
}}

/* past the allocation, the host's arrays may already be stale: a failure cannot fall back */
#define {CHECK}(call) do {{ cudaError_t s2s_e = (call); if (s2s_e != cudaSuccess) {{ \\
  fprintf(stderr, "s2s: CUDA error %s at %s:%d\\n", cudaGetErrorString(s2s_e), __FILE__, __LINE__); abort(); }} }} while (0)

static inline unsigned s2s_blocks(long trips, long per_block, long limit)
{{
  long blocks = (trips + per_block - 1) / per_block;
  return (unsigned)(blocks < 1 ? 1 : blocks > limit ? limit : blocks);
}}
"""


@dataclass(frozen=True)
class Launch:
    """A kernel's geometry: its grid dimensions' variables (outermost first) and the axis each
    runs along, and the thread block's shape by axis."""

    kernel: str
    variables: tuple[str, ...]
    axes: tuple[str, ...]
    block: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Parameter:
    name: str
    declaration: str    # in the entry point's parameter list
    pointer: bool       # an array, passed as a flat pointer


@dataclass(frozen=True)
class CudaRegion:
    """What the CUDA unit holds for one region, and how the C file calls it."""

    entry: str
    parameters: tuple[Parameter, ...]
    text: str                         # kernels and entry point (after the unit's PRELUDE)
    launches: tuple[Launch, ...]

    @property
    def prototype(self) -> str:
        """The C file's declaration, before its own includes: typedef'd types by the compiler's
        predefined names for them."""
        params = [re.sub(_TYPEDEFS, lambda m: PREDEFINED_NAMES[m.group(1)], p.declaration) for p in self.parameters]
        return f"extern int {self.entry}({', '.join(params) or 'void'});"


_TYPEDEFS = re.compile(rf"\b({'|'.join(PREDEFINED_NAMES)})\b")


class CudaPrinter(CPrinter):
    """Prints a region's host code (in the entry point) and its kernels."""

    def __init__(self, sdfg: SDFG, entry: str):
        shapes = {c.name: c.shape for c in sdfg.containers if isinstance(c, Array)}
        super().__init__(sdfg, FlatExprPrinter(shapes))
        self.entry = entry
        self.kernels: list[str] = []
        self.launches: list[Launch] = []

    def declaration(self, name: str) -> str:
        data = self.containers[name]
        if isinstance(data, Array):
            return f"{data.dtype.spelling} *{name}"
        return f"{data.dtype.spelling} {name}"

    def print_Block(self, node: Block, level: int) -> list[str]:
        matmuls = [d for d in node.graph.nodes if isinstance(d, MatMul) and d.name == GPU_MATMUL]
        if matmuls:
            return self.matmul_launch(matmuls[0], level)
        copies = [d for d in node.graph.nodes if isinstance(d, DeviceCopy)]
        if not copies:
            return super().print_Block(node, level)
        out = []
        for d in copies:
            host = d.src if d.direction == TO_DEVICE else d.dst
            kind = "cudaMemcpyHostToDevice" if d.direction == TO_DEVICE else "cudaMemcpyDeviceToHost"
            out.append(self.pad(level) + f"{CHECK}(cudaMemcpy({d.dst}, {d.src}, {self.bytes_of(host)}, {kind}));")
        return out

    def bytes_of(self, name: str) -> str:
        data = self.containers[name]
        return " * ".join([f"sizeof({data.dtype.spelling})"] + [f"(size_t)({self.expr(e)})" for e in data.shape])

    def print_Map(self, node: Map, level: int) -> list[str]:
        if node.schedule is not Schedule.GPU_DEVICE:
            return self.map_loop(node, level)
        return self.launch(node, level)

    def launch(self, kernel: Map, level: int) -> list[str]:
        dims = [kernel]
        while (len(dims[-1].body.children) == 1 and isinstance(dims[-1].body.children[0], Map)
               and dims[-1].body.children[0].schedule is Schedule.GPU_DEVICE):
            dims.append(dims[-1].body.children[0])
        name = f"{self.entry}_k{len(self.kernels) + 1}"
        axes = _axes(dims)
        block = BLOCK_SHAPES[len(dims)]
        inside = dims[-1].body
        declared = {n.name for n in walk(inside) if isinstance(n, Declare)} | {
            n.var for n in walk(inside) if isinstance(n, (For, Map))} | {d.var for d in dims}
        used = _names(kernel) - declared
        arrays = sorted(n for n in used if isinstance(self.containers.get(n), Array))
        scalars = sorted(n for n in used if isinstance(self.containers.get(n), (Scalar, Symbol)))
        params = ([f"{self.containers[a].dtype.spelling} *__restrict__ {a}" for a in arrays]
                  + [self.declaration(s) for s in scalars]
                  + [f"long s2s_lo{k}, long s2s_hi{k}" for k in range(len(dims))])
        lines = [f"static __global__ void {name}({', '.join(params)})", "{"]
        loose = sorted({n.var for n in walk(inside) if isinstance(n, For) and not n.declares_var} - {d.var for d in dims})
        lines += [f"  {self.declaration(v)};" for v in loose]
        pad = 1
        for k, (d, axis) in enumerate(zip(dims, axes)):
            step = d.step.int_value
            p = "  " * pad
            lines += [f"{p}for (long s2s_v{k} = s2s_lo{k} + (long)(blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis}) * {step}; "
                      f"s2s_v{k} < s2s_hi{k}; s2s_v{k} += (long)gridDim.{axis} * blockDim.{axis} * {step}) {{",
                      f"{p}  {self.declaration(d.var)} = s2s_v{k};"]
            pad += 1
        lines += self.children(inside, pad)
        for k in reversed(range(len(dims))):
            lines.append("  " * (k + 1) + "}")
        lines.append("}")
        self.kernels.append("\n".join(lines))
        self.launches.append(Launch(name, tuple(d.var for d in dims), tuple(axes), tuple(
            (a, block.get(a, 1)) for a in AXES)))
        pad, inner = self.pad(level), self.pad(level + 1)
        out = [pad + "{"]
        out += [inner + f"const long s2s_lo{k} = {self.expr(d.start)}, s2s_hi{k} = {self.expr(d.stop)};"
                for k, d in enumerate(dims)]
        nonempty = " && ".join(f"s2s_hi{k} > s2s_lo{k}" for k in range(len(dims)))
        by_axis = {a: k for k, a in enumerate(axes)}
        grid = ", ".join(
            f"s2s_blocks(s2s_hi{by_axis[a]} - s2s_lo{by_axis[a]}, {block[a]}L * {dims[by_axis[a]].step.int_value}, {GRID_LIMITS[a]})"
            if a in by_axis else "1" for a in AXES)
        args = arrays + scalars + [f"s2s_lo{k}, s2s_hi{k}" for k in range(len(dims))]
        out += [inner + f"if ({nonempty}) {{",
                inner + f"  dim3 s2s_block({', '.join(str(block.get(a, 1)) for a in AXES)});",
                inner + f"  dim3 s2s_grid({grid});",
                inner + f"  S2S_LAUNCH({name}, s2s_grid, s2s_block, {', '.join(args)});",
                inner + f"  {CHECK}(cudaGetLastError());",
                inner + "}", pad + "}"]
        return out


    def matmul_launch(self, mm: MatMul, level: int) -> list[str]:
        """A matrix multiplication as a kernel of one thread per element of its target, each
        applying the updates in ascending k as the loops do (the node's contract): staged in
        shared-memory tiles of TILE x TILE where its extents are a box, its one term's factors
        are doubles and so is its element type; else a thread per row, walking its columns.
        (Emulated, S2S_CUDA_EMULATE, threads run one after another, which a barrier cannot: the
        rows' kernel stands in for the tiled one.)"""
        name = f"{self.entry}_k{len(self.kernels) + 1}"
        i, j, k = mm.i.var, mm.j.var, mm.k.var
        exprs = [mm.target, *mm.lefts, *mm.rights, mm.j.start, mm.j.stop, mm.k.start, mm.k.stop]
        used = set().union(*(ex.names(e) for e in exprs)) - {i, j, k}
        arrays = sorted(n for n in used if isinstance(self.containers.get(n), Array))
        scalars = sorted(n for n in used if isinstance(self.containers.get(n), (Scalar, Symbol)))
        inner = set().union(*(ex.names(e) for e in (mm.j.start, mm.j.stop, mm.k.start, mm.k.stop)))
        tiled = (len(mm.lefts) == 1 and i not in inner and j not in ex.names(mm.k.start) | ex.names(mm.k.stop)
                 and mm.dtype == "double" and all(self.double_valued(e) for e in (*mm.lefts, *mm.rights)))
        t, e = mm.dtype, self.expr
        params = ([f"{self.containers[a].dtype.spelling} *__restrict__ {a}" for a in arrays]
                  + [self.declaration(x) for x in scalars])
        di, dj, dk = (self.declaration(v) for v in (i, j, k))
        step = f"s2s_acc = s2s_acc {mm.op} "
        rows_update = mm.update_of(list(mm.lefts), list(mm.rights))
        rows = [
            f"static __global__ void {name}_rows({', '.join(params + ['long s2s_i0, long s2s_i1'])})", "{",
            "  for (long s2s_vi = s2s_i0 + (long)(blockIdx.x * blockDim.x + threadIdx.x); s2s_vi < s2s_i1; "
            "s2s_vi += (long)gridDim.x * blockDim.x) {",
            f"    {di} = s2s_vi;",
            f"    for ({dj} = {e(mm.j.start)}; {j} < {e(mm.j.stop)}; {j}++) {{",
            f"      {t} s2s_acc = {e(mm.target)};",
            f"      for ({dk} = {e(mm.k.start)}; {k} < {e(mm.k.stop)}; {k}++)",
            f"        {step}{self.expr.print(rows_update, 2)};",
            f"      {e(mm.target)} = s2s_acc;",
            "    }", "  }", "}"]
        self.kernels.append("\n".join(rows))
        rows_launch = self.launch_lines(f"{name}_rows", [("i", mm.i)], "128, 1, 1",
                                        f"s2s_blocks(s2s_i1 - s2s_i0, 128, {GRID_LIMITS['x']}), 1, 1",
                                        arrays + scalars, level + 1)
        if not tiled:
            self.launches.append(Launch(f"{name}_rows", (i,), ("x",), (("x", 128), ("y", 1), ("z", 1))))
            return [self.pad(level) + "{"] + rows_launch + [self.pad(level) + "}"]
        update = mm.update_of([ex.Sym("s2s_l[s2s_ty][s2s_t]")], [ex.Sym("s2s_r[s2s_t][s2s_tx]")])
        lines = [
            "#ifndef S2S_CUDA_EMULATE",
            f"static __global__ void {name}({', '.join(params + [f'long s2s_{v}0, long s2s_{v}1' for v in 'ijk'])})", "{",
            f"  __shared__ double s2s_l[{TILE}][{TILE + 1}], s2s_r[{TILE}][{TILE + 1}];",
            "  const int s2s_tx = threadIdx.x, s2s_ty = threadIdx.y;",
            f"  for (long s2s_bi = s2s_i0 + (long)blockIdx.y * {TILE}; s2s_bi < s2s_i1; s2s_bi += (long)gridDim.y * {TILE})",
            f"    for (long s2s_bj = s2s_j0 + (long)blockIdx.x * {TILE}; s2s_bj < s2s_j1; s2s_bj += (long)gridDim.x * {TILE}) {{",
            "      const long s2s_vi = s2s_bi + s2s_ty, s2s_vj = s2s_bj + s2s_tx;",
            "      const int s2s_in = s2s_vi < s2s_i1 && s2s_vj < s2s_j1;",
            f"      {t} s2s_acc = 0;",
            f"      if (s2s_in) {{ {di} = s2s_vi; {dj} = s2s_vj; s2s_acc = {e(mm.target)}; }}",
            f"      for (long s2s_bk = s2s_k0; s2s_bk < s2s_k1; s2s_bk += {TILE}) {{",
            "        {",
            "          const long s2s_vk = s2s_bk + s2s_tx;",
            f"          if (s2s_vi < s2s_i1 && s2s_vk < s2s_k1) {{ {di} = s2s_vi; {dk} = s2s_vk; "
            f"s2s_l[s2s_ty][s2s_tx] = {e(mm.lefts[0])}; }}",
            "        }",
            "        {",
            "          const long s2s_vk = s2s_bk + s2s_ty;",
            f"          if (s2s_vk < s2s_k1 && s2s_vj < s2s_j1) {{ {dk} = s2s_vk; {dj} = s2s_vj; "
            f"s2s_r[s2s_ty][s2s_tx] = {e(mm.rights[0])}; }}",
            "        }",
            "        __syncthreads();",
            f"        const long s2s_kn = s2s_k1 - s2s_bk < {TILE} ? s2s_k1 - s2s_bk : {TILE};",
            "        if (s2s_in)",
            "          for (int s2s_t = 0; s2s_t < s2s_kn; s2s_t++)",
            f"            {step}{self.expr.print(update, 2)};",
            "        __syncthreads();",
            "      }",
            f"      if (s2s_in) {{ {di} = s2s_vi; {dj} = s2s_vj; {e(mm.target)} = s2s_acc; }}",
            "    }", "}", "#endif"]
        self.kernels.append("\n".join(lines))
        self.launches.append(Launch(name, (i, j), ("y", "x"), (("x", TILE), ("y", TILE), ("z", 1))))
        tiled_launch = self.launch_lines(
            name, [(v, x) for v, x in zip("ijk", (mm.i, mm.j, mm.k))], f"{TILE}, {TILE}, 1",
            f"s2s_blocks(s2s_j1 - s2s_j0, {TILE}, {GRID_LIMITS['x']}), s2s_blocks(s2s_i1 - s2s_i0, {TILE}, "
            f"{GRID_LIMITS['y']}), 1", arrays + scalars, level + 1)
        return ([self.pad(level) + "{", "#ifndef S2S_CUDA_EMULATE"] + tiled_launch + ["#else"] + rows_launch
                + ["#endif", self.pad(level) + "}"])

    def launch_lines(self, name: str, bounds, block: str, grid: str, args: list[str], level: int) -> list[str]:
        """A launch of ``name`` over the extents ``bounds`` ((letter, Extent)), where none is empty."""
        pad = self.pad(level)
        out = [pad + "{"] + [pad + f"  const long s2s_{v}0 = {self.expr(x.start)}, s2s_{v}1 = {self.expr(x.stop)};"
                             for v, x in bounds]
        nonempty = " && ".join(f"s2s_{v}1 > s2s_{v}0" for v, _ in bounds)
        args = args + [f"s2s_{v}0, s2s_{v}1" for v, _ in bounds]
        return out + [pad + f"  if ({nonempty}) {{",
                      pad + f"    dim3 s2s_block({block});",
                      pad + f"    dim3 s2s_grid({grid});",
                      pad + f"    S2S_LAUNCH({name}, s2s_grid, s2s_block, {', '.join(args)});",
                      pad + f"    {CHECK}(cudaGetLastError());",
                      pad + "  }", pad + "}"]

    def double_valued(self, e: ex.Expr) -> bool:
        """Whether C evaluates ``e`` as a double (a factor staged in a double keeps its value)."""
        if isinstance(e, (ex.Access, ex.Sym)):
            data = self.containers.get(e.name)
            return data is not None and " ".join(data.dtype.spelling.split()) == "double"
        if isinstance(e, ex.Const):
            text = e.text.lower()
            return ("." in text or "e" in text) and not text.startswith("0x") and not text.endswith(("f", "l"))
        if isinstance(e, ex.Binary) and e.op in "+-*/":
            return self.double_valued(e.lhs) or self.double_valued(e.rhs)
        if isinstance(e, ex.Unary) and e.op in "-+":
            return self.double_valued(e.operand)
        if isinstance(e, ex.Cast):
            return " ".join(e.type.split()) == "double"
        return False


def _names(node: ControlNode) -> set[str]:
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, Block):
            connectors = {c for d in n.graph.nodes if hasattr(d, "inputs") for c in getattr(d, "inputs")}
            # (a matrix multiplication's loop variables are its kernel's own)
            own = {v for d in n.graph.nodes if isinstance(d, MatMul) for v in (d.i.var, d.j.var, d.k.var)}
            out |= {e.data for e in n.graph.edges} - own
            for e in n.graph.edges:
                for s in e.subset:
                    for x in ((s.start, s.stop, s.step) if hasattr(s, "step") else (s,)):
                        out |= ex.names(x)
            for d in n.graph.nodes:
                if hasattr(d, "expr"):
                    out |= ex.names(d.expr) - connectors
        elif isinstance(n, For):
            out |= ex.names(n.init) | ex.names(n.cond) | ex.names(n.update) | {n.var}
        elif isinstance(n, Map):
            out |= ex.names(n.start) | ex.names(n.stop) | ex.names(n.step) | {n.var}
        elif hasattr(n, "cond"):
            out |= ex.names(n.cond)
        elif isinstance(n, Declare):
            out.add(n.name)
    return out


def _axes(dims: list[Map]) -> list[str]:
    """The axis of each dimension: x for the one whose variable is most often the last subscript."""
    counts = [0] * len(dims)
    for n in walk(dims[-1].body):
        if isinstance(n, Block):
            for e in n.graph.edges:
                if e.subset:
                    last = ex.names(e.subset[-1]) if not hasattr(e.subset[-1], "step") else set()
                    for k, d in enumerate(dims):
                        if d.var in last:
                            counts[k] += 1
    x = max(range(len(dims)), key=lambda k: (counts[k], k))
    rest = iter(("y", "z") if len(dims) == 2 else ("z", "y"))
    return ["x" if k == x else next(rest) for k in range(len(dims))]


def print_region(sdfg: SDFG, body, entry: str, device: dict[str, str]) -> CudaRegion:
    """The entry point ``entry`` of a region ``body`` (its kernels and copies placed, in ``sdfg``'s
    containers, the device containers among them: ``device`` names them by host array)."""
    printer = CudaPrinter(sdfg, entry)
    lines = printer.lines(body, 1)
    device_names = set(device.values())
    declared = {n.name for n in walk(body) if isinstance(n, Declare)} | {
        n.var for n in walk(body) if isinstance(n, (For, Map))}
    used = _names(body) - device_names
    params: list[Parameter] = []
    for n in sorted(used):
        data = printer.containers.get(n)
        if isinstance(data, Array):
            params.append(Parameter(n, f"{data.dtype.spelling} *{n}", True))
        elif isinstance(data, (Scalar, Symbol)) and n not in declared:
            params.append(Parameter(n, f"{data.dtype.spelling} {n}", False))
    loose = sorted({n.var for n in _host_loops(body) if isinstance(n, For) and not n.declares_var})
    out = [f'extern "C" int {entry}({", ".join(p.declaration for p in params) or "void"})', "{",
           f"  if (!{PRESENT}())", "    return 0;"]
    for host, dev in device.items():
        out.append(f"  {sdfg.container(host).dtype.spelling} *{dev} = 0;")
    if device:
        allocations = " ||\n      ".join(f"cudaMalloc((void **)&{dev}, {printer.bytes_of(host)}) != cudaSuccess"
                                         for host, dev in device.items())
        out += [f"  if ({allocations}) {{"] + [f"    cudaFree({dev});" for dev in device.values()] + [
            "    return 0;", "  }"]
    out += [f"  {printer.declaration(v)};" for v in loose]
    out += lines
    out += [f"  {CHECK}(cudaDeviceSynchronize());"] + [f"  cudaFree({dev});" for dev in device.values()]
    out += ["  return 1;", "}"]
    text = "\n\n".join(printer.kernels + ["\n".join(out)]) + "\n"
    return CudaRegion(entry, tuple(params), text, tuple(printer.launches))


def _host_loops(node: ControlNode):
    if isinstance(node, Map) and node.schedule is Schedule.GPU_DEVICE:
        return
    if isinstance(node, (For, Map)):
        yield node
    from s2s.ir import child_nodes

    for c in child_nodes(node):
        yield from _host_loops(c)


def unit_text(regions: list[CudaRegion]) -> str:
    """The whole CUDA unit of a file's regions."""
    return PRELUDE + "".join("\n" + r.text for r in regions)
