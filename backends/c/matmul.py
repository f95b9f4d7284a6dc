"""C expansion of the MatMul library node: a register-blocked kernel with packed panels.

The loops follow the BLIS scheme. Columns of the result come in chunks of ``panel_columns``, k
in panels of ``depth``; the right factors of a chunk and k panel are packed once (computed
there, with any scalar factor, as the statement computed them), by all threads together, into
a panel they share (or were packed before the call, all panels at once, by a PackedRight node:
``expand_packed_right`` writes them where the node then reads them). Then rows come in blocks of at most ``panel_rows``, which the threads take
in turn; a thread packs the left factors of its block (unless each is an array element whose
row runs along k: the register block then reads those rows where they are), and for each
``columns``-wide strip of the chunk a ``rows`` x ``columns`` block of the result is kept in
vector registers while k runs over the panel. Packed rows past the last row and columns past the last column are zeros; a
block that is not wholly inside the iteration space (the last rows and columns, a triangle's
diagonal) runs the kernel on a scratch copy and copies back only the cells the space has, and
a block of a triangle that has none of its cells is skipped.

The register block's loop is a function of its own at file scope (``MatMulCode.helper``), not
inlined: it needs all but one of the vector registers, and in the function around it gcc keeps
values it hoisted out of the surrounding loops (the scalar factor, broadcast, for the packing
loops) in registers across it, which spilled an accumulator to the stack in every iteration
(gemm under OpenMP ran at two thirds of the speed of the same kernel without threads).

Vectors are GNU C vector types (gcc and clang): the kernel is plain C that any -march
compiles, and with the machine's vector width no accumulator is spilled. For each element of
the result the updates are applied in ascending k, as the node's contract requires.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Callable

from s2s.ir import Access, Binary, Const, Expr, MatMul, PackedRight, Sym, expr as ex, reads_target
from s2s.ir.expr_parse import parse_expr


@dataclass(frozen=True)
class MatMulCode:
    lines: list[str]   # a C block that performs the node (without indentation of its own)
    helper_name: str   # the register-block function it calls
    block: str         # that function's definition, at file scope
    panels: str        # the definitions of the functions that give it memory for its panels
    in_place: bool     # the register block reads the left factors' rows where they are

    @property
    def helper(self) -> str:
        """Everything the code calls, defined at file scope."""
        return self.block + self.panels


def expand_matmul(node: MatMul, print_expr: Callable[[Expr], str], taken: set[str], threads: bool,
                  parallel_if: str = "") -> MatMulCode:
    """The C code that performs ``node`` (on the threads of a parallel region with ``threads``,
    ``parallel_if`` its clause that may give it a team of one)."""
    b = node.blocking
    t = node.dtype
    terms = len(node.lefts)
    i, j, k = node.i.var, node.j.var, node.k.var
    name = _Names(taken | {i, j, k})
    lp, rp, blocked = name("lp"), name("rp"), name("blocked")
    panel, stride = name("panel"), name("term_stride")   # the k panel's right factors, and a term's share
    jc, je, kc, ke, kn = name("jc"), name("je"), name("kc"), name("ke"), name("kn")
    ic, ie, ip, jr, ir = name("ic"), name("ie"), name("ip"), name("jr"), name("ir")
    bi, nblocks = name("bi"), name("nblocks")
    tile, tr, tj, nthreads, step, blocks = name("tile"), name("tr"), name("tj"), name("threads"), name("mc"), name("blocks")
    mr, nr, depth, mc, nc = b.rows, b.columns, b.depth, b.panel_rows, b.panel_columns
    columns = name("columns")   # of the right panel: up to nc, no more than the node has
    left_size, right_size = f"{mc} * {depth}", f"{depth} * {columns}"   # one term's panels

    def at_row(row: str | Expr, e: Expr) -> str:
        return _operand(print_expr(ex.substitute(e, {i: Sym(row) if isinstance(row, str) else row})))

    def plus(name: str, n: int | str) -> Expr:
        return Binary("+", Sym(name), Sym(n) if isinstance(n, str) else Const(str(n)))

    i0, i1 = _operand(print_expr(node.i.start)), _operand(print_expr(node.i.stop))
    triangle = _is_triangle(node)
    k_moves = _k_moves(node)
    last_row = Binary("-", node.i.stop, Const("1"))
    if k_moves:   # the k some row has (bounds affine in i: extreme at the first and last row)
        k0 = _min(at_row(node.i.start, node.k.start), at_row(last_row, node.k.start))
        k1 = _max(at_row(node.i.start, node.k.stop), at_row(last_row, node.k.stop))
    else:
        k0, k1 = _operand(print_expr(node.k.start)), _operand(print_expr(node.k.stop))
    stale = reads_target(node.rights, node.target)
    if triangle:   # the columns some row has (bounds affine in i: extreme at the first and last row)
        j0 = _min(at_row(node.i.start, node.j.start), at_row(last_row, node.j.start))
        j1 = _max(at_row(node.i.start, node.j.stop), at_row(last_row, node.j.stop))
    else:
        j0, j1 = _operand(print_expr(node.j.start)), _operand(print_expr(node.j.stop))

    def has(row: Expr, col: Expr) -> str:
        """Whether the cell at (row, col) of a block is in the iteration space."""
        row_text, col_text = _operand(print_expr(row)), _operand(print_expr(col))
        inside = f"{row_text} < {ie} && {col_text} < {je}"
        if triangle:
            inside += (f" && {at_row(row, node.j.start)} <= {col_text}"
                       f" && {col_text} < {at_row(row, node.j.stop)}")
        return inside

    # with k_moves, the k that every row of the register block has, in this panel: [ks, kf)
    ks, kf = name("ks"), name("kf")

    def kernel(row: Callable[[int], str], whole: bool) -> str:
        """The call that updates the register block whose rows start at ``row(r)`` over the
        packed k panel, or the part of it all the block's rows have (rows of the left factors
        read in place: past the last row, ``whole`` false, the last row again, whose results are
        not copied back)."""
        first, count = (ks, f"{kf} - {ks}") if k_moves else (kc, kn)
        if in_place:
            def left_row(u: int, r: int) -> Expr:
                index = plus(ir, r) if r else Sym(ir)
                if not whole and r:
                    index = ex.Ternary(Binary("<", index, Sym(ie)), index, Binary("-", Sym(ie), Const("1")))
                return ex.Unary("&", ex.substitute(node.lefts[u], {i: index, k: Sym(first)}))
            lefts = [print_expr(left_row(u, r)) for u in range(terms) for r in range(mr)]
        else:
            skipped = f" + ({ks} - {kc}) * {mr}" if k_moves else ""
            lefts = [f"{lp} + {u} * {left_size} + ({ir} - {ic}) * {kn}{skipped}" for u in range(terms)]
        skipped = f" + ({ks} - {kc}) * {nr}" if k_moves else ""
        rights = [f"{panel} + {u} * {stride} + ({jr} - {jc}) * {kn}{skipped}" for u in range(terms)]
        return f"{helper_name}({count}, {', '.join(lefts + rights + [row(r) for r in range(mr)])});"

    def packed(u: int, at_k: str, column: str, strip: tuple[str, str] | None = None) -> Expr:
        """Term u's right factor at (``at_k``, ``column``) in the packed panel (``strip``: the
        column as the first of its strip and the offset in it, ``column`` being their sum)."""
        first, offset = strip or (f"{jc} + ({column} - {jc}) / {nr} * {nr}", f"({column} - {jc}) % {nr}")
        index = f"{u} * {stride} + ({first} - {jc}) * {kn} + ({at_k} - {kc}) * {nr} + {offset}"
        return Access(panel, (parse_expr(index),))

    def cells_over_k(lo: Callable[[Expr], str], hi: Callable[[Expr], str]) -> list[str]:
        """The block's cells in the iteration space updated for k from ``lo(row)`` to ``hi(row)``
        in ascending order, the right factors read from the packed panel: the k of a row that
        the register block leaves out (a triangle's ``k > i``). The block's rows and columns
        in the space are the loops' bounds, not a test per cell, so that the loop over the
        columns vectorizes."""
        row, col = plus(ir, tr), plus(jr, tj)
        statement = (f"{print_expr(ex.substitute(node.target, {i: row, j: col}))} {node.op}= "
                     + print_expr(ex.substitute(node.update_of(
                         list(node.lefts), [packed(u, k, print_expr(col), (jr, tj)) for u in range(terms)]), {i: row}))
                     + ";")
        first_col, past_col = "0", _min(str(nr), f"{je} - {jr}")
        if triangle:
            first_col = _max(first_col, f"{at_row(row, node.j.start)} - {jr}")
            past_col = _min(past_col, f"{at_row(row, node.j.stop)} - {jr}")
        return [f"for (int {tr} = 0; {tr} < {_min(str(mr), f'{ie} - {ir}')}; {tr}++)",
                f"  for (int {k} = {lo(row)}; {k} < {hi(row)}; {k}++)",
                f"    for (int {tj} = {first_col}; {tj} < {past_col}; {tj}++)",
                f"      {statement}"]

    def k_of(row: Expr) -> tuple[str, str]:
        """The k of ``row`` in this panel."""
        return _max(kc, at_row(row, node.k.start)), _min(ke, at_row(row, node.k.stop))

    def row_of_block(r: int) -> str:
        return "&" + print_expr(ex.substitute(node.target, {i: plus(ir, r) if r else Sym(ir), j: Sym(jr)}))

    def block() -> list[str]:
        """The register block at (ir, jr): on the result where it is wholly in the iteration
        space, else on a scratch copy whose other cells are zero, of which only the cells in
        the space are copied back (rows and columns past the last full block, a triangle's
        diagonal)."""
        last = plus(ir, mr - 1)
        whole = f"{ir} + {mr} <= {ie} && {jr} + {nr} <= {je}"
        if triangle:
            whole += (f" && {at_row(ir, node.j.start)} <= {jr} && {at_row(last, node.j.start)} <= {jr}"
                      f" && {jr} + {nr} <= {at_row(ir, node.j.stop)} && {jr} + {nr} <= {at_row(last, node.j.stop)}")
        row, col = plus(ir, tr), plus(jr, tj)
        target = print_expr(ex.substitute(node.target, {i: row, j: col}))
        cells = [f"for (int {tr} = 0; {tr} < {mr}; {tr}++)", f"  for (int {tj} = 0; {tj} < {nr}; {tj}++)"]
        cell = f"{tile}[{tr} * {nr} + {tj}]"
        registers = ([f"if ({whole}) {{", "  " + kernel(row_of_block, True), "} else {",
                      f"  {t} {tile}[{mr * nr}] __attribute__((aligned(64)));"]
                     + ["  " + c for c in cells] + [f"      {cell} = {has(row, col)} ? {target} : 0;",
                                                     "  " + kernel(lambda r: f"{tile} + {r * nr}", False)]
                     + ["  " + c for c in cells] + [f"      if ({has(row, col)}) {target} = {cell};", "}"])
        if not k_moves:
            return registers
        # k a row has before the common part first, then the common part in registers, then the
        # k it has after it: each cell's updates stay in ascending k
        block_last = Binary("-", Sym(_min(f"{ir} + {mr}", ie)), Const("1"))
        return ([f"const int {ks} = {_max(kc, _max(at_row(ir, node.k.start), at_row(block_last, node.k.start)))};",
                 f"const int {kf} = {_min(ke, _min(at_row(ir, node.k.stop), at_row(block_last, node.k.stop)))};",
                 f"if ({ks} < {kf}) {{"]
                + ["  " + line for line in cells_over_k(lambda r: k_of(r)[0], lambda r: ks)]
                + ["  " + line for line in registers]
                + ["  " + line for line in cells_over_k(lambda r: kf, lambda r: k_of(r)[1])]
                + ["} else {"]
                + ["  " + line for line in cells_over_k(lambda r: k_of(r)[0], lambda r: k_of(r)[1])]
                + ["}"])

    def plain() -> list[str]:
        """The statement for rows [ic, ie), the k panel and the columns of the chunk, without
        the panels (their memory could not be had)."""
        lo = _max(jc, at_row(i, node.j.start)) if triangle else jc
        hi = _min(je, at_row(i, node.j.stop)) if triangle else je
        k_lo, k_hi = k_of(Sym(i)) if k_moves else (kc, ke)
        # (a factor that reads the target's array reads the values packed before any update)
        rights = [packed(u, k, j) for u in range(terms)] if stale else list(node.rights)
        return _loops(node, print_expr, (ic, ie), (k_lo, k_hi), (lo, hi), rights)

    in_place = all(_row_along_k(left, i, k) for left in node.lefts)
    helper_name, helper = _register_block(node, print_expr, in_place)
    # a triangle along k (rows with more k than others) gives the threads columns of their own,
    # each with the whole triangle, instead of sharing each panel's row blocks, of which the
    # first panels have few; every thread packs its own panels then, with no barrier
    apart = threads and k_moves
    shared = threads and not apart
    pragma = (lambda text: [text]) if threads else (lambda text: [])
    pragma_shared = (lambda text: [text]) if shared else (lambda text: [])
    if shared:
        # rows shared evenly by the threads: a multiple of their number of blocks of at most mc
        # rows (doitgen has 140 rows: blocks of 96 would leave one thread a third of the work;
        # gemm's 1000 rows in 11 blocks of 96 would give one thread 576 of them)
        at_most_mc = f"(({i1} - {i0} + {mc - 1}) / {mc} + {nthreads} - 1) / {nthreads} * {nthreads}"
        rows_each = f"(({i1} - {i0} + {blocks} - 1) / {blocks} + {mr - 1}) / {mr} * {mr}"
        rows_per_block = [
            "extern int omp_get_num_threads(void);",
            f"const int {nthreads} = omp_get_num_threads();",
            f"const int {blocks} = {_max(at_most_mc, '1')};",
            f"const int {step} = {_max(rows_each, str(mr))};",
        ]
    else:
        rows_per_block = [f"const int {step} = {mc};"]
    rows_per_block.append(f"const int {nblocks} = ({i1} - {i0} + {step} - 1) / {step};")
    pack_right = [
        f"for (int {jr} = {jc}; {jr} < {je}; {jr} += {nr})",
        f"  for (int {k} = {kc}; {k} < {ke}; {k}++)",
        f"    for (int {j} = {jr}; {j} < {jr} + {nr}; {j}++) {{",
    ] + [f"      {rp}[{u} * {right_size} + ({jr} - {jc}) * {kn} + ({k} - {kc}) * {nr} + ({j} - {jr})] = "
         f"{j} < {je} ? {print_expr(node.rights[u])} : 0;" for u in range(terms)] + ["    }"]
    slot = f"({i} - {ic}) / {mr} * {mr} * {kn} + ({k} - {kc}) * {mr} + ({i} - {ic}) % {mr}"
    # (nothing is read outside the iteration space: a row's k outside its range are zeros)
    has_k = (f" && {at_row(i, node.k.start)} <= {k} && {k} < {at_row(i, node.k.stop)}") if k_moves else ""
    pack_left = [
        f"for (int {i} = {ic}; {i} < {ip}; {i}++)",
        f"  for (int {k} = {kc}; {k} < {ke}; {k}++) {{",
    ] + [f"    {lp}[{u} * {left_size} + {slot}] = {i} < {ie}{has_k} ? {print_expr(node.lefts[u])} : 0;"
         for u in range(terms)] + ["  }"]
    # a block with no cell of the iteration space in this panel is skipped
    skip, skip_rows = [], []
    if k_moves:
        def no_k(first: str, last: Expr) -> str:
            lo = _max(kc, _min(at_row(first, node.k.start), at_row(last, node.k.start)))
            hi = _min(ke, _max(at_row(first, node.k.stop), at_row(last, node.k.stop)))
            return f"{lo} >= {hi}"
        skip.append(f"if ({no_k(ir, Binary('-', Sym(_min(f'{ir} + {mr}', ie)), Const('1')))}) continue;")
        skip_rows.append(f"if ({no_k(ic, Binary('-', Sym(ie), Const('1')))}) continue;")
    if triangle:
        last = Binary("-", Sym(_min(f"{ir} + {mr}", ie)), Const("1"))
        lo = _min(at_row(ir, node.j.start), at_row(last, node.j.start))
        hi = _max(at_row(ir, node.j.stop), at_row(last, node.j.stop))
        skip.append(f"if ({jr} + {nr} <= {lo} || {jr} >= {hi}) continue;")

        # the widest rows first, so that the threads finish a panel together: the last block
        # taken is the narrowest (a lower triangle's widest rows are its last)
        def width(row: Expr) -> str:
            return f"({at_row(row, node.j.stop)} - {at_row(row, node.j.start)})"
        first_width, last_width = width(node.i.start), width(last_row)
        block_index = bi if first_width == last_width else f"({last_width} > {first_width} ? {nblocks} - 1 - {bi} : {bi})"
    else:
        block_index = bi
    row_blocks = [
        f"for (int {bi} = 0; {bi} < {nblocks}; {bi}++) {{",
        f"  const int {ic} = {i0} + {block_index} * {step};",
        f"  const int {ie} = {_min(f'{ic} + {step}', i1)};",
    ] + ["  " + line for line in skip_rows] + [
        f"  if (!{blocked}) {{",
    ] + ["    " + line for line in plain()] + [
        "    continue;",
        "  }",
    ] + ([] if in_place else [
        f"  const int {ip} = {ic} + ({ie} - {ic} + {mr - 1}) / {mr} * {mr};   /* rows past ie packed as zeros */",
    ] + ["  " + line for line in pack_left]) + [
        f"  for (int {jr} = {jc}; {jr} < {je}; {jr} += {nr})",
        f"    for (int {ir} = {ic}; {ir} < {ie}; {ir} += {mr}) {{",
    ] + ["      " + line for line in skip + block()] + ["    }", "}"]
    packed = node.packed_right
    if packed:
        # packed before the call (PackedRight), where that memory could be had
        where_packed = [
            f"{t} *const {panel} = {packed} != 0 ? {packed} + {_panel_offset(terms, k0, k1, j0, jc, kc, je, nr)} : {rp};",
            f"const int {stride} = {packed} != 0 ? {kn} * {_strips_width(jc, je, nr)} : {right_size};",
        ]
    else:
        where_packed = [f"{t} *const {panel} = {rp};", f"const int {stride} = {right_size};"]
    cj0, cj1 = (name("cj0"), name("cj1")) if apart else (j0, j1)   # the columns of this thread
    panels = [
        f"for (int {jc} = {cj0}; {jc} < {cj1}; {jc} += {nc}) {{",
        f"  const int {je} = {_min(f'{jc} + {nc}', cj1)};",
        f"  for (int {kc} = {k0}; {kc} < {k1}; {kc} += {depth}) {{",
        f"    const int {ke} = {_min(f'{kc} + {depth}', k1)};",
        f"    const int {kn} = {ke} - {kc};",
    ] + ["    " + line for line in where_packed] + [
        f"    if ({rp} != 0) {{   /* the right factors of the panel, packed once for all row blocks */",
    ] + ["      " + line for line in pragma_shared("#pragma omp for")] + ["      " + line for line in pack_right] + [
        "    }",
    ] + ["    " + line for line in pragma_shared("#pragma omp for schedule(dynamic)")] + [
        "    " + line for line in row_blocks] + ["  }", "}"]
    right_ready = f"({rp} != 0 || {packed} != 0)" if packed else f"{rp} != 0"
    inner = ([
        "/* without memory for the panel the plain loops do all the work */",
        f"const int {blocked} = {right_ready};",
    ] if in_place else [
        f"{t} *{lp} = ({t} *){helper_name}_left_panel(sizeof({t}) * {terms} * {left_size});",
        "/* without memory for the panels the plain loops do all the work */",
        f"const int {blocked} = {lp} != 0 && {right_ready};",
    ]) + rows_per_block + panels
    own_panel = f"({t} *){helper_name}_right_panel(sizeof({t}) * {terms} * {right_size})"
    out = [f"if ({i0} < {i1}) {{   /* (without rows, no factor is read) */",
           f"  const int {columns} = {_max(_min(f'({j1} - {j0} + {nr - 1}) / {nr} * {nr}', str(nc)), str(nr))};"]
    allocate = [f"{t} *{rp} = {f'{packed} != 0 ? 0 : ' if packed else ''}{own_panel};"]

    def unless_stale(work: list[str]) -> list[str]:
        # a factor that reads the target's array is read from the packed panels, before the
        # updates of the panel; without their memory, the loops in their reference order (i, k,
        # j), which the legality check has proven to read it as the user's did
        if not stale:
            return work
        return ([f"if ({rp} == 0) {{"] + ["  " + line for line in _reference(node, print_expr, at_row, cj0, cj1)]
                + ["} else {"] + ["  " + line for line in work] + ["}"])

    if apart:
        strips, me = name("strips"), name("me")
        own_columns = [
            "extern int omp_get_num_threads(void);",
            "extern int omp_get_thread_num(void);",
            f"const int {strips} = ({j1} - {j0} + {nr - 1}) / {nr};",
            f"const int {nthreads} = omp_get_num_threads(), {me} = omp_get_thread_num();",
            f"const int {cj0} = {j0} + {strips} * {me} / {nthreads} * {nr};",
            f"const int {cj1} = {_min(f'{j0} + {strips} * ({me} + 1) / {nthreads} * {nr}', j1)};",
        ]
        region = pragma("#pragma omp parallel" + parallel_if) + ["{"] + [
            "  " + line for line in own_columns + allocate + unless_stale(inner)] + ["}"]
        out += ["  " + line for line in region] + ["}"]
    else:
        region = pragma("#pragma omp parallel" + parallel_if) + ["{"] + ["  " + line for line in inner] + ["}"]
        out += ["  " + line for line in allocate + unless_stale(region)] + ["}"]
    panels_memory = ("" if in_place else _panel_memory(f"{helper_name}_left_panel")) + _panel_memory(
        f"{helper_name}_right_panel")
    return MatMulCode(out, helper_name, helper, panels_memory, in_place)


def expand_packed_right(node: PackedRight, print_expr: Callable[[Expr], str], taken: set[str]) -> list[str]:
    """The C code that packs the right factors of ``node.matmul`` into ``node.buffer``, each k
    panel of each chunk of columns where the node's expansion looks for it."""
    m = node.matmul
    b, terms = m.blocking, len(m.rights)
    assert b.panel_columns % b.columns == 0 and not _is_triangle(m)
    j, k = m.j.var, m.k.var
    name = _Names(taken | {m.i.var, j, k})
    jc, je, kc, ke, kn, jr, panel = (name(x) for x in ("jc", "je", "kc", "ke", "kn", "jr", "panel"))
    nr, nc, depth = b.columns, b.panel_columns, b.depth
    j0, j1 = _operand(print_expr(m.j.start)), _operand(print_expr(m.j.stop))
    k0, k1 = _operand(print_expr(m.k.start)), _operand(print_expr(m.k.stop))
    width = _strips_width(jc, je, nr)
    return [
        f"if ({node.buffer} != 0) {{   /* the right factors of every panel, packed once for every call */",
        f"  for (int {jc} = {j0}; {jc} < {j1}; {jc} += {nc}) {{",
        f"    const int {je} = {_min(f'{jc} + {nc}', j1)};",
        f"    for (int {kc} = {k0}; {kc} < {k1}; {kc} += {depth}) {{",
        f"      const int {ke} = {_min(f'{kc} + {depth}', k1)};",
        f"      const int {kn} = {ke} - {kc};",
        f"      {m.dtype} *const {panel} = {node.buffer} + {_panel_offset(terms, k0, k1, j0, jc, kc, je, nr)};",
        f"      for (int {jr} = {jc}; {jr} < {je}; {jr} += {nr})",
        f"        for (int {k} = {kc}; {k} < {ke}; {k}++)",
        f"          for (int {j} = {jr}; {j} < {jr} + {nr}; {j}++) {{",
    ] + [f"            {panel}[{u} * {kn} * {width} + ({jr} - {jc}) * {kn} + ({k} - {kc}) * {nr} + ({j} - {jr})] = "
         f"{j} < {je} ? {print_expr(m.rights[u])} : 0;" for u in range(terms)] + [
        "          }", "    }", "  }", "}"]


def _panel_offset(terms: int, k0: str, k1: str, j0: str, jc: str, kc: str, je: str, nr: int) -> str:
    """Where the k panel at ``kc`` of the chunk of columns at ``jc`` starts in an array of packed
    right factors: after the chunks before (all of k, their columns) and the panels before."""
    return f"{terms} * ({k1} - {k0}) * ({jc} - {j0}) + {terms} * ({kc} - {k0}) * {_strips_width(jc, je, nr)}"


def _strips_width(jc: str, je: str, nr: int) -> str:
    return f"(({je} - {jc} + {nr - 1}) / {nr} * {nr})"


def _reference(node: MatMul, print_expr: Callable[[Expr], str], at_row: Callable[[str, Expr], str],
               first_column: str, end_column: str) -> list[str]:
    """The node's loops in its reference order, i, then k, then j, over the columns from
    ``first_column`` to ``end_column``."""
    i = node.i.var
    rows = (_operand(print_expr(node.i.start)), _operand(print_expr(node.i.stop)))
    columns = (_max(first_column, at_row(i, node.j.start)), _min(end_column, at_row(i, node.j.stop)))
    return _loops(node, print_expr, rows, (at_row(i, node.k.start), at_row(i, node.k.stop)), columns,
                  list(node.rights))


def _loops(node: MatMul, print_expr: Callable[[Expr], str], rows: tuple[str, str], depth: tuple[str, str],
           columns: tuple[str, str], rights: list[Expr]) -> list[str]:
    """The node's statement in loops i, then k, then j over the given bounds (C text; those of k
    and j may name i), with ``rights`` for its right factors."""
    i, j, k = node.i.var, node.j.var, node.k.var
    update = print_expr(node.update_of(list(node.lefts), rights))
    return [f"for (int {i} = {rows[0]}; {i} < {rows[1]}; {i}++)",
            f"  for (int {k} = {depth[0]}; {k} < {depth[1]}; {k}++)",
            f"    for (int {j} = {columns[0]}; {j} < {columns[1]}; {j}++)",
            f"      {print_expr(node.target)} {node.op}= {update};"]


def _k_moves(node: MatMul) -> bool:
    return node.i.var in ex.names(node.k.start) or node.i.var in ex.names(node.k.stop)


def _is_triangle(node: MatMul) -> bool:
    return node.i.var in ex.names(node.j.start) or node.i.var in ex.names(node.j.stop)


def _row_along_k(left: Expr, i: str, k: str) -> bool:
    """Whether ``left`` is an array element whose last subscript is k, and k in no other: a row
    of the array holds the factors of one i for consecutive k, which the register block can
    read where they are. Packing them paid only where a packed block serves many strips of
    columns: doitgen's rows (of A[r], 160 columns, 7 strips) spent a tenth of its time there."""
    if not isinstance(left, ex.Access) or not left.indices:
        return False
    rows = left.indices[:-1]
    last = left.indices[-1]
    if len(left.indices) == 1 and isinstance(last, Binary) and last.op == "+" and isinstance(last.lhs, Binary) \
            and last.lhs.op == "*" and isinstance(last.lhs.rhs, Sym):
        rows, last = (last.lhs.lhs,), last.rhs   # (a flat array's row times its length, plus k)
    if last != Sym(k):
        return False
    return all(k not in ex.names(d) for d in rows) and any(i in ex.names(d) for d in rows)


def _register_block(node: MatMul, print_expr: Callable[[Expr], str], in_place: bool) -> tuple[str, str]:
    """The name and file-scope definition of the function that keeps a ``rows`` x ``columns``
    block of the result in vector registers while k runs over a packed panel. Its arguments:
    the panel's depth, each term's packed left factors (``in_place``: each term's ``rows`` rows
    of them, where they are), its packed right factors, then the block's rows in the result
    (``columns`` contiguous elements each)."""
    b, t, terms = node.blocking, node.dtype, len(node.lefts)
    mr, nr, w = b.rows, b.columns, b.lanes
    lefts, rights, rows, params = block_parameters(node, in_place)
    acc = [[f"c{r}_{v}" for v in range(b.vectors)] for r in range(mr)]
    rv = [[f"r{u}_{v}" for v in range(b.vectors)] for u in range(terms)]
    scal = [f"a{u}" for u in range(terms)]
    update = f"{node.op}="
    body = [f"typedef {t} vec __attribute__((vector_size({w} * sizeof({t})), aligned(sizeof({t})), may_alias));"]
    for r in range(mr):
        body.append("vec " + ", ".join(f"{acc[r][v]} = *(vec *)({rows[r]} + {v * w})" for v in range(b.vectors)) + ";")
    body.append("for (int k = 0; k < kn; k++) {")
    for u in range(terms):
        body.append("  const vec " + ", ".join(
            f"{rv[u][v]} = *(const vec *)({rights[u]} + k * {nr} + {v * w})" for v in range(b.vectors)) + ";")
    body.append(f"  {t} {', '.join(scal)};")
    for r in range(mr):
        loads = " ".join(f"{scal[u]} = l{u}_{r}[k];" if in_place else f"{scal[u]} = {lefts[u]}[k * {mr} + {r}];"
                         for u in range(terms))
        updates = " ".join(
            f"{acc[r][v]} {update} {print_expr(node.update_of([Sym(a) for a in scal], [Sym(rv[u][v]) for u in range(terms)]))};"
            for v in range(b.vectors))
        body.append(f"  {loads} {updates}")
    body.append("}")
    for r in range(mr):
        body.append(" ".join(f"*(vec *)({rows[r]} + {v * w}) = {acc[r][v]};" for v in range(b.vectors)))
    text = "\n".join("  " + line for line in body)
    digest = hashlib.sha1(f"{params}{text}".encode()).hexdigest()[:8]
    name = f"s2s_register_block_{mr}x{nr}_{digest}"
    header = f"__attribute__((noinline)) static void {name}(const int kn, {', '.join(params)})"
    return name, f"{header}\n{{\n{text}\n}}\n"


def block_parameters(node: MatMul, in_place: bool) -> tuple[list[str], list[str], list[str], list[str]]:
    """The register block's parameters after the panel's depth ``kn``: the names of the left
    factors (``in_place``: ``l<term>_<row>``, each term's rows where they are; else ``l<term>``,
    packed), of the packed right factors (``r<term>``) and of the result's rows (``c<row>``),
    and the declarations of all of them, in that order."""
    t, terms, mr = node.dtype, len(node.lefts), node.blocking.rows
    lefts = [f"l{u}_{r}" for u in range(terms) for r in range(mr)] if in_place else [f"l{u}" for u in range(terms)]
    rights = [f"r{u}" for u in range(terms)]
    rows = [f"c{r}" for r in range(mr)]
    return lefts, rights, rows, [f"const {t} *__restrict__ {p}" for p in lefts + rights] + [f"{t} *{p}" for p in rows]


def _panel_memory(name: str) -> str:
    """A function that returns memory for a panel: the calling thread's own block, grown when a
    call needs more, never given back. Freed after every call, a panel past malloc's mmap
    threshold (or one that let the heap shrink) came back as fresh pages, faulted in again on
    every call: doitgen runs its kernel once per r, and with panels of 160 k steps it took twice
    as long (with those of 128, 2-4% more under OpenMP, on an AMD Zen 5)."""
    return (f"static void *{name}(const unsigned long bytes)\n{{\n"
            "  static __thread void *panel;\n"
            "  static __thread unsigned long size;\n"
            "  if (bytes > size) {\n"
            "    __builtin_free(panel);\n"
            "    panel = __builtin_malloc(bytes);\n"
            "    size = panel != 0 ? bytes : 0;\n"
            "  }\n"
            "  return panel;\n"
            "}\n")


def _operand(text: str) -> str:
    """C text of an expression, parenthesized unless it is a name or a non-negative integer: the
    bounds printed here become operands of comparisons and sums (a bound ``n < m ? n : m`` would
    otherwise take the comparison before it into its condition)."""
    return text if re.fullmatch(r"[A-Za-z_]\w*|\d+", text) else f"({text})"


def _min(a: str, b: str) -> str:
    # (one bound twice, e.g. a triangle's edge that does not move with the row: no self-comparison,
    # which gcc's -Wall reports and a -Werror build then fails on)
    return a if a == b else f"({a} < {b} ? {a} : {b})"


def _max(a: str, b: str) -> str:
    return a if a == b else f"({a} > {b} ? {a} : {b})"


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
