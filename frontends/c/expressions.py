"""C expressions (pycparser AST) -> IR expressions."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from pycparser import c_ast

from frontends.c.c_text import node_text
from frontends.c.declarations import Unliftable, construct_name
from frontends.c.parse import VA_ARG_PLACEHOLDER
from s2s.ir import Access, Binary, Call, Cast, Const, Expr, SizeOf, Sym, Ternary, Unary

if TYPE_CHECKING:
    from frontends.c.pointer_views import PointerView

_UNARY_OPS = {"-", "+", "!", "~"}
_UNMODELLED_UNARY = {"*": "pointer dereference (*p)", "&": "address-of (&x)", "++": "++ inside an expression",
                     "--": "-- inside an expression", "p++": "++ inside an expression", "p--": "-- inside an expression"}


class ExpressionLifter:
    """Lifts side-effect-free C expressions. ``resolve`` maps a C name in scope to its container
    name (or returns it unchanged for enum constants and functions)."""

    def __init__(self, resolve: Callable[[str], str], is_variable: Callable[[str], bool],
                 view: Callable[[str], PointerView | None] = lambda name: None,
                 member_note: Callable[[str], str | None] = lambda spelled: None,
                 inline: Callable[[str, tuple[Expr, ...]], Expr | None] = lambda name, args: None,
                 index: Callable[[str], c_ast.Node | None] = lambda name: None,
                 enum_value: Callable[[str], int | None] = lambda name: None,
                 is_array: Callable[[str], bool] = lambda name: False):
        self.resolve = resolve
        self.is_variable = is_variable
        self.view = view   # a pointer view by C name (pointer_views.py), read through its base
        self.member_note = member_note   # why a struct member (``s->m``, ``b[]``) is read in place
        self.inline = inline   # a call's value as an expression, where inlined (inline_functions.py)
        self.index = index   # an index temporary's value by C name (index_temporaries.py)
        self.enum_value = enum_value   # a file-scope enum constant's value, as ``#define`` would give it
        self.is_array = is_array   # whether a C name is an array or pointer of numbers (``*p`` is ``p[0]``)

    def __call__(self, node: c_ast.Node) -> Expr:
        method = getattr(self, "lift_" + type(node).__name__, None)
        if method is None:
            raise Unliftable(construct_name(node, "expression"))
        return method(node)

    def lift_Constant(self, n: c_ast.Constant) -> Expr:
        return Const(n.value)

    def lift_ID(self, n: c_ast.ID) -> Expr:
        if (value := self.index(n.name)) is not None:
            return self(value)
        if not self.is_variable(n.name) and (k := self.enum_value(n.name)) is not None:
            return Const(str(k)) if k >= 0 else Unary("-", Const(str(-k)))
        return Sym(self.resolve(n.name))

    def lift_ArrayRef(self, n: c_ast.ArrayRef) -> Expr:
        if isinstance(n.name, c_ast.ID) and (view := self.view(n.name.name)) is not None:
            return self(view.element(n.subscript))
        indices: list[Expr] = []
        node: c_ast.Node = n
        while isinstance(node, c_ast.ArrayRef):
            indices.insert(0, self(node.subscript))
            node = node.name
        if isinstance(node, c_ast.StructRef):
            self(node)   # (says which member and why it is read in place)
        if not isinstance(node, c_ast.ID):
            raise Unliftable("subscript of a computed pointer")
        return Access(self.resolve(node.name), tuple(indices))

    def lift_StructRef(self, n: c_ast.StructRef) -> Expr:
        spelled = key = None
        if isinstance(n.name, c_ast.ID):
            spelled = key = f"{n.name.name}{n.type}{n.field.name}"
        elif isinstance(n.name, c_ast.ArrayRef) and isinstance(n.name.name, c_ast.ID) and n.type == ".":
            spelled, key = f"{n.name.name.name}[...].{n.field.name}", f"{n.name.name.name}[]"
        note = self.member_note(key) if key is not None else None
        raise Unliftable(f"struct member {spelled}: {note}" if note else construct_name(n, "expression"))

    def lift_BinaryOp(self, n: c_ast.BinaryOp) -> Expr:
        return Binary(n.op, self(n.left), self(n.right))

    def lift_UnaryOp(self, n: c_ast.UnaryOp) -> Expr:
        if n.op == "*" and isinstance(n.expr, c_ast.ID) and (view := self.view(n.expr.name)) is not None:
            return self(view.element(c_ast.Constant("int", "0")))
        if n.op == "*" and (element := _as_element(n.expr, self.is_array)) is not None:
            return self(element)   # (*p is p[0], *(p + e) is p[e]: C defines them so)
        if n.op in _UNARY_OPS:
            return Unary(n.op, self(n.expr))
        if n.op == "sizeof":
            if isinstance(n.expr, c_ast.Typename):
                return SizeOf(type=node_text(n.expr))
            return SizeOf(operand=self(n.expr))
        raise Unliftable(_UNMODELLED_UNARY.get(n.op, f"unary {n.op}"))

    def lift_TernaryOp(self, n: c_ast.TernaryOp) -> Expr:
        return Ternary(self(n.cond), self(n.iftrue), self(n.iffalse))

    def lift_Cast(self, n: c_ast.Cast) -> Expr:
        return Cast(node_text(n.to_type), self(n.expr))

    def lift_FuncCall(self, n: c_ast.FuncCall) -> Expr:
        return self.call(n, inline=True)

    def call(self, n: c_ast.FuncCall, inline: bool) -> Expr:
        """The call, or (``inline``) the called helper's body where it can be inlined."""
        if not isinstance(n.name, c_ast.ID) or self.is_variable(n.name.name):
            raise Unliftable("call through a pointer")
        if n.name.name == VA_ARG_PLACEHOLDER:
            raise Unliftable("va_arg")
        args = n.args.exprs if n.args is not None else []
        if any(isinstance(a, c_ast.Typename) for a in args):
            raise Unliftable("builtin taking a type")
        lifted = tuple(self(a) for a in args)
        inlined = self.inline(n.name.name, lifted) if inline else None
        return Call(n.name.name, lifted) if inlined is None else inlined


def _as_element(pointer: c_ast.Node, is_array: Callable[[str], bool]) -> c_ast.ArrayRef | None:
    """``p[0]`` for ``*p``, ``p[e]`` for ``*(p + e)`` (any sum and difference of terms of which
    ``p`` is one, added), with ``p`` the name of an array or pointer; None for any other."""
    terms: list[tuple[int, c_ast.Node]] = []

    def flatten(n: c_ast.Node, sign: int) -> None:
        if isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-"):
            flatten(n.left, sign)
            flatten(n.right, sign if n.op == "+" else -sign)
        else:
            terms.append((sign, n))

    flatten(pointer, 1)
    bases = [k for k, (sign, t) in enumerate(terms) if isinstance(t, c_ast.ID) and is_array(t.name)]
    if len(bases) != 1 or terms[bases[0]][0] != 1:
        return None
    base = terms.pop(bases[0])[1]
    offset: c_ast.Node = c_ast.Constant("int", "0")
    for k, (sign, t) in enumerate(terms):
        if k == 0:
            offset = t if sign == 1 else c_ast.UnaryOp("-", t)
        else:
            offset = c_ast.BinaryOp("+" if sign == 1 else "-", offset, t)
    return c_ast.ArrayRef(base, offset, pointer.coord)
