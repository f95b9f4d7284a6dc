"""Which loop variables a SCoP leaves behind that later code reads (the optimizer keeps a SCoP as
written when one is: its loops may end at other values). Each case marks its SCoP with the line
``/* scop */`` on the line before it, and says which variables must be found live."""
from __future__ import annotations

import subprocess

import pytest

from s2s.analysis import live_loop_variables
from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from test_polyhedral import scops_of

CASES = {
    "read after the function's loops": ("""
        double f(double *a, int n) {
          int i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          return a[i - 1];
        }""", ["i"]),
    "returned": ("""
        int f(double *a, int n) {
          int i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          return i;
        }""", ["i"]),
    "reassigned by the next loop": ("""
        void f(double *a, double *b, int n) {
          int i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          b[0] = 1;
          for (i = 0; i < n; i++) b[i] += 1;
        }""", []),
    "inner loop variable, written again under a loop that may not run": ("""
        double f(double a[100][100], int n) {
          int i, j;
          double s = 0;
          /* scop */
          for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) a[i][j] = i + j;
          s = a[0][0];
          for (i = 0; i < n; i++)
            for (j = 0; j < n; j++) s += a[i][j];
          return s;
        }""", []),
    "read after a loop that may not run": ("""
        int f(double *a, int n, int m) {
          int i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          for (int k = 0; k < m; k++) i = k;
          return i;
        }""", ["i"]),
    "declared in the body of a time loop": ("""
        void f(double a[100][100], int steps) {
          int t = 0;
          while (t < steps) {
            int i, j;
            /* scop */
            for (i = 0; i < 100; i++)
              for (j = 0; j < 100; j++) a[i][j] *= 0.5;
            t++;
          }
        }""", []),
    "read by the next iteration of the loop around": ("""
        void f(double *a, int n, int steps) {
          int i = 0;
          for (int t = 0; t < steps; t++) {
            a[i % n] += 1;
            /* scop */
            for (i = 0; i < n; i++) a[i] *= 0.5;
          }
        }""", ["i"]),
    "read in the loop header around": ("""
        void f(double *a, int n) {
          int i = 0;
          while (i < n) {
            /* scop */
            for (i = 0; i < n; i++) a[i] *= 0.5;
          }
        }""", ["i"]),
    "a break leaves before the loop that writes it again": ("""
        #include <stdio.h>
        void f(double *a, double *b, int n) {
          int i, t;
          for (t = 0; t < 10; t++) {
            /* scop */
            for (i = 0; i < n; i++) a[i] += 1;
            if (a[0] > 5) break;
            for (i = 0; i < n; i++) b[i] = a[i];
          }
          printf("%d\\n", i);
        }""", ["i"]),
    "a later loop that stops early, then a return": ("""
        int f(double *a, double *b, int n) {
          int i, t;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          for (t = 0; t < 100; t++) {
            for (i = 0; i < n; i++) a[i] += b[i];
            if (a[0] > 10) break;
          }
          return t;
        }""", []),
    "a do-while that may break before writing it": ("""
        int f(double *a, int n) {
          int i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          do {
            if (a[0] > 1) break;
            i = 0;
          } while (a[1] > 2);
          return i;
        }""", ["i"]),
    "a goto after the loops": ("""
        int f(double *a, int n) {
          int i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          if (a[0] > 1) goto out;
          i = 0;
        out:
          return i;
        }""", ["i"]),
    "a break leaves, and nothing after the loop reads it": ("""
        int f(double *a, double *b, int n) {
          int i, t;
          for (t = 0; t < 10; t++) {
            /* scop */
            for (i = 0; i < n; i++) a[i] += 1;
            if (a[0] > 5) break;
            for (i = 0; i < n; i++) b[i] = a[i];
          }
          return t;
        }""", []),
    "a continue skips the write, and the next iteration reads it": ("""
        void f(double *a, double *b, int n) {
          int i = 0, t;
          for (t = 0; t < 10; t++) {
            b[i % n] += 1;
            /* scop */
            for (i = 0; i < n; i++) a[i] += 1;
            if (a[0] > 5) continue;
            i = 0;
          }
        }""", ["i"]),
    "written on one branch only": ("""
        int f(double *a, int n, int c) {
          int i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          if (c) i = 0;
          return i;
        }""", ["i"]),
    "written on both branches": ("""
        int f(double *a, int n, int c) {
          int i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          if (c) i = 0; else i = 1;
          return i;
        }""", []),
    "shadowed by an inner declaration": ("""
        int f(double *a, int n) {
          int i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          {
            int i = 3;
            a[0] = i;
          }
          return 0;
        }""", []),
    "read through a pointer": ("""
        int f(double *a, int n) {
          int i;
          int *p = &i;
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
          return *p;
        }""", ["i"]),
    "a global loop variable": ("""
        int i;
        void f(double *a, int n) {
          /* scop */
          for (i = 0; i < n; i++) a[i] = 0;
        }""", ["i"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_live_loop_variables(case, tmp_path):
    code, expected = CASES[case]
    lines = code.strip("\n").splitlines()
    marked = next(k for k, line in enumerate(lines) if "/* scop */" in line) + 2
    scops = [s for s in scops_of(tmp_path, "\n".join(lines), "f") if s.first_line == marked]
    assert len(scops) == 1, f"no SCoP starts on line {marked}"
    assert live_loop_variables(scops[0]) == expected


ADDRESS_TAKEN = """
#include <stdio.h>
static double a[300][300];
static int f(int n) {
  int i, j;
  int *p = &i;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      a[j][i] = a[j][i] * 0.5 + i;
  return *p;
}
int main(void) { printf("%d\\n", f(299)); return 0; }
"""


def test_a_loop_variable_read_through_a_pointer_keeps_its_final_value(tmp_path):
    """Interchanged loops with their own variables left ``i`` at its old value, which ``*p`` read."""
    src = tmp_path / "addr.c"
    src.write_text(ADDRESS_TAKEN)
    result = optimize_c_file(str(src), [], PipelineOptions(mode="pluto"))
    assert any("loop variable i is used after the loops" in line for line in result.report), result.report
    gen = tmp_path / "addr.opt.c"
    gen.write_text(result.source)
    outputs = []
    for c in (src, gen):
        subprocess.run(["cc", "-O1", str(c), "-o", str(c.with_suffix(".exe"))], check=True)
        outputs.append(subprocess.run([str(c.with_suffix(".exe"))], capture_output=True, text=True).stdout)
    assert outputs[0] == outputs[1] == "299\n"
