"""Which names of a SCoP C allows to reach the same memory.

The polyhedral model gives every array (and scalar) name memory of its own. C promises that only
for objects it declares: two pointers (parameters, locals, globals, pointers loaded from memory)
may point into one buffer, a pointer may point into a declared array or at a global scalar, and the
rows of ``float **rows`` may overlap one another. This module lists every such hazard of a SCoP
where something is written; code that reorders the SCoP's accesses must prove them absent at run
time (s2s.transforms.alias_check) or keep the original order.

What C does promise, and is used here:
* two declared objects (arrays declared with their extents, global or static scalars) are distinct;
* an automatic object of the function (a local array or scalar, a scalar parameter) is distinct
  from what the pointer parameters reach (created after they were bound), but not from pointers
  the function itself may have set to point at it;
* a ``restrict`` parameter reaches, in the function, no element written through another name that
  is not based on it: other parameters and declared objects (C11 6.7.3.1).

A parameter the function assigns (``if (!work) work = buf;``, ``y = x + 1``) is counted as a
local pointer: it may point at the function's own objects or be based on a restrict parameter.
``restrict`` counts where it qualifies the parameter itself (``double *restrict a``, ``double
a[restrict n]``), not its rows (``double *restrict *rows``).
"""
from __future__ import annotations

import re

from dataclasses import dataclass

from s2s.ir import SDFG, Array, Scalar, Storage

_MEMORY_SCALARS = (Storage.GLOBAL, Storage.STATIC_LOCAL)  # scalars a pointer may reach


@dataclass(frozen=True)
class AliasPair:
    """Two names of a SCoP, one of them written, that may share memory; ``why`` says how."""

    first: str
    second: str
    why: str


def _is_object(data: Array | Scalar) -> bool:
    return isinstance(data, Scalar) or data.is_object


def _is_automatic(data: Array | Scalar) -> bool:
    """An object of this call of the function: made after the parameters were bound."""
    return _is_object(data) and data.storage in (Storage.STACK, Storage.ARGUMENT)


def _is_parameter(data: Array | Scalar) -> bool:
    """A parameter that still holds what the caller passed (one the function assigns may point
    at the function's own objects, or be based on a restrict parameter)."""
    return data.storage is Storage.ARGUMENT and not (isinstance(data, Array) and data.reassigned)


_RESTRICT = {"restrict", "__restrict", "__restrict__"}
_TOKEN = re.compile(r"[A-Za-z_]\w*|\S")


def _is_restrict_parameter(data: Array | Scalar) -> bool:
    return _is_parameter(data) and restrict_qualified(data.declaration or "", data.name)


def restrict_qualified(declaration: str, name: str) -> bool:
    """Whether the declaration of the parameter ``name`` makes the parameter itself a restrict
    pointer: ``double *restrict a``, ``double a[restrict n]`` (not ``double *restrict *rows``,
    whose rows are, nor a name that merely contains the word, ``double *restrict_out``)."""
    tokens = _TOKEN.findall(declaration)
    if name not in tokens:
        return False
    at = len(tokens) - 1 - tokens[::-1].index(name)
    before = []
    for t in reversed(tokens[:at]):   # (the qualifiers between the last ``*`` and the name)
        if t == "*":
            break
        before.append(t)
    inside = tokens[at + 2:tokens.index("]", at)] if tokens[at + 1:at + 2] == ["["] and "]" in tokens[at:] else []
    return bool(_RESTRICT & (set(before) | set(inside)))


def _kind(data: Array | Scalar) -> str:
    if isinstance(data, Scalar):
        return "scalar whose address is taken" if data.address_taken else "global scalar"
    if data.is_object:
        return "automatic array" if data.storage is Storage.STACK else "global array"
    if data.row_pointers:
        return "row pointers"
    where = {Storage.ARGUMENT: "parameter", Storage.GLOBAL: "global", Storage.STATIC_LOCAL: "static"}
    return f"pointer {where[data.storage]}" if data.storage in where else "local pointer"


def _distinct(a: Array | Scalar, b: Array | Scalar) -> bool:
    """Whether C guarantees that ``a`` and ``b`` share no element the SCoP writes."""
    if _is_object(a) and _is_object(b):
        return True
    for x, y in ((a, b), (b, a)):
        if _is_automatic(x) and _is_parameter(y) and isinstance(y, Array):
            return True
        if _is_restrict_parameter(x) and (_is_parameter(y) or _is_object(y)):
            return True
    return False


def memory_names(sdfg: SDFG, accessed: set[str]) -> list[str]:
    """The names among ``accessed`` that denote memory a pointer may reach: arrays, scalars at
    file scope or ``static`` in the function, and those whose address the function takes."""
    containers = sdfg.container_map
    out = []
    for name in sorted(accessed):
        data = containers.get(name)
        if isinstance(data, Array) or (isinstance(data, Scalar) and (
                data.storage in _MEMORY_SCALARS or data.address_taken)):
            out.append(name)
    return out


def alias_pairs(sdfg: SDFG, accessed: set[str], written: set[str]) -> list[AliasPair]:
    """Every pair of names among ``accessed`` that may overlap, one of them in ``written``."""
    containers = sdfg.container_map
    names = memory_names(sdfg, accessed)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if (a in written or b in written) and not _distinct(containers[a], containers[b]):
                pairs.append(AliasPair(a, b, f"{_kind(containers[a])} and {_kind(containers[b])}"))
    return pairs


def overlapping_rows(sdfg: SDFG, written: set[str]) -> list[str]:
    """Written arrays reached through row pointers, whose rows may overlap one another."""
    containers = sdfg.container_map
    return sorted(n for n in written
                  if isinstance(containers.get(n), Array) and containers[n].row_pointers)
