"""Transfer tuning: a program's loop nests given the tuned recipes of their nearest neighbours in
the recipe database, each one checked, verified and timed like an autotuner's candidate.

Per SCoP that has something to tune, the ``topk`` nearest tuned nests (``embedding.nearest``
over the database's nests of the same target and feature version) lend their recipes; each is
mapped onto the SCoP (``mapping.map_recipe``: statements matched by structure, bands by the
statements they run) and evaluated on top of the best recipes so far. A SCoP thus costs at most
``topk`` evaluations, and keeps the rules' recipe unless a transferred one beats it by
``min_gain`` and by more than the default's own spread. ``record`` stores what ``autotune``
found, with the features and statements transfer needs, in the database.
"""
from __future__ import annotations

import dataclasses
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from s2s.perf.features import FEATURES_VERSION, ScopFeatures, scop_features
from s2s.transforms.decisions import asked
from s2s.tuning.database import NestRecord, RecipeDB, recipe_json
from s2s.tuning.embedding import Scale, Weights, embed, machine_features, nearest
from s2s.tuning.mapping import map_recipe
from s2s.tuning.recipe import RecipeBook, machine_fingerprint
from s2s.tuning.search import tunable
from s2s.tuning.tuner import (Evaluation, Program, Session, TuneResult, _cpp_flags, _speedup, default_recipes,
                              rules_under)


@dataclass(frozen=True)
class Lent:
    """A tuned nest of the database whose recipe was tried on a SCoP."""

    scop: str
    program: str
    source: str          # the tuned nest's SCoP id
    distance: float
    evaluation: int      # its number among the evaluations (0: it mapped to the SCoP's own recipe)


def nest_features(program: Program, measure: bool = False) -> dict[str, ScopFeatures]:
    """The features of the first source's SCoPs by id; ``measure``: with those a profile of
    the program measures (its sizes, times and roofline verdicts), one instrumented run."""
    profile = _profile(program) if measure else None
    return {f.scop: f for f in scop_features(program.sources[0], _cpp_flags(program), profile=profile)}


def _profile(program: Program):
    from s2s.perf.machine import get_machine
    from s2s.perf.profile import ProfileOptions, run_profile

    cpp = _cpp_flags(program)
    flags = [f for f in program.cflags if f not in cpp]
    args = list(program.run[1:]) if program.run and program.run[0] == "{exe}" else []
    options = ProfileOptions(Path(program.sources[0]), cpp_args=cpp, program_args=args, cflags=flags,
                             ldflags=list(program.libs), extra_sources=[Path(s) for s in program.sources[1:]],
                             repeat=1, hw_counters="off")
    return run_profile(options, machine=get_machine(measure_if_missing=False))


def record(db: RecipeDB, program: Program, result: TuneResult, name: str, dataset: str = "",
           features: dict[str, ScopFeatures] | None = None) -> list[int]:
    """Store the tuned recipe of each tunable SCoP of ``program`` (``result`` of ``autotune``)
    with its features: the rows' ids, filed under the machine ``result``'s times are of (a
    cluster's workers', ``cluster.py``; else this host)."""
    features = features if features is not None else nest_features(program)
    machine = result.machine_features if result.machine_features is not None else machine_features()
    default = {r.scop: r for r in (result.default or default_recipes(program)).recipes}
    provenance = dataclasses.asdict(result.best.provenance)
    ids = []
    for recipe in tunable(result.best, program.functions):
        f = features.get(recipe.scop)
        if f is None:
            continue
        seconds = _times(result, recipe.scop, recipe.steps == (default[recipe.scop].steps if recipe.scop in default
                                                               else None))
        ids.append(db.add(NestRecord(
            scop=recipe.scop, function=recipe.function, program=name, target=program.target,
            machine=result.machine or machine_fingerprint(), params=dict(f.params), dataset=dataset,
            features_version=FEATURES_VERSION,
            features=f.values, statements=f.statements,
            machine_features=machine, recipe=recipe_json(recipe.steps),
            default_recipe=recipe_json(default[recipe.scop].steps if recipe.scop in default else ()),
            default_seconds=seconds[0], tuned_seconds=seconds[1],
            evaluations=len(result.evaluations), tune_seconds=result.wall_seconds, provenance=provenance)))
    return ids


def _times(result: TuneResult, scop: str, unchanged: bool) -> tuple[float, float]:
    """(default, tuned) seconds of one SCoP: its own nest's where it was timed, else those of what
    the tuning changed; a SCoP the tuning left as the rules had it gained nothing."""
    default, tuned = result.nest_seconds.get(scop, (result.default_seconds, result.best_seconds))
    return (default, default) if unchanged else (default, tuned)


Neighbours = Callable[[str, dict[str, ScopFeatures], int], dict[str, list[tuple[NestRecord, float]]]]


def local_neighbours(records: Sequence[NestRecord], weights: Weights = Weights()) -> Neighbours:
    """Per SCoP the ``topk`` nearest of ``records`` of its target and feature version, with
    their distances, nearest first."""
    def found(target: str, features: dict[str, ScopFeatures], topk: int) -> dict[str, list[tuple[NestRecord, float]]]:
        candidates = [r for r in records if r.target == target and r.features_version == FEATURES_VERSION]
        if not candidates:
            return {}
        embeddings = [embed(r.features, r.machine_features) for r in candidates]
        scale, machine = Scale.over(embeddings), machine_features()
        return {scop: [(candidates[n.index], n.distance)
                       for n in nearest(embed(f.values, machine), embeddings, topk, weights, scale)]
                for scop, f in features.items()}

    return found


def transfer_tune(program: Program, records: Sequence[NestRecord], topk: int = 3, repeat: int = 3,
                  timeout_factor: float = 1.5, min_gain: float = 0.05, weights: Weights = Weights(),
                  features: dict[str, ScopFeatures] | None = None, workdir: Path | None = None,
                  progress: Callable[[Evaluation, float], None] | None = None,
                  neighbours: Neighbours | None = None, cluster: str | None = None,
                  workers: int = 1) -> tuple[TuneResult, list[Lent]]:
    """The best of the rules' recipe and those lent by the ``topk`` nearest of ``records`` per SCoP
    (``neighbours``: another way to find them, a recipe server's). A SCoP's lent recipes are one
    round of candidates, built ``workers`` at a time here or, with ``cluster``, on that Dask
    cluster's workers (``cluster.py``), and judged in order as ``autotune``'s are."""
    from s2s.tuning.cluster import evaluator

    started = time.monotonic()
    work = Path(workdir or tempfile.mkdtemp(prefix="s2s-transfer-"))
    work.mkdir(parents=True, exist_ok=True)
    with evaluator(cluster, workers) as where:
        base = where.baseline(program, work, repeat, timeout_factor)
        program = base.program
        features = features if features is not None else nest_features(program)
        found = (neighbours or local_neighbours(records, weights))(program.target, features, topk)
        searching = time.monotonic()
        lent: list[Lent] = []
        with Session(program, base, work, repeat, min_gain, progress, where.slots, where) as session:
            for recipe in tunable(base.book, program.functions):
                f = features.get(recipe.scop)
                if f is not None:
                    lent += _lent_round(session, recipe, f, found.get(recipe.scop, []), work)
        result = TuneResult(base.seconds, base.noise, base.seconds / _speedup(base, session.best),
                            session.best.book, session.evaluations, default=base.book, machine=where.machine,
                            machine_features=where.machine_features, search_seconds=time.monotonic() - searching)
        return where.confirmed(program, base, result, repeat, min_gain, work, started), lent


def _lent_round(session: Session, recipe, f: ScopFeatures, near: list[tuple[NestRecord, float]],
                work: Path) -> list[Lent]:
    """The recipes ``near`` lend SCoP ``recipe.scop``, mapped onto it under the best recipes so far,
    evaluated as one round (a mapping that asks what is tried already is not evaluated again)."""
    program, best = session.program, session.best.book
    tried = {asked(next(r.steps for r in best.recipes if r.scop == recipe.scop))}
    first = len(session.evaluations) + 1
    changes: list[tuple[str, RecipeBook]] = []
    lent = []
    for source, distance in near:
        mapped = map_recipe(source.steps(), source.statements, f.statements,
                            lambda frame: rules_under(program, best, recipe.scop, frame, work))
        if asked(mapped.steps) in tried:
            lent.append(Lent(recipe.scop, source.program, source.scop, distance, 0))
            continue
        tried.add(asked(mapped.steps))
        lent.append(Lent(recipe.scop, source.program, source.scop, distance, first + len(changes)))
        changes.append((f"{recipe.function}: recipe of {source.program} {source.scop} (distance {distance:.2f})",
                        best.with_steps(recipe.scop, mapped.steps)))
    session.evaluated(changes)
    return lent
