"""``while`` loops that count are the ``for`` loops they are (frontends/c/counted_loops.py): a
SCoP, and built programs print what gcc's builds print, the counter's last value included."""
from __future__ import annotations

import textwrap

import pytest

from c_build import outputs_of_both_builds
from frontends.c import lift_c_file
from s2s.analysis import find_scops

PROGRAM = r"""
#include <stdio.h>

static int up(int n, double *x)
{
    int i = 0;
    while (i < n) {
        x[i] = 2.0 * x[i] + 1.0;
        i++;
    }
    return i;                     /* the counter's last value, after the loop */
}

static void down_by_two(int n, double *x)
{
    int i;
    i = n - 1;
    while (i >= 0) {
        x[i] += x[i / 2 * 2];
        i -= 2;
    }
}

static unsigned skipping(unsigned n, double *x)
{
    unsigned i = 0;
    while (i != n) {
        x[i] = x[i] * 0.5 + x[i + 1];
        i = i + 1;
    }
    return i;
}

/* not counted: a continue skips the step, or the body moves the counter */
static int not_counted(int n, double *x)
{
    int i = 0;
    while (i < n) {
        if (x[i] < 1.0) {
            i += 2;
            continue;
        }
        x[i] -= 1.0;
        i++;
    }
    int j = 0;
    while (j < n) {
        j += (int)x[j] % 2;
        j++;
    }
    return i + j;
}

int main(void)
{
    static double x[3000];
    for (int k = 0; k < 3000; k++) x[k] = (k * 7) % 11 * 0.5;
    int a = up(2500, x);
    down_by_two(2999, x);
    unsigned b = skipping(2000, x);
    int c = not_counted(3000, x);
    double s = 0.0;
    for (int k = 0; k < 3000; k++) s += x[k] * (k % 9 + 1);
    printf("%d %u %d %.17g\n", a, b, c, s);
    return 0;
}
"""


def test_counting_whiles_are_scops(tmp_path):
    src = tmp_path / "w.c"
    src.write_text(PROGRAM)
    unit, _ = lift_c_file(str(src))
    found = {f.name: len(find_scops(f)) for f in unit.functions}
    assert found["up"] == 1 and found["down_by_two"] == 1 and found["skipping"] == 1
    assert found["not_counted"] == 0


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_counting_whiles_rewritten_print_what_gcc_prints(tmp_path, target):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "w.c"
    path.write_text(PROGRAM)
    for mode, profitability in (("pluto", False), ("identity", True)):
        result = optimize_c_file(str(path), [], PipelineOptions(mode=mode, target=target, profitability=profitability))
        ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
        assert out == ref, (mode, result.source)


def test_a_first_value_with_effects_keeps_the_while(tmp_path):
    src = tmp_path / "w.c"
    src.write_text(textwrap.dedent("""
        int next(void);
        void f(int n, double *x) {
            int i = next();
            while (i < n) { x[i] = 0.0; i++; }
        }
    """))
    unit, _ = lift_c_file(str(src))
    assert not find_scops(unit.functions[0])
