"""Which variables a SCoP leaves behind that later code still reads.

Code generation may change the value a loop variable has after its loop (isl's loops end at other
values, or have other names). A loop variable declared outside its loop is live after the SCoP
when some path from the SCoP's end reads it before overwriting it. The paths are followed through
the control tree: the rest of the SCoP's sequence, the next iterations of the loops around it, and
the code after them, up to the end of the variable's scope (its declaration's block, or the
function). A read is anything that may read: a loop header, a subscript, opaque code. A
``break`` or ``continue`` in a loop looked at ends a path in it; one that leaves for a loop
around the SCoP, or a ``goto`` anywhere, counts as a read.
"""
from __future__ import annotations

import re
from enum import Enum

from s2s.analysis.scop import Scop
from s2s.ir import Block, Break, Continue, ControlNode, Declare, For, IfElse, Map, Opaque, Return, Sequence, Storage, \
    While, expr as ex
from s2s.ir.control import child_nodes, walk
from s2s.ir.rewrite import mentioned_names


_GOTO = re.compile(r"\b(goto|longjmp)\b")
_LOOP_EXIT = re.compile(r"\b(break|continue)\b")


class First(Enum):
    """What a piece of code does first with a variable, on every path through it."""

    READS = "reads"           # some path may read it before writing it
    OVERWRITES = "overwrites"  # every path writes it before reading it, or ends the function
    NEITHER = "neither"        # some path leaves it as it was


def live_loop_variables(scop: Scop) -> list[str]:
    return live_after(scop, {l.node.var for l in scop.loops if not l.node.declares_var})


def live_after(scop: Scop, names: set[str]) -> list[str]:
    """Those of ``names`` (variables declared outside the SCoP) that code after the SCoP may read
    before overwriting them, or that outlive the function. (Of a rewritten SCoP, after the user's
    SCoP it rewrites; a variable the rewriting introduced is nowhere else.)"""
    containers = scop.sdfg.container_map
    user = scop.origin or scop
    outside = set(names)
    path = _path_to(user.sdfg.body, user.parent)
    if path is None:
        return sorted(outside)
    in_scop = {id(n) for n in user.nodes}
    indices = [k for k, c in enumerate(user.parent.children) if id(c) in in_scop]
    live = []
    for v in sorted(outside):
        data = containers.get(v)
        # a global or static variable outlives the function; a pointer may read one whose address is taken
        if data is None or data.storage in (Storage.GLOBAL, Storage.STATIC_LOCAL) or getattr(
                data, "address_taken", False) or _read_later(v, path, indices[0], indices[-1]):
            live.append(v)
    return live


def _path_to(root: ControlNode, target: Sequence) -> list[ControlNode] | None:
    """The nodes from ``root`` down to ``target`` (both included)."""
    if root is target:
        return [root]
    for child in child_nodes(root):
        below = _path_to(child, target)
        if below is not None:
            return [root, *below]
    return None


def _read_later(v: str, path: list[ControlNode], first: int, last: int) -> bool:
    """Whether ``v`` may be read once children ``first..last`` of ``path[-1]`` have run."""
    level = len(path) - 1
    escaped = False  # some path left by break or continue: a write after it on the way is not on every path
    while True:
        seq = path[level]
        for node in seq.children[last + 1:]:
            if isinstance(node, Declare) and node.name == v:
                break  # the rest of the block means another variable
            escaped = escaped or _escapes(node)
            verdict = _first(v, node, in_body=True)
            if verdict is First.READS:
                return True
            if verdict is First.OVERWRITES:
                if not escaped:
                    return False
                break  # the paths that fell through are done; those that left go on below
        if any(isinstance(c, Declare) and c.name == v for c in seq.children[:first]):
            return False  # its block ends here (a next iteration declares it anew)
        if level == 0:
            return False  # the function ends
        holder = path[level - 1]
        if isinstance(holder, (For, While, Map)):
            header = ex.names(holder.cond) if isinstance(holder, While) else (
                ex.names(holder.update) | ex.names(holder.cond) if isinstance(holder, For) else set())
            # the next iteration: the loop's test, then its body down to where we came from
            if v in header or _first_in(v, seq.children[:last + 1], in_body=True) is First.READS:
                return True
            escaped = False  # a break or continue met so far belongs to this loop: its paths are followed
        level -= 1
        while not isinstance(path[level], Sequence):
            level -= 1
        element = path[level + 1]
        first = last = next(k for k, c in enumerate(path[level].children) if c is element)


def _first_in(v: str, nodes: tuple[ControlNode, ...] | list[ControlNode], in_body: bool = False) -> First:
    for node in nodes:
        if isinstance(node, Declare) and node.name == v:
            return First.NEITHER  # the rest of the block means another variable
        verdict = _first(v, node, in_body)
        if verdict is not First.NEITHER:
            return verdict
    return First.NEITHER


def _escapes(node: ControlNode) -> bool:
    """Whether control may leave ``node`` for the loop around it: a ``break`` or ``continue`` not
    inside a loop of its own (in opaque code, any)."""
    if isinstance(node, (Break, Continue)):
        return True
    if isinstance(node, Opaque):
        return bool(_LOOP_EXIT.search(node.text))
    if isinstance(node, (For, While, Map)):
        return False
    return any(_escapes(c) for c in child_nodes(node))


def _goes_anywhere(node: ControlNode) -> bool:
    """Whether ``node`` holds a ``goto`` (or ``longjmp``): control may go anywhere from it."""
    return any(isinstance(n, Opaque) and _GOTO.search(n.text) for n in walk(node))


def _first(v: str, node: ControlNode, in_body: bool = False) -> First:
    """What ``node`` does first with ``v``. ``in_body``: the node is in the body of a loop being
    looked at, whose own ``break`` and ``continue`` end a path there (the loop's result is only
    ever "reads" or "neither", but for a do-while body, see below)."""
    if isinstance(node, Return):
        return First.READS if node.value is not None and v in ex.names(node.value) else First.OVERWRITES
    if _goes_anywhere(node) or (_escapes(node) and not in_body):
        return First.READS
    if v not in set(mentioned_names(node)):
        return First.NEITHER
    if isinstance(node, Sequence):
        return _first_in(v, node.children, in_body)
    if isinstance(node, Block):
        graph = node.graph
        if (any(e.data == v for e in graph.reads()) or any(e.data == v and e.wcr for e in graph.writes())
                or any(v in ex.names(s) for e in graph.edges for s in e.subset if not hasattr(s, "start"))
                or any(v in ex.names(c.expr) for c in graph.computations() if hasattr(c, "expr"))):
            return First.READS
        return First.OVERWRITES if any(e.data == v for e in graph.writes()) else First.READS
    if isinstance(node, For):
        if node.declares_var and node.var == v:
            return First.NEITHER  # another variable, in scope in the loop only
        if v in ex.names(node.init):
            return First.READS
        if node.var == v:
            return First.OVERWRITES
        if v in ex.names(node.cond) or _first(v, node.body, True) is First.READS or v in ex.names(node.update):
            return First.READS
        return First.NEITHER  # the body may not run
    if isinstance(node, Map):
        if v in ex.names(node.start) | ex.names(node.stop) | ex.names(node.step) or v in node.private:
            return First.READS
        return First.NEITHER if node.var == v or _first(v, node.body, True) is not First.READS else First.READS
    if isinstance(node, IfElse):
        if v in ex.names(node.cond):
            return First.READS
        branches = [_first(v, node.then, in_body),
                    _first(v, node.other, in_body) if node.other is not None else First.NEITHER]
        if First.READS in branches:
            return First.READS
        return First.OVERWRITES if all(b is First.OVERWRITES for b in branches) else First.NEITHER
    if isinstance(node, While):
        body = _first(v, node.body, True)
        if node.test_first:
            return First.READS if v in ex.names(node.cond) or body is First.READS else First.NEITHER
        if body is First.OVERWRITES and _escapes(node.body):
            body = First.NEITHER  # a break or continue may skip the write
        if body is not First.NEITHER:
            return body
        return First.READS if v in ex.names(node.cond) else First.NEITHER
    return First.READS  # opaque code, and anything else: it may read
