"""Error types shared by every stage.

Every failure inside s2s is an ``S2SError`` (or is wrapped into one by the driver), so the driver can
fall back to the user's original file and say why in one line.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    """A place in a user's file: 1-based line and column, as compilers print them."""

    file: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}" if self.column else f"{self.file}:{self.line}"


class S2SError(Exception):
    """Base class of every error s2s raises on purpose."""

    def __init__(self, message: str, location: SourceLocation | None = None):
        self.message = message
        self.location = location
        super().__init__(f"{location}: {message}" if location else message)


class PreprocessError(S2SError):
    """The real compiler's preprocessor rejected the file (its own diagnostic is in the message)."""


class ParseError(S2SError):
    """The file is not C we can parse: a syntax error in the user's code (located as the real
    compiler locates it), or, as the subclass UnsupportedDialect, C that only our parser rejects."""


class UnsupportedDialect(ParseError):
    """Valid C for the real compiler that our parser cannot read (nested functions, ``a ?: b``, ...)."""


class ValidationError(S2SError):
    """An IR object violates an invariant; the message names the element and the rule."""
