"""s2s.ir: the structured stateful dataflow multigraph (an SDFG-like IR).

A TranslationUnit holds SDFGs (one per function). An SDFG has data containers (Scalar, Array,
Symbol) and a control tree (Sequence, For, Map, IfElse, While, Break, Continue, Return, Declare,
Opaque) whose leaves are dataflow Blocks: AccessNodes, Tasklets and LibraryNodes joined by Memlets
with symbolic subsets; library.py holds the library nodes that back ends expand (MatMul); device.py device memory
and the copies to and from it (DeviceCopy).
Everything is an immutable dataclass with a stable id; transformations return new objects.
"""
from s2s.ir.control import (
    LOOPS, Block, Break, Continue, ControlNode, Declare, For, IfElse, Map, Opaque, Return, Schedule,
    Sequence, SourceSpan, While, child_nodes, contains_loop, walk,
)
from s2s.ir.data import Array, Data, Scalar, Storage, Symbol
from s2s.ir.dataflow import (
    AccessNode, DataflowGraph, DataflowNode, LibraryNode, Memlet, Range, Subscript, Tasklet, copy_graph,
)
from s2s.ir.library import (
    ROWS_APART, TEAM_PAYS, TESTED_BEFORE, VERSION_TEST_PREFIX, Blocking, Extent, MatMul, PackedRight, packed_right_size,
    reads_target,
)
from s2s.ir.expr import (
    PURE_FUNCTIONS, Access, Binary, Call, Cast, Const, Expr, ExprPrinter, SizeOf, Sym, Ternary, Unary,
    format_expr,
)
from s2s.ir.sdfg import SDFG, TranslationUnit
from s2s.ir.device import TO_DEVICE, TO_HOST, DeviceCopy
from s2s.ir.types import ScalarType, TypeKind, scalar_type
from s2s.ir.builder import SDFGBuilder
from s2s.ir.dump import dump
from s2s.ir.serialize import dumps, loads
from s2s.ir.validate import problems, validate

__all__ = [
    "LOOPS", "Block", "Break", "Continue", "ControlNode", "Declare", "For", "IfElse", "Map", "Opaque",
    "Return", "Schedule", "Sequence", "SourceSpan", "While", "child_nodes", "contains_loop", "walk",
    "Array", "Data", "Scalar", "Storage", "Symbol",
    "AccessNode", "DataflowGraph", "DataflowNode", "LibraryNode", "Memlet", "Range", "Subscript", "Tasklet",
    "copy_graph",
    "ROWS_APART", "TEAM_PAYS", "TESTED_BEFORE", "VERSION_TEST_PREFIX", "Blocking", "Extent", "MatMul", "PackedRight", "packed_right_size",
    "reads_target",
    "PURE_FUNCTIONS", "Access", "Binary", "Call", "Cast", "Const", "Expr", "ExprPrinter", "SizeOf", "Sym",
    "Ternary", "Unary", "format_expr",
    "SDFG", "TranslationUnit",
    "TO_DEVICE", "TO_HOST", "DeviceCopy",
    "ScalarType", "TypeKind", "scalar_type",
    "SDFGBuilder", "dump", "dumps", "loads", "problems", "validate",
]
