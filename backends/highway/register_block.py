"""The matrix-multiply kernel's register block (backends/c/matmul.py) as a function of the
Highway unit, in place of the C one with GNU vector types, whose width was fixed when the code
was generated.

The block keeps ``rows`` x ``columns`` elements of the result in ``vectors`` accumulators per row
while k runs over a packed panel, each vector ``lanes`` wide (the width the blocking was chosen
for). Each target of the dispatch takes that path where ``CappedTag<T, lanes>`` has exactly
``lanes`` lanes on it; a target with narrower vectors (the panels' layout stays the one the C
code packs) updates the block's elements one at a time. Both paths apply each element's
updates in ascending k with the operations of the C statement, so that they round alike.
"""
from __future__ import annotations

from collections.abc import Callable

from backends.c.matmul import block_parameters
from backends.highway.unit import KernelFunction
from s2s.ir import MatMul
from s2s.ir import expr as ex

TAG = "s2s_d"


class NotVectorUpdate(Exception):
    """The statement's update uses what the vector expression below does not print."""


def highway_register_block(node: MatMul, in_place: bool, print_expr: Callable[[ex.Expr], str],
                           name: str) -> KernelFunction:
    """The unit's function ``name``: the register block of ``node`` (with its parameters, see
    ``block_parameters``). Raises NotVectorUpdate for an update it cannot print."""
    b, t, terms = node.blocking, node.dtype, len(node.lefts)
    mr, nr, w = b.rows, b.columns, b.lanes
    lefts, rights, rows, params = block_parameters(node, in_place)
    acc = [[f"c{r}_{v}" for v in range(b.vectors)] for r in range(mr)]
    rv = [[f"r{u}_{v}" for v in range(b.vectors)] for u in range(terms)]
    scal = [f"a{u}" for u in range(terms)]
    combine = {"+": "hn::Add", "-": "hn::Sub"}.get(node.op)
    if combine is None:
        raise NotVectorUpdate(f"the update {node.op}=")

    def left(u: int, r: int) -> str:
        return f"l{u}_{r}[k]" if in_place else f"{lefts[u]}[k * {mr} + {r}]"

    body = [f"const hn::CappedTag<{t}, {w}> {TAG};",
            f"if (hn::Lanes({TAG}) == {w}) {{"]
    for r in range(mr):
        body += [f"  auto {acc[r][v]} = hn::LoadU({TAG}, {rows[r]} + {v * w});" for v in range(b.vectors)]
    body.append("  for (int k = 0; k < kn; k++) {")
    for u in range(terms):
        body += [f"    const auto {rv[u][v]} = hn::LoadU({TAG}, {rights[u]} + k * {nr} + {v * w});"
                 for v in range(b.vectors)]
    body.append(f"    {t} {', '.join(scal)};")
    vectors = {name for row in rv for name in row}
    for r in range(mr):
        loads = " ".join(f"{scal[u]} = {left(u, r)};" for u in range(terms))
        updates = " ".join(
            f"{acc[r][v]} = {combine}({acc[r][v]}, "
            f"{_vector(node.update_of([ex.Sym(a) for a in scal], [ex.Sym(rv[u][v]) for u in range(terms)]), vectors, print_expr, t)});"
            for v in range(b.vectors))
        body.append(f"    {loads} {updates}")
    body.append("  }")
    for r in range(mr):
        body += [f"  hn::StoreU({acc[r][v]}, {TAG}, {rows[r]} + {v * w});" for v in range(b.vectors)]
    body += ["  return;", "}",
             f"for (int j = 0; j < {nr}; j++) {{"]
    sums = [f"s{r}" for r in range(mr)]
    body.append(f"  {t} {', '.join(f'{sums[r]} = {rows[r]}[j]' for r in range(mr))};")
    body.append("  for (int k = 0; k < kn; k++) {")
    body.append(f"    {t} {', '.join(scal)};")
    factors = [f"b{u}" for u in range(terms)]
    body.append("    " + " ".join(f"const {t} {factors[u]} = {rights[u]}[k * {nr} + j];" for u in range(terms)))
    for r in range(mr):
        loads = " ".join(f"{scal[u]} = {left(u, r)};" for u in range(terms))
        value = node.update_of([ex.Sym(a) for a in scal], [ex.Sym(f) for f in factors])
        body.append(f"    {loads} {sums[r]} = {sums[r]} {node.op} ({print_expr(value)});")
    body.append("  }")
    body.append("  " + " ".join(f"{rows[r]}[j] = {sums[r]};" for r in range(mr)))
    body.append("}")
    parameters = ", ".join(["const int kn", *params])
    arguments = ", ".join(["kn", *lefts, *rights, *rows])
    return KernelFunction(name, parameters, arguments, ["  " + line for line in body])


def _vector(e: ex.Expr, vectors: set[str], print_expr: Callable[[ex.Expr], str], t: str) -> str:
    """``e`` as a Highway vector expression, where the names ``vectors`` are vectors and every
    subexpression without them is a scalar, computed as C computes it and then broadcast (as
    GNU C converts a scalar operand of a vector operation)."""
    if not ex.names(e) & vectors:
        return f"hn::Set({TAG}, static_cast<{t}>({print_expr(e)}))"
    if isinstance(e, ex.Sym):
        return e.name
    if isinstance(e, ex.Binary) and e.op in _OPERATIONS:
        return f"{_OPERATIONS[e.op]}({_vector(e.lhs, vectors, print_expr, t)}, {_vector(e.rhs, vectors, print_expr, t)})"
    if isinstance(e, ex.Unary) and e.op == "-":
        return f"hn::Neg({_vector(e.operand, vectors, print_expr, t)})"
    raise NotVectorUpdate(type(e).__name__)


_OPERATIONS = {"+": "hn::Add", "-": "hn::Sub", "*": "hn::Mul", "/": "hn::Div"}
