"""The autotuner (s2s/tuning/tuner.py): candidates built from changed recipes, run, checked
against the default build's output (a wrong one is discarded, never kept), and the best recipes
written out. No test asserts a time: which candidate wins depends on the machine."""
from __future__ import annotations

import json
import os
import random
import stat
import sys

import pytest

from s2s.tuning import RecipeBook
from s2s.tuning import tuner
from s2s.tuning.tuner import Program, Timing, autotune, compared, default_recipes, differing
from s2s.tuning.search import neighbour, tunable

# A 2-D heat step that writes its result transposed, as separable filters do (a band to tile),
# and an image's column sums, printed, with its own timing.
PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void step(int n, double a[n][n], double b[n][n]) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      b[j][i] = 0.2 * (a[i][j] + a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
}

int main(void) {
  int n = 300;
  double (*a)[n] = malloc(sizeof(double) * n * n), (*b)[n] = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      a[i][j] = ((i * 13 + j * 7) % 17) / 17.0;
      b[i][j] = 0.0;
    }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  step(n, a, b);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      sum += b[i][j] * (1 + (i + j) % 3);
#ifdef BROKEN
  sum += 1.0;
#endif
  printf("%a\n%.6f\n", sum, (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  return 0;
}
"""


@pytest.fixture
def program(tmp_path, monkeypatch):
    monkeypatch.setenv("S2S_WORK_THRESHOLDS", "optimize=0")
    path = tmp_path / "heat.c"
    path.write_text(PROGRAM)
    return Program((str(path),), ("-O2",), time_from_output=True)


def test_moves_change_one_knob_of_a_tunable_scop(program):
    book = default_recipes(program)
    scops = {r.scop: r for r in tunable(book)}
    assert sorted(set(r.function for r in scops.values())) == ["main", "step"]
    assert [r.function for r in tunable(book, ("step",))] == ["step"]
    assert all(neighbour(book, random.Random(k), ("step",)).scop == scops_of(book, "step") for k in range(5))
    rng = random.Random(1)
    for _ in range(12):
        move = neighbour(book, rng)
        assert move is not None and move.scop in scops
        before = scops[move.scop].steps
        after = next(r.steps for r in move.book.recipes if r.scop == move.scop)
        if before[0].kind == "keep-original":   # (past the rules' gain checks)
            assert [s.kind for s in after] == ["profitability"] and after[0].values == {"enabled": False}
        elif " loops " in move.description:   # (two loops of a band interchanged: a permute step)
            assert [s for s in before if s.kind != "permute"] == [s for s in after if s.kind != "permute"]
            assert [s for s in before if s.kind == "permute"] != [s for s in after if s.kind == "permute"]
        else:
            assert len(before) == len(after) and sum(a != b for a, b in zip(before, after)) == 1, move.description


def test_candidates_are_checked_and_the_best_recipes_written(program, tmp_path):
    result = autotune(program, budget=4, repeat=1, workdir=tmp_path / "work", search="local")
    assert len(result.evaluations) == 4
    assert all(ev.status in ("ok", "refused") for ev in result.evaluations), result.evaluations
    saved = tmp_path / "best.json"
    result.best.save(saved)
    assert [r.function for r in RecipeBook.load(saved).recipes] == ["step", "main", "main"]


def test_workers_build_side_by_side_and_time_the_nests_changed(program, tmp_path):
    result = autotune(program, budget=4, repeat=1, workdir=tmp_path / "work", workers=2, search="local")
    assert len(result.evaluations) == 4 and [ev.number for ev in result.evaluations] == [1, 2, 3, 4]
    assert all(ev.status in ("ok", "refused") for ev in result.evaluations), result.evaluations
    # (timed by the nests' timers: every candidate built wrote them)
    assert all((tmp_path / "work" / f"candidate{ev.number}.nests").is_file()
               for ev in result.evaluations if ev.status == "ok")
    assert all(ev.speedup for ev in result.evaluations if ev.status == "ok")


def test_a_candidate_with_another_output_is_discarded(program, tmp_path, monkeypatch):
    # an s2s-cc that miscompiles whenever a recipe asks for 8 copies: those candidates print
    # another sum, and are logged as wrong, never kept
    real = tuner._s2s_cc()
    fake = tmp_path / "broken-s2s-cc"
    fake.write_text(f"#!{sys.executable}\nimport os, sys\nargs = sys.argv[1:]\n"
                    f"if '\"factor\": 8' in open(os.environ['S2S_RECIPES']).read():\n"
                    f"    args = ['-DBROKEN'] + args\nos.execv({real!r}, [{real!r}] + args)\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(tuner, "_s2s_cc", lambda: str(fake))
    book = default_recipes(program)
    step = tunable(book)[0]
    band = next(s.target for s in step.steps if s.kind == "unroll-and-jam")
    monkeypatch.setattr(tuner, "neighbour", lambda best, rng, functions=(): _jam_eight(best, band))
    result = autotune(program, budget=2, repeat=1, workdir=tmp_path / "work", search="local")
    # (one evaluation: the only move there is gives a recipe tried before the second time)
    assert [ev.status for ev in result.evaluations] == ["wrong output"]
    assert not any(ev.kept for ev in result.evaluations)
    assert json.loads(result.best.to_json())["recipes"] == json.loads(book.to_json())["recipes"]


def test_a_gain_not_confirmed_beside_the_default_is_dropped(program, tmp_path, monkeypatch):
    # a candidate measured (falsely) ten times faster is kept in the search; timed again beside
    # the default, interleaved, it is no faster, and the default stands
    real = tuner._evaluate

    def lucky(*args, **kwargs):
        ev, timing = real(*args, **kwargs)
        return (ev, timing) if ev.status != "ok" else (tuner.Evaluation(ev.number, ev.change, "ok", ev.seconds / 10,
                                                                        True), timing)

    real_compared = tuner.compared

    def no_faster(best, default, differing):   # (the rounds beside the default: as fast as it, not timed)
        _, default_seconds, timed = real_compared(best, default, differing)
        return default_seconds, default_seconds, timed

    monkeypatch.setattr(tuner, "_evaluate", lucky)
    monkeypatch.setattr(tuner, "compared", no_faster)
    monkeypatch.setattr(tuner, "neighbour", lambda best, rng, functions=(): _jam_eight(best, _band(best)))
    result = autotune(program, budget=1, repeat=1, workdir=tmp_path / "work", min_gain=0.5, search="local")
    assert [ev.kept for ev in result.evaluations] == [True]
    assert not result.confirmed and result.speedup == 1.0
    assert json.loads(result.best.to_json())["recipes"] == json.loads(default_recipes(program).to_json())["recipes"]


def _band(book: RecipeBook) -> str:
    return next(s.target for s in tunable(book)[0].steps if s.kind == "unroll-and-jam")


def scops_of(book: RecipeBook, function: str) -> str:
    return next(r.scop for r in book.recipes if r.function == function)


def _jam_eight(book: RecipeBook, band: str):
    from s2s.transforms.decisions import Step
    from s2s.tuning.recipe import ScopRecipe
    from s2s.tuning.search import Move

    recipes = [ScopRecipe(r.scop, r.function, r.line, tuple(
        Step.of("unroll-and-jam", band, factor=8) if s.kind == "unroll-and-jam" else s for s in r.steps))
        for r in book.recipes]
    return Move(recipes[0].scop, "jam 8", RecipeBook(book.provenance, recipes))


def test_s2s_tune_command(program, tmp_path):
    from s2s.cli import main

    out = tmp_path / "best.json"
    rc = main(["tune", program.sources[0], "--cflags=-O2", "--time-from-output", "--budget", "2", "--repeat", "1",
               "-o", str(out),
               "--csv", str(tmp_path / "ev.csv"), "--plot", str(tmp_path / "best.png")])
    assert rc == 0 and out.exists() and (tmp_path / "best.png").stat().st_size > 1000
    rows = (tmp_path / "ev.csv").read_text().splitlines()
    assert rows[0].startswith("evaluation,change,status") and len(rows) == 3
    assert all(",ok," in r or ",refused," in r for r in rows[1:]), rows
    assert os.path.getsize(out) > 100


def test_tpe_space_starts_from_the_rules_recipe(program, tmp_path):
    from s2s.tuning import tpe
    from s2s.tuning.tuner import differing, rules_under

    book = default_recipes(program)
    frames = []

    def rules(scop, frame):
        frames.append((scop, frame))
        return rules_under(program, book, scop, frame, tmp_path)

    space = tpe.Space(book, rules)
    defaults = space.defaults()
    assert defaults and not frames                       # (the rules' own structure: nothing asked)
    assert space.sampled(lambda name, choices, default: defaults[name]).key() == book.key()
    assert all(defaults[name] in choices for name, choices in _choices(space).items())
    # the last choice of every knob: other structures (asked of s2s opt once each), other knobs
    last = space.sampled(lambda name, choices, default: choices[-1])
    assert differing(last, book) and frames
    asked = len(frames)
    assert space.sampled(lambda name, choices, default: choices[-1]).key() == last.key() and len(frames) == asked


def _choices(space) -> dict:
    seen = {}
    space.sampled(lambda name, choices, default: seen.setdefault(name, choices) and default)
    return seen


def test_tpe_search_evaluates_within_its_budget(program, tmp_path):
    result = autotune(program, budget=3, repeat=1, workdir=tmp_path / "work", search="tpe")
    assert 1 <= len(result.evaluations) <= 3
    assert all(ev.status in ("ok", "refused", "wrong output", "failed") for ev in result.evaluations)
    assert not any(ev.kept for ev in result.evaluations if ev.status != "ok")
    assert all(ev.change.startswith("trial ") for ev in result.evaluations)


def test_compared_on_the_nests_both_builds_timed():
    s, t = frozenset(["f/1"]), frozenset(["g/2"])
    default = Timing((1.0, 1.1, 1.0), nests={s: (0.4, 0.5, 0.5), t: (0.3, 0.3, 0.3)})
    faster = Timing((0.9, 0.9, 0.9), nests={s: (0.2, 0.2, 0.3), t: (0.3, 0.3, 0.3)})
    assert compared(faster, default, s) == (0.2, 0.5, s)
    assert compared(faster, default, s | t) == (pytest.approx(0.5), pytest.approx(0.8), s | t)
    untimed = Timing((0.8, 0.8, 0.8))                 # (no timers: the programs' times decide)
    assert compared(untimed, default, s) == (0.8, 1.0, frozenset())
    assert compared(faster, default, frozenset(["h/3"])) == (0.9, 1.0, frozenset())
    assert default.spread(s) == pytest.approx(0.25)


def test_differing_recipes():
    from s2s.transforms.decisions import Step
    from s2s.tuning.recipe import Provenance, RecipeBook, ScopRecipe

    p = Provenance.here("", "cc", [], "c")
    keep, fuse = (Step.of("keep-original", "scop", reason="r"),), (Step.of("fuse", "scop", policy="max"),)
    a = RecipeBook(p, [ScopRecipe("f/1", "f", 1, keep), ScopRecipe("g/2", "g", 5, keep)])
    assert differing(a, a) == frozenset()
    assert differing(a.with_steps("g/2", fuse), a) == frozenset(["g/2"])


def test_an_interchange_move_adds_a_permute_step_and_undoes_it(program):
    from s2s.tuning.search import _interchanged

    recipe = next(r for r in tunable(default_recipes(program)) if r.function == "step")
    tile = next(s for s in recipe.steps if s.kind == "tile")
    swapped, order = _interchanged(recipe.steps, tile, random.Random(0))
    assert order == [1, 0] and [s.kind for s in swapped].index("permute") == [s.kind for s in swapped].index("tile") - 1
    back, order = _interchanged(swapped, tile, random.Random(0))
    assert order is None and back == recipe.steps
