"""Neighbours of a recipe: one knob of one SCoP's steps changed (tile sizes, two loops of a band
interchanged, unroll-and-jam copies, fusion, the kernels' panels; a wavefront, the threads or the
kernels switched), the moves
of the autotuner's local search (``s2s.tuning.tuner``). Every move yields steps that replay checks
like any other: a move that does not fit the SCoP is refused there, never followed into wrong
code."""
from __future__ import annotations

import random
from dataclasses import dataclass

from s2s.ir.library import Blocking
from s2s.transforms.decisions import Step, band_loops
from s2s.tuning.recipe import RecipeBook, ScopRecipe

JAM_FACTORS = (0, 2, 4, 8)
TILE_MIN, TILE_MAX = 4, 1024
DEPTH_MIN, DEPTH_MAX = 32, 1024
FUSIONS = ("smart", "max", "no")


@dataclass(frozen=True)
class Move:
    scop: str
    description: str
    book: RecipeBook


def tunable(book: RecipeBook, functions: tuple[str, ...] = ()) -> list[ScopRecipe]:
    """The SCoPs (of ``functions``, or of all) whose recipes have something to change: all but
    those kept as written even where the rules' gain checks are off."""
    return [r for r in book.recipes if r.steps and (not functions or r.function in functions) and not (
        r.steps[0].kind == "keep-original" and any(s.kind == "profitability" for s in r.steps))]


def neighbour(book: RecipeBook, rng: random.Random, functions: tuple[str, ...] = ()) -> Move | None:
    """``book`` with one knob of one tunable SCoP (of ``functions``) changed (None: nothing to change)."""
    candidates = tunable(book, functions)
    if not candidates:
        return None
    recipe = rng.choice(candidates)
    if recipe.steps[0].kind == "keep-original":
        # (past the rules' gain checks: the steps of that schedule come with its measurement)
        steps = (Step.of("profitability", "scop", enabled=False),)
        return Move(recipe.scop, f"{recipe.function}: optimized without the gain checks",
                    book.with_steps(recipe.scop, steps))
    moves = [(k, kind) for k, s in enumerate(recipe.steps) for kind in _kinds(s)]
    moves += [(k, "permute") for k, s in enumerate(recipe.steps)
              if s.kind == "tile" and band_loops(recipe.steps, s.target) >= 2]
    if not moves:
        return None
    k, kind = rng.choice(moves)
    step = recipe.steps[k]
    if kind == "permute":
        steps, order = _interchanged(recipe.steps, step, rng)
        shown = "as scheduled" if order is None else "in order " + ",".join(map(str, order))
        return Move(recipe.scop, f"{recipe.function}: {step.target} loops {shown}", book.with_steps(recipe.scop, steps))
    changed, what = _changed(step, kind, rng, band_loops(recipe.steps, step.target) or 2)
    if changed == step:
        return None
    steps = recipe.steps[:k] + (changed,) + recipe.steps[k + 1:]
    return Move(recipe.scop, f"{recipe.function}: {what}", book.with_steps(recipe.scop, steps))


def _interchanged(steps: tuple[Step, ...], tile: Step, rng: random.Random) -> tuple[tuple[Step, ...], list | None]:
    """``steps`` with two loops of ``tile``'s band swapped (a ``permute`` step added, changed, or
    dropped where the order comes back to the scheduler's), and the band's new order (None: the
    scheduler's)."""
    at = next((k for k, s in enumerate(steps) if s.kind == "permute" and s.target == tile.target), None)
    n = band_loops(steps, tile.target)
    order = list(steps[at].values.get("order") or range(n)) if at is not None else list(range(n))
    i, j = rng.sample(range(len(order)), 2)
    order[i], order[j] = order[j], order[i]
    rest = tuple(s for k, s in enumerate(steps) if k != at)
    if order == sorted(order):
        return rest, None
    where = rest.index(tile)
    return rest[:where] + (Step.of("permute", tile.target, order=order),) + rest[where:], order


def _kinds(step: Step) -> list[str]:
    values = step.values
    if step.kind == "tile":
        return ["tile"]
    if step.kind == "unroll-and-jam":
        return ["jam"]
    if step.kind == "fuse":
        return ["fuse"]
    if step.kind in ("wavefront", "split-statements"):
        return ["switch"]
    if step.kind == "parallelize" and values.get("enabled"):
        return ["switch"]                     # (off only: a target without threads refuses them)
    if step.kind == "matmul-kernel" and values.get("blocking"):
        return ["depth", "panel", "switch"]
    return []


def _changed(step: Step, kind: str, rng: random.Random, members: int) -> tuple[Step, str]:
    values = step.values
    if kind == "switch":
        enabled = not values.get("enabled")
        return Step.of(step.kind, step.target, enabled=enabled), f"{step.kind} {'on' if enabled else 'off'}"
    if kind == "fuse":
        policy = rng.choice([f for f in FUSIONS if f != values.get("policy")])
        return Step.of("fuse", step.target, policy=policy), f"fuse {policy}"
    if kind == "jam":
        factor = rng.choice([f for f in JAM_FACTORS if f != values.get("factor")])
        changed = Step.of("unroll-and-jam", step.target, **{**values, "factor": factor})
        return changed, f"{step.target} unroll-and-jam {factor}"
    if kind == "tile":
        sizes = list(values.get("sizes") or [])
        if not sizes:
            sizes = [32] * members
        else:
            j = rng.randrange(len(sizes))
            sizes[j] = min(TILE_MAX, max(TILE_MIN, sizes[j] * 2 if rng.random() < 0.5 else sizes[j] // 2))
        return (Step.of("tile", step.target, **{**values, "sizes": sizes}),
                f"{step.target} tiles {'x'.join(map(str, sizes))}")
    blocking = dict(values["blocking"])
    name = rng.choice(sorted(blocking))
    b = Blocking.parse(blocking[name])
    if kind == "depth":
        depth = min(DEPTH_MAX, max(DEPTH_MIN, b.depth * 2 if rng.random() < 0.5 else b.depth // 2))
        b = Blocking(b.rows, b.vectors, b.lanes, depth // 16 * 16 or 16, b.panel_rows, b.panel_columns)
    else:
        rows = b.panel_rows * 2 if rng.random() < 0.5 else max(b.rows, b.panel_rows // 2 // b.rows * b.rows)
        b = Blocking(b.rows, b.vectors, b.lanes, b.depth, rows, b.panel_columns)
    blocking[name] = b.text
    return Step.of("matmul-kernel", step.target, **{**values, "blocking": blocking}), f"{name} blocking {b.text}"
