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
