"""Tiles only where the sizes met at run time need them (s2s/transforms/footprint_test.py): a band
tiled for want of its sizes runs tiled where its untiled footprint leaves the cache, the user's
loops elsewhere; both branches compute what gcc's build does."""
from __future__ import annotations

from c_build import optimized_and_both_outputs

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


def test_tiles_of_unknown_extent_run_where_the_data_leave_the_cache(tmp_path):
    """Under OpenMP: the parallel tiles where the data leave the cache, the user's loops
    elsewhere."""
    result, ref, out = optimized_and_both_outputs(tmp_path / "box.c", PROGRAM, "openmp")
    (line,) = [ln for ln in result.report if ": box_rows: " in ln and "recipe" not in ln]
    assert "optimized" in line and "tiles only where the data of their loops leave the cache" in line, line
    assert "524288.0" in result.source   # (the test, against the default cache budget)
    assert out == ref


def test_on_one_thread_accumulators_stay_in_registers(tmp_path):
    """The filter's sum, forwarded to memory, would be tiled only for want of the sizes: the
    user's loops stay."""
    result, ref, out = optimized_and_both_outputs(tmp_path / "box.c", PROGRAM, "c")
    (line,) = [ln for ln in result.report if ": box_rows: " in ln and "recipe" not in ln]
    assert "left as is" in line and "accumulators in memory instead of registers" in line, line
    assert out == ref
