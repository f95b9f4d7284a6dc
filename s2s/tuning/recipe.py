"""Recipes in files: per SCoP (by its stable id, ``s2s.analysis.scop_id``) the steps the optimizer
took or is to take (``s2s.transforms.decisions``), with a schema version and where they came from.

    {"schema": 1,
     "provenance": {"source_sha256": ..., "s2s_version": ..., "machine": ..., "compiler": ...,
                    "flags": [...], "target": "c", "created": "2026-11-27T22:40:00+00:00"},
     "recipes": [{"scop": "kernel_gemm/3f1c0e9a2b4d", "function": "kernel_gemm", "line": 42,
                  "steps": [{"kind": "fuse", "target": "scop", "params": {"policy": "smart"}}, ...]}]}

``s2s opt --emit-recipes R.json`` writes what the rules chose; ``s2s opt --recipes R.json`` and
``s2s-cc --s2s-recipes=R.json`` replay them (``OptimizeOptions.steps``).
"""
from __future__ import annotations

import datetime
import hashlib
import json
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from s2s import __version__
from s2s.errors import S2SError
from s2s.transforms.decisions import STEP_KINDS, Step, asked

SCHEMA_VERSION = 1


class RecipeError(S2SError):
    """A recipe file that cannot be read or does not follow the schema."""


@dataclass(frozen=True)
class Provenance:
    source_sha256: str = ""
    s2s_version: str = __version__
    machine: str = ""         # this host's processor and core count (s2s machine profiles it further)
    compiler: str = ""
    flags: tuple[str, ...] = ()
    target: str = "c"
    created: str = ""

    @staticmethod
    def here(source_text: str, compiler: str, flags: list[str] | tuple[str, ...], target: str) -> "Provenance":
        return Provenance(source_sha256=hashlib.sha256(source_text.encode(errors="surrogateescape")).hexdigest(),
                          machine=machine_fingerprint(), compiler=compiler, flags=tuple(flags), target=target,
                          created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))


def machine_fingerprint() -> str:
    """``<architecture> <processor model> x<logical cpus>``: which machine a recipe was found on."""
    import os

    model = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.machine()} {model} x{os.cpu_count() or 1}".strip()


@dataclass(frozen=True)
class ScopRecipe:
    scop: str                     # stable id: function/digest
    function: str
    line: int | None              # where the SCoP started when the recipe was written (informative)
    steps: tuple[Step, ...]


@dataclass
class RecipeBook:
    provenance: Provenance = field(default_factory=Provenance)
    recipes: list[ScopRecipe] = field(default_factory=list)

    def steps_for(self, scop: str) -> tuple[Step, ...] | None:
        return next((r.steps for r in self.recipes if r.scop == scop), None)

    def with_steps(self, scop: str, steps: tuple[Step, ...]) -> "RecipeBook":
        """This book with SCoP ``scop``'s steps replaced."""
        return RecipeBook(self.provenance, [ScopRecipe(r.scop, r.function, r.line, tuple(steps)) if r.scop == scop
                                            else r for r in self.recipes])

    def key(self) -> tuple:
        """What the book asks, SCoP by SCoP (``decisions.asked``): books of one key give the same code."""
        return tuple(sorted((r.scop, asked(r.steps)) for r in self.recipes))

    def to_json(self) -> str:
        data = {"schema": SCHEMA_VERSION,
                "provenance": {**self.provenance.__dict__, "flags": list(self.provenance.flags)},
                "recipes": [{"scop": r.scop, "function": r.function, "line": r.line,
                             "steps": [s.as_dict() for s in r.steps]}
                            for r in self.recipes]}
        return json.dumps(data, indent=1) + "\n"

    @staticmethod
    def from_json(text: str, where: str = "recipes") -> "RecipeBook":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecipeError(f"{where}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA_VERSION:
            found = data.get("schema") if isinstance(data, dict) else None
            raise RecipeError(f"{where}: schema {found!r}, this s2s reads schema {SCHEMA_VERSION}")
        prov = data.get("provenance", {})
        if not isinstance(prov, dict):
            raise RecipeError(f"{where}: 'provenance' must be an object")
        known = Provenance.__dataclass_fields__
        provenance = Provenance(**{k: (tuple(v) if k == "flags" else v) for k, v in prov.items() if k in known})
        recipes = []
        for k, r in enumerate(_list(data.get("recipes"), f"{where}: 'recipes'")):
            at = f"{where}: recipes[{k}]"
            if not isinstance(r, dict) or not isinstance(r.get("scop"), str):
                raise RecipeError(f"{at}: needs a 'scop' id")
            steps = tuple(_step(s, f"{at}.steps[{j}]") for j, s in enumerate(_list(r.get("steps"), f"{at}: 'steps'")))
            recipes.append(ScopRecipe(r["scop"], str(r.get("function", r["scop"].split("/")[0])),
                                      r.get("line") if isinstance(r.get("line"), int) else None, steps))
        return RecipeBook(provenance, recipes)

    @staticmethod
    def load(path: str | Path) -> "RecipeBook":
        try:
            text = Path(path).read_text()
        except OSError as e:
            raise RecipeError(f"{path}: cannot read the recipes: {e.strerror}") from None
        return RecipeBook.from_json(text, str(path))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json())


def _list(value: Any, what: str) -> list:
    if not isinstance(value, list):
        raise RecipeError(f"{what} must be a list")
    return value


def _step(data: Any, at: str) -> Step:
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise RecipeError(f"{at}: a step is {{kind, target, params}}")
    if data["kind"] not in STEP_KINDS:
        raise RecipeError(f"{at}: unknown kind {data['kind']!r} (known: {', '.join(STEP_KINDS)})")
    params = data.get("params", {})
    if not isinstance(params, dict):
        raise RecipeError(f"{at}: 'params' must be an object")
    return Step.of(data["kind"], str(data.get("target", "scop")), **params)
