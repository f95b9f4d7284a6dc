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
``unroll-and-jam``  ``factor`` (0: none), ``lag`` (recorded: each copy's delay, lagged_jam.py)
``wavefront``       ``enabled``: a wavefront of tiles where no tile loop is parallel
``parallelize``     ``enabled``: the target's parallel loops (false: the sequential code)
``matmul-kernel``   ``enabled``: matrix-multiply statements as register-blocked kernels
``outer-jam``       ``rows`` (schedule rows), ``factor``: loops unrolled and jammed over the
                    loops inside them (recorded)
``triangle-jam``    ``copies``: a triangular solve's rows jammed over the columns before them
                    (recorded)
``sequential``      ``steps``: those of the code for where no region runs in parallel, under
                    OpenMP (a wavefront's alternative; the code where threads do not pay)
==================  =========================================================================
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

STEP_KINDS = ("keep-original", "fuse", "schedule", "tile", "unroll-and-jam", "wavefront", "parallelize",
              "matmul-kernel", "outer-jam", "triangle-jam", "sequential")
FUSION_POLICIES = ("smart", "max", "no")


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

    def __str__(self) -> str:
        values = self.values
        shown = ", ".join(f"{k}={_short(v)}" for k, v in values.items() if k not in ("rows", "steps"))
        if isinstance(values.get("rows"), list):
            shown = ", ".join(filter(None, [f"{len(values['rows'])} rows", shown]))
        if self.kind == "sequential":
            return "sequential(" + "; ".join(str(Step.of(s["kind"], s["target"], **s["params"]))
                                             for s in values.get("steps", [])) + ")"
        return f"{self.kind}({self.target}{': ' + shown if shown else ''})"


def _short(value: Any) -> str:
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


def describe(steps: tuple[Step, ...]) -> str:
    """The steps as one line for ``--s2s-report``."""
    return "; ".join(map(str, steps))
