"""Interleaved arrays (s2s/analysis/channels.py): ``in[(y * w + x) * 3 + c]`` is modelled as
``in[y][x][c]`` where ``0 <= x < w`` and ``0 <= c < 3`` on every access, so that an image's
channel loops form SCoPs; built programs print what gcc's builds print."""
from __future__ import annotations

import random
import textwrap

import pytest

from c_build import outputs_of_both_builds
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.analysis.channels import polynomial, split_channels
from s2s.ir.expr_parse import parse_expr


def _split(text: str, params=("w", "h")):
    return split_channels(parse_expr(text), params)


def test_a_pixel_and_its_channel():
    s = _split("(y * w + x) * 3 + c")
    assert (s.param, s.times) == ("w", 3)
    assert polynomial(s.outer) == {("y",): 1} and polynomial(s.middle) == {("x",): 1}
    assert polynomial(s.inner) == {("c",): 1}
    s = _split("((y + i) * w + x - 1) * 4 + 2")
    assert (s.times, polynomial(s.outer), polynomial(s.middle), polynomial(s.inner)) == (
        4, {("i",): 1, ("y",): 1}, {("x",): 1, (): -1}, {(): 2})
    assert _split("3 * w * y + 3 * x + c").times == 3


@pytest.mark.parametrize("text", ["y * w + x", "(y * w + x) * 3 + c * w", "y * h * 3 + x * w * 3", "x * y * 3",
                                  "(y * w + x) / 3", "y * w * w * 3 + x"])
def test_other_subscripts_are_not_channels(text):
    assert _split(text) is None


PROGRAM = """
void f(int w, int h, const float *in, float *out) {
  for (int y = 1; y < h - 1; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < 3; c++)
        out[(y * w + x) * 3 + c] = in[((y - 1) * w + x) * 3 + c] + in[((y + 1) * w + x) * 3 + 2 - c];
}
"""


def test_the_channel_loops_are_a_scop(tmp_path):
    src = tmp_path / "c.c"
    src.write_text(PROGRAM)
    unit, _ = lift_c_file(str(src))
    obstacles: list = []
    (scop,) = find_scops(unit.functions[0], obstacles)
    assert scop.channels == {"in": 3, "out": 3} and not obstacles
    # a channel index that may pass the pixel: no model
    src.write_text(PROGRAM.replace("2 - c]", "3 - c]"))
    unit, _ = lift_c_file(str(src))
    obstacles = []
    assert not find_scops(unit.functions[0], obstacles)
    assert any("cannot delinearize" in o.what for o in obstacles)


def _random_program(seed: int) -> str:
    """Two passes over an interleaved image of 2 to 4 channels, one buffer for both (apart,
    overlapping or the same), with shifted pixels and mixed channels."""
    r = random.Random(seed)
    w, h, k = r.randint(3, 20), r.randint(3, 16), r.randint(2, 4)
    terms = [f"{r.choice(['0.5f', '0.25f', '2.0f'])} * in[((y + {r.randint(-1, 1)}) * w + x) * {k} + "
             f"{r.choice(['c', f'{k - 1} - c'])}]" for _ in range(r.randint(1, 3))]
    offset = r.choice(["0", "1", f"{k}", "w * h * 4", "-2"])
    return textwrap.dedent(f"""\
        #include <stdio.h>
        #include <stdlib.h>
        static void pass(int w, int h, const float *in, float *out)
        {{
            for (int y = 1; y < h - 1; y++)
                for (int x = 0; x < w; x++)
                    for (int c = 0; c < {k}; c++)
                        out[(y * w + x) * {k} + c] = {' + '.join(terms)};
        }}
        int main(void)
        {{
            int w = {w}, h = {h};
            float *buf = malloc(sizeof(float) * (size_t)(w * h * 10 + 8));
            for (int q = 0; q < w * h * 10 + 8; q++) buf[q] = (float)((q * 5) % 11) - 3.0f;
            float *a = buf + 4;
            pass(w, h, a, a + ({offset}));
            pass(w, h, a + ({offset}), a + w * h * 5);
            for (int q = 0; q < w * h * 10 + 8; q++) printf("%.9g\\n", buf[q]);
            return 0;
        }}
    """)


@pytest.mark.parametrize("seed", range(6))
def test_random_interleaved_passes_print_what_gcc_prints(tmp_path, seed):
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path = tmp_path / "p.c"
    path.write_text(_random_program(seed))
    for target in ("c", "openmp"):
        result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, profitability=False))
        assert any("pass: SCoP at" in ln and "optimized" in ln for ln in result.report), result.report
        ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
        assert out == ref, (seed, target)
