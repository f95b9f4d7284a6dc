"""The autotuner's other search: Optuna's TPE sampler over the knobs of every tunable SCoP
(``s2s tune --search tpe``), for comparison with the local search (``search.neighbour``).

A trial decides, per SCoP, its structure first: past the rules' gain checks or not (a SCoP they
keep as written), the fusion policy, the wavefront, threads and kernels switched on or off, and
each expanded array along as many loops as the rules' expansion or fewer, where the rules' steps
have them. The steps the optimizer takes for that structure are asked of
``s2s opt`` (once per structure, as the rules would take them under those decisions); the trial
then sets their knobs: the order of a band's loops (interchange), tiled or not and the tile size
per band member, unroll-and-jam copies, the OpenMP schedule of its parallel loop (under threads),
the kernels' panel depth and rows. Parameters are named
by SCoP, structure and step target, so TPE learns each structure's knobs apart; every choice
list holds the rules' own value. The rules' recipe is the first trial, told its measured time
without another build.

The objective is a candidate's time over the default's on what it changes (``tuner.compared``);
a candidate that fails, is refused or prints anything else is a failed trial. What is kept, and
confirmed at the end, follows the same rule as the local search.
"""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Callable, Protocol

from s2s.ir.library import Blocking
from s2s.transforms.decisions import OMP_SCHEDULES, Step, band_loops
from s2s.tuning.recipe import RecipeBook, ScopRecipe
from s2s.tuning.search import FUSIONS, JAM_FACTORS, tunable

TILES = (8, 16, 32, 64, 128, 256, 512)
DEPTHS = (64, 128, 256, 384, 512, 768, 1024)
PANEL_ROW_BLOCKS = (4, 8, 16, 32, 64)     # panel rows, in register blocks
STARTUP_TRIALS = 4                         # random trials before TPE models (Optuna's default is 10)
SWITCHED = ("wavefront", "split-statements", "parallelize", "matmul-kernel")
MAX_PERMUTED = 4                           # bands of up to this many loops get an order knob (4! orders)


class Chooser(Protocol):
    def __call__(self, name: str, choices: list, default) -> object: ...


@dataclass
class Space:
    """The knobs of one program's tunable SCoPs; ``rules(scop, frame)`` gives the steps the rules
    take under ``frame`` (cached: one ``s2s opt`` run per structure)."""

    book: RecipeBook
    rules: Callable[[str, tuple[Step, ...]], tuple[Step, ...]]
    functions: tuple[str, ...] = ()
    _taken: dict = field(default_factory=dict)

    def sampled(self, choose: Chooser) -> RecipeBook:
        """The book whose tunable SCoPs take what ``choose`` picks."""
        book = self.book
        for recipe in tunable(self.book, self.functions):
            book = book.with_steps(recipe.scop, self._scop(recipe, choose))
        return book

    def defaults(self) -> dict[str, object]:
        """The parameters that give the rules' recipe."""
        picked: dict[str, object] = {}

        def default(name: str, choices: list, value) -> object:
            picked[name] = value
            return value

        self.sampled(default)
        return picked

    def _scop(self, recipe: ScopRecipe, choose: Chooser) -> tuple[Step, ...]:
        key = recipe.scop
        steps = recipe.steps
        frame: list[Step] = []
        if steps[0].kind == "keep-original":
            if choose(f"{key}|gain-checks", ["on", "off"], "on") == "on":
                return steps
            frame.append(Step.of("profitability", "scop", enabled=False))
            steps = self._rules(key, tuple(frame))
        fuse = next((s.values.get("policy") for s in steps if s.kind == "fuse"), None)
        if fuse is not None:
            policy = choose(f"{key}|fuse", list(FUSIONS), fuse)
            if policy != fuse:
                frame.append(Step.of("fuse", "scop", policy=policy))
        for s in steps:
            if s.kind in SWITCHED and "enabled" in s.values:
                on = bool(s.values["enabled"])
                if choose(f"{key}|{s.kind}", ["on", "off"], "on" if on else "off") != ("on" if on else "off"):
                    frame.append(Step.of(s.kind, s.target, enabled=not on))
            if s.kind == "expand" and isinstance(s.values.get("arrays"), dict):
                # (each array along as many of the loops the rules expanded it along, or fewer)
                given = s.values["arrays"]
                picked = {a: int(choose(f"{key}|expand|{a}", list(range(d + 1)), d)) for a, d in sorted(given.items())}
                if picked != given:
                    frame.append(Step.of("expand", s.target, arrays=picked))
        if frame and frame != [Step.of("profitability", "scop", enabled=False)]:
            steps = self._rules(key, tuple(frame))
        structure = hashlib.sha256(json.dumps([s.as_dict() for s in frame]).encode()).hexdigest()[:6]
        threads = any(s.kind == "parallelize" and s.target == "scop" and s.values.get("enabled") for s in steps)
        out: list[Step] = []
        for s in steps:
            name, members = f"{key}|{structure}|{s.target}", band_loops(steps, s.target)
            if s.kind == "tile" and 2 <= members <= MAX_PERMUTED:
                out += _order(steps, s.target, name, choose, members)
            if s.kind == "parallelize" and s.target != "scop":
                continue    # (the knob below asks again)
            if s.kind != "permute":
                out.append(_knobs(s, name, choose, members))
            if s.kind == "tile" and threads:
                out += _omp_schedule(steps, s.target, name, choose)
        return tuple(out)

    def _rules(self, scop: str, frame: tuple[Step, ...]) -> tuple[Step, ...]:
        if (scop, frame) not in self._taken:
            self._taken[scop, frame] = self.rules(scop, frame) or frame
        return self._taken[scop, frame]


def _order(steps: tuple[Step, ...], target: str, name: str, choose: Chooser, members: int) -> list[Step]:
    """The ``permute`` step of band ``target`` as ``choose`` picks its order (none: the
    scheduler's)."""
    given = next((s.values.get("order") for s in steps if s.kind == "permute" and s.target == target), None)
    default = ",".join(map(str, given or range(members)))
    picked = choose(f"{name}|order", [",".join(map(str, p)) for p in itertools.permutations(range(members))], default)
    order = [int(x) for x in str(picked).split(",")]
    return [] if order == sorted(order) else [Step.of("permute", target, order=order)]


def _omp_schedule(steps: tuple[Step, ...], target: str, name: str, choose: Chooser) -> list[Step]:
    """A ``parallelize`` step of band ``target`` with the OpenMP schedule ``choose`` picks for its
    parallel loop (none: the back end's)."""
    given = next((s.values for s in steps if s.kind == "parallelize" and s.target == target), {})
    picked = choose(f"{name}|omp-schedule", ["default", *OMP_SCHEDULES], given.get("schedule", "default"))
    values = {k: v for k, v in given.items() if k != "schedule"}   # (a recipe's parallel loop stays)
    if picked != "default":
        values["schedule"] = picked
    return [Step.of("parallelize", target, **values)] if values else []


def _knobs(step: Step, name: str, choose: Chooser, members: int) -> Step:
    """``step`` with its knobs as ``choose`` picks them (``members``: the loops of its band)."""
    values = step.values
    if step.kind == "tile":
        sizes = list(values.get("sizes") or [])
        members = len(sizes) or members
        if not members:
            return step
        tiled = choose(f"{name}|tiled", ["yes", "no"], "yes" if sizes else "no")
        if tiled == "no":
            return Step.of("tile", step.target, sizes=[])
        picked = [int(choose(f"{name}|tile{j}", sorted(set(TILES) | ({sizes[j]} if sizes else set())),
                             sizes[j] if sizes else 32)) for j in range(members)]
        return Step.of("tile", step.target, **{**values, "sizes": picked})   # (beyond_cache kept)
    if step.kind == "unroll-and-jam":
        factor = int(values.get("factor", 0))
        picked = int(choose(f"{name}|jam", sorted(set(JAM_FACTORS) | {factor}), factor))
        return step if picked == factor else Step.of("unroll-and-jam", step.target, **{**values, "factor": picked})
    if step.kind == "matmul-kernel" and values.get("blocking"):
        blocking = dict(values["blocking"])
        for statement in sorted(blocking):
            b = Blocking.parse(blocking[statement])
            depth = int(choose(f"{name}|{statement}|depth", sorted(set(DEPTHS) | {b.depth}), b.depth))
            rows = int(choose(f"{name}|{statement}|panel-rows",
                              sorted({b.rows * k for k in PANEL_ROW_BLOCKS} | {b.panel_rows}), b.panel_rows))
            blocking[statement] = Blocking(b.rows, b.vectors, b.lanes, depth, rows, b.panel_columns).text
        return Step.of("matmul-kernel", step.target, **{**values, "blocking": blocking})
    return step


def search(space: Space, budget: int, evaluate: Callable[[list[RecipeBook]], list[float | None]],
           seed: int = 0, workers: int = 1) -> int:
    """Run TPE over ``space`` for ``budget`` evaluations, ``workers`` trials at a time;
    ``evaluate(books)`` builds and times them (a time relative to the default's, None: failed).
    Returns the trials asked."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=STARTUP_TRIALS, constant_liar=workers > 1)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    study.enqueue_trial(space.defaults())
    default_key = space.book.key()
    known: dict[tuple, float | None] = {default_key: 1.0}
    spent = asked = 0
    limit = 10 * budget + 10     # (asks, duplicates included: a space smaller than the budget ends it)
    while spent < budget and asked < limit:
        trials, books, again = [], [], []
        while len(trials) < max(1, workers) and spent + len(trials) < budget and asked < limit:
            trial = study.ask()
            asked += 1
            book = space.sampled(lambda name, choices, default: trial.suggest_categorical(name, choices))
            if book.key() in known:
                _tell(study, trial, known[book.key()])      # (asked before: its time, not another build)
            elif any(b.key() == book.key() for b in books):
                again.append((trial, book.key()))
            else:
                trials.append(trial)
                books.append(book)
        for trial, book, value in zip(trials, books, evaluate(books) if books else []):
            known[book.key()] = value
            _tell(study, trial, value)
        for trial, key in again:
            _tell(study, trial, known[key])
        spent += len(trials)
    return asked


def _tell(study, trial, value: float | None) -> None:
    import optuna

    if value is None:
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
    else:
        study.tell(trial, value)
