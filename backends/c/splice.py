"""Putting regenerated regions back into the user's file, keeping every other byte."""
from __future__ import annotations

from dataclasses import dataclass

from s2s.ir import SourceSpan


@dataclass(frozen=True)
class Replacement:
    span: SourceSpan
    text: str  # the new C text of the region, lines without the region's base indentation


def line_directive(line: int, path: str) -> str:
    quoted = path.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{quoted}"'


def splice(original: str, path: str, replacements: list[Replacement]) -> str:
    """The original text with each span replaced. ``#line`` directives keep the compiler's
    diagnostics, ``__LINE__`` and debug information pointing at the user's lines."""
    out = [line_directive(1, path) + "\n"]
    pos = 0
    for r in sorted(replacements, key=lambda r: r.span.start):
        if r.span.start < pos:
            raise ValueError(f"overlapping regions at {path}:{r.span.line}")
        before = original[pos:r.span.start]
        line_start = before.rfind("\n") + 1
        indent = before[line_start:]
        if indent.strip():  # other code precedes the region on its line: keep it, break the line
            out.append(before + "\n")
            indent = " " * len(indent)
        else:
            out.append(before[:line_start])
        out.append(line_directive(r.span.line, path) + "\n")
        out.append("\n".join(indent + ln if ln else ln for ln in r.text.split("\n")) + "\n")
        pos = r.span.end
        rest_of_line = original[pos:].split("\n", 1)[0]
        if not rest_of_line.strip() and pos + len(rest_of_line) < len(original):
            pos += len(rest_of_line) + 1  # nothing else on the region's last line: resume on the next
            out.append(line_directive(original.count("\n", 0, pos) + 1, path) + "\n")
        else:
            end_column = pos - (original.rfind("\n", 0, pos) + 1)
            out.append(line_directive(original.count("\n", 0, pos) + 1, path) + "\n" + " " * end_column)
    out.append(original[pos:])
    return "".join(out)
