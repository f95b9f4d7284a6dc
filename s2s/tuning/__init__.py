"""Transfer tuning: the optimizer's decisions as recipes, kept in files, searched by an autotuner
(s2s.driver.tune; later stored in a database and transferred to similar loop nests)."""
from s2s.tuning.database import NestRecord, RecipeDB, RecipeDBError, default_path
from s2s.tuning.recipe import SCHEMA_VERSION, Provenance, RecipeBook, RecipeError, ScopRecipe, machine_fingerprint

__all__ = ["SCHEMA_VERSION", "NestRecord", "Provenance", "RecipeBook", "RecipeDB", "RecipeDBError", "RecipeError",
           "ScopRecipe", "default_path", "machine_fingerprint"]
# (the autotuner builds and runs programs: s2s.driver.tune)
