"""Where statements lie in the user's original (unpreprocessed) text.

pycparser gives the line and an approximate column of a statement's first token (``cc -E`` keeps
lines but not always columns). To splice regenerated code, we need exact character spans of whole
statements in the original file; this module finds them with a small C token scanner and refuses
(returns None) whenever the original text does not plainly hold the statement, e.g. when a macro
produced it or preprocessor directives sit inside it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from s2s.ir import SourceSpan

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<directive>(?<![^\n])[ \t]*\#(?:[^\n\\]|\\.)*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<word>[A-Za-z_]\w*)
  | (?P<number>\.?\d(?:[\w.]|[eEpP][+-])*)
  | (?P<punct>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    end: int


class SourceText:
    """The original file's text with line offsets and a lazily built token list."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self._tokens: list[Token] | None = None
        self._token_index: dict[int, int] = {}

    @property
    def tokens(self) -> list[Token]:
        if self._tokens is None:
            toks = []
            for m in _TOKEN.finditer(self.text):
                kind = m.lastgroup
                if kind in ("ws", "comment"):
                    continue
                toks.append(Token(kind, m.group(), m.start(), m.end()))
            self._tokens = toks
            self._token_index = {t.start: i for i, t in enumerate(toks)}
        return self._tokens

    def offset(self, line: int, column: int = 1) -> int:
        return self.line_starts[line - 1] + max(column - 1, 0)

    def line_of(self, offset: int) -> int:
        lo, hi = 0, len(self.line_starts)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid
        return lo + 1

    def column_of(self, offset: int) -> int:
        return offset - self.line_starts[self.line_of(offset) - 1] + 1

    def find_keyword(self, line: int, column: int, keyword: str) -> int | None:
        """Offset of the token ``keyword`` (a keyword, an identifier or a ``{``) on ``line`` nearest
        to ``column``; None if absent."""
        if not 1 <= line <= len(self.line_starts):
            return None
        lo = self.line_starts[line - 1]
        hi = self.line_starts[line] if line < len(self.line_starts) else len(self.text)
        hits = [t.start for t in self.tokens if lo <= t.start < hi and t.text == keyword and t.kind != "string"]
        if not hits:
            return None
        target = lo + column - 1
        return min(hits, key=lambda s: abs(s - target))

    def starts_statement(self, at: int) -> bool:
        """Whether the token at offset ``at`` is the first of a statement: the file's first, or one
        after a ``;``, a brace or a preprocessor line (comments are no tokens)."""
        i = self._token_index.get(at)
        if i is None:
            return False
        return i == 0 or self.tokens[i - 1].text in (";", "{", "}") or self.tokens[i - 1].kind == "directive"

    def definition_start(self, line: int, column: int, name: str) -> int | None:
        """Offset of the first token of the function definition whose name stands at
        ``line``:``column`` (its storage class, type and attributes, ``static double *f``), where
        code may be put in front of it: only comments precede it on its line, and before them a
        ``;``, a ``}``, a preprocessor line or the file's start. None where the text does not
        plainly show that (a macro around the head, other code on its line)."""
        at = self.find_keyword(line, column, name)
        if at is None:
            return None
        toks = self.tokens
        i = self._token_index[at]
        while i > 0:
            t = toks[i - 1]
            if t.kind == "word" or t.text == "*":
                i -= 1
            elif t.text == ")" and (opening := _opening(toks, i - 1)) and toks[opening - 1].text in _ATTRIBUTE_WORDS:
                i = opening - 1
            elif t.text in (";", "}") or t.kind == "directive":
                break
            else:
                return None
        start = toks[i].start
        line_start = self.line_starts[self.line_of(start) - 1]
        return start if i == 0 or toks[i - 1].end <= line_start else None

    def parameter_texts(self, start: int, name: str) -> list[str] | None:
        """The declarations of the parameters of the function ``name`` whose head starts at
        ``start``, as the file writes them (macros unexpanded); None where a directive stands
        among them or the head is not plain."""
        toks = self.tokens
        i = self._token_index.get(start)
        while i is not None and i < len(toks) and not (toks[i].text == name and toks[i + 1].text == "("):
            if toks[i].text in (";", "{", "}"):
                return None
            i += 1
        if i is None or i >= len(toks):
            return None
        try:
            close = _match(toks, i + 1, "(", ")")
        except (IndexError, ValueError):
            return None
        pieces: list[list[Token]] = [[]]
        depth = 0
        for t in toks[i + 2:close]:
            if t.kind == "directive":
                return None
            depth += (t.text in "([{") - (t.text in ")]}")
            if t.text == "," and depth == 0:
                pieces.append([])
            else:
                pieces[-1].append(t)
        if not all(pieces) and pieces != [[]]:
            return None
        return [self.text[p[0].start:p[-1].end] for p in pieces if p]

    def statement_span(self, start: int) -> SourceSpan | None:
        """The span of the statement whose first token starts at ``start``; None if the text there
        is not a plain statement (unbalanced, or holding preprocessor directives other than pragmas)."""
        toks = self.tokens
        if start not in self._token_index:
            return None
        try:
            end_index = _statement_end(toks, self._token_index[start])
        except (IndexError, ValueError):
            return None
        for t in toks[self._token_index[start]:end_index + 1]:
            if t.kind == "directive" and not re.match(r"\s*#\s*pragma\b", t.text):
                return None
        end = toks[end_index].end
        return SourceSpan(self.path, start, end, self.line_of(start), self.column_of(start))


_ATTRIBUTE_WORDS = ("__attribute__", "__attribute", "__declspec")


def _opening(toks: list[Token], i: int) -> int | None:
    """Index of the ``(`` that the ``)`` at ``i`` closes; None if there is none."""
    depth = 0
    while i >= 0:
        if toks[i].text == ")":
            depth += 1
        elif toks[i].text == "(":
            depth -= 1
            if depth == 0:
                return i
        i -= 1
    return None


def _match(toks: list[Token], i: int, open_: str, close: str) -> int:
    """Index of the token closing the group opened at ``i``."""
    if toks[i].text != open_:
        raise ValueError(f"expected {open_!r}")
    depth = 0
    while True:
        t = toks[i].text
        if t == open_:
            depth += 1
        elif t == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1


def _skip_directives(toks: list[Token], i: int) -> int:
    while toks[i].kind == "directive":
        i += 1
    return i


def _statement_end(toks: list[Token], i: int) -> int:
    """Index of the last token of the statement starting at token ``i``."""
    i = _skip_directives(toks, i)
    t = toks[i].text
    if t == "{":
        return _match(toks, i, "{", "}")
    if t in ("for", "while", "switch"):
        close = _match(toks, i + 1, "(", ")")
        return _statement_end(toks, close + 1)
    if t == "if":
        close = _match(toks, i + 1, "(", ")")
        end = _statement_end(toks, close + 1)
        if end + 1 < len(toks) and toks[end + 1].text == "else":
            return _statement_end(toks, end + 2)
        return end
    if t == "do":
        end = _statement_end(toks, i + 1)
        if toks[end + 1].text != "while":
            raise ValueError("do without while")
        close = _match(toks, end + 2, "(", ")")
        if toks[close + 1].text != ";":
            raise ValueError("do-while without ';'")
        return close + 1
    if toks[i].kind == "word" and i + 1 < len(toks) and toks[i + 1].text == ":" and t not in ("default",):
        return _statement_end(toks, i + 2)  # a label
    depth = 0
    while True:
        t = toks[i].text
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
            if depth < 0:
                raise ValueError("unbalanced")
        elif t == ";" and depth == 0:
            return i
        i += 1
