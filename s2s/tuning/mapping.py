"""A tuned recipe carried over to another SCoP: statements matched by structure, the source's
decisions laid over the target's own structure.

Steps name statements by index and bands by the statements they run, so a recipe cannot be
replayed as it is on another SCoP. Instead: the statements of the two SCoPs are matched by their
structure (``statement_features``: loops, accesses, arithmetic, place; an assignment of least
cost, ``scipy.optimize.linear_sum_assignment``); the source's SCoP-wide decisions (``frame``:
fusion, the gain checks, threads, kernels) are given to the target's rules, which find the
target's own bands under them; then each band of the target takes the tile sizes, unroll-and-jam
factor and wavefront of the source band whose statements it runs, and each kernel statement the
blocking of its match. What the result asks is replayed with the usual legality checks, and
verified and timed by the tuner like any candidate.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from s2s.transforms.decisions import BAND_KINDS, RECORDED_KINDS, Step, band_loops, parse_band_target

# what a statement's fields weigh in its match (loop depth and updates in place decide most)
STATEMENT_WEIGHTS = {"depth": 2.0, "reads": 1.0, "writes": 1.0, "flops": 0.5, "in_place": 2.0, "write_rank": 1.0,
                     "position": 1.0, "shared_loops": 1.0}
FRAME_KINDS = ("keep-original", "fuse", "profitability", "parallelize", "matmul-kernel")


@dataclass(frozen=True)
class Transferred:
    steps: tuple[Step, ...]
    matches: dict[int, int]       # source statement -> target statement
    notes: tuple[str, ...] = ()   # the source's decisions that found nothing to apply to


def match_statements(source: Sequence[dict], target: Sequence[dict]) -> dict[int, int]:
    """Source statement index -> target statement index, the pairs of least total difference
    (every statement of the smaller side matched)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    if not source or not target:
        return {}
    cost = np.array([[_difference(s, t) for t in target] for s in source])
    rows, cols = linear_sum_assignment(cost)
    return {int(r): int(c) for r, c in zip(rows, cols)}


def _difference(a: dict, b: dict) -> float:
    return sum(w * abs(float(a.get(k, 0.0)) - float(b.get(k, 0.0))) for k, w in STATEMENT_WEIGHTS.items())


def frame(steps: Sequence[Step]) -> tuple[Step, ...]:
    """The SCoP-wide decisions of ``steps``: they shape the target's schedule before its bands
    are known (a kernel's blocking is per statement: it is laid over later)."""
    out = []
    for s in steps:
        if s.kind == "keep-original":
            return (Step.of("keep-original", "scop", reason="as the nearest tuned loop nest"),)
        if s.kind == "matmul-kernel" and s.values.get("enabled") is not False:
            continue
        if s.kind in FRAME_KINDS and s.target == "scop":   # (a band's own: with the bands, below)
            out.append(s)
    return tuple(out)


def map_recipe(source_steps: Sequence[Step], source_statements: Sequence[dict], target_statements: Sequence[dict],
             rules: Callable[[tuple[Step, ...]], tuple[Step, ...]]) -> Transferred:
    """``source_steps`` (a tuned recipe of a SCoP with ``source_statements``) as steps for a SCoP
    with ``target_statements``. ``rules(frame)`` gives the steps the target's rules take under
    the SCoP-wide ``frame`` (its bands, kernels and schedule)."""
    matches = match_statements(source_statements, target_statements)
    framed = frame(source_steps)
    if framed and framed[0].kind == "keep-original":
        return Transferred(framed, matches)
    own = tuple(rules(framed))
    if own and own[0].kind == "keep-original":
        return Transferred(own, matches, ("the target's rules keep it as written under the source's frame",))
    notes: list[str] = []
    steps = _laid_over([s for s in own if s.kind not in RECORDED_KINDS],
                       [s for s in source_steps if s.kind in BAND_KINDS], matches, own, notes)
    source_seq = next((s for s in source_steps if s.kind == "sequential"), None)
    out = []
    for s in steps:
        if s.kind == "sequential" and source_seq is not None:
            s = Step.sequential(_laid_over(list(s.nested()), list(source_seq.nested()), matches, own, notes))
        elif s.kind == "matmul-kernel" and isinstance(s.values.get("blocking"), dict):
            s = _blockings_laid_over(s, source_steps, matches)
        out.append(s)
    return Transferred(tuple(out), matches, tuple(notes))


def _laid_over(own: list[Step], wanted: list[Step], matches: dict[int, int], schedule_of: Sequence[Step],
               notes: list[str]) -> list[Step]:
    """``own`` steps with each band step of ``wanted`` moved onto the band of ``own`` that runs
    most of the same (matched) statements."""
    bands = {}
    for s in own:
        band = parse_band_target(s.target)
        if band is not None:
            bands.setdefault(s.target, band)
    out = list(own)
    for step in wanted:
        source_band = parse_band_target(step.target)
        if source_band is None:
            continue
        mapped = {matches[k] for k in source_band[1] if k in matches}
        target = _best_band(source_band[0], mapped, bands)
        if target is None:
            notes.append(f"{step}: no band of the target runs its statements")
            continue
        values, members = step.values, band_loops([*own, *schedule_of], target)
        if step.kind == "tile":
            values = {**values, "sizes": _sizes(values.get("sizes") or [], members)}
        if step.kind in ("permute", "skew") and not _fits(step, members):
            notes.append(f"{step}: the band it maps to has {members} loops")
            continue
        moved = Step.of(step.kind, target, **values)
        at = next((i for i, s in enumerate(out) if s.kind == step.kind and s.target == target), None)
        if at is not None:
            out[at] = moved
        else:
            last = max(i for i, s in enumerate(out) if s.target == target)
            out.insert(last + 1, moved)
    return out


def _fits(step: Step, members: int) -> bool:
    """Whether a ``permute`` or ``skew`` step names loops of a band of ``members`` loops."""
    if step.kind == "permute":
        return len(step.values.get("order") or []) == members
    return all(max(r[0], r[1]) < members for r in step.values.get("rows") or [])


def _best_band(index: int, statements: set[int], bands: dict[str, tuple[int, frozenset[int]]]) -> str | None:
    """The target band whose statements overlap ``statements`` most (Jaccard), the one nearest in
    the schedule's order on a tie."""
    scored = [(len(statements & s) / len(statements | s), -abs(b - index), target)
              for target, (b, s) in bands.items() if statements & s]
    return max(scored)[2] if scored else None


def _sizes(sizes: list[int], members: int) -> list[int]:
    """Tile sizes of a band of ``len(sizes)`` loops for one of ``members``: the innermost loops'
    sizes kept, the outermost repeated in front (untiled stays untiled)."""
    if not sizes or not members or len(sizes) == members:
        return list(sizes)
    if len(sizes) > members:
        return list(sizes[-members:])
    return [sizes[0]] * (members - len(sizes)) + list(sizes)


def _blockings_laid_over(own: Step, source_steps: Sequence[Step], matches: dict[int, int]) -> Step:
    """The target's kernel step with each kernel statement's blocking taken from its match."""
    source = next((s for s in source_steps if s.kind == "matmul-kernel" and isinstance(s.values.get("blocking"),
                                                                                         dict)), None)
    if source is None:
        return own
    blocking = dict(own.values["blocking"])
    for name, text in source.values["blocking"].items():
        k = int(name[1:]) if name[1:].isdigit() else -1
        mapped = f"S{matches[k]}" if k in matches else None
        if mapped in blocking:
            blocking[mapped] = text
    return Step.of(own.kind, own.target, **{**own.values, "blocking": blocking})

