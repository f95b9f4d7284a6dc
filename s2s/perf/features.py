"""Performance features of loop nests: one stable vector per top-level loop nest, for transfer
tuning to embed.

    from s2s.perf import features, FEATURE_FIELDS
    nests = features("kernel.c", ["-DN=1000"])          # static features only
    nests = features("kernel.c", profile=result)         # plus the measured ones of an s2s profile
    nests[0].vector()                                    # floats, in FEATURE_FIELDS order (NaN: unknown)

The vector layout is versioned (``FEATURES_VERSION``); a field is only ever appended, never moved
or redefined, within a version. Every field is documented in ``FEATURE_FIELDS`` (name, unit,
meaning); ``describe()`` prints them. Static fields come from the IR and the polyhedral model (the
loop structure, the statements' expression trees, the access relations, the dependences); counts
that depend on problem sizes (trip counts, instances, footprint, FLOPs, bytes) are evaluated at
the parameter values given, or at those a profile recorded, else they are NaN. Dynamic fields come
from an ``s2s profile`` run (time share, GFLOP/s, bandwidth, the roofline bound and % of it).
"""
from __future__ import annotations

import math
import statistics
from collections import Counter as _Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from s2s.ir import Block, For, Map, While, walk

FEATURES_VERSION = 1
NAN = float("nan")


@dataclass(frozen=True)
class FeatureField:
    name: str
    unit: str
    doc: str


FEATURE_FIELDS: tuple[FeatureField, ...] = (
    # --- structure (static) -------------------------------------------------------------------
    FeatureField("depth", "loops", "deepest loop nesting in the nest"),
    FeatureField("n_loops", "loops", "number of loops (for, while) in the nest"),
    FeatureField("n_statements", "statements", "number of statements (dataflow blocks, initialised declarations)"),
    FeatureField("is_scop", "0/1", "1 when the whole nest is a static control part (modelled exactly by isl)"),
    FeatureField("n_params", "count", "number of symbolic parameters of its polyhedral model (loop bounds, sizes)"),
    FeatureField("n_arrays", "count", "distinct arrays accessed"),
    FeatureField("reads_per_stmt", "accesses", "distinct array elements read per statement instance, averaged over "
                 "statements (weighted by instances when known)"),
    FeatureField("writes_per_stmt", "accesses", "distinct array elements written per statement instance, averaged "
                 "like reads_per_stmt"),
    # --- arithmetic (static) ------------------------------------------------------------------
    FeatureField("flops_per_stmt", "FLOP", "floating-point operations per statement instance (PolyBench's rule, "
                 "s2s.perf.opcount), averaged like reads_per_stmt"),
    FeatureField("iops_per_stmt", "ops", "integer operations on data values per statement instance"),
    FeatureField("frac_add", "fraction", "share of additions and subtractions among the operations"),
    FeatureField("frac_mul", "fraction", "share of multiplications"),
    FeatureField("frac_div", "fraction", "share of divisions and remainders"),
    FeatureField("frac_math", "fraction", "share of math-library calls (sqrt, exp, pow, ...)"),
    FeatureField("frac_cmp", "fraction", "share of comparisons (min, max, ?:)"),
    FeatureField("frac_fp32", "fraction", "share of FLOPs in single precision"),
    # --- access pattern (static: each array access's subscripts in the innermost loop variable) ---
    FeatureField("stride0_frac", "fraction", "share of array accesses invariant in the innermost loop"),
    FeatureField("stride1_frac", "fraction", "share with unit stride in the innermost loop (contiguous)"),
    FeatureField("strided_frac", "fraction", "share with a constant non-unit stride (e.g. a column walk)"),
    FeatureField("irregular_frac", "fraction", "share not linear in the innermost loop variable (indirect, "
                 "divided, or in a while loop)"),
    # --- dependences (static) -------------------------------------------------------------------
    FeatureField("n_flow_deps", "count", "statement pairs with a value-based flow (read-after-write) dependence"),
    FeatureField("n_anti_deps", "count", "statement pairs with an anti (write-after-read) dependence"),
    FeatureField("n_output_deps", "count", "statement pairs with an output (write-after-write) dependence"),
    FeatureField("parallel_loop_frac", "fraction", "share of the loops that carry no dependence"),
    FeatureField("outer_parallel", "0/1", "the outermost loop carries no dependence"),
    FeatureField("inner_parallel", "0/1", "an innermost loop carries no dependence (vectorizable as is)"),
    FeatureField("carried_loops", "loops", "loops that carry a dependence"),
    FeatureField("min_carried_distance", "iterations", "smallest constant flow dependence distance carried by a "
                 "loop (NaN: none, or not constant)"),
    FeatureField("n_reductions", "count", "statements that are reductions (x = x op e)"),
    # --- sizes (at the parameter values: given, or recorded by a profile) -----------------------
    FeatureField("log2_instances", "log2", "statement instances per execution of the nest"),
    FeatureField("log2_trip_outer", "log2", "trip count of the outermost loop"),
    FeatureField("log2_trip_inner", "log2", "mean trip count of the innermost loops"),
    FeatureField("log2_footprint_bytes", "log2 bytes", "distinct data touched per execution"),
    FeatureField("log2_flops", "log2 FLOP", "floating-point operations per execution"),
    FeatureField("oi_access", "FLOP/byte", "FLOPs per byte of all loads and stores (cache-aware intensity)"),
    FeatureField("oi_footprint", "FLOP/byte", "FLOPs per byte of distinct footprint (compulsory intensity)"),
    # --- measured (an s2s profile) --------------------------------------------------------------
    FeatureField("time_share", "fraction", "share of the program's instrumented time spent in the nest"),
    FeatureField("log10_time_per_call_s", "log10 s", "time per execution"),
    FeatureField("gflops", "GFLOP/s", "achieved floating-point rate"),
    FeatureField("bw_access_gbs", "GB/s", "achieved bandwidth of all loads and stores"),
    FeatureField("pct_of_ceiling", "%", "how close the nest runs to the roofline ceiling that bounds it"),
    FeatureField("bound_compute", "0/1", "the nest is bounded by the compute peak"),
    FeatureField("bound_L1", "0/1", "bounded by L1 bandwidth (all accesses)"),
    FeatureField("bound_L2", "0/1", "bounded by L2 bandwidth (its footprint lives in L2)"),
    FeatureField("bound_L3", "0/1", "bounded by L3 bandwidth"),
    FeatureField("bound_DRAM", "0/1", "bounded by memory bandwidth"),
)
FEATURE_NAMES: tuple[str, ...] = tuple(f.name for f in FEATURE_FIELDS)


def describe() -> str:
    """The fields, one a line: index, name, unit, meaning."""
    return "\n".join(f"{i:2d} {f.name:22} {f.unit:12} {f.doc}" for i, f in enumerate(FEATURE_FIELDS))


@dataclass
class NestFeatures:
    function: str
    line: int
    node: str
    values: dict[str, float] = field(default_factory=dict)
    params: dict[str, int] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.function}:{self.line}"

    def vector(self) -> list[float]:
        return [float(self.values.get(n, NAN)) for n in FEATURE_NAMES]

    def to_json(self) -> dict:
        return {"label": self.label, "function": self.function, "line": self.line, "node": self.node,
                "version": FEATURES_VERSION, "params": self.params,
                "features": {n: (None if math.isnan(v) else v) for n, v in zip(FEATURE_NAMES, self.vector())}}


def features(source: str | Path, cpp_args: Sequence[str] = (), cc: str = "cc", profile=None,
             params: dict[str, int] | None = None, variant: str = "original") -> list[NestFeatures]:
    """Feature vectors of the top-level loop nests of ``source`` (the nests ``s2s profile`` times).

    ``profile``: an ``s2s.perf.profile.ProfileResult`` of the same file: measured fields, and the
    parameter values its counting run recorded. ``params``: parameter values to evaluate sizes at.
    """
    from s2s.perf.footprint import models_by_node, region_model
    from s2s.perf.instrument import find_regions
    from s2s.perf.opcount import TypeEnv, lift_with_typedefs

    source = str(source)
    unit, text, typedefs = lift_with_typedefs(source, cpp_args, cc)
    scops = models_by_node(unit, typedefs)
    regions = find_regions(unit, text, "original")
    measured = {}
    share_total = 0.0
    if profile is not None and profile.variant(variant) is not None:
        for n in profile.variant(variant).nests:
            measured[(n.function, n.line)] = n
            share_total += n.time_s or 0.0
    deps_cache: dict[int, tuple] = {}
    out = []
    for r in regions:
        model = region_model(r.function, r.covers, unit, scops)
        env = TypeEnv(r.sdfg, typedefs)
        nest = measured.get((r.function, r.line))
        values = dict(params or {})
        if not values and nest is not None and nest.params:
            best = max(nest.params, key=lambda p: p["count"])
            values = dict(best["values"])
        f = NestFeatures(r.function, r.line, r.node.id, values=dict.fromkeys(FEATURE_NAMES, NAN), params=values)
        f.values.update(_structure((r.node,), model, env, nest, values))
        f.values.update(_accesses((r.node,), env))
        if model.modelled:
            f.values.update(_dependences((r.node,), model, deps_cache))
        if nest is not None:
            f.values.update(_measured(nest, share_total))
        out.append(f)
    return out


@dataclass
class ScopFeatures(NestFeatures):
    """The features of one SCoP (the unit a recipe is for) under its stable id, with its
    statements' structure (``statement_features``) for matching them to another SCoP's."""

    scop: str = ""
    statements: list[dict[str, float]] = field(default_factory=list)


def scop_features(source: str | Path, cpp_args: Sequence[str] = (), cc: str = "cc", profile=None,
                  params: dict[str, int] | None = None) -> list[ScopFeatures]:
    """Feature vectors of the SCoPs of ``source``, as ``features`` computes them for a loop nest,
    over all the top-level nests a SCoP spans; ``profile`` and ``params`` as there (a profile's
    nests are merged over those the SCoP covers)."""
    from s2s.analysis import find_scops, numbered_scop_ids
    from s2s.perf.opcount import TypeEnv, lift_with_typedefs

    source = str(source)
    unit, _, typedefs = lift_with_typedefs(source, cpp_args, cc)
    measured = profile.variant("original").nests if profile is not None and profile.variant("original") else []
    share_total = sum(n.time_s or 0.0 for n in measured)
    out = []
    for sdfg in unit.functions:
        try:
            scops = find_scops(sdfg)
        except Exception:  # (a function the model cannot read has no SCoP to tune)
            continue
        env = TypeEnv(sdfg, typedefs)
        for scop, ident in zip(scops, numbered_scop_ids(sdfg.name, scops)):
            ids = {n.id for n in scop.nodes}
            nest = _merged([n for n in measured if n.function == sdfg.name and ids & set(n.covers)])
            out.append(features_of_scop(scop, ident, env, nest, share_total, params))
    return out


def features_of_scop(scop, ident: str, env, nest=None, share_total: float = 0.0,
                     params: dict[str, int] | None = None) -> ScopFeatures:
    """The features of one SCoP (``ident``: its stable id; ``env``: its function's types;
    ``nest``: what a profile measured over the nests it spans)."""
    from s2s.perf.footprint import RegionModel

    nodes = tuple(scop.nodes)
    model = RegionModel(tuple(scop.params), list(scop.statements), [scop], env)
    values = {k: v for k, v in (params or {}).items() if k in scop.params}
    if not values and nest is not None and nest.params:
        values = dict(max(nest.params, key=lambda p: p["count"])["values"])
    f = ScopFeatures(scop.sdfg.name, scop.first_line or 0, nodes[0].id, values=dict.fromkeys(FEATURE_NAMES, NAN),
                     params=values, scop=ident, statements=statement_features(scop, env))
    f.values.update(_structure(nodes, model, env, nest, values))
    f.values.update(_accesses(nodes, env))
    f.values.update(_dependences(nodes, model, {}))
    if nest is not None:
        f.values.update(_measured(nest, share_total))
    return f


STATEMENT_FIELDS = ("depth", "reads", "writes", "flops", "in_place", "write_rank", "position",
                    "shared_loops")


def statement_features(scop, env) -> list[dict[str, float]]:
    """Per statement of ``scop`` (``S0``, ``S1``... in the source's order) what matching it with
    a statement of another SCoP looks at: its loops, accesses, arithmetic and place."""
    import islpy as isl

    from s2s.perf.opcount import block_cost

    out = []
    statements = scop.statements
    for k, st in enumerate(statements):
        cost = block_cost(st.block, env)
        before = statements[k - 1].loops if k else ()
        shared = 0
        for a, b in zip(before, st.loops):
            if a.node is not b.node:
                break
            shared += 1
        ranks = [rel.dim(isl.dim_type.out) for is_write, rel in st.accesses if is_write]
        out.append({"depth": float(len(st.loops)), "reads": float(len(cost.reads)),
                    "writes": float(len(cost.writes)), "flops": float(cost.ops.flops),
                    "in_place": 1.0 if set(cost.writes) & set(cost.reads) else 0.0,
                    "write_rank": float(max(ranks, default=0)),
                    "position": k / max(1, len(statements) - 1), "shared_loops": float(shared)})
    return out


def _merged(nests: list):
    """One profile nest for the nests a SCoP spans: their counts and times summed."""
    import dataclasses

    if len(nests) <= 1:
        return nests[0] if nests else None

    def total(name):
        values = [getattr(n, name) for n in nests]
        return None if any(v is None for v in values) else sum(values)

    longest = max(nests, key=lambda n: n.time_s or 0.0)
    return dataclasses.replace(
        nests[0], time_s=total("time_s"), flops=total("flops"), access_bytes=total("access_bytes"),
        instances=total("instances"), footprint_per_call=total("footprint_per_call"),
        calls=max(n.calls for n in nests), statements=[s for n in nests for s in n.statements],
        params=next((n.params for n in nests if n.params), []), verdict=longest.verdict)


def _walk(nodes) -> list:
    return [n for node in nodes for n in walk(node)]


def _depth(node) -> int:
    inner = max((_depth(c) for c in _children(node)), default=0)
    return inner + (1 if isinstance(node, (For, While, Map)) else 0)


def _children(node):
    from s2s.ir import child_nodes
    return child_nodes(node)


def _log2(x) -> float:
    return math.log2(x) if x and x > 0 else NAN


def _structure(nodes, model, env, nest, values: dict[str, int]) -> dict[str, float]:
    from s2s.perf.footprint import count, footprint
    from s2s.perf.opcount import block_cost

    blocks = [n for n in _walk(nodes) if isinstance(n, Block)]
    loops = [n for n in _walk(nodes) if isinstance(n, (For, While, Map))]
    costs = {b.id: block_cost(b, env) for b in blocks}
    weights = {b: 1.0 for b in costs}
    source = "static"       # each statement once; "measured": a profile's counts; "model": isl at values
    if nest is not None and nest.statements:
        measured = {s["node"]: s["count"] for s in nest.statements}
        if any(measured.values()):
            weights = {b: float(measured.get(b, 0)) for b in costs}
            source = "measured"
    elif model.modelled:
        counted = {st.block.id: count(st.domain, values) for st in model.statements}
        if all(v is not None for v in counted.values()) and any(counted.values()) and set(counted) == set(costs):
            weights = {b: float(counted[b]) for b in costs}
            source = "model"
    total_w = sum(weights.values()) or 1.0
    kinds = _Counter()
    flops = iops = f32 = 0.0
    reads = writes = 0.0
    for b, c in costs.items():
        w = weights[b]
        flops += w * c.ops.flops
        f32 += w * c.ops.f32
        iops += w * c.ops.iops
        reads += w * len(c.reads)
        writes += w * len(c.writes)
        for k, n in c.ops.kinds:
            kinds[k] += w * n
    n_ops = sum(kinds.values())
    arrays = {a for c in costs.values() for a, _ in c.reads + c.writes}
    vals = {
        "depth": float(max(_depth(n) for n in nodes)), "n_loops": float(len(loops)), "n_statements": float(len(blocks)),
        "is_scop": 1.0 if model.modelled else 0.0, "n_params": float(len(model.params)) if model.modelled else NAN,
        "n_arrays": float(len(arrays)), "reads_per_stmt": reads / total_w, "writes_per_stmt": writes / total_w,
        "flops_per_stmt": flops / total_w, "iops_per_stmt": iops / total_w,
        "frac_add": kinds["add"] / n_ops if n_ops else 0.0, "frac_mul": kinds["mul"] / n_ops if n_ops else 0.0,
        "frac_div": kinds["div"] / n_ops if n_ops else 0.0, "frac_math": kinds["math"] / n_ops if n_ops else 0.0,
        "frac_cmp": kinds["cmp"] / n_ops if n_ops else 0.0, "frac_fp32": f32 / flops if flops else 0.0,
    }
    # sizes: measured (a profile) or counted on the model at ``values``
    instances = flop_total = bytes_total = fp_bytes = None
    if source == "measured" and nest.calls:
        instances = nest.instances / nest.calls
        flop_total = (nest.flops or 0) / nest.calls
        bytes_total = (nest.access_bytes or 0) / nest.calls
        fp_bytes = nest.footprint_per_call
    elif source == "model":
        instances = total_w
        flop_total = flops
        bytes_total = sum(weights[b] * c.bytes for b, c in costs.items())
        fp_bytes = footprint(model, values).bytes
    if model.modelled:
        vals.update(_trips(model, values))
    vals["log2_instances"] = _log2(instances)
    vals["log2_footprint_bytes"] = _log2(fp_bytes)
    vals["log2_flops"] = _log2(flop_total)
    vals["oi_access"] = flop_total / bytes_total if flop_total is not None and bytes_total else NAN
    vals["oi_footprint"] = flop_total / fp_bytes if flop_total is not None and fp_bytes else NAN
    return vals


def _trips(model, values) -> dict[str, float]:
    import islpy as isl

    from s2s.perf.footprint import count

    out = {}
    outer = [st for st in model.statements if st.loops]
    if not outer:
        return out
    first = outer[0]
    try:
        dom = first.domain.project_out(isl.dim_type.set, 1, first.domain.dim(isl.dim_type.set) - 1)
        out["log2_trip_outer"] = _log2(count(dom, values))
    except isl.Error:
        pass
    trips = []
    for st in model.statements:
        d = st.domain.dim(isl.dim_type.set)
        if d == 0:
            continue
        full = count(st.domain, values)
        head = count(st.domain.project_out(isl.dim_type.set, d - 1, 1), values) if d > 1 else 1
        if full and head:
            trips.append(full / head)
    if trips:
        out["log2_trip_inner"] = _log2(statistics.mean(trips))
    return out


def _coefficient(e, var: str):
    """The coefficient of ``var`` in subscript ``e``: an int, "sym" (symbolic: a parameter times
    ``var``) or "irregular" (not linear in ``var``: indirect, divided, ...)."""
    from s2s.ir import Access, Binary, Cast, Const, Range, Sym, Unary
    from s2s.ir import expr as ex

    if isinstance(e, Range):
        return "irregular"
    if var not in ex.names(e):
        return 0
    if isinstance(e, Sym):
        return 1
    if isinstance(e, Cast):
        return _coefficient(e.operand, var)
    if isinstance(e, Unary) and e.op in "+-":
        c = _coefficient(e.operand, var)
        return -c if isinstance(c, int) and e.op == "-" else c
    if isinstance(e, Binary) and e.op in "+-":
        a, b = _coefficient(e.lhs, var), _coefficient(e.rhs, var)
        if "irregular" in (a, b):
            return "irregular"
        if "sym" in (a, b):
            return "sym"
        return a + b if e.op == "+" else a - b
    if isinstance(e, Binary) and e.op == "*":
        for inner, other in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if var not in ex.names(other):
                c = _coefficient(inner, var)
                if not isinstance(c, int):
                    return c
                if isinstance(other, Const) and other.int_value is not None:
                    return c * other.int_value
                return 0 if c == 0 else "sym"
        return "irregular"
    if isinstance(e, Access):
        return "irregular"
    return "irregular"


def _loop_step(node) -> int | None:
    from s2s.ir import Binary, Const, Sym

    u = getattr(node, "update", None)
    if isinstance(u, Binary) and u.lhs == Sym(node.var) and u.op in "+-" and isinstance(u.rhs, Const):
        return u.rhs.int_value
    return None


def _stride_classes(node, env) -> _Counter:
    """Per array access of every statement: invariant / unit / strided / irregular in the
    statement's innermost loop."""
    from s2s.ir import Range, child_nodes

    classes = _Counter()

    def visit(n, loops) -> None:
        if isinstance(n, (For, While, Map)):
            loops = loops + (n,)
        if isinstance(n, Block) and loops:
            inner = loops[-1]
            var = getattr(inner, "var", None)
            step = _loop_step(inner) if isinstance(inner, For) else 1
            seen = set()
            for e in n.graph.edges:
                key = (e.data, e.subset, e in n.graph.writes())
                if key in seen or not env.is_array(e.data) or not e.subset:
                    continue
                seen.add(key)
                if var is None or step is None or any(isinstance(x, Range) for x in e.subset):
                    classes["irregular"] += 1
                    continue
                coeffs = [_coefficient(x, var) for x in e.subset]
                if "irregular" in coeffs:
                    classes["irregular"] += 1
                elif all(c == 0 for c in coeffs):
                    classes["invariant"] += 1
                elif all(c == 0 for c in coeffs[:-1]) and isinstance(coeffs[-1], int) and abs(coeffs[-1] * step) == 1:
                    classes["unit"] += 1
                else:
                    classes["strided"] += 1
        for c in child_nodes(n):
            visit(c, loops)

    visit(node, ())
    return classes


def _accesses(nodes, env) -> dict[str, float]:
    classes = sum((_stride_classes(n, env) for n in nodes), _Counter())
    total = sum(classes.values())
    if not total:
        return {}
    return {"stride0_frac": classes["invariant"] / total, "stride1_frac": classes["unit"] / total,
            "strided_frac": classes["strided"] / total, "irregular_frac": classes["irregular"] / total}


def _dependences(nodes, model, cache: dict) -> dict[str, float]:
    import islpy as isl

    from s2s.analysis import compute_dependences, loop_info, reductions
    from s2s.analysis.dependences import maps_of

    names = {st.name for st in model.statements}
    loop_ids = {n.id for n in _walk(nodes) if isinstance(n, For)}
    pairs = {"flow": set(), "anti": set(), "output": set()}
    infos = []
    n_red = 0
    for scop in model.scops:
        if id(scop) not in cache:
            try:
                deps = compute_dependences(scop)
                cache[id(scop)] = (deps, loop_info(scop, deps), reductions(scop))
            except Exception:  # a feature, not a verdict: leave the fields unknown
                cache[id(scop)] = None
        entry = cache[id(scop)]
        if entry is None:
            return {}
        deps, info, reds = entry
        for kind, rel in (("flow", deps.flow), ("anti", deps.anti), ("output", deps.output)):
            for m in maps_of(rel):
                a, b = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)
                if a in names and b in names:
                    pairs[kind].add((a, b))
        infos += [li for li in info if li.loop.node.id in loop_ids]
        n_red += sum(1 for red in reds if red.statement in names)
    out = {"n_flow_deps": float(len(pairs["flow"])), "n_anti_deps": float(len(pairs["anti"])),
           "n_output_deps": float(len(pairs["output"])), "n_reductions": float(n_red)}
    if infos:
        out["parallel_loop_frac"] = sum(li.parallel for li in infos) / len(infos)
        outermost = min(infos, key=lambda li: li.loop.depth)
        out["outer_parallel"] = 1.0 if outermost.parallel else 0.0
        leaf = [li for li in infos if not any(isinstance(n, For) and n is not li.loop.node
                                              for n in walk(li.loop.node.body))]
        out["inner_parallel"] = 1.0 if any(li.parallel for li in leaf) else 0.0
        out["carried_loops"] = float(sum(not li.parallel for li in infos))
        distances = []
        for li in infos:
            head = li.distances.split("..")[0].strip()
            if head.lstrip("-").isdigit():
                distances.append(abs(int(head)))
        out["min_carried_distance"] = float(min(distances)) if distances else NAN
    return out


def _measured(nest, share_total: float) -> dict[str, float]:
    out = {}
    if nest.time_s:
        out["time_share"] = nest.time_s / share_total if share_total else NAN
        out["log10_time_per_call_s"] = math.log10(nest.time_s / max(1, nest.calls))
    if nest.gflops is not None:
        out["gflops"] = nest.gflops
    if nest.bw_access is not None:
        out["bw_access_gbs"] = nest.bw_access / 1e9
    v = nest.verdict or {}
    if v.get("pct_of_ceiling") is not None:
        out["pct_of_ceiling"] = v["pct_of_ceiling"]
    if v.get("bound"):
        for b in ("compute", "L1", "L2", "L3", "DRAM"):
            out[f"bound_{b}"] = 1.0 if v["bound"] == b else 0.0
    return out
