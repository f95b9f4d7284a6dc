"""The realistic group of ``s2s bench`` (polybench/realistic, polybench/harness/realistic.py and
hotnests.py): programs with pointers, structs and helpers, their hot loop nests and what s2s did
to each.

Fast: tiny sizes, --repeat 1, no timing asserted. The correctness check builds every program with
gcc -O0 and with s2s-cc (sequential and OpenMP targets) at a size where the optimized code runs
(above the 10^4 statement instances of s2s's run-time work test) and compares their outputs.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from polybench.harness import cli, hotnests
from polybench.harness.realistic import ROOT, load_programs
from polybench.harness.verify import compare, parse_dump

REPO = Path(__file__).resolve().parents[1]
S2S_CC = Path(sys.executable).parent / "s2s-cc"
PROGRAMS = sorted(p.stem for p in ROOT.glob("*.c"))
HAVE_GCC = shutil.which("gcc") is not None
needs_gcc = pytest.mark.skipif(not HAVE_GCC, reason="no gcc")

# sizes at which every hot nest runs more than 10^4 statement instances, in well under a second
SMALL = {"box_filter": 96, "colstats": 100, "fir": 2000, "gauss_blur": 96, "heat2d": 128, "lu_rows": 64,
         "matmul_flat": 48, "nbody": 120, "poisson3d": 30, "rgb_convert": 128, "sobel": 128,
         "threshold_mask": 128}


def test_every_program_has_a_small_size_and_hot_nests():
    assert set(SMALL) == set(PROGRAMS) and len(PROGRAMS) >= 8
    for name in PROGRAMS:
        text = (ROOT / f"{name}.c").read_text()
        nests = hotnests.hot_nests(text)
        assert nests, f"{name}.c marks no hot nest"
        assert all(text.splitlines()[n.line - 1].lstrip().startswith(("for", "while", "do")) for n in nests)
    kernels = {k.name: k for k in load_programs().kernels}
    assert all(k.standalone and k.sizes("LARGE").get("N") for k in kernels.values()), "a program without 'default N = v'"


def test_group_is_listed(capsys):
    assert cli.main(["--group", "realistic", "--list"]) == 0
    out = capsys.readouterr().out
    for name in PROGRAMS:
        assert f"  {name} " in out
    assert "programs (" in out


def test_suite_dir_is_for_polybench_only(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--group", "realistic", "--suite-dir", str(REPO)])
    assert e.value.code == 2


def test_markers_and_extents():
    text = (
        "void f(int n, double *a, double **r, unsigned char *p, const float *lut)\n"   # 1
        "{\n"                                                                           # 2
        "    /* hot */\n"                                                               # 3
        "#ifdef _OPENMP\n"                                                              # 4
        "#pragma omp parallel for\n"                                                    # 5
        "#endif\n"                                                                      # 6
        "    for (int i = 0; i < n; i++)\n"                                             # 7
        "        for (int j = 0; j < n; j++) {\n"                                       # 8
        "            a[i * n + j] = 0.5 * \"}\"[0]; /* } */\n"                           # 9
        "        }\n"                                                                   # 10
        "    /* hot: not affine (lut[p[i]]) */\n"                                       # 11
        "    do a[0] += lut[p[0]]; while (0);\n"                                        # 12
        "}\n")
    nests = hotnests.hot_nests(text)
    assert [(n.line, n.end, n.marker, n.affine) for n in nests] == [(7, 10, 3, True), (12, 12, 11, False)]
    assert nests[1].note == "not affine (lut[p[i]])"
    with pytest.raises(hotnests.MarkerError, match="line 2"):
        hotnests.hot_nests("int f(int x)\n/* hot */\n{ return x; }\n")


def test_outcomes_from_report_lines(tmp_path):
    src = tmp_path / "prog.c"
    src.write_text(
        "typedef struct { int n; double *v, f; } grid_t;\n"                             # 1
        "void scale(int n, double *a)\n"                                                # 2
        "{\n"                                                                           # 3
        "    /* hot */\n"                                                               # 4
        "    for (int i = 0; i < n; i++)\n"                                             # 5
        "        a[i] = 2.0 * a[i];\n"                                                  # 6
        "}\n"                                                                           # 7
        "void grid_scale(grid_t *g)\n"                                                  # 8
        "{\n"                                                                           # 9
        "    /* hot */\n"                                                               # 10
        "    for (int i = 0; i < g->n; i++)\n"                                          # 11
        "        g->v[i] *= g->f;\n"                                                    # 12
        "}\n"                                                                           # 13
        "void rows(int n, double **r, double *s)\n"                                     # 14
        "{\n"                                                                           # 15
        "    /* hot */\n"                                                               # 16
        "    for (int i = 0; i < n; i++) {\n"                                           # 17
        "        double *ri = r[i] + 1;\n"                                              # 18 (no view)
        "        for (int j = 0; j < n; j++)\n"                                         # 19
        "            s[j] += ri[j];\n"                                                  # 20
        "    }\n"                                                                       # 21
        "}\n")
    models = hotnests.nest_models(src, hotnests.hot_nests(src.read_text()))
    assert [m.function for m in models] == ["scale", "grid_scale", "rows"]
    assert models[0].whole and [s.line for s in models[0].scops] == [5]
    assert not models[1].scops and "struct member g->f" in models[1].obstacle and ":12:9)" in models[1].obstacle
    assert not models[2].whole and [s.line for s in models[2].scops] == [19]

    log = (f"s2s-cc: report: {src}:5: scale: SCoP at L0 optimized (tiles 512)\n"
           f"s2s-cc: report: {src}:5: scale: recipe scale/0: tile(...)\n"
           f"s2s-cc: report: {src}:19: rows: SCoP at L0 left as is (original code kept: no gain)\n")
    got = hotnests.outcomes(models, src, log)
    assert [(o.status, o.optimized) for o in got] == [("optimized", True), ("not a SCoP", False), ("not a SCoP", False)]
    assert got[1].reasons == [models[1].obstacle]
    assert got[2].reasons[1] == "inner SCoP at line 19 left as is (original code kept: no gain)"
    inner = hotnests.outcomes(models, src, log.replace("L0 left as is (original code kept: no gain)", "L0 optimized (x)"))
    assert inner[2].status == "inner" and inner[2].optimized and inner[2].reasons[0].startswith("outer loop not in a SCoP")

    said = hotnests.outcomes(models, src, log + f"s2s-cc: report: {src}:11: grid_scale: loop nest at L0 not a SCoP: "
                                                "struct member g->n in a loop bound (at prog.c:11:5)\n")
    assert said[1].status == "not a SCoP" and said[1].reasons == ["struct member g->n in a loop bound (at prog.c:11:5)"]

    unchanged = hotnests.outcomes(models, src, f"s2s-cc: note: {src}: optimization skipped (boom); compiled unchanged\n")
    assert {o.status for o in unchanged} == {"unchanged"} and "boom" in unchanged[0].reasons[0]
    other = hotnests.outcomes(models, src, log + "s2s-cc: note: other.c: optimization skipped (x); compiled unchanged\n")
    assert [o.status for o in other] == [o.status for o in got]   # (another file's note)
    assert hotnests.outcomes(models, src, "cc: a plain compiler said nothing\n") is None


@needs_gcc
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_compiles_warning_free(name):
    src = ROOT / f"{name}.c"
    for extra in ([], ["-fopenmp"]):
        p = subprocess.run(["gcc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2", *extra, "-c",
                            str(src), "-o", os.devnull], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr


def _run(exe: Path, size: int) -> str:
    p = subprocess.run([str(exe), str(size)], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "OMP_NUM_THREADS": "2"})
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stderr


@needs_gcc
@pytest.mark.skipif(not S2S_CC.exists(), reason="s2s-cc not installed in this venv")
@pytest.mark.parametrize("name", PROGRAMS)
def test_s2s_cc_gives_the_answer_of_gcc_O0(name, tmp_path):
    """s2s on realistic code: its builds (both targets) print what gcc -O0's does, at a size
    where the optimized code runs. Floats: FMA contraction and vectorized sums move the 7th digit."""
    src = ROOT / f"{name}.c"
    env = {k: v for k, v in os.environ.items() if not k.startswith("S2S_")}
    builds = {"O0": (["gcc", "-O0"], {}),
              "seq": ([str(S2S_CC), "-O3", "-march=native"], {"S2S_MODE": "pluto", "S2S_TARGET": "c"}),
              "omp": ([str(S2S_CC), "-O3", "-march=native", "-fopenmp"], {"S2S_MODE": "pluto", "S2S_TARGET": "openmp"})}
    dumps = {}
    for build, (cc, extra_env) in builds.items():
        exe = tmp_path / build
        p = subprocess.run([*cc, str(src), "-o", str(exe), "-lm"], capture_output=True, text=True, env={**env, **extra_env})
        assert p.returncode == 0, p.stderr[-2000:]
        dumps[build] = parse_dump(_run(exe, SMALL[name]))
    for build in ("seq", "omp"):
        c = compare(dumps["O0"], dumps[build], 1e-4)
        assert c.ok, f"{name} {build}: {c.message}"


@needs_gcc
@pytest.mark.skipif(not S2S_CC.exists(), reason="s2s-cc not installed in this venv")
def test_two_programs_through_the_harness(tmp_path, capsys):
    out_dir = tmp_path / "out"
    rc = cli.main(["--group", "realistic", "--kernels", "heat2d,matmul_flat", "--configs", "s2s-seq",
                   "--size", "N=40", "--repeat", "1", "--no-noise-check", "--no-progress", "--jobs", "2",
                   "--output-dir", str(out_dir)])
    stdout = capsys.readouterr().out
    assert rc == 0, stdout
    data = json.loads((out_dir / "bench.json").read_text())
    assert data["group"] == "realistic"
    cells = {(r["kernel"], r["config"]): r for r in data["results"]}
    assert set(cells) == {(k, c) for k in ("heat2d", "matmul_flat") for c in ("baseline", "s2s-seq")}
    assert all(r["verified"] and r["sizes"] == {"N": 40} and r["median_s"] is not None for r in cells.values())
    assert cells[("heat2d", "baseline")]["hot_nests"] is None   # gcc: no report
    for name in ("heat2d", "matmul_flat"):
        hot = cells[(name, "s2s-seq")]["hot_nests"]
        lines = [n.line for n in hotnests.hot_nests((ROOT / f"{name}.c").read_text())]
        assert [h["line"] for h in hot] == lines
        for h in hot:
            assert h["status"] in ("optimized", "inner", "left as is", "not a SCoP", "unchanged")
            assert h["optimized"] == (h["status"] in ("optimized", "inner"))
            assert h["optimized"] or h["reasons"], h   # every nest not optimized says why
    summary = data["hot_nests"]["s2s-seq"]
    assert summary["found"] == 4 and summary["optimized"] == sum(
        h["optimized"] for n in ("heat2d", "matmul_flat") for h in cells[(n, "s2s-seq")]["hot_nests"])
    with open(out_dir / "bench.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["config"] == "s2s-seq"]
    assert {r["group"] for r in rows} == {"realistic"} and sum(int(r["hot_nests"]) for r in rows) == 4
    assert "hot loop nests" in stdout and "of the hot nests optimized" in stdout
    # one binary per cell, verified and timed, built with the report on
    log = Path(cells[("heat2d", "s2s-seq")]["build"]["timed"]["log"]).read_text()
    assert "S2S_REPORT=1" in log.splitlines()[0] and "s2s-cc: report:" in log


def test_nest_models_say_why_a_nest_is_no_scop(tmp_path):
    """The obstacle of a hot nest that is no SCoP: what find_scops stopped at, with its place."""
    src = tmp_path / "o.c"
    src.write_text(
        "void ok(int n, double *a) { for (int i = 0; i < n; i++) a[i] = 1.0; }\n"
        "void rgb(int w, int h, int k, float *a) {\n"
        "  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) for (int c = 0; c < k; c++)\n"
        "    a[(y * w + x) * c + k] = 0.0f; }\n"
        "void fir(int n, int m, const float *x, float *y) {\n"
        "  for (int c = 0; c < 4; c++) for (int i = 0; i < n; i++) y[c * n + i] = x[c * m + i - 1]; }\n"
        "void rows(int n, double **r) {\n"
        "  for (int i = 0; i < n; i++) { double *ri = r[i]; for (int j = 0; j < n; j++) ri[j] = 0.0; } }\n")
    nests = [hotnests.HotNest(line=line, end=line + 1, marker=line - 1, affine=True) for line in (1, 3, 6)]
    why = {m.nest.line: m.obstacle for m in hotnests.nest_models(src, nests)}
    assert why[1] is None
    assert "product" in why[3] and why[3].endswith("o.c:3:3)")   # (y * w + x) * c: a loop variable's product
    assert "delinearize" in why[6]                             # x[c * m + i - 1]: i - 1 leaves [0, m) at i = 0
