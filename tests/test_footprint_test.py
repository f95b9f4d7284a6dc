"""Tiles only where the sizes met at run time need them (s2s/transforms/footprint_test.py): a band
tiled for want of its sizes runs tiled where its untiled footprint leaves the cache, the user's
loops elsewhere; both branches compute what gcc's build does."""
from __future__ import annotations

import pytest

from c_build import optimized_and_both_outputs
from s2s.perf.topology import read_topology
from s2s.transforms.machine_options import l1_bytes

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>

/* horizontal box filter over rows of run-time length, radius r */
static void box_rows(int w, int h, int r, const float (*in)[w], float (*out)[w])
{
    for (int y = 0; y < h; y++)
        for (int x = r; x < w - r; x++) {
            float acc = 0.0f;
            for (int i = -r; i <= r; i++)
                acc += in[y][x + i];
            out[y][x] = acc;
        }
}

static void run(int w, int h, int r)
{
    float *in = malloc((size_t)w * h * sizeof(float)), *out = calloc((size_t)w * h, sizeof(float));
    for (long k = 0; k < (long)w * h; k++)
        in[k] = (float)((k * 7) % 23);
    box_rows(w, h, r, (const float (*)[w])in, (float (*)[w])out);
    double s = 0.0;
    for (long k = 0; k < (long)w * h; k++)
        s += out[k] * (double)(k % 5 + 1);
    printf("%d %d %d %.17g\n", w, h, r, s);
    free(in);
    free(out);
}

int main(void)
{
    run(300, 40, 3);      /* a row and its taps stay in cache: the user's loops */
    run(9000, 6, 200);    /* 8 x 8600 x 401 bytes: the tiles */
    return 0;
}
"""


COVARIANCE = r"""
#include <stdio.h>
#include <stdlib.h>

/* cov[a][b] = sum over the rows of v[i][a] * v[i][b]: each sum walks down two columns */
static void covariance(long nr, long nc, const double *v, double *cov)
{
    for (long a = 0; a < nc; a++)
        for (long b = a; b < nc; b++) {
            double s = 0.0;
            for (long i = 0; i < nr; i++)
                s += v[i * nc + a] * v[i * nc + b];
            cov[a * nc + b] = s;
        }
}

static void run(int nr, int nc)
{
    double *v = malloc(sizeof(double) * (size_t)nr * nc), *cov = calloc((size_t)nc * nc, sizeof(double));
    for (long k = 0; k < (long)nr * nc; k++)
        v[k] = (double)((k * 7) % 23) - 11.0;
    covariance(nr, nc, v, cov);
    double t = 0.0;
    for (long k = 0; k < (long)nc * nc; k++)
        t += cov[k] * (double)(k % 5 + 1);
    printf("%d %d %.17g\n", nr, nc, t);
    free(v);
    free(cov);
}

int main(void)
{
    run(40, 30);      /* 40 rows: the user's loops */
    run(900, 120);    /* 900 rows of 120 doubles, two columns walked: the tiles */
    return 0;
}
"""


def test_tiles_over_forwarded_sums_run_where_the_columns_walked_leave_l1(tmp_path):
    """A covariance's sums walk down two columns of the table: tiles where the rows they walk
    and the tiles' data leave the caches, the user's loops elsewhere; both right. (With kernels,
    its flat table makes it a matrix-multiply kernel instead: tests/test_matmul.py.)"""
    for target in ("c", "openmp"):
        result, ref, out = optimized_and_both_outputs(tmp_path / f"cov_{target}.c", COVARIANCE, target, kernels=False)
        (line,) = [ln for ln in result.report if ": covariance: " in ln and "recipe" not in ln]
        assert "optimized" in line and "tiles only where the data of their loops leave the cache" in line, line
        assert f"{float(l1_bytes(read_topology()))}" in result.source   # (the column walk against this core's L1)
        assert out == ref


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_a_filters_sums_stay_in_registers(tmp_path, target):
    """The filter's sum, forwarded to memory, would be tiled only for want of the sizes: its
    taps run along a row, so the user's loops (or the SCoP without the forwarding) stay."""
    result, ref, out = optimized_and_both_outputs(tmp_path / "box.c", PROGRAM, target)
    (line,) = [ln for ln in result.report if ": box_rows: " in ln and "recipe" not in ln]
    assert "accumulated in" not in line, line
    assert out == ref
