"""A recipe's interchange and skew of a permutable band's members (``permute`` and ``skew`` steps).

Every dependence a permutable band does not leave to the bands before it has a non-negative
distance on each of its members; so it has on any order of them, and on a member plus a positive
multiple of another: both keep the band permutable, hence tileable. The parallel flags are worked
out again for the new rows, and the tree that comes of them is checked exactly like any other
(``legality.check``) before code is generated from it.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from s2s.schedule.pluto import PlutoSchedule, Row
from s2s.schedule.tree import BandPlan


@dataclasses.dataclass(frozen=True)
class Reordered:
    schedule: PlutoSchedule
    applied: dict[int, BandPlan]       # by band number: the plan whose order and skew it took
    refused: dict[int, str]            # by band number: why its order or skew did not apply


def reordered_bands(sched: PlutoSchedule, plans: tuple[tuple[tuple[int, frozenset[int]], BandPlan], ...],
                    mark_parallel: Callable[[list[Row]], None]) -> Reordered:
    """``sched`` with the members of each band reordered and skewed as ``plans`` ask (by band
    number: a band's rows hold every statement's coefficients); ``sched`` itself when none do."""
    wanted: dict[int, BandPlan] = {}
    refused: dict[int, str] = {}
    for (band, _), plan in plans:
        if plan.order is None and not plan.skew:
            continue
        if band in wanted and (wanted[band].order, wanted[band].skew) != (plan.order, plan.skew):
            refused[band] = "another order or skew of the same band was asked first"
            continue
        wanted[band] = plan
    if not wanted:
        return Reordered(sched, {}, refused)
    rows = [dataclasses.replace(r, coefficients=dict(r.coefficients)) for r in sched.rows]
    members = {b: [k for k, r in enumerate(rows) if r.kind == "hyperplane" and r.band == b] for b in wanted}
    applied: dict[int, BandPlan] = {}
    for band, plan in wanted.items():
        at = members[band]
        n = len(at)
        if n < 2:
            refused[band] = f"band {band} has {n} member{'s' * (n != 1)}: nothing to reorder"
            continue
        if plan.order is not None and len(plan.order) != n:
            refused[band] = f"'order' names {len(plan.order)} members; band {band} has {n}"
            continue
        if any(max(t, s) >= n for t, s, _ in plan.skew):
            refused[band] = f"'rows' names a member past the {n} of band {band}"
            continue
        old = [rows[k] for k in at]
        new = [old[j] for j in plan.order] if plan.order is not None else list(old)
        for target, source, factor in plan.skew:
            new[target] = dataclasses.replace(new[target], coefficients={
                stmt: tuple(a + factor * b for a, b in zip(c, new[source].coefficients[stmt]))
                for stmt, c in new[target].coefficients.items()})
        for k, row in zip(at, new):
            rows[k] = row
        applied[band] = plan
    if not applied:
        return Reordered(sched, {}, refused)
    mark_parallel(rows)
    log = sched.log + [f"band {b}: members " + (f"in order {list(p.order)}" if p.order else "")
                       + (f", skewed {[list(r) for r in p.skew]}" if p.skew else "") + " (recipe)"
                       for b, p in applied.items()]
    return Reordered(PlutoSchedule(rows, sched.seconds, log), applied, refused)
