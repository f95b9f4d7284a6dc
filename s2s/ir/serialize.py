"""JSON form of the IR. Save, load, save gives the same text.

Every IR dataclass is written as an object whose ``"@"`` names its class; enums as their value,
tuples as arrays. The class table below is explicit, so what can be loaded never depends on what
happened to be imported.
"""
from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any

from s2s.ir import control, data, dataflow, expr, library, sdfg, types

FORMAT_VERSION = 1

_CLASSES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        expr.Const, expr.Sym, expr.Access, expr.Unary, expr.Binary, expr.Ternary, expr.Call,
        expr.Cast, expr.SizeOf,
        types.ScalarType,
        data.Scalar, data.Array, data.Symbol,
        dataflow.Range, dataflow.AccessNode, dataflow.Tasklet, dataflow.LibraryNode, dataflow.Memlet,
        dataflow.DataflowGraph,
        library.Blocking, library.Extent, library.MatMul, library.PackedRight,
        control.SourceSpan, control.Block, control.Declare, control.Sequence, control.For, control.Map,
        control.IfElse, control.While, control.Break, control.Continue, control.Return, control.Opaque,
        sdfg.SDFG, sdfg.TranslationUnit,
    )
}
_ENUMS: dict[str, type[enum.Enum]] = {
    cls.__name__: cls for cls in (types.TypeKind, data.Storage, control.Schedule)
}


def to_plain(obj: Any) -> Any:
    """IR object -> JSON-compatible value."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        name = type(obj).__name__
        if _CLASSES.get(name) is not type(obj):
            raise TypeError(f"not an IR class: {name}")
        out: dict[str, Any] = {"@": name}
        for f in dataclasses.fields(obj):
            out[f.name] = to_plain(getattr(obj, f.name))
        return out
    if isinstance(obj, enum.Enum):
        return {"@enum": type(obj).__name__, "value": obj.value}
    if isinstance(obj, (tuple, list)):
        return [to_plain(x) for x in obj]
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(f"cannot serialize {type(obj).__name__}")


def from_plain(value: Any) -> Any:
    """JSON-compatible value -> IR object."""
    if isinstance(value, list):
        return tuple(from_plain(x) for x in value)
    if isinstance(value, dict):
        if "@enum" in value:
            return _ENUMS[value["@enum"]](value["value"])
        name = value.get("@")
        if name not in _CLASSES:
            raise ValueError(f"unknown IR class in JSON: {name!r}")
        cls = _CLASSES[name]
        kwargs = {k: from_plain(v) for k, v in value.items() if k != "@"}
        return cls(**kwargs)
    return value


def dumps(obj: Any) -> str:
    """IR object (an SDFG, a TranslationUnit, any node) -> JSON text."""
    return json.dumps({"s2s-ir": FORMAT_VERSION, "root": to_plain(obj)}, indent=1, ensure_ascii=False) + "\n"


def loads(text: str) -> Any:
    doc = json.loads(text)
    if doc.get("s2s-ir") != FORMAT_VERSION:
        raise ValueError(f"unsupported s2s IR format {doc.get('s2s-ir')!r} (expected {FORMAT_VERSION})")
    return from_plain(doc["root"])
