"""The autotuner (``s2s tune``): recipes searched by measuring them.

It starts from the rules' recipe (``s2s opt --emit-recipes``), and in each evaluation changes one
knob of the best recipe so far, or now and then of one of the fastest right candidates not kept
(``search.neighbour``: tile sizes, unroll-and-jam copies, fusion, the kernels' panel depth and
rows, the rules' gain checks), builds the program with ``s2s-cc --s2s-recipes``, runs it
(killed past ``timeout_factor`` times the default's longest run), and compares its output with the
default build's, byte for byte: a candidate that prints anything else is discarded and logged
(s2s never reassociates, so a right candidate prints exactly the same). A candidate is kept when
it beats the best by ``min_gain`` and by more than the default's own spread between runs.

A program's time is its wall time, or what it prints as its time (``time_from_output``: a
PolyBench kernel built with ``-DPOLYBENCH_TIME``, whose arrays are then compared from the dump
it writes to stderr).
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
from typing import Callable

from s2s.tuning.recipe import Provenance, RecipeBook
from s2s.tuning.search import neighbour


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

    @property
    def openmp(self) -> bool:
        return "-fopenmp" in self.cflags

    @property
    def target(self) -> str:
        """The s2s target its builds use."""
        return "openmp" if self.openmp else "c"


@dataclass(frozen=True)
class Evaluation:
    number: int
    change: str
    status: str                      # "ok", "wrong output", "failed", "timeout", "refused"
    seconds: float | None = None
    kept: bool = False
    detail: str = ""


@dataclass
class TuneResult:
    default_seconds: float
    noise: float                      # the default's spread between runs (median / fastest - 1)
    best_seconds: float
    best: RecipeBook
    evaluations: list[Evaluation] = field(default_factory=list)
    wall_seconds: float = 0.0
    default: RecipeBook | None = None   # the rules' recipes, the best was measured against
    confirmed: bool = True            # the best's gain held when timed again beside the default

    @property
    def speedup(self) -> float:
        return self.default_seconds / self.best_seconds


@dataclass(frozen=True)
class Baseline:
    """The default recipe's build, measured: what every candidate is checked and timed against."""

    book: RecipeBook
    output: tuple[str, str]
    seconds: float               # median of the runs
    noise: float                 # spread between the runs (median / fastest - 1: one slow run, a
                                 # neighbour's burst, is not the code's spread)
    timeout: float               # past which a candidate is killed


def baseline(program: Program, work: Path, repeat: int = 3, timeout_factor: float = 1.5) -> Baseline:
    default = default_recipes(program)
    reference, times, walls = build_and_run(program, default, work / "default", repeat, timeout=None)
    if isinstance(reference, str):
        raise RuntimeError(f"the default build does not run: {reference}")
    noise = statistics.median(times) / min(times) - 1 if min(times) > 0 else 0.0
    return Baseline(default, reference, statistics.median(times), noise, max(1.0, timeout_factor * max(walls)))


def _evaluate(program: Program, book: RecipeBook, stem: Path, base: Baseline, repeat: int, number: int,
              change: str, best_time: float, min_gain: float) -> Evaluation:
    """One candidate built, run, checked against the default's output and timed; ``kept`` when
    it beats ``best_time`` by ``min_gain`` and by more than the default's own spread."""
    output, times, _ = build_and_run(program, book, stem, repeat, base.timeout)
    if isinstance(output, str):
        return Evaluation(number, change, output.split(":")[0], detail=output)
    if output != base.output:
        return Evaluation(number, change, "wrong output")
    seconds = statistics.median(times)
    return Evaluation(number, change, "ok", seconds, seconds < best_time * (1 - max(min_gain, base.noise)))


def autotune(program: Program, budget: int = 20, repeat: int = 3, timeout_factor: float = 1.5,
             min_gain: float = 0.05, seed: int = 0, workdir: Path | None = None,
             progress: Callable[[Evaluation, float], None] | None = None) -> TuneResult:
    """Search recipes for ``program``'s first source within ``budget`` evaluations."""
    started = time.monotonic()
    work = Path(workdir or tempfile.mkdtemp(prefix="s2s-tune-"))
    work.mkdir(parents=True, exist_ok=True)
    base = baseline(program, work, repeat, timeout_factor)
    best, best_time = base.book, base.seconds
    rng = random.Random(seed)
    evaluations: list[Evaluation] = []
    seen = {base.book.key()}
    runners_up: list[tuple[float, RecipeBook]] = []   # right candidates not kept, fastest first
    for n in range(1, budget + 1):
        move = None
        for _ in range(50):   # (a move that changes nothing, or to a recipe tried before, is drawn again)
            # (mostly around the best; now and then around a runner-up: a schedule the rules
            # rejected may need other tiles before it pays)
            parent = runners_up[rng.randrange(min(RUNNERS_UP, len(runners_up)))][1] if (
                runners_up and rng.random() < EXPLORE) else best
            move = neighbour(parent, rng, program.functions)
            if move is not None and move.book.key() not in seen:
                break
            move = None
        if move is None:
            break
        seen.add(move.book.key())
        ev = _evaluate(program, move.book, work / f"candidate{n}", base, repeat, n, move.description, best_time,
                       min_gain)
        if ev.status == "ok":
            taken = _as_taken(program, work / f"candidate{n}.json", move.book)   # (a new schedule's bands)
            if ev.kept:
                runners_up.append((best_time, best))
                best, best_time = taken, ev.seconds
            else:
                runners_up.append((ev.seconds, taken))
            runners_up.sort(key=lambda pair: pair[0])
        evaluations.append(ev)
        if progress:
            progress(ev, base.seconds / best_time)
    return confirmed(program, base, TuneResult(base.seconds, base.noise, best_time, best, evaluations,
                                               default=base.book), repeat, min_gain, work, started)


def confirmed(program: Program, base: Baseline, result: TuneResult, repeat: int, min_gain: float, work: Path,
              started: float) -> TuneResult:
    """``result`` with its best timed again beside the default, interleaved: a gain measured
    once against a default timed once, early, may have been a busy moment. Where the best is
    not ``min_gain`` faster in those rounds too, the default stands (``confirmed`` False)."""
    if result.best is base.book:
        return dataclasses.replace(result, wall_seconds=time.monotonic() - started)
    rounds: dict[str, list[float]] = {"default": [], "best": []}
    exes = {name: build(program, book, work / f"confirm-{name}") for name, book in (("default", base.book),
                                                                                    ("best", result.best))}
    for k in range(max(3, repeat)):
        for name, exe in exes.items():
            output, times, _ = run_built(program, exe, 1, base.timeout * 2) if isinstance(exe, Path) else (exe, [], [])
            if isinstance(output, str) or output != base.output:
                return dataclasses.replace(result, best=base.book, best_seconds=base.seconds, confirmed=False,
                                           wall_seconds=time.monotonic() - started)
            rounds[name] += times
    default, best = statistics.median(rounds["default"]), statistics.median(rounds["best"])
    if best < default * (1 - min_gain):
        return dataclasses.replace(result, default_seconds=default, best_seconds=best,
                                   wall_seconds=time.monotonic() - started)
    return dataclasses.replace(result, default_seconds=default, best=base.book, best_seconds=default, confirmed=False,
                               wall_seconds=time.monotonic() - started)


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
                  timeout: float | None) -> tuple[str | tuple[str, str], list[float], list[float]]:
    """(stdout and stderr of the program, its times, its wall times), or (why it did not run, [], [])."""
    exe = build(program, book, stem)
    return run_built(program, exe, repeat, timeout) if isinstance(exe, Path) else (exe, [], [])


def build(program: Program, book: RecipeBook, stem: Path) -> Path | str:
    """The program built with ``book``'s recipes (``stem``.exe), or why it was not."""
    recipes, exe = stem.with_suffix(".json"), stem.with_suffix(".exe")
    book.save(recipes)
    env = {**os.environ, "S2S_MODE": "pluto", "S2S_RECIPES": str(recipes),
           "S2S_TARGET": program.target}
    built = subprocess.run([_s2s_cc(), *program.cflags, "--s2s-report", *program.sources, "-o", str(exe),
                            *program.libs], capture_output=True, text=True, env=env)
    if built.returncode != 0:
        return f"failed: build: {built.stderr.strip().splitlines()[-1:] or ''}"
    if "refused" in built.stderr or "compiled unchanged" in built.stderr:
        why = next(ln for ln in built.stderr.splitlines() if "refused" in ln or "compiled unchanged" in ln)
        return f"refused: {why[-200:]}"
    return exe


def run_built(program: Program, exe: Path, repeat: int,
              timeout: float | None) -> tuple[str | tuple[str, str], list[float], list[float]]:
    """``exe`` run ``repeat`` times: as ``build_and_run``."""
    command = [a.replace("{exe}", str(exe)) for a in program.run] or [str(exe)]
    outputs, times, walls = None, [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        try:
            ran = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"timeout: past {timeout:.1f} s", [], []
        wall = time.perf_counter() - t0
        walls.append(wall)
        if ran.returncode != 0:
            return f"failed: exit status {ran.returncode}", [], []
        stdout = ran.stdout
        if program.time_from_output:
            numbers = re.findall(r"[-+]?\d+\.\d+(?:[eE][-+]?\d+)?", stdout)
            if not numbers:
                return "failed: no time printed", [], []
            wall = float(numbers[-1])
            stdout = stdout[:stdout.rfind(numbers[-1])]
        times.append(wall)
        outputs = outputs or (stdout, ran.stderr)
    return outputs, times, walls


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
