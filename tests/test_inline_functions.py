"""Inlined helpers (frontends/c/inline_functions.py): a call to a small static function of the
file is lifted as the function's body, so the loops around it can form a SCoP. Programs built
with it compute what gcc's build of the original does, C's conversions at the call included;
helpers outside the rules stay calls and the program stays correct."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from c_build import optimized_and_both_outputs, outputs_of_both_builds
from frontends.c import lift_c_file
from frontends.c.arithmetic_types import _keywords, _literal_type, usual_conversion
from frontends.c.parse import parse
from frontends.c.preprocess import preprocess
from frontends.c.translation_unit import file_scope_of
from s2s.analysis import find_scops
from s2s.ir import Block, Tasklet, walk
from s2s.ir import expr as ex


def _lifted(tmp_path: Path, program: str, function: str):
    """The SCoPs of ``function`` in ``program`` and the functions its statements call."""
    src = tmp_path / "h.c"
    src.write_text(program)
    unit, _ = lift_c_file(str(src))
    (sdfg,) = [f for f in unit.functions if f.name == function]
    scops = find_scops(sdfg, [])
    calls = {c for n in walk(sdfg.body) if isinstance(n, Block)
             for t in n.graph.nodes if isinstance(t, Tasklet) for c in ex.calls(t.expr)}
    return scops, calls


HELPERS = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static inline float clamp01(float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }

static inline double inv_dist3(double dx, double dy, double dz, double eps2)
{
    double r2 = dx * dx + dy * dy + dz * dz + eps2;
    double r = sqrt(r2);
    return 1.0 / (r2 * r);
}

static int clampi(int v, int lo, int hi) { if (v < lo) return lo; if (v > hi) return hi; return v; }

/* the same by assignments, and a parameter named like the caller's variables */
static int clamp_assign(int i, int n, int hi)
{
    if (i < n)
        i = n;
    else if (i > hi) {
        int over = i - hi;
        i = hi + (over > 3);
    }
    return i;
}

static void exposure(int w, int h, const float *in, float *out, float gain)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            out[y * w + x] = clamp01(gain * in[y * w + x] - 0.1f);
}

static void accel(int n, const double *px, const double *py, const double *pz, const double *m,
                  double *ax, double *ay, double *az, double eps2)
{
    for (int i = 0; i < n; i++) {
        ax[i] = 0.0;
        ay[i] = 0.0;
        az[i] = 0.0;
        for (int j = 0; j < n; j++) {
            double s = m[j] * inv_dist3(px[j] - px[i], py[j] - py[i], pz[j] - pz[i], eps2);
            ax[i] += (px[j] - px[i]) * s;
            ay[i] += (py[j] - py[i]) * s;
            az[i] += (pz[j] - pz[i]) * s;
        }
    }
}

static void levels(int n, int m, const int *v, int *q)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            q[i * m + j] = clampi(v[i * m + j] * 3 - 40, 0, 255) + clamp_assign(v[i * m + j], i, n + j);
}

int main(void)
{
    int w = 61, h = 47, n = 150, m = 37;
    float *in = malloc(sizeof(float) * w * h), *out = malloc(sizeof(float) * w * h);
    for (int i = 0; i < w * h; i++)
        in[i] = (float)((i * 37) % 101) / 80.0f;
    exposure(w, h, in, out, 1.25f);
    double *p = malloc(sizeof(double) * n * 7);
    for (int i = 0; i < n * 4; i++)
        p[i] = ((i * 7919) % 1009) / 97.0 + (i >= 3 * n ? 1.0 : 0.0);
    accel(n, p, p + n, p + 2 * n, p + 3 * n, p + 4 * n, p + 5 * n, p + 6 * n, 1e-3);
    int *v = malloc(sizeof(int) * n * m), *q = malloc(sizeof(int) * n * m);
    for (int i = 0; i < n * m; i++)
        v[i] = (i * 31) % 211 - 50;
    levels(n, m, v, q);
    for (int i = 0; i < w * h; i += 7)
        printf("%a\n", out[i]);
    for (int i = 4 * n; i < 7 * n; i++)
        printf("%a\n", p[i]);
    for (int i = 0; i < n * m; i += 5)
        printf("%d\n", q[i]);
    return 0;
}
"""


@pytest.mark.parametrize("function", ["exposure", "accel", "levels"])
def test_helpers_called_in_loops_leave_a_scop(tmp_path, function):
    scops, calls = _lifted(tmp_path, HELPERS, function)
    assert len(scops) == 1
    assert not calls & {"clamp01", "inv_dist3", "clampi", "clamp_assign"}


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_inlined_helpers_compute_what_the_calls_compute(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "helpers.c", HELPERS, target)
    lines = [ln for ln in result.report if any(f": {f}: " in ln for f in ("exposure", "accel", "levels"))]
    assert len(lines) == 3 and all("SCoP at" in ln for ln in lines), result.report
    assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_inlined_helpers_rewritten_where_no_gain_is_asked_for_compute_the_same(tmp_path, target):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "helpers.c"
    path.write_text(HELPERS)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
    assert sum("optimized" in ln for ln in result.report if any(
        f": {f}: " in ln for f in ("exposure", "accel", "levels"))) == 3, result.report
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    assert out == ref


CONVERSIONS = r"""
#include <stdio.h>

static float half(float x) { return x / 2; }
static int trunc_i(double x) { return x; }
static unsigned char byte(int v) { return v; }
static short narrow(long v) { if (v > 0) return v; return -v; }

static void convert(int n, const double *d, const int *k, double *o, int *t, int *s)
{
    for (int i = 0; i < n; i++) {
        o[i] = half(d[i]) + half(k[i]) * 3.0 + half(16777217);
        t[i] = trunc_i(d[i] * 1.5) * 7 - trunc_i(-d[i]) + byte(k[i] * 37);
        s[i] = narrow(k[i] * 40000L) + (int)sizeof(narrow(1));
    }
}

int main(void)
{
    enum { N = 300 };
    double d[N], o[N];
    int k[N], t[N], s[N];
    for (int i = 0; i < N; i++) {
        d[i] = (i - 150) * 0.37 + 1.0 / 3.0 + 1e8 * (i % 7 == 0);
        k[i] = (i * 7919) % 100003 - 50000;
    }
    convert(N, d, k, o, t, s);
    for (int i = 0; i < N; i++)
        printf("%a %d %d\n", o[i], t[i], s[i]);
    return 0;
}
"""


def test_conversions_of_arguments_and_results_are_casts(tmp_path):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "conv.c"
    path.write_text(CONVERSIONS)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="identity"))
    body = result.source[result.source.index("static void convert"):result.source.index("int main")]
    assert "half(" not in body and "trunc_i(" not in body and "byte(" not in body, body
    assert "(float)d[i] / 2" in body and "(float)k[i] / 2" in body and "(float)16777217 / 2" in body
    assert "(int)(d[i] * 1.5) * 7" in body and "(unsigned char)(k[i] * 37)" in body
    assert "sizeof((short)" in body      # a call to a short: sizeof gives a short's size still


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_conversions_compute_what_the_calls_compute(tmp_path, target):
    scops, calls = _lifted(tmp_path, CONVERSIONS, "convert")
    assert len(scops) == 1 and not calls
    _, ref, out = optimized_and_both_outputs(tmp_path / "conv.c", CONVERSIONS, target)
    assert out == ref


NOT_INLINED = r"""
#include <stdio.h>

int calls;
static double counted(double x) { calls++; return 2.0 * x; }
static double reads_global(double x) { return x + calls; }
static int fact(int k) { return k <= 1 ? 1 : k * fact(k - 1); }
static int even(int k);
static int odd(int k) { if (k == 0) return 0; return even(k - 1); }
static int even(int k) { if (k == 0) return 1; return odd(k - 1); }
static double poly(double x) { double s = 0.0; for (int i = 0; i < 4; i++) s = s * x + i; return s; }
static double first(const double *p) { return p[0]; }
double twice(double x) { return x + x; }
static int next_value(void) { static int state = 1; state = state * 75 % 65537; return state; }
static int ident(int v) { return v; }
static int deep(int v) { return ident(v) < 0 ? 0 : ident(v) > 9 ? 9 : ident(v); }

static void uses(int n, const double *a, double *o, int *q)
{
    for (int i = 0; i < n; i++) {
        o[i] = counted(a[i]) + reads_global(a[i]) + fact(i % 6) + odd(i % 5) + poly(a[i]) + twice(a[i]);
        o[i] += first(&a[i]);
        q[i] = ident(next_value()) + deep(deep(deep(deep(deep(i % 13 - 2)))));
    }
}

int main(void)
{
    enum { N = 64 };
    double a[N], o[N];
    int q[N];
    for (int i = 0; i < N; i++)
        a[i] = i * 0.25 - 3.0;
    uses(N, a, o, q);
    for (int i = 0; i < N; i++)
        printf("%a %d\n", o[i], q[i]);
    printf("%d\n", calls);
    return 0;
}
"""


def test_helpers_outside_the_rules_stay_calls(tmp_path):
    src = tmp_path / "not.c"
    src.write_text(NOT_INLINED)
    helpers = file_scope_of(parse(preprocess(str(src)), str(src))).helpers
    inlinable = {name for name in helpers.definitions if helpers.helper(name) is not None}
    # a global written or read, recursion, a loop, a pointer, not static, a static local
    assert inlinable == {"ident", "deep"}
    scops, calls = _lifted(tmp_path, NOT_INLINED, "uses")
    assert not scops
    assert {"counted", "reads_global", "fact", "odd", "poly", "twice", "next_value"} <= calls
    assert "ident" in calls   # its argument is a call with effects: it would run as often as v is read
    assert "deep" in calls    # five deep: past the size limit, the outer calls stay


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_programs_with_calls_left_compute_the_same(tmp_path, target):
    _, ref, out = optimized_and_both_outputs(tmp_path / "not.c", NOT_INLINED, target)
    assert out == ref


def test_names_at_the_call_are_not_captured(tmp_path):
    """A helper's parameter named like the caller's variable, an enum constant the caller hides
    with a local, a call kept as a statement."""
    program = r"""
enum { SCALE = 3 };
static int mix(int i, int n) { return i * SCALE + n; }
static int scaled(int v) { return v * SCALE; }
void f(int n, int *a, int *b) {
  for (int i = 0; i < n; i++) {
    a[i] = mix(n, i);
    mix(i, i);
  }
  for (int i = 0; i < n; i++) {
    int SCALE = i;
    b[i] = scaled(SCALE);
  }
}
"""
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "names.c"
    path.write_text(program)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="identity"))
    body = result.source[result.source.index("void f"):]
    assert "a[i] = n * SCALE + i;" in body
    assert "mix(i, i);" in body and "scaled(SCALE)" in body


def test_type_spellings_and_literals():
    assert _keywords("long unsigned int".split()) == "unsigned long"
    assert _keywords("signed".split()) == "int" and _keywords("unsigned".split()) == "unsigned int"
    assert _keywords("short int".split()) == "short" and _keywords("long double".split()) == "long double"
    assert _keywords("char".split()) == "char" and _keywords("signed char".split()) == "signed char"
    for bad in ("long float", "int int", "signed unsigned int", "long long long", "size_t", ""):
        assert _keywords(bad.split()) is None, bad
    assert [_literal_type(t) for t in ("1", "0", "010", "0x7fffffff", "0x80000000", "2147483648", "1u")] \
        == ["int", "int", "int", "int", "unsigned int", None, "unsigned int"]
    assert [_literal_type(t) for t in ("40000L", "1lu", "1LL", "1ull", "3000000000L", "0x1ffffffff")] \
        == ["long", "unsigned long", "long long", "unsigned long long", None, None]
    assert [usual_conversion(a, b) for a, b in [("int", "long"), ("unsigned int", "int"), ("char", "short"),
                                                 ("long", "unsigned int"), ("float", "long"), ("double", None)]] \
        == ["long", "unsigned int", "int", None, "float", None]
    assert [_literal_type(t) for t in ("1.0", "1.f", ".5L", "1e3", "0x1p-2", "'a'", "08")] \
        == ["double", "float", "long double", "double", "double", "int", None]


def test_a_helper_whose_calls_were_all_inlined_is_still_used(tmp_path):
    """-Wall -Werror: a static function no longer called would fail the build (s2s-cc would then
    compile the file unchanged); the region that inlined it names it, ``(void)clampi;``."""
    from c_build import compile_c, notes_in, s2s_cc_path, s2s_env

    (tmp_path / "w.c").write_text(r"""#include <stdio.h>
#define N 300
static int clampi(int v, int lo, int hi) { if (v < lo) return lo; if (v > hi) return hi; return v; }
static int a[N][N], b[N][N];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = (i * 7 + j) % 100 - 20;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      b[j][i] = clampi(a[i][j], 0, 50);
  long s = 0;
  for (int i = 0; i < N; i++)
    s += b[i][3];
  printf("%ld\n", s);
  return 0;
}
""")
    keep = tmp_path / "keep"
    proc = compile_c(s2s_cc_path(), ["-O2", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror",
                                     "--s2s-profitability=off", "w.c", "-o", "w"],
                     tmp_path, env=s2s_env(keep, mode="pluto"))
    assert proc.returncode == 0 and not notes_in(proc), proc.stderr
    generated = next(keep.rglob("*.c")).read_text()
    assert "(void)clampi;" in generated and "clampi(a" not in generated
    assert subprocess.run([str(tmp_path / "w")], capture_output=True, text=True).stdout == "8175\n"


def test_typedefs_are_seen_through_and_volatile_reads_stay_calls(tmp_path):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "t.c"
    path.write_text("""typedef double real;
static real sq(real x) { real y = x; return y * x; }
void g(int n, double *a, volatile double *v) {
  for (int i = 0; i < n; i++)
    a[i] = sq(a[i]) + sq(v[i]);
}
""")
    body = optimize_c_file(str(path), [], PipelineOptions(mode="identity")).source.split("void g")[1]
    assert "a[i] = a[i] * a[i] + sq(v[i]);" in body   # (read once per call, as written)
