"""Leaving out system-header prototypes that the user's code never names.

Parsing is most of the front end's time, and most of what is parsed is glibc's prototypes
(about a thousand for stdio, stdlib, string and math). A prototype only matters to the lifter
when the user's code calls the function, so a top-level declaration from a system header (line
marker flag 3) that declares a function not named anywhere outside system headers is blanked
before parsing. Blanking keeps every newline, so coordinates do not move. Typedefs, struct,
union and enum definitions, variables, and function bodies are always kept: user code may need
their names as types or constants, and a header's inline function may need the rest.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""(?P<marker>^\#[^\n]*)"""
    r"""|(?P<literal>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
    r"""|(?P<name>[A-Za-z_]\w*)"""
    r"""|(?P<punct>[(){}\[\];])""",
    re.M,
)
_MARKER_FILE = re.compile(r'^#\s*\d+\s+"(?:\\.|[^"\\])*"(?P<flags>(?:\s+\d+)*)\s*$')
_OPEN, _CLOSE = "([{", ")]}"
_KEYWORDS = frozenset(
    "auto char const double enum extern float int long register restrict short signed static struct union "
    "unsigned void volatile inline _Bool _Complex __restrict __restrict__ __inline __inline__ __attribute__ "
    "__attribute __asm__ __asm asm __const __volatile__ __typeof__ typeof __signed__ _Noreturn".split())


@dataclass
class _Declaration:
    """A top-level declaration being scanned: where it starts and what it holds so far."""
    start: int
    only_system: bool
    crosses_marker: bool = False
    keep: bool = False          # a typedef, anything with braces, or a declarator we cannot name
    body: bool = False          # its top-level brace is a function body
    declared: str | None = None  # the name before the first top-level '('
    previous: str = ""          # the last token and its kind
    previous_kind: str = ""


def prune_system_prototypes(preprocessed: str) -> str:
    """``preprocessed`` with unused system-header function prototypes blanked out."""
    user_names: set[str] = set()   # every name outside system headers
    candidates: list[tuple[int, int, str]] = []   # (start, end, declared name) of system prototypes
    depth, system = 0, False
    decl: _Declaration | None = None
    for m in _TOKEN.finditer(preprocessed):
        kind, text = m.lastgroup, m.group()
        if kind == "marker":
            flags = _MARKER_FILE.match(text)
            if flags is not None:
                system = "3" in flags.group("flags").split()
            if decl is not None:
                decl.crosses_marker = True
            continue
        if kind == "name" and not system:
            user_names.add(text)
        if decl is None:
            decl = _Declaration(m.start(), only_system=system)
        decl.only_system &= system
        if text == "typedef":
            decl.keep = True
        if kind == "punct" and text in _OPEN:
            if depth == 0 and text == "(" and decl.declared is None:
                # `int (*signal (int, ...)) (int)` or `__attribute__ ((...)) int f (...)`: no name to judge by
                decl.declared = decl.previous
                decl.keep |= decl.previous_kind != "name" or decl.previous in _KEYWORDS
            if depth == 0 and text == "{":
                decl.keep, decl.body = True, decl.previous == ")"
            depth += 1
        elif kind == "punct" and text in _CLOSE:
            depth = max(depth - 1, 0)
        decl.previous, decl.previous_kind = text, kind
        if depth == 0 and (text == ";" or text == "}" and decl.body):
            if decl.only_system and not decl.crosses_marker and not decl.keep and decl.declared:
                candidates.append((decl.start, m.end(), decl.declared))
            decl = None
    blanks = [(start, end) for start, end, name in candidates if name not in user_names]
    if not blanks:
        return preprocessed
    out, pos = [], 0
    for start, end in blanks:
        out.append(preprocessed[pos:start])
        out.append(re.sub(r"[^\n]", " ", preprocessed[start:end]))
        pos = end
    out.append(preprocessed[pos:])
    return "".join(out)
