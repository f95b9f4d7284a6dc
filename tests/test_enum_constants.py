"""Enum constants of known value are read as their numbers (frontends/c/enum_values.py), as a
``#define`` would have put them there: loops bounded by ``enum { N = 300 }`` are SCoPs. A block's
own enum hides the file's within the block only; a local or parameter of the same name hides
both; a constant of a value not known leaves its statement as written."""
from __future__ import annotations

import pytest

from c_build import optimized_and_both_outputs
from frontends.c import lift_c_file
from s2s.ir import Block, walk

PROGRAM = r"""
#include <stdio.h>
enum { N = 300, M = N - 100, K = 1 << 3, L, H = 0x10 };
enum color { RED = -2, GREEN, BLUE };
static double a[N][M], b[N][M];

static void smooth(void)
{
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < M - 1; j++)
      b[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]) + K * 0.001 + L + GREEN + H;
}
static void hidden_in_a_block(void)
{
  {
    enum { M = 7 };
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++)
        b[i][j] += a[i][j] * M;
  }
  for (int i = 0; i < N; i++)
    for (int j = M - 3; j < M; j++)
      b[i][j] -= a[i][j] * M;
}
static void parameter_named_n(int N)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      b[i][j] -= a[i][j] * BLUE;
}
static void value_not_known(void)
{
  enum { S = sizeof(double) };
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      b[i][j] += S * 0.5;
}
int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      a[i][j] = (i * 7 + j * 3) % 11 - 4.5;
  smooth(); hidden_in_a_block(); parameter_named_n(150); value_not_known();
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      s += b[i][j] * (i + j + 1);
  printf("%a\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_loops_bounded_by_enum_constants_are_optimized_and_print_what_gcc_prints(tmp_path, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "enums.c", PROGRAM, target)
    assert out == ref
    scops = {line.split(": ")[1] for line in result.report if "SCoP at" in line}
    assert {"smooth", "hidden_in_a_block", "parameter_named_n"} <= scops, result.report
    assert "value_not_known" not in scops   # (S's statement is left as written)
    if target == "openmp":
        optimized = {line.split(": ")[1] for line in result.report if "SCoP at" in line and " optimized " in line}
        assert {"smooth", "hidden_in_a_block", "parameter_named_n"} <= optimized, result.report
    assert not any("'N' is neither" in line or "'M' is neither" in line for line in result.report)


def _tasklet_texts(tmp_path, function: str) -> list[str]:
    path = tmp_path / "enums.c"
    path.write_text(PROGRAM)
    unit, _ = lift_c_file(str(path))
    (sdfg,) = [f for f in unit.functions if getattr(f, "name", None) == function]
    return [repr(t.expr) for n in walk(sdfg.body) if isinstance(n, Block) for t in n.graph.computations()]


def test_a_blocks_own_enum_hides_the_files_within_the_block_only(tmp_path):
    texts = " ".join(_tasklet_texts(tmp_path, "hidden_in_a_block"))
    assert "Const(text='7')" in texts and "Const(text='200')" in texts, texts
