"""Transfer tuning from Python, a program given by its file:

    from s2s import tuning
    result = tuning.autotune("prog.c", budget=20)            # searched, stored in the recipe database
    result, lent = tuning.transfer("other.c", topk=3)        # recipes of the nearest tuned nests
    seconds = tuning.measure("prog.c", recipes="best.json")  # one build and its median time

A program is a C file run as it is (its wall time, or ``time_from_output``: the last number it
prints), or a ``tuner.Program`` for anything else (several sources, flags, a run command).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from s2s.tuning.database import RecipeDB
from s2s.tuning.recipe import RecipeBook
from s2s.tuning.transfer_tuner import Lent, nest_features, record, transfer_tune
from s2s.tuning.tuner import Program, TuneResult, autotune as _autotune, build_and_run, default_recipes


def program_of(program: str | Path | Program, openmp: bool = False, time_from_output: bool = False) -> Program:
    if isinstance(program, Program):
        return program
    cflags = ("-O3", "-march=native", *(["-fopenmp"] if openmp else []))
    return Program((str(program),), cflags, time_from_output=time_from_output)


def autotune(program: str | Path | Program, budget: int = 20, db: str | Path | None = None, store: bool = True,
             name: str | None = None, openmp: bool = False, time_from_output: bool = False, **options) -> TuneResult:
    """Search recipes for ``program`` (``tuner.autotune``'s ``options``) and store them in the
    recipe database (``db``: its path; the default one)."""
    p = program_of(program, openmp, time_from_output)
    result = _autotune(p, budget, **options)
    if store:
        with RecipeDB(db) as database:
            record(database, p, result, name or Path(p.sources[0]).name, features=nest_features(p))
    return result


def transfer(program: str | Path | Program, topk: int = 3, db: str | Path | None = None,
             exclude: tuple[str, ...] = (), openmp: bool = False, time_from_output: bool = False,
             **options) -> tuple[TuneResult, list[Lent]]:
    """The recipes of the ``topk`` nearest tuned nests of the database (but ``exclude``'s
    programs) tried on ``program``'s loop nests; the best kept only where it beats the rules'."""
    p = program_of(program, openmp, time_from_output)
    with RecipeDB(db) as database:
        records = [r for r in database.records() if r.program not in exclude]
    return transfer_tune(p, records, topk, **options)


def measure(program: str | Path | Program, recipes: str | Path | RecipeBook | None = None, repeat: int = 3,
            openmp: bool = False, time_from_output: bool = False) -> float:
    """The median time of ``program`` built with ``recipes`` (a file or a book; None: the rules')."""
    p = program_of(program, openmp, time_from_output)
    book = RecipeBook.load(recipes) if isinstance(recipes, (str, Path)) else recipes or default_recipes(p)
    with tempfile.TemporaryDirectory(prefix="s2s-measure-") as work:
        output, timing = build_and_run(p, book, Path(work) / "measured", repeat, timeout=None)
    if isinstance(output, str):
        raise RuntimeError(f"{p.sources[0]}: {output}")
    return timing.seconds()
