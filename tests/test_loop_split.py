"""An innermost loop that reaches the element it reads as invariant at one iteration only is split
there, and the pieces before and after that iteration keep the element in a local (the value
the iteration leaves in it is the one the loop after it reads)."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.ir import Binary, Const, For, Sequence, Sym
from s2s.transforms.loop_split import counted_upward, reached_only_at, split_at

# all-pairs cheapest routes between depots (a Floyd-Warshall relaxation), with a run-time count
ROUTES = r"""
#include <stdio.h>
#include <stdlib.h>
#define MAXN 300
static double cost[MAXN][MAXN];
void cheapest_routes(int n, double c[MAXN][MAXN]) {
  for (int via = 0; via < n; via++)
    for (int from = 0; from < n; from++)
      for (int to = 0; to < n; to++) {
        double through = c[from][via] + c[via][to];
        c[from][to] = through < c[from][to] ? through : c[from][to];
      }
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 157;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      cost[i][j] = i == j ? 0.0 : 1.0 + ((i * 37 + j * 11) % 97) / 8.0 - (j == i + 1 ? 0.75 : 0.0);
  cheapest_routes(n, cost);
  double sum = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      sum += cost[i][j] * (1 + (i + 3 * j) % 7);
      if ((i * n + j) % 611 == 0) printf("%d %d %a\n", i, j, cost[i][j]);
    }
  printf("%a\n", sum);
  return 0;
}
"""

# Gauss-Jordan's normalization of a row by its pivot: at j == i the pivot becomes 1, and the
# columns after it are divided by that 1 (as written; an element kept across the whole loop
# would divide them by the old pivot)
NORMALIZE = r"""
#include <stdio.h>
#define N 401
static double a[N][N];
void normalize_rows(double m[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      m[i][j] = m[i][j] / m[i][i];
}
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = (i == j ? 3.0 + i % 5 : 0.0) + ((i * 13 + j * 7) % 23) / 16.0;
  normalize_rows(a);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j += 17) printf("%a\n", a[i][j]);
  return 0;
}
"""


def _output(src: Path, exe: Path, flags: list[str], *args: str) -> str:
    subprocess.run(["cc", "-O2", *flags, str(src), "-o", str(exe), "-lm"], check=True)
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    return subprocess.run([str(exe), *args], capture_output=True, text=True, check=True, env=env).stdout


def _kernel(source: str, name: str) -> str:
    return source[source.index(f"void {name}("):source.index("int main(")]


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_routes_split_at_the_via_column(tmp_path, target):
    """The rules regenerate the relaxation for the split alone (its order kept), each piece
    keeping ``c[from][via]`` in a local; same output as gcc for sizes around the split's edges."""
    src = tmp_path / "routes.c"
    src.write_text(ROUTES)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", target=target, report=True))
    line = next(ln for ln in result.report if ": cheapest_routes: " in ln)
    assert "optimized" in line and "kept in locals" in line, line
    assert "wavefront" not in line, line
    kernel = _kernel(result.source, "cheapest_routes")
    assert len(re.findall(r"double c_r\d+ = c\[\w+\]\[\w+\];", kernel)) == 2, kernel
    gen = tmp_path / "routes.opt.c"
    gen.write_text(result.source)
    flags = ["-fopenmp"] if target == "openmp" else []
    for n in ("1", "2", "3", "157", "300"):
        assert _output(gen, tmp_path / "opt", flags, n) == _output(src, tmp_path / "ref", [], n), n


def test_pivot_changed_at_the_split_is_read_after_it(tmp_path):
    src = tmp_path / "normalize.c"
    src.write_text(NORMALIZE)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto", report=True, profitability=False))
    kernel = _kernel(result.source, "normalize_rows")
    assert len(re.findall(r"double m_r\d+ = m\[", kernel)) == 2, kernel
    gen = tmp_path / "normalize.opt.c"
    gen.write_text(result.source)
    assert _output(gen, tmp_path / "opt", []) == _output(src, tmp_path / "ref", [])


def _loop(cond: Binary, update: Binary | None = None) -> For:
    return For("L", "j", Const("0"), cond, update or Binary("+", Sym("j"), Const("1")), Sequence("S", ()),
               declares_var=True)


def test_split_point_and_pieces():
    loop = _loop(Binary("<", Sym("j"), Sym("n")))
    point = reached_only_at(loop, (Sym("i"), Sym("k")), (Sym("i"), Binary("+", Sym("j"), Const("2"))))
    assert point == Binary("-", Sym("k"), Const("2"))
    before, at, after = split_at(loop, point).children
    assert [p.init for p in (before, at, after)][0] == Const("0")
    assert all(isinstance(p.cond, Binary) and p.cond.op == "<" for p in (before, at, after))
    # two iterations apart along the loop per element: no single iteration to split at
    assert reached_only_at(loop, (Sym("k"),), (Binary("*", Const("2"), Sym("j")),)) is None


def test_only_counted_upward_loops():
    assert counted_upward(_loop(Binary("<=", Sym("j"), Sym("n")))) == Binary("+", Sym("n"), Const("1"))
    assert counted_upward(_loop(Binary(">", Sym("j"), Sym("n")), Binary("-", Sym("j"), Const("1")))) is None
    assert counted_upward(_loop(Binary("<", Sym("j"), Sym("j")))) is None
