"""The C front end: the real compiler's preprocessor, pycparser(ext), and a lifter into s2s.ir.

Public names load on first use: ``s2s-cc`` preprocesses every file it is given (its cache key)
and needs the parser only where the cache has no entry. The steps have their modules:
``frontends.c.preprocess.preprocess``, ``frontends.c.parse.parse``.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "lift_c_file": "frontends.c.translation_unit",
    "lift_translation_unit": "frontends.c.translation_unit",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'frontends.c' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
