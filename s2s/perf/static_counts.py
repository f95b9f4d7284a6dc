"""FLOPs, bytes of accesses and distinct footprint of a function's loop nests at given sizes, from
the polyhedral model alone (no build, no run): statement instances are counted with isl at the
parameter values (or the constants the sizes were compiled into) and multiplied by each
statement's static cost (``opcount``). Exact for SCoPs; a nest that is not one makes the result
``exact=False`` and is left out. ``s2s bench --roofline`` places its kernels with this.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence


@dataclass
class StaticCounts:
    flops: int = 0
    f64: int = 0
    f32: int = 0
    iops: int = 0
    access_bytes: int = 0
    footprint_bytes: int | None = None
    instances: int = 0
    exact: bool = True
    reasons: list[str] = field(default_factory=list)

    @property
    def oi_access(self) -> float | None:
        return self.flops / self.access_bytes if self.access_bytes else None

    @property
    def oi_footprint(self) -> float | None:
        return self.flops / self.footprint_bytes if self.footprint_bytes else None


def static_counts(source: str | Path, cpp_args: Sequence[str] = (), cc: str = "cc",
                  function: Callable[[str], bool] | str | None = None,
                  values: dict[str, int] | None = None) -> StaticCounts:
    """Counts of the top-level loop nests of the functions selected by ``function`` (a name, a
    predicate, or None for all) of ``source``, at parameter ``values``."""
    from s2s.perf.footprint import RegionModel, count, footprint, models_by_node, region_model
    from s2s.perf.instrument import find_regions
    from s2s.perf.opcount import TypeEnv, block_cost, lift_with_typedefs

    source = str(source)
    unit, text, typedefs = lift_with_typedefs(source, cpp_args, cc)
    if isinstance(function, str):
        name = function
        function = lambda f: f == name  # noqa: E731
    scops = models_by_node(unit, typedefs)
    out = StaticCounts()
    values = values or {}
    combined = RegionModel()
    for r in find_regions(unit, text, "original"):
        if function is not None and not function(r.function):
            continue
        model = region_model(r.function, r.covers, unit, scops)
        if not model.modelled:
            out.exact = False
            out.reasons.append(f"{r.label}: {model.reason}")
            continue
        env = TypeEnv(r.sdfg, typedefs)
        for st in model.statements:
            n = count(st.domain, values)
            if n is None:
                out.exact = False
                out.reasons.append(f"{r.label}: {st.name} has too many instances to count point by point")
                continue
            cost = block_cost(st.block, env)
            out.instances += n
            out.f64 += n * cost.ops.f64
            out.f32 += n * cost.ops.f32
            out.iops += n * cost.ops.iops
            out.access_bytes += n * cost.bytes
            if not cost.exact:
                out.exact = False
                out.reasons.extend(cost.reasons)
        combined.statements += model.statements
        combined.params = tuple(dict.fromkeys(combined.params + model.params))
        combined.scops += [s for s in model.scops if s not in combined.scops]
        combined.env = env
    out.flops = out.f64 + out.f32
    if combined.statements:
        fp = footprint(combined, values)
        out.footprint_bytes = fp.bytes
        if fp.bytes is None:
            out.reasons.append(f"footprint: {fp.reason}")
    return out
