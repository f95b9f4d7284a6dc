"""The C back end: printed text of regenerated regions, and splicing into the original file."""
from __future__ import annotations

import dataclasses
import subprocess
import textwrap

from backends.c import CPrinter, Replacement, splice
from frontends.c import lift_c_file
from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.ir import Schedule, SDFGBuilder, SourceSpan, expr as ex

SOURCE = textwrap.dedent("""\
    #include <stdio.h>
    #define N 16 /* size */
    // a comment that must survive
    static double A[N][N];
    static void init(void) {
      int i, j;
      for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
          A[i][j] = (i * j) % 7 + 0.5;   /* trailing comment */
    }
    int main(void) {
      double s = 0.0;
      init();
      for (int k = N - 1; k >= 0; k -= 3) { s += A[k][k] * 2.0e-1; if (s > 100.0) break; }
      printf("%.17g line %d\\n", s, __LINE__);
      return 0;
    }
""")


def test_golden_text_of_a_regenerated_nest(tmp_path):
    path = tmp_path / "g.c"
    path.write_text(SOURCE)
    unit, _ = lift_c_file(str(path))
    init = unit.function("init")
    nest = init.body.children[2]
    assert CPrinter(init).statement(nest) == textwrap.dedent("""\
        for (i = 0; i < 16; i++) {
          for (j = 0; j < 16; j++) {
            A[i][j] = i * j % 7 + 0.5;
          }
        }""")
    main = unit.function("main")
    loop = next(n for n in main.body.children if n.origin is not None and n.id.startswith("L"))
    assert CPrinter(main).statement(loop) == textwrap.dedent("""\
        for (int k = 16 - 1; k >= 0; k -= 3) {
          s += A[k][k] * 2.0e-1;
          if (s > 100.0) {
            break;
          }
        }""")


def test_splice_keeps_every_byte_outside_regions(tmp_path):
    path = tmp_path / "g.c"
    path.write_text(SOURCE)
    result = optimize_c_file(path, [], PipelineOptions(mode="identity"))
    assert result.changed and len(result.report) == 2
    out = result.source
    for kept in ("#include <stdio.h>\n", "#define N 16 /* size */\n", "// a comment that must survive\n",
                 "static void init(void) {\n  int i, j;\n", 'printf("%.17g line %d\\n", s, __LINE__);'):
        assert kept in out
    assert out.startswith(f'#line 1 "{path}"\n')
    # __LINE__ after the regenerated loop still names the user's line (15)
    exe = tmp_path / "g"
    src = tmp_path / "g_out.c"
    src.write_text(out)
    subprocess.run(["cc", "-O1", str(src), "-o", str(exe)], check=True)
    ref = tmp_path / "ref"
    subprocess.run(["cc", "-O1", str(path), "-o", str(ref)], check=True)
    assert subprocess.run([str(exe)], capture_output=True, text=True).stdout == \
        subprocess.run([str(ref)], capture_output=True, text=True).stdout


def test_splice_breaks_a_shared_line_and_resynchronises():
    original = "int x; for (;;) { break; } int y;\nint z;\n"
    start = original.index("for")
    end = original.index("}") + 1
    span = SourceSpan("f.c", start, end, 1, start + 1)
    out = splice(original, "f.c", [Replacement(span, "while (1) {\n  break;\n}")])
    assert out == ('#line 1 "f.c"\nint x; \n#line 1 "f.c"\n       while (1) {\n         break;\n       }\n'
                   '#line 1 "f.c"\n' + " " * 26 + ' int y;\nint z;\n')


def test_map_prints_as_a_plain_loop_in_c():
    b = SDFGBuilder("scale")
    b.symbol("n")
    b.array("x", "float", ["n"])
    with b.map("i", 0, "n", Schedule.CPU_MULTICORE):
        b.assign("x[i]", "2 * x[i]")
    sdfg = b.build()
    assert CPrinter(sdfg).statement(sdfg.body.children[0]) == "for (int i = 0; i < n; i++) {\n  x[i] = 2 * x[i];\n}"


def test_a_conditional_loop_bound_is_parenthesized():
    # (printed bare, `i < n < m ? n : m` takes the comparison into the conditional's condition)
    b = SDFGBuilder("scale")
    b.symbol("n")
    b.symbol("m")
    b.array("x", "float", ["n"])
    with b.map("i", 0, "n", Schedule.SEQUENTIAL):
        b.assign("x[i]", "2 * x[i]")
    sdfg = b.build()
    n, m = ex.Sym("n"), ex.Sym("m")
    loop = dataclasses.replace(sdfg.body.children[0], stop=ex.Ternary(ex.Binary("<", n, m), n, m))
    assert CPrinter(sdfg).statement(loop).startswith("for (int i = 0; i < (n < m ? n : m); i++)")


def test_off_mode_returns_the_file_unchanged(tmp_path):
    path = tmp_path / "g.c"
    path.write_text(SOURCE)
    result = optimize_c_file(path, [], PipelineOptions(mode="off"))
    assert not result.changed
    assert result.source == f'#line 1 "{path}"\n' + SOURCE
