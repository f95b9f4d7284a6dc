"""What the recipe server accepts: bounds on every submitted field, checked before anything is
stored. The server never runs, builds or compiles what it is sent; these bounds keep a row small
enough to serve to every client and its steps within what the optimizer would ever replay.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from s2s.transforms.decisions import STEP_KINDS
from s2s.tuning.database import NestRecord, record_from_json


@dataclass(frozen=True)
class Bounds:
    """The largest values a submission may carry (data: a deployment may want others)."""

    records_per_request: int = 256
    record_bytes: int = 256 * 1024          # one row as JSON
    text: int = 256                          # scop, program, function, machine names
    fields: int = 256                        # features, machine features, params per row
    statements: int = 512
    statement_bytes: int = 4096
    steps: int = 256                         # per recipe, nested ones counted
    step_integer: int = 1 << 16              # tile sizes, factors, depths: far past any real one
    nesting: int = 8                         # of a step's params
    provenance_bytes: int = 8192
    seconds: float = 1e7
    evaluations: int = 1_000_000
    field_magnitude: float = 1e30            # |feature| and |machine feature|
    param_magnitude: int = 1 << 40           # a size parameter's value


class Rejected(ValueError):
    """A submitted row that is not stored, and why."""


def checked_record(data: Any, bounds: Bounds = Bounds()) -> NestRecord:
    """``data`` as a record if it is one the server stores (else ``Rejected``, with the reason):
    the recipe database's own validation, then the server's bounds."""
    try:
        size = len(json.dumps(data, allow_nan=False))
    except (TypeError, ValueError):
        raise Rejected("a row is strict JSON (no NaN or infinity)") from None
    if size > bounds.record_bytes:
        raise Rejected(f"a row is at most {bounds.record_bytes} bytes of JSON, this one {size}")
    try:
        record = record_from_json(data)
    except ValueError as exc:
        raise Rejected(str(exc)) from None
    _check_bounds(record, bounds)
    return record


def _check_bounds(r: NestRecord, b: Bounds) -> None:
    for name in ("scop", "function", "program", "machine", "dataset"):
        if len(getattr(r, name)) > b.text:
            raise Rejected(f"'{name}' is longer than {b.text} characters")
    for name in ("features", "machine_features", "params"):
        if len(getattr(r, name)) > b.fields:
            raise Rejected(f"'{name}' has more than {b.fields} fields")
        if any(len(k) > b.text for k in getattr(r, name)):
            raise Rejected(f"a name in '{name}' is longer than {b.text} characters")
    for name in ("features", "machine_features"):
        bad = next((k for k, v in getattr(r, name).items()
                    if v is not None and not (math.isfinite(v) and abs(v) <= b.field_magnitude)), None)
        if bad is not None:
            raise Rejected(f"'{name}.{bad}' is out of range")
    bad = next((k for k, v in r.params.items() if abs(v) > b.param_magnitude), None)
    if bad is not None:
        raise Rejected(f"'params.{bad}' is out of range")
    if len(r.statements) > b.statements:
        raise Rejected(f"'statements' has more than {b.statements} entries")
    if any(len(json.dumps(s)) > b.statement_bytes for s in r.statements):
        raise Rejected(f"a statement is more than {b.statement_bytes} bytes of JSON")
    if len(json.dumps(r.provenance)) > b.provenance_bytes:
        raise Rejected(f"'provenance' is more than {b.provenance_bytes} bytes of JSON")
    for name in ("default_seconds", "tuned_seconds", "tune_seconds"):
        value = getattr(r, name)
        if value is not None and value > b.seconds:
            raise Rejected(f"'{name}' is out of range")
    if r.evaluations > b.evaluations:
        raise Rejected("'evaluations' is out of range")
    for name in ("recipe", "default_recipe"):
        count = _steps(getattr(r, name), name, b, depth=0)
        if count > b.steps:
            raise Rejected(f"'{name}' has more than {b.steps} steps")


def _steps(steps: list[dict[str, Any]], at: str, b: Bounds, depth: int) -> int:
    """The number of steps in ``steps``, those inside ``sequential`` ones counted, each checked."""
    count = 0
    for k, step in enumerate(steps):
        where = f"'{at}[{k}]'"
        if len(str(step.get("target", ""))) > b.text:
            raise Rejected(f"{where}: its target is longer than {b.text} characters")
        params = step.get("params") or {}
        _check_value(params, where, b, depth=0)
        count += 1
        if step["kind"] == "sequential":
            inner = params.get("steps", [])
            if depth >= 1 or not isinstance(inner, list) or not all(
                    isinstance(s, dict) and s.get("kind") in STEP_KINDS and s.get("kind") != "sequential"
                    for s in inner):
                raise Rejected(f"{where}: a sequential step holds a list of known, non-sequential steps")
            count += _steps(inner, f"{at}[{k}].steps", b, depth + 1)
    return count


def _check_value(value: Any, where: str, b: Bounds, depth: int) -> None:
    if depth > b.nesting:
        raise Rejected(f"{where}: its params nest deeper than {b.nesting}")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        if abs(value) > b.step_integer:
            raise Rejected(f"{where}: {value} is out of range (at most {b.step_integer})")
    elif isinstance(value, float):
        if not math.isfinite(value) or abs(value) > b.step_integer:
            raise Rejected(f"{where}: {value} is out of range")
    elif isinstance(value, str):
        if len(value) > b.text:
            raise Rejected(f"{where}: a string longer than {b.text} characters")
    elif isinstance(value, list):
        if len(value) > b.steps:
            raise Rejected(f"{where}: a list longer than {b.steps}")
        for v in value:
            _check_value(v, where, b, depth + 1)
    elif isinstance(value, dict):
        if len(value) > b.fields:
            raise Rejected(f"{where}: an object of more than {b.fields} fields")
        for k, v in value.items():
            if len(k) > b.text:
                raise Rejected(f"{where}: a name longer than {b.text} characters")
            _check_value(v, where, b, depth + 1)
    else:
        raise Rejected(f"{where}: {type(value).__name__} is not JSON")
