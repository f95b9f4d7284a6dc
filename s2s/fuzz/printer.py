"""Prints a fuzz ``Program`` as one self-contained C file.

The file has a ``kernel`` function (the loop nests; parameters reach it as function arguments read
from ``argv``, so the optimizer sees symbols, not constants) and a ``main`` that fills every array
with deterministic values, calls the kernel and prints every array: integers in decimal, floating
point as ``%a`` so that comparing two runs' output is a bit-exact comparison. A NaN prints as
``nan`` whatever its sign and payload: those are not something C promises to keep, and an
optimizer that swaps the operands of a commutative ``+`` may legally change them.
"""
from __future__ import annotations

from s2s.fuzz.model import (
    FLOAT_TYPES, INT_MASK, Access, Array, BinOp, Const, Expr, If, Loop, LoopVar, Node, Poly, Program, ScalarDecl,
    ScalarRef, Stmt, walk_nodes,
)

HEADER_TAG = "s2s-fuzz:"
SIGNED_WIDE = ("long", "long long")


def storage_name(a: Array) -> str:
    return a.name if a.kind == "global" else f"g_{a.name}"


def header_comment(program: Program, target: str = "c", note: str = "") -> str:
    """The first line of a saved program: how to rebuild the failure (read back by the regression tests)."""
    cfg = program.config
    fields = [f"seed={program.seed}", f"target={target}", f"tile={cfg.tile or '-'}", f"fuse={cfg.fuse}",
              f"kernels={cfg.kernels}", f"work={cfg.work or '-'}",
              f"profitability={cfg.profitability}", f"args={','.join(program.args()) or '-'}"]
    text = f"/* {HEADER_TAG} {' '.join(fields)} */\n"
    if note:
        text += "".join(f"/* {line} */\n" for line in note.splitlines())
    return text


def to_c(program: Program, header: str = "") -> str:
    types = _scalar_types(program)
    index_types = dict(program.types)
    arrays = {a.name: a for a in program.arrays}
    out: list[str] = [header] if header else []
    out += ["#include <stdio.h>", "#include <stdlib.h>", ""]
    for a in program.arrays:
        if a.kind != "view":
            out.append(f"static {a.ctype} {storage_name(a)}{''.join(f'[{d}]' for d in a.dims)};")
        elif a.view_kind == "global":
            out.append(f"static {a.ctype} *{a.name};")
    n_results = len(program.scalars) + len(program.read_after)
    if n_results:
        out.append(f"static double g_result[{n_results}];")
    out.append("")

    # the kernel
    params = [f"{program.type_of(name)} {name}" for name, _ in program.params]
    call = [name for name, _ in program.params]
    local_views: list[str] = []
    passed_buffers: list[str] = []
    for a in program.arrays:
        if a.kind == "param":
            params.append(f"{a.ctype} {a.name}{''.join(f'[{d}]' for d in a.dims)}")
            call.append(storage_name(a))
        elif a.kind == "ptr":
            params.append(f"{a.ctype} *{'restrict ' if a.restrict else ''}{a.name}")
            call.append(storage_name(a))
        elif a.kind == "view" and a.view_kind == "param":
            params.append(f"{a.ctype} *{a.name}")
            call.append(f"{storage_name(arrays[a.buffer])} + {a.offset}")
        elif a.kind == "view" and a.view_kind == "local":
            buf = arrays[a.buffer]
            if buf.name not in passed_buffers:
                passed_buffers.append(buf.name)
                params.append(f"{buf.ctype} *{buf.name}")
                call.append(storage_name(buf))
            local_views.append(f"  {a.ctype} *{a.name} = {buf.name} + {a.offset};")
    out.append(f"void kernel({', '.join(params) or 'void'})")
    out.append("{")
    out += local_views
    by_type: dict[str, list[str]] = {}
    for v in program.declared_at_top:
        by_type.setdefault(program.type_of(v), []).append(f"{v} = 0" if v in program.read_after else v)
    for ctype, names in by_type.items():
        out.append(f"  {ctype} {', '.join(names)};")
    for s in program.scalars:
        out.append(f"  {s.ctype} {s.name} = {s.init.text};")
    for node in program.body:
        _node(node, 1, types, arrays, out, program.declared_at_top, index_types)
    for k, name in enumerate([s.name for s in program.scalars] + list(program.read_after)):
        out.append(f"  g_result[{k}] = {name};")
    out.append("}")
    out.append("")

    # main: fill, call, print
    out.append("void print_fp(double x)")
    out.append("{")
    out.append("  if (x != x)")
    out.append('    printf("nan\\n");')
    out.append("  else")
    out.append('    printf("%a\\n", x);')
    out.append("}")
    out.append("")
    out.append("int main(int argc, char **argv)")
    out.append("{")
    for k, (name, value) in enumerate(program.params):
        ctype = program.type_of(name)
        read = f"atoi(argv[{k + 1}])" if ctype == "int" else f"({ctype})atol(argv[{k + 1}])"
        out.append(f"  {ctype} {name} = argc > {k + 1} ? {read} : {value};")
    for salt, a in enumerate(program.arrays):
        if a.kind != "view":
            _fill(a, salt, out)
    for a in program.arrays:
        if a.kind == "view" and a.view_kind == "global":
            out.append(f"  {a.name} = {storage_name(arrays[a.buffer])} + {a.offset};")
    out.append(f"  kernel({', '.join(call)});")
    for a in program.arrays:
        if a.kind != "view":
            _print_array(a, out)
    if n_results:
        out.append('  printf("result\\n");')
        out.append(f"  for (int k = 0; k < {n_results}; k++)")
        out.append("    print_fp(g_result[k]);")
    out.append("  return 0;")
    out.append("}")
    return "\n".join(out) + "\n"


def _scalar_types(program: Program) -> dict[str, str]:
    types = {s.name: s.ctype for s in program.scalars}
    types.update((n.name, n.ctype) for n in walk_nodes(program.body) if isinstance(n, ScalarDecl))
    return types


def target_type(target: Access | ScalarRef, types: dict[str, str], arrays: dict[str, Array]) -> str:
    return arrays[target.array].ctype if isinstance(target, Access) else types[target.name]


def _node(node: Node, depth: int, types: dict[str, str], arrays: dict[str, Array], out: list[str],
          at_top: tuple[str, ...] = (), index_types: dict[str, str] | None = None) -> None:
    pad = "  " * depth
    index_types = index_types or {}
    if isinstance(node, Loop):
        out.append(pad + loop_header(node, "" if node.var in at_top else index_types.get(node.var, "int") + " "))
        _block(node.body, depth, types, arrays, out, at_top, index_types)
    elif isinstance(node, If):
        cond = node.cond
        if cond.data is not None:
            out.append(f"{pad}if ({expr_c(cond.data, cond.data_type, arrays, index_types)} {cond.op} {cond.rhs.c()})")
        else:
            out.append(f"{pad}if ({cond.c()})")
        _block(node.then, depth, types, arrays, out, at_top, index_types)
        if node.orelse:
            out.append(f"{pad}else")
            _block(node.orelse, depth, types, arrays, out, at_top, index_types)
    elif isinstance(node, ScalarDecl):
        out.append(f"{pad}{node.ctype} {node.name} = {node.init.text};")
    elif isinstance(node, Stmt):
        out.append(pad + statement_c(node, types, arrays, index_types))
    else:  # pragma: no cover - the model has no other node
        raise TypeError(node)


def loop_header(node: Loop, declare: str) -> str:
    """``for (...)`` as the loop's style writes it (``declare``: the counter's type and a space, or
    nothing where it is declared at the kernel's top)."""
    v = node.var
    if node.descending and node.style == "postdec":
        return f"for ({declare}{v} = {node.top().c()}; {v}-- > {node.lower.c()};)"
    if node.descending and node.style == "gt":
        return f"for ({declare}{v} = {node.top().c()}; {v} > {node.lower.c()}; {v}--)"
    if node.descending:
        start = node.upper.c() if node.inclusive else node.upper.shifted(-1).c()
        step = f"{v}--" if node.step == 1 else f"{v} -= {node.step}"
        return f"for ({declare}{v} = {start}; {v} >= {node.lower.c()}; {step})"
    step = f"{v}++" if node.step == 1 else f"{v} += {node.step}"
    cmp = "<=" if node.inclusive else "<"
    if node.plus_form():
        test = f"{v} + {-node.upper.const} {cmp} {Poly(node.upper.terms, 0).c()}"
    else:
        test = f"{v} {cmp} {node.upper.c()}"
    return f"for ({declare}{v} = {node.lower.c()}; {test}; {step})"


def _block(body, depth, types, arrays, out, at_top: tuple[str, ...] = (),
           index_types: dict[str, str] | None = None) -> None:
    pad = "  " * depth
    out.append(pad + "{")
    for child in body:
        _node(child, depth + 1, types, arrays, out, at_top, index_types)
    out.append(pad + "}")


def statement_c(s: Stmt, types: dict[str, str], arrays: dict[str, Array],
                index_types: dict[str, str] | None = None) -> str:
    ctype = target_type(s.target, types, arrays)
    lhs = expr_c(s.target, ctype, arrays)
    rhs = expr_c(s.expr, ctype, arrays, index_types)
    if ctype == "int":  # masked so that no sum of small products can overflow
        if s.op == "=":
            return f"{lhs} = ({rhs}) & {INT_MASK};"
        return f"{lhs} = ({lhs} {s.op[0]} ({rhs})) & {INT_MASK};"
    return f"{lhs} {s.op} {rhs};"


def expr_c(e: Expr, ctype: str, arrays: dict[str, Array], index_types: dict[str, str] | None = None) -> str:
    if isinstance(e, Const):
        return e.text if not e.text.startswith("-") else f"({e.text})"
    if isinstance(e, LoopVar):
        # Cast in floating-point context so that products of loop variables are never int products;
        # and a signed 64-bit counter in unsigned context, where it would make the products signed
        # (and able to overflow) rather than wrap
        if ctype in FLOAT_TYPES or (ctype == "unsigned" and (index_types or {}).get(e.name) in SIGNED_WIDE):
            return f"({ctype}){e.name}"
        return e.name
    if isinstance(e, ScalarRef):
        return e.name
    if isinstance(e, Access):
        return e.array + "".join(f"[{p.c()}]" for p in e.index)
    if isinstance(e, BinOp):
        return f"({expr_c(e.left, ctype, arrays, index_types)} {e.op} {expr_c(e.right, ctype, arrays, index_types)})"
    raise TypeError(e)


def _fill(a: Array, salt: int, out: list[str]) -> None:
    """Deterministic contents: a hash of the element's flat position, small and varied."""
    name = storage_name(a)
    idx = [f"x{k}" for k in range(len(a.dims))]
    for k, d in enumerate(a.dims):
        out.append("  " * (k + 1) + f"for (int {idx[k]} = 0; {idx[k]} < {d}; {idx[k]}++)")
    lin = idx[0]
    for k in range(1, len(a.dims)):
        lin = f"({lin}) * {a.dims[k]} + {idx[k]}"
    s = 3 + 2 * salt
    if a.ctype == "int":
        value = f"(({lin}) * 7 + {s}) % 23 - 11"
    elif a.ctype == "unsigned":
        value = f"(unsigned)({lin}) * 2654435761u + {s}u"
    elif salt % 2:  # non-dyadic values on some arrays: rounding differs with any reordering
        value = f"({a.ctype})((({lin}) * 7 + {s}) % 23 - 11) * ({a.ctype})0.1"
    else:
        value = f"({a.ctype})((({lin}) * 5 + {s}) % 19 - 9) * ({a.ctype})0.25"
    out.append("  " * (len(a.dims) + 1) + f"{name}{''.join(f'[{i}]' for i in idx)} = {value};")


def _print_array(a: Array, out: list[str]) -> None:
    name = storage_name(a)
    out.append(f'  printf("{a.name}\\n");')
    idx = [f"x{k}" for k in range(len(a.dims))]
    for k, d in enumerate(a.dims):
        out.append("  " * (k + 1) + f"for (int {idx[k]} = 0; {idx[k]} < {d}; {idx[k]}++)")
    element = f"{name}{''.join(f'[{i}]' for i in idx)}"
    pad = "  " * (len(a.dims) + 1)
    if a.ctype in FLOAT_TYPES:
        out.append(f"{pad}print_fp({element});")
    else:
        out.append(f'{pad}printf("{"%d" if a.ctype == "int" else "%u"}\\n", {element});')
