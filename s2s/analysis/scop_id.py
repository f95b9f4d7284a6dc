"""A SCoP's name that stays the same across runs and edits elsewhere in its file.

Statements are named by their index in the SCoP (``S0``, ``S1``, ... in the source's order), not by
the IR's block ids, which count every block of the file. The id is the function's name and a
digest of the SCoP's parameters and, per statement, its domain and accesses written with those
names: an edit outside the SCoP leaves it unchanged, one to its loops or subscripts changes it
(its arithmetic is not part of it: a recipe is about the loops). Two SCoPs of one function with
the same loops and accesses share a digest; ``regenerate_scops`` numbers the later ones.
"""
from __future__ import annotations

import hashlib

from s2s.analysis.scop import Scop


def scop_id(function: str, scop: Scop) -> str:
    """``function/<12 hex digits>``."""
    names = {st.name: f"S{k}" for k, st in enumerate(scop.statements)}
    parts = [",".join(scop.params)]
    for st in scop.statements:
        parts.append(_renamed(str(st.domain), names))
        parts.extend(_renamed(str(rel), names) for _, rel in st.accesses)
    return f"{function}/{hashlib.sha256(chr(10).join(parts).encode()).hexdigest()[:12]}"


def _renamed(text: str, names: dict[str, str]) -> str:
    for old in sorted(names, key=len, reverse=True):   # (S_12 before S_1)
        text = text.replace(f"{old}[", f"{names[old]}[")
    return text


def numbered_scop_ids(function: str, scops: list[Scop]) -> list[str]:
    """The stable id of each SCoP of ``function`` (``scop_id``), ``~2``, ``~3``... after the
    second and later ones that share their loops and accesses with one before."""
    seen: dict[str, int] = {}
    out = []
    for scop in scops:
        ident = scop_id(function, scop)
        seen[ident] = seen.get(ident, 0) + 1
        out.append(ident if seen[ident] == 1 else f"{ident}~{seen[ident]}")
    return out
