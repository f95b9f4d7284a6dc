"""Which variables a SCoP leaves behind that later code still reads.

Code generation may change the value a loop variable has after its loop (isl's loops end at other
values, or have other names). A loop variable declared outside its loop is live after the SCoP
unless the next code to mention it overwrites it first (the usual ``for (i = 0; ...)`` again).
"""
from __future__ import annotations

from s2s.analysis.scop import Scop
from s2s.ir import For, Storage, expr as ex
from s2s.ir.rewrite import mentioned_names


def live_loop_variables(scop: Scop) -> list[str]:
    sdfg = scop.sdfg
    containers = sdfg.container_map
    in_scop = {id(n) for n in scop.nodes}
    outside = {l.node.var for l in scop.loops if not l.node.declares_var}
    live = []
    children = list(scop.parent.children)
    last = max(k for k, c in enumerate(children) if id(c) in in_scop)
    for v in sorted(outside):
        data = containers.get(v)
        if data is None or data.storage in (Storage.GLOBAL, Storage.STATIC_LOCAL):
            live.append(v)
            continue
        verdict = None
        for later in children[last + 1:]:
            if v in set(mentioned_names(later)):
                killed = isinstance(later, For) and later.var == v and v not in ex.names(later.init)
                verdict = "dead" if killed else "live"
                break
        if verdict is None:
            if scop.parent.id == sdfg.body.id:
                verdict = "dead"
            else:
                # nested in other control: dead only if nothing else in the function mentions it
                others = [n for n in sdfg.body.children]
                mentions = sum(1 for n in others for name in mentioned_names(n) if name == v)
                inside = sum(1 for n in scop.nodes for name in mentioned_names(n) if name == v)
                verdict = "dead" if mentions == inside else "live"
        if verdict == "live":
            live.append(v)
    return live
