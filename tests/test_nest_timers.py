"""Timers around the loop nests (s2s-cc --s2s-time-nests, s2s/driver/nest_timers.py): the
autotuner's builds. The program prints what it printed before; at exit it writes, per timed
statement, the ids of its SCoPs, its nanoseconds and executions to $S2S_NEST_TIMES."""
from __future__ import annotations

import os
import re
import subprocess

import pytest


# A rewritten SCoP (a transposed copy, tiled), one the user parallelized (kept, with its pragma),
# a loop with a return (not timed), all called from several threads at once in the end; the file
# sets its own feature macros before its headers, as real code does.
PROGRAM = r"""
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#define N 200
static double a[N][N], b[N][N], c[N];

void transpose(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      b[j][i] = a[i][j] * 0.5;
}

void scale(double s) {
  #pragma omp parallel for
  for (int i = 0; i < N; i++)
    c[i] = c[i] * s + 1.0;
}

int find(double x) {
  for (int i = 0; i < N; i++)
    if (c[i] > x)
      return i;
  return -1;
}

double row_sum(int i) {
  double s = 0;
  for (int j = 0; j < N; j++)
    s += b[i][j];
  return s;
}

int main(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = (i * 7 + j * 3) % 11;
  transpose();
  scale(2.0);
  scale(0.5);
  double total = 0;
  #pragma omp parallel for reduction(+:total)
  for (int i = 0; i < 4; i++)
    total += row_sum(i);
  printf("%a %d\n", total, find(1.5));
  return 0;
}
"""


def _s2s_cc() -> str:
    from s2s.fuzz.runner import s2s_cc_path

    return s2s_cc_path()


@pytest.fixture
def built(tmp_path, monkeypatch):
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0")
    src = tmp_path / "prog.c"
    src.write_text(PROGRAM)
    flags = ["-O2", "-std=c99", "-Wall", "-Werror", "-fopenmp"]
    plain = tmp_path / "plain"
    subprocess.run(["cc", *flags, str(src), "-o", str(plain)], check=True)
    timed = tmp_path / "timed"
    r = subprocess.run([_s2s_cc(), *flags, "--s2s-time-nests", "--s2s-report", str(src), "-o", str(timed)],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "compiled unchanged" not in r.stderr, r.stderr
    return src, plain, timed, r.stderr


def _run(exe, **env) -> str:
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True,
                          env={**os.environ, "OMP_NUM_THREADS": "3", **env}).stdout


def test_timed_build_prints_the_same_and_writes_its_nests(built, tmp_path):
    src, plain, timed, report = built
    times = tmp_path / "nests.txt"
    assert _run(timed) == _run(plain)
    assert not times.exists()                          # (no file named: nothing written)
    assert _run(timed, S2S_NEST_TIMES=str(times)) == _run(plain)
    rows = {line.split()[0]: line.split()[1:] for line in times.read_text().splitlines()}
    ids = dict(re.findall(r": (\w+): recipe (\S+):", report))   # function -> its SCoP's id
    # every SCoP but the one with a return inside its loop, under the id its recipe has
    assert set(ids) >= {"transpose", "scale", "row_sum", "main"} and "find" not in " ".join(rows)
    assert {ids["transpose"], ids["scale"], ids["row_sum"]} <= set(rows)
    runs = {scop: int(calls) for scop, (_, calls) in rows.items()}
    assert runs[ids["transpose"]] == 1 and runs[ids["scale"]] == 2 and runs[ids["row_sum"]] == 4
    assert all(int(ns) > 0 for ns, _ in rows.values())


def test_the_users_pragma_stays_on_its_loop(built, tmp_path):
    src, _, _, _ = built
    keep = tmp_path / "keep"
    subprocess.run([_s2s_cc(), "-O2", "-fopenmp", "--s2s-time-nests", f"--s2s-keep={keep}", "-c", str(src),
                    "-o", str(tmp_path / "prog.o")], check=True, capture_output=True)
    text = (keep / "prog.s2s.c").read_text()
    scale = text[text.index("void scale"):text.index("int find")]
    pragma = scale.index("#pragma omp parallel for")
    assert scale.index("__s2s_nest_clock()") < pragma < scale.index("for (int i = 0; i < N; i++)")
