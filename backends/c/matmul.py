"""C expansion of the MatMul library node: a register-blocked kernel with packed panels.

The loops follow the BLIS scheme. Rows of the result come in blocks of ``panel_rows`` (one
per thread when there are threads), k in panels of ``depth``; the left factors of a row block
and k panel are packed once (computed there, with any scalar factor, as the statement computed
them), then for each ``columns``-wide strip of the result the right factors are packed, and a
``rows`` x ``columns`` block of the result is kept in vector registers while k runs over the
panel. Blocks that are not wholly inside the iteration space (rows and columns past the last
full block) run as plain loops; a block across the diagonal of a triangle runs the kernel on a
scratch copy and copies back only the cells the triangle has.

Vectors are GNU C vector types (gcc and clang): the kernel is plain C that any -march
compiles, and with the machine's vector width no accumulator is spilled. For each element of
the result the updates are applied in ascending k, as the node's contract requires.
"""
from __future__ import annotations

from typing import Callable

from s2s.ir import Binary, Const, Expr, MatMul, Sym, expr as ex


def expand_matmul(node: MatMul, print_expr: Callable[[Expr], str], taken: set[str], threads: bool) -> list[str]:
    """The lines of a C block that performs ``node`` (without indentation of its own)."""
    b = node.blocking
    t = node.dtype
    terms = len(node.lefts)
    i, j, k = node.i.var, node.j.var, node.k.var
    name = _Names(taken | {i, j, k})
    vec, lp, rp, blocked = name("vec"), name("lp"), name("rp"), name("blocked")
    ic, ie, iff, jb0, jb1, jf = name("ic"), name("ie"), name("if"), name("jb0"), name("jb1"), name("jf")
    kc, ke, kn, jr, ir, kk = name("kc"), name("ke"), name("kn"), name("jr"), name("ir"), name("k")
    tile, tr, tj, nthreads = name("tile"), name("tr"), name("tj"), name("threads")
    lrow = [name(f"l{u}") for u in range(terms)]
    scal = [name(f"a{u}") for u in range(terms)]
    acc = [[name(f"c{r}_{v}") for v in range(b.vectors)] for r in range(b.rows)]
    rv = [[name(f"r{u}_{v}") for v in range(b.vectors)] for u in range(terms)]
    mr, nr, w, depth, mc = b.rows, b.columns, b.lanes, b.depth, b.panel_rows
    left_size, right_size = f"{mc} * {depth}", f"{depth} * {nr}"

    def at_row(row: str | Expr, e: Expr) -> str:
        return print_expr(ex.substitute(e, {i: Sym(row) if isinstance(row, str) else row}))

    i0, i1 = print_expr(node.i.start), print_expr(node.i.stop)
    k0, k1 = print_expr(node.k.start), print_expr(node.k.stop)
    triangle = i in ex.names(node.j.start) or i in ex.names(node.j.stop)

    def j_start(row: str) -> str:
        return at_row(row, node.j.start)

    def j_stop(row: str) -> str:
        return at_row(row, node.j.stop)

    def cell(r: int, v: int) -> str:
        row = Sym(ir) if r == 0 else Binary("+", Sym(ir), Const(str(r)))
        col = Sym(jr) if v == 0 else Binary("+", Sym(jr), Const(str(v * w)))
        return "&" + print_expr(ex.substitute(node.target, {i: row, j: col}))

    def across_the_diagonal() -> list[str]:
        """A block only partly inside the triangle: the kernel runs on a scratch copy of the
        block whose cells outside the triangle are zero, and only the inside is copied back."""
        row, col = Binary("+", Sym(ir), Sym(tr)), Binary("+", Sym(jr), Sym(tj))
        has = f"{at_row(row, node.j.start)} <= {print_expr(col)} && {print_expr(col)} < {at_row(row, node.j.stop)}"
        target = print_expr(ex.substitute(node.target, {i: row, j: col}))
        cells = [f"for (int {tr} = 0; {tr} < {mr}; {tr}++)", f"  for (int {tj} = 0; {tj} < {nr}; {tj}++)"]
        return ([f"{t} {tile}[{mr * nr}] __attribute__((aligned(64)));"]
                + cells + [f"    {tile}[{tr} * {nr} + {tj}] = {has} ? {target} : 0;"]
                + kernel(lambda r, v: f"&{tile}[{r * nr + v * w}]")
                + cells + [f"    if ({has}) {target} = {tile}[{tr} * {nr} + {tj}];"])

    update = f"{node.op}="
    statement = f"{print_expr(node.target)} {update} {print_expr(node.update_of(list(node.lefts), list(node.rights)))};"

    def plain(rows: tuple[str, str], cols: tuple[str, str]) -> list[str]:
        """The statement for rows [a, b) and, in each row, the columns of [c, d) it has."""
        lo = _max(cols[0], j_start(i)) if triangle else cols[0]
        hi = _min(cols[1], j_stop(i)) if triangle else cols[1]
        return [f"for (int {i} = {rows[0]}; {i} < {rows[1]}; {i}++)",
                f"  for (int {k} = {kc}; {k} < {ke}; {k}++)",
                f"    for (int {j} = {lo}; {j} < {hi}; {j}++)",
                f"      {statement}"]

    body = [
        f"{t} *{lp} = ({t} *)__builtin_malloc(sizeof({t}) * {terms} * {left_size});",
        f"{t} *{rp} = ({t} *)__builtin_malloc(sizeof({t}) * {terms} * {right_size});",
        "/* without memory for the panels the plain loops below do all the work */",
        f"const int {blocked} = {lp} != 0 && {rp} != 0;",
    ]
    step = str(mc)
    if threads:
        # rows shared evenly by the threads, in blocks of at most mc (doitgen has 140 rows: blocks
        # of 96 would leave one thread a third of the work)
        step = name("mc")
        share = f"(({i1} - {i0} + {nthreads} - 1) / {nthreads} + {mr - 1}) / {mr} * {mr}"
        body += [
            "extern int omp_get_num_threads(void);",
            f"const int {nthreads} = omp_get_num_threads();",
            f"const int {step} = {_max(_min(share, str(mc)), str(mr))};",
            "#pragma omp for schedule(dynamic)",
        ]
    body += [
        f"for (int {ic} = {i0}; {ic} < {i1}; {ic} += {step}) {{",
        f"  const int {ie} = {_min(f'{ic} + {step}', i1)};",
        f"  const int {iff} = {blocked} ? {ic} + ({ie} - {ic}) / {mr} * {mr} : {ic};",
    ]
    if triangle:   # the columns some row of the block has (bounds affine in i: extreme at the ends)
        last = Binary("-", Sym(ie), Const("1"))
        body += [
            f"  const int {jb0} = {_min(j_start(ic), at_row(last, node.j.start))};",
            f"  const int {jb1} = {_max(j_stop(ic), at_row(last, node.j.stop))};",
        ]
    else:
        body += [f"  const int {jb0} = {print_expr(node.j.start)};", f"  const int {jb1} = {print_expr(node.j.stop)};"]
    body += [
        f"  const int {jf} = {blocked} && {jb1} > {jb0} ? {jb0} + ({jb1} - {jb0}) / {nr} * {nr} : {jb0};",
        f"  for (int {kc} = {k0}; {kc} < {k1}; {kc} += {depth}) {{",
        f"    const int {ke} = {_min(f'{kc} + {depth}', k1)};",
        f"    const int {kn} = {ke} - {kc};",
        f"    for (int {i} = {ic}; {i} < {iff}; {i}++)",
        f"      for (int {k} = {kc}; {k} < {ke}; {k}++) {{",
    ]
    slot = f"({i} - {ic}) / {mr} * {mr} * {kn} + ({k} - {kc}) * {mr} + ({i} - {ic}) % {mr}"
    body += [f"        {lp}[{u} * {left_size} + {slot}] = {print_expr(node.lefts[u])};" for u in range(terms)]
    body += [
        "      }",
        f"    for (int {jr} = {jb0}; {jr} < {jf}; {jr} += {nr}) {{",
        f"      for (int {k} = {kc}; {k} < {ke}; {k}++)",
        f"        for (int {j} = {jr}; {j} < {jr} + {nr}; {j}++) {{",
    ]
    body += [f"          {rp}[{u} * {right_size} + ({k} - {kc}) * {nr} + ({j} - {jr})] = {print_expr(node.rights[u])};"
             for u in range(terms)]
    body += [
        "        }",
        f"      for (int {ir} = {ic}; {ir} < {iff}; {ir} += {mr}) {{",
    ]
    def kernel(cell: Callable[[int, int], str]) -> list[str]:
        """The register block of the result at ``cell`` updated over the packed k panel."""
        lines = [f"const {t} *{lrow[u]} = {lp} + {u} * {left_size} + ({ir} - {ic}) * {kn};" for u in range(terms)]
        for r in range(mr):
            lines.append(f"{vec} " + ", ".join(f"{acc[r][v]} = *({vec} *){cell(r, v)}" for v in range(b.vectors)) + ";")
        lines.append(f"for (int {kk} = 0; {kk} < {kn}; {kk}++) {{")
        for u in range(terms):
            lines.append(f"  const {vec} " + ", ".join(
                f"{rv[u][v]} = *(const {vec} *)&{rp}[{u} * {right_size} + {kk} * {nr}{f' + {v * w}' if v else ''}]"
                for v in range(b.vectors)) + ";")
        lines.append(f"  {t} {', '.join(scal)};")
        for r in range(mr):
            loads = " ".join(f"{scal[u]} = {lrow[u]}[{kk} * {mr} + {r}];" for u in range(terms))
            updates = " ".join(
                f"{acc[r][v]} {update} "
                f"{print_expr(node.update_of([Sym(a) for a in scal], [Sym(rv[u][v]) for u in range(terms)]))};"
                for v in range(b.vectors))
            lines.append(f"  {loads} {updates}")
        lines.append("}")
        for r in range(mr):
            lines.append(" ".join(f"*({vec} *){cell(r, v)} = {acc[r][v]};" for v in range(b.vectors)))
        return lines

    if triangle:
        last = Binary("+", Sym(ir), Const(str(mr - 1)))
        inside = (f"{j_start(ir)} <= {jr} && {at_row(last, node.j.start)} <= {jr} && "
                  f"{jr} + {nr} <= {j_stop(ir)} && {jr} + {nr} <= {at_row(last, node.j.stop)}")
        body.append(f"        if ({inside}) {{")
        body += ["          " + line for line in kernel(cell)]
        body.append("        } else {")
        body += ["          " + line for line in across_the_diagonal()]
        body.append("        }")
    else:
        body += ["        " + line for line in kernel(cell)]
    body += ["      }", "    }"]
    body += ["    " + line for line in plain((iff, ie), (jb0, jf))]
    body += ["    " + line for line in plain((ic, ie), (jf, jb1))]
    body += [
        "  }",
        "}",
        f"__builtin_free({lp});",
        f"__builtin_free({rp});",
    ]
    out = [
        "{",
        f"  typedef {t} {vec} __attribute__((vector_size({w} * sizeof({t})), aligned(sizeof({t})), may_alias));",
    ]
    if threads:
        out.append("  #pragma omp parallel")
    out.append("  {")
    out += ["    " + line for line in body]
    out += ["  }", "}"]
    return out


def _min(a: str, b: str) -> str:
    return f"({a} < {b} ? {a} : {b})"


def _max(a: str, b: str) -> str:
    return f"({a} > {b} ? {a} : {b})"


class _Names:
    """Fresh ``s2s_`` names that no container of the function uses."""

    def __init__(self, taken: set[str]):
        self.taken = set(taken)

    def __call__(self, base: str) -> str:
        name = f"s2s_{base}"
        k = 0
        while name in self.taken:
            k += 1
            name = f"s2s_{base}_{k}"
        self.taken.add(name)
        return name
