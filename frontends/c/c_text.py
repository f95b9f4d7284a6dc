"""Printing pycparser ASTs back to C, undoing the parser workarounds of ``parse.prepare``."""
from __future__ import annotations

import copy
import re

from pycparser import c_ast
from pycparserext.ext_c_generator import GnuCGenerator

from frontends.c.parse import VA_ARG_PLACEHOLDER


class CText(GnuCGenerator):
    """pycparserext's printer, with GNU statement expressions printed in their parentheses."""

    def __init__(self) -> None:
        super().__init__()
        self._blocks: set[int] = set()   # ids of the compounds that stand as statements

    def _generate_stmt(self, n, add_indent=False):
        if isinstance(n, c_ast.Compound):
            self._blocks.add(id(n))
        return super()._generate_stmt(n, add_indent)

    def visit_FuncDef(self, n: c_ast.FuncDef) -> str:
        self._blocks.add(id(n.body))
        return super().visit_FuncDef(n)

    def visit_Compound(self, n: c_ast.Compound) -> str:
        if id(n) in self._blocks:
            self._blocks.discard(id(n))
            return super().visit_Compound(n)
        # (pycparserext parses ``({ ... })`` to a bare Compound in an expression)
        return "(" + super().visit_Compound(n).rstrip() + ")"

    def visit_FuncCall(self, n: c_ast.FuncCall) -> str:
        if isinstance(n.name, c_ast.ID) and n.name.name == VA_ARG_PLACEHOLDER and n.args and len(n.args.exprs) == 2:
            ap, size = n.args.exprs
            if isinstance(size, c_ast.UnaryOp) and size.op == "sizeof":
                return f"__builtin_va_arg({self.visit(ap)}, {self.visit(size.expr)})"
        return super().visit_FuncCall(n)

    def _generate_type(self, n, modifiers=None, emit_declname=True, emit_base_type=True):
        # pycparser >= 3.11 asks for declarators without their shared base type (``int a, *b``);
        # pycparserext's override predates that keyword, so strip the base type ourselves.
        full = super()._generate_type(n, modifiers, emit_declname=emit_declname)
        if emit_base_type:
            return full
        inner = n
        while not isinstance(inner, c_ast.TypeDecl) and hasattr(inner, "type"):
            inner = inner.type
        base = (" ".join(inner.quals) + " " if inner.quals else "") + self.visit(inner.type)
        return full[len(base):].lstrip() if full.startswith(base) else full

    def visit_Pragma(self, n: c_ast.Pragma) -> str:
        return f"#pragma {n.string}"


_GEN = CText()


def _fix(text: str) -> str:
    return re.sub(r"\boffsetof\s*\(", "__builtin_offsetof(", text)


def node_text(node: c_ast.Node) -> str:
    """An expression, type, initializer or declaration (without ';')."""
    text = _GEN.visit(node)
    return _fix("{" + text + "}" if isinstance(node, c_ast.InitList) else text)


def statement_text(node: c_ast.Node) -> str:
    """A statement, with its ';' and newline: ready to stand on its own line(s)."""
    if isinstance(node, c_ast.Pragma):
        return f"#pragma {node.string}\n"
    text = _GEN._generate_stmt(node, add_indent=False)
    return _fix(text if text.endswith("\n") else text + "\n")


def declaration_text(decl: c_ast.Decl, name: str | None = None) -> str:
    """``decl`` without its initializer (``static const double A[n][n]``), optionally renamed."""
    d = copy.copy(decl)
    d.init = None
    if name is not None and name != decl.name:
        d.name = name
        d.type = _renamed_type(decl.type, name)
    return node_text(d)


def _renamed_type(t: c_ast.Node, name: str) -> c_ast.Node:
    t = copy.copy(t)
    if isinstance(t, c_ast.TypeDecl):
        t.declname = name
    elif hasattr(t, "type"):
        t.type = _renamed_type(t.type, name)
    return t
