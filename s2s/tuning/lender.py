"""Recipes from the recipe database at build time (``s2s-cc --s2s-tune=tuned|transfer``), where
there is no program to run and nothing is measured.

``tuned``: a SCoP tuned before (a row with its own id, for this target) replays its tuned recipe,
this machine's row first, the latest first. ``transfer``: a SCoP takes the mapped recipe of its
nearest tuned nest that gained by tuning (``min_gain``: a neighbour whose tuned recipe is its
rules' carries no finding, only its own rules' parameters, a guess), and only when that one is
within ``max_distance``. Otherwise the rules decide. With a recipe server (``server``) the
nearest tuned nest is the server's, the local database's only when the server cannot be reached.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from s2s.perf.features import FEATURES_VERSION, ScopFeatures
from s2s.transforms.decisions import Step
from s2s.tuning.database import NestRecord
from s2s.tuning.embedding import Scale, Weights, embed, machine_features, nearest
from s2s.tuning.mapping import map_recipe
from s2s.tuning.recipe import machine_fingerprint

if TYPE_CHECKING:
    from s2s.tuning.remote import RecipeServer

TUNE_MODES = ("off", "tuned", "transfer")
TRANSFER_DISTANCE = 0.5   # the farthest a tuned nest may be for a build to take its recipe unmeasured
LENT_GAIN = 1.05          # the least speedup over its rules' a tuned nest must have had to lend its recipe

Rules = Callable[[tuple[Step, ...]], tuple[Step, ...]]


@dataclass
class Lender:
    records: list[NestRecord]
    target: str
    mode: str = "transfer"
    exclude: tuple[str, ...] = ()          # programs whose rows are not lent (leave-one-out evaluations)
    max_distance: float = TRANSFER_DISTANCE
    min_gain: float = LENT_GAIN
    weights: Weights = field(default_factory=Weights)
    server: "RecipeServer | None" = None   # asked first in transfer mode (s2s.tuning.remote)
    notes: list[str] = field(default_factory=list)   # what went wrong with the server, for stderr

    def __post_init__(self) -> None:
        self.records = [r for r in self.records if r.target == self.target and r.program not in self.exclude]
        if self.mode == "transfer":
            self.records = [r for r in self.records if r.features_version == FEATURES_VERSION
                            and (r.speedup or 0.0) >= self.min_gain]
            self._embeddings = [embed(r.features, r.machine_features) for r in self.records]
            self._machine = machine_features() if self.records or self.server is not None else {}
            self._scale = Scale.over(self._embeddings)

    def lend(self, ident: str, features: Callable[[], ScopFeatures],
             rules: Rules) -> tuple[tuple[Step, ...] | None, str]:
        """The steps for SCoP ``ident`` (None: its own rules), and why; ``features`` and ``rules``
        are asked only when needed."""
        if self.mode == "tuned":
            return self._own(ident) if self.records else (None, "no tuned loop nest in the recipe database")
        if self.server is None and not self.records:
            return None, f"no tuned loop nest in the recipe database that gained {self.min_gain:.2f}x"
        f = features()
        asked = self._asked(ident, f) if self.server is not None else None
        if asked is not None:
            if not asked:
                return None, f"no tuned loop nest on the recipe server that gained {self.min_gain:.2f}x"
            (source, distance), where = asked[0], " on the recipe server"
        elif self.records:
            near = nearest(embed(f.values, self._machine), self._embeddings, 1, self.weights, self._scale)[0]
            source, distance, where = self.records[near.index], near.distance, ""
        else:
            return None, f"no tuned loop nest in the recipe database that gained {self.min_gain:.2f}x"
        if distance > self.max_distance:
            return None, f"nearest tuned nest{where} {source.program} {source.scop} too far ({distance:.2f})"
        mapped = map_recipe(source.steps(), source.statements, f.statements, rules)
        return mapped.steps, f"recipe of {source.program} {source.scop}{where} (distance {distance:.2f})"

    def _asked(self, ident: str, f: ScopFeatures) -> list[tuple[NestRecord, float]] | None:
        """The server's nearest tuned nest to ``f`` (None: the server failed, which ``notes``
        says, and the local database lends for the rest of this build)."""
        from s2s.tuning.remote import RecipeServerError

        try:
            found = self.server.transfer(self.target, {ident: f.values}, self._machine, topk=1,
                                         min_speedup=self.min_gain, exclude=self.exclude)
        except RecipeServerError as exc:
            self.notes.append(f"{exc}; the local recipe database lends instead")
            self.server = None
            return None
        return found.get(ident, [])

    def _own(self, ident: str) -> tuple[tuple[Step, ...] | None, str]:
        here = machine_fingerprint()
        own = sorted((r for r in self.records if r.scop == ident), key=lambda r: (r.machine == here, r.updated))
        if not own:
            return None, "not tuned"
        row = own[-1]
        return row.steps(), f"tuned recipe of {row.program} ({row.speedup or 1:.2f}x when tuned)"
