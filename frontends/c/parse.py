"""Parsing preprocessed C with pycparser(ext), including what glibc's headers need.

pycparserext's GNU parser handles attributes, asm labels, ``__extension__``, ``typeof`` and friends.
Three things in glibc/gcc output it still rejects are rewritten first, keeping every line in place:
GCC's ``_FloatN`` types (declared by a one-line prelude), ``__builtin_va_arg(ap, T)`` (whose
second argument is a type: it becomes ``__s2s_va_arg(ap, sizeof(T))``, undone when printed), and
``__builtin_offsetof`` (pycparser knows it as ``offsetof``); ``__extension__`` is blanked out.
"""
from __future__ import annotations

import re

from pycparser import c_ast
from pycparserext.ext_c_parser import FuncDeclExt, GnuCParser

from frontends.c.header_pruning import prune_system_prototypes
from s2s.errors import ParseError, SourceLocation

VA_ARG_PLACEHOLDER = "__s2s_va_arg"
# pycparserext spells function declarators with attributes as its own class.
FUNC_DECL_TYPES = (c_ast.FuncDecl, FuncDeclExt)

# One line, before the first line marker, so it shifts no coordinates.
_PRELUDE = (
    "typedef float _Float16; typedef float _Float32; typedef double _Float64; typedef double _Float32x; "
    "typedef long double _Float64x; typedef long double _Float128; typedef long double __float128; "
    "typedef long double __ibm128; typedef long double _Float128x;\n"
)
_FLOATN_TYPEDEF = re.compile(r"typedef\s+[^;]*\b(_Float(?:16|32|64|128)x?|__float128)\s*;")


def _rewrite_va_arg(text: str) -> str:
    out: list[str] = []
    pos = 0
    for m in re.finditer(r"\b__builtin_va_arg\s*\(", text):
        if m.start() < pos:
            continue
        depth, i, last_comma = 1, m.end(), -1
        while i < len(text) and depth:
            ch = text[i]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "," and depth == 1:
                last_comma = i
            i += 1
        if depth or last_comma < 0:
            continue
        close = i - 1
        out.append(text[pos:m.start()])
        out.append(f"{VA_ARG_PLACEHOLDER}(" + text[m.end():last_comma + 1] + " sizeof(" + text[last_comma + 1:close] + "))")
        pos = i
    out.append(text[pos:])
    return "".join(out)


def prepare(preprocessed: str) -> str:
    """Make gcc/clang ``-E`` output acceptable to pycparserext without moving any line."""
    text = _rewrite_va_arg(preprocessed)
    text = re.sub(r"\b__builtin_offsetof\b", "offsetof", text)
    # `__extension__` only silences -pedantic; the parser rejects it inside expressions.
    text = re.sub(r"\b__extension__\b", " " * len("__extension__"), text)
    # Headers that typedef the _FloatN names themselves (older compilers) must not see the prelude twice.
    prelude = "" if _FLOATN_TYPEDEF.search(text) else _PRELUDE
    return prelude + text


def parse(preprocessed: str, filename: str) -> c_ast.FileAST:
    """Parse preprocessed text; errors name the user's file, line and column."""
    try:
        return GnuCParser().parse(prepare(prune_system_prototypes(preprocessed)), filename)
    except Exception as exc:  # pycparser raises its own ParseError and, on odd input, others
        message = str(exc)
        m = re.match(r"(.+?):(\d+):(\d+): (.*)", message)
        if m:
            loc = SourceLocation(m.group(1), int(m.group(2)), int(m.group(3)))
            raise ParseError(f"C parser: {m.group(4)}", loc) from exc
        raise ParseError(f"C parser: {message}") from exc
