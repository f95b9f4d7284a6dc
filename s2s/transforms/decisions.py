"""The optimizer's decisions for one SCoP as data: the steps of a recipe.

``choose_schedule`` records, for the code it chose, one ``Step`` per decision (``Choice.steps``),
and takes steps back (``OptimizeOptions.steps``) to replay: each is applied in order where it
matches the SCoP and is legal, and refused with a reason otherwise (``Refusal``), the SCoP then
keeping what the steps before it gave. A step's ``target`` names what it applies to by
structure, stable across runs: ``scop``; a statement ``S<k>`` (its index in the SCoP, in the
order of the source); a permutable band ``band<b>:S<k>,S<l>`` (the schedule's band ``b`` as it
runs those statements). Serialization, provenance and SCoP ids are ``s2s.tuning``'s business.

Kinds, with their parameters:

==================  =========================================================================
``keep-original``   ``reason``: the SCoP stays as the user wrote it
``fuse``            ``policy``: the scheduler's fusion policy, ``smart``, ``max`` or ``no``
``schedule``        ``rows``: per row ``{"kind", "band", "parallel", "S<k>": [c_1..c_m, c_0]}``
                    (recorded; replayed as a check that the scheduler finds the same rows)
``tile``            ``sizes``: per band member (``[]``: the band's loops untiled)
``permute``         ``order``: the band's members in a new order (interchange): member ``k`` of
                    the new band is member ``order[k]`` of the schedule's (a permutable band's
                    members may run in any order)
``skew``            ``rows``: ``[[target, source, factor], ...]``: member ``target`` of the band
                    plus ``factor`` (1-4) times member ``source``, in turn, after ``permute``
``unroll-and-jam``  ``factor`` (0: none), ``lag`` (recorded: each copy's delay, lagged_jam.py)
``wavefront``       ``enabled``: a wavefront of tiles where no tile loop is parallel
``split-statements`` ``enabled``: a tiled band's point loops below the outermost one run one
                    statement at a time, where that is legal (statement_split.py)
``parallelize``     ``enabled``: the target's parallel loops (false: the sequential code); on a
                    band: ``loop``, the one of its loops to run in parallel (outermost first as
                    the code runs them, tile loops where tiled; it must be parallel), and
                    ``schedule``, its OpenMP schedule (``OMP_SCHEDULES``; default: the back end's)
``matmul-kernel``   ``enabled``: matrix-multiply statements as register-blocked kernels;
                    ``blocking``: per statement ``rows x vectors x lanes / depth / panel rows /
                    panel columns`` (``s2s.ir.library.Blocking``)
``outer-jam``       ``rows`` (schedule rows), ``factor``: loops unrolled and jammed over the
                    loops inside them (recorded)
``triangle-jam``    ``copies``: a triangular solve's rows jammed over the columns before them
                    (recorded)
``sequential``      ``steps``: those of the code for where no region runs in parallel, under
                    OpenMP (a wavefront's alternative; the code where threads do not pay)
``profitability``   ``enabled``: false: a legal schedule replaces the user's loops even where
                    the rules expect no gain (the tuner's way past a ``keep-original``)
``expand``          ``arrays``: per scratch array, the loops around it it is expanded along
                    (``{"temp2": 2}``: a copy per iteration of the two innermost; ``{}``: none)
==================  =========================================================================
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, Sequence

from s2s.analysis.scop import Scop
from s2s.ir.library import Blocking
from s2s.schedule.matmul import parse_mark_name
from s2s.schedule.pluto import FUSION_POLICIES, PlutoSchedule
from s2s.schedule.tree import BandPlan, TreeReport

STEP_KINDS = ("keep-original", "fuse", "schedule", "tile", "permute", "skew", "unroll-and-jam", "wavefront",
              "split-statements", "parallelize", "matmul-kernel", "outer-jam", "triangle-jam", "sequential",
              "profitability", "expand")


@dataclass(frozen=True)
class Step:
    kind: str
    target: str
    params: str = "{}"   # JSON text of the parameters (frozen and hashable)

    @staticmethod
    def of(kind: str, target: str, **params: Any) -> "Step":
        return Step(kind, target, json.dumps(params, sort_keys=True))

    @property
    def values(self) -> dict[str, Any]:
        return json.loads(self.params)

    def as_dict(self) -> dict[str, Any]:
        """``{kind, target, params}``: as recipe files and the database write a step."""
        return {"kind": self.kind, "target": self.target, "params": self.values}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "Step":
        return Step.of(data["kind"], str(data.get("target", "scop")), **dict(data.get("params") or {}))

    @staticmethod
    def sequential(steps: "Sequence[Step]") -> "Step":
        """A ``sequential`` step holding ``steps``."""
        return Step.of("sequential", "scop", steps=[s.as_dict() for s in steps])

    def nested(self) -> tuple["Step", ...]:
        """The steps a ``sequential`` step holds."""
        nested = self.values.get("steps")
        return tuple(Step.from_dict(d) for d in nested if isinstance(d, dict) and "kind" in d) if isinstance(
            nested, list) else ()

    def __str__(self) -> str:
        values = self.values
        shown = ", ".join(f"{k}={_short(v)}" for k, v in values.items() if k not in ("rows", "steps"))
        if isinstance(values.get("rows"), list):
            shown = ", ".join(filter(None, [f"{len(values['rows'])} rows", shown]))
        if self.kind == "sequential":
            return "sequential(" + "; ".join(map(str, self.nested())) + ")"
        return f"{self.kind}({self.target}{': ' + shown if shown else ''})"


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}:{_short(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "x".join(map(str, value)) if value and all(isinstance(v, int) for v in value) else (
            "[]" if not value else json.dumps(value))
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


@dataclass(frozen=True)
class Refusal:
    step: Step
    reason: str

    def __str__(self) -> str:
        return f"{self.step} refused: {self.reason}"


def band_target(band: int, statements: tuple[int, ...]) -> str:
    return f"band{band}:" + ",".join(f"S{k}" for k in statements)


def parse_band_target(target: str) -> tuple[int, frozenset[int]] | None:
    """(band, statements) of a ``band<b>:S<k>,..`` target; None for anything else."""
    if not target.startswith("band") or ":" not in target:
        return None
    band, _, names = target[4:].partition(":")
    try:
        return int(band), frozenset(int(n[1:]) for n in names.split(",") if n.startswith("S"))
    except ValueError:
        return None


def band_loops(steps: Sequence[Step], target: str) -> int:
    """How many loops band ``target`` has: the sizes of its first ``tile`` step among ``steps``
    where it is tiled, else counted on the ``schedule`` step's rows (0: unknown)."""
    tile = next((s for s in steps if s.kind == "tile" and s.target == target), None)
    if tile is not None and tile.values.get("sizes"):
        return len(tile.values["sizes"])
    band = parse_band_target(target)
    schedule = next((s for s in steps if s.kind == "schedule"), None)
    if band is None or schedule is None:
        return 0
    return sum(1 for r in schedule.values.get("rows", []) if r.get("kind") == "hyperplane"
               and r.get("band") == band[0] and any(any(r.get(f"S{k}", [0])[:-1]) for k in band[1]))


def describe(steps: tuple[Step, ...]) -> str:
    """The steps as one line for ``--s2s-report``."""
    return "; ".join(map(str, steps))


BandKey = tuple[int, frozenset[int]]   # (band, statements by index): a band as TreeOptions.band_plans names it
BAND_KINDS = ("tile", "unroll-and-jam", "wavefront", "split-statements", "permute", "skew", "parallelize")
OMP_SCHEDULES = ("static", "static,1", "dynamic", "dynamic,4", "guided")
RECORDED_KINDS = ("schedule", "outer-jam", "triangle-jam")   # replayed as what the rules find
RECORDED_PARAMS = {"unroll-and-jam": ("lag",)}                 # recorded, never read back


def asked(steps: Sequence[Step]) -> tuple[tuple[str, str, str], ...]:
    """What ``steps`` ask, without what they only record: two recipes that ask the same give the
    same code."""
    out = []
    for s in steps:
        if s.kind in RECORDED_KINDS:
            continue
        if s.kind == "sequential":
            out.append((s.kind, s.target, repr(asked(s.nested()))))
            continue
        dropped = RECORDED_PARAMS.get(s.kind, ())
        values = {k: v for k, v in s.values.items() if k not in dropped}
        out.append((s.kind, s.target, json.dumps(values, sort_keys=True)))
    return tuple(out)


@dataclass(frozen=True)
class Replay:
    """What a recipe's steps ask of the optimizer (None: what the rules decide)."""

    keep: Step | None = None           # a keep-original step: the SCoP stays as written
    fusion: str | None = None
    parallel: bool | None = None       # False: the sequential code
    kernels: bool | None = None        # False: no register-blocked kernels
    profitability: bool | None = None  # False: every legal schedule, gain or not
    kernel_blockings: tuple[tuple[int, Blocking], ...] = ()   # (statement index, its kernel's blocking)
    expansion: tuple[tuple[str, int], ...] | None = None    # (array, loops it is expanded along)
    band_plans: tuple[tuple[BandKey, BandPlan], ...] = ()
    sequential_plans: tuple[tuple[BandKey, BandPlan], ...] = ()   # of the code where no region runs in parallel
    refused: tuple[Refusal, ...] = ()


def read_steps(steps: tuple[Step, ...], threads: bool, kernels: bool) -> Replay:
    """The steps in order (``threads``, ``kernels``: whether this build has them), each one
    that does not apply refused with its reason."""
    replay, refused = Replay(), []
    plans: dict[BandKey, BandPlan] = {}
    for step in steps:
        values, why = step.values, None
        if step.kind == "keep-original":
            return dataclasses.replace(replay, keep=step, refused=tuple(refused))
        if step.kind == "fuse":
            if values.get("policy") in FUSION_POLICIES:
                replay = dataclasses.replace(replay, fusion=values["policy"])
            else:
                why = f"unknown fusion policy {values.get('policy')!r}"
        elif step.kind == "profitability":
            if isinstance(values.get("enabled"), bool):
                replay = dataclasses.replace(replay, profitability=values["enabled"])
            else:
                why = "'enabled' must be true or false"
        elif step.kind == "expand":
            arrays = values.get("arrays")
            if isinstance(arrays, dict) and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 8
                                                for v in arrays.values()):
                replay = dataclasses.replace(replay, expansion=tuple(sorted(arrays.items())))
            else:
                why = "'arrays' must map array names to how many loops each is expanded along (0-8)"
        elif step.kind == "parallelize" and parse_band_target(step.target) is not None:
            why = "this build's target has no threads" if not threads else _band_step(step, plans)
        elif step.kind in ("parallelize", "matmul-kernel"):
            enabled = values.get("enabled")
            if not isinstance(enabled, bool):
                why = "'enabled' must be true or false"
            elif enabled and step.kind == "parallelize" and not threads:
                why = "this build's target has no threads"
            elif enabled and step.kind == "matmul-kernel" and not kernels:
                why = "kernels are off in this build"
            elif not enabled:
                change = {"parallel": False} if step.kind == "parallelize" else {"kernels": False}
                replay = dataclasses.replace(replay, **change)
            elif step.kind == "matmul-kernel" and "blocking" in values:
                blockings, why = _blockings(values["blocking"])
                replay = dataclasses.replace(replay, kernel_blockings=blockings)
        elif step.kind in BAND_KINDS:
            why = _band_step(step, plans)
        elif step.kind == "sequential":
            inner: dict[BandKey, BandPlan] = {}
            for band_step in step.nested():
                if band_step.kind in BAND_KINDS:
                    if reason := _band_step(band_step, inner):
                        refused.append(Refusal(band_step, reason))
            replay = dataclasses.replace(replay, sequential_plans=tuple(inner.items()))
        elif step.kind not in RECORDED_KINDS:
            why = f"unknown kind {step.kind!r}"
        if why:
            refused.append(Refusal(step, why))
    return dataclasses.replace(replay, band_plans=tuple(plans.items()), refused=tuple(refused))


def _blockings(given: Any) -> tuple[tuple[tuple[int, Blocking], ...], str | None]:
    """(statement index, Blocking) of a ``matmul-kernel`` step's ``blocking``, or why not."""
    if not isinstance(given, dict):
        return (), "'blocking' must map statements (S<k>) to blockings"
    out = []
    for name, text in given.items():
        try:
            b = Blocking.parse(str(text))
            k = int(name[1:]) if name.startswith("S") else -1
        except ValueError:
            return (), f"{name}: {text!r} is not rows x vectors x lanes/depth/panel rows/panel columns"
        if k < 0 or not (1 <= b.rows <= 16 and 1 <= b.vectors <= 4 and b.lanes in (1, 2, 4, 8, 16)
                         and 1 <= b.depth <= 4096 and b.panel_rows >= b.rows and b.panel_rows % b.rows == 0
                         and b.panel_columns >= b.columns and b.panel_columns % b.columns == 0):
            return (), (f"{name}: {text!r}: rows 1-16, vectors 1-4, lanes a power of two up to 16, depth "
                        f"1-4096, panels whole multiples of the register block")
        out.append((k, b))
    return tuple(out), None


def _band_step(step: Step, plans: dict[BandKey, BandPlan]) -> str | None:
    """Why a band's step does not apply (None: it does, into ``plans``)."""
    band = parse_band_target(step.target)
    if band is None:
        return f"target {step.target!r} is not a band (band<b>:S<k>,...)"
    values, plan = step.values, plans.get(band, BandPlan())
    if step.kind == "tile":
        sizes = values.get("sizes")
        if not isinstance(sizes, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                                  for v in sizes):
            return "'sizes' must be a list of positive integers ([]: untiled)"
        beyond_cache = values.get("beyond_cache", False)
        if not isinstance(beyond_cache, bool):
            return "'beyond_cache' must be true or false"
        plan = dataclasses.replace(plan, tile=tuple(sizes), beyond_cache=beyond_cache if sizes else None)
    elif step.kind == "unroll-and-jam":
        factor = values.get("factor")
        if not isinstance(factor, int) or isinstance(factor, bool) or not 0 <= factor <= 16:
            return "'factor' must be an integer from 0 to 16"
        plan = dataclasses.replace(plan, jam=factor)
    elif step.kind == "permute":
        order = values.get("order")
        if not isinstance(order, list) or sorted(order) != list(range(len(order))) or len(order) < 2:
            return "'order' must be a permutation of the band's members 0..n-1"
        plan = dataclasses.replace(plan, order=tuple(order))
    elif step.kind == "skew":
        rows = values.get("rows")
        if not isinstance(rows, list) or not rows or not all(
                isinstance(r, list) and len(r) == 3 and all(isinstance(v, int) and not isinstance(v, bool) for v in r)
                and r[0] != r[1] and min(r[0], r[1]) >= 0 and 1 <= r[2] <= 4 for r in rows):
            return "'rows' must be [[target, source, factor], ...]: two members of the band, a factor from 1 to 4"
        plan = dataclasses.replace(plan, skew=tuple(tuple(r) for r in rows))
    elif step.kind == "parallelize":
        loop, schedule = values.get("loop"), values.get("schedule")
        if loop is not None and (not isinstance(loop, int) or isinstance(loop, bool) or loop < 0):
            return "'loop' must be the index of one of the band's loops"
        if schedule is not None and schedule not in OMP_SCHEDULES:
            return f"'schedule' must be one of {', '.join(OMP_SCHEDULES)}"
        plan = dataclasses.replace(plan, parallel_loop=loop, omp_schedule=schedule)
    else:
        if not isinstance(values.get("enabled"), bool):
            return "'enabled' must be true or false"
        switched = "wavefront" if step.kind == "wavefront" else "split"
        plan = dataclasses.replace(plan, **{switched: values["enabled"]})
    plans[band] = plan
    return None


def steps_taken(scop: Scop, sched: PlutoSchedule, report: TreeReport, kernels: tuple[tuple[str, str], ...],
                jam_rows: tuple, jam_factor: int, reordered: dict | None = None) -> tuple[Step, ...]:
    """What the optimizer decided for a tree of ``sched``, as steps: the schedule's rows, the
    kernels' statements, the rows jammed over inner loops, and per band what ``report`` says
    (and the recipe's order and skew of its members, ``reordered`` by band number)."""
    reordered = reordered or {}
    index = {st.name: k for k, st in enumerate(scop.statements)}
    rows = [{"kind": r.kind, "band": r.band, "parallel": r.parallel,
             **{f"S{index[name]}": list(c) for name, c in r.coefficients.items() if name in index}}
            for r in sched.rows]
    steps = [Step.of("schedule", "scop", rows=rows)]
    if kernels:
        blocking = {f"S{index[name]}": parsed[1].text for name, mark in kernels
                    if (parsed := parse_mark_name(mark)) is not None}
        steps.append(Step.of("matmul-kernel", "scop", enabled=True, blocking=blocking))
    if jam_rows:
        steps.append(Step.of("outer-jam", "scop", rows=[k for k, _ in jam_rows], factor=jam_factor))
    for b in report.bands:
        target = band_target(b.band, b.statements)
        if b.band in reordered and reordered[b.band].order is not None:
            steps.append(Step.of("permute", target, order=list(reordered[b.band].order)))
        if b.band in reordered and reordered[b.band].skew:
            steps.append(Step.of("skew", target, rows=[list(r) for r in reordered[b.band].skew]))
        steps.append(Step.of("tile", target, sizes=list(b.tile), **({"beyond_cache": True} if b.beyond_cache else {})))
        steps.append(Step.of("unroll-and-jam", target, factor=b.jam, lag=b.lag))
        if b.wavefront:
            steps.append(Step.of("wavefront", target, enabled=True))
        if b.split:
            steps.append(Step.of("split-statements", target, enabled=True))
        if b.parallel_loop is not None or b.omp_schedule is not None:
            asked_for = {"loop": b.parallel_loop, "schedule": b.omp_schedule}
            steps.append(Step.of("parallelize", target, **{k: v for k, v in asked_for.items() if v is not None}))
    return tuple(steps)
