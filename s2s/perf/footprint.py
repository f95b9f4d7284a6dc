"""The polyhedral view of a region: which SCoP statements it holds, its parameters, and, at the
parameter values a run recorded, its exact distinct data footprint and statement instance counts.

The footprint of one execution of a region is the number of distinct array elements it touches:
the card of the image of every statement's domain under its read and write relations, per array,
times the element size (scalars live in registers and do not count). islpy has no symbolic card
(``isl_set_card`` is barvinok's), so the sets are counted at the recorded parameter values with
``count_val``, which walks all but the innermost dimension (a box is counted as the product of its
extents): a set whose walk would take more than ``MAX_SLICES`` steps is not counted (reported).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import islpy as isl

from s2s.analysis import Scop, Statement, find_scops
from s2s.ir import SDFG, Block, TranslationUnit, walk
from s2s.perf.opcount import TypeEnv, element_bytes

MAX_SLICES = 4_000_000


@dataclass
class RegionModel:
    """The SCoP statements of one region (None ``reason``: the whole region is modelled)."""

    params: tuple[str, ...] = ()
    statements: list[Statement] = field(default_factory=list)
    scops: list[Scop] = field(default_factory=list)
    env: TypeEnv | None = None
    reason: str | None = None

    @property
    def modelled(self) -> bool:
        return self.reason is None and bool(self.statements)


def models_by_node(unit: TranslationUnit, typedefs=None) -> dict[tuple[str, str], tuple[Scop, SDFG, TypeEnv]]:
    """(function, top-level node id) -> the top-level SCoP holding that node."""
    out = {}
    for sdfg in unit.functions:
        env = TypeEnv(sdfg, typedefs)
        try:
            scops = find_scops(sdfg)
        except Exception:  # the model is an extra: a failure leaves the region unmodelled
            continue
        for scop in scops:
            if scop.parent.id != sdfg.body.id:
                continue
            for n in scop.nodes:
                out[(sdfg.name, n.id)] = (scop, sdfg, env)
    return out


def region_model(function: str, covers: tuple[str, ...], unit: TranslationUnit,
                 scops: dict[tuple[str, str], tuple[Scop, SDFG, TypeEnv]]) -> RegionModel:
    """The model of a region covering the user's top-level nodes ``covers`` of ``function``."""
    sdfg = unit.function(function)
    found = []
    for node_id in covers:
        entry = scops.get((function, node_id))
        if entry is None:
            node = sdfg.find(node_id)
            if any(isinstance(n, Block) for n in walk(node)) or node_id == covers[0]:
                return RegionModel(reason="not a static control part (non-affine bounds, subscripts or calls)")
            continue
        found.append((node_id, entry))
    statements, params, scop_list = [], [], []
    env = None
    for node_id, (scop, _sdfg, e) in found:
        env = e
        blocks = {n.id for n in walk(sdfg.find(node_id)) if isinstance(n, Block)}
        statements += [s for s in scop.statements if s.block.id in blocks]
        params += [p for p in scop.params if p not in params]
        if scop not in scop_list:
            scop_list.append(scop)
    return RegionModel(tuple(params), statements, scop_list, env)


def _fix(s: isl.Set, values: dict[str, int]) -> isl.Set | None:
    n = s.dim(isl.dim_type.param)
    for i in range(n):
        name = s.get_dim_name(isl.dim_type.param, i)
        if name not in values:
            return None
        s = s.fix_val(isl.dim_type.param, i, isl.Val.int_from_si(s.get_ctx(), int(values[name])))
    return s.project_out(isl.dim_type.param, 0, n)


def slices(s: isl.Set) -> float:
    """How many steps ``count_val`` would take on a parameter-free set (inf when unbounded)."""
    if s.is_empty():
        return 0
    total = 1.0
    for d in range(s.dim(isl.dim_type.set) - 1):
        try:
            lo, hi = s.dim_min_val(d), s.dim_max_val(d)
        except isl.Error:
            return math.inf
        if not (lo.is_int() and hi.is_int()):
            return math.inf
        total *= hi.to_python() - lo.to_python() + 1
    return total


def _box_count(s: isl.Set) -> int | None:
    """The number of points of a parameter-free set that is exactly a box (else None)."""
    if s.is_empty():
        return 0
    n = s.dim(isl.dim_type.set)
    box = isl.Set.universe(s.get_space())
    total = 1
    for d in range(n):
        try:
            lo, hi = s.dim_min_val(d), s.dim_max_val(d)
        except isl.Error:
            return None
        if not (lo.is_int() and hi.is_int()):
            return None
        box = box.lower_bound_val(isl.dim_type.set, d, lo).upper_bound_val(isl.dim_type.set, d, hi)
        total *= hi.to_python() - lo.to_python() + 1
    return total if box.is_equal(s) else None


def count(s: isl.Set, values: dict[str, int]) -> int | None:
    """Points of ``s`` at parameter ``values``; None when unknown or too costly to enumerate."""
    fixed = _fix(s, values)
    if fixed is None:
        return None
    boxed = _box_count(fixed)
    if boxed is not None:
        return boxed
    if slices(fixed) > MAX_SLICES:
        return None
    v = fixed.count_val()
    return v.to_python() if v.is_int() else None


@dataclass
class Footprint:
    bytes: int | None
    per_array: dict[str, int]       # distinct elements per array
    reason: str | None = None


def footprint(model: RegionModel, values: dict[str, int]) -> Footprint:
    if not model.modelled or model.env is None:
        return Footprint(None, {}, model.reason or "no statement")
    accessed: isl.UnionSet | None = None
    for st in model.statements:
        image = st.reads.union(st.writes).range()
        accessed = image if accessed is None else accessed.union(image)
    per_array: dict[str, int] = {}
    total = 0
    sets: list[isl.Set] = []
    if accessed is not None:
        accessed.foreach_set(sets.append)
    for s in sets:
        name = s.get_tuple_name()
        if not model.env.is_array(name):
            continue   # a scalar (zero-dimensional in the model): a register
        n = count(s, values)
        if n is None:
            return Footprint(None, per_array, f"the footprint of {name} is too large to count point by point")
        size = element_bytes(model.env.dtype(name))
        if size is None:
            return Footprint(None, per_array, f"element size of {name} unknown")
        per_array[name] = n
        total += n * size
    return Footprint(total, per_array)


def instance_counts(model: RegionModel, values: dict[str, int]) -> dict[str, int | None]:
    """Statement block id -> instances per execution of the region (None where too costly)."""
    return {st.block.id: count(st.domain, values) for st in model.statements}
