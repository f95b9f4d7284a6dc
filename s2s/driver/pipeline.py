"""The optimization pipeline behind ``s2s opt`` and ``s2s-cc``: C file in, C text out.

    C file -> cc -E -> pycparser -> s2s.ir (one SDFG per function)
           -> [transformations: later issues]
           -> C back end prints the chosen loop nests -> spliced into the original text
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from collections.abc import Sequence
from pathlib import Path

from s2s.errors import S2SError

TYPE_CHECKING = False   # (typing.TYPE_CHECKING without importing typing: s2s-cc's start-up time matters)
if TYPE_CHECKING:
    from s2s import ir

MODES = ("identity", "isl", "pluto", "off")


@dataclass(frozen=True)
class PipelineOptions:
    """What the user asked for (flags first, then S2S_* environment variables, then defaults)."""

    # "identity": lift every function to the IR and regenerate every liftable loop nest from it
    # (no transformation); "isl": rebuild every SCoP through the polyhedral model and isl's code
    # generator with its original schedule; "pluto": a Pluto-style schedule per SCoP (fusion, skewing,
    # tiling, parallel and SIMD loops), checked for legality; "off": return the file unchanged.
    mode: str = "pluto"
    target: str = "c"
    report: bool = False
    compiler: str = "cc"  # the real compiler, used for preprocessing
    emit_ir: bool = False
    fusion: str = "smart"
    tile_sizes: tuple[int, ...] | None = None   # None: from the cache model of this machine
    kernels: bool = True   # matrix-multiply statements as register-blocked library nodes
    profitability: bool = True   # False: every legal schedule replaces the user's loops, gain or not
    recipes: str | None = None   # a recipe file (s2s.tuning) whose steps replace the rules' decisions
    record_recipes: bool = False  # each SCoP's steps in PipelineResult.recipes (also with report or recipes)
    tune: str = "off"   # recipes from the recipe database: "tuned" (a SCoP's own), "transfer" (its nearest's)
    tune_exclude: tuple[str, ...] = ()   # programs of the database not to lend from
    time_nests: bool = False   # a timer around every statement holding a SCoP (nest_timers.py)
    strict_aliasing: bool = True   # C's effective-type rule holds (off: -fno-strict-aliasing, -O0, -O1)
    reassociate: bool = False   # floating-point sums may be reordered (-ffast-math, --s2s-reassociate)
    hwy_static: bool = False    # the Highway targets: static dispatch (one target, no libhwy)
    # the user's flags that choose the target's ISA (target_vectors.py): the matrix-multiply
    # kernels are blocked for its vector registers; None: for this machine's
    target_flags: tuple[str, ...] | None = None


@dataclass
class PipelineResult:
    source: str  # C text to compile in place of the user's file (starts with a #line directive)
    changed: bool  # whether any region differs from the user's file
    report: list[str] = field(default_factory=list)  # one line per loop nest, for --s2s-report
    ir_json: str | None = None
    recipes: list = field(default_factory=list)   # per SCoP the steps taken (s2s.tuning.ScopRecipe)
    full_report: list[str] = field(default_factory=list)   # ``report`` with each SCoP's recipe after
                                                          # its line (what --report prints)
    warnings: list[str] = field(default_factory=list)   # for stderr whatever the report flags, once
                                                        # (a recipe server that cannot be reached)
    companions: list = field(default_factory=list)   # units in other languages to compile into the
                                                     # object (s2s.driver.companion_units.CompanionUnit)


def optimize_c_file(path: str | Path, cpp_args: Sequence[str], options: PipelineOptions,
                    preprocessed: str | None = None) -> PipelineResult:
    """Optimize one C file. ``cpp_args`` are the user's preprocessor flags (-D -U -I -include -std ...).
    ``path`` is used verbatim in ``#line`` directives (so ``./a.c`` stays ``./a.c`` for ``__FILE__``).
    ``preprocessed``: the file's text preprocessed with them, where the caller has it already.

    Raises ``s2s.errors.S2SError`` (or anything else on an internal bug): callers fall back.
    """
    if options.mode not in MODES:
        raise S2SError(f"unknown mode {options.mode!r} (expected one of {', '.join(MODES)})")
    # Heavy imports only when there is work: s2s-cc pays for them on every C file it compiles.
    from backends.c import CPrinter, Replacement, line_directive, merged_definitions, splice
    from backends.openmp import OpenMPPrinter

    path_text = str(path)
    text = Path(path).read_text(errors="surrogateescape")
    if options.mode == "off":
        return PipelineResult(source=line_directive(1, path_text) + "\n" + text, changed=False)

    from frontends.c import lift_c_file
    from frontends.c.inline_functions import uses_kept
    from s2s.ir import contains_loop, serialize

    unit, _opaque_reasons = lift_c_file(path_text, cpp_args, options.compiler, text=text,
                                        preprocessed=preprocessed, strict_aliasing=options.strict_aliasing)
    # static functions whose calls a region may have inlined: it names them still (inline_functions.py)
    statics = {f.name for f in unit.functions if re.search(r"\bstatic\b", f.signature)}
    replacements: list[Replacement] = []
    helpers: list[dict[str, str]] = []
    report: list[str] = []
    recipes: list = []
    full_report: list[str] = []
    pluto: _PlutoSetup | None = None
    timers = None
    cuda_regions: list = []   # backends.cuda.CudaRegion of each region offloaded
    highway_printers: list = []   # the Highway targets' printers, whose kernels make the C++ unit
    for sdfg in unit.functions:
        timed: dict[int, list[str]] = {}
        if options.mode in ("isl", "pluto"):
            obstacles: list = []
            sdfg = _with_selects(sdfg)
            scops = _scops(sdfg, obstacles if options.report else None)
            left_out = [_left_out_line(path_text, sdfg.name, o) for o in obstacles]
            if not scops:
                for _line, line_text in left_out:
                    report.append(line_text)
                    full_report.append(line_text)
                continue   # (the optimizer and its libraries load only for a file that has a SCoP)
            from s2s.transforms import regenerate_scops

            if options.mode == "pluto" and pluto is None:
                pluto = _PlutoSetup(options, full_report)
                if options.time_nests:
                    from s2s.driver.nest_timers import NestTimers

                    timers = NestTimers()
            recording = pluto is not None and pluto.recording
            choose = _chooser(pluto.opts, pluto.book, pluto.lender, sdfg, full_report, path_text,
                              gpu=options.target == "cuda") if pluto else None
            new, outcomes = regenerate_scops(sdfg, text, choose, ids=recording, scops=scops)
            lines: list[tuple[int, str, str | None]] = [(line, line_text, None) for line, line_text in left_out]
            for o in outcomes:
                verdict = ("rebuilt through isl" if options.mode == "isl" else "optimized") if o.applied else "left as is"
                recipe_line = None
                if recording:
                    from s2s.transforms.decisions import describe
                    from s2s.tuning import ScopRecipe

                    recipes.append(ScopRecipe(o.scop_id, sdfg.name, o.line, o.steps))
                    recipe_line = f"{path_text}:{o.line}: {sdfg.name}: recipe {o.scop_id}: {describe(o.steps)}"
                lines.append((o.line or 0, f"{path_text}:{o.line}: {sdfg.name}: SCoP at {o.first_node} {verdict} ({o.reason})",
                              recipe_line))
            for _line, line_text, recipe_line in sorted(lines, key=lambda entry: entry[0]):
                report.append(line_text)
                full_report.append(line_text)
                if recipe_line is not None:
                    full_report.append(recipe_line)
            original = {id(n) for n in sdfg.body.children}
            chosen = [n for n in new.body.children if id(n) not in original and _spliceable(n)]
            still_used = _declarations_still_used(sdfg.body, new.body, chosen)
            if timers is not None:
                timed = _timed_statements(sdfg, new, outcomes)
            sdfg = new
        else:
            chosen = [n for n in sdfg.body.children if _spliceable(n) and contains_loop(n)]
            still_used = {}
            lines = [f"{path_text}:{n.origin.line}: {sdfg.name}: loop nest {n.id} regenerated ({options.mode})"
                     for n in chosen]
            report.extend(lines)
            full_report.extend(lines)
        # (a function of the branch goes in front of the user's, where the file plainly shows it;
        # not for an inline function with external linkage, which C forbids to call a static one)
        outline = (sdfg.origin is not None and sdfg.origin.spliceable
                   and not (re.search(r"\b(?:__)?inline(?:__)?\b", sdfg.signature) and not re.search(r"\bstatic\b", sdfg.signature)))
        if options.target in HIGHWAY_TARGETS:
            from backends.highway import HighwayOpenMPPrinter, HighwayPrinter

            printer = (HighwayOpenMPPrinter if options.target == "highway+openmp" else HighwayPrinter)(
                sdfg, outline=outline, tag=_file_tag(path_text))
            highway_printers.append(printer)
        else:
            printer = (OpenMPPrinter if options.target == "openmp" else CPrinter)(sdfg, outline=outline)
        for n in chosen:
            shown = n
            if options.target in HIGHWAY_TARGETS:
                from s2s.transforms.simd_loops import innermost_as_simd

                shown = innermost_as_simd(sdfg, n, options.reassociate)
            printed = printer.statement(shown if options.target != "cuda" else _offloaded(
                sdfg, n, path_text, cuda_regions, printer.helpers, report, full_report))
            region = (still_used.get(id(n), "") + uses_kept(text[n.origin.start:n.origin.end], printed, statics)
                      + printed)
            replacements.append(Replacement(n.origin, timers.wrapped(region, timed[id(n)]) if id(n) in timed else region))
        if timers is not None:
            from s2s.driver.nest_timers import kept_statement

            rewritten = {id(n) for n in chosen}
            replacements.extend(kept_statement(text, path_text, n, timers, timed[id(n)])
                                for n in sdfg.body.children if id(n) in timed and id(n) not in rewritten)
        if printer.outlined:
            at = dataclasses.replace(sdfg.origin, end=sdfg.origin.start)
            replacements.append(Replacement(at, "\n\n".join(printer.outlined) + "\n"))
        helpers.append(printer.helpers)
    # the kernels' helper functions use only built-in types: they can go before everything
    source = (timers.runtime() if timers else "") + merged_definitions(helpers) + splice(text, path_text, replacements)
    companions = []
    if cuda_regions:
        from backends.cuda import unit_text
        from s2s.driver.companion_units import CompanionUnit

        # (no fused multiply-adds: a kernel rounds as the C code it replaces does; nvcc's objects
        # call the C++ runtime)
        companions.append(CompanionUnit(Path(path_text).stem + ".s2s.cu", unit_text(cuda_regions), language="cuda",
                                        flags=("-fmad=false",), libraries=("cudart", "stdc++")))
    if any(p.kernels for p in highway_printers):
        companions.append(_highway_unit(path_text, highway_printers, options, report, full_report))
    elif any(p.regions_left_c for p in highway_printers):
        line = (f"{path_text}: no Highway unit: {sum(p.regions_left_c for p in highway_printers)} regions "
                f"without a vector loop stay C")
        report.append(line)
        full_report.append(line)
    return PipelineResult(
        source=source,
        changed=bool(replacements),
        report=report,
        ir_json=serialize.dumps(unit) if options.emit_ir else None,
        recipes=recipes,
        full_report=full_report,
        warnings=list(pluto.lender.notes) if pluto and pluto.lender else [],
        companions=companions,
    )


LLVM_SUFFIXES = (".ll", ".bc")


@dataclass
class LLVMResult:
    """What ``optimize_llvm_file`` made of a module: its lifted functions as optimized C, and the
    rest of the module (LLVM's text; None when every function moved to C)."""

    c: PipelineResult
    residual: str | None
    lifted: list[str]
    refused: dict[str, str]     # function -> why it stays LLVM IR


def optimize_llvm_file(path: str | Path, options: PipelineOptions) -> LLVMResult:
    """Optimize the functions of an LLVM module (``.ll``, ``.bc``): those that the LLVM front end
    writes as C (frontends.llvm) go through ``optimize_c_file`` as one C file, whose ``#line``
    directives name ``<path>.c``; the others stay in the rest of the module, which declares the
    moved ones. Raises ``S2SError`` where LLVM cannot read the module."""
    import tempfile

    from frontends.llvm.lift import lift
    from frontends.llvm.module import read_module

    if options.target in HIGHWAY_TARGETS:
        # (a module's object is joined by llvm_modules.py, which has no companion units: its C
        # is the C targets')
        options = dataclasses.replace(options, target="openmp" if options.target == "highway+openmp" else "c")
    module = read_module(path)
    lifted = lift(module)
    name = Path(path).name + ".c"
    with tempfile.TemporaryDirectory(prefix="s2s-llvm-") as tmp:
        source = Path(tmp) / name
        source.write_text(lifted.c_text)
        result = optimize_c_file(str(source), [], dataclasses.replace(options, record_recipes=True))
        # (in flang's module, a function the optimizer changes nothing in stays LLVM IR, compiled
        # as Fortran's compiler meant it: flang's loops are faster than gcc's of them written in
        # C; clang's stay C, compiled by the C compiler the user chose, as the rest of the build)
        rewritten = {r.function for r in result.recipes
                     if any(step.kind != "keep-original" for step in r.steps)}
        unchanged = frozenset(f for f in lifted.lifted if lifted.c_names.get(f, f) not in rewritten)
        if unchanged and module.from_fortran and options.mode != "identity":
            kept = lift(module, keep=unchanged)
            source.write_text(kept.c_text)
            again = optimize_c_file(str(source), [], options) if kept.lifted else None
            result.source = again.source if again is not None else ""
            result.changed = again is not None and again.changed
            lifted = dataclasses.replace(kept, refused={n: why for n, why in kept.refused.items()
                                                        if n not in unchanged})
    shown = str(Path(path).with_name(name))
    result.source = result.source.replace(str(source), shown)
    result.report = [line.replace(str(source), shown) for line in result.report]
    result.full_report = [line.replace(str(source), shown) for line in result.full_report]
    stays = [f"{path}: {why}; it stays LLVM IR" for why in lifted.refused.values()]
    result.report[:0] = stays
    result.full_report[:0] = stays
    return LLVMResult(result, lifted.residual, lifted.lifted, lifted.refused)


def _offloaded(sdfg, node, path: str, regions: list, helpers: dict[str, str], report: list[str],
               full_report: list[str]):
    """``node`` for the C file with the CUDA target: a call of its entry point in the file's CUDA
    unit (``regions``), its C code where the call returns 0; or ``node`` itself where it is not
    offloaded (the report says why)."""
    from s2s.driver.cuda_offload import offload

    entry = f"s2s_cuda_{sdfg.name}_{len(regions) + 1}_{_file_tag(path)}"
    made, why = offload(sdfg, node, entry)
    line = f"{path}:{node.origin.line}: {sdfg.name}: region {node.id} "
    line += made.report() if made is not None else f"stays on the host: {why}"
    report.append(line)
    full_report.append(line)
    if made is None:
        return node
    regions.append(made.region)
    helpers[entry] = made.region.prototype + "\n"
    return made.node


HIGHWAY_TARGETS = ("highway", "highway+openmp")


def _file_tag(path: str) -> str:
    """A tag of the file in the external names of its companion's entry points (two files may each
    have a static function of one name)."""
    import zlib

    return f"{zlib.crc32(path.encode()):08x}"


def _highway_unit(path: str, printers: list, options: PipelineOptions, report: list[str], full_report: list[str]):
    """The companion C++ unit of the Highway targets' kernels (backends/highway), and a report line."""
    import os

    from backends.highway import CXX_FLAGS, LIBRARIES_DYNAMIC, LIBRARIES_STATIC, unit_text
    from s2s.driver.companion_units import CompanionUnit

    name = Path(path).stem + ".s2s-hwy.cc"
    # (two functions' kernels of one blocking are one register block, named for it: defined once)
    kernels = list({k.name: k for p in printers for k in p.kernels}.values())
    helpers = "".join({n: d for p in printers for n, d in p.kernel_helpers.items()}.values())
    text = unit_text(name, f"s2s_hwy_{_file_tag(path)}", kernels, helpers, static=options.hwy_static)
    regions = sum(len(p.kernels) - p.register_blocks for p in printers)
    blocks = len(kernels) - regions
    line = (f"{path}: Highway unit: {regions} regions, {sum(p.vector_loops for p in printers)} vector loops, "
            f"{sum(p.scalar_loops for p in printers)} independent loops left scalar, "
            f"{blocks} matrix-multiply register blocks "
            f"({'static' if options.hwy_static else 'dynamic'} dispatch)")
    if any(p.regions_left_c for p in printers):
        line += f"; {sum(p.regions_left_c for p in printers)} regions without a vector loop stay C"
    report.append(line)
    full_report.append(line)
    include = os.environ.get("S2S_HWY_INCLUDE") or "/usr/include"
    return CompanionUnit(name, text, language="c++", flags=CXX_FLAGS, include_dirs=(include,),
                         libraries=LIBRARIES_STATIC if options.hwy_static else LIBRARIES_DYNAMIC,
                         openmp=options.target == "highway+openmp", contract_as_c=True)


def _left_out_line(path: str, function: str, obstacle) -> tuple[int, str]:
    """(line, report line) of a loop nest that is not a SCoP (an ``s2s.analysis.scop.Obstacle``)."""
    at = obstacle.nest.origin or obstacle.origin
    line = at.line if at is not None else 0
    return line, f"{path}:{line}: {function}: loop nest at {obstacle.nest.id} not a SCoP: {obstacle.describe()}"


def _with_selects(sdfg):
    """``sdfg`` as the SCoPs are found in (ifs on data in loops as selects: data_conditions.py),
    so that nodes the optimizer leaves are the same objects after it (their text stays)."""
    from s2s.ir import For, IfElse, walk

    nodes = list(walk(sdfg.body))
    if not any(isinstance(n, For) for n in nodes) or not any(isinstance(n, IfElse) for n in nodes):
        return sdfg   # (without importing the analyses, and isl with them)
    from s2s.analysis.data_conditions import selects_for_data_conditions

    return selects_for_data_conditions(sdfg)


def _scops(sdfg, obstacles: list | None = None) -> list:
    """The SCoPs of ``sdfg`` (none without a counted loop: then isl is not even loaded, unless
    ``obstacles`` asks what stopped each loop nest; see ``find_scops``)."""
    from s2s.ir import For, Opaque, While, walk

    if not any(isinstance(n, For) or obstacles is not None and isinstance(n, (While, Opaque))
               for n in walk(sdfg.body)):
        return []
    from s2s.analysis.scop import find_scops

    return find_scops(sdfg, obstacles)


class _PlutoSetup:
    """What the Pluto-style optimizer needs for a file, made for the first SCoP: its options on
    this machine, the recipes to replay or lend, whether steps are recorded."""

    def __init__(self, options: PipelineOptions, report: list[str]):
        from s2s.transforms import optimize_options
        from s2s.tuning import RecipeBook

        vectors = None
        if options.target_flags is not None:
            from s2s.driver.target_vectors import vector_registers

            found = vector_registers(options.compiler.split(), options.target_flags)
            vectors = (found.bytes, found.count) if found is not None else None
        self.opts = optimize_options(options.fusion, options.tile_sizes, options.target in ("openmp", "highway+openmp"),
                                     options.kernels, options.profitability, options.reassociate, vectors)
        if options.target == "cuda":
            from s2s.transforms.gpu_kernels import gpu_options

            self.opts = gpu_options(self.opts)
        self.book = RecipeBook.load(options.recipes) if options.recipes else None
        self.lender = _lender(options, report) if options.tune != "off" else None
        self.recording = (options.record_recipes or options.report or self.book is not None
                          or self.lender is not None or options.time_nests)


def _chooser(opts, book, lender, sdfg, report: list[str], path: str, gpu: bool = False):
    """The schedule chooser of ``sdfg``'s SCoPs: the rules, the steps ``book`` (a recipe file)
    has for a SCoP (by its stable id), or those ``lender`` lends it from the recipe database."""
    import dataclasses as dc

    from s2s.transforms import choose_schedule

    def choose(scop, ident: str):
        steps = book.steps_for(ident) if book is not None else None
        if steps is None and lender is not None:
            steps = _lent(lender, scop, ident, opts, report, path)
        choice = choose_schedule(scop, opts if steps is None else dc.replace(opts, steps=steps))
        if gpu:
            from s2s.transforms.gpu_kernels import gpu_choice

            choice = gpu_choice(scop, choice)
        return choice

    return choose


def _lender(options: PipelineOptions, report: list[str]):
    """The recipe database's tuned nests for this build, and in transfer mode the recipe server
    that ``S2S_RECIPE_SERVER`` names (None: neither to be had, and why reported)."""
    from s2s.tuning import RecipeDB, RecipeDBError, default_path
    from s2s.tuning.lender import Lender
    from s2s.tuning.remote import RecipeServer, RecipeServerError

    notes = []
    try:
        server = RecipeServer.from_env() if options.tune == "transfer" else None
    except RecipeServerError as exc:
        notes.append(f"recipe server not used: {exc}")
        server = None
    records = []
    if not default_path().is_file():
        report.append(f"recipe database not used: there is none at {default_path()} (s2s tune fills it)")
        if server is None and not notes:
            return None
    else:
        try:
            with RecipeDB() as db:
                records = db.records(target=options.target)
        except RecipeDBError as exc:
            report.append(f"recipe database not used: {exc}")
            if server is None and not notes:
                return None
    return Lender(records, options.target, options.tune, options.tune_exclude, server=server, notes=notes)


def _lent(lender, scop, ident: str, opts, report: list[str], path: str):
    import dataclasses as dc

    from s2s.perf.features import features_of_scop
    from s2s.perf.opcount import TypeEnv
    from s2s.transforms import choose_schedule

    try:
        steps, why = lender.lend(ident, lambda: features_of_scop(scop, ident, TypeEnv(scop.sdfg)),
                                 lambda frame: choose_schedule(scop, dc.replace(opts, steps=frame)).steps)
    except Exception as exc:  # (lending is an extra: its failure leaves the rules' decisions, not the user's loops)
        steps, why = None, f"no recipe lent ({type(exc).__name__}: {exc})"
    report.append(f"{path}:{scop.first_line}: {scop.sdfg.name}: SCoP {ident}: {'takes the ' if steps else ''}{why}")
    return steps


def _timed_statements(old: ir.SDFG, new: ir.SDFG, outcomes) -> dict[int, list[str]]:
    """By ``id()`` of each top-level statement of ``new`` to be timed, the ids of its SCoPs: a
    statement rewritten counts those of the user's statements it replaces."""
    from s2s.driver.nest_timers import scops_by_statement, timeable

    by_old = scops_by_statement(old.body.children, outcomes)
    before = {id(n) for n in old.body.children}
    out: dict[int, list[str]] = {}
    for n in new.body.children:
        if not _spliceable(n) or not timeable(n):
            continue
        if id(n) in before:
            ids = by_old.get(id(n), [])
        else:
            ids = list(dict.fromkeys(i for o in old.body.children if _spliceable(o) and n.origin.start <= o.origin.start
                                     and o.origin.end <= n.origin.end for i in by_old.get(id(o), [])))
        if ids:
            out[id(n)] = ids
    return out


def _declarations_still_used(old: ir.Sequence, new: ir.Sequence, chosen: list[ir.ControlNode]) -> dict[int, str]:
    """Statements to put before regenerated regions so that the declarations at the top of the
    function that only the user's replaced loops referred to still count as used: ``int i, j;``
    stays in the user's text, and -Wunused-variable must not fire where cc was silent. By id of
    the region, the text to put first (``sizeof`` evaluates nothing)."""
    from s2s.ir import Declare
    from s2s.ir.rewrite import free_names

    def referenced(body: ir.Sequence) -> set[str]:
        return set().union(*(free_names(n) for n in body.children))

    if not chosen:
        return {}   # (nothing rewritten: every function of every file passes here)
    lost = referenced(old) - referenced(new)
    if not lost:
        return {}
    regions = {id(n) for n in chosen}
    declared: list[str] = []
    texts: dict[int, str] = {}
    for n in new.children:
        if isinstance(n, Declare) and n.name in lost:
            declared.append(n.name)
        elif id(n) in regions and declared:
            texts[id(n)] = "".join(f"(void)sizeof({name});\n" for name in declared)
            declared = []
    return texts


def _spliceable(node) -> bool:
    return node.origin is not None and node.origin.spliceable
