"""Transfer tuning: SCoP features under the ids recipes use, embeddings and their distance,
recipes mapped onto other SCoPs by structure, and the whole path (tuned nests stored, lent to a
similar program, checked and timed; lent at build time by s2s-cc). No test asserts a time."""
from __future__ import annotations

import dataclasses
import math
import subprocess
import sys

import pytest

from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.perf.features import scop_features
from s2s.transforms.decisions import Step
from s2s.tuning import RecipeDB
from s2s.tuning.embedding import Scale, Weights, distance, embed, nearest
from s2s.tuning.mapping import frame, map_recipe, match_statements
from s2s.tuning.lender import Lender
from s2s.tuning.transfer_tuner import nest_features, record, transfer_tune
from s2s.tuning.tuner import Program, autotune

# A 5-point smoothing of an image, and (below) a 9-point one with another weighting: alike in
# their loops and accesses, not copies.
BLUR = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void smooth(int n, int m, float in[n][m], float out[n][m]) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      out[i][j] = 0.25f * in[i][j] + 0.1875f * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}

int main(void) {
  int n = 400, m = 300;
  float (*a)[m] = malloc(sizeof(float) * n * m), (*b)[m] = malloc(sizeof(float) * n * m);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      a[i][j] = (float)((i * 7 + j * 3) % 23);
      b[i][j] = 0.0f;
    }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  smooth(n, m, a, b);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      sum += b[i][j] * (1 + (i ^ j) % 5);
  printf("%a\n%.6f\n", sum, (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  return 0;
}
"""

SHARPEN = BLUR.replace(
    "out[i][j] = 0.25f * in[i][j] + 0.1875f * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);",
    "out[i][j] = 2.0f * in[i][j] - 0.125f * (in[i - 1][j - 1] + in[i - 1][j] + in[i - 1][j + 1] + in[i][j - 1]"
    " + in[i][j + 1] + in[i + 1][j - 1] + in[i + 1][j] + in[i + 1][j + 1]);").replace("smooth", "sharpen")


@pytest.fixture
def programs(tmp_path, monkeypatch):
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0")
    monkeypatch.setenv("S2S_RECIPE_DB", str(tmp_path / "recipes.sqlite"))
    blur, sharpen = tmp_path / "blur.c", tmp_path / "sharpen.c"
    blur.write_text(BLUR)
    sharpen.write_text(SHARPEN)
    return (Program((str(blur),), ("-O2",), time_from_output=True, functions=("smooth",)),
            Program((str(sharpen),), ("-O2",), time_from_output=True, functions=("sharpen",)))


def test_scop_features_carry_the_ids_recipes_use(programs):
    blur = programs[0].sources[0]
    taken = optimize_c_file(blur, [], PipelineOptions(record_recipes=True)).recipes
    found = scop_features(blur)
    assert [f.scop for f in found] == [r.scop for r in taken]
    smooth = next(f for f in found if f.function == "smooth")
    assert smooth.values["depth"] == 2 and smooth.values["n_statements"] == 1 and smooth.values["is_scop"] == 1
    assert smooth.values["frac_fp32"] == 1.0
    assert [s["depth"] for s in smooth.statements] == [2.0]
    assert math.isnan(smooth.values["log2_instances"])                     # sizes unknown without values
    sized = scop_features(blur, params={"n": 400, "m": 300})
    assert next(f for f in sized if f.function == "smooth").values["log2_instances"] == pytest.approx(
        math.log2(398 * 298))


def test_embedding_scales_counts_and_compares_what_both_know():
    a = embed({"n_loops": 3.0, "frac_mul": 0.5, "gflops": None, "oi_access": float("nan")}, {"log2_cpus": 4.0})
    assert a == {"n_loops": 2.0, "frac_mul": 0.5, "log2_cpus": 4.0}             # log2(1 + 3)
    scale = Scale.over([{"depth": 0.0, "frac_mul": 0.5}, {"depth": 4.0, "frac_mul": 0.5}])
    # (a field in its spread over the nests, but never one below its floor)
    assert scale.standardized({"depth": 2.0, "frac_mul": 0.3}) == pytest.approx({"depth": 1.0, "frac_mul": 3.0})
    assert distance({"x": 1.0, "y": 0.0}, {"x": 1.0}) == 0.0                   # only the fields both know
    assert distance({"x": 1.0}, {"y": 1.0}) == math.inf
    assert distance({"n_loops": 0.0, "gflops": 0.0}, {"n_loops": 0.0, "gflops": 2.0}, Weights(measured=0.0)) == 0.0
    nests = [{"depth": 3.0, "frac_mul": 0.5}, {"depth": 2.0, "frac_mul": 0.0}, {"depth": 3.0, "frac_mul": 0.4}]
    assert [n.index for n in nearest({"depth": 3.0, "frac_mul": 0.45}, nests, k=2)] in ([0, 2], [2, 0])
    assert nearest({"depth": 2.0, "frac_mul": 0.0}, nests, k=1)[0].index == 1


def statement(depth, reads, in_place=0.0, position=0.0):
    return {"depth": depth, "reads": reads, "writes": 1.0, "flops": reads, "in_place": in_place, "write_rank": 2.0,
            "position": position, "shared_loops": 0.0}


def test_statements_are_matched_by_structure():
    source = [statement(2, 1, 1.0, 0.0), statement(3, 3, 1.0, 1.0)]            # gemm's two statements
    target = [statement(2, 0, 0.0, 0.0), statement(3, 3, 1.0, 0.5), statement(2, 1, 1.0, 1.0)]
    assert match_statements(source, target) == {0: 2, 1: 1}
    assert match_statements([], target) == {}


def test_a_recipe_is_laid_over_the_targets_own_bands():
    source = (Step.of("fuse", "scop", policy="max"), Step.of("parallelize", "scop", enabled=True),
              Step.of("schedule", "scop", rows=[]),
              Step.of("matmul-kernel", "scop", enabled=True, blocking={"S1": "4x2x8/128/64/256"}),
              Step.of("tile", "band0:S0,S1", sizes=[64, 16, 8]), Step.of("unroll-and-jam", "band0:S0,S1", factor=2),
              Step.of("tile", "band1:S2", sizes=[32]))
    frames = []

    def rules(given):
        frames.append(given)
        return (*given, Step.of("schedule", "scop", rows=[]),
                Step.of("matmul-kernel", "scop", enabled=True, blocking={"S0": "8x3x8/512/128/4080"}),
                Step.of("tile", "band0:S0,S1", sizes=[32, 32]), Step.of("unroll-and-jam", "band0:S0,S1", factor=0))

    target = [statement(3, 3, 1.0, 0.0), statement(2, 1, 1.0, 1.0)]
    mapped = map_recipe(source, [statement(2, 1, 1.0, 0.0), statement(3, 3, 1.0, 0.5), statement(1, 0, 0.0, 1.0)],
                        target, rules)
    assert frames == [frame(source)] and [s.kind for s in frames[0]] == ["fuse", "parallelize"]
    steps = {(s.kind, s.target): s.values for s in mapped.steps}
    assert ("schedule", "scop") not in steps                                  # the source's rows mean nothing here
    assert steps[("tile", "band0:S0,S1")] == {"sizes": [16, 8]}               # the innermost sizes kept
    assert steps[("unroll-and-jam", "band0:S0,S1")] == {"factor": 2}
    assert steps[("matmul-kernel", "scop")]["blocking"] == {"S0": "4x2x8/128/64/256"}   # S1 there is S0 here
    assert any("band1:S2" in note for note in mapped.notes)                   # nothing runs the source's S2
    kept = map_recipe((Step.of("keep-original", "scop", reason="x"),), [statement(2, 1)], target, rules)
    assert [s.kind for s in kept.steps] == ["keep-original"] and len(frames) == 1


def test_tuned_nests_are_stored_and_lent_to_a_similar_program(programs, tmp_path):
    blur, sharpen = programs
    tuned = autotune(blur, budget=2, repeat=1, workdir=tmp_path / "tune", search="local")
    with RecipeDB() as db:
        ids = record(db, blur, tuned, "blur", features=nest_features(blur))
        rows = db.records()
    assert len(ids) == 1 and [r.function for r in rows] == ["smooth"]
    row = rows[0]
    assert row.statements and row.features["depth"] == 2 and row.machine_features["log2_cpus"] >= 0
    assert row.evaluations == 2 and row.tuned_seconds and row.default_seconds

    result, lent = transfer_tune(sharpen, rows, topk=3, repeat=1, workdir=tmp_path / "transfer")
    assert len(result.evaluations) <= 1                                      # at most topk, and one nest to lend
    assert [item.source for item in lent] == [row.scop] and lent[0].scop.startswith("sharpen/")
    assert all(ev.status in ("ok", "refused") for ev in result.evaluations), result.evaluations
    assert any(r.function == "sharpen" for r in result.best.recipes)


def test_a_build_takes_the_nearest_recipe_only_when_it_is_near(programs, tmp_path):
    blur, sharpen = programs
    steps = (Step.of("fuse", "scop", policy="smart"), Step.of("parallelize", "scop", enabled=False),
             Step.of("tile", "band0:S0", sizes=[8, 128]))
    rows = [_row(blur, steps)]
    features = next(f for f in scop_features(sharpen.sources[0]) if f.function == "sharpen")
    seen = []

    def rules(given):
        seen.append(given)
        return (*given, Step.of("tile", "band0:S0", sizes=[32, 32]))

    lent, why = Lender(rows, "c", max_distance=math.inf).lend(features.scop, lambda: features, rules)
    assert "blur" in why and ("tile", "band0:S0", '{"sizes": [8, 128]}') in [(s.kind, s.target, s.params) for s in lent]
    none, why = Lender(rows, "c", max_distance=-1.0).lend(features.scop, lambda: features, rules)
    assert none is None and "too far" in why
    flat = [dataclasses.replace(rows[0], tuned_seconds=rows[0].default_seconds)]   # tuning found nothing
    for lender in (Lender(rows, "openmp"), Lender(rows, "c", exclude=("blur",)), Lender(flat, "c", max_distance=9)):
        none, why = lender.lend(features.scop, lambda: features, rules)
        assert none is None and "no tuned loop nest" in why
    # tuned: a SCoP's own row, replayed as it is; another SCoP's is not its own
    own, why = Lender(rows, "c", "tuned").lend(rows[0].scop, lambda: pytest.fail("no features needed"), rules)
    assert own == steps and "tuned recipe of blur" in why
    assert Lender(rows, "c", "tuned").lend(features.scop, lambda: features, rules) == (None, "not tuned")


def _row(program, steps):
    from s2s.perf.features import FEATURES_VERSION
    from s2s.tuning import NestRecord, machine_fingerprint
    from s2s.tuning.embedding import machine_features

    f = next(f for f in scop_features(program.sources[0]) if f.function == "smooth")
    as_dicts = [s.as_dict() for s in steps]
    return NestRecord(scop=f.scop, function=f.function, program="blur", target="c", machine=machine_fingerprint(),
                      params={}, dataset="", features_version=FEATURES_VERSION,
                      features=f.values, statements=f.statements,
                      machine_features=machine_features(), recipe=as_dicts, default_recipe=as_dicts,
                      default_seconds=1.0, tuned_seconds=0.5)


def test_s2s_cc_lends_recipes_from_the_database(programs, tmp_path, monkeypatch):
    blur, sharpen = programs
    with RecipeDB() as db:
        db.add(_row(blur, (Step.of("fuse", "scop", policy="smart"), Step.of("parallelize", "scop", enabled=False),
                           Step.of("tile", "band0:S0", sizes=[8, 128]))))
    monkeypatch.setenv("S2S_TUNE", "transfer")
    exe = tmp_path / "sharpen"
    built = subprocess.run([sys.executable, "-m", "s2s.driver.cc", "-O2", "--s2s-report", sharpen.sources[0],
                            "-o", str(exe)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert "sharpen: SCoP sharpen/" in built.stderr and "polybench" not in built.stderr
    assert "blur" in built.stderr, built.stderr                     # lent, or named as too far
    assert subprocess.run([str(exe)], capture_output=True).returncode == 0


def test_s2s_tune_transfer_needs_tuned_nests(programs, tmp_path, capsys):
    from s2s.cli import main

    sharpen = programs[1].sources[0]
    code = main(["tune", sharpen, "--transfer", "--db", str(tmp_path / "empty.sqlite"), "--time-from-output",
                 "--repeat", "1", "-o", str(tmp_path / "out.json")])
    assert code == 1 and "no tuned loop nest" in capsys.readouterr().err


def test_transfer_study_summarizes_tuned_against_transferred():
    from polybench.transfer_study import Row, summary

    rows = [Row("gemm", 1.0, 0.8, 0.8, 20, 300.0, 2, 30.0, "polybench/2mm"),
            Row("atax", 1.0, 0.9, 1.2, 20, 200.0, 3, 40.0, "polybench/bicg"),
            Row("mine.c", 1.0, None, 1.0, 0, 0.0, 1, 10.0)]
    text = "\n".join(summary(rows))
    assert "gemm" in text and "1.25x" in text and "20/2" in text
    assert "geomean over 2 kernels" in text                  # only where both were measured
    assert "below 0.95x of the rules': atax" in text


def test_python_api_measures_and_transfers(programs, tmp_path):
    from s2s import tuning

    blur = programs[0]
    assert tuning.measure(blur, repeat=1) > 0
    result, lent = tuning.transfer(blur, db=tmp_path / "empty.sqlite", repeat=1)   # nothing to lend
    assert lent == [] and result.evaluations == [] and result.speedup == 1.0


def test_a_failure_to_lend_leaves_the_rules_decisions(programs, monkeypatch):
    from s2s.tuning.lender import Lender as L

    blur = programs[0]
    with RecipeDB() as db:
        db.add(_row(blur, (Step.of("fuse", "scop", policy="smart"),)))

    def broken(self, ident, features, rules):
        raise ValueError("no such thing")

    monkeypatch.setattr(L, "lend", broken)
    ruled = optimize_c_file(blur.sources[0], [], PipelineOptions(report=True))
    lent = optimize_c_file(blur.sources[0], [], PipelineOptions(report=True, tune="transfer"))
    assert lent.source == ruled.source
    assert any("no recipe lent (ValueError: no such thing)" in line for line in lent.full_report)
