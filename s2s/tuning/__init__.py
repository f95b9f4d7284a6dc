"""Transfer tuning: the optimizer's decisions as recipes (``recipe``), searched by an autotuner
(``tuner``), kept in a recipe database (``database``), and lent to similar loop nests by their
performance embeddings (``embedding``, ``mapping``, ``transfer_tuner``).

The database and ``autotune``, ``transfer`` and ``measure`` (``api``, which build and run
programs) are imported on first use: s2s-cc reads recipes on every file it optimizes, and a
build that does not use the database should not pay for it.
"""
from s2s.tuning.recipe import SCHEMA_VERSION, Provenance, RecipeBook, RecipeError, ScopRecipe, machine_fingerprint

__all__ = ["SCHEMA_VERSION", "NestRecord", "Provenance", "RecipeBook", "RecipeDB", "RecipeDBError", "RecipeError",
           "ScopRecipe", "autotune", "default_path", "machine_fingerprint", "measure", "transfer"]

_LAZY = {"NestRecord": "database", "RecipeDB": "database", "RecipeDBError": "database", "default_path": "database",
         "autotune": "api", "transfer": "api", "measure": "api"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"s2s.tuning.{_LAZY[name]}"), name)
    raise AttributeError(f"module 's2s.tuning' has no attribute {name!r}")
