"""The autotuner (``s2s tune``): recipes searched by measuring them.

It starts from the rules' recipe (``s2s opt --emit-recipes``) and searches its knobs with
Optuna's TPE (``tpe.py``), or locally: in each evaluation one knob of the best recipe so far, or
now and then of one of the fastest right candidates not kept (``search.neighbour``: tile sizes,
an interchange, unroll-and-jam copies, fusion, the kernels' panel depth and rows, the rules' gain
checks). Each candidate is built with ``s2s-cc --s2s-recipes``, run (killed past
``timeout_factor`` times the default's longest run), and its output compared with the default
build's, byte for byte: a candidate that prints anything else is discarded and logged (s2s never
reassociates, so a right candidate prints exactly the same). A candidate is kept when it beats
the best by ``min_gain`` and by more than the default's own spread between runs.

What is timed is what a candidate changes: the builds carry a timer around every loop nest that
holds a SCoP (``s2s-cc --s2s-time-nests``), so a candidate is compared with the best on the time
of the nests whose recipes differ between them (``Timing``). Where one of those nests has no
timer (a ``return`` inside it, say) the program's time decides: its wall time, or what it prints
as its time (``time_from_output``: a PolyBench kernel built with ``-DPOLYBENCH_TIME``, whose
arrays are then compared from the dump it writes to stderr).

With ``workers`` above 1 the candidates come in rounds of that many, built side by side; they
are run one at a time, with nothing else building, so that no build disturbs a timing. Where they
are built and run is an evaluator's business (``cluster.py``): here, or on the workers of a Dask
cluster (``cluster``), one candidate per worker at a time.
"""
from __future__ import annotations

import dataclasses
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from s2s.tuning.recipe import Provenance, RecipeBook
from s2s.tuning.search import neighbour

if TYPE_CHECKING:
    from s2s.tuning.cluster import Evaluator


RUNNERS_UP = 3    # the right candidates, not kept, that the search may start a move from
EXPLORE = 0.3     # how often it does


@dataclass(frozen=True)
class Program:
    """How to build and run the program being tuned."""

    sources: tuple[str, ...]               # the first is the one whose SCoPs are tuned
    cflags: tuple[str, ...] = ("-O3", "-march=native")
    libs: tuple[str, ...] = ("-lm",)
    run: tuple[str, ...] = ()              # the command ({exe}: the binary); (): the binary alone
    time_from_output: bool = False         # the program prints its own time (the last number on stdout)
    functions: tuple[str, ...] = ()        # the functions whose SCoPs are tuned (): all
    time_nests: bool = True                # timers around the loop nests (else the program's time decides)

    @property
    def openmp(self) -> bool:
        return "-fopenmp" in self.cflags

    @property
    def target(self) -> str:
        """The s2s target its builds use."""
        return "openmp" if self.openmp else "c"


@dataclass(frozen=True)
class Timing:
    """One build's times over its runs: the program's, and with timers each timed statement's,
    by the ids of the SCoPs in it."""

    runs: tuple[float, ...]
    walls: tuple[float, ...] = ()
    nests: dict[frozenset[str], tuple[float, ...]] = field(default_factory=dict)

    def covers(self, scops: frozenset[str]) -> bool:
        timed = frozenset().union(*self.nests) if self.nests else frozenset()
        return bool(scops) and scops <= timed

    def series(self, scops: frozenset[str] = frozenset()) -> tuple[float, ...]:
        """Per run, the time of the timed statements that hold ``scops``; the program's when
        one of them is not timed (or ``scops`` is empty)."""
        if not self.covers(scops):
            return self.runs
        return tuple(map(sum, zip(*(t for ids, t in self.nests.items() if ids & scops))))

    def seconds(self, scops: frozenset[str] = frozenset()) -> float:
        return statistics.median(self.series(scops))

    def spread(self, scops: frozenset[str] = frozenset()) -> float:
        """median / fastest - 1: one slow run, a neighbour's burst, is not the code's spread."""
        series = self.series(scops)
        return statistics.median(series) / min(series) - 1 if min(series) > 0 else 0.0


def compared(candidate: Timing, reference: Timing, scops: frozenset[str]) -> tuple[float, float, frozenset[str]]:
    """(candidate's seconds, reference's, the SCoPs timed) on what ``scops`` changes, the same
    measure for both: the nests' timers where both builds have them all, else the programs'."""
    if not (candidate.covers(scops) and reference.covers(scops)):
        scops = frozenset()
    return candidate.seconds(scops), reference.seconds(scops), scops


def differing(a: RecipeBook, b: RecipeBook) -> frozenset[str]:
    """The SCoPs whose steps differ between ``a`` and ``b``."""
    steps = {r.scop: r.steps for r in b.recipes}
    return frozenset(r.scop for r in a.recipes if steps.get(r.scop) != r.steps) | frozenset(
        scop for scop in steps if a.steps_for(scop) is None)


@dataclass(frozen=True)
class Evaluation:
    number: int
    change: str
    status: str                      # "ok", "wrong output", "failed", "timeout", "refused"
    seconds: float | None = None     # the time of what it changed (``compared``)
    kept: bool = False
    detail: str = ""
    speedup: float | None = None     # over the default recipe, on what differs between them
    worker: str = ""                 # the cluster's worker that built and ran it ("": here)
    machine: str = ""                # that worker's machine fingerprint ("": here)


@dataclass
class TuneResult:
    default_seconds: float            # what the best changes (its nests, else the program), default recipe
    noise: float                      # the default's spread between runs (median / fastest - 1)
    best_seconds: float               # the same, best recipes
    best: RecipeBook
    evaluations: list[Evaluation] = field(default_factory=list)
    wall_seconds: float = 0.0
    default: RecipeBook | None = None   # the rules' recipes, the best was measured against
    confirmed: bool = True            # the best's gain held when timed again beside the default
    nest_seconds: dict[str, tuple[float, float]] = field(default_factory=dict)   # by SCoP: (default, best)
    # the machine the times are of, where it is not this host (tuned on a cluster's workers)
    machine: str | None = None
    machine_features: dict[str, float] | None = None
    search_seconds: float = 0.0       # of ``wall_seconds``, the search's (not the default's runs, nor the confirmation)

    @property
    def speedup(self) -> float:
        return self.default_seconds / self.best_seconds


@dataclass(frozen=True)
class Baseline:
    """The default recipe's build, measured: what every candidate is checked and timed against."""

    program: Program             # as built (without timers where the timed build did not run)
    book: RecipeBook
    output: tuple[str, str]
    timing: Timing
    timeout: float               # past which a candidate is killed

    @property
    def seconds(self) -> float:
        return self.timing.seconds()

    @property
    def noise(self) -> float:
        return self.timing.spread()


def baseline(program: Program, work: Path, repeat: int = 3, timeout_factor: float = 1.5,
             book: RecipeBook | None = None, name: str = "default") -> Baseline:
    """The default recipe (``book``: the one another machine found) built as ``work``/``name``
    and run ``repeat`` times; without nest timers when the timed build does not build or run."""
    default = book or default_recipes(program)
    reference, timing = build_and_run(program, default, work / name, repeat, timeout=None)
    if isinstance(reference, str) and program.time_nests:
        program = dataclasses.replace(program, time_nests=False)
        reference, timing = build_and_run(program, default, work / name, repeat, timeout=None)
    if isinstance(reference, str):
        raise RuntimeError(f"the default build does not run: {reference}")
    return Baseline(program, default, reference, timing, max(1.0, timeout_factor * max(timing.walls)))


@dataclass(frozen=True)
class Standing:
    """The recipes a candidate must beat, and their build's times."""

    book: RecipeBook
    timing: Timing


@dataclass(frozen=True)
class Candidate:
    """A candidate built: its executable (or why there is none) and its recipes as the
    optimizer took them (a new schedule's bands; None where the build failed)."""

    book: RecipeBook
    exe: Path | str
    taken: RecipeBook | None


def built(program: Program, book: RecipeBook, stem: Path) -> Candidate:
    exe = build(program, book, stem)
    return Candidate(book, exe, _as_taken(program, stem.with_suffix(".json"), book) if isinstance(exe, Path) else None)


def _evaluate(program: Program, candidate: Candidate, base: Baseline, repeat: int, number: int, change: str,
              best: Standing, min_gain: float) -> tuple[Evaluation, Timing | None]:
    """One candidate run, checked against the default's output and timed; ``kept`` when it beats
    ``best`` on what differs between them by ``min_gain`` and by more than the default's spread."""
    if not isinstance(candidate.exe, Path):
        return failed(number, change, candidate.exe), None
    output, timing = run_built(program, candidate.exe, repeat, base.timeout)
    if isinstance(output, str):
        return failed(number, change, output), None
    if output != base.output:
        return Evaluation(number, change, "wrong output"), None
    return timed(number, change, candidate.book, timing, base, best, min_gain)


def failed(number: int, change: str, why: str) -> Evaluation:
    """A candidate that did not build or run: ``why`` starts with its status."""
    return Evaluation(number, change, why.split(":")[0], detail=why)


def timed(number: int, change: str, book: RecipeBook, timing: Timing, base: Baseline, best: Standing,
          min_gain: float) -> tuple[Evaluation, Timing]:
    """A right candidate's evaluation from its times (in the units of ``base``'s machine)."""
    seconds, reference, scops = compared(timing, best.timing, differing(book, best.book))
    mine, default, _ = compared(timing, base.timing, differing(book, base.book))
    kept = seconds < reference * (1 - max(min_gain, base.timing.spread(scops)))
    return Evaluation(number, change, "ok", seconds, kept, speedup=default / mine if mine > 0 else None), timing


SEARCHES = ("tpe", "local")


def autotune(program: Program, budget: int = 20, repeat: int = 3, timeout_factor: float = 1.5,
             min_gain: float = 0.05, seed: int = 0, workdir: Path | None = None,
             progress: Callable[[Evaluation, float], None] | None = None, workers: int = 1,
             search: str = "tpe", cluster: str | None = None) -> TuneResult:
    """Search recipes for ``program``'s first source within ``budget`` evaluations, ``workers``
    candidates built at a time, by Optuna's TPE (``tpe.py``) or the local search of
    ``search.neighbour``; with ``cluster`` (``dask://HOST:PORT``) on that Dask cluster's workers,
    as many candidates at a time as it has workers (``cluster.DaskEvaluator``)."""
    from s2s.tuning.cluster import evaluator   # (cluster.py builds on this module)

    if search not in SEARCHES:
        raise ValueError(f"unknown search {search!r} (known: {', '.join(SEARCHES)})")
    started = time.monotonic()
    work = Path(workdir or tempfile.mkdtemp(prefix="s2s-tune-"))
    work.mkdir(parents=True, exist_ok=True)
    with evaluator(cluster, workers) as where:
        base = where.baseline(program, work, repeat, timeout_factor)
        searching = time.monotonic()
        with Session(base.program, base, work, repeat, min_gain, progress, where.slots, where) as session:
            if search == "tpe":
                _tpe(session, budget, seed)
            else:
                _local(session, budget, seed)
        best = session.best
        result = TuneResult(base.seconds, base.noise, base.seconds / _speedup(base, best), best.book,
                            session.evaluations, default=base.book, machine=where.machine,
                            machine_features=where.machine_features, search_seconds=time.monotonic() - searching)
        return where.confirmed(base.program, base, result, repeat, min_gain, work, started)


class Session:
    """The candidates of one tuning, ``workers`` at a time: built and run where ``evaluator`` says
    (default: built here side by side, then run one at a time), each checked and timed against the
    best so far, which it replaces when it is kept."""

    def __init__(self, program: Program, base: Baseline, work: Path, repeat: int, min_gain: float,
                 progress: Callable[[Evaluation, float], None] | None, workers: int,
                 evaluator: Evaluator | None = None):
        from s2s.tuning.cluster import LocalEvaluator   # (cluster.py builds on this module)

        self.program, self.base, self.work, self.repeat, self.min_gain = program, base, work, repeat, min_gain
        self.progress, self.workers = progress, max(1, workers)
        self.best = Standing(base.book, base.timing)
        self.evaluations: list[Evaluation] = []
        self.owned = evaluator is None            # (an evaluator given outlives the session)
        self.evaluator = LocalEvaluator(self.workers) if evaluator is None else evaluator

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        if self.owned:
            self.evaluator.close()

    def evaluated(self, changes: list[tuple[str, RecipeBook]]) -> list[tuple[Evaluation, Standing | None]]:
        """Each ``(description, book)`` built, run and timed, in order: its evaluation and, when
        right, its recipes as taken with their times. The evaluator judges each against the best
        as the ones before it left it, so that a round decides as one candidate at a time would."""
        out = []
        for ev, taken, timing in self.evaluator.evaluated(self, changes, len(self.evaluations) + 1):
            standing = Standing(taken, timing) if ev.status == "ok" and taken is not None else None
            out.append((ev, standing))
            if ev.kept and standing is not None:
                self.best = standing
            self.evaluations.append(ev)
            if self.progress:
                self.progress(ev, _speedup(self.base, self.best))
        return out


def _local(session: Session, budget: int, seed: int) -> None:
    """The local search: ``workers`` moves at a time from the best (or a runner-up)."""
    rng = random.Random(seed)
    seen = {session.base.book.key()}
    runners_up: list[tuple[float, Standing]] = []   # right candidates not kept, by their time over the best's
    while len(session.evaluations) < budget:
        moves = []
        for _ in range(min(session.workers, budget - len(session.evaluations))):
            move = _drawn(session.best, runners_up, rng, seen, session.program.functions)
            if move is None:
                break
            seen.add(move.book.key())
            moves.append(move)
        if not moves:
            break
        best = session.best
        for ev, standing in session.evaluated([(m.description, m.book) for m in moves]):
            if standing is None:
                continue
            if ev.kept:
                runners_up.append((1.0, best))
                best = standing
            else:
                mine, reference, _ = compared(standing.timing, session.best.timing,
                                              differing(standing.book, session.best.book))
                runners_up.append((mine / reference, standing))
            runners_up.sort(key=lambda pair: pair[0])


def _tpe(session: Session, budget: int, seed: int) -> None:
    from s2s.tuning import tpe

    program = session.program
    space = tpe.Space(session.base.book, lambda scop, frame: rules_under(program, session.base.book, scop, frame,
                                                                         session.work), program.functions)

    def evaluate(books: list[RecipeBook]) -> list[float | None]:
        results = session.evaluated([(f"trial {len(session.evaluations) + k + 1}: {_shown(book, session.base.book)}",
                                      book) for k, book in enumerate(books)])
        return [1 / ev.speedup if ev.status == "ok" and ev.speedup else None for ev, _ in results]

    tpe.search(space, budget, evaluate, seed, session.workers)


def _shown(book: RecipeBook, default: RecipeBook) -> str:
    """What ``book`` asks that the default does not, in a few words."""
    from s2s.transforms.decisions import asked

    changed = []
    for r in book.recipes:
        theirs = set(asked(default.steps_for(r.scop) or ()))
        steps = [str(s) for s in r.steps if asked((s,)) and asked((s,))[0] not in theirs]
        if steps:
            changed.append(f"{r.function}: {', '.join(steps)}")
    return "; ".join(changed)[:300] or "the default"


def rules_under(program: Program, book: RecipeBook, scop: str, frame: tuple, work: Path) -> tuple:
    """The steps the rules take for ``scop`` when its recipe is only ``frame`` (the others' as
    in ``book``)."""
    path = work / f"frame-{os.getpid()}-{time.monotonic_ns()}.json"
    book.with_steps(scop, frame).save(path)
    taken = next((r for r in _steps_taken(program, path) if r.scop == scop), None)
    return taken.steps if taken else ()


def _drawn(best: Standing, runners_up: list, rng: random.Random, seen: set, functions: tuple[str, ...]):
    """A move not tried before (None: none found): mostly around the best; now and then around a
    runner-up (a schedule the rules rejected may need other tiles before it pays)."""
    for _ in range(50):   # (a move that changes nothing, or to a recipe tried before, is drawn again)
        parent = runners_up[rng.randrange(min(RUNNERS_UP, len(runners_up)))][1] if (
            runners_up and rng.random() < EXPLORE) else best
        move = neighbour(parent.book, rng, functions)
        if move is not None and move.book.key() not in seen:
            return move
    return None


def _speedup(base: Baseline, best: Standing) -> float:
    mine, default, _ = compared(best.timing, base.timing, differing(best.book, base.book))
    return default / mine if mine > 0 else 1.0


def confirmed(program: Program, base: Baseline, result: TuneResult, repeat: int, min_gain: float, work: Path,
              started: float) -> TuneResult:
    """``result`` with its best timed again beside the default, interleaved: a gain measured
    once against a default timed once, early, may have been a busy moment. Where the best is
    not ``min_gain`` faster in those rounds too, the default stands (``confirmed`` False)."""
    if result.best is base.book:
        return dataclasses.replace(result, wall_seconds=time.monotonic() - started)
    rounds: dict[str, list[Timing]] = {"default": [], "best": []}
    exes = {name: build(program, book, work / f"confirm-{name}") for name, book in (("default", base.book),
                                                                                    ("best", result.best))}
    for k in range(max(3, repeat)):
        for name, exe in exes.items():
            output, timing = run_built(program, exe, 1, base.timeout * 2) if isinstance(exe, Path) else (exe, None)
            if isinstance(output, str) or output != base.output:
                return dataclasses.replace(result, best=base.book, best_seconds=base.seconds, confirmed=False,
                                           wall_seconds=time.monotonic() - started)
            rounds[name].append(timing)
    default_timing, best_timing = (_joined(rounds[name]) for name in ("default", "best"))
    best, default, timed = compared(best_timing, default_timing, differing(result.best, base.book))
    nests = {scop: (default_timing.seconds(frozenset([scop])), best_timing.seconds(frozenset([scop])))
             for scop in timed}
    if best < default * (1 - min_gain):
        return dataclasses.replace(result, default_seconds=default, best_seconds=best, nest_seconds=nests,
                                   wall_seconds=time.monotonic() - started)
    return dataclasses.replace(result, default_seconds=default, best=base.book, best_seconds=default, confirmed=False,
                               wall_seconds=time.monotonic() - started)


def _joined(timings: list[Timing]) -> Timing:
    """Single runs as one timing of all of them."""
    nests: dict[frozenset[str], tuple[float, ...]] = {}
    if all(t.nests.keys() == timings[0].nests.keys() for t in timings):
        nests = {ids: tuple(x for t in timings for x in t.nests[ids]) for ids in timings[0].nests}
    return Timing(tuple(x for t in timings for x in t.runs), tuple(x for t in timings for x in t.walls), nests)


def default_recipes(program: Program) -> RecipeBook:
    """The rules' recipe for the program's first source."""
    text = Path(program.sources[0]).read_text(errors="surrogateescape")
    return RecipeBook(Provenance.here(text, "cc", list(program.cflags), program.target), _steps_taken(program))


def _steps_taken(program: Program, recipes: Path | None = None) -> list:
    """Per SCoP of the first source the steps the optimizer takes (replaying ``recipes``): what
    ``s2s opt --emit-recipes`` writes (run as the tool it is, like the builds)."""
    with tempfile.TemporaryDirectory(prefix="s2s-steps-") as tmp:
        out = Path(tmp) / "taken.json"
        ran = subprocess.run([sys.executable, "-m", "s2s.cli", "opt", program.sources[0], "-o", os.devnull,
                              "--target", program.target, "--emit-recipes", str(out),
                              *(["--recipes", str(recipes)] if recipes else []), *_cpp_flags(program)],
                             capture_output=True, text=True, env={**os.environ, "S2S_MODE": "pluto"})
        if ran.returncode != 0 or not out.is_file():
            raise RuntimeError(f"s2s opt {program.sources[0]}: {ran.stderr.strip()[-400:]}")
        return list(RecipeBook.load(out).recipes)


def _cpp_flags(program: Program) -> list[str]:
    return [f for f in program.cflags if f.startswith(("-D", "-I", "-U", "-std", "-include"))]


def _as_taken(program: Program, recipes: Path, book: RecipeBook) -> RecipeBook:
    """``book`` as the optimizer replays it: each SCoP's steps as it took them."""
    return RecipeBook(book.provenance, _steps_taken(program, recipes))


def build_and_run(program: Program, book: RecipeBook, stem: Path, repeat: int,
                  timeout: float | None) -> tuple[str | tuple[str, str], Timing | None]:
    """(stdout and stderr of the program, its times), or (why it did not run, None)."""
    exe = build(program, book, stem)
    return run_built(program, exe, repeat, timeout) if isinstance(exe, Path) else (exe, None)


def build(program: Program, book: RecipeBook, stem: Path) -> Path | str:
    """The program built with ``book``'s recipes (``stem``.exe), or why it was not."""
    recipes, exe = stem.with_suffix(".json"), stem.with_suffix(".exe")
    book.save(recipes)
    env = {**os.environ, "S2S_MODE": "pluto", "S2S_RECIPES": str(recipes),
           "S2S_TARGET": program.target, "S2S_TIME_NESTS": "1" if program.time_nests else "0"}
    built = subprocess.run([_s2s_cc(), *program.cflags, "--s2s-report", *program.sources, "-o", str(exe),
                            *program.libs], capture_output=True, text=True, env=env)
    if built.returncode != 0:
        return f"failed: build: {built.stderr.strip().splitlines()[-1:] or ''}"
    if "refused" in built.stderr or "compiled unchanged" in built.stderr:
        why = next(ln for ln in built.stderr.splitlines() if "refused" in ln or "compiled unchanged" in ln)
        return f"refused: {why[-200:]}"
    return exe


def run_built(program: Program, exe: Path, repeat: int,
              timeout: float | None) -> tuple[str | tuple[str, str], Timing | None]:
    """``exe`` run ``repeat`` times: as ``build_and_run``."""
    command = [a.replace("{exe}", str(exe)) for a in program.run] or [str(exe)]
    times_file = exe.with_suffix(".nests")
    env = {**os.environ, "S2S_NEST_TIMES": str(times_file)}
    outputs, times, walls = None, [], []
    nests: list[dict[frozenset[str], float]] = []
    for _ in range(repeat):
        times_file.unlink(missing_ok=True)
        t0 = time.perf_counter()
        try:
            ran = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return f"timeout: past {timeout:.1f} s", None
        wall = time.perf_counter() - t0
        walls.append(wall)
        if ran.returncode != 0:
            return f"failed: exit status {ran.returncode}", None
        stdout = ran.stdout
        if program.time_from_output:
            numbers = re.findall(r"[-+]?\d+\.\d+(?:[eE][-+]?\d+)?", stdout)
            if not numbers:
                return "failed: no time printed", None
            wall = float(numbers[-1])
            stdout = stdout[:stdout.rfind(numbers[-1])]
        times.append(wall)
        nests.append(_nest_times(times_file))
        outputs = outputs or (stdout, ran.stderr)
    common = set(nests[0]).intersection(*nests) if nests else set()
    return outputs, Timing(tuple(times), tuple(walls), {ids: tuple(n[ids] for n in nests) for ids in common})


def _nest_times(path: Path) -> dict[frozenset[str], float]:
    """The seconds per timed statement a run wrote (``s2s.driver.nest_timers``); statements that
    ran nowhere are left out, those of one SCoP in several files added up."""
    out: dict[frozenset[str], float] = {}
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit() and int(parts[2]) > 0:
            ids = frozenset(parts[0].split(","))
            out[ids] = out.get(ids, 0.0) + int(parts[1]) * 1e-9
    return out


def _s2s_cc() -> str:
    from s2s.fuzz.runner import s2s_cc_path

    return s2s_cc_path()


def polybench_program(kernel: str, dataset: str, openmp: bool = False) -> Program:
    """A PolyBench kernel of our suite, timed by itself (``-DPOLYBENCH_TIME``) and its arrays
    dumped at full precision for the comparison."""
    from polybench.registry import KERNELS, SUITE_ROOT, kernel_source

    source = kernel_source(KERNELS[kernel])
    utilities = SUITE_ROOT / "utilities"
    cflags = ("-O3", "-march=native", *(["-fopenmp"] if openmp else []), f"-I{utilities}", f"-I{source.parent}",
              f"-D{dataset}_DATASET", "-DPOLYBENCH_TIME", "-DPOLYBENCH_DUMP_ARRAYS",
              "-DPOLYBENCH_DUMP_FULL_PRECISION")
    return Program((str(source), str(utilities / "polybench.c")), cflags, time_from_output=True,
                   functions=(f"kernel_{kernel.replace('-', '_')}",))


def parse_run(text: str | None) -> tuple[str, ...]:
    return tuple(shlex.split(text)) if text else ()
