"""Names that C allows to share memory: every pair is listed by the analysis, and the optimized
code gives the original program's answer whether the views overlap at run time or not.

Each program runs its kernel on overlapping views of one buffer and on separate buffers, then
prints a weighted checksum; the optimized build (pluto mode, plain C and OpenMP on two threads)
must print what the unoptimized one does.
"""
from __future__ import annotations

import subprocess
import textwrap

import pytest

from c_build import optimized_and_both_outputs, outputs_of_both_builds
from s2s.analysis.aliasing import restrict_qualified
from s2s.ir import ROWS_APART
from s2s.transforms.alias_check import Uncheckable, no_overlap_condition
from test_polyhedral import scops_of

N = 200
CHECKSUM = """
static double checksum(const float *a, long len) {
    double s = 0;
    for (long i = 0; i < len; i++) s += a[i] * (i % 13 + 1);
    return s;
}
static float *filled(long len) {
    float *a = malloc(sizeof(float) * len);
    for (long i = 0; i < len; i++) a[i] = i % 97;
    return a;
}
"""

# Each kernel: `out[i * n + j] = in[i * n + j] * 0.5f + 1.0f` with j outermost, which the
# optimizer interchanges, tiles and (under OpenMP) runs in parallel when the views are distinct.
STATEMENT = "out[i * n + j] = in[i * n + j] * 0.5f + 1.0f;"
LOOPS = f"""    for (int j = 0; j < n; j++)
        for (int i = 0; i < n - 1; i++)
            {STATEMENT}"""

PROGRAMS = {
    "local pointers": f"""
void sweep(float *a, long offset, int n) {{
    float *in = a;
    float *out = a + offset;
{LOOPS}
}}
static double run(long offset) {{
    float *a = filled(3L * N * N);
    sweep(a, offset, N);
    double s = checksum(a, 3L * N * N);
    free(a);
    return s;
}}""",
    "global pointers": f"""
float *in, *out;
void sweep(int n) {{
{LOOPS}
}}
static double run(long offset) {{
    float *a = filled(3L * N * N);
    in = a;
    out = a + offset;
    sweep(N);
    double s = checksum(a, 3L * N * N);
    free(a);
    return s;
}}""",
    "pointer parameters": f"""
void sweep(const float *in, float *out, int n) {{
{LOOPS}
}}
static double run(long offset) {{
    float *a = filled(3L * N * N);
    sweep(a, a + offset, N);
    double s = checksum(a, 3L * N * N);
    free(a);
    return s;
}}""",
    "pointers held in a struct": f"""
struct views {{ float *in; float *out; }};
void sweep(struct views *v, int n) {{
    float *in = v->in, *out = v->out;
{LOOPS}
}}
static double run(long offset) {{
    float *a = filled(3L * N * N);
    struct views v = {{a, a + offset}};
    sweep(&v, N);
    double s = checksum(a, 3L * N * N);
    free(a);
    return s;
}}""",
    "a pointer into a global array": f"""
float g[3 * N * N];
void sweep(long offset, int n) {{
    float *out = g + offset;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n - 1; i++)
            out[i * n + j] = g[i * n + j] * 0.5f + 1.0f;
}}
static double run(long offset) {{
    for (long i = 0; i < 3L * N * N; i++) g[i] = i % 97;
    sweep(offset, N);
    return checksum(g, 3L * N * N);
}}""",
    "a read range with pieces": f"""
void sweep(const float *in, float *out, long k, int n) {{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n - 1; i++)
            out[i * n + j] = in[i * n + j] * 0.5f + in[k * n + j];
}}
static double run(long offset) {{
    float *a = filled(3L * N * N);
    sweep(a, a + offset, offset / N + 2, N);
    double s = checksum(a, 3L * N * N);
    free(a);
    return s;
}}""",
}


def _program(body: str) -> str:
    return textwrap.dedent(f"""\
        #include <stdio.h>
        #include <stdlib.h>
        #define N {N}
        {CHECKSUM}""") + body + textwrap.dedent("""
        int main(void) {
            /* overlapping by one row less one element, by one element, and separate */
            printf("%.3f %.3f %.3f\\n", run(N - 1), run(1), run(2L * N * N));
            return 0;
        }
        """)


def _line_of(result, function: str) -> str:
    (line,) = [r for r in result.report if f": {function}: " in r]
    return line


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("case", sorted(PROGRAMS))
def test_views_of_one_buffer_give_the_original_answer(tmp_path, case, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "views.c", _program(PROGRAMS[case]), target)
    assert out == ref
    # reordered, under a run-time check with the user's loops in the other branch
    line = _line_of(result, "sweep")
    assert " optimized " in line and "run-time check" in line, line


def test_the_checksums_see_the_order_of_overlapping_views(tmp_path):
    """The programs above catch an unchecked reordering: with overlapping views, the loops
    interchanged by hand print another checksum; with separate buffers, the same one."""
    user = _program(PROGRAMS["local pointers"])
    swapped = user.replace(LOOPS, f"""    for (int i = 0; i < n - 1; i++)
        for (int j = 0; j < n; j++)
            {STATEMENT}""")
    assert swapped != user
    outputs = []
    for name, text in (("user", user), ("swapped", swapped)):
        src = tmp_path / f"{name}.c"
        src.write_text(text)
        subprocess.run(["cc", "-O0", str(src), "-o", str(tmp_path / name)], check=True)
        outputs.append(subprocess.run([str(tmp_path / name)], capture_output=True, text=True, check=True).stdout.split())
    assert outputs[0][0] != outputs[1][0] and outputs[0][2] == outputs[1][2]


def _pairs(tmp_path, code: str, func: str) -> set[tuple[str, str]]:
    (scop,) = scops_of(tmp_path, code, func)
    return {(p.first, p.second) for p in scop.may_alias()}


def test_every_pointer_kind_is_listed(tmp_path):
    code = """
        float *gp;
        float ga[100];
        double total;
        void f(float *p, float *restrict r, float *restrict s, int n, double arg) {
            float t[100];
            float *l = p + 1;
            double mine = 0, kept = 0;
            double *q = &mine, *q2 = &arg;
            for (int i = 0; i < n; i++) {
                t[i] = p[i] + l[i] + gp[i] + ga[i] + r[i];
                s[i] = t[i] + total;
                total = total + ga[i];
                q[0] = q[0] + mine + arg + q2[0];
                kept = kept + 1.0;
            }
        }
    """
    pairs = _pairs(tmp_path, code, "f")
    # pointers of every kind may reach one another, a global array or a global scalar
    for pair in [("gp", "s"), ("l", "s"), ("gp", "total"), ("l", "total"), ("p", "total")]:
        assert pair in pairs, pair
    # an automatic array is distinct from parameters but not from local or global pointers
    assert ("p", "t") not in pairs and ("r", "t") not in pairs
    assert ("l", "t") in pairs and ("gp", "t") in pairs
    # a restrict parameter is distinct from other parameters and declared objects, not from a
    # local pointer (which may be based on it)
    assert ("r", "s") not in pairs and ("p", "s") not in pairs and ("ga", "s") not in pairs
    assert ("s", "total") not in pairs
    assert ("r", "total") not in pairs and ("l", "r") not in pairs  # r is never written, nor l
    # a local scalar or a scalar parameter whose address is taken may be reached by a local
    # pointer, never by a parameter; one whose address is never taken by nothing at all
    assert ("mine", "q") in pairs and ("arg", "q") in pairs and ("q", "q2") in pairs
    assert ("mine", "p") not in pairs and ("arg", "p") not in pairs
    assert not any("kept" in pair for pair in pairs)
    # two declared objects never overlap
    assert ("ga", "t") not in pairs and ("ga", "total") not in pairs


@pytest.mark.parametrize("declaration, name, restrict", [
    ("double *restrict out", "out", True), ("double *__restrict__ out", "out", True),
    ("double out[restrict 4]", "out", True), ("double * const restrict out", "out", True),
    ("double **restrict out", "out", True), ("double *restrict_out", "restrict_out", False),
    ("double *unrestricted", "unrestricted", False), ("double *restrict *out", "out", False)])
def test_restrict_is_the_parameters_own_qualifier(declaration, name, restrict):
    assert restrict_qualified(declaration, name) is restrict


def test_a_name_that_contains_restrict_is_checked_for_overlap(tmp_path):
    """``double *restrict_out`` is a plain pointer: called with its input shifted by one element,
    the loops turned to walk rows must not run (it had been taken for ``restrict``: wrong sums
    under both targets)."""
    src = tmp_path / "r.c"
    src.write_text(textwrap.dedent("""\
        #include <stdio.h>
        void f(double *restrict_out, const double *a, int m, int nn, int ld) {
            for (int c = 0; c < nn; c++)
                for (int r = 0; r < m; r++)
                    restrict_out[r * ld + c] = a[r * ld + c] + 1.0;
        }
        int main(void) {
            static double g[16384];
            for (int i = 0; i < 16384; i++) g[i] = i % 13;
            f(g + 1, g, 200, 64, 64);
            double s = 0;
            for (int i = 0; i < 16384; i++) s += g[i] * (i % 7 + 1);
            printf("%.10g\\n", s);
            return 0;
        }
    """))
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    for target in ("c", "openmp"):
        result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target=target))
        assert any("f: SCoP at" in ln and "optimized" in ln for ln in result.report), result.report
        ref, out = outputs_of_both_builds(src, result.source, openmp=target == "openmp")
        assert out == ref, target


def test_rows_reached_through_pointers_are_checked_to_lie_apart(tmp_path):
    """``float **rows``: rows that overlap (the model cannot see it) run the user's order; rows
    apart, the optimized one; no rows at all, nothing is read."""
    program = textwrap.dedent("""\
        #include <stdio.h>
        #include <stdlib.h>
        void relax(float **a, int n) {
            for (int j = 0; j < n; j++)
                for (int i = 1; i < n; i++)
                    a[i][j] = a[i - 1][j] * 0.5f + 1.0f;
        }
        static double run(long stride, int n) {
            float *buf = malloc(sizeof(float) * (n * n + 1));
            float **rows = n ? malloc(sizeof(float *) * n) : NULL;
            for (int i = 0; i < n * n; i++) buf[i] = i % 97;
            for (int i = 0; i < n; i++) rows[i] = buf + i * stride;
            relax(rows, n);
            double s = 0;
            for (int i = 0; i < n * n; i++) s += buf[i] * (i % 13 + 1);
            free(buf);
            free(rows);
            return s;
        }
        int main(void) {
            /* rows overlapping by one element, apart, and none */
            printf("%.3f %.3f %.3f\\n", run(599, 600), run(600, 600), run(0, 0));
            return 0;
        }
    """)
    for target in ("c", "openmp"):
        result, ref, out = optimized_and_both_outputs(tmp_path / "rows.c", program, target)
        assert out == ref
        line = _line_of(result, "relax")
        assert " optimized " in line and "run-time check" in line, line
        assert f"{ROWS_APART}((const void *const *)a" in result.source


def test_rows_of_rows_keep_the_users_code(tmp_path):
    (scop,) = scops_of(tmp_path, """
        void f(float ***a, int n) {
            for (int k = 1; k < n; k++)
                for (int j = 0; j < n; j++)
                    for (int i = 1; i < n; i++)
                        a[k][i][j] = a[k - 1][i - 1][j] * 0.5f + 1.0f;
        }
    """, "f")
    with pytest.raises(Uncheckable, match="rows of rows"):
        no_overlap_condition(scop)


def test_analyze_lists_every_pair(tmp_path):
    from s2s.driver.analyze import analyze_file, format_text

    src = tmp_path / "sweep.c"
    src.write_text(_program(PROGRAMS["local pointers"]))
    text = format_text(str(src), analyze_file(str(src), []))
    assert "in/out (local pointer and local pointer)" in text


REASSIGNED = """\
#include <stdio.h>
static double smooth_into(double *work, int n) {
    double buf[20001];
    for (int i = 0; i < 20001; i++) buf[i] = i % 7;
    if (work == 0) work = buf;
    for (int i = 0; i < n; i++) buf[i + 1] = work[i] + 1.0;
    double s = 0; for (int i = 0; i < 20001; i++) s += buf[i] * (i % 5 + 1);
    return s;
}
static void shift_scale(double *restrict x, double *y, int n) {
    if (y == 0) y = x + 1;
    for (int i = 0; i < n; i++) y[i] = x[i] + 1.0;
}
int main(void) {
    static double g[20001];
    for (int i = 0; i < 20001; i++) g[i] = i % 7;
    shift_scale(g, 0, 20000);
    double s = 0; for (int i = 0; i < 20001; i++) s += g[i] * (i % 5 + 1);
    printf("%.10g %.10g\\n", smooth_into(0, 20000), s);
    return 0;
}
"""


def test_a_parameter_the_function_assigns_is_checked_for_overlap(tmp_path):
    """``if (!work) work = buf;`` may point a parameter at the function's own array, and
    ``y = x + 1`` a plain parameter into a restrict one's: neither is a parameter as the caller
    passed it, and the loops that read one and write the other run in parallel only where they
    do not overlap (a recurrence, run in parallel unchecked before)."""
    result, ref, out = optimized_and_both_outputs(tmp_path / "r.c", REASSIGNED, "openmp")
    for func in ("smooth_into", "shift_scale"):
        line = next(ln for ln in result.report if f"{func}: SCoP at" in ln and "optimized" in ln)
        assert "under a run-time check that pointer arrays do not overlap" in line, line
    assert out == ref


def test_volatile_accesses_are_no_scop(tmp_path):
    """Each access to a volatile object happens as written, in order: no SCoP reorders them."""
    code = """
        volatile double sink[100];
        void f(volatile double *a, int n) { for (int i = 0; i < n; i++) a[i] = a[i] * 2.0; }
        void g(int n, const double *b) { for (int i = 0; i < n; i++) sink[i] = b[i] + 1.0; }
    """
    src = tmp_path / "v.c"
    src.write_text(textwrap.dedent(code))
    from frontends.c import lift_c_file
    from s2s.analysis import find_scops

    unit, _ = lift_c_file(str(src))
    for sdfg in unit.functions:
        obstacles: list = []
        assert not find_scops(sdfg, obstacles)
        assert any("volatile" in o.what for o in obstacles), [o.what for o in obstacles]
