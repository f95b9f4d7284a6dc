"""Recipes: the optimizer's decisions per SCoP as steps (s2s.transforms.decisions), written to a
file with their provenance (s2s.tuning) and replayed: the rules' own recipe gives the same code,
an edited one other code that is still right, and a step that does not apply is refused with a
reason, never followed into wrong code."""
from __future__ import annotations

import json
import subprocess

import pytest

from c_build import outputs_of_both_builds, s2s_cc_path
from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.transforms.decisions import Step, parse_band_target
from s2s.tuning import RecipeBook, RecipeError, ScopRecipe

# An image blurred by a 3x3 box into another, then its rows summed: a band to tile, a
# reduction; and a tiny initialization that stays as written.
PROGRAM = """
#include <stdio.h>
#include <stdlib.h>

void clear(int n, double *acc) {
  for (int i = 0; i < n; i++)
    acc[i] = 0.0;
}

void blur_and_sum(int h, int w, double in[h][w], double out[h][w], double *rows) {
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      out[y][x] = (in[y - 1][x - 1] + in[y - 1][x] + in[y - 1][x + 1] + in[y][x - 1] + in[y][x]
                   + in[y][x + 1] + in[y + 1][x - 1] + in[y + 1][x] + in[y + 1][x + 1]) / 9.0;
  for (int y = 1; y < h - 1; y++)
    for (int x = 1; x < w - 1; x++)
      rows[y] += out[y][x];
}

int main(void) {
  int h = 150, w = 211;
  double (*in)[w] = malloc(sizeof(double) * h * w), (*out)[w] = malloc(sizeof(double) * h * w);
  double *rows = malloc(sizeof(double) * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      in[y][x] = ((y * 31 + x * 17) % 23) / 23.0;
      out[y][x] = 0.0;
    }
  clear(h, rows);
  blur_and_sum(h, w, in, out, rows);
  for (int y = 0; y < h; y++)
    printf("%a\\n", rows[y]);
  return 0;
}
"""


@pytest.fixture
def program(tmp_path, monkeypatch):
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0")
    path = tmp_path / "blur.c"
    path.write_text(PROGRAM)
    return path


def _optimize(path, recipes=None, target="c"):
    return optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, report=True,
                                                          recipes=str(recipes) if recipes else None))


def _book(result) -> RecipeBook:
    return RecipeBook(recipes=list(result.recipes))


def _kernel_recipe(book: RecipeBook) -> ScopRecipe:
    return next(r for r in book.recipes if r.function == "blur_and_sum")


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_the_rules_recipe_replays_to_the_same_code(program, tmp_path, target):
    first = _optimize(program, target=target)
    book = _book(first)
    assert [r.function for r in book.recipes] == ["clear", "blur_and_sum", "main"]
    assert [s.kind for s in book.recipes[0].steps] == ["keep-original"]
    kinds = [s.kind for s in _kernel_recipe(book).steps]
    assert kinds[:3] == ["fuse", "parallelize", "schedule"] and "tile" in kinds, kinds
    # every SCoP's recipe is in the report, by its stable id
    assert any(f"recipe {_kernel_recipe(book).scop}: fuse(scop: policy=smart)" in ln for ln in first.full_report)
    assert not any(": recipe " in ln for ln in first.report)
    saved = tmp_path / "r.json"
    book.save(saved)
    again = _optimize(program, saved, target)
    assert again.source == first.source
    assert [r.steps for r in again.recipes] == [r.steps for r in book.recipes]


def _edited(book: RecipeBook, edit) -> RecipeBook:
    recipes = [ScopRecipe(r.scop, r.function, r.line, tuple(edit(s) for s in r.steps)) if r.function == "blur_and_sum"
               else r for r in book.recipes]
    return RecipeBook(book.provenance, recipes)


def test_edited_tile_sizes_are_replayed_and_the_output_stays_right(program, tmp_path):
    book = _book(_optimize(program))

    def retile(step: Step) -> Step:
        if step.kind != "tile":
            return step
        n = len(step.values["sizes"]) or 2
        return Step.of("tile", step.target, sizes=[8] * n)

    path = tmp_path / "r.json"
    _edited(book, retile).save(path)
    result = _optimize(program, path)
    line = next(ln for ln in result.report if ": blur_and_sum: SCoP" in ln)
    assert "tiles 8x8" in line, line
    ref, out = outputs_of_both_builds(program, result.source, openmp=False)
    assert out == ref


def test_keep_original_leaves_the_scop_as_written(program, tmp_path):
    book = _book(_optimize(program))
    path = tmp_path / "r.json"
    _edited(book, lambda s: Step.of("keep-original", "scop", reason="tuned: the user's loops won")
            if s.kind == "fuse" else s).save(path)
    result = _optimize(program, path)
    line = next(ln for ln in result.report if ": blur_and_sum: SCoP" in ln)
    assert "left as is (original code kept: the recipe says so (tuned: the user's loops won))" in line, line


def test_steps_that_do_not_apply_are_refused_with_a_reason(program, tmp_path):
    book = _book(_optimize(program))
    kernel = _kernel_recipe(book)
    band = next(s.target for s in kernel.steps if s.kind == "tile")
    extra = (Step.of("fuse", "scop", policy="sometimes"),
             Step.of("tile", "band7:S0,S1", sizes=[4, 4]),
             Step.of("unroll-and-jam", band, factor=99),
             Step.of("tile", band, sizes=[16, 16, 16, 16]))
    path = tmp_path / "r.json"
    RecipeBook(book.provenance, [ScopRecipe(kernel.scop, kernel.function, kernel.line, kernel.steps + extra)]).save(path)
    result = _optimize(program, path)
    line = next(ln for ln in result.report if ": blur_and_sum: SCoP" in ln)
    assert "fuse(scop: policy=sometimes) refused: unknown fusion policy 'sometimes'" in line, line
    assert "tile(band7:S0,S1: sizes=4x4) refused: no such band in this schedule" in line, line
    assert "refused: 'factor' must be an integer from 0 to 16" in line, line
    assert "tile sizes 16x16x16x16 refused: they do not fit a band of" in line, line
    ref, out = outputs_of_both_builds(program, result.source, openmp=False)
    assert out == ref


def test_recipe_files_are_checked(tmp_path):
    bad = tmp_path / "bad.json"
    for text, message in (("{", "bad.json:1:2: not JSON"), ('{"schema": 9}', "schema 9, this s2s reads schema 1"),
                          ('{"schema": 1, "recipes": [{"scop": "f/0", "steps": [{"kind": "melt"}]}]}',
                           "recipes[0].steps[0]: unknown kind 'melt'")):
        bad.write_text(text)
        with pytest.raises(RecipeError) as raised:
            RecipeBook.load(bad)
        assert message in str(raised.value)


def test_s2s_cc_replays_recipes_and_falls_back_on_a_bad_file(program, tmp_path):
    book = _book(_optimize(program))
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    _edited(book, lambda s: Step.of("tile", s.target, sizes=[8, 8]) if s.kind == "tile" else s).save(good)
    bad.write_text("[]")
    cc = str(s2s_cc_path())
    done = subprocess.run([cc, "-O2", f"--s2s-recipes={good}", "--s2s-report", "-c", str(program), "-o",
                           str(tmp_path / "a.o")], capture_output=True, text=True)
    assert done.returncode == 0 and "tiles 8x8" in done.stderr, done.stderr
    done = subprocess.run([cc, "-O2", f"--s2s-recipes={bad}", "-c", str(program), "-o", str(tmp_path / "b.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0 and "RecipeError" in done.stderr and "compiled unchanged" in done.stderr, done.stderr


def test_scop_ids_survive_edits_elsewhere_and_change_with_the_scop(program, tmp_path):
    ids = {r.function: r.scop for r in _optimize(program).recipes}
    program.write_text(PROGRAM.replace("void clear(", "static int unused(int a) { return a + 1; }\n\nvoid clear("))
    assert {r.function: r.scop for r in _optimize(program).recipes} == ids
    program.write_text(PROGRAM.replace("rows[y] += out[y][x];", "rows[y] += out[y][x - 1];"))
    changed = {r.function: r.scop for r in _optimize(program).recipes}
    assert changed["clear"] == ids["clear"] and changed["blur_and_sum"] != ids["blur_and_sum"]


def test_band_targets_read_back():
    assert parse_band_target("band2:S0,S3") == (2, frozenset({0, 3}))
    assert parse_band_target("scop") is None
    text = RecipeBook(recipes=[ScopRecipe("f/1", "f", 3, (Step.of("tile", "band0:S0", sizes=[32, 64]),))]).to_json()
    assert json.loads(text)["recipes"][0]["steps"][0] == {"kind": "tile", "target": "band0:S0",
                                                          "params": {"sizes": [32, 64]}}
    assert RecipeBook.from_json(text).recipes[0].steps[0].values == {"sizes": [32, 64]}


@pytest.mark.parametrize("kernel, target", [("mvt", "openmp"), ("trisolv", "c"), ("trisolv", "openmp"),
                                            ("gemm", "openmp"), ("seidel-2d", "c"), ("jacobi-2d", "c"),
                                            ("fdtd-2d", "openmp")])
def test_polybench_recipes_replay_to_the_same_code(tmp_path, kernel, target):
    # (mvt under OpenMP: a wavefront of tiles, with the user's order jammed for where no region
    # runs in parallel, recorded as a ``sequential`` step; trisolv: rows jammed over triangles;
    # jacobi-2d and fdtd-2d: time tiles, their point loops split, fdtd-2d's as a wavefront, where
    # this host's last-level cache share is below their arrays' 27-61 MiB)
    from polybench.registry import KERNELS, SUITE_ROOT, kernel_source

    source = kernel_source(KERNELS[kernel])
    args = [f"-I{SUITE_ROOT / 'utilities'}", f"-I{source.parent}", "-DLARGE_DATASET"]
    options = PipelineOptions(mode="pluto", target=target, record_recipes=True)
    first = optimize_c_file(str(source), args, options)
    saved = tmp_path / "r.json"
    RecipeBook(recipes=list(first.recipes)).save(saved)
    again = optimize_c_file(str(source), args, PipelineOptions(mode="pluto", target=target, recipes=str(saved)))
    assert again.source == first.source


GEMM = """
#include <stdio.h>
#include <stdlib.h>
void product(int ni, int nj, int nk, double alpha, double C[ni][nj], double A[ni][nk], double B[nk][nj]) {
  for (int i = 0; i < ni; i++)
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
}
int main(void) {
  int ni = 61, nj = 77, nk = 53;
  double (*C)[nj] = malloc(sizeof(double) * ni * nj), (*A)[nk] = malloc(sizeof(double) * ni * nk);
  double (*B)[nj] = malloc(sizeof(double) * nk * nj);
  for (int i = 0; i < ni; i++) for (int j = 0; j < nj; j++) C[i][j] = (i * 3 + j) % 7 / 7.0;
  for (int i = 0; i < ni; i++) for (int k = 0; k < nk; k++) A[i][k] = (i + k * 5) % 11 / 11.0;
  for (int k = 0; k < nk; k++) for (int j = 0; j < nj; j++) B[k][j] = (k * 7 + j) % 13 / 13.0;
  product(ni, nj, nk, 1.5, C, A, B);
  for (int i = 0; i < ni; i++) for (int j = 0; j < nj; j++) printf("%a\\n", C[i][j]);
  return 0;
}
"""


@pytest.mark.parametrize("blocking, refused", [("3x1x4/7/9/8", False), ("5x2x2/16/5/12", False),
                                                ("20x1x4/7/40/8", True), ("3x1x4/7/10/8", True)])
def test_kernel_blockings_are_replayed_or_refused(tmp_path, monkeypatch, blocking, refused):
    # (odd shapes, panels that cut every loop's range unevenly: bit for bit the loops' results)
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,kernel=0,kernel_min=0")
    path = tmp_path / "product.c"
    path.write_text(GEMM)
    book = _book(_optimize(path))
    recipe = next(r for r in book.recipes if r.function == "product")
    kernel = next(s for s in recipe.steps if s.kind == "matmul-kernel")
    assert list(kernel.values["blocking"]) == ["S0"]
    steps = tuple(Step.of("matmul-kernel", "scop", enabled=True, blocking={"S0": blocking}) if s is kernel else s
                  for s in recipe.steps)
    saved = tmp_path / "r.json"
    RecipeBook(recipes=[ScopRecipe(recipe.scop, recipe.function, recipe.line, steps)]).save(saved)
    result = _optimize(path, saved)
    line = next(ln for ln in result.report if ": product: SCoP" in ln)
    assert ("refused: S0:" in line) == refused, line
    again = next(r for r in result.recipes if r.function == "product")
    used = next(s for s in again.steps if s.kind == "matmul-kernel").values["blocking"]["S0"]
    assert (used == blocking) != refused
    ref, out = outputs_of_both_builds(path, result.source, openmp=False)
    assert out == ref


# A 2-D heat step repeated over time (a 3-deep permutable band, skewed by the scheduler) and a
# matrix product as loops; each prints a checksum.
HEAT_AND_PRODUCT = """
#include <stdio.h>
#define N 90

static double a[N][N], b[N][N], c[N][N], g[N][N];

void heat(int steps) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        g[i][j] = 0.25 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1]);
}

void product(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        c[i][j] += a[i][k] * b[k][j];
}

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = (i * 3 + j) % 7;
      b[i][j] = (i + j * 5) % 9;
      g[i][j] = (i * j) % 13;
    }
  heat(7);
  product();
  double s = 0, t = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      s += c[i][j] * (i + 1);
      t += g[i][j] * (j + 1);
    }
  printf("%a %a\\n", s, t);
  return 0;
}
"""


def _with_band_steps(book: RecipeBook, function: str, *steps: Step) -> RecipeBook:
    """``book`` with ``steps`` put before the first band step of ``function``'s recipe."""
    recipe = next(r for r in book.recipes if r.function == function)
    at = next(k for k, s in enumerate(recipe.steps) if s.kind == "tile")
    return book.with_steps(recipe.scop, recipe.steps[:at] + steps + recipe.steps[at:])


def _band(book: RecipeBook, function: str) -> str:
    return next(s.target for s in next(r for r in book.recipes if r.function == function).steps if s.kind == "tile")


@pytest.fixture
def heat_and_product(tmp_path, monkeypatch):
    """(the program's path, a replay of an edited book of its rules' recipes, that book)."""
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0")
    path = tmp_path / "heat.c"
    path.write_text(HEAT_AND_PRODUCT)

    def replayed(book: RecipeBook, target: str = "c"):
        saved = tmp_path / "r.json"
        book.save(saved)
        return optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, report=True, kernels=False,
                                                              recipes=str(saved)))

    opts = PipelineOptions(mode="pluto", target="c", report=True, kernels=False)
    return path, replayed, RecipeBook(recipes=list(optimize_c_file(str(path), [], opts).recipes))


def _loops(source: str, function: str) -> tuple[str, list[str]]:
    """The text of ``function`` (up to main) and its loop variables, outermost first."""
    text = source[source.index(f"void {function}"):source.index("int main")]
    return text, [ln.split("for (int ")[1].split(" ")[0] for ln in text.splitlines() if "for (int " in ln]


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_interchange_and_skew_are_replayed_and_recorded(heat_and_product, target):
    path, replayed, book = heat_and_product
    edited = _with_band_steps(book, "product", Step.of("permute", _band(book, "product"), order=[0, 2, 1]))
    edited = _with_band_steps(edited, "heat", Step.of("skew", _band(book, "heat"), rows=[[2, 1, 1]]))
    result = replayed(edited, target)
    assert not any("refused" in ln for ln in result.report), result.report
    taken = {r.function: r.steps for r in result.recipes}
    assert Step.of("permute", _band(book, "product"), order=[0, 2, 1]) in taken["product"]
    assert Step.of("skew", _band(book, "heat"), rows=[[2, 1, 1]]) in taken["heat"]
    # the schedule step keeps the scheduler's rows: replaying what was taken changes nothing
    assert next(s for s in taken["product"] if s.kind == "schedule") == next(
        s for s in book.recipes[1].steps if s.kind == "schedule")
    product, loops = _loops(result.source, "product")
    assert loops.index("k") < len(loops) - 1, product      # (k no longer innermost: i-k-j)
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    assert out == ref


def test_reorders_that_do_not_fit_the_band_are_refused(heat_and_product):
    path, replayed, book = heat_and_product
    band = _band(book, "product")
    result = replayed(_with_band_steps(book, "product", Step.of("permute", band, order=[1, 0]),
                                       Step.of("skew", band, rows=[[0, 0, 1]])))
    line = next(ln for ln in result.report if ": product: SCoP" in ln)
    assert "permute(band0:S0: order=1x0) refused: 'order' names 2 members; band 0 has 3" in line, line
    assert "refused: 'rows' must be [[target, source, factor], ...]" in line, line
    ref, out = outputs_of_both_builds(path, result.source, openmp=False)
    assert out == ref


def test_a_permuted_band_runs_its_last_loop_innermost(heat_and_product):
    # without the step the member with the best locality (j) would run innermost; the recipe
    # puts i there, and i is what varies in the innermost loop
    import re

    path, replayed, book = heat_and_product
    result = replayed(_with_band_steps(book, "product", Step.of("permute", _band(book, "product"), order=[1, 2, 0])))
    product, loops = _loops(result.source, "product")
    assert re.search(rf"c\[[^\]]*\b{loops[-1]}\b[^\]]*\]\[", product), product      # c[.. i ..][..]
    ref, out = outputs_of_both_builds(path, result.source, openmp=False)
    assert out == ref


def test_a_band_parallel_loop_and_its_openmp_schedule(heat_and_product, monkeypatch):
    """``parallelize`` on a band: which of its loops runs in parallel and with which OpenMP
    schedule; recorded as taken, refused for a loop that is not parallel and without threads."""
    import re

    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0,parallel=0,parallel_start=0,parallel_wake=0")
    path, replayed, book = heat_and_product
    band = _band(book, "product")
    recipe = next(r for r in book.recipes if r.function == "product")
    # (tiled, and without the sequential target's parallelize(scop: enabled=off))
    tiled = book.with_steps(recipe.scop, tuple(Step.of("tile", band, sizes=[16, 16, 16]) if s.kind == "tile" else s
                                               for s in recipe.steps if s.kind != "parallelize"))

    def asking(*steps: Step) -> RecipeBook:
        return _with_band_steps(tiled, "product", *steps)

    result = replayed(asking(Step.of("parallelize", band, loop=1, schedule="dynamic")), "openmp")
    assert not any("refused" in ln for ln in result.report), result.report
    product, loops = _loops(result.source, "product")
    pragma = re.search(r"#pragma omp parallel for[^\n]* schedule\(dynamic\)[^\n]*\n\s*for \(int (\w+)", product)
    assert pragma and pragma.group(1) == loops[1], product      # (the tile loop of j)
    taken = next(r.steps for r in result.recipes if r.function == "product")
    assert Step.of("parallelize", band, loop=1, schedule="dynamic") in taken
    ref, out = outputs_of_both_builds(path, result.source, openmp=True)
    assert out == ref
    # k (the third loop) carries the sums: refused, the outermost parallel loop runs so instead
    result = replayed(asking(Step.of("parallelize", band, loop=2)), "openmp")
    line = next(ln for ln in result.report if ": product: SCoP" in ln)
    assert "the recipe's parallel loop 2 refused: not a parallel loop of this band" in line, line
    product, loops = _loops(result.source, "product")
    assert re.search(rf"#pragma omp parallel for[^\n]*\n\s*for \(int {loops[0]}\b", product), product
    result = replayed(asking(Step.of("parallelize", band, schedule="guided")), "c")
    line = next(ln for ln in result.report if ": product: SCoP" in ln)
    assert "refused: this build's target has no threads" in line, line
    bad = replayed(asking(Step.of("parallelize", band, schedule="sometimes")), "openmp")
    line = next(ln for ln in bad.report if ": product: SCoP" in ln)
    assert "'schedule' must be one of static, static,1, dynamic, dynamic,4, guided" in line, line


def test_expansion_is_a_step_replayed_recorded_and_refused(tmp_path):
    """``expand``: the rules expand symm's ``temp2`` along i and j (two kernels); a recipe may
    ask for fewer loops or none, and an array that cannot be so expanded is refused. Every
    replay computes what the user's loops compute, bit for bit."""
    from test_expansion import SYMM_PROGRAM

    path = tmp_path / "symm.c"
    path.write_text(SYMM_PROGRAM)
    book = _book(_optimize(path))
    recipe = next(r for r in book.recipes if r.function == "symm")
    assert Step.of("expand", "scop", arrays={"temp2": 2}) in recipe.steps

    def replayed(arrays: dict):
        # (only the SCoP-wide steps: the bands of another expansion are others)
        frame = tuple(Step.of("expand", "scop", arrays=arrays) if s.kind == "expand" else s
                      for s in recipe.steps if s.target == "scop" and s.kind not in ("schedule", "matmul-kernel"))
        saved = tmp_path / "r.json"
        book.with_steps(recipe.scop, frame).save(saved)
        result = _optimize(path, saved)
        line = next(ln for ln in result.report if ": symm: SCoP" in ln)
        taken = next(r.steps for r in result.recipes if r.function == "symm")
        ref, out = outputs_of_both_builds(path, result.source, openmp=False)
        assert out == ref
        return line, taken

    line, taken = replayed({"temp2": 1})
    assert "temp2 expanded along j" in line and "refused" not in line, line
    assert Step.of("expand", "scop", arrays={"temp2": 1}) in taken
    line, taken = replayed({})   # (temp2 then orders every iteration: nothing to gain)
    assert "left as is" in line and "refused" not in line, line
    assert [s.kind for s in taken] == ["keep-original"]
    line, _ = replayed({"temp2": 3, "C": 1})
    assert "expand(scop: arrays=temp2:3) refused: temp2 cannot be expanded along 3 loop(s)" in line, line
    assert "C cannot be expanded" in line, line
    line, _ = replayed({"temp2": "i"})
    assert "'arrays' must map array names to how many loops" in line, line
