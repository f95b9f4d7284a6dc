"""Exact k-nearest-neighbour search over the server's tuned nests, by the distance of
``s2s.tuning.embedding`` (each field divided by its spread over the candidates, the weighted root
mean square over the fields both nests know), vectorized over all candidates at once. The
candidates' matrix is kept between requests until a submission changes the rows.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from s2s.tuning.database import NestRecord
from s2s.tuning.embedding import Scale, Weights, embed
from s2s.recipe_server.store import Store


@dataclass(frozen=True)
class Candidates:
    records: list[NestRecord]
    fields: dict[str, int]        # a field's column
    matrix: np.ndarray            # records x fields, standardized, NaN where a record lacks the field
    spread: np.ndarray            # per column

    @staticmethod
    def of(records: list[NestRecord]) -> "Candidates":
        embeddings = [embed(r.features, r.machine_features) for r in records]
        scale = Scale.over(embeddings)
        fields = {name: k for k, name in enumerate(sorted(scale.spread))}
        matrix = np.full((len(records), len(fields)), np.nan)
        for i, e in enumerate(embeddings):
            for name, value in e.items():
                matrix[i, fields[name]] = value
        spread = np.array([scale.spread[name] for name in fields]) if fields else np.ones(0)
        return Candidates(records, fields, matrix / spread, spread)

    def nearest(self, features: Mapping[str, float | None], machine: Mapping[str, float], k: int,
                weights: Weights) -> list[tuple[NestRecord, float]]:
        """The ``k`` nearest records and their distances, nearest first (ties by row order); a
        record that shares no field with the query is none's neighbour."""
        if not self.records:
            return []
        query = np.full(len(self.fields), np.nan)
        for name, value in embed(features, machine).items():
            if name in self.fields:
                query[self.fields[name]] = value / self.spread[self.fields[name]]
        w = np.array([weights.of(name) for name in self.fields])
        known = ~np.isnan(self.matrix) & ~np.isnan(query)
        diff = np.where(known, self.matrix - np.nan_to_num(query), 0.0)
        weight = (known * w).sum(axis=1)
        total = (diff * diff * w).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            distance = np.where(weight > 0, np.sqrt(total / np.where(weight > 0, weight, 1.0)), np.inf)
        order = np.argsort(distance, kind="stable")[:k]
        return [(self.records[i], float(distance[i])) for i in order if np.isfinite(distance[i])]


class NeighbourIndex:
    """The candidates of each (target, features version, least speedup, programs left out),
    read from the store again after any submission that changed its rows."""

    def __init__(self, store: Store, entries: int = 64):
        self.store, self.entries = store, entries
        self._cache: dict[tuple, tuple[tuple, Candidates]] = {}
        self._lock = threading.Lock()

    def candidates(self, target: str, features_version: int, min_speedup: float,
                   exclude: tuple[str, ...]) -> Candidates:
        key = (target, features_version, min_speedup, exclude)
        revision = self.store.revision()
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and cached[0] == revision:
            return cached[1]
        found = Candidates.of(self.store.candidates(target, features_version, min_speedup, exclude))
        with self._lock:
            if len(self._cache) >= self.entries:
                self._cache.clear()
            self._cache[key] = (revision, found)
        return found

