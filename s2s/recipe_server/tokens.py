"""Access tokens of the recipe server: random secrets handed out once, stored only as digests.

A token is ``s2s_`` and 43 URL-safe characters (256 random bits). The server keeps its SHA-256
digest, never the token: a stolen database yields no token that works. A key of that much
entropy needs no slow hash (there is nothing to guess), and looking it up by its digest compares
no secret byte by byte.
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

PREFIX = "s2s_"
SCOPES = ("read", "write")    # write implies read


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def looks_like_token(text: str) -> bool:
    return text.startswith(PREFIX) and 20 <= len(text) <= 128 and text[len(PREFIX):].replace("-", "").replace(
        "_", "").isalnum()


def allows(scope: str, wanted: str) -> bool:
    """Whether a token of ``scope`` may do what needs ``wanted``."""
    return SCOPES.index(scope) >= SCOPES.index(wanted)


@dataclass(frozen=True)
class TokenInfo:
    """A token as the server knows it: everything but the secret."""

    id: int
    name: str
    scope: str
    created: str
    revoked: str | None = None
    last_used: str | None = None
