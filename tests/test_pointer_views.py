"""Pointer views (frontends/c/pointer_views.py): a local pointer into an array, declared in a block
and only subscripted, is read through its base, so that the loops around it form one SCoP; any
other use keeps it a pointer of its own. Programs built with it compute what gcc's build does,
where the views' bases overlap too."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from c_build import optimized_and_both_outputs
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.ir import Block, walk


def _lifted(tmp_path: Path, body: str, params: str = "int w, int h, const float *in, float *out"):
    src = tmp_path / "v.c"
    src.write_text(f"void f({params}) {{\n{textwrap.indent(body, '  ')}}}\n")
    unit, _ = lift_c_file(str(src))
    (sdfg,) = unit.functions
    obstacles: list = []
    scops = find_scops(sdfg, obstacles)
    arrays = {e.data for n in walk(sdfg.body) if isinstance(n, Block) for e in n.graph.edges}
    return scops, obstacles, arrays


ROWS = """for (int y = 1; y < h - 1; y++) {
  const float *up = in + (y - 1) * w;
  const float *mid = &in[y * w];
  float *o = out + y * w;
  for (int x = 0; x < w; x++)
    o[x] = up[x] + *mid + mid[x];
}
"""


def test_row_views_are_read_through_their_base(tmp_path):
    scops, obstacles, arrays = _lifted(tmp_path, ROWS)
    assert len(scops) == 1 and scops[0].nodes[0].origin.line == 2 and not obstacles
    assert arrays == {"in", "out"}


@pytest.mark.parametrize("offset", ["g_offset", "next_row(y)", "y++"])
def test_offsets_that_may_change_unseen_or_do_more_than_read_make_no_view(tmp_path, offset):
    body = ("for (int y = 1; y < h - 1; y++) {\n  const float *up = in + " + offset + ";\n"
            "  for (int x = 0; x < w; x++)\n    out[x] = up[x];\n}\n")
    src = tmp_path / "v.c"
    src.write_text(f"int g_offset;\nint next_row(int);\nvoid f(int w, int h, const float *in, float *out) {{\n"
                   f"{textwrap.indent(body, '  ')}}}\n")
    unit, _ = lift_c_file(str(src))
    arrays = {e.data for n in walk(unit.functions[0].body) if isinstance(n, Block) for e in n.graph.edges}
    assert "up" in arrays


def test_a_store_through_a_view_of_const_stays_the_compilers_error(tmp_path):
    body = ("for (int y = 1; y < h; y++) {\n  const float *o = out + y * w;\n"
            "  for (int x = 0; x < w; x++)\n    o[x] = in[x];\n}\n")
    _, _, arrays = _lifted(tmp_path, body)
    assert "o" in arrays


def test_a_view_of_a_view_reads_the_first_ones_base(tmp_path):
    body = ("for (int y = 1; y < h; y++) {\n  float *o = out + y * w;\n  const float *up = o - w;\n"
            "  for (int x = 0; x < w; x++)\n    o[x] = up[x] + in[x];\n}\n")
    scops, obstacles, arrays = _lifted(tmp_path, body)
    assert len(scops) == 1 and not obstacles and arrays == {"in", "out"}
    # the first moved: neither is a view any more
    scops, obstacles, arrays = _lifted(tmp_path, body.replace("  for (int x", "  o++;\n  for (int x"))
    assert {"o", "up"} <= arrays


def test_a_row_of_row_pointers(tmp_path):
    body = "for (int r = 0; r < h; r++) {\n  double *x = B[r];\n  for (int k = 0; k < w; k++)\n    x[k] = 2.0 * x[k];\n}\n"
    scops, _, arrays = _lifted(tmp_path, body, "int w, int h, double **B")
    assert len(scops) == 1 and arrays == {"B"}


@pytest.mark.parametrize("change", [
    "  up++;\n",                                  # the view moves
    "  g(up);\n",                                 # the pointer itself is used
    "  w = 3;\n",                                 # its offset changes after it was made
    "  out = out + 1;\n",                         # its base changes
    "  { float *out = 0; up[0] = 0; }\n",         # its base's name is another pointer there
    "  *pw = 3;\n",                               # its offset changes through a pointer
])
def test_other_uses_keep_a_pointer_of_its_own(tmp_path, change):
    body = ("int *pw = &w;\nfor (int y = 1; y < h - 1; y++) {\n  float *up = out + (y - 1) * w;\n"
            "  for (int x = 0; x < w; x++)\n    up[x] = in[x];\n" + change + "}\n")
    scops, obstacles, arrays = _lifted(tmp_path, body)
    assert "up" in arrays and any("declaration of up" in o.what for o in obstacles)


PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void smooth(const float *in, float *out, int w, int h)
{
  for (int y = 1; y < h - 1; y++) {
    const float *up = in + (y - 1) * w;
    const float *mid = in + y * w;
    const float *dn = &in[(y + 1) * w];
    float *o = out + y * w;
    for (int x = 1; x < w - 1; x++)
      o[x] = (up[x - 1] + 2.0f * up[x] + up[x + 1] + 2.0f * mid[x - 1] + 4.0f * mid[x]
              + 2.0f * mid[x + 1] + dn[x - 1] + 2.0f * dn[x] + dn[x + 1]) * (1.0f / 16.0f);
  }
}

/* in place: each row from the one above it, through a view and a view of it */
static void sweep_down(float *a, int w, int h)
{
  for (int y = 1; y < h; y++) {
    float *o = a + y * w;
    const float *up = o - w;
    for (int x = 1; x < w; x++)
      o[x] = 0.5f * (up[x] + up[x - 1]) + 0.25f * *up;
  }
}

static void scale_rows(double **rows, int n, int m, double s)
{
  for (int r = 0; r < n; r++) {
    double *x = rows[r];
    for (int k = 0; k < m; k++)
      x[k] = s * x[k] + (double)k;
  }
}

int main(void)
{
  int w = 83, h = 57, n = 40, m = 33;
  float *a = malloc(sizeof(float) * w * h * 2), *b = calloc((size_t)w * h, sizeof(float));
  for (int i = 0; i < w * h * 2; i++)
    a[i] = (float)((i * 37) % 101) / 101.0f;
  smooth(a, b, w, h);
  smooth(a, a + w, w, h);          /* rows overlapping the input: the user's order only */
  sweep_down(a, w, h);
  double *store = malloc(sizeof(double) * n * m);
  double **rows = malloc(sizeof(double *) * n);
  for (int r = 0; r < n; r++) {
    rows[r] = store + (size_t)((r * 7) % n) * m;   /* a permutation of the rows */
    for (int k = 0; k < m; k++)
      rows[r][k] = r + 0.5 * k;
  }
  scale_rows(rows, n, m, 1.5);
  for (int i = 0; i < w * h; i += 3)
    printf("%a %a\n", b[i], a[i]);
  for (int i = 0; i < n * m; i += 5)
    printf("%a\n", store[i]);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_views_compute_what_the_loops_compute(tmp_path, target, monkeypatch):
    result, ref, out = optimized_and_both_outputs(tmp_path / "views.c", PROGRAM, target)
    lines = [ln for ln in result.report if any(f": {f}: " in ln for f in ("smooth", "scale_rows", "sweep_down"))]
    assert len(lines) == 3 and all("SCoP at" in ln for ln in lines), result.report
    assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_views_rewritten_where_no_gain_is_asked_for_compute_the_same(tmp_path, target):
    """Every SCoP rewritten, gain or not (as the fuzzer builds): the in-place sweep's
    dependences, now on one array, hold in the new order."""
    from c_build import outputs_of_both_builds
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "views.c"
    path.write_text(PROGRAM)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
    assert sum("optimized" in ln for ln in result.report if any(
        f": {f}: " in ln for f in ("smooth", "scale_rows", "sweep_down"))) == 3, result.report
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    assert out == ref


def _random_stencil(seed: int) -> str:
    """A row stencil through one to three views (of two bases a row or half a grid apart,
    overlapping or not; views of views; views of const; dereferences), and a main that prints
    the whole buffer."""
    import random

    r = random.Random(seed)
    w, h = r.randint(5, 40), r.randint(6, 30)
    decls: list[str] = []
    views: list[str] = []
    for v in range(r.randint(1, 3)):
        name = f"v{v}"
        kind = r.choice(["plus", "amp", "chain"] if views else ["plus", "amp"])
        if kind == "plus":
            decls.append(f"    const double *{name} = {r.choice('ab')} + (y + {r.randint(-1, 1)}) * w;")
        elif kind == "amp":
            decls.append(f"    const double *{name} = &{r.choice('ab')}[(y + {r.randint(-1, 1)}) * w];")
        else:
            d = r.randint(-1, 1)
            decls.append(f"    const double *{name} = {r.choice(views)} {'+' if d >= 0 else '-'} {abs(d)} * w;")
        views.append(name)
    target = r.choice(views)
    decls = [d.replace(f"const double *{target} ", f"double *{target} ") for d in decls]
    terms = [f"{r.choice(['0.5', '0.25', '1.5'])} * {r.choice(views)}[x + {r.randint(-1, 1)}]"
             if r.random() < 0.8 else f"*{r.choice(views)}" for _ in range(r.randint(1, 4))]
    body = "\n".join(decls)
    offset = r.choice(["w * h / 2", "w", "-w", "0", "2 * w + 1"])
    return f"""#include <stdio.h>
#include <stdlib.h>
static void kernel(int w, int h, double *a, double *b) {{
  for (int y = 2; y < h - 2; y++) {{
{body}
    for (int x = 1; x < w - 1; x++)
      {target}[x] = {' + '.join(terms)};
  }}
}}
int main(void) {{
  int w = {w}, h = {h};
  double *buf = malloc(sizeof(double) * w * h * 3);
  for (int i = 0; i < w * h * 3; i++) buf[i] = (i * 37 % 101) / 7.0;
  double *a = buf + w * h, *b = a + {offset};
  kernel(w, h, a, b);
  for (int i = 0; i < w * h * 3; i++) printf("%a\\n", buf[i]);
  return 0;
}}
"""


@pytest.mark.parametrize("seed", range(6))
def test_random_stencils_through_views_compute_the_same(tmp_path, seed):
    """Rewritten gain or not, in C and under OpenMP (200 more of these by hand: docs/fuzzing.md)."""
    from c_build import outputs_of_both_builds
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / f"views{seed}.c"
    path.write_text(_random_stencil(seed))
    for target in ("c", "openmp"):
        result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
        assert any(": kernel: SCoP at L" in ln and "optimized" in ln for ln in result.report), result.report
        ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
        assert out == ref
