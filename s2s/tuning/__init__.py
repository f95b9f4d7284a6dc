"""Transfer tuning: the optimizer's decisions as recipes (``recipe``), searched by an autotuner
(``tuner``), kept in a recipe database (``database``), and lent to similar loop nests by their
performance embeddings (``embedding``, ``mapping``, ``transfer_tuner``).

``autotune``, ``transfer`` and ``measure`` (``api``) build and run programs; they are imported on
first use, so that a build that only replays recipes does not pay for them.
"""
from s2s.tuning.database import NestRecord, RecipeDB, RecipeDBError, default_path
from s2s.tuning.recipe import SCHEMA_VERSION, Provenance, RecipeBook, RecipeError, ScopRecipe, machine_fingerprint

__all__ = ["SCHEMA_VERSION", "NestRecord", "Provenance", "RecipeBook", "RecipeDB", "RecipeDBError", "RecipeError",
           "ScopRecipe", "autotune", "default_path", "machine_fingerprint", "measure", "transfer"]


def __getattr__(name: str):
    if name in ("autotune", "transfer", "measure"):
        from s2s.tuning import api

        return getattr(api, name)
    raise AttributeError(f"module 's2s.tuning' has no attribute {name!r}")
