"""``for`` headers with several variables, as loops of one (frontends/c/header_variables.py): the
nests become SCoPs, every program prints what gcc's build prints (one thread and OpenMP), and
headers whose second variable cannot be written in terms of the first stay as they are."""
from __future__ import annotations

import pytest
from pycparser import c_generator

from c_build import optimized_and_both_outputs
from frontends.c.header_variables import one_variable
from frontends.c.parse import parse

PROGRAM = """
#include <stdio.h>
#define N 400
double a[N], b[N], img[N][N];
{kernel}
int main(void)
{{
  for (int i = 0; i < N; i++) {{
    a[i] = (double)((i * 37) % 101) / 101.0;
    b[i] = 0.5 * (i % 9);
    for (int j = 0; j < N; j++)
      img[i][j] = (double)((i * 13 + j * 7) % 29) - 14.0;
  }}
  int last = kernel(N);
  double s = last;
  for (int i = 0; i < N; i++) {{
    s += a[i] * (i + 1) + b[i] * (i % 7);
    for (int j = 0; j < N; j++)
      s += img[i][j] * (j % 5);
  }}
  printf("%.17g\\n", s);
  return 0;
}}
"""

KERNELS = {
    "a reversed copy and an in-place flip": """
static int kernel(int n)
{
  int i, j;
  for (i = 0, j = n - 1; i < n; i++, j--)
    b[j] = 2.0 * a[i];
  for (int y = 0; y < n; y++)
    for (int x = 0, w = n - 1; x < w; x++, w--) {
      double t = img[y][x];
      img[y][x] = img[y][w];
      img[y][w] = t;
    }
  return j;
}
""",
    "a decimation with a second counter and a constant": """
static int kernel(int n)
{
  for (int k = 0, src = 0, gain = 3; k < n / 2; k++, src += 2)
    b[k] = gain * (a[src] + a[src + 1]);
  return 0;
}
""",
}


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("name", list(KERNELS))
def test_headers_of_several_variables_compute_what_gcc_computes(tmp_path, name, target):
    result, ref, out = optimized_and_both_outputs(tmp_path / "k.c", PROGRAM.format(kernel=KERNELS[name]), target)
    assert out == ref
    kernel = [line for line in result.report if ": kernel: " in line]
    assert kernel and all("SCoP at" in line for line in kernel), "\n".join(result.report)


def _one(loop_text: str, declarations: str = "int i, j; unsigned u;") -> str | None:
    ast = parse(f"void f(int n, double *a) {{ {declarations} {loop_text} }}", "t.c")
    loop = ast.ext[-1].body.block_items[-1]
    found = one_variable(loop, lambda name: name in ("i", "j"))
    return None if found is None else " ".join(c_generator.CGenerator().visit(found).split())


def test_a_second_counter_is_the_first_values_plus_the_steps():
    assert _one("for (i = 0, j = n - 1; i < n; i++, j--) a[j] = a[i];") == (
        "{ for (i = 0; i < n; i++) a[(n - 1) + (-1 * (i - 0))] = a[i]; j = (n - 1) + (-1 * (i - 0)); }")
    assert _one("for (int p = 1, q = 0, s = 2; p < n; p++, q += 3) a[q] = s;") == (
        "{ int s = 2; for (int p = 1; p < n; p++) a[0 + (3 * (p - 1))] = s; }")


@pytest.mark.parametrize("loop", [
    "for (i = 0; i < n; i++) a[i] = 0;",                      # one variable already
    "for (i = 0, u = n; i < n; i++, u--) a[u - 1] = 0;",      # an unsigned second counter
    "for (i = 0, j = 0; i < n; i++, j++) { a[j] = 0; j++; }",  # the body steps it too
    "for (i = 0, j = n; i < n; i++, j--) n--;",               # its first value changes in the loop
    "for (i = 0, j = 0; i < n; i += 2, j++) a[j] = 0;",       # the loop's variable steps by 2
    "for (i = 0, j = i + 1; i < n; i++) a[j] = 0;",           # a first value that reads the loop's
    "for (i = 0, j = 0; i < n; i++, j = j * 2) a[j] = 0;",    # not a constant step
])
def test_what_stays_as_it_is(loop):
    assert _one(loop) is None
