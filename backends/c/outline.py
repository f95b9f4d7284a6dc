"""A version's optimized branch as a static function of its own, called where the branch stood.

The compiler compiles a function by what it holds. Kept in the user's function, the optimized
code decides how the user's loops beside it are laid out and whether the function is inlined
into its caller; with sizes known when compiling the optimized branch is dropped, but not those
effects. Outlined, and never inlined back, the user's function keeps the size of the user's and
is compiled as it would be without s2s.

The function gets a parameter, by value, for each name of the user's function that the branch
reads (file-scope names it reaches itself), declared as the file declares it, and a local of its
own for each loop variable the branch counts with without declaring it: such variables are dead
after the SCoP (the SCoP would not have been rewritten otherwise). A branch that writes any other
variable of the function, returns, or uses a name that cannot be passed (a function-scope
``static``, a variable whose address is taken) stays where it is.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from s2s.ir import (
    Array, Block, Declare, For, IfElse, Map, MatMul, Opaque, PackedRight, Return, Scalar, Sequence, Storage,
    Tasklet, While,
)
from s2s.ir import expr as ex

if TYPE_CHECKING:
    from backends.c.printer import CPrinter


@dataclass(frozen=True)
class Outlined:
    call: str         # the statement that calls the function
    definition: str   # the function, to stand before the user's function


class _NotOutlinable(Exception):
    pass


_WORD = re.compile(r"[A-Za-z_]\w*")


def _assignment_of(name: str) -> re.Pattern:
    """Where C text assigns, increments or decrements ``name``."""
    n = re.escape(name)
    return re.compile(rf"\b{n}\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*{n}\b|\b{n}\s*(?:\+\+|--)")


def outline(printer: "CPrinter", body: Sequence, name: str) -> Outlined | None:
    """``body`` as the static function ``name``; None where it cannot be (module docstring)."""
    uses = _Uses(printer)
    try:
        uses.visit(body, frozenset())
        params = uses.parameters()
    except _NotOutlinable:
        return None
    restricted = [p for p in params if isinstance(uses.containers[p], Array) and not uses.containers[p].row_pointers]
    declarations = ", ".join(_renamed(uses.declaration(p), p, INCOMING + p) if p in restricted
                             else uses.declaration(p) for p in params) or "void"
    printer.helpers[OUTLINED] = _OUTLINED_DEFINITION
    lines = [f"{OUTLINED} static void {name}({declarations})", "{"]
    # the branch runs only where its arrays do not overlap (proven, or tested before the call):
    # the compiler may know it too, as it does where it sees the arrays allocated apart
    lines += [printer.pad(1) + f"__typeof__({INCOMING}{p}) __restrict {p} = {INCOMING}{p};" for p in restricted]
    lines += [printer.pad(1) + printer.declaration(v) + ";" for v in sorted(uses.loop_vars)]
    for child in body.children:
        lines += printer.lines(child, 1)
    lines.append("}")
    return Outlined(f"{name}({', '.join(params)});", "\n".join(lines))


# Inlined back into the user's function, the optimized loops ran slower there; cloned for the
# caller's constant sizes (ipa-cp), its parallel loops ran slower than with the sizes as
# parameters (docs/benchmarking.md). clang knows no ``noclone`` and would warn on each function.
# A build may define the macro itself.
OUTLINED = "S2S_OUTLINED"
_OUTLINED_DEFINITION = f"""
#ifndef {OUTLINED}
#if defined(__GNUC__) && !defined(__clang__)
#define {OUTLINED} __attribute__((noinline, noclone))
#else
#define {OUTLINED} __attribute__((noinline))
#endif
#endif
"""

INCOMING = "s2s_in_"  # prefix of an array parameter's name; the function's body sees it restrict-qualified


def _renamed(declaration: str, name: str, new: str) -> str:
    """``declaration`` (C text) declaring ``new`` instead of ``name``."""
    return re.sub(rf"\b{re.escape(name)}\b", new, declaration, count=1)


class _Uses:
    """What a branch takes from its function: names read and loop variables counted without
    being declared; a branch that writes a scalar of its function is refused unless
    ``scalars_out`` (the caller then passes those by address)."""

    def __init__(self, printer: "CPrinter", scalars_out: bool = False):
        self.printer = printer
        self.scalars_out = scalars_out
        self.containers = printer.containers
        self.read: dict[str, None] = {}
        self.loop_vars: set[str] = set()
        self.as_written = {name: text for name, text in printer.sdfg.param_texts
                        if re.search(rf"\b{re.escape(name)}\b", text)}

    def declaration(self, name: str) -> str:
        """How the function declares ``name``: a parameter as the file writes it (its macros
        then mean what they mean where the function stands), else as s2s reads it."""
        return self.as_written.get(name) or self.printer.declaration(name)

    def use(self, names, bound: frozenset[str]) -> None:
        for n in names:
            if n in self.containers and n not in bound:
                self.read.setdefault(n)

    def visit(self, node, bound: frozenset[str]) -> None:
        if isinstance(node, Sequence):
            for child in node.children:
                self.visit(child, bound)
                if isinstance(child, Declare):
                    bound = bound | {child.name}
        elif isinstance(node, Declare):
            if node.init is not None:   # (which writes the name it declares)
                self.visit(node.init, bound | {node.name})
            if node.init_text is not None:
                self.use(_WORD.findall(node.init_text), bound)
        elif isinstance(node, For):
            self.use(ex.names(node.init), bound)
            inner = bound | {node.var}
            if not node.declares_var and node.var not in bound:
                self.loop_vars.add(node.var)
            self.use(ex.names(node.cond) | ex.names(node.update), inner)
            self.visit(node.body, inner)
        elif isinstance(node, Map):
            self.use(ex.names(node.start) | ex.names(node.stop) | ex.names(node.step), bound)
            self.use(node.private, bound)
            if node.team_if is not None:
                self.use(ex.names(node.team_if), bound)
            self.visit(node.body, bound | {node.var})
        elif isinstance(node, IfElse):
            self.use(ex.names(node.cond), bound)
            self.visit(node.then, bound)
            if node.other is not None:
                self.visit(node.other, bound)
        elif isinstance(node, While):
            self.use(ex.names(node.cond), bound)
            self.visit(node.body, bound)
        elif isinstance(node, Block):
            for m in node.graph.writes():
                data = self.containers.get(m.data)
                if m.data not in bound and data is not None and not m.subset and data.storage is not Storage.GLOBAL:
                    if not self.scalars_out:
                        raise _NotOutlinable(f"writes {m.data}")
            self.use(self.block_names(node), bound)
        elif isinstance(node, Opaque):   # (s2s's own text here: a buffer's release)
            free = {n for n in _WORD.findall(node.text) if n in self.containers and n not in bound}
            if any(_assignment_of(n).search(node.text) for n in free if not isinstance(self.containers[n], Array)):
                raise _NotOutlinable("assigns a variable in text")
            self.use(free, bound)
        elif isinstance(node, Return):
            raise _NotOutlinable("returns")
        # (Break and Continue stay inside the branch's own loops)

    def block_names(self, block: Block) -> set[str]:
        """The names a block's code refers to, but those a library node's expansion declares."""
        names: set[str] = set()
        declared: set[str] = set()
        for m in block.graph.edges:
            names |= {m.data} | _names_in(m.subset)
        for c in block.graph.computations():
            if isinstance(c, Tasklet):
                names |= ex.names(self.printer.tasklet_value(block, c))
            elif isinstance(c, PackedRight):   # (its expansion packs the right factors only)
                m = c.matmul
                names |= _names_in((m.j, m.k, m.rights, c.buffer))
                declared |= {m.i.var, m.j.var, m.k.var}
            else:
                names |= _names_in(c)
                if isinstance(c, MatMul):
                    declared |= {c.i.var, c.j.var, c.k.var}
        return names - declared

    def parameters(self) -> list[str]:
        """The names to pass, scalars before arrays (whose extents may name them), each group in
        the function's order of its names."""
        if self.loop_vars & set(self.read):
            raise _NotOutlinable(f"loop variables read outside their loops: {self.loop_vars & set(self.read)}")
        for v in self.loop_vars:
            data = self.containers[v]
            if not isinstance(data, Scalar) or data.storage is not Storage.STACK or data.address_taken:
                raise _NotOutlinable(f"loop variable {v}")
        passed = [n for n in self.read if self.containers[n].storage is not Storage.GLOBAL]
        # the names an array's declaration needs (``double A[n][m]``) come along
        for n in list(passed):
            for word in _WORD.findall(self.declaration(n) + " " + self.printer.declaration(n)):
                data = self.containers.get(word)
                if word != n and data is not None and data.storage is not Storage.GLOBAL and word not in passed:
                    passed.append(word)
        for n in passed:
            data = self.containers[n]
            if data.storage is Storage.STATIC_LOCAL or getattr(data, "address_taken", False):
                raise _NotOutlinable(f"{n} cannot be passed")
            if n in self.loop_vars:
                raise _NotOutlinable(f"{n} is counted with and needed")
        order = {name: k for k, name in enumerate(self.containers)}   # (the function's: parameters first)
        passed.sort(key=lambda n: (isinstance(self.containers[n], Array), order[n]))
        return passed


def _names_in(value) -> set[str]:
    """Every name in ``value``: an expression, a string, or a dataclass or tuple holding them."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, ex.Expr.__args__):
        return ex.names(value)
    if isinstance(value, (tuple, list)):
        return set().union(*(_names_in(v) for v in value))
    if dataclasses.is_dataclass(value):
        return set().union(*(_names_in(getattr(value, f.name)) for f in dataclasses.fields(value)))
    return set()
