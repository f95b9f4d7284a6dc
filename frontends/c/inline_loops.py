"""Calls of static helpers that loop, as the helper's statements in place of the call.

    static double dot(const double *x, const double *y, size_t n)
    {                                                     d[i * n + j] = dot(a + i * n, b + j * n, n);
        double s = 0.0;                          ->
        for (size_t k = 0; k < n; k++)                    {
            s += x[k] * y[k];                                 const double *x_1 = a + i * n;
        return s;                                             const double *y_1 = b + j * n;
    }                                                         double s_1 = 0.0;
                                                              for (size_t k_1 = 0; k_1 < n; k_1++)
                                                                  s_1 += x_1[k_1] * y_1[k_1];
                                                              d[i * n + j] = s_1;
                                                          }

A helper whose body is an expression is inlined as one (inline_functions.py); one with a loop
makes a statement ``lhs = f(args);`` a block: each pointer parameter a declaration initialized
with its argument (a pointer view, read through its base: pointer_views.py), each other
parameter that the helper never assigns its argument where the argument is a variable of the
caller of the parameter's type (else a declaration too), the helper's locals renamed apart, and
its final ``return e;`` the assignment ``lhs = (type)(e);``; ``T x = f(args);`` is ``T x;`` and
that block. Only for a static helper defined in the file (not variadic, not recursive) whose one
``return`` ends its body, with no labels, no
``static`` locals, no address taken of a parameter, no name declared twice, and no name the
caller declares among the names it reads besides its own; the arguments and the left-hand side
free of side effects. The caller's names cannot capture the helper's: every local and parameter
gets a fresh name.
"""
from __future__ import annotations

import copy
from collections.abc import Callable

from pycparser import c_ast

from frontends.c.ast_rewrite import has_effects, substitute_names, walk, written_names


def inlined_call(item: c_ast.Node, definitions: dict[str, c_ast.FuncDef], fresh: Callable[[str], str],
                 caller_declares: Callable[[str], bool], variable_type: Callable[[str], str | None],
                 pure: set[str]) -> c_ast.Compound | None:
    """The block that the statement ``item``, ``lhs = f(args);`` with ``f`` a helper that loops,
    is (module docstring); None where it is not one. ``fresh(base)``: a name unused in the
    caller; ``caller_declares(name)``: a local or parameter of the caller; ``variable_type(name)``:
    its type as written; ``pure``: functions whose calls only read their arguments."""
    if not (isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.rvalue, c_ast.FuncCall)
            and isinstance(item.rvalue.name, c_ast.ID)):
        return None
    func = definitions.get(item.rvalue.name.name)
    args = item.rvalue.args.exprs if item.rvalue.args is not None else []
    if func is None or has_effects(item.lvalue, pure) or any(has_effects(a, pure) for a in args):
        return None
    params = _parameters(func)
    body = func.body.block_items or []
    if params is None or len(params) != len(args) or not body or not isinstance(body[-1], c_ast.Return) \
            or body[-1].expr is None or not _inlinable(func, params, caller_declares):
        return None
    assigned = written_names(func.body)
    renames = {p.name: fresh(p.name) for p in params}
    for d in walk(func.body):
        if isinstance(d, c_ast.Decl) and d.name:
            renames[d.name] = fresh(d.name)
    values: dict[str, c_ast.Node] = {}
    declared: list[c_ast.Node] = []
    for p, arg in zip(params, args):
        if (isinstance(p.type, c_ast.TypeDecl) and p.name not in assigned and isinstance(arg, c_ast.ID)
                and variable_type(arg.name) == type_text(p.type)):
            values[p.name] = copy.deepcopy(arg)
        else:
            declared.append(_declaration(p, renames[p.name], copy.deepcopy(arg)))
    names = {old: c_ast.ID(new) for old, new in renames.items() if old not in values}
    for d in declared:   # (the extents of a pointer to rows name the helper's parameters)
        for t in walk(d.type):
            if isinstance(t, c_ast.ArrayDecl) and t.dim is not None:
                t.dim = substitute_names(t.dim, {**names, **values})
    statements = [substitute_names(copy.deepcopy(s), {**names, **values}) for s in body[:-1]]
    result = substitute_names(copy.deepcopy(body[-1].expr), {**names, **values})
    result_type = copy.deepcopy(func.decl.type.type)
    for t in walk(result_type):
        if isinstance(t, c_ast.TypeDecl):
            t.declname = None
    returned = c_ast.Cast(c_ast.Typename(None, [], None, result_type), result)
    _rename_declarations(statements, renames)
    store = c_ast.Assignment("=", copy.deepcopy(item.lvalue), returned, item.coord)
    block = c_ast.Compound(declared + statements + [store], item.coord)
    for n in walk(block):   # (what the report and messages say is where the call is)
        n.coord = item.coord
    return block


def inlined_declaration(item: c_ast.Node, *args) -> list[c_ast.Node] | None:
    """``T x = f(args);``, ``f`` a helper that loops, as ``T x;`` and the block of ``x = f(args);``
    (``inlined_call``, with the same other arguments); None where it is not one (a ``const``
    or non-scalar ``x`` too)."""
    if not (isinstance(item, c_ast.Decl) and isinstance(item.init, c_ast.FuncCall) and item.name
            and isinstance(item.type, c_ast.TypeDecl) and "const" not in item.type.quals
            and not set(item.storage or []) & {"static", "extern"}):
        return None
    block = inlined_call(c_ast.Assignment("=", c_ast.ID(item.name, item.coord), item.init, item.coord), *args)
    if block is None:
        return None
    declaration = copy.copy(item)
    declaration.init = None
    return [declaration, block]


def _parameters(func: c_ast.FuncDef) -> list[c_ast.Decl] | None:
    """The helper's named parameters; None for variadic or unnamed ones ((void): none)."""
    args = func.decl.type.args
    if args is None:
        return []
    out = []
    for p in args.params:
        if isinstance(p, c_ast.Typename) and isinstance(p.type, c_ast.TypeDecl) and \
                isinstance(p.type.type, c_ast.IdentifierType) and p.type.type.names == ["void"]:
            continue
        if not isinstance(p, c_ast.Decl) or not p.name:
            return None
        out.append(p)
    return out


def _inlinable(func: c_ast.FuncDef, params: list[c_ast.Decl], caller_declares: Callable[[str], bool]) -> bool:
    """The body's own conditions (module docstring), and a loop in it (else the expression
    inliner's)."""
    name = func.decl.name
    nodes = list(walk(func.body))
    if not any(isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)) for n in nodes):
        return False
    if sum(isinstance(n, c_ast.Return) for n in nodes) != 1:
        return False
    if any(isinstance(n, (c_ast.Label, c_ast.Goto)) or isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
           and n.name.name == name for n in nodes):
        return False
    declared = [n.name for n in nodes if isinstance(n, c_ast.Decl) and n.name]
    if any("static" in (n.storage or []) for n in nodes if isinstance(n, c_ast.Decl)):
        return False
    own = declared + [p.name for p in params]
    if len(set(own)) != len(own):
        return False
    if any(isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID) and n.expr.name in own
           for n in nodes):
        return False
    members = {id(n.field) for n in nodes if isinstance(n, c_ast.StructRef)}
    free = {n.name for n in nodes if isinstance(n, c_ast.ID) and id(n) not in members} - set(own)
    return not any(caller_declares(n) for n in free)


def _declaration(param: c_ast.Decl, name: str, value: c_ast.Node) -> c_ast.Decl:
    decl = copy.deepcopy(param)
    decl.name, decl.init = name, value
    if isinstance(decl.type, c_ast.ArrayDecl):   # (an array parameter is a pointer to its rows)
        decl.type = c_ast.PtrDecl([q for q in decl.type.dim_quals or [] if q != "static"], decl.type.type)
    for n in walk(decl.type):
        if isinstance(n, c_ast.TypeDecl):
            n.declname = name
    return decl


def _rename_declarations(statements: list[c_ast.Node], renames: dict[str, str]) -> None:
    for s in statements:
        for n in walk(s):
            if isinstance(n, c_ast.Decl) and n.name in renames:
                n.name = renames[n.name]
                for t in walk(n.type):
                    if isinstance(t, c_ast.TypeDecl) and t.declname is not None:
                        t.declname = n.name


def type_text(t: c_ast.Node | None) -> str | None:
    """A plain declared type as written (qualifiers and names: ``const size_t``), else None."""
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        return None
    return " ".join([*t.quals, *t.type.names])
