"""Control flow of an LLVM function: its graph of blocks, dominators, post-dominators and natural
loops (networkx's dominance algorithms), and the counted loops among them.

A loop as loop-simplify leaves it has a preheader, a header, one latch and dedicated exit blocks.
It is *counted* when its header has an induction phi ``i = phi [init, preheader], [i + c,
latch]`` (``c`` a constant, the add marked ``nsw`` or ``nuw``) and its latch leaves it on a
compare of ``i + c`` with a value defined outside the loop: ``eq``/``ne`` (LLVM's own exit test
after indvars) or the signed and unsigned orderings. Such a loop is C's ``for (i = init; i != b;
i += c)``: clang rotates loops into do-while form behind a guard, and entering one whose first
test fails would run it until ``i + c`` wraps, which the flag makes undefined.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import networkx as nx

from frontends.llvm.module import Function, Instruction, Value

EXIT = "<exit>"   # the virtual block after every return (post-dominators)


@dataclass
class Loop:
    header: str
    latch: str
    blocks: frozenset[str]
    exits: tuple[str, ...]     # blocks outside it that its blocks branch to
    preheader: str | None
    parent: Loop | None = None


@dataclass(frozen=True)
class CountedLoop:
    """``for (var = init; var <test> bound + bound_offset; var += step)``."""

    phi: Instruction
    increment: Instruction
    compare: Instruction
    init: Value
    bound: Value
    step: int
    test: str        # C's operator for the continue test: "!=", "<", "<=", ">", ">="
    unsigned: bool   # the test compares unsigned values
    bound_offset: int = 0   # the test is ``var <test> bound + bound_offset``


class ControlFlow:
    def __init__(self, function: Function):
        self.function = function
        self.graph = nx.DiGraph()
        entry = function.blocks[0].name
        self.entry = entry
        for b in function.blocks:
            self.graph.add_node(b.name)
            for s in b.successors:
                self.graph.add_edge(b.name, s)
        reachable = nx.descendants(self.graph, entry) | {entry}
        self.graph = self.graph.subgraph(reachable).copy()
        self.idom = nx.immediate_dominators(self.graph, entry)
        reverse = self.graph.reverse(copy=True)
        reverse.add_node(EXIT)
        for name in reachable:
            if not function.block(name).successors:
                reverse.add_edge(EXIT, name)
        self.ipdom = nx.immediate_dominators(reverse, EXIT)
        self.loops = self._loops()

    def dominates(self, a: str, b: str) -> bool:
        while True:
            if a == b:
                return True
            parent = self.idom.get(b)
            if parent is None or parent == b:
                return False
            b = parent

    def join(self, block: str) -> str | None:
        """Where the paths from ``block`` meet again (its immediate post-dominator; None: at the exit)."""
        j = self.ipdom.get(block)
        return None if j in (None, EXIT) else j

    def _loops(self) -> dict[str, Loop]:
        """The natural loops by header, each with one latch (loop-simplify's form); a header with
        several back edges is a loop of several latches, which ``irreducible`` reports."""
        back = [(u, h) for u, h in self.graph.edges if self.dominates(h, u)]
        loops: dict[str, Loop] = {}
        self.problems: list[str] = []
        for u, h in back:
            if h in loops:
                self.problems.append(f"loop at {h} has several back edges")
                continue
            body = _reaching(self.graph, u, h)
            exits = tuple(sorted({s for b in body for s in self.graph.successors(b) if s not in body}))
            outside = [p for p in self.graph.predecessors(h) if p not in body]
            loops[h] = Loop(h, u, frozenset(body), exits, outside[0] if len(outside) == 1 else None)
        for loop in loops.values():
            enclosing = [o for o in loops.values() if o is not loop and loop.header in o.blocks]
            loop.parent = min(enclosing, key=lambda o: len(o.blocks)) if enclosing else None
        for u, v in self.graph.edges:
            if v not in loops and any(v in lp.blocks and u not in lp.blocks and v != lp.header for lp in loops.values()):
                self.problems.append(f"irreducible control flow into {v}")
        return loops

    def loop_of(self, block: str) -> Loop | None:
        """The innermost loop holding ``block``."""
        holding = [lp for lp in self.loops.values() if block in lp.blocks]
        return min(holding, key=lambda lp: len(lp.blocks)) if holding else None

    def counted(self, loop: Loop, defined_in: dict[str, str]) -> CountedLoop | str:
        """The loop as a counted loop, or why it is not one (``defined_in``: block of each value)."""
        latch = self.function.block(loop.latch)
        branch = latch.terminator
        if branch.opcode != "br" or len(branch.targets) != 2 or not branch.operands:
            return "its latch does not end in a conditional branch"
        if loop.header not in branch.targets:
            return "its latch does not branch back to its header"
        compare_name = branch.operands[0].name
        header = self.function.block(loop.header)
        insts = {i.name: i for b in loop.blocks for i in self.function.block(b).instructions if i.name}
        compare = insts.get(compare_name)
        if compare is None or compare.opcode != "icmp":
            return "its exit test is not an integer compare"
        continue_on_true = branch.targets[0] == loop.header
        for phi in (i for i in header.instructions if i.opcode == "phi"):
            back = [v for v, b in phi.incoming if b == loop.latch]
            entry = [v for v, b in phi.incoming if b != loop.latch]
            if len(back) != 1 or len(entry) != 1 or back[0].name not in insts:
                continue
            increment = insts[back[0].name]
            if increment.opcode != "add" or not (increment.flags & {"nsw", "nuw"}):
                continue
            operands = increment.operands
            if operands[0].name == phi.name and operands[1].is_constant:
                step = int(operands[1].constant)
            elif operands[1].name == phi.name and operands[0].is_constant:
                step = int(operands[0].constant)
            else:
                continue
            left, right = compare.operands
            predicate = compare.predicate
            # (a test of the value before the step holds for the next value shifted by the step)
            offset = 0
            if left.name == increment.name:
                bound = right
            elif right.name == increment.name:
                bound, predicate = left, _SWAPPED[predicate]
            elif left.name == phi.name:
                bound, offset = right, step
            elif right.name == phi.name:
                bound, predicate, offset = left, _SWAPPED[predicate], step
            else:
                continue
            if bound.name is not None and not bound.is_global and defined_in.get(bound.name, "") in loop.blocks:
                return "its bound changes inside it"
            test = _C_TEST[predicate] if continue_on_true else _C_TEST[_NEGATED[predicate]]
            if test == "==" or step == 0:
                return "its exit test is not a bound"
            if test in ("<", "<=") and step < 0 or test in (">", ">=") and step > 0:
                return "its step moves away from its bound"
            return CountedLoop(phi, increment, compare, entry[0], bound, step, test,
                               unsigned=predicate.startswith("u"), bound_offset=offset)
        return "no induction variable steps to its exit test"


_SWAPPED = {"eq": "eq", "ne": "ne", "slt": "sgt", "sgt": "slt", "sle": "sge", "sge": "sle",
            "ult": "ugt", "ugt": "ult", "ule": "uge", "uge": "ule"}
_NEGATED = {"eq": "ne", "ne": "eq", "slt": "sge", "sge": "slt", "sgt": "sle", "sle": "sgt",
            "ult": "uge", "uge": "ult", "ugt": "ule", "ule": "ugt"}
_C_TEST = {"eq": "==", "ne": "!=", "slt": "<", "ult": "<", "sle": "<=", "ule": "<=", "sgt": ">", "ugt": ">",
           "sge": ">=", "uge": ">="}


def drop_zero_trip_guards(function: Function, cf: ControlFlow) -> bool:
    """Remove the tests clang puts in front of a rotated loop that C's for tests itself: ``if (n
    == 0) t = x; else { for (k = 0; k != n; k++) ...; t = y; }``, where ``y`` is what a header
    phi starting at ``x`` holds after the loop. Printed as ``for (k = 0; k != n; k++)``, the
    loop runs no iteration where the guard skips it, and the phi's variable keeps ``x``; without
    the guard the if and its value (a phi that orders the statements around it) are gone, as in
    the C. Only for a loop whose test is ``!=`` of its counter's next value (the only test C
    prints as it is, zero-trip included), whose preheader does nothing, whose one exit leads to
    the guard's join and nowhere else, and a guard that enters it exactly where its start is not
    its bound (``_enters_as_its_test``). Whether any guard was removed (the caller computes the
    control flow again)."""
    defined_in = {i.name: b.name for b in function.blocks for i in b.instructions if i.name}
    insts = {i.name: i for b in function.blocks for i in b.instructions if i.name}
    changed = False
    for loop in cf.loops.values():
        p = loop.preheader
        if p is None or len(loop.exits) != 1 or len(function.block(p).instructions) != 1:
            continue
        guards = list(cf.graph.predecessors(p))
        if len(guards) != 1:
            continue
        guard = function.block(guards[0])
        exit_ = function.block(loop.exits[0])
        branch = guard.terminator
        if branch.opcode != "br" or len(branch.targets) != 2 or len(exit_.successors) != 1:
            continue
        join = exit_.successors[0]
        if set(branch.targets) != {p, join} or set(cf.graph.predecessors(join)) != {guard.name, exit_.name}:
            continue
        if any(i.opcode != "phi" for i in exit_.instructions[:-1]):
            continue
        counted = cf.counted(loop, defined_in)
        if isinstance(counted, str) or counted.test != "!=" or counted.bound_offset:
            continue
        compare = insts.get(branch.operands[0].name or "")
        if compare is None or compare.opcode != "icmp" or not _enters_as_its_test(
                compare, branch.targets[0] == p, counted, cf, defined_in):
            continue
        header_phis = {i.name: i for i in function.block(loop.header).instructions if i.opcode == "phi"}
        back_of = {next(v.name for v, b in phi.incoming if b == loop.latch): phi for phi in header_phis.values()}
        lcssa = {i.name: i for i in exit_.instructions if i.opcode == "phi"}
        fits = True
        for phi in (i for i in function.block(join).instructions if i.opcode == "phi"):
            skipped = next(v for v, b in phi.incoming if b == guard.name)
            after = next(v for v, b in phi.incoming if b == exit_.name)
            if after == skipped:
                continue
            inner = lcssa.get(after.name or "")
            head = back_of.get(inner.incoming[0][0].name) if inner is not None and len(inner.incoming) == 1 else None
            if head is None or next(v for v, b in head.incoming if b != loop.latch) != skipped:
                fits = False
                break
        if not fits:
            continue
        branch.operands, branch.targets = [], [p]
        branch.text = f"br label %{p}"
        for phi in (i for i in function.block(join).instructions if i.opcode == "phi"):
            phi.incoming = [(v, b) for v, b in phi.incoming if b != guard.name]
        changed = True
    return changed


def _enters_as_its_test(compare: Instruction, true_enters: bool, counted: CountedLoop, cf: ControlFlow,
                        defined_in: dict[str, str]) -> bool:
    """Whether ``compare`` (true: the loop is entered, where ``true_enters``) holds exactly where
    the counter's start is not its bound: ``start != bound``, or ``start < bound`` (``>`` for a
    step down) where the start never passes the bound (a constant bound, a start of known
    values; both at least 0 for an unsigned compare)."""
    predicate = compare.predicate if true_enters else _NEGATED[compare.predicate]
    a, b = compare.operands
    if (a, b) == (counted.bound, counted.init):
        a, b, predicate = b, a, _SWAPPED[predicate]
    elif (a, b) != (counted.init, counted.bound):
        return False
    if predicate == "ne":
        return True
    below = predicate in ("slt", "ult") and counted.step > 0
    above = predicate in ("sgt", "ugt") and counted.step < 0
    start = _constant_values(counted.init, cf, defined_in)
    if not (below or above) or start is None or not _is_int(counted.bound):
        return False
    bound = int(counted.bound.constant)
    if predicate.startswith("u") and (start[0] < 0 or bound < 0):
        return False
    return start[1] <= bound if below else start[0] >= bound


def _is_int(v: Value) -> bool:
    return v.is_constant and re.fullmatch(r"-?\d+", v.constant or "") is not None


def _constant_values(v: Value, cf: ControlFlow, defined_in: dict[str, str]) -> tuple[int, int] | None:
    """The least and greatest value of ``v``: a constant, or the counter of a loop between two
    constants (``for (i = 1999; i >= 0; i--)``, as clang propagates PolyBench's sizes)."""
    if _is_int(v):
        return int(v.constant), int(v.constant)
    loop = cf.loops.get(defined_in.get(v.name or "", ""))
    if loop is None:
        return None
    counted = cf.counted(loop, defined_in)
    if isinstance(counted, str) or counted.phi.name != v.name or counted.test != "!=" \
            or abs(counted.step) != 1 or not _is_int(counted.init) or not _is_int(counted.bound):
        return None
    first = int(counted.init.constant)
    last = int(counted.bound.constant) + counted.bound_offset - counted.step
    return min(first, last), max(first, last)


def _reaching(graph: nx.DiGraph, tail: str, header: str) -> set[str]:
    """The blocks that reach ``tail`` without passing ``header`` (a natural loop's body)."""
    seen, todo = {tail, header}, [tail] if tail != header else []
    while todo:
        b = todo.pop()
        for p in graph.predecessors(b):
            if p != header and p not in seen:
                seen.add(p)
                todo.append(p)
    return seen
