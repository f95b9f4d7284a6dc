"""C declarations -> IR containers."""
from __future__ import annotations

import copy

from pycparser import c_ast

from frontends.c.c_text import declaration_text, node_text
from s2s.ir import Array, Data, Expr, Scalar, Storage, Symbol, scalar_type


class Unliftable(Exception):
    """This construct is outside what the IR models; the enclosing statement stays opaque."""


# what a user calls the constructs of pycparser's AST the IR does not model
_CONSTRUCTS = {
    "StructRef": "struct member access", "Goto": "goto", "Label": "label", "Switch": "switch",
    "Case": "case label", "Default": "default label", "CompoundLiteral": "compound literal",
    "InitList": "initializer list", "ExprList": "comma expression", "Typename": "type name",
    "StaticAssert": "static assertion", "Pragma": "pragma", "FuncDef": "nested function",
}


def construct_name(node: c_ast.Node, role: str) -> str:
    """``struct member access expression``, ``goto statement``: an unmodelled construct, named."""
    kind = type(node).__name__
    return f"{_CONSTRUCTS.get(kind, kind)} {role}"


def base_type_spelling(t: c_ast.Node) -> str | None:
    """``unsigned long`` for a TypeDecl of an IdentifierType; None for structs, enums, ..."""
    if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType):
        return " ".join(t.type.names)
    return None


def _array_dims(t: c_ast.Node, lift_dim) -> tuple[list[Expr | None], c_ast.Node]:
    dims: list[Expr | None] = []
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(None if t.dim is None else lift_dim(t.dim))
        t = t.type
    return dims, t


def container_for(decl: c_ast.Decl, name: str, storage: Storage, lift_dim, is_param: bool = False,
                  address_taken: bool = False, reassigned: bool = False) -> Data:
    """The container that ``decl`` declares (under ``name``). ``lift_dim`` lifts array extents;
    extents it cannot lift are unknown (None). ``address_taken``: the function applies ``&`` to
    the name somewhere; ``reassigned``: a pointer parameter the function assigns."""
    text = declaration_text(decl, name)

    def safe_dim(d):
        try:
            return lift_dim(d)
        except Unliftable:
            return None

    t = decl.type
    spelling = base_type_spelling(t)
    if spelling is not None:
        dtype = scalar_type(spelling)
        if is_param and dtype.is_integer and "volatile" not in (t.quals or []):
            return Symbol(name, dtype, storage, text)
        return Scalar(name, dtype, storage, text, address_taken)
    if isinstance(t, c_ast.ArrayDecl):
        dims, inner = _array_dims(t, safe_dim)
        spelling = base_type_spelling(inner)
        if spelling is not None:
            return Array(name, scalar_type(spelling), tuple(dims), storage, text,
                         is_object=storage is not Storage.ARGUMENT, reassigned=reassigned)
    if isinstance(t, c_ast.PtrDecl):
        inner = t.type
        if isinstance(inner, c_ast.ArrayDecl):  # double (*A)[N]
            dims, elem = _array_dims(inner, safe_dim)
            spelling = base_type_spelling(elem)
            if spelling is not None:
                return Array(name, scalar_type(spelling), (None, *dims), storage, text, reassigned=reassigned)
        depth = 1
        while isinstance(inner, c_ast.PtrDecl):
            depth += 1
            inner = inner.type
        spelling = base_type_spelling(inner)
        if spelling is not None and spelling != "void":
            return Array(name, scalar_type(spelling), (None,) * depth, storage, text, row_pointers=depth - 1,
                         reassigned=reassigned)
    # structs, unions, enums, function pointers, void pointers: a scalar the analyses cannot see into
    return Scalar(name, scalar_type(_type_name(t)), storage, text)


def _type_name(t: c_ast.Node) -> str:
    try:
        return node_text(c_ast.Typename(None, [], None, _strip_name(t)))
    except Exception:
        return "?"


def _strip_name(t: c_ast.Node) -> c_ast.Node:
    t = copy.copy(t)
    if isinstance(t, c_ast.TypeDecl):
        t.declname = None
    elif hasattr(t, "type"):
        t.type = _strip_name(t.type)
    return t
