"""Struct members read in a loop nest (frontends/c/struct_members.py): ``t->v[i * t->ncols + j]``
and ``src->row[y][x]`` are read through locals set before the nest, so that it is a SCoP; a member
a store in the nest may reach stays in place, with its reason in the report. Programs built with
it compute what gcc's build does, where the members' arrays overlap too."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from c_build import optimized_and_both_outputs, outputs_of_both_builds
from frontends.c import lift_c_file
from s2s.analysis import find_scops

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>

typedef struct { long nrows, ncols; double *v; } table_t;
struct plane { int w, h; float **row; };
typedef struct { int n; double x[64]; } fixed_t;
struct params { double alpha; int nx, ny; double *u, *unew; };

static void column_means(const table_t *t, double *mean)
{
    for (long j = 0; j < t->ncols; j++)
        mean[j] = 0.0;
    for (long i = 0; i < t->nrows; i++)
        for (long j = 0; j < t->ncols; j++)
            mean[j] += t->v[i * t->ncols + j];
}

static void box_h(const struct plane *src, struct plane *dst, int r)
{
    for (int y = 0; y < src->h; y++) {
        const float *s = src->row[y];
        float *d = dst->row[y];
        for (int x = r; x < src->w - r; x++) {
            float acc = 0.0f;
            for (int i = -r; i <= r; i++)
                acc += s[x + i];
            d[x] = acc;
        }
    }
}

/* the member is read only inside the loop: callers pass NULL when n is 0 */
static void scale_into(int n, const double *in, table_t *out)
{
    for (int i = 0; i < n; i++)
        out->v[i] = 2.0 * in[i];
}

static void fixed_sums(fixed_t *f, double *out)
{
    for (int i = 0; i < f->n; i++)
        for (int k = 0; k <= i; k++)
            out[i] += f->x[k];
}

/* alpha may be reached by the stores to unew: it stays a member read */
static void step(struct params *p)
{
    for (int i = 1; i < p->nx - 1; i++)
        for (int j = 1; j < p->ny - 1; j++)
            p->unew[i * p->ny + j] = p->u[i * p->ny + j]
                + p->alpha * (p->u[(i - 1) * p->ny + j] + p->u[(i + 1) * p->ny + j] - 2.0 * p->u[i * p->ny + j]);
}

static double checksum(const double *v, long n)
{
    double s = 0.0;
    for (long k = 0; k < n; k++)
        s += v[k] * (double)(k % 7 + 1);
    return s;
}

int main(void)
{
    table_t t = {120, 90, malloc(120 * 90 * sizeof(double))};
    for (long k = 0; k < 120 * 90; k++)
        t.v[k] = (double)(k % 19) - 4.5;
    double *mean = malloc(90 * sizeof(double));
    column_means(&t, mean);
    printf("means %.17g\n", checksum(mean, 90));

    /* the means written over the table's own first row: the arrays overlap */
    table_t o = {40, 30, t.v};
    column_means(&o, t.v + 5);
    printf("overlap %.17g\n", checksum(t.v, 120 * 90));

    float *pix = malloc(2 * 50 * 70 * sizeof(float));
    float *rows[100];
    for (int y = 0; y < 100; y++)
        rows[y] = pix + y * 70;
    for (int k = 0; k < 2 * 50 * 70; k++)
        pix[k] = (float)((k * 7) % 23);
    struct plane a = {70, 50, rows}, b = {70, 50, rows + 50};
    box_h(&a, &b, 3);
    double s = 0.0;
    for (int k = 0; k < 2 * 50 * 70; k++)
        s += pix[k] * (k % 5 + 1);
    printf("box %.17g\n", s);

    scale_into(0, mean, NULL);
    table_t dst = {1, 90, malloc(90 * sizeof(double))};
    scale_into(90, mean, &dst);
    printf("scaled %.17g\n", checksum(dst.v, 90));

    fixed_t f = {64, {0}};
    for (int k = 0; k < 64; k++)
        f.x[k] = k * 0.25;
    double sums[64] = {0};
    fixed_sums(&f, sums);
    printf("fixed %.17g\n", checksum(sums, 64));

    struct params p = {0.1, 60, 80, malloc(60 * 80 * sizeof(double)), malloc(60 * 80 * sizeof(double))};
    for (int k = 0; k < 60 * 80; k++) {
        p.u[k] = (k % 13) * 0.5;
        p.unew[k] = 0.0;
    }
    step(&p);
    printf("step %.17g\n", checksum(p.unew, 60 * 80));
    return 0;
}
"""


def _report(result, function: str) -> list[str]:
    return [ln for ln in result.report if f": {function}: " in ln]


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_members_read_through_locals_compute_what_gcc_computes(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "members.c", PROGRAM, target)
    for function in ("column_means", "box_h", "scale_into", "fixed_sums"):
        lines = _report(result, function)
        assert lines and all("SCoP at" in ln for ln in lines if "recipe" not in ln), (function, result.report)
    assert not _report(result, "step"), result.report   # (p->alpha stays in place: no SCoP)
    assert out == ref


def test_members_rewritten_where_no_gain_is_asked_for_compute_the_same(tmp_path):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "members.c"
    path.write_text(PROGRAM)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target="openmp", profitability=False))
    assert "t_v" not in result.source or "t_v = t->v" in result.source
    for function in ("column_means", "box_h", "fixed_sums"):
        assert any("optimized" in ln for ln in _report(result, function)), (function, result.report)
    ref, out = outputs_of_both_builds(path, result.source, openmp=True)
    assert out == ref


def _obstacles(tmp_path: Path, program: str, strict_aliasing: bool = True) -> tuple[int, list[str]]:
    src = tmp_path / "m.c"
    src.write_text(textwrap.dedent(program))
    unit, _ = lift_c_file(str(src), strict_aliasing=strict_aliasing)
    scops, whats = 0, []
    for sdfg in unit.functions:
        obstacles: list = []
        scops += len(find_scops(sdfg, obstacles))
        whats += [o.what for o in obstacles]
    return scops, whats


GRID = """
    struct g { int n; double *u; %s };
    void f(struct g *s, double *out) {
        for (int i = 0; i < s->n; i++)
            %s;
    }
"""


@pytest.mark.parametrize("extra, body, why", [
    ("", "out[i] = s->u[i]", None),
    ("double alpha;", "out[i] = s->alpha * s->u[i]", "struct member s->alpha: the loop stores values"),
    ("float beta;", "out[i] = s->beta * s->u[i]", None),
    ("", "{ out[i] = s->u[i]; s->n = 3; }", "assigns a member named n"),
    ("long *p;", "{ out[i] = s->u[i]; s->p[i] = 1; }", None),
    ("", "{ out[i] = s->u[i]; ((int *)out)[i] = 1; }", "struct member s->n: the loop stores values"),
    ("", "{ out[i] = s->u[i]; ((char *)out)[i] = 1; }", "struct member s->n: the loop stores values"),
    ("", "{ out[i] = s->u[i]; printf(\"x\"); }", "calls a function"),
    ("", "{ out[i] = s->u[i]; g_pp = &s->u; }", "takes its address"),
])
def test_what_keeps_a_member_in_place(tmp_path, extra, body, why):
    program = "#include <stdio.h>\ndouble **g_pp;\n" + GRID % (extra, body)
    scops, whats = _obstacles(tmp_path, program)
    if why is None:
        assert scops == 1 and not whats, whats
    else:
        assert scops == 0 and any(why in w for w in whats), whats


def test_without_strict_aliasing_a_store_keeps_members_in_place(tmp_path):
    program = GRID % ("", "out[i] = s->u[i]")
    assert _obstacles(tmp_path, program, strict_aliasing=True)[0] == 1
    scops, whats = _obstacles(tmp_path, program, strict_aliasing=False)
    assert scops == 0 and any("cannot tell the type" in w for w in whats), whats
    # a loop that stores nothing to memory still reads its members before it
    reduction = """
        struct g { int n; double *u; };
        double f(const struct g *s) {
            double r = 0.0;
            for (int i = 0; i < s->n; i++)
                r += s->u[i];
            return r;
        }
    """
    assert _obstacles(tmp_path, reduction, strict_aliasing=False)[0] == 1


def test_a_pointer_dereferenced_only_under_a_condition_is_not_read_before_the_loop(tmp_path):
    program = """
        struct g { int n; double *u; };
        void f(int n, struct g *s, double *out) {
            for (int i = 0; i < n; i++)
                if (i > 5)
                    out[i] = s->u[i];
        }
    """
    scops, whats = _obstacles(tmp_path, program)
    assert scops == 0 and any("not dereferenced whenever the loop is entered" in w for w in whats), whats


def test_a_member_read_first_in_the_body_is_read_under_the_loops_entry_condition(tmp_path):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    src = tmp_path / "m.c"
    src.write_text(textwrap.dedent("""
        struct g { int n; double *u; };
        void f(int n, struct g *s, double *out) {
            for (int i = 0; i < n; i++)
                out[i] = s->u[i];
        }
    """))
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", profitability=False))
    assert re.search(r"double \*s_u = \(*\(*int\) *0\)* *< *n\)* *\? *\(*s->u\)* *: *\(*0\)*;", result.source), \
        result.source


def test_s2s_cc_honours_no_strict_aliasing(tmp_path):
    from s2s.driver.cc import strict_aliasing

    assert strict_aliasing(["-O2"]) and strict_aliasing(["-O3", "-march=native"]) and strict_aliasing(["-Os"])
    assert not strict_aliasing([]) and not strict_aliasing(["-O1"]) and not strict_aliasing(["-O2", "-O0"])
    assert not strict_aliasing(["-O3", "-fno-strict-aliasing"])
    assert strict_aliasing(["-O1", "-fstrict-aliasing"])


def test_members_of_a_struct_object(tmp_path):
    program = """
        typedef struct { int n; double *a, *b; } pair_t;
        void f(double *out) {
            pair_t p;
            p.n = 100;
            p.a = out;
            p.b = out + 100;
            for (int i = 0; i < p.n; i++)
                p.b[i] = 2.0 * p.a[i];
        }
    """
    scops, whats = _obstacles(tmp_path, program)
    assert scops == 1, whats


def test_a_build_with_overlapping_members_prints_what_gcc_prints(tmp_path):
    """The members' arrays are one buffer, shifted by one element: the run-time check sends
    the nest to the user's order."""
    program = r"""
        #include <stdio.h>
        struct s { int n; double *in, *out; };
        static void shift(struct s *p) {
            for (int i = 1; i < p->n; i++)
                for (int k = 0; k < 4; k++)
                    p->out[i * 4 + k] = p->in[(i - 1) * 4 + k] + 1.0;
        }
        int main(void) {
            double buf[4 * 300 + 4];
            for (int k = 0; k < 4 * 300 + 4; k++) buf[k] = k % 3;
            struct s p = {300, buf, buf + 4};
            shift(&p);
            double sum = 0.0;
            for (int k = 0; k < 4 * 300 + 4; k++) sum += buf[k] * (k % 11);
            printf("%.17g\n", sum);
            return 0;
        }
    """
    for target in ("c", "openmp"):
        result, ref, out = optimized_and_both_outputs(tmp_path / f"shift_{target}.c", textwrap.dedent(program), target)
        assert out == ref, result.source


AOS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

typedef struct { double x, y, z, vx, vy, vz, m; } body_t;
typedef struct { size_t n; double *ax, *ay, *az; } accel_t;
struct particle { float pos[3]; int id; float w; };

static void accel(const body_t *b, size_t n, accel_t *a, double eps2)
{
    for (size_t i = 0; i < n; i++) {
        double axi = 0.0, ayi = 0.0, azi = 0.0;
        for (size_t j = 0; j < n; j++) {
            double dx = b[j].x - b[i].x;
            double dy = b[j].y - b[i].y;
            double dz = b[j].z - b[i].z;
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double s = b[j].m / (r2 * r2);
            axi += dx * s;
            ayi += dy * s;
            azi += dz * s;
        }
        a->ax[i] = axi;
        a->ay[i] = ayi;
        a->az[i] = azi;
    }
}

static void kick(body_t *b, const accel_t *a, double dt)
{
    for (size_t i = 0; i < a->n; i++) {
        b[i].vx += dt * a->ax[i];
        b[i].vy += dt * a->ay[i];
        b[i].vz += dt * a->az[i];
    }
}

/* each body pulled towards the one before it: a dependence along the array of structs */
static void chain(body_t *b, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (int k = 0; k < 4; k++)
            b[i].x = 0.5 * (b[i].x + b[i - 1].x) + 0.25 * b[i - 1].vy;
}

static void shift(struct particle *p, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            p[i].pos[k] = p[i].pos[k] * p[i].w + 1.0f;
}

int main(void)
{
    size_t n = 400;
    body_t *b = malloc(n * sizeof *b);
    accel_t a = {n, malloc(n * sizeof(double)), malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    for (size_t i = 0; i < n; i++) {
        b[i].x = (double)(i % 7);
        b[i].y = (double)(i % 11) * 0.5;
        b[i].z = (double)(i % 13) * 0.25;
        b[i].vx = b[i].vy = b[i].vz = 0.0;
        b[i].m = 1.0 + (double)(i % 3);
    }
    accel(b, n, &a, 0.01);
    kick(b, &a, 0.1);
    chain(b, n);
    struct particle p[300];
    for (int i = 0; i < 300; i++) {
        p[i].pos[0] = (float)i;
        p[i].pos[1] = (float)i * 0.5f;
        p[i].pos[2] = 1.0f;
        p[i].id = i;
        p[i].w = 0.5f;
    }
    shift(p, 300);
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += b[i].x + 2.0 * b[i].vx + 3.0 * b[i].vy + 5.0 * b[i].vz;
    for (int i = 0; i < 300; i++)
        s += p[i].pos[0] + p[i].pos[1] * 2.0f + p[i].pos[2] * 3.0f;
    printf("%.17g\n", s);
    return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_arrays_of_structs_compute_what_gcc_computes(tmp_path, target):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "aos.c"
    path.write_text(AOS)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
    for function in ("accel", "kick", "chain", "shift"):
        assert any("SCoP at" in ln for ln in _report(result, function)), (function, result.report)
    assert "b_as_double[" in result.source and "p_as_float[" in result.source
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    assert out == ref


def test_members_of_several_types_keep_an_array_of_structs_as_it_is(tmp_path):
    program = """
        struct item { double v; int count; };
        void f(struct item *it, int n, double *out) {
            for (int i = 0; i < n; i++)
                out[i] = it[i].v * it[i].count;
        }
    """
    scops, whats = _obstacles(tmp_path, program)
    assert scops == 0 and any("not all numbers of one type" in w for w in whats), whats
    # one type read: the others are only in the layout
    scops, whats = _obstacles(tmp_path, program.replace(" * it[i].count", ""))
    assert scops == 1, whats


def test_a_layout_s2s_gets_wrong_is_a_compile_error_and_s2s_cc_falls_back(tmp_path):
    """A packed struct: s2s assumes natural alignment, the compile-time check of the layout
    fails, and s2s-cc compiles the user's file as it is."""
    from c_build import REAL_CC, compile_c, run_program, s2s_cc_path, s2s_env

    src = tmp_path / "packed.c"
    src.write_text(textwrap.dedent(r"""
        #include <stdio.h>
        #pragma pack(push, 1)
        struct rec { char tag; double a, b; };
        #pragma pack(pop)
        static void blend(struct rec *r, int n) {
            for (int i = 0; i < n; i++)
                r[i].b = 0.5 * r[i].a + 0.25 * r[i].b;
        }
        int main(void) {
            static struct rec r[5000];
            for (int i = 0; i < 5000; i++) { r[i].tag = 'x'; r[i].a = i % 9; r[i].b = i % 4; }
            blend(r, 5000);
            double s = 0.0;
            for (int i = 0; i < 5000; i++) s += r[i].b * (i % 3 + 1);
            printf("%.17g %zu\n", s, sizeof(struct rec));
            return 0;
        }
    """))
    built = compile_c(s2s_cc_path(), ["-O2", src.name, "-o", "opt"], tmp_path,
                      env=s2s_env(mode="pluto", S2S_PROFITABILITY="off"))
    assert built.returncode == 0, built.stderr
    assert "s2s-cc" in built.stderr and "packed.c" in built.stderr   # (the fallback, said once)
    assert compile_c(REAL_CC, ["-O2", src.name, "-o", "ref"], tmp_path).returncode == 0
    assert run_program(tmp_path / "opt", tmp_path).stdout == run_program(tmp_path / "ref", tmp_path).stdout


def test_a_struct_pointer_declared_in_the_loop_is_not_read_before_it(tmp_path):
    program = """
        struct entry { char word[24]; int count; };
        int f(struct entry *table, int n) {
            int total = 0;
            for (int k = 0; k < n; k++) {
                struct entry *e = &table[k];
                for (int c = 0; c < (int)sizeof e->word; c++)
                    total += e->word[c];
            }
            return total;
        }
    """
    src = tmp_path / "m.c"
    src.write_text(textwrap.dedent(program))
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    result = optimize_c_file(str(src), [], PipelineOptions(mode="identity"))
    assert "e_word" not in result.source


def test_an_address_of_a_member_is_no_dereference(tmp_path):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    src = tmp_path / "m.c"
    src.write_text(textwrap.dedent("""
        struct g { int n; double *u; };
        int *g_count;
        void f(int n, struct g *s, double *out) {
            g_count = &s->n;
            for (int i = 0; i < n; i++)
                out[i] = s->u[i];
        }
    """))
    result = optimize_c_file(str(src), [], PipelineOptions(mode="identity"))
    assert re.search(r"double \*s_u = .*< *n\)* *\?", result.source), result.source


def test_a_loop_under_the_users_pragma_keeps_it(tmp_path):
    """``#pragma omp parallel for`` applies to the statement after it: a block of hoisted
    declarations there would not compile."""
    program = r"""
        #include <stdio.h>
        typedef struct { double x, v; } body_t;
        struct g { int n; double *u; };
        static void drift(body_t *b, long n, double dt) {
        #pragma omp parallel for
            for (long i = 0; i < n; i++)
                b[i].x += dt * b[i].v;
        }
        static void scale(struct g *s) {
        #pragma omp parallel for
            for (int i = 0; i < s->n; i++)
                s->u[i] *= 2.0;
        }
        int main(void) {
            static body_t b[20000];
            static double u[20000];
            for (int i = 0; i < 20000; i++) { b[i].x = i % 5; b[i].v = i % 3; u[i] = i % 7; }
            drift(b, 20000, 0.5);
            struct g s = {20000, u};
            scale(&s);
            double t = 0.0;
            for (int i = 0; i < 20000; i++) t += b[i].x * (i % 4) + u[i];
            printf("%.17g\n", t);
            return 0;
        }
    """
    result, ref, out = optimized_and_both_outputs(tmp_path / "pragma.c", textwrap.dedent(program), "openmp")
    assert "b_as_double" not in result.source and "s_u" not in result.source
    assert out == ref


def test_a_member_first_read_in_an_inner_loop_is_read_under_every_loops_entry(tmp_path):
    """``dst->px`` is read only inside the loops over x and c: the local is read where all of
    them are entered (``r < h - r && 0 < w && 0 < 3``), so that a call with no columns and no
    image faults nowhere."""
    program = r"""
        #include <stdio.h>
        #include <stdlib.h>
        typedef struct { int w, h; float *px; } image_t;
        static void blur_cols(const image_t *src, image_t *dst, const float *k, int r)
        {
            const int w = src->w, h = src->h;
            for (int y = r; y < h - r; y++)
                for (int x = 0; x < w; x++)
                    for (int c = 0; c < 3; c++) {
                        float s = 0.0f;
                        for (int i = -r; i <= r; i++)
                            s += k[i + r] * src->px[((y + i) * w + x) * 3 + c];
                        dst->px[(y * w + x) * 3 + c] = s;
                    }
        }
        int main(void)
        {
            float k[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
            image_t empty = {0, 50, NULL};
            blur_cols(&empty, NULL, k, 2);
            image_t a = {60, 50, malloc(60 * 50 * 3 * sizeof(float))}, b = {60, 50, calloc(60 * 50 * 3, sizeof(float))};
            for (int q = 0; q < 60 * 50 * 3; q++)
                a.px[q] = (float)(q % 17);
            blur_cols(&a, &b, k, 2);
            double s = 0.0;
            for (int q = 0; q < 60 * 50 * 3; q++)
                s += b.px[q] * (q % 5 + 1);
            printf("%.17g\n", s);
            return 0;
        }
    """
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "cols.c"
    path.write_text(textwrap.dedent(program))
    result = optimize_c_file(str(path), [], PipelineOptions(mode="identity"))   # (the nest as the IR has it)
    assert re.search(r"float \*dst_px = .*< *w.*\? *\(*dst->px", result.source), result.source
    ref, out = outputs_of_both_builds(path, result.source, openmp=False)
    assert out == ref


def _random_members(seed: int) -> str:
    """A stencil over a grid held in a struct (``g->a``, ``g->b``, ``g->m`` read through the
    pointer), with reads and writes of an array of structs along the way, the grid's two arrays
    one buffer apart, overlapping or the same; a main that prints everything."""
    import random

    r = random.Random(seed)
    n, m = r.randint(3, 24), r.randint(3, 24)
    fields = "xyz"
    terms = [f"{r.choice(['0.5', '0.25', '1.5', '-0.75'])} * g->a[(i + {r.randint(-1, 1)}) * g->m + j + {r.randint(-1, 1)}]"
             for _ in range(r.randint(1, 4))]
    if r.random() < 0.5:
        terms.append(f"p[i].{r.choice(fields)} * p[j].{r.choice(fields)}")
    body = [f"            g->b[i * g->m + j] = {' + '.join(terms)};"]
    after = []
    if r.random() < 0.7:
        after.append(f"        p[i].{r.choice(fields)} = 0.5 * p[i - 1].{r.choice(fields)} + g->b[i * g->m + 1];")
    if r.random() < 0.4:
        after.append(f"        p[i + 1].{r.choice(fields)} += g->a[i * g->m];")
    offset = r.choice(["0", "1", "g.m", "n * m", "n * m + 3", "-1"])
    return f"""#include <stdio.h>
#include <stdlib.h>
typedef struct {{ int n, m; double *a, *b; }} grid_t;
typedef struct {{ double x, y, z; }} p3_t;
static void kernel(grid_t *g, p3_t *p)
{{
    for (int i = 1; i < g->n - 1; i++) {{
        for (int j = 1; j < g->m - 1; j++)
{chr(10).join(body)}
{chr(10).join(after)}
    }}
}}
int main(void)
{{
    int n = {n}, m = {m};
    double *buf = malloc((size_t)(3 * n * m + 8) * sizeof(double));
    p3_t *p = malloc((size_t)(n + m + 2) * sizeof(p3_t));
    for (int k = 0; k < 3 * n * m + 8; k++) buf[k] = (double)((k * 7) % 13) - 4.0;
    for (int k = 0; k < n + m + 2; k++) {{ p[k].x = k % 3; p[k].y = 0.5 * (k % 5); p[k].z = -(double)(k % 2); }}
    grid_t g = {{n, m, buf + 2, buf + 2}};
    g.b = g.a + ({offset});
    kernel(&g, p);
    grid_t none = {{0, m, NULL, NULL}};
    kernel(&none, NULL);
    for (int k = 0; k < 3 * n * m + 8; k++) printf("%.17g\\n", buf[k]);
    for (int k = 0; k < n + m + 2; k++) printf("%.17g %.17g %.17g\\n", p[k].x, p[k].y, p[k].z);
    return 0;
}}
"""


@pytest.mark.parametrize("seed", range(6))
def test_random_struct_stencils_print_what_gcc_prints(tmp_path, seed):
    """Every SCoP rewritten, gain or not; C and OpenMP."""
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "r.c"
    path.write_text(_random_members(seed))
    for target in ("c", "openmp"):
        result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
        assert any("kernel: SCoP at" in ln for ln in result.report), result.report
        ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
        assert out == ref, (seed, target)


def test_a_loop_variable_named_like_a_member_leaves_the_member_alone(tmp_path):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    src = tmp_path / "m.c"
    src.write_text(textwrap.dedent("""
        struct g { int m; double *u; };
        void f(const struct g *t, struct g *s, double *out) {
            for (int m = 0; m < t->m; m++)
                out[m] = s->u[m];
        }
    """))
    result = optimize_c_file(str(src), [], PipelineOptions(mode="identity"))
    assert re.search(r"double \*s_u = .*< *t->m\)* *\?", result.source), result.source
