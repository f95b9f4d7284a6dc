"""A whole C file -> TranslationUnit: file-scope names, then every function defined in the file."""
from __future__ import annotations

import dataclasses
import re
import shlex
import subprocess
from pathlib import Path
from typing import Sequence as Seq

from pycparser import c_ast

from frontends.c.enum_values import enum_values
from frontends.c.parse import FUNC_DECL_TYPES, parse
from frontends.c.inline_functions import InlineHelpers
from frontends.c.preprocess import preprocess
from frontends.c.source_map import SourceText
from frontends.c.statements import FileScope, FunctionLifter
from s2s.errors import ParseError, SourceLocation, UnsupportedDialect
from s2s.ir import SourceSpan, TranslationUnit

# Statements whose first token is one of these can be located in the original text and rewritten.
_KEYWORD_OF = {c_ast.For: "for", c_ast.While: "while", c_ast.DoWhile: "do", c_ast.If: "if", c_ast.Switch: "switch"}


def file_scope_of(ast: c_ast.FileAST) -> FileScope:
    scope = FileScope()
    for ext in ast.ext:
        decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
        if isinstance(decl, c_ast.Typedef):
            scope.types.add(decl)
        if isinstance(decl, c_ast.Decl):
            if not isinstance(ext, c_ast.FuncDef):
                scope.types.add(decl)
            if isinstance(decl.type, FUNC_DECL_TYPES):
                scope.functions.add(decl.name)
            elif decl.name and "typedef" not in decl.storage:
                scope.variables[decl.name] = decl
            for enum in _enums_in(decl.type):
                enumerators = enum.values.enumerators if enum.values else []
                scope.enum_constants.update(e.name for e in enumerators)
                scope.enum_values.update(enum_values(enumerators, scope.enum_values))
    scope.helpers = InlineHelpers.of(ast, set(scope.variables), scope.enum_constants)
    return scope


def _enums_in(t: c_ast.Node):
    while t is not None:
        if isinstance(t, c_ast.Enum):
            yield t
            return
        t = getattr(t, "type", None)


def _coords(node: c_ast.Node):
    if node.coord is not None:
        yield node.coord
    for _, child in node.children():
        yield from _coords(child)


def definition_span(func: c_ast.FuncDef, source: SourceText) -> SourceSpan | None:
    """The function definition's span in the original text, from the first token of its head to
    its closing brace; None where the text does not plainly hold it."""
    decl = func.decl
    if decl.coord is None or func.body.coord is None:
        return None
    start = source.definition_start(decl.coord.line, decl.coord.column or 1, decl.name)
    brace = source.find_keyword(func.body.coord.line, func.body.coord.column or 1, "{")
    body = None if start is None or brace is None else source.statement_span(brace)
    if body is None:
        return None
    return SourceSpan(source.path, start, body.end, source.line_of(start), source.column_of(start))


def body_spans(func: c_ast.FuncDef, source: SourceText, main_file: str) -> dict[int, SourceSpan]:
    """Spans in the original text of the function body's top-level statements that can be
    rewritten: loops and branches that plainly stand in the file (not made by a macro), whose
    nested code all comes from the same lines, and that share no line with another statement."""
    items = func.body.block_items or []
    lines = [s.coord.line if s.coord and s.coord.file == main_file else None for s in items]
    spans: dict[int, SourceSpan] = {}
    for k, s in enumerate(items):
        keyword = _KEYWORD_OF.get(type(s)) or _leading_name(s)
        if keyword is None or lines[k] is None:
            continue
        start = source.find_keyword(s.coord.line, s.coord.column or 1, keyword)
        if start is None or keyword == "*" and not source.starts_statement(start):
            continue   # (``(*c)++`` starts at its parenthesis, which the tree does not keep)
        span = source.statement_span(start)
        if span is None:
            continue
        first, last = span.line, source.line_of(span.end - 1)
        others = [ln for j, ln in enumerate(lines) if j != k and ln is not None]
        if any(first <= ln <= last for ln in others):
            continue
        if any(c.file != main_file or not first <= c.line <= last for c in _coords(s)):
            continue
        spans[k] = span
    return spans


def _leading_name(s: c_ast.Node) -> str | None:
    """The identifier an expression statement starts with (``A`` in ``A[i] = 0;``), or ``*`` for a
    dereference (``*out = s;``), if any."""
    node = s
    while True:
        if isinstance(node, c_ast.Assignment):
            node = node.lvalue
        elif isinstance(node, c_ast.ArrayRef):
            node = node.name
        elif isinstance(node, c_ast.FuncCall):
            node = node.name
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "p--"):
            node = node.expr
        elif isinstance(node, c_ast.ID):
            return node.name
        elif isinstance(node, c_ast.UnaryOp) and node.op == "*":
            return "*"
        else:
            return None


def lift_translation_unit(ast: c_ast.FileAST, main_file: str, original_text: str,
                          strict_aliasing: bool = True) -> tuple[TranslationUnit, list[str]]:
    """Lift every function defined in ``main_file``. Returns the unit and the reasons why
    statements stayed opaque (one entry per opaque statement). ``strict_aliasing``: the program
    keeps C's effective-type rule (as gcc assumes from -O2 unless -fno-strict-aliasing)."""
    scope = file_scope_of(ast)
    source = SourceText(main_file, original_text)
    functions = []
    reasons: list[str] = []
    for ext in ast.ext:
        if not isinstance(ext, c_ast.FuncDef) or ext.coord is None or ext.coord.file != main_file:
            continue
        lifter = FunctionLifter(ext, scope, main_file, strict_aliasing)
        span = definition_span(ext, source)
        sdfg = lifter.lift(span, body_spans(ext, source, main_file))
        written = source.parameter_texts(span.start, ext.decl.name) if span is not None else None
        params = ext.decl.type.args.params if ext.decl.type.args else []
        if written and len(written) == len(params):
            sdfg = dataclasses.replace(sdfg, param_texts=tuple(
                (p.name, text) for p, text in zip(params, written) if isinstance(p, c_ast.Decl) and p.name))
        functions.append(sdfg)
        reasons.extend(lifter.opaque_reasons)
    return TranslationUnit(main_file, tuple(functions), original_text), reasons


def lift_c_file(path: str | Path, cpp_args: Seq[str] = (), compiler: str = "cc",
                text: str | None = None, preprocessed: str | None = None,
                strict_aliasing: bool = True) -> tuple[TranslationUnit, list[str]]:
    """Preprocess, parse and lift one C file (``text``: its contents, ``preprocessed``: what
    ``preprocess`` gives for it, if already known; ``strict_aliasing``: see lift_translation_unit)."""
    path = str(path)
    if text is None:
        text = Path(path).read_text(errors="surrogateescape")
    if preprocessed is None:
        preprocessed = preprocess(path, cpp_args, compiler)
    try:
        ast = parse(preprocessed, path)
    except ParseError as exc:
        raise _classify(exc, path, cpp_args, compiler) from exc
    return lift_translation_unit(ast, path, text, strict_aliasing)


def _classify(exc: ParseError, path: str, cpp_args: Seq[str], compiler: str) -> ParseError:
    """Tell a syntax error in the user's code (the real compiler rejects it too: its diagnostic,
    with file:line:column, is what the user needs) from a dialect our parser does not know."""
    proc = subprocess.run([*shlex.split(compiler), "-fsyntax-only", *cpp_args, path],
                          capture_output=True, text=True, errors="replace")
    if proc.returncode == 0:
        return UnsupportedDialect(f"C dialect not supported by the s2s parser ({exc.message})", exc.location)
    first = next((ln for ln in proc.stderr.splitlines() if re.search(r": (fatal )?error: ", ln)), proc.stderr.strip())
    m = re.match(r"(.+?):(\d+):(\d+): (?:fatal )?error: (.*)", first)
    if m:
        return ParseError(m.group(4), SourceLocation(m.group(1), int(m.group(2)), int(m.group(3))))
    return ParseError(first or exc.message, exc.location)
