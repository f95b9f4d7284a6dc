"""The C front end: what is lifted, what stays opaque, where statements lie in the original text."""
from __future__ import annotations

import textwrap

import pytest

from frontends.c import lift_c_file
from s2s.errors import ParseError, PreprocessError
from s2s.ir import Array, Block, Declare, For, IfElse, Opaque, Symbol, While, dump, validate


def lift(tmp_path, code: str, *args: str, name: str = "t.c"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    unit, reasons = lift_c_file(str(path), list(args))
    validate(unit)
    return unit, reasons


def test_polybench_style_kernel_is_fully_lifted(tmp_path):
    unit, reasons = lift(tmp_path, """
        #define N 100
        void gemm(int n, double alpha, double C[N][N], double A[N][N], double B[N][N]) {
          int i, j, k;
        #pragma scop
          for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
              for (k = 0; k < n; k++)
                C[i][j] += alpha * A[i][k] * B[k][j];
        #pragma endscop
        }
    """)
    (f,) = unit.functions
    assert isinstance(f.container("n"), Symbol)
    assert isinstance(f.container("C"), Array) and f.container("C").rank == 2
    loops = [n for n in f.nodes() if isinstance(n, For)]
    assert [l.var for l in loops] == ["i", "j", "k"]
    assert all(not isinstance(n, Opaque) or "pragma" in n.text for n in f.nodes())
    nest = next(n for n in f.body.children if isinstance(n, For))
    assert nest.origin is not None and nest.origin.line == 6  # (the text starts with a blank line)
    assert "C[i, j] <- in_C + in_alpha * in_A * in_B" in dump(f)


def test_unsupported_statements_become_opaque_verbatim(tmp_path):
    unit, reasons = lift(tmp_path, """
        union p { int x; float y; };
        int f(int n, union p *ps, int *q) {
          int s = 0;
          for (int i = 0; i < n; i++) {
            if (ps[i].x < 0) goto out;
            s += ps[i].x;
            *q++ = s;
            switch (s) { case 1: s = 2; break; default: break; }
          }
        out:
          return s;
        }
    """)
    (f,) = unit.functions
    opaque = [n for n in f.nodes() if isinstance(n, Opaque)]
    texts = " ".join(o.text for o in opaque)
    assert "goto out" in texts and "ps[i].x" in texts and "(q++) = s" in texts
    assert "switch" in texts
    assert any(isinstance(n, For) for n in f.nodes())  # the loop itself is still structured
    assert reasons


def test_while_do_while_and_infinite_for(tmp_path):
    unit, _ = lift(tmp_path, """
        int f(int n) {
          int i = 0, s = 0;
          while (i < n) { s += i; i++; }
          do { s--; } while (s > 100);
          for (;;) { if (s > 3) break; s++; }
          return s;
        }
    """)
    whiles = [n for n in unit.functions[0].nodes() if isinstance(n, While)]
    assert [w.test_first for w in whiles] == [True, False, True]


def test_shadowed_locals_get_unique_names_and_siblings_share(tmp_path):
    unit, _ = lift(tmp_path, """
        int f(int n) {
          int i, s = 0;
          for (int i = 0; i < n; i++) s += i;
          for (int j = 0; j < n; j++) s += j;
          for (int j = 0; j < n; j++) s -= j;
          return s + i * 0;
        }
    """)
    f = unit.functions[0]
    names = [c.name for c in f.containers]
    assert "i" in names and "i_1" in names
    assert names.count("j") == 1 and "j_1" not in names


def test_loop_made_by_a_macro_is_not_spliced(tmp_path):
    unit, _ = lift(tmp_path, """
        #define LOOP(v, n) for (v = 0; v < n; v++)
        void f(int n, double *a) {
          int i;
          LOOP(i, n) a[i] = 0;
          for (i = 0; i < n; i++)
        #ifdef FAST
            a[i] += 1;
        #else
            a[i] += 2;
        #endif
          for (i = 0; i < n; i++) a[i] *= 2;
        }
    """)
    loops = [n for n in unit.functions[0].body.children if isinstance(n, For)]
    assert [l.origin is not None and l.origin.spliceable for l in loops] == [False, False, True]


def test_preprocessor_flags_are_honoured(tmp_path):
    code = """
        void f(double *a) {
          for (int i = 0; i < SIZE; i++) a[i] = i;
        }
    """
    unit, _ = lift(tmp_path, code, "-DSIZE=17")
    loop = next(n for n in unit.functions[0].nodes() if isinstance(n, For))
    assert "17" in str(loop.cond)


def test_preprocessed_file_is_read_as_c(tmp_path):
    # `cc -E x.i` prints nothing: a .i file (here as `cc -E -P` writes one) is C preprocessed
    path = tmp_path / "k.i"
    path.write_text('void f(int n, double *a) {\n  for (int i = 0; i < n; i++) a[i] = i;\n}\n')
    unit, _ = lift_c_file(str(path))
    assert [f.name for f in unit.functions] == ["f"]
    assert any(isinstance(n, For) for n in unit.functions[0].nodes())


def test_header_functions_are_not_lifted(tmp_path):
    (tmp_path / "h.h").write_text("static inline int twice(int x) { return 2 * x; }\n")
    unit, _ = lift(tmp_path, '#include "h.h"\n#include <math.h>\nint g(int x) { return twice(x); }\n')
    assert [f.name for f in unit.functions] == ["g"]


def test_declarations_keep_initializers(tmp_path):
    unit, _ = lift(tmp_path, """
        int f(int n) {
          static int calls = 0;
          const double scale = 2.5;
          int table[3] = {1, 2, 3};
          calls++;
          return table[n % 3] * scale + calls;
        }
    """)
    decls = {d.name: d for d in unit.functions[0].nodes() if isinstance(d, Declare)}
    assert decls["calls"].init_text == "0"
    assert isinstance(decls["scale"].init, Block)
    assert decls["table"].init_text == "{1, 2, 3}"


def test_conditions_may_read_arrays(tmp_path):
    unit, _ = lift(tmp_path, """
        int f(int n, int len[10], int A[10][10]) {
          int s = 0;
          for (int i = 0; i < n; i++)
            for (int j = 0; j < len[i]; j++)
              if (A[i][j] > 0) s += A[i][j];
          return s;
        }
    """)
    ifs = [n for n in unit.functions[0].nodes() if isinstance(n, IfElse)]
    assert len(ifs) == 1


def test_syntax_error_is_located(tmp_path):
    path = tmp_path / "bad.c"
    path.write_text("int main(void) {\n  int x = ;\n  return 0;\n}\n")
    with pytest.raises(ParseError) as info:
        lift_c_file(str(path))
    assert info.value.location is not None
    assert info.value.location.line == 2
    assert str(info.value).startswith(f"{path}:2:")


def test_preprocessor_error_is_reported(tmp_path):
    path = tmp_path / "bad.c"
    path.write_text('#include "does_not_exist.h"\nint main(void) { return 0; }\n')
    with pytest.raises(PreprocessError, match="does_not_exist.h"):
        lift_c_file(str(path))


def test_glibc_headers_and_gnu_builtins_parse(tmp_path):
    unit, _ = lift(tmp_path, """
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <math.h>
        #include <stdarg.h>
        #include <assert.h>
        #include <stddef.h>
        #include <stdint.h>
        struct s { int a; double b; };
        double sum(int n, ...) {
          va_list ap; va_start(ap, n); double t = 0;
          for (int i = 0; i < n; i++) t += va_arg(ap, double);
          va_end(ap);
          assert(n >= 0);
          return t + offsetof(struct s, b);
        }
    """, "-std=gnu11")
    assert unit.functions[0].name == "sum"


def test_unused_system_prototypes_are_left_out_of_the_parse():
    from frontends.c.header_pruning import prune_system_prototypes
    text = textwrap.dedent("""\
        # 1 "/usr/include/x.h" 1 3 4
        typedef unsigned long size_t;
        extern double sqrt (double __x) __attribute__ ((__nothrow__));
        extern int unused_one (const char *__s,
                               size_t __n);
        struct pair { int a, b; };
        static inline int twice (int x) { return 2 * x; }
        extern int (*handler (int)) (int);
        # 3 "k.c" 2
        double f(double y) { return sqrt(y) + twice(1); }
        """)
    pruned = prune_system_prototypes(text)
    assert pruned.count("\n") == text.count("\n") and len(pruned) == len(text)
    assert "unused_one" not in pruned and "size_t __n" not in pruned
    for kept in ("typedef unsigned long size_t;", "extern double sqrt", "struct pair", "static inline int twice",
                 "extern int (*handler (int)) (int);", "double f(double y)"):
        assert kept in pruned


def test_statement_expressions_print_in_their_parentheses():
    """glibc's ``tolower`` is a GNU statement expression ``({ ... })``; a loop regenerated around
    it (``while (*s) switch (tolower(*s++))``) must print it so that gcc reads it again."""
    from pycparserext.ext_c_parser import GnuCParser

    from frontends.c.c_text import statement_text
    body = GnuCParser().parse(
        "int f(int x) { int y = 0; switch (({ int r = x; r; })) { default: y = ({ int q = 1; q; }); }"
        " if (({ x; })) { y++; } do { y++; } while (0); return y; }").ext[0].body
    text = statement_text(body)
    compact = "".join(text.split())
    assert "switch(({intr=x;r;}))" in compact and "y=(({intq=1;q;}));" in compact and "if(({x;}))" in compact
    assert compact.startswith("{inty=0;") and "do{y++;}while(0);" in compact
