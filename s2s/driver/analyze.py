"""``s2s analyze``: the polyhedral view of every SCoP of a C file, for people and tools.

Per SCoP: its statements (C text, iteration domain, accesses), its dependences with distance
vectors, which loops are parallel, privatizable scalars, and reduction candidates.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import Sequence

import islpy as isl

from backends.c import CPrinter
from frontends.c import lift_c_file
from s2s.analysis import Scop, compute_dependences, find_scops, loop_info, reductions
from s2s.analysis.dependences import bound_text, maps_of


@dataclass
class StatementView:
    name: str
    code: str
    domain: str
    reads: list[str]
    writes: list[str]


@dataclass
class DependenceView:
    kind: str
    source: str
    sink: str
    distance: list[str]  # one entry per common loop, outermost first: "0", "1", "1..n", "*"
    relation: str


@dataclass
class LoopView:
    id: str
    variable: str
    depth: int
    parallel: bool
    carried: list[str]
    carried_on: list[str]
    privatizable: list[str]
    parallel_if_privatized: bool


@dataclass
class ScopView:
    function: str
    line: int | None
    first_node: str
    parameters: list[str]
    statements: list[StatementView] = field(default_factory=list)
    dependences: list[DependenceView] = field(default_factory=list)
    loops: list[LoopView] = field(default_factory=list)
    reductions: list[str] = field(default_factory=list)
    may_alias: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _access_text(memlet) -> str:
    from s2s.ir import format_expr

    return memlet.data + "".join(f"[{format_expr(i)}]" for i in memlet.subset)


def view_scop(scop: Scop) -> ScopView:
    start = time.perf_counter()
    deps = compute_dependences(scop)
    printer = CPrinter(scop.sdfg)
    view = ScopView(scop.sdfg.name, scop.first_line, scop.nodes[0].id, list(scop.params))
    for s in scop.statements:
        view.statements.append(StatementView(
            s.name, printer.statement(s.block).strip(), str(s.domain),
            list(dict.fromkeys(_access_text(m) for m in s.block.graph.reads())),
            list(dict.fromkeys(_access_text(m) for m in s.block.graph.writes()))))
    for kind, rel in deps.all.items():
        for m in maps_of(rel):
            view.dependences.append(_dependence_view(scop, kind, m))
    for info in loop_info(scop, deps):
        view.loops.append(LoopView(info.loop.node.id, info.loop.node.var, info.loop.depth, info.parallel,
                                   list(info.carried), list(info.carried_on), list(info.privatizable),
                                   info.parallel_if_privatized))
    view.reductions = [f"{r.statement} on {r.target} ({r.op})" for r in reductions(scop)]
    view.may_alias = [f"{p.first}/{p.second} ({p.why})" for p in scop.may_alias()]
    view.may_alias += [f"rows of {a} (row pointers)" for a in scop.overlapping_rows()]
    view.seconds = time.perf_counter() - start
    return view


def _dependence_view(scop: Scop, kind: str, m: isl.Map) -> DependenceView:
    src = scop.statement(m.get_tuple_name(isl.dim_type.in_))
    dst = scop.statement(m.get_tuple_name(isl.dim_type.out))
    common = 0
    while common < min(len(src.loops), len(dst.loops)) and src.loops[common].node.id == dst.loops[common].node.id:
        common += 1
    sched = isl.UnionMap.from_map(src.schedule).union(isl.UnionMap.from_map(dst.schedule))
    deltas = isl.UnionMap.from_map(m).apply_domain(sched).apply_range(sched).deltas()
    distance = []
    sets = []
    deltas.foreach_set(sets.append)
    for k in range(common):
        dim = 2 * k + 1
        try:
            lo, hi = sets[0].dim_min(dim), sets[0].dim_max(dim)
            distance.append(bound_text(lo, hi))
        except (isl.Error, IndexError):
            distance.append("*")
    return DependenceView(kind, src.name, dst.name, distance, str(m))


def analyze_file(path: str, cpp_args: Sequence[str] = (), compiler: str = "cc") -> list[ScopView]:
    unit, _ = lift_c_file(path, cpp_args, compiler)
    return [view_scop(scop) for sdfg in unit.functions for scop in find_scops(sdfg)]


def format_text(path: str, views: list[ScopView]) -> str:
    out = []
    for v in views:
        out.append(f"{path}:{v.line}: {v.function}: SCoP at {v.first_node}, parameters: {', '.join(v.parameters) or '-'}"
                   f"  ({v.seconds * 1000:.0f} ms)")
        out.append("  statements:")
        for s in v.statements:
            out.append(f"    {s.name}: {s.code}")
            out.append(f"      domain {s.domain}")
            out.append(f"      reads  {', '.join(s.reads) or '-'}")
            out.append(f"      writes {', '.join(s.writes) or '-'}")
        out.append("  dependences (distance per common loop, outermost first):")
        for d in v.dependences:
            out.append(f"    {d.kind:<6} {d.source} -> {d.sink}  ({', '.join(d.distance) or 'no common loop'})")
        if not v.dependences:
            out.append("    none")
        out.append("  loops:")
        for loop in v.loops:
            pad = "  " * loop.depth
            if loop.parallel:
                what = "parallel"
            else:
                what = f"carries {'/'.join(loop.carried)} on {', '.join(loop.carried_on)}"
                if loop.parallel_if_privatized:
                    what += f"; parallel once {', '.join(loop.privatizable)} is private"
            out.append(f"    {pad}{loop.id} {loop.variable}: {what}")
        if v.reductions:
            out.append(f"  reductions: {'; '.join(v.reductions)}")
        if v.may_alias:
            out.append("  may alias (the model assumes them distinct; a reordering checks at run time):")
            out.extend(f"    {pair}" for pair in v.may_alias)
        out.append("")
    return "\n".join(out)


def format_json(path: str, views: list[ScopView]) -> str:
    return json.dumps({"file": path, "scops": [asdict(v) for v in views]}, indent=1) + "\n"


