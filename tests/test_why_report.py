"""Why a loop nest was not optimized: the first construct that kept it out of every SCoP, with its
file:line:column, in s2s-cc's report; a build's report file written by many processes at once;
and ``s2s analyze --why`` summing it up."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from c_build import without_settings
from frontends.c import lift_c_file
from s2s.analysis.scop import find_scops
from s2s.driver.why_report import LEFT_AS_IS, NOT_A_SCOP, OPTIMIZED, parse_report, reason_class

S2S_CC = Path(sys.executable).with_name("s2s-cc")
S2S = Path(sys.executable).with_name("s2s")

PROGRAM = """#include <math.h>
#include <stdio.h>
struct particle { double x; int v; };
int step_of(int);

void kernels(int n, double *a, struct particle *p, const int *idx, double s[n], double B[n][n]) {
  for (int i = 0; i < n; i++)
    a[idx[i]] += 1.0;
  for (int i = 0; i < n; i++)
    p[i].x += p[i].v;
  int k = 0;
  while (k < n) { k++; a[k - 1] = 0; }
  for (int i = 0; i < n; i++)
    printf("%g\\n", a[i]);
  for (int i = 0; i < n; i++) {
    if (a[i] > 0) break;
    s[i] = sqrt(a[i]);
  }
  for (int i = 0; i < n; i += step_of(i))
    s[i] = 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i * i; j++)
      s[j] += 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[j][i] = 2 * B[i][j];
}

size_t count(const char *text, size_t n, char c) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) { if (*text++ == c) m++; }
  return m;
}
"""

# the loop nest's first line -> (what stopped it, where: line:column)
EXPECTED = {
    7: ("array a with a data-dependent subscript", "8:5"),
    9: ("code s2s does not model: struct member p[...].x: its members read in the loop are not all numbers of one "
        "type at whole offsets", "10:5"),
    12: ("while loop (not a counted for loop)", "12:3"),
    13: ("call printf that may have effects", "14:5"),
    15: ("array a read in a condition", "16:5"),
    19: ("loop update of i is not a constant step", "19:3"),
    21: ("not affine: product of two variables", "21:3"),
}


@pytest.fixture
def program(tmp_path) -> Path:
    path = tmp_path / "kernels.c"
    path.write_text(PROGRAM)
    return path


def test_each_loop_nest_left_out_has_its_first_obstacle(program):
    unit, _ = lift_c_file(str(program))
    kernels = next(f for f in unit.functions if f.name == "kernels")
    obstacles = []
    scops = find_scops(kernels, obstacles)
    assert [s.first_line for s in scops] == [24]
    found = {o.nest.origin.line: (o.what, f"{o.origin.line}:{o.origin.column}") for o in obstacles}
    assert found == EXPECTED
    # an inner nest stopped by what stopped its outer nest is not reported again
    assert 22 not in found


def test_report_names_file_line_and_column(program):
    r = subprocess.run([str(S2S_CC), "-O2", "-c", program.name, "-o", "k.o"], cwd=program.parent,
                       env={**without_settings(), "S2S_CC": "cc", "S2S_REPORT": "1"},
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [ln.removeprefix("s2s-cc: report: ") for ln in r.stderr.splitlines() if "not a SCoP" in ln]
    for line, (what, at) in EXPECTED.items():
        assert any(ln.startswith(f"kernels.c:{line}: kernels: loop nest at ") and ln.endswith(f"{what} (at kernels.c:{at})")
                   for ln in lines), (line, lines)
    assert any(ln.startswith("kernels.c:31: count: ") and "pointer dereference" in ln for ln in lines)
    # in the order of the file, the SCoP's line among them
    numbers = [int(m.group(1)) for ln in r.stderr.splitlines() if (m := re.match(r"s2s-cc: report: kernels\.c:(\d+): \w+: (SCoP|loop)", ln))]
    assert numbers == sorted(numbers) and 24 in numbers


def test_a_build_appends_to_one_report_file_and_analyze_sums_it_up(tmp_path, program):
    """Sixteen compiles at once (make -j), each appending its lines in one block."""
    sources = []
    for n in range(16):
        path = tmp_path / f"k{n}.c"
        path.write_text(PROGRAM.replace("kernels(", f"kernels{n}(").replace("count(", f"count{n}("))
        sources.append(path)
    (tmp_path / "plain.c").write_text("int plain(int a) { return a + 1; }\n")
    (tmp_path / "broken.c").write_text("void broken(int n, double *a) { for (int i = 0; i < n; i++) a[i] = 0; }\n")
    report = tmp_path / "report.txt"
    env = {**without_settings(), "S2S_CC": "cc", "S2S_REPORT_FILE": str(report)}

    def compile_one(name: str, extra: dict[str, str] | None = None) -> None:
        r = subprocess.run([str(S2S_CC), "-O2", "-c", name, "-o", f"{name}.o"], cwd=tmp_path,
                           env={**env, **(extra or {})}, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        assert "report:" not in r.stderr    # the file, not stderr, unless --s2s-report too

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(compile_one, [p.name for p in sources] + ["plain.c"]))
    compile_one("broken.c", {"S2S_INJECT_FAULT": "pipeline"})

    lines = report.read_text().splitlines()
    # each process's lines stay together: a file's lines are never interleaved with another's
    files = [ln.split(":", 1)[0] for ln in lines]
    runs = [f for i, f in enumerate(files) if i == 0 or files[i - 1] != f]
    assert sorted(runs) == sorted([p.name for p in sources] + ["plain.c", "broken.c"])

    summary = parse_report(lines)
    assert summary.count(NOT_A_SCOP) == 16 * (len(EXPECTED) + 1)
    assert summary.count(LEFT_AS_IS) + summary.count(OPTIMIZED) == 16
    assert summary.files_without_loops == {"plain.c"}
    assert "injected fault" in summary.fell_back["broken.c"]

    r = subprocess.run([str(S2S), "analyze", "--why", str(report)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "18 files: 1 without a loop, 1 compiled unchanged after a failure" in r.stdout
    assert re.search(r"^\s+16\s+code s2s does not model: pointer dereference \(\*p\)$", r.stdout, re.M)
    assert re.search(r"^\s+16\s+while loop \(not a counted for loop\)$", r.stdout, re.M)
    assert "broken.c" in r.stdout.split("Files compiled unchanged")[1]
    data = json.loads(subprocess.run([str(S2S), "analyze", "--why", str(report), "--json"], capture_output=True,
                                     text=True, timeout=60, check=True).stdout)
    assert data["not_scops"] == 16 * (len(EXPECTED) + 1) and data["files_without_loops"] == ["plain.c"]

    r = subprocess.run([str(S2S), "analyze", "--why"], capture_output=True, text=True, timeout=60,
                       env={**without_settings(), "S2S_REPORT_FILE": str(report)})
    assert r.returncode == 0 and "loop nests:" in r.stdout


def test_analyze_why_without_a_report_is_a_clear_error(tmp_path):
    r = subprocess.run([str(S2S), "analyze", "--why", str(tmp_path / "none.txt")], capture_output=True, text=True)
    assert r.returncode == 1 and "cannot read the report" in r.stderr
    r = subprocess.run([str(S2S), "analyze", "--why"], capture_output=True, text=True, env=without_settings())
    assert r.returncode == 2 and "--why needs the report file" in r.stderr


@pytest.mark.parametrize("reason,cls", [
    ("loop variable i is written in the body", "loop variable … is written in the body"),
    ("call printf that may have effects", "call … that may have effects"),
    ("array a read in a condition (at x.c:3:4)", "array … read in a condition"),
    ("loop update of k is not a constant step", "loop update of … is not a constant step"),
    ("the user's `#pragma omp parallel for` applies to the loop", "the user's … applies to the loop"),
    ("not affine: product of two variables", "not affine: product of two variables"),
])
def test_reasons_are_grouped_without_names(reason, cls):
    assert reason_class(reason) == cls
