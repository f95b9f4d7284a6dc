"""How well transfer tuning does against autotuning: ``python -m polybench.transfer_study``.

For each kernel with tuned rows in the recipe database, transfer tuning is run with the kernel's
own rows left out (leave-one-out; ``--keep-own`` keeps them, to transfer across sizes: rows tuned
at MEDIUM lent at LARGE), at most ``--topk`` evaluations per loop nest. Then the rules' recipe,
the tuned one (the kernel's rows) and the transferred one are timed side by side, interleaved,
``--repeat`` rounds, and their medians compared. Also kernels or programs outside the database
(``--program FILE``: a C file that prints its own time last) get the transferred recipe only.

    python -m polybench.transfer_study --db recipes.sqlite --dataset LARGE [--kernels a,b] [--csv F]

Search cost: the autotuner's evaluations and wall time (from the database) against transfer's.
"""
from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from s2s.tuning import RecipeBook, RecipeDB
from s2s.tuning.transfer_tuner import transfer_tune
from s2s.tuning.tuner import Program, build, polybench_program, run_built


@dataclass
class Row:
    name: str
    default_s: float | None = None
    tuned_s: float | None = None
    transfer_s: float | None = None
    tune_evaluations: int = 0
    tune_wall_s: float = 0.0
    transfer_evaluations: int = 0
    transfer_wall_s: float = 0.0
    lent_by: str = ""
    note: str = ""

    @property
    def tuned(self) -> float | None:
        return self.default_s / self.tuned_s if self.default_s and self.tuned_s else None

    @property
    def transferred(self) -> float | None:
        return self.default_s / self.transfer_s if self.default_s and self.transfer_s else None


def tuned_book(default: RecipeBook, rows) -> RecipeBook:
    """The rules' recipes ``default`` with the database's tuned ones where it has them."""
    for row in rows:
        default = default.with_steps(row.scop, row.steps())
    return default


def side_by_side(program: Program, books: dict[str, RecipeBook | None], repeat: int,
                 work: Path) -> dict[str, float | None]:
    """Median time of each book, each built once and run once per round, the books interleaved
    in every round (None: it did not build or run)."""
    work.mkdir(parents=True, exist_ok=True)
    # (a book that asks what an earlier one asks is the same code: its time is that one's, not a
    # second draw of the machine's noise)
    same: dict[str, str] = {}
    for name, book in books.items():
        if book is not None:
            same[name] = next(other for other, b in books.items() if b is not None and b.key() == book.key())
    exes = {name: build(program, books[name], work / f"side-{name}") for name in books if same.get(name) == name}
    times: dict[str, list[float]] = {name: [] for name in books}
    outputs: dict[str, object] = {}
    for _ in range(repeat):
        for name, exe in exes.items():
            if isinstance(exe, Path):
                output, timing = run_built(program, exe, 1, timeout=None)
                if not isinstance(output, str):
                    outputs.setdefault(name, output)
                    times[name] += timing.runs
    # (every book must print what the first, the rules', prints: one that does not has no time)
    first = outputs.get(next(iter(books)))
    medians = {name: statistics.median(t) if t and outputs.get(name) == first else None for name, t in times.items()}
    return {name: medians.get(same[name]) if name in same else None for name in books}



def study(db_path: str | None, dataset: str, kernels: list[str], programs: list[str], topk: int, repeat: int,
          keep_own: bool, openmp: bool, progress=print) -> list[Row]:
    with RecipeDB(db_path) as db:
        records = db.records(target="openmp" if openmp else "c")
    tuned_kernels = sorted({r.program.split("/", 1)[1] for r in records if r.program.startswith("polybench/")})
    rows = []
    work = Path(tempfile.mkdtemp(prefix="s2s-transfer-study-"))
    targets = [(k, polybench_program(k, dataset, openmp)) for k in (kernels or tuned_kernels)]
    targets += [(Path(p).name, Program((p,), ("-O3", "-march=native", *(["-fopenmp"] if openmp else [])),
                                       time_from_output=True)) for p in programs]
    for name, program in targets:
        own = [r for r in records if r.program == f"polybench/{name}"]
        lenders = records if keep_own else [r for r in records if r.program != f"polybench/{name}"]
        row = Row(name, tune_evaluations=max((r.evaluations for r in own), default=0),
                  tune_wall_s=max((r.tune_seconds for r in own), default=0.0))
        try:
            result, lent = transfer_tune(program, lenders, topk, workdir=work / name)
        except RuntimeError as exc:
            row.note = str(exc)
            rows.append(row)
            continue
        row.transfer_evaluations, row.transfer_wall_s = len(result.evaluations), result.wall_seconds
        row.lent_by = ",".join(sorted({item.program for item in lent}))
        books = {"default": result.default, "tuned": tuned_book(result.default, own) if own else None,
                 "transfer": result.best}
        timed = side_by_side(program, books, repeat, work / name)
        row.default_s, row.tuned_s, row.transfer_s = timed["default"], timed["tuned"], timed["transfer"]
        rows.append(row)
        progress(f"{name}: tuned {_x(row.tuned)}, transferred {_x(row.transferred)} "
                 f"({row.transfer_evaluations} evaluations, {row.transfer_wall_s:.0f} s; lent by {row.lent_by or '-'})")
    return rows


def _x(value: float | None) -> str:
    return f"{value:.2f}x" if value else "-"


def geomean(values) -> float | None:
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def summary(rows: list[Row]) -> list[str]:
    both = [r for r in rows if r.tuned and r.transferred]
    lines = [f"{'kernel':16} {'tuned':>7} {'transfer':>9} {'evals (tune/transfer)':>22} {'wall s (tune/transfer)':>23}"]
    for r in rows:
        lines.append(f"{r.name:16} {_x(r.tuned):>7} {_x(r.transferred):>9} "
                     f"{r.tune_evaluations:>10}/{r.transfer_evaluations:<11} {r.tune_wall_s:>11.0f}/{r.transfer_wall_s:<11.0f}"
                     f"{'  ' + r.note if r.note else ''}")
    tuned, moved = geomean(r.tuned for r in both), geomean(r.transferred for r in both)
    if tuned and moved:
        recovered = geomean(r.transferred / r.tuned for r in both)
        gain = math.log(moved) / math.log(tuned) if tuned > 1.0 else float("nan")
        lines.append(f"geomean over {len(both)} kernels: tuned {tuned:.3f}x, transferred {moved:.3f}x over the rules'; "
                     f"transfer / tuned {recovered:.3f} (share of the tuned gain: {gain:.2f})")
    slower = [r.name for r in rows if r.transferred and r.transferred < 0.95]
    lines.append(f"transferred below 0.95x of the rules': {', '.join(slower) or 'none'}")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m polybench.transfer_study", description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", help="the recipe database (default: s2s's)")
    ap.add_argument("--dataset", default="LARGE", type=str.upper)
    ap.add_argument("--kernels", default="", help="comma-separated (default: every kernel the database has)")
    ap.add_argument("--program", action="append", default=[], metavar="FILE",
                    help="also a program of one's own (prints its time last; repeatable)")
    ap.add_argument("--topk", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5, help="rounds of the side-by-side timing (default 5)")
    ap.add_argument("--keep-own", action="store_true", help="let a kernel borrow its own rows (across sizes)")
    ap.add_argument("--sequential", action="store_true", help="the c target (default: openmp)")
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args(argv)
    rows = study(args.db, args.dataset, [k for k in args.kernels.split(",") if k], args.program, args.topk,
                 args.repeat, args.keep_own, not args.sequential, progress=lambda s: print(s, file=sys.stderr))
    print("\n".join(summary(rows)))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["kernel", "default_s", "tuned_s", "transfer_s", "tuned", "transferred", "tune_evaluations",
                        "tune_wall_s", "transfer_evaluations", "transfer_wall_s", "lent_by", "note"])
            for r in rows:
                w.writerow([r.name, r.default_s, r.tuned_s, r.transfer_s, r.tuned, r.transferred, r.tune_evaluations,
                            r.tune_wall_s, r.transfer_evaluations, r.transfer_wall_s, r.lent_by, r.note])
    return 0


if __name__ == "__main__":
    sys.exit(main())
