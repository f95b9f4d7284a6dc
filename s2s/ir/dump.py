"""A readable text form of the IR, for people (``s2s opt --dump-ir``) and golden tests."""
from __future__ import annotations

from s2s.ir.control import (
    Block, Break, Continue, ControlNode, Declare, For, IfElse, Map, Opaque, Return, Sequence, While,
)
from s2s.ir.data import Array, Scalar, Symbol
from s2s.ir.dataflow import LibraryNode, Range, Tasklet
from s2s.ir.expr import format_expr
from s2s.ir.sdfg import SDFG, TranslationUnit


def _subset(subset) -> str:
    parts = []
    for s in subset:
        if isinstance(s, Range):
            parts.append(f"{format_expr(s.start)}:{format_expr(s.stop)}:{format_expr(s.step)}")
        else:
            parts.append(format_expr(s))
    return f"[{', '.join(parts)}]" if parts else ""


def dump_sdfg(sdfg: SDFG) -> str:
    lines = [f"sdfg {sdfg.name}({', '.join(sdfg.params)})"]
    for c in sdfg.containers:
        if isinstance(c, Array):
            shape = ", ".join("?" if d is None else format_expr(d) for d in c.shape)
            lines.append(f"  array  {c.name}: {c.dtype}[{shape}] {c.storage.value}")
        elif isinstance(c, Symbol):
            lines.append(f"  symbol {c.name}: {c.dtype}")
        elif isinstance(c, Scalar):
            lines.append(f"  scalar {c.name}: {c.dtype} {c.storage.value}")
    _node(sdfg.body, 1, lines)
    return "\n".join(lines) + "\n"


def dump(obj: SDFG | TranslationUnit) -> str:
    if isinstance(obj, TranslationUnit):
        return "".join(dump_sdfg(f) for f in obj.functions)
    return dump_sdfg(obj)


def _node(node: ControlNode, level: int, lines: list[str]) -> None:
    pad = "  " * level
    tag = f"{node.id}"
    if isinstance(node, Sequence):
        lines.append(f"{pad}{tag} sequence")
        for c in node.children:
            _node(c, level + 1, lines)
    elif isinstance(node, For):
        lines.append(f"{pad}{tag} for {node.var} = {format_expr(node.init)}; {format_expr(node.cond)}; "
                     f"{node.var} = {format_expr(node.update)}")
        _node(node.body, level + 1, lines)
    elif isinstance(node, Map):
        lines.append(f"{pad}{tag} map[{node.schedule.value}] {node.var} in {format_expr(node.start)}:"
                     f"{format_expr(node.stop)}:{format_expr(node.step)}")
        _node(node.body, level + 1, lines)
    elif isinstance(node, IfElse):
        lines.append(f"{pad}{tag} if {format_expr(node.cond)}")
        _node(node.then, level + 1, lines)
        if node.other is not None:
            lines.append(f"{pad}{tag} else")
            _node(node.other, level + 1, lines)
    elif isinstance(node, While):
        kind = "while" if node.test_first else "do-while"
        lines.append(f"{pad}{tag} {kind} {format_expr(node.cond)}")
        _node(node.body, level + 1, lines)
    elif isinstance(node, Block):
        lines.append(f"{pad}{tag} block")
        for comp in node.graph.computations():
            ins = ", ".join(f"{e.dst_conn}={e.data}{_subset(e.subset)}" for e in node.graph.in_edges(comp.id))
            outs = ", ".join(f"{e.data}{_subset(e.subset)}" for e in node.graph.out_edges(comp.id))
            if isinstance(comp, Tasklet):
                lines.append(f"{pad}  {comp.id} {outs or '_'} <- {format_expr(comp.expr)}   ({ins})")
            elif isinstance(comp, LibraryNode):
                lines.append(f"{pad}  {comp.id} library {comp.name} reads ({ins}) writes ({outs})")
    elif isinstance(node, Declare):
        init = ""
        if node.init is not None:
            init = " = <block>"
        elif node.init_text is not None:
            init = f" = {node.init_text}"
        lines.append(f"{pad}{tag} declare {node.name}{init}")
        if node.init is not None:
            _node(node.init, level + 1, lines)
    elif isinstance(node, Return):
        lines.append(f"{pad}{tag} return" + ("" if node.value is None else f" {format_expr(node.value)}"))
    elif isinstance(node, (Break, Continue)):
        lines.append(f"{pad}{tag} {type(node).__name__.lower()}")
    elif isinstance(node, Opaque):
        first = node.text.strip().split("\n")[0]
        lines.append(f"{pad}{tag} opaque ({node.reason}): {first[:60]}")
    else:
        raise TypeError(f"dump cannot show {type(node).__name__}")


