"""C++ and C data structures through the LLVM front end: struct members (nested, flattened into
views at their byte offsets), arrays of structs, pointers loaded from memory (row pointers, a
``std::vector``'s data), template instances in several files, and ``s2s-c++``."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from frontends.llvm.lift import lift_module
from s2s.driver.llvm_modules import CLANG_FLAGS as LLVM_WAY
from s2s.driver.llvm_modules import c_compiler_for, cxx_only, for_c_too
from s2s.driver.llvm_objects import emit_object

PROGRAMS = Path(__file__).parent / "programs"
BIN = Path(sys.executable).parent
CLANG = shutil.which("clang-14") or shutil.which("clang")
CLANGXX = shutil.which("clang++-14") or shutil.which("clang++")
pytestmark = pytest.mark.skipif(CLANG is None or CLANGXX is None,
                                reason="no clang (the project's setup installs clang-14)")

STRUCTS = r"""
struct grid { int nx, ny; double h; double *u; };
struct particle { double x, y, vx, vy; float mass; int id; };
struct wrapped { struct { long n; struct { double *data; double scale; } inner; } outer; };

void relax(const struct grid *g, double *out, double h) {
  for (int i = 1; i < g->ny - 1; i++)
    for (int j = 1; j < g->nx - 1; j++)
      out[i * g->nx + j] = h * (g->u[(i - 1) * g->nx + j] + g->u[(i + 1) * g->nx + j]
                                   + g->u[i * g->nx + j - 1] + g->u[i * g->nx + j + 1]);
}

void push(struct particle *p, int n, double dt) {
  for (int i = 0; i < n; i++) {
    p[i].x += dt * p[i].vx;
    p[i].y += dt * p[i].vy;
  }
}

void scale_rows(double **rows, int n, int m, const double *by) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      rows[i][j] *= by[j];
}

double total(const struct wrapped *w) {
  double s = 0;
  for (long k = 0; k < w->outer.n; k++) s += w->outer.inner.data[k] * w->outer.inner.scale;
  return s;
}
"""

STRUCTS_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
struct grid { int nx, ny; double h; double *u; };
struct particle { double x, y, vx, vy; float mass; int id; };
struct wrapped { struct { long n; struct { double *data; double scale; } inner; } outer; };
void relax(const struct grid *g, double *out, double h);
void push(struct particle *p, int n, double dt);
void scale_rows(double **rows, int n, int m, const double *by);
double total(const struct wrapped *w);
int main(void) {
  int nx = 37, ny = 29;
  double *u = malloc(sizeof(double) * nx * ny), *out = calloc(nx * ny, sizeof(double));
  for (int k = 0; k < nx * ny; k++) u[k] = (k % 13) * 0.25 - 1.0;
  struct grid g = {nx, ny, 0.25, u};
  relax(&g, out, g.h);
  struct particle p[50];
  for (int i = 0; i < 50; i++) p[i] = (struct particle){i * 0.5, -i * 0.25, 1.0 + i % 3, 0.5 * (i % 5), 1.5f, i};
  push(p, 50, 0.125);
  double *rows[20], by[15];
  for (int j = 0; j < 15; j++) by[j] = 1.0 + j * 0.0625;
  for (int i = 0; i < 20; i++) {
    rows[i] = malloc(sizeof(double) * 15);
    for (int j = 0; j < 15; j++) rows[i][j] = i - j * 0.5;
  }
  scale_rows(rows, 20, 15, by);
  struct wrapped w;
  w.outer.n = nx * ny; w.outer.inner.data = out; w.outer.inner.scale = 0.5;
  double s = 0;
  for (int k = 0; k < nx * ny; k++) s += out[k];
  for (int i = 0; i < 50; i++) s += p[i].x * 3 + p[i].y;
  for (int i = 0; i < 20; i++) for (int j = 0; j < 15; j++) s += rows[i][j] * (i + 1);
  printf("%.10e %.10e\n", s, total(&w));
  return 0;
}
"""


def build_and_run(command: list[str], exe: Path) -> str:
    subprocess.run(command + ["-o", str(exe)], check=True, capture_output=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=120).stdout


def test_struct_members_arrays_of_structs_and_row_pointers_lift(tmp_path):
    """Members of structs (nested ones at their offsets in the outermost), elements of an array
    of structs and rows read through row pointers: every function lifts, and the program built
    from the lifted C prints what gcc's build of the source prints."""
    source, main = tmp_path / "s.c", tmp_path / "main.c"
    source.write_text(STRUCTS)
    main.write_text(STRUCTS_MAIN)
    module = tmp_path / "s.ll"
    subprocess.run([CLANG, "-O1", "-fno-vectorize", "-fno-unroll-loops", "-S", "-emit-llvm", str(source), "-o",
                    str(module)], check=True)
    lifted = lift_module(module)
    assert lifted.refused == {}
    text = lifted.c_text
    assert re.search(r"struct s2s_struct_grid \{\n  int m0;\n  int m4;\n  char s2s_pad8\[8\];\n  double \*m16;\n\};", text)
    assert "double **" in text and re.search(r"\[\w+\]\.m16", text)   # (row pointers; p[i].vx)
    assert re.search(r"struct s2s_struct_wrapped \{\n  long long m0;\n  double \*m8;\n  double m16;", text)
    (tmp_path / "l.c").write_text(text)
    expected = build_and_run(["gcc", "-O2", str(source), str(main)], tmp_path / "ref")
    got = build_and_run(["gcc", "-O2", "-Wall", "-Werror", str(tmp_path / "l.c"), str(main)], tmp_path / "lifted")
    assert got == expected
    # the nests are SCoPs once their members are read into locals (C front end)
    proc = subprocess.run([str(BIN / "s2s"), "opt", str(module), "-o", str(tmp_path / "o.c"), "--report"],
                          capture_output=True, text=True, check=True)
    for kernel in ("relax", "push", "scale_rows"):
        assert re.search(rf"{kernel}\S*: SCoP at", proc.stderr), proc.stderr


def test_a_layout_check_stops_a_view_that_does_not_fit(tmp_path):
    """Each struct view carries a compile-time check of its size and offsets."""
    source = tmp_path / "s.c"
    source.write_text(STRUCTS)
    module = tmp_path / "s.ll"
    subprocess.run([CLANG, "-O1", "-S", "-emit-llvm", str(source), "-o", str(module)], check=True)
    text = lift_module(module).c_text
    assert "typedef char s2s_struct_grid_layout[(sizeof(struct s2s_struct_grid) == 24 &&" in text
    broken = text.replace("  int m4;\n", "  int m4;\n  int extra;\n", 1)
    (tmp_path / "b.c").write_text(broken)
    proc = subprocess.run(["gcc", "-c", str(tmp_path / "b.c"), "-o", str(tmp_path / "b.o")], capture_output=True)
    assert proc.returncode != 0


def test_cxx_program_through_s2s_cxx(tmp_path):
    """Our C++ program (std::vector data, a class with an inline accessor, a templated kernel
    in two instances, references) built by s2s-c++ prints what g++'s build prints; its kernels
    are lifted, and the time-stepped stencil over the vectors is one SCoP, rewritten."""
    source = PROGRAMS / "cxx_kernels.cpp"
    flags = ["-O2", "-std=c++17", "-Wall", "-Werror", "-Wold-style-cast", "-DN=96", "-DSTEPS=4"]
    expected = build_and_run(["g++", *flags, str(source)], tmp_path / "ref").splitlines()[0]
    exe = tmp_path / "opt"
    proc = subprocess.run([str(BIN / "s2s-c++"), "g++", *flags, str(source), "-o", str(exe), "--s2s-report"],
                          capture_output=True, text=True, check=True)
    assert "optimization skipped" not in proc.stderr, proc.stderr
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=120).stdout
    assert got.splitlines()[0] == expected
    for kernel in ("diffuse", "gemmId", "gemmIf", "transposed_product", "residual"):
        assert re.search(rf"{kernel}\S*: SCoP at", proc.stderr), (kernel, proc.stderr)
    assert re.search(r"diffuse\S*: SCoP at \S+ optimized", proc.stderr), proc.stderr
    assert "/tmp/s2s-cc-" not in proc.stderr   # (lines name the user's file, not the scratch module)


TEMPLATE_HEADER = """
#include <vector>
template <typename T> void scale(std::vector<T> &v, T by) {
  for (std::size_t i = 0; i < v.size(); ++i) v[i] *= by;
}
"""


def test_template_instances_of_two_files_link(tmp_path):
    """A template instance each file defines (linkonce_odr in LLVM) is a weak definition in the
    lifted C: two objects that both hold it link."""
    (tmp_path / "t.h").write_text(TEMPLATE_HEADER)
    (tmp_path / "a.cpp").write_text('#include "t.h"\ndouble first(std::vector<double> &v) '
                                    '{ scale(v, 2.0); return v[0]; }\n')
    (tmp_path / "b.cpp").write_text('#include <cstdio>\n#include "t.h"\ndouble first(std::vector<double> &v);\n'
                                    'int main() { std::vector<double> v(100, 1.5); scale(v, 3.0); '
                                    'std::printf("%g\\n", first(v)); }\n')
    for name in ("a", "b"):
        proc = subprocess.run([str(BIN / "s2s-c++"), "g++", "-O2", "-c", str(tmp_path / f"{name}.cpp"), "-o",
                               str(tmp_path / f"{name}.o"), "--s2s-report"], capture_output=True, text=True,
                              check=True)
        assert re.search(r"scale\S*: SCoP at", proc.stderr), proc.stderr
    out = build_and_run(["g++", str(tmp_path / "a.o"), str(tmp_path / "b.o")], tmp_path / "ab")
    assert out == "9\n"


def test_the_c_compile_of_a_fortran_command():
    """The lifted C of a Fortran file gets the command's optimization, machine and preprocessor
    flags, not Fortran's own (nor their arguments)."""
    assert for_c_too(["-iquote", "/a", "-O2", "-march=native", "-ffree-form", "-J", "mods", "-I", "inc", "-Iinc2",
                      "-fdefault-real-8", "-c", "-o", "x.o"]) == ["-iquote", "/a", "-O2", "-march=native", "-I", "inc",
                                                               "-Iinc2", "-c", "-o", "x.o"]


def test_the_c_compile_of_a_cxx_command():
    """The lifted C is compiled by the C compiler beside the C++ one, without C++'s options."""
    assert c_compiler_for(("g++",))[-1].endswith("gcc")
    assert c_compiler_for(("ccache", "g++"))[0] == "ccache"
    assert c_compiler_for(("no-such-compiler++",)) == ("cc",)
    assert [o for o in ["-std=c++17", "-std=gnu11", "-fno-rtti", "-Wall", "-Werror=old-style-cast",
                        "-Wno-reorder", "-O2", "-stdlib=libc++"] if not cxx_only(o)] == ["-std=gnu11", "-Wall", "-O2"]


def test_features_this_llvm_ignores_say_nothing(tmp_path):
    """A module from an older clang with -march=native names target features that llvmlite's
    LLVM no longer knows; compiling its rest says nothing of them."""
    module = ('define i32 @f(i32 %x) #0 {\n  ret i32 %x\n}\n'
              'attributes #0 = { "target-cpu"="x86-64" "target-features"="+sse2,-avx512er,-prefetchwt1" }\n')
    code = ("import sys; from s2s.driver.llvm_objects import emit_object; "
            f"emit_object(sys.stdin.read(), {str(tmp_path / 'f.o')!r})")
    proc = subprocess.run([sys.executable, "-c", code], input=module, capture_output=True, text=True, check=True)
    assert proc.stderr == ""
    assert (tmp_path / "f.o").stat().st_size > 0


IDIOMS = r"""
#include <math.h>
#include <string.h>
#define N 48
/* what clang makes of loops a person wrote, written back as loops: a zeroed row (memset), a copy
   through a local vector (memcpy), a value hoisted out of a loop, one stored twice, one squared */
void moments(int n, int m, double scale, const double data[][N], double mean[N], double cov[][N]) {
  for (int j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < n; i++) mean[j] += data[i][j];
    mean[j] /= scale;
  }
  for (int i = 0; i < m; i++) {
    for (int j = i; j < m; j++) {
      cov[i][j] = 0.0;
      for (int k = 0; k < n; k++) cov[i][j] += (data[k][i] - mean[i]) * (data[k][j] - mean[j]);
      cov[i][j] /= (scale - 1.0);
      cov[j][i] = cov[i][j];
    }
  }
}
void clear_rows(int n, double a[][N]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < N; j++) a[i][j] = 0.0;
}
void running(int n, double *y) {
  double z[N];
  for (int k = 1; k < n; k++) {
    for (int i = 0; i < k; i++) z[i] = y[i] + 0.5 * y[k - i - 1];
    for (int i = 0; i < k; i++) y[i] = z[i];
  }
}
double spread(int n, const double *x) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (x[i] - 1.0) * (x[i] - 1.0);
  return sqrt(s);
}
"""

IDIOMS_MAIN = r"""
#include <stdio.h>
#define N 48
void moments(int n, int m, double scale, const double data[][N], double mean[N], double cov[][N]);
void clear_rows(int n, double a[][N]);
void running(int n, double *y);
double spread(int n, const double *x);
int main(void) {
  static double data[40][N], mean[N], cov[N][N], y[N];
  for (int i = 0; i < 40; i++) for (int j = 0; j < N; j++) data[i][j] = ((i * 7 + j * 3) % 13) / 4.0;
  for (int j = 0; j < N; j++) y[j] = (j % 5) / 3.0;
  moments(40, N, 40.0, data, mean, cov);
  running(N, y);
  double s = spread(N, y);
  clear_rows(20, data);
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) s += cov[i][j] * (i + 2 * j + 1);
  for (int i = 0; i < 40; i++) for (int j = 0; j < N; j++) s += data[i][j];
  for (int j = 0; j < N; j++) s += y[j] + mean[j];
  printf("%a\n", s);
  return 0;
}
"""


def test_clang_idioms_are_written_back_as_loops(tmp_path):
    """memset and memcpy of numbers are loops again, a value hoisted before the loops is a
    parameter, a value stored twice is stored and then copied, ``x * x`` of a difference is
    written out twice: each nest is one SCoP, as the C had it, and prints what gcc's build does."""
    source, main = tmp_path / "i.c", tmp_path / "main.c"
    source.write_text(IDIOMS)
    main.write_text(IDIOMS_MAIN)
    module = tmp_path / "i.ll"
    subprocess.run([CLANG, "-O1", "-fno-vectorize", "-fno-unroll-loops", "-fno-inline", "-S", "-emit-llvm",
                    str(source), "-o", str(module)], check=True)
    assert "llvm.memset" in module.read_text() and "llvm.memcpy" in module.read_text()
    lifted = lift_module(module)
    assert lifted.refused == {}
    text = lifted.c_text
    assert "memset(" not in text and "memcpy(" not in text
    (tmp_path / "l.c").write_text(text)
    expected = build_and_run(["gcc", "-O2", str(source), str(main), "-lm"], tmp_path / "ref")
    got = build_and_run(["gcc", "-O2", str(tmp_path / "l.c"), str(main), "-lm"], tmp_path / "lifted")
    assert got == expected
    proc = subprocess.run([str(BIN / "s2s"), "opt", str(module), "-o", str(tmp_path / "o.c"), "--report"],
                          capture_output=True, text=True, check=True)
    for kernel in ("moments", "clear_rows", "running"):
        scops = re.findall(rf"{kernel}\S*: SCoP at", proc.stderr)
        assert len(scops) == 1, (kernel, proc.stderr)
    assert "not a SCoP" not in "".join(line for line in proc.stderr.splitlines() if "moments" in line), proc.stderr


def _lifted_the_llvm_way(tmp: Path, kernels: str, main_text: str):
    """(source, main, module, lifted) of ``kernels`` compiled by clang with s2s-cc's LLVM-way
    flags and lifted, all its functions to C; the lifted C written to ``tmp / "l.c"``."""
    source, main = tmp / "k.c", tmp / "main.c"
    source.write_text(kernels)
    main.write_text(main_text)
    module = tmp / "k.ll"
    subprocess.run([CLANG, *LLVM_WAY, "-S", "-emit-llvm", str(source), "-o", str(module)], check=True)
    lifted = lift_module(module)
    assert lifted.refused == {}
    (tmp / "l.c").write_text(lifted.c_text)
    return source, main, module, lifted


UPDATES = r"""
#define N 90
#define MAX(a, b) ((a) > (b) ? (a) : (b))
/* an interval table updated in place by a chain of statements, as dynamic programs are: clang
   keeps each statement's result in a register for the next, and a value chosen by an if in a phi */
void intervals(long n, const signed char *w, int t[][N]) {
  for (long i = n - 1; i >= 0; i--)
    for (long j = i + 1; j < n; j++) {
      t[i][j] = MAX(t[i][j], t[i][j - 1]);
      t[i][j] = MAX(t[i][j], t[i + 1][j] - (w[i] + w[j] > 4));
      if (i < j - 1)
        t[i][j] = MAX(t[i][j], t[i + 1][j - 1] + (w[i] * w[j] > 2));
      else
        t[i][j] = MAX(t[i][j], t[i + 1][j - 1]);
      for (long k = i + 1; k < j; k++)
        t[i][j] = MAX(t[i][j], t[i][k] + t[k + 1][j] - 2);
    }
}
"""

UPDATES_MAIN = r"""
#include <stdio.h>
#define N 90
void intervals(long n, const signed char *w, int t[][N]);
int main(void) {
  static int t[N][N];
  static signed char w[N];
  for (int i = 0; i < N; i++) {
    w[i] = (signed char)((i * 5 + 3) % 4);
    for (int j = 0; j < N; j++) t[i][j] = (i * 13 + j * 7) % 11;
  }
  intervals(N, w, t);
  long s = 0;
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) s += (long)t[i][j] * (i + 3 * j + 1);
  printf("%ld %d %d\n", s, t[0][N - 1], t[N / 2][N - 2]);
  return 0;
}
"""


def test_values_kept_in_registers_are_read_from_memory_again(tmp_path):
    """A value LLVM keeps in a register after storing it is read back from the element it was
    stored to: the lifted nest is one SCoP, as the C was, and it and its optimized build print
    what gcc's build of the C prints."""
    source, main, module, lifted = _lifted_the_llvm_way(tmp_path, UPDATES, UPDATES_MAIN)
    # (one choice per statement: not the chain of every update before it, seven deep)
    assert max(line.count("?") for line in lifted.c_text.splitlines()) == 1, lifted.c_text
    expected = build_and_run(["gcc", "-O2", str(source), str(main)], tmp_path / "ref")
    assert build_and_run(["gcc", "-O2", str(tmp_path / "l.c"), str(main)], tmp_path / "lifted") == expected
    from_c = subprocess.run([str(BIN / "s2s"), "opt", str(source), "-o", str(tmp_path / "c.c"), "--report"],
                            capture_output=True, text=True, check=True).stderr
    proc = subprocess.run([str(BIN / "s2s"), "opt", str(module), "-o", str(tmp_path / "o.c"), "--report"],
                          capture_output=True, text=True, check=True)
    assert "optimized" in from_c and "SCoP at" in proc.stderr, (from_c, proc.stderr)
    got = build_and_run(["gcc", "-O2", str(tmp_path / "o.c"), str(main)], tmp_path / "optimized")
    assert got == expected


SUBSTITUTIONS = r"""
#define N 61
/* forward and backward substitution with a scalar accumulator: clang guards each rotated inner
   loop with a test of its trip count and merges the accumulator after it in a phi */
void solve(double a[N][N], const double *b, double *x, double *y) {
  for (int i = 0; i < N; i++) {
    double w = b[i];
    for (int j = 0; j < i; j++)
      w -= a[i][j] * y[j];
    y[i] = w;
  }
  for (int i = N - 1; i >= 0; i--) {
    double w = y[i];
    for (int j = i + 1; j < N; j++)
      w -= a[i][j] * x[j];
    x[i] = w / a[i][i];
  }
}
/* the same on n rows: a guard i + 1 < n stays (C's j != n would also run where i + 1 > n) */
void back(long n, double a[N][N], double *x) {
  for (long i = n - 1; i >= 0; i--) {
    double w = x[i];
    for (long j = i + 1; j < n; j++)
      w -= a[i][j] * x[j];
    x[i] = w / a[i][i];
  }
}
"""

SUBSTITUTIONS_MAIN = r"""
#include <stdio.h>
#define N 61
void solve(double a[N][N], const double *b, double *x, double *y);
void back(long n, double a[N][N], double *x);
int main(void) {
  static double a[N][N], b[N], x[N], y[N];
  for (int i = 0; i < N; i++) {
    b[i] = (i % 7) * 0.5 - 1.0;
    for (int j = 0; j < N; j++) a[i][j] = (i == j ? N : 0) + ((i * 3 + j * 5) % 11) * 0.125;
  }
  solve(a, b, x, y);
  back(N - 3, a, y);
  double s = 0.0;
  for (int i = 0; i < N; i++) s += x[i] * (i + 1) + y[i];
  printf("%.17g %.17g %.17g\n", s, x[0], y[N - 1]);
  return 0;
}
"""


def test_trip_count_guards_of_rotated_loops_go(tmp_path):
    """``if (i == 0) w = b[i]; else { for (...) ...; w = acc; }``, clang's guard of a rotated loop
    with the phi after it, is the plain loop again: C's for runs no iteration where the guard
    skipped it (also where the guard compares a counter of known values, ``i < 60`` for
    ``j != 60``), so the accumulator is one variable, as the C had it."""
    source, main, _, lifted = _lifted_the_llvm_way(tmp_path, SUBSTITUTIONS, SUBSTITUTIONS_MAIN)
    body = lifted.c_text[lifted.c_text.rindex("void solve"):]
    body = body[:body.index("\n}\n")]
    assert "if (" not in body, body
    expected = build_and_run(["gcc", "-O2", str(source), str(main)], tmp_path / "ref")
    assert build_and_run(["gcc", "-O2", str(tmp_path / "l.c"), str(main)], tmp_path / "lifted") == expected


NESTED = r"""
#include <cstdio>
#include <vector>
using Matrix = std::vector<std::vector<double>>;
void multiply(Matrix &c, const Matrix &a, const Matrix &b, int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        c[i][j] += a[i][k] * b[k][j];
}
int main() {
  const int n = 70;
  Matrix a(n, std::vector<double>(n)), b(n, std::vector<double>(n)), c(n, std::vector<double>(n, 1.0));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      a[i][j] = (i * 3 + j) % 7 * 0.5;
      b[i][j] = (i + 2 * j) % 5 * 0.25;
    }
  multiply(c, a, b, n);
  multiply(c, c, b, n / 2);   // (c is both a factor and the result: the run-time test keeps the loops)
  double s = 0;
  for (const auto &row : c)
    for (double v : row) s += v;
  std::printf("%.17g\n", s);
}
"""


def test_vectors_of_vectors_are_rows_of_pointers(tmp_path):
    """``std::vector<std::vector<double>>``: each row a vector, three pointers, read as an array
    of pointers (row i's data at ``rows[3 * i]``), which the C front end reads as row pointers
    with a run-time test that they lie apart: the product is one SCoP, and right."""
    source = tmp_path / "nested.cpp"
    source.write_text(NESTED)
    expected = build_and_run(["g++", "-O2", str(source)], tmp_path / "ref")
    exe = tmp_path / "opt"
    proc = subprocess.run([str(BIN / "s2s-c++"), "g++", "-O2", str(source), "-o", str(exe), "--s2s-report"],
                          capture_output=True, text=True, check=True)
    assert re.search(r"multiply\S*: SCoP at \S+ optimized", proc.stderr), proc.stderr
    assert subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout == expected
    module = tmp_path / "nested.ll"
    subprocess.run([CLANGXX, "-O1", "-fno-vectorize", "-fno-unroll-loops", "-finline-hint-functions", "-S",
                    "-emit-llvm", str(source), "-o", str(module)], check=True)
    text = lift_module(module).c_text
    assert re.search(r"double \*\w+ = \w+\[3 \* \w+\];", text), text


FLANG = shutil.which("flang-new-16") or shutil.which("flang-new")
# what flang's LLVM IR should look like to the front end: loops not vectorized nor unrolled
FLANG_FLAGS = ["-O1", "-mllvm", "-vectorize-loops=false", "-mllvm", "-unroll-runtime=false"]

FORTRAN_DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
void _QMkernelsPheat(double *u, double *v, int *n, int *steps);
void _QMkernelsPproduct(double *a, double *b, double *c, int *n);
int main(void) {
  int n = 90, steps = 7;
  double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
  double *c = malloc(sizeof(double) * n * n), *u = malloc(sizeof(double) * n * n);
  double *v = malloc(sizeof(double) * n * n);
  for (int e = 0; e < n * n; e++) {
    a[e] = (e * 7 % 17) * 0.0625; b[e] = (e % 11) * 0.125 - 0.5; c[e] = e % 3;
    u[e] = v[e] = (e % 97 == 0) ? 100.0 : 0.0;
  }
  _QMkernelsPproduct(a, b, c, &n);
  _QMkernelsPheat(u, v, &n, &steps);
  for (int e = 0; e < n * n; e++) printf("%a %a\n", c[e], u[e]);
  return 0;
}
"""


@pytest.mark.skipif(FLANG is None, reason="no flang-new (the project's setup installs flang-16)")
def test_fortran_kernels_lift_and_compute_what_flang_computes(tmp_path):
    """flang's LLVM IR of explicit-shape kernels: scalars passed by reference read once (a dummy
    that is written is reached through no other name), its subscripts' arithmetic, which LLVM
    lets wrap, shown not to (ranges), its sign extensions and its trip counters read as C's:
    both nests are SCoPs, the product a kernel, and a C program calling them prints what it
    prints with flang's own object."""
    source = PROGRAMS / "fortran_kernels.f90"
    module = tmp_path / "k.ll"
    subprocess.run([FLANG, *FLANG_FLAGS, "-S", "-emit-llvm", str(source), "-o", str(module)], check=True,
                   cwd=tmp_path)
    lifted = lift_module(module)
    assert set(lifted.lifted) >= {"_QMkernelsPheat", "_QMkernelsPproduct"}, lifted.refused
    proc = subprocess.run([str(BIN / "s2s"), "opt", str(module), "-o", str(tmp_path / "k.c"), "--rest",
                           str(tmp_path / "k.rest.ll"), "--report"], capture_output=True, text=True, check=True)
    assert re.search(r"_QMkernelsPheat: SCoP at", proc.stderr), proc.stderr
    assert re.search(r"_QMkernelsPproduct: SCoP at \S+ optimized .*1 matrix-multiply", proc.stderr), proc.stderr
    driver = tmp_path / "main.c"
    driver.write_text(FORTRAN_DRIVER)
    reference = tmp_path / "ref.o"
    subprocess.run([FLANG, "-O2", "-c", str(source), "-o", str(reference)], check=True, cwd=tmp_path)
    expected = build_and_run(["gcc", "-O2", str(driver), str(reference)], tmp_path / "ref")
    rest = tmp_path / "rest.o"   # (heat, which s2s leaves as it is, stays LLVM IR)
    emit_object((tmp_path / "k.rest.ll").read_text(), rest)
    got = build_and_run(["gcc", "-O2", "-ffp-contract=off", str(driver), str(tmp_path / "k.c"), str(rest)],
                        tmp_path / "opt")
    assert got == expected


@pytest.mark.skipif(FLANG is None, reason="no flang-new (the project's setup installs flang-16)")
def test_s2s_fc_compiles_fortran_kernels_into_an_object(tmp_path):
    """``s2s-fc flang-new -O2 -c``: the product moves to C as a kernel, heat (which s2s leaves as
    it is) stays LLVM IR, joined in the one object asked for; a C program calling them prints what
    it prints with flang's own object."""
    source = PROGRAMS / "fortran_kernels.f90"
    driver = tmp_path / "main.c"
    driver.write_text(FORTRAN_DRIVER)
    reference = tmp_path / "ref.o"
    subprocess.run([FLANG, "-O2", "-c", str(source), "-o", str(reference)], check=True, cwd=tmp_path)
    expected = build_and_run(["gcc", "-O2", str(driver), str(reference)], tmp_path / "ref")
    obj = tmp_path / "k.o"
    proc = subprocess.run([str(BIN / "s2s-fc"), FLANG, "-O2", "-c", str(source), "-o", str(obj), "--s2s-report"],
                          capture_output=True, text=True, check=True, cwd=tmp_path)
    assert "optimization skipped" not in proc.stderr, proc.stderr
    assert re.search(r"_QMkernelsPproduct: SCoP at \S+ optimized", proc.stderr), proc.stderr
    symbols = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
    assert "s2s_register_block" in symbols and "T _QMkernelsPheat" in symbols
    assert build_and_run(["gcc", "-O2", str(driver), str(obj)], tmp_path / "opt") == expected
