"""Where the members of a module's struct types lie, as the module's data layout places them.

LLVM's ``getelementptr`` selects a struct's member by its number; the C that this front end
writes names it by its byte offset in the outermost struct (``p->m8``), so the offsets come
from LLVM itself (``TargetData``), not from C's rules. Named struct types are read from the
module; literal ones (``{ ptr, i64, [2 x [3 x i64]] }``, what flang makes of an array
descriptor) from a small module of the same data layout that names them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class StructLayout:
    size: int                             # bytes one element takes in an array of them
    members: tuple[tuple[int, str], ...]  # (byte offset, LLVM type) of each member, in order
    packed: bool = False


def type_text(t) -> str:
    """How LLVM writes the type ``t`` (a TypeRef) where it is used: a named struct by its name."""
    if t.is_struct and not t.is_literal_struct:
        name = t.name
        return f"%{name}" if re.fullmatch(r"[-\w.$]+", name) else f'%"{name}"'
    return str(t)


def struct_layouts(module, literal: list[str]) -> dict[str, StructLayout]:
    """The layout of every struct type of ``module`` (a llvmlite ModuleRef) and of the literal
    struct types ``literal`` (their text), with the struct types their members hold."""
    import llvmlite.binding as llvm

    data = llvm.create_target_data(module.data_layout)
    found: dict[str, StructLayout] = {}

    def visit(t, text: str | None = None) -> None:
        if t.is_array or t.is_vector:
            for element in t.elements:
                visit(element)
            return
        if not t.is_struct or t.is_opaque_struct:
            return
        text = text or type_text(t)
        if text in found:
            return
        elements = list(t.elements)
        found[text] = StructLayout(data.get_abi_size(t),
                                   tuple((data.get_element_offset(t, k), type_text(e)) for k, e in enumerate(elements)),
                                   t.is_packed_struct)
        for e in elements:
            visit(e)

    for t in module.struct_types:
        visit(t)
    if literal:
        definitions = [line for line in str(module).splitlines() if re.match(r"%[-\w.$\"]+.* = type ", line)]
        named = [f"%s2s.literal.{k} = type {text}" for k, text in enumerate(literal)]
        helper = llvm.parse_assembly("\n".join([f'target datalayout = "{module.data_layout}"', *definitions,
                                                *named]), llvm.create_context())
        by_name = {t.name: t for t in helper.struct_types}
        for k, text in enumerate(literal):
            t = by_name.get(f"s2s.literal.{k}")
            if t is not None:
                visit(t, text)
    return found


def scalar_size(llvm_type: str) -> int | None:
    """Bytes of an LLVM scalar type on the 64-bit targets this front end writes C for."""
    return {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "float": 4, "double": 8, "ptr": 8}.get(llvm_type)
