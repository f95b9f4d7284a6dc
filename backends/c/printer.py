"""IR -> C statements: one method per control node, failing loudly on anything it does not know.

Other back ends (OpenMP, Highway, CUDA) subclass ``CPrinter`` and override the few methods that
differ (``print_Map``, ``expr_printer``, ...).
"""
from __future__ import annotations

import re

from s2s.ir import (
    SDFG, Access, Array, Binary, Block, Break, Const, Continue, ControlNode, Declare, Expr,
    ExprPrinter, For, IfElse, LibraryNode, MatMul, Map, Opaque, PackedRight, Range, Return, Sequence, Sym, Tasklet, While,
    ROWS_APART,
)
from s2s.ir import expr as ex
from s2s.ir.rewrite import free_names

from backends.c.matmul import MatMulCode, expand_matmul, expand_packed_right
from backends.c.outline import outline


class CPrinter:
    indent_unit = "  "
    threads = False   # whether library node expansions may start threads (OpenMP)

    def __init__(self, sdfg: SDFG, expr_printer: ExprPrinter | None = None, outline: bool = False):
        self.sdfg = sdfg
        self.containers = sdfg.container_map
        self.expr = expr_printer or ExprPrinter()
        # file-scope functions the printed statements call, by name (``merged_definitions`` joins those of several printers)
        self.helpers: dict[str, str] = {}
        # whether branches marked ``outline`` become functions of their own (``outlined``), which
        # the caller puts in front of the user's function
        self.outline = outline
        self.outlined: list[str] = []

    # --- entry points ---------------------------------------------------------------------------

    def statement(self, node: ControlNode) -> str:
        """C text of one control node (no trailing newline)."""
        return "\n".join(self.lines(node, 0))

    def lines(self, node: ControlNode, level: int) -> list[str]:
        method = getattr(self, "print_" + type(node).__name__, None)
        if method is None:
            raise TypeError(f"{type(self).__name__} cannot print {type(node).__name__} ({node.id})")
        return method(node, level)

    def pad(self, level: int) -> str:
        return self.indent_unit * level

    # --- control --------------------------------------------------------------------------------

    def print_Sequence(self, node: Sequence, level: int) -> list[str]:
        return [self.pad(level) + "{", *self.children(node, level + 1), self.pad(level) + "}"]

    def body(self, header: str, body: Sequence, level: int) -> list[str]:
        """``header`` followed by a braced body."""
        return [self.pad(level) + header + " {", *self.children(body, level + 1), self.pad(level) + "}"]

    def children(self, node: Sequence, level: int) -> list[str]:
        """The statements of a sequence, less the declarations nothing after them refers to (the
        user's loops that used them may have been replaced by loops with variables of their own:
        left in, they would draw -Wunused-variable where the user's build had no warning)."""
        kept: list[ControlNode] = []
        later: set[str] = set()  # the names the statements after this one refer to
        for child in reversed(node.children):
            if not (isinstance(child, Declare) and child.init is None and child.init_text is None
                    and child.name not in later):
                kept.append(child)
                later |= free_names(child)
        return [line for child in reversed(kept) for line in self.lines(child, level)]

    def print_For(self, node: For, level: int) -> list[str]:
        var = node.var
        init = f"{self.declaration(var)} = " if node.declares_var else f"{var} = "
        header = f"for ({init}{self.expr(node.init)}; {self.expr(node.cond)}; {self.update(var, node.update)})"
        return self.body(header, node.body, level)

    def update(self, var: str, update: Expr) -> str:
        if isinstance(update, Binary) and update.lhs == Sym(var):
            if update.rhs == Const("1") and update.op in "+-":
                return f"{var}{update.op * 2}"
            if update.op in ("+", "-", "*", "/", "<<", ">>"):
                return f"{var} {update.op}= {self.expr.print(update.rhs, 2)}"
        return f"{var} = {self.expr(update)}"

    def print_Map(self, node: Map, level: int) -> list[str]:
        return self.map_pragmas(node, level) + self.map_loop(node, level)

    def map_loop(self, node: Map, level: int) -> list[str]:
        """A Map's ``for`` loop, without its annotations."""
        v = node.var
        header = (f"for ({self.declaration(v)} = {self.expr(node.start)}; {self.expr(ex.Binary('<', Sym(v), node.stop))}; "
                  f"{self.update(v, ex.Binary('+', Sym(v), node.step))})")
        return self.body(header, node.body, level)

    def map_pragmas(self, node: Map, level: int) -> list[str]:
        """Annotations before a Map's loop; plain C has none (its loops are correct sequentially)."""
        return []

    def parallel_if(self, team_if: Expr | None = None) -> str:
        """A clause for a parallel region that decides at run time whether it gets threads
        (``team_if``: the region's own condition for that)."""
        return ""

    def define_checks(self, cond: Expr) -> None:
        """Define the run-time checks that ``cond`` calls (file-scope helpers)."""
        if ROWS_APART in ex.calls(cond):
            self.helpers[ROWS_APART] = _ROWS_APART_DEFINITION

    def print_IfElse(self, node: IfElse, level: int) -> list[str]:
        self.define_checks(node.cond)
        cond = self.expr(node.cond)
        if node.likely:
            self.helpers[LIKELY] = _LIKELY_DEFINITION
            cond = f"{LIKELY}({cond})"
        elif node.balanced:
            self.helpers[EITHER] = _EITHER_DEFINITION
            cond = f"{EITHER}({cond})"
        out = self.body(f"if ({cond})", node.then, level) if not node.outline else self.outlined_branch(
            f"if ({cond})", node.then, level)
        if node.other is not None:
            rest = self.body("else", node.other, level)
            out[-1] += " " + rest[0].strip()
            out += rest[1:]
        return out

    def outlined_branch(self, header: str, branch: Sequence, level: int) -> list[str]:
        """``header`` over a call of ``branch`` made a function of its own (outline.py), or over
        ``branch`` itself where it cannot be."""
        made = outline(self, branch, f"s2s_{self.sdfg.name}_opt{len(self.outlined) + 1}") if self.outline else None
        if made is None:
            return self.body(header, branch, level)
        self.outlined.append(made.definition)
        return [self.pad(level) + header + " {", self.pad(level + 1) + made.call, self.pad(level) + "}"]

    def print_While(self, node: While, level: int) -> list[str]:
        if node.test_first:
            return self.body(f"while ({self.expr(node.cond)})", node.body, level)
        out = self.body("do", node.body, level)
        out[-1] += f" while ({self.expr(node.cond)});"
        return out

    def print_Break(self, node: Break, level: int) -> list[str]:
        return [self.pad(level) + "break;"]

    def print_Continue(self, node: Continue, level: int) -> list[str]:
        return [self.pad(level) + "continue;"]

    def print_Return(self, node: Return, level: int) -> list[str]:
        return [self.pad(level) + ("return;" if node.value is None else f"return {self.expr(node.value)};")]

    def print_Opaque(self, node: Opaque, level: int) -> list[str]:
        lines = node.text.rstrip("\n").split("\n")
        # Preprocessor lines must start their line; other text keeps its own relative indentation.
        return [ln if ln.lstrip().startswith("#") else self.pad(level) + ln for ln in lines]

    def print_Declare(self, node: Declare, level: int) -> list[str]:
        text = self.declaration(node.name)
        if node.assigned_later or (node.init is None and node.init_text is None):
            text = re.sub(r"^const\s+|(?<=\s)const\s+", "", text)  # (statements after it set it)
        if node.init is not None:
            (tasklet,) = node.init.graph.computations()
            text += " = " + self.expr(self.tasklet_value(node.init, tasklet))
        elif node.init_text is not None:
            text += " = " + node.init_text
        return [self.pad(level) + text + ";"]

    def declaration(self, name: str) -> str:
        data = self.containers[name]
        if data.declaration:
            return data.declaration
        if isinstance(data, Array):
            dims = "".join(f"[{'' if d is None else self.expr(d)}]" for d in data.shape)
            return f"{data.dtype.spelling} {name}{dims}"
        return f"{data.dtype.spelling} {name}"

    # --- dataflow -------------------------------------------------------------------------------

    def print_Block(self, node: Block, level: int) -> list[str]:
        out = []
        for comp in node.graph.computations():
            if isinstance(comp, Tasklet):
                out.append(self.pad(level) + self.tasklet_statement(node, comp))
            elif isinstance(comp, MatMul):
                threads = self.threads and comp.parallel
                code = expand_matmul(comp, self.expr, set(self.containers), threads,
                                     self.parallel_if(comp.team_if) if threads else "")
                self.matmul_helpers(comp, code)
                out += [self.pad(level) + line for line in code.lines]
            elif isinstance(comp, PackedRight):
                out += [self.pad(level) + line for line in expand_packed_right(comp, self.expr, set(self.containers))]
            elif isinstance(comp, LibraryNode):
                out.append(self.pad(level) + self.library_statement(node, comp))
        return out

    def matmul_helpers(self, node: MatMul, code: MatMulCode) -> None:
        """Define at file scope what ``node``'s expansion ``code`` calls."""
        self.helpers[code.helper_name] = code.helper

    def memlet_expr(self, data: str, subset) -> Expr:
        if not subset:
            return Sym(data)
        if any(isinstance(s, Range) for s in subset):
            raise TypeError(f"a range memlet on {data} cannot be printed as an element")
        return Access(data, tuple(subset))

    def tasklet_value(self, block: Block, t: Tasklet) -> Expr:
        """The tasklet's expression with each input connector replaced by what flows into it."""
        mapping = {e.dst_conn: self.memlet_expr(e.data, e.subset) for e in block.graph.in_edges(t.id)}
        return ex.substitute(t.expr, mapping)

    def tasklet_statement(self, block: Block, t: Tasklet) -> str:
        value = self.tasklet_value(block, t)
        if t.output is None:
            return self.expr(value) + ";"
        (out_edge,) = [e for e in block.graph.out_edges(t.id) if e.src_conn == t.output]
        target = self.memlet_expr(out_edge.data, out_edge.subset)
        lhs = self.expr(target)
        if t.guarded_store and isinstance(value, ex.Ternary) and value.other == target:
            return f"if ({self.expr(value.cond)}) {lhs} = {self.expr.print(value.then, 2)};"
        if isinstance(value, Binary) and value.lhs == target and value.op in _COMPOUND:
            if value.rhs == Const("1") and value.op in "+-":
                return f"{lhs}{value.op * 2};"
            return f"{lhs} {value.op}= {self.expr.print(value.rhs, 2)};"
        return f"{lhs} = {self.expr.print(value, 2)};"

    def library_statement(self, block: Block, node: LibraryNode) -> str:
        return f"{node.name}({', '.join(self.expr.print(a, 2) for a in node.args)});"


_COMPOUND = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"}

# Addresses as integers: the rows may belong to different objects, which C does not let pointers compare.
_ROWS_APART_DEFINITION = f"""
static int {ROWS_APART}(const void *const *rows, long first, long last, long lo, long hi, unsigned long size)
{{
  for (long r = first; r < last; r++)
    if ((unsigned long)rows[r] + (unsigned long)((hi + 1) * (long)size) >
        (unsigned long)rows[r + 1] + (unsigned long)(lo * (long)size))
      return 0;
  return 1;
}}
"""


LIKELY = "S2S_LIKELY"
_LIKELY_DEFINITION = f"""
#ifndef {LIKELY}
#if defined(__GNUC__)
#define {LIKELY}(c) __builtin_expect(!!(c), 1)
#else
#define {LIKELY}(c) (c)
#endif
#endif
"""

# A test either of whose outcomes may be the common one: with no word on it gcc judges a long
# `&&` chain unlikely and compiles its branch as cold code, without vectorizing it.
EITHER = "S2S_EITHER"
_EITHER_DEFINITION = f"""
#ifndef {EITHER}
#if defined(__has_builtin)
#if __has_builtin(__builtin_expect_with_probability)
#define {EITHER}(c) __builtin_expect_with_probability(!!(c), 1, 0.5)
#endif
#endif
#ifndef {EITHER}
#define {EITHER}(c) (c)
#endif
#endif
"""


def merged_definitions(helpers: list[dict[str, str]]) -> str:
    """C text of the file-scope functions of several printers (``CPrinter.helpers``), each once:
    printers of different functions name the same function when they print the same kernel."""
    merged: dict[str, str] = {}
    for h in helpers:
        for name, definition in h.items():
            merged.setdefault(name, definition)
    return "".join(merged.values())
