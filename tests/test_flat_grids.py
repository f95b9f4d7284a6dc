"""Flat grids (s2s/analysis/flat_grids.py): ``u[(k * ny + j) * nx + i]`` is modelled as
``u[k][j][i]`` where ``0 <= j < ny`` and ``0 <= i < nx`` on every access, so that the loops of
a 3-D grid in one buffer form SCoPs; built programs print what gcc's builds print, whether
the grids passed are apart, overlapping or the same buffer."""
from __future__ import annotations

import random
import textwrap

import pytest

from c_build import outputs_of_both_builds
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.analysis.channels import polynomial
from s2s.analysis.flat_grids import GridLayout, grid_layout
from s2s.ir.expr_parse import parse_expr

PARAMS = ("nx", "ny", "nz")


def _layout(*texts: str) -> GridLayout | None:
    return grid_layout([parse_expr(t) for t in texts], PARAMS)


def test_nested_and_expanded_subscripts_split_alike():
    layout = _layout("(k * ny + j) * nx + i")
    assert layout == GridLayout(("ny", "nx"))
    for text in ["(k * ny + j) * nx + i", "k * ny * nx + j * nx + i", "i + nx * (j + ny * k)"]:
        assert [polynomial(e) for e in layout.split(parse_expr(text))] == [{("k",): 1}, {("j",): 1}, {("i",): 1}]
    below = layout.split(parse_expr("((k - 1) * ny + j + 1) * nx + i - 2"))
    assert [polynomial(e) for e in below] == [{("k",): 1, (): -1}, {("j",): 1, (): 1}, {("i",): 1, (): -2}]
    assert polynomial(layout.address([parse_expr("k"), parse_expr("j"), parse_expr("i")])) == polynomial(
        parse_expr("k * ny * nx + j * nx + i"))


def test_the_inner_extent_is_read_from_another_subscript():
    # expanded, ``k * ny * nx`` alone does not say which extent is the inner one; as written, the
    # last factor is; ``j * nx`` in another subscript says it too
    assert _layout("k * ny * nx + i") == GridLayout(("ny", "nx"))
    assert _layout("k * nx * ny + i") == GridLayout(("nx", "ny"))
    layout = _layout("nx * ny * k + i", "k * ny * nx + j * nx + i")
    assert [polynomial(e) for e in layout.split(parse_expr("k * ny * nx + i"))] == [{("k",): 1}, {}, {("i",): 1}]


def test_a_boundary_plane_reads_its_extents_as_written():
    # ``IDX(i, 0, k)`` expands to ``k * ny * nx + i``: the macro's nesting says which extent is inner
    assert _layout("((k) * ny + (0)) * nx + (i)") == GridLayout(("ny", "nx"))
    layout = GridLayout(("ny", "nx"))
    last_row = parse_expr("(k * ny + ny - 1) * nx + i")
    # read as a step of k (k + 1, j = -1), or as the last row (k, j = ny - 1)
    assert [polynomial(e) for e in layout.split(last_row)] == [{("k",): 1, (): 1}, {(): -1}, {("i",): 1}]
    assert [polynomial(e) for e in layout.split(last_row, frozenset({"ny"}))] == [
        {("k",): 1}, {("ny",): 1, (): -1}, {("i",): 1}]


@pytest.mark.parametrize("texts", [["i * nx + j"], ["(k * ny + j) * nx + i", "(k * nx + j) * ny + i"],
                                   ["(k * ny + j * j) * nx + i"], ["k * ny * nx + j * nz + i"], ["(k * ny + j) * nx / 2"]])
def test_other_subscripts_are_not_grids(texts):
    assert _layout(*texts) is None


PROGRAM = """
void f(int nx, int ny, int nz, const double *u, double *v) {
  for (int k = 1; k < nz - 1; k++)
    for (int j = 1; j < ny - 1; j++)
      for (int i = 1; i < nx - 1; i++)
        v[(k * ny + j) * nx + i] = u[((k - 1) * ny + j) * nx + i] + u[(k * ny + j + 1) * nx + i - 1];
}
"""


def test_the_grid_loops_are_a_scop(tmp_path):
    src = tmp_path / "g.c"
    src.write_text(PROGRAM)
    unit, _ = lift_c_file(str(src))
    obstacles: list = []
    (scop,) = find_scops(unit.functions[0], obstacles)
    assert scop.grids == {"u": GridLayout(("ny", "nx")), "v": GridLayout(("ny", "nx"))} and not obstacles
    # an index that passes its row reaches the next row's first element: no model
    src.write_text(PROGRAM.replace("+ i - 1]", "+ i + 1 + nx]"))
    unit, _ = lift_c_file(str(src))
    obstacles = []
    assert not find_scops(unit.functions[0], obstacles)
    assert any("cannot delinearize" in o.what for o in obstacles)


def _random_program(seed: int) -> str:
    """A time loop of two sweeps over 3-D grids in one buffer (apart, overlapping or the same),
    subscripts nested or expanded, neighbours along every axis."""
    r = random.Random(seed)
    nx, ny, nz = r.randint(3, 9), r.randint(3, 8), r.randint(3, 7)

    def at(dk: int, dj: int, di: int) -> str:
        if r.random() < 0.5:
            return f"((k + {dk}) * ny + j + {dj}) * nx + i + {di}"
        return f"(k + {dk}) * ny * nx + (j + {dj}) * nx + i + {di}"

    near = [(0, 0, 0), (-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)]
    terms = " + ".join(f"{r.choice(['0.5', '0.25', '-1.0', '2.0'])} * u[{at(*d)}]"
                       for d in r.sample(near, r.randint(2, 5)))
    offset = r.choice(["0", "1", "nx", "nx * ny", "n * 2", "-3"])
    return textwrap.dedent(f"""\
        #include <stdio.h>
        #include <stdlib.h>
        static void sweep(int nx, int ny, int nz, const double *u, double *v)
        {{
            for (int k = 1; k < nz - 1; k++)
                for (int j = 1; j < ny - 1; j++)
                    for (int i = 1; i < nx - 1; i++)
                        v[{at(0, 0, 0)}] = {terms};
        }}
        static void steps(int nx, int ny, int nz, int t, double *a, double *b)
        {{
            for (int s = 0; s < t; s++) {{
                sweep(nx, ny, nz, a, b);
                sweep(nx, ny, nz, b, a);
            }}
        }}
        int main(void)
        {{
            int nx = {nx}, ny = {ny}, nz = {nz}, n = nx * ny * nz;
            double *buf = malloc(sizeof(double) * (size_t)(n * 5 + 8));
            for (int q = 0; q < n * 5 + 8; q++) buf[q] = (double)((q * 7) % 13) - 6.0;
            double *a = buf + 4;
            steps(nx, ny, nz, 3, a, a + n * 3 + ({offset}));
            sweep(nx, ny, nz, a + ({offset}), a);
            for (int q = 0; q < n * 5 + 8; q++) printf("%.17g\\n", buf[q]);
            return 0;
        }}
    """)


@pytest.mark.parametrize("seed", range(6))
def test_random_grid_sweeps_print_what_gcc_prints(tmp_path, seed):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "p.c"
    path.write_text(_random_program(seed))
    for target in ("c", "openmp"):
        result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
        assert any("SCoP at" in ln and "optimized" in ln for ln in result.report), result.report
        ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
        assert out == ref, (seed, target)


BOUNDARIES = """\
#include <stdio.h>
#include <stdlib.h>
#define IDX(i, j, k) (((k) * ny + (j)) * nx + (i))
static void steps(int nx, int ny, int nz, int t, double *u, double *v)
{
    for (int s = 0; s < t; s++) {
        for (int k = 0; k < nz; k++)
            for (int i = 0; i < nx; i++) {
                u[IDX(i, 0, k)] = u[IDX(i, 1, k)];
                u[(k * ny + ny - 1) * nx + i] = u[IDX(i, ny - 2, k)];
            }
        for (int k = 1; k < nz - 1; k++)
            for (int j = 1; j < ny - 1; j++)
                for (int i = 1; i < nx - 1; i++)
                    v[IDX(i, j, k)] = 0.25 * (u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)] + u[IDX(i, j - 1, k)]
                                      + u[IDX(i, j + 1, k)]) + 0.5 * u[IDX(i, j, k - 1)] - 0.5 * u[IDX(i, j, k + 1)];
        for (int k = 1; k < nz - 1; k++)
            for (int j = 1; j < ny - 1; j++)
                for (int i = 1; i < nx - 1; i++)
                    u[IDX(i, j, k)] = v[IDX(i, j, k)];
    }
}
int main(void)
{
    int nx = 23, ny = 19, nz = 17, n = nx * ny * nz;
    double *u = malloc(n * sizeof *u), *v = calloc(n, sizeof *v);
    for (int q = 0; q < n; q++) u[q] = (q * 7 % 13) / 13.0;
    steps(nx, ny, nz, 4, u, v);
    for (int q = 0; q < n; q++) printf("%.17g\\n", u[q]);
    return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_boundary_rows_and_the_sweep_are_one_scop(tmp_path, target):
    """The time loop holds copies into the boundary rows (``j = 0`` and ``j = ny - 1``) and the
    sweep: one SCoP, tiled, beside gcc's build."""
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "b.c"
    path.write_text(BOUNDARIES)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
    line = next(ln for ln in result.report if "steps: SCoP at" in ln)
    assert "4 statements" in line and "optimized" in line, line
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    assert out == ref


def test_one_sweep_over_a_grid_streams_untiled(tmp_path):
    """Its reuse is between neighbouring planes, which the cache holds as it streams: tiles
    would only cut its rows short. A time loop around it in the SCoP is what tiles are for."""
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    src = tmp_path / "g.c"
    src.write_text(PROGRAM)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target="openmp"))
    assert any("untiled: a sweep over a grid" in ln for ln in result.report), result.report
    src.write_text(PROGRAM.replace("void f(int nx", "void f(int t, int nx").replace(
        "  for (int k", "  for (int s = 0; s < t; s++)\n  for (int k").replace("u[((k - 1)", "v[((k - 1)"))
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target="c", profitability=False))
    assert not any("a sweep over a grid" in ln for ln in result.report), result.report
    assert any("tiles " in ln for ln in result.report), result.report
