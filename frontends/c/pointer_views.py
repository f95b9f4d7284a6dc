"""Pointer views: a local pointer into an array, declared in a block and only ever subscripted.

Image and grid code walks rows through views declared in the loop, ``const float *up = in +
(y - 1) * w;`` or ``double *x = B[r];`` (a row of ``double **B``), then reads ``up[x + 1]``. To the
polyhedral model such a view is a new array of unknown relation to ``in``; read through its base it
is ``in[(y - 1) * w + x + 1]``, an access it can analyse (and a run-time overlap check covers
``in``). A declaration is a view when, in its block:

* it declares one pointer to a scalar type, initialized with ``X + e``, ``e + X``, ``X - e``,
  ``&X[e]`` or ``X`` (``X`` a one-dimensional array or pointer of the same element type, or an
  earlier view in the block: ``const float *up = o - w;``), or with ``X[e]`` (a row of an array
  of row pointers ``X``);
* every later use of the name is a subscript ``v[k]`` or a dereference ``*v``; the function never
  assigns it or takes its address;
* ``X`` and the variables of ``e`` are locals or parameters whose address the function never
  takes, ``e`` has no call, assignment, ``++`` or ``--``, and no statement after the declaration
  in the block writes or redeclares any of them (so the view's base stays what it was when the
  view was made, whatever calls and stores through pointers happen meanwhile).

The lifter then drops the declaration and reads ``v[k]`` as ``X[e + k]`` (``X[e][k]`` for a row),
in the IR and in the text of statements it keeps opaque alike.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from frontends.c.ast_rewrite import has_effects, identifiers, rewrite_children

from frontends.c.declarations import base_type_spelling


@dataclass(frozen=True)
class PointerView:
    base: str              # the C name of X
    offset: c_ast.Node     # e (for a row view, the row)
    row: bool = False      # X[e] of an array of row pointers: v[k] is X[e][k]

    def element(self, index: c_ast.Node) -> c_ast.ArrayRef:
        """``v[index]`` through the base, as C syntax."""
        if self.row:
            return c_ast.ArrayRef(c_ast.ArrayRef(c_ast.ID(self.base), copy.deepcopy(self.offset)), index)
        return c_ast.ArrayRef(c_ast.ID(self.base), c_ast.BinaryOp("+", copy.deepcopy(self.offset), index))


def _pointee_spelling(decl: c_ast.Decl) -> str | None:
    t = decl.type
    if not isinstance(t, c_ast.PtrDecl):
        return None
    return base_type_spelling(t.type)


def _view_of(decl: c_ast.Decl, element_of) -> PointerView | None:
    """The view ``decl`` makes, judging by its declaration alone. ``element_of(name)`` gives the
    element type of an array in scope and its number of pointer levels ((spelling, rank) or None)."""
    init = decl.init
    spelling = _pointee_spelling(decl)
    if spelling is None or init is None or decl.storage or decl.bitsize is not None:
        return None
    base: c_ast.Node | None = None
    offset: c_ast.Node | None = None
    row = False
    if isinstance(init, c_ast.BinaryOp) and init.op in ("+", "-"):
        if isinstance(init.left, c_ast.ID) and element_of(init.left.name) is not None:
            base, offset = init.left, init.right if init.op == "+" else c_ast.UnaryOp("-", init.right)
        elif init.op == "+" and isinstance(init.right, c_ast.ID) and element_of(init.right.name) is not None:
            base, offset = init.right, init.left
    elif isinstance(init, c_ast.UnaryOp) and init.op == "&" and isinstance(init.expr, c_ast.ArrayRef) \
            and isinstance(init.expr.name, c_ast.ID):
        base, offset = init.expr.name, init.expr.subscript
    elif isinstance(init, c_ast.ArrayRef) and isinstance(init.name, c_ast.ID):
        base, offset, row = init.name, init.subscript, True
    elif isinstance(init, c_ast.ID):
        base, offset = init, c_ast.Constant("int", "0")
    if base is None:
        return None
    known = element_of(base.name)
    if known is None or known[0].replace("const ", "") != spelling.replace("const ", ""):
        return None
    if known[1] != (2 if row else 1):
        return None
    return PointerView(base.name, offset, row)


def _declares(names: set[str], items: list[c_ast.Node]) -> bool:
    found = False

    class V(c_ast.NodeVisitor):
        def visit_Decl(self, n):
            nonlocal found
            found |= n.name in names
            self.generic_visit(n)

    for item in items:
        V().visit(item)
    return found


def _uses_are_subscripts(name: str, items: list[c_ast.Node], writable: bool = True) -> bool:
    """Whether every use of ``name`` in ``items`` is ``name[k]`` or ``*name`` (none shadowed by a
    declaration of the same name: then the answer is no, to keep it simple), and, where the view
    is not ``writable`` (a pointer to const), none a store (the compiler's error stays)."""
    ok = True

    def is_use(n: c_ast.Node) -> bool:
        return (isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) and n.name.name == name
                or isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID)
                and n.expr.name == name)

    class V(c_ast.NodeVisitor):
        def visit_Assignment(self, n):
            nonlocal ok
            ok &= writable or not is_use(n.lvalue)
            self.generic_visit(n)

        def visit_ArrayRef(self, n):
            if isinstance(n.name, c_ast.ID) and n.name.name == name:
                self.visit(n.subscript)
            else:
                self.generic_visit(n)

        def visit_UnaryOp(self, n):
            nonlocal ok
            if n.op in ("++", "--", "p++", "p--") and is_use(n.expr):
                ok &= writable
            if n.op == "*" and isinstance(n.expr, c_ast.ID) and n.expr.name == name:
                return
            self.generic_visit(n)

        def visit_ID(self, n):
            nonlocal ok
            if n.name == name:
                ok = False

        def visit_Decl(self, n):
            nonlocal ok
            if n.name == name:
                ok = False
            self.generic_visit(n)

    for item in items:
        V().visit(item)
    return ok


def views_in_block(items: list[c_ast.Node], written_in_function: set[str], element_of,
                   written_names, is_local) -> dict[int, PointerView]:
    """The declarations among a block's ``items`` that are pointer views: item index -> view.
    ``written_names(node)``: the names a statement assigns; ``is_local(name)``: a local variable
    or parameter of the function whose address it never takes (nothing but its own assignments
    can change it, where a call or a store through a pointer could change a global). A view of
    a view (``float *o = a + y * w; const float *up = o - w;``) is a view of the first one's base
    (``a + (y * w + -w)``), and using the first in the second's declaration keeps it a view."""
    candidates: dict[int, PointerView] = {}
    through: dict[int, int] = {}    # a view of a view: its index -> the index of the view it reads
    declared_at: dict[str, int] = {}

    def element_here(name: str):
        k = declared_at.get(name)
        if k is not None and k in candidates and not candidates[k].row:
            return _pointee_spelling(items[k]), 1
        return None if k is not None else element_of(name)

    for k, item in enumerate(items):
        if isinstance(item, c_ast.Decl) and item.name is not None:
            view = None if item.name in written_in_function else _view_of(item, element_here)
            inner = declared_at.get(view.base) if view is not None else None
            declared_at[item.name] = k
            if view is None or has_effects(view.offset):
                continue
            if inner is not None:   # a view of a view: read through the first one's base
                first = candidates[inner]
                view = PointerView(first.base, c_ast.BinaryOp("+", copy.deepcopy(first.offset), view.offset), view.row)
                through[k] = inner
            if all(map(is_local, identifiers(view.offset) | {view.base})):
                candidates[k] = view

    def holds(k: int) -> bool:
        name, rest = items[k].name, items[k + 1:]
        readers = [j for j, via in through.items() if via == k and j in candidates]
        uses = [copy.copy(item) for item in rest]
        for j in readers:   # (its use in a view made from it is no use of the pointer's value)
            uses[j - k - 1].init = None
        if not _uses_are_subscripts(name, uses, "const" not in (items[k].type.type.quals or [])):
            return False
        view = candidates[k]
        changed = set().union(*(written_names(r) for r in rest)) if rest else set()
        read = identifiers(view.offset) | {view.base}
        return not (changed & read or _declares(read, rest))   # (else the base would move)

    settled = False
    while not settled:
        settled = True
        for k in list(candidates):
            if k in candidates and (not holds(k) or (k in through and through[k] not in candidates)):
                del candidates[k]
                settled = False
    return candidates


def substitute_views(node: c_ast.Node, views: dict[str, PointerView]) -> c_ast.Node:
    """A copy of ``node`` with every ``v[k]`` and ``*v`` of ``views`` read through its base."""
    node = copy.deepcopy(node)

    def rewrite(n: c_ast.Node) -> c_ast.Node:
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) and n.name.name in views:
            return views[n.name.name].element(rewrite(n.subscript))
        if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID) and n.expr.name in views:
            return views[n.expr.name].element(c_ast.Constant("int", "0"))
        return rewrite_children(n, rewrite)

    return rewrite(node)
