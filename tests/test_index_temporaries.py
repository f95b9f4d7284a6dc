"""Index temporaries (frontends/c/index_temporaries.py): an element's offset kept in an integer
local (``const long c = k * sz + j * sy + i;``) and strides kept in locals made before the loops
(``const long sz = (long)nx * ny;``) are read through their values, so that a grid's loops form
SCoPs; where a value may change, they are not; built programs print what gcc's builds print."""
from __future__ import annotations

import textwrap

import pytest

from c_build import outputs_of_both_builds
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.analysis.flat_grids import GridLayout

SWEEP = """
void lap(int nx, int ny, int nz, const double *u, double *v)
{
    const int sy = nx;
    const long sz = (long)nx * ny;
    for (int k = 1; k < nz - 1; k++)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++) {
                const long c = k * sz + j * sy + i;
                v[c] = u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz] - 6.0 * u[c];
            }
}
"""


def _scops(tmp_path, text: str):
    src = tmp_path / "t.c"
    src.write_text(text)
    unit, _ = lift_c_file(str(src))
    obstacles: list = []
    return find_scops(unit.functions[0], obstacles), obstacles


def test_strides_and_offsets_read_through_their_values(tmp_path):
    (scop,), obstacles = _scops(tmp_path, SWEEP)
    assert not obstacles
    assert scop.grids == {"u": GridLayout(("ny", "nx")), "v": GridLayout(("ny", "nx"))}


@pytest.mark.parametrize("change", [
    "    nx = nx + 0;\n",   # the stride's factor is written after it
    "    int *p = &ny;\n",  # its address is taken
])
def test_values_that_may_change_are_not_read_through(tmp_path, change):
    text = SWEEP.replace("    for (int k", change + "    for (int k", 1)
    scops, obstacles = _scops(tmp_path, text)
    assert not any(s.grids for s in scops)


def test_an_offset_read_as_a_value_is_kept(tmp_path):
    text = SWEEP.replace("- 6.0 * u[c];", "- 6.0 * u[c] + (double)c;")
    scops, obstacles = _scops(tmp_path, text)
    assert not scops and any("written inside the loops" in o.what for o in obstacles)


PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>
static void smooth(int nx, int ny, int nz, const double *u, double *v)
{{
    const int sy = nx;
    const long sz = (long)sy * ny;
    for (int k = 1; k < nz - 1; k++)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++) {{
                const long c = k * sz + j * sy + i;
                const long up = c + {up};
                v[c] = 0.5 * u[c] + 0.25 * (u[c - 1] + u[up]) - 0.125 * u[c - sz];
            }}
}}
int main(void)
{{
    int nx = {nx}, ny = {ny}, nz = {nz}, n = nx * ny * nz;
    double *buf = malloc(sizeof(double) * (size_t)(3 * n + 8));
    for (int q = 0; q < 3 * n + 8; q++) buf[q] = (double)((q * 7) % 11) - 5.0;
    double *a = buf + 4;
    smooth(nx, ny, nz, a, a + n + ({offset}));
    smooth(nx, ny, nz, a + ({offset}), a);
    for (int q = 0; q < 3 * n + 8; q++) printf("%.17g\\n", buf[q]);
    return 0;
}}
"""


@pytest.mark.parametrize("up, nx, ny, nz, offset", [("sy", 7, 5, 6, "0"), ("sz", 6, 4, 5, "1"),
                                                      ("sy + sz", 5, 6, 4, "-3"), ("1", 8, 3, 5, "nx")])
def test_sweeps_through_index_temporaries_print_what_gcc_prints(tmp_path, up, nx, ny, nz, offset):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "p.c"
    path.write_text(textwrap.dedent(PROGRAM.format(up=up, nx=nx, ny=ny, nz=nz, offset=offset)))
    for target in ("c", "openmp"):
        result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
        assert any("smooth: SCoP at" in ln and "optimized" in ln for ln in result.report), result.report
        ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
        assert out == ref, (up, target)


def _random_program(seed: int) -> str:
    """Sweeps over a 3-D grid whose points are read through an offset kept in a local and
    strides kept in locals (some derived from others), over buffers apart, overlapping or the
    same, with neighbours along every axis."""
    import random

    r = random.Random(seed)
    nx, ny, nz = r.randint(3, 9), r.randint(3, 8), r.randint(3, 7)
    strides = r.choice(["const int sy = nx;\n    const long sz = (long)sy * ny;",
                        "const long sy = nx, sz = (long)nx * ny;",
                        "const long sz = (long)ny * nx;\n    const int sy = nx;"])
    near = ["c", "c - 1", "c + 1", "c - sy", "c + sy", "c - sz", "c + sz", "c + sy + 1"]
    terms = " + ".join(f"{r.choice(['0.5', '0.25', '-1.0', '2.0'])} * u[{t}]" for t in r.sample(near, r.randint(2, 5)))
    offset = r.choice(["0", "1", "nx", "nx * ny", "n * 2", "-3"])
    return textwrap.dedent(f"""\
        #include <stdio.h>
        #include <stdlib.h>
        static void sweep(int nx, int ny, int nz, const double *u, double *v)
        {{
            {strides}
            for (int k = 1; k < nz - 1; k++)
                for (int j = 1; j < ny - 1; j++)
                    for (int i = 1; i < nx - 1; i++) {{
                        const long c = k * sz + j * sy + i;
                        v[c] = {terms};
                    }}
        }}
        int main(void)
        {{
            int nx = {nx}, ny = {ny}, nz = {nz}, n = nx * ny * nz;
            double *buf = malloc(sizeof(double) * (size_t)(n * 5 + 8));
            for (int q = 0; q < n * 5 + 8; q++) buf[q] = (double)((q * 7) % 13) - 6.0;
            double *a = buf + 4;
            for (int s = 0; s < 3; s++) {{
                sweep(nx, ny, nz, a, a + n * 3 + ({offset}));
                sweep(nx, ny, nz, a + n * 3 + ({offset}), a);
            }}
            sweep(nx, ny, nz, a + ({offset}), a);
            for (int q = 0; q < n * 5 + 8; q++) printf("%.17g\\n", buf[q]);
            return 0;
        }}
    """)


@pytest.mark.parametrize("seed", range(6))
def test_random_sweeps_through_offsets_print_what_gcc_prints(tmp_path, seed):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "p.c"
    path.write_text(_random_program(seed))
    for target in ("c", "openmp"):
        result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
        assert any("sweep: SCoP at" in ln and "optimized" in ln for ln in result.report), result.report
        ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
        assert out == ref, (seed, target)


ROWS = """\
#include <stdio.h>
static void smooth(int nx, int ny, const double *u, double *v)
{
    for (int j = 1; j < ny - 1; j++) {
        int row = j * nx;
        for (int i = 1; i < nx - 1; i++)
            v[row + i] = u[row + i - nx] + 0.5 * u[row + i + nx] - u[row + i - 1];
    }
}
int main(void)
{
    static double g[4000];
    for (int q = 0; q < 4000; q++) g[q] = (q * 7) % 11 - 5.0;
    smooth(37, 29, g, g + 37 * 29 + 3);
    smooth(37, 29, g + 1, g);
    for (int q = 0; q < 4000; q++) printf("%.17g\\n", g[q]);
    return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_a_row_offset_kept_in_the_outer_loop(tmp_path, target):
    """``int row = j * nx;`` before the loop over a row, read as ``(int)(j * nx)``: the 2-D
    reading of ``v[row + i]`` sees through the conversion."""
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "r.c"
    path.write_text(ROWS)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
    assert any("smooth: SCoP at" in ln and "optimized" in ln for ln in result.report), result.report
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    assert out == ref
