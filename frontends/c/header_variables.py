"""``for`` headers with several variables, as loops of one.

    for (i = 0, j = n - 1; i < n; i++, j--)          for (i = 0; i < n; i++)
        b[j] = a[i];                           ->        b[n - 1 + -1 * (i - 0)] = a[i];
                                                     j = n - 1 + -1 * (i - 0);

    for (int i = 0, k = 3; i < n; i++)       ->      { int k = 3; for (int i = 0; i < n; i++) ... }

The loop's variable is the first one the header steps (``++``, ``--``, ``+=``/``-=`` a constant)
that its condition reads, by 1 or -1. Another variable stepped with it by a constant ``d`` is that
variable's first value plus ``d * step * (i - first)``, written in its place in the condition and
the body, and assigned after the loop where it outlives it (declared outside the header). That
holds where both are signed integers, the body neither writes nor declares it, and the first
values read nothing the loop writes (they are evaluated again where they are written in). Any
other variable the header only initializes is initialized before the loop, in the header's
order, where neither it nor the loop's variable reads the other. Anything else stays as written.
"""
from __future__ import annotations

import copy
from collections.abc import Callable

from pycparser import c_ast

from frontends.c.ast_rewrite import has_effects, identifiers, substitute_names, walk, written_names


def one_variable(loop: c_ast.For, is_signed_integer: Callable[[str], bool]) -> c_ast.Node | None:
    """The statement(s) ``loop`` is with a header of one variable (a block where there are
    several), or None where it has one already or cannot be so written (module docstring).
    ``is_signed_integer(name)``: the variable declared outside the header has a signed integer
    type."""
    inits = _initializations(loop.init)
    steps = _steps(loop.next)
    if inits is None or steps is None or len(inits) <= 1 and len(steps) <= 1:
        return None
    declared = isinstance(loop.init, c_ast.DeclList)
    firsts = {name: value for name, value, _ in inits}
    in_cond = identifiers(loop.cond) if loop.cond is not None else set()
    var = next((name for name, delta in steps if name in in_cond and name in firsts and delta in (1, -1)), None)
    if var is None or len(firsts) != len(inits):
        return None
    delta_of = dict(steps)
    signed = {name: _signed(decl) if declared else is_signed_integer(name) for name, _, decl in inits}
    derived = [name for name, _ in steps if name != var]
    written = written_names(loop.stmt) | {var, *derived}
    if any(name not in firsts or not signed[name] for name in derived) or (derived and not signed[var]):
        return None
    if derived and any(has_effects(firsts[name]) or identifiers(firsts[name]) & (written | set(firsts))
                       for name in [var, *derived]):
        return None   # (first values written in again, inside the loop)
    if any(name in _declared_in(loop.stmt) or name in written_names(loop.stmt) for name in derived):
        return None
    others = [(name, value, decl) for name, value, decl in inits if name != var and name not in derived]
    if any(var in identifiers(value) or name in identifiers(firsts[var]) for name, value, _ in others):
        return None
    values = {name: _in_terms_of(firsts[name], delta_of[name] * delta_of[var], var, firsts[var]) for name in derived}
    cond = substitute_names(copy.deepcopy(loop.cond), values)
    body = substitute_names(copy.deepcopy(loop.stmt), values)
    (own,) = [(name, value, decl) for name, value, decl in inits if name == var]
    header = c_ast.DeclList([own[2]], loop.init.coord) if declared else own[2]
    new = c_ast.For(header, cond, _step_of(loop.next, var), body, loop.coord)
    before = [decl if declared else copy.deepcopy(decl) for _, _, decl in others]
    after = [] if declared else [c_ast.Assignment("=", c_ast.ID(name, loop.coord), copy.deepcopy(values[name]),
                                                  loop.coord) for name in derived]
    return c_ast.Compound(before + [new] + after, loop.coord)


def _initializations(init: c_ast.Node | None) -> list[tuple[str, c_ast.Node, c_ast.Node]] | None:
    """(variable, first value, the declaration or assignment) per item of a header's first part:
    plain scalar declarations with a value, or assignments ``x = e``; None for anything else."""
    if isinstance(init, c_ast.DeclList):
        out = []
        for d in init.decls:
            if d.init is None or isinstance(d.init, c_ast.InitList) or not isinstance(d.type, c_ast.TypeDecl) \
                    or "static" in (d.storage or []):
                return None
            out.append((d.name, d.init, d))
        return out
    items = init.exprs if isinstance(init, c_ast.ExprList) else [init] if init is not None else []
    out = []
    for item in items:
        if not (isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID)):
            return None
        out.append((item.lvalue.name, item.rvalue, item))
    return out


def _steps(next_: c_ast.Node | None) -> list[tuple[str, int]] | None:
    """(variable, constant step) per item of a header's last part, or None where an item is not
    such a step."""
    items = next_.exprs if isinstance(next_, c_ast.ExprList) else [next_] if next_ is not None else []
    out = []
    for item in items:
        step = _step(item)
        if step is None or any(step[0] == name for name, _ in out):
            return None
        out.append(step)
    return out


def _step(item: c_ast.Node) -> tuple[str, int] | None:
    if isinstance(item, c_ast.UnaryOp) and item.op in ("++", "--", "p++", "p--") and isinstance(item.expr, c_ast.ID):
        return item.expr.name, 1 if "+" in item.op else -1
    if isinstance(item, c_ast.Assignment) and item.op in ("+=", "-=") and isinstance(item.lvalue, c_ast.ID):
        value = _integer(item.rvalue)
        if value is not None:
            return item.lvalue.name, value if item.op == "+=" else -value
    return None


def _integer(node: c_ast.Node) -> int | None:
    if isinstance(node, c_ast.Constant) and node.type == "int":
        try:
            return int(node.value.rstrip("uUlL"), 0)
        except ValueError:
            return None
    return None


def _step_of(next_: c_ast.Node, var: str) -> c_ast.Node:
    items = next_.exprs if isinstance(next_, c_ast.ExprList) else [next_]
    return next(item for item in items if _step(item) is not None and _step(item)[0] == var)


def _in_terms_of(first: c_ast.Node, per_step: int, var: str, var_first: c_ast.Node) -> c_ast.Node:
    """``(first) + per_step * (var - (var_first))``: a variable stepped with ``var``."""
    elapsed = c_ast.BinaryOp("-", c_ast.ID(var), copy.deepcopy(var_first))
    return c_ast.BinaryOp("+", copy.deepcopy(first), c_ast.BinaryOp("*", c_ast.Constant("int", str(per_step)), elapsed))


def _declared_in(node: c_ast.Node) -> set[str]:
    return {n.name for n in walk(node) if isinstance(n, c_ast.Decl) and n.name}


_SIGNED = {"int", "long", "long long", "short", "signed", "long int", "long long int", "short int", "signed int",
           "ptrdiff_t", "ssize_t"}


def _signed(decl: c_ast.Decl) -> bool:
    t = decl.type
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and " ".join(
        n for n in t.type.names if n != "signed" or len(t.type.names) == 1) in _SIGNED
