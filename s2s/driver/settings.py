"""Settings of ``s2s-cc``: ``--s2s-*`` flags first, then ``S2S_*`` environment variables, then defaults.

==================  =====================  =========================================================
flag                environment            meaning
==================  =====================  =========================================================
``--s2s-cc=CMD``    ``S2S_CC``             the real compiler (default ``cc``); may be a launcher
                                           chain such as ``"ccache gcc"`` (split like a shell word list)
``--s2s-cxx=CMD``   ``S2S_CXX``            s2s-c++'s real compiler (default ``c++``), likewise; in s2s-cc,
                                           the compiler of the highway targets' C++ units
``--s2s-fc=CMD``    ``S2S_FC``             s2s-fc's real compiler (default ``flang-new``, else the newest
                                           ``flang-new-N``), likewise
``--s2s-mode=M``    ``S2S_MODE``           ``pluto`` (default), ``isl``, ``identity`` or ``off`` (pipeline.MODES)
``--s2s-target=T``  ``S2S_TARGET``         ``c`` (default; ``openmp`` when ``-fopenmp`` is given), ``openmp``,
                                           ``cuda`` (parallel loop nests as kernels of a CUDA unit joined
                                           into the object; docs/cuda.md), ``highway`` or ``highway+openmp``
                                           (the optimized regions as C++ with Highway in a unit joined
                                           into the object, compiled by ``--s2s-cxx``; docs/highway.md)
``--s2s-nvcc=CMD``  ``S2S_NVCC``           the CUDA compiler of ``--s2s-target=cuda`` (default: ``nvcc``)
``--s2s-hwy-static`` ``S2S_HWY_STATIC``    Highway's static dispatch (one target; no libhwy at link)
``--s2s-fuse=F``    ``S2S_FUSE``           fusion policy of the scheduler: ``smart`` (default), ``max``, ``no``
``--s2s-tile=L``    ``S2S_TILE``           tile sizes, outermost first, e.g. ``32,32,64`` (the last repeats)
``--s2s-kernels=K`` ``S2S_KERNELS``        ``on`` (default): matrix-multiply statements as register-blocked
                                           kernels; ``off``: as tiled loops
``--s2s-profitability=P`` ``S2S_PROFITABILITY``  ``on`` (default): a new schedule replaces the user's loops only
                                           where the rules expect a gain; ``off``: wherever one is legal
                                           (for fuzzing and tuning the code generator)
``--s2s-recipes=R`` ``S2S_RECIPES=R``      replay the recipes of file R (``s2s opt --emit-recipes``,
                                           docs/recipes.md) instead of the rules' decisions
``--s2s-tune=T``    ``S2S_TUNE=T``         recipes from the recipe database (``s2s tune``, ``$S2S_RECIPE_DB``):
                                           ``off`` (default); ``tuned``: a SCoP tuned before replays its
                                           tuned recipe; ``transfer``: a SCoP takes the recipe of its
                                           nearest tuned loop nest when that one is near enough; else the
                                           rules decide
``--s2s-tune-exclude=P,..`` ``S2S_TUNE_EXCLUDE``  programs of the database not to take recipes from
                                           (leave-one-out evaluations)
``--s2s-reassociate`` ``S2S_REASSOCIATE=1``  floating-point sums may be reordered: loops that reduce into a
                                           scalar run in parallel with a partial sum per thread (also
                                           with ``-ffast-math``, ``-Ofast`` or ``-fassociative-math``)
``--s2s-report``    ``S2S_REPORT=1``       one line per loop nest on stderr, and each SCoP's recipe
``--s2s-report-file=F`` ``S2S_REPORT_FILE=F``  append the report lines to F (many processes may share
                                           it; ``s2s analyze --why F`` sums them up), whether or not
                                           they go to stderr too
``--s2s-time-nests`` ``S2S_TIME_NESTS=1``  a timer around every loop nest holding a SCoP; the program
                                           appends their times to ``$S2S_NEST_TIMES`` at exit
                                           (the autotuner's builds; nest_timers.py)
``--s2s-keep=DIR``  ``S2S_KEEP=DIR``       keep each generated source as ``DIR/<stem>.s2s<ext>``
``--s2s-timeout=S`` ``S2S_TIMEOUT=S``      seconds allowed to the optimize step per file (default 60;
                                           0 means no limit)
``--s2s-align-loops=N`` ``S2S_ALIGN_LOOPS=N``  loops of a file s2s rewrote start on N-byte boundaries
                                           (gcc and clang's ``-falign-loops=N``; default 64, 0: the
                                           compiler's default); unless the user sets it
``--s2s-cache=D``   ``S2S_CACHE=D``        where what the optimize step made of a file is kept for
                                           rebuilds (compile_cache.py; default
                                           ``$XDG_CACHE_HOME/s2s/cc``, else ``~/.cache/s2s/cc``);
                                           ``off``: no cache
``--s2s-cache-size=N`` ``S2S_CACHE_SIZE=N``  the cache's limit (``512M`` by default; ``k``/``M``/``G``)
``--s2s-frontend=F`` ``S2S_FRONTEND=F``  ``c`` (default): C files go through the C front end; ``llvm``:
                                           clang compiles them to LLVM IR first (``-O1``), which the
                                           LLVM front end lifts (docs/llvm-frontend.md); ``.ll`` and
                                           ``.bc`` inputs always take that way
``--s2s-clang=CMD`` ``S2S_CLANG=CMD``      the clang of ``--s2s-frontend=llvm`` and of s2s-c++ (default:
                                           ``clang``, else the newest ``clang-N`` on PATH)
``--s2s-server=S``  ``S2S_SERVER=S``       ``on`` (default): the optimize step runs in a warm server
                                           process that s2s-cc starts and that leaves after
                                           ``S2S_SERVER_IDLE`` seconds (120) without work
                                           (optimize_server.py); ``off``: in each s2s-cc process
``--s2s-disable``   ``S2S_DISABLE=1``      pure pass-through to the real compiler
(none)              ``S2S_INJECT_FAULT=W`` testing hook: ``pipeline`` raises inside the optimize step,
                                           ``timeout`` makes it hang, ``compile`` makes the generated
                                           text fail to compile
==================  =====================  =========================================================

A value-taking flag may also be written ``--s2s-keep DIR``. Every argument starting with ``--s2s-``
is consumed here and never reaches the real compiler. A bad value gives one warning and the default:
a typo in a setting must not break a build.
"""
from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from collections.abc import Mapping, Sequence

from s2s.driver.pipeline import MODES

TARGETS = ("c", "openmp", "cuda", "highway", "highway+openmp")
FAULTS = ("pipeline", "timeout", "compile")
DEFAULT_TIMEOUT = 60.0
DEFAULT_ALIGN_LOOPS = 64
DEFAULT_SERVER_IDLE = 120.0   # seconds
LAUNCHERS = ("ccache", "sccache", "distcc", "icecc", "buildcache")
FLAG_PREFIX = "--s2s-"
_VALUE_FLAGS = ("cc", "mode", "target", "keep", "timeout", "fuse", "tile", "kernels",
                "profitability", "align-loops", "recipes", "tune", "tune-exclude", "cache", "cache-size",
                "report-file", "server", "server-idle", "frontend", "clang", "cxx", "fc", "nvcc")
FUSIONS = ("smart", "max", "no")
DEFAULT_TILE = None   # from the cache model
_BOOL_FLAGS = ("report", "disable", "time-nests", "reassociate", "hwy-static")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


@dataclass(frozen=True)
class DriverSettings:
    """Everything ``s2s-cc`` needs to know besides the compiler command line."""

    compiler: tuple[str, ...] = ("cc",)  # the real compiler command (a launcher chain is several words)
    cxx_driver: bool = False   # s2s-c++: C++ files are optimized too (by way of clang and LLVM IR)
    fortran_driver: bool = False   # s2s-fc: Fortran files, by way of flang and LLVM IR
    mode: str = "pluto"
    target: str = "c"
    target_given: bool = False  # --s2s-target or S2S_TARGET set (else -fopenmp selects openmp)
    fuse: str = "smart"
    tile_sizes: tuple[int, ...] | None = DEFAULT_TILE
    kernels: bool = True
    profitability: bool = True
    recipes: str | None = None   # a recipe file to replay
    tune: str = "off"            # recipes from the recipe database: off, tuned, transfer
    tune_exclude: tuple[str, ...] = ()
    report: bool = False
    report_file: str | None = None   # where the report lines are appended, besides stderr
    time_nests: bool = False
    reassociate: bool = False   # floating-point sums may be reordered (besides what the flags allow)
    keep_dir: str | None = None
    cache_dir: str | None = None     # None: no cache
    cache_size: int = 512 * 1024 * 1024
    timeout: float = DEFAULT_TIMEOUT  # 0: no limit
    align_loops: int = DEFAULT_ALIGN_LOOPS  # -falign-loops=N for rewritten files (0: none)
    frontend: str = "c"   # "llvm": C files through clang and the LLVM front end
    clang: tuple[str, ...] = ()   # the clang of the llvm front end (empty: found on PATH)
    nvcc: tuple[str, ...] = ("nvcc",)   # the CUDA compiler of the cuda target's units
    companion_cxx: tuple[str, ...] = ("c++",)   # the C++ compiler of the highway targets' units (--s2s-cxx)
    hwy_static: bool = False   # the highway targets: static dispatch
    server: bool = True   # the optimize step in a warm server process (optimize_server.py)
    server_idle: float = DEFAULT_SERVER_IDLE   # seconds a server waits for work before it leaves
    disable: bool = False
    inject_fault: str | None = None  # testing hook, see the module docstring
    warnings: tuple[str, ...] = ()  # problems met while reading the settings, one line each

    def pipeline_options(self):  # -> s2s.driver.pipeline.PipelineOptions (imported on use)
        from s2s.driver.pipeline import PipelineOptions

        return PipelineOptions(mode=self.mode, target=self.target, report=self.report or bool(self.report_file),
                               compiler=self.compiler_name, fusion=self.fuse, tile_sizes=self.tile_sizes,
                               kernels=self.kernels, profitability=self.profitability, recipes=self.recipes,
                               tune=self.tune, tune_exclude=self.tune_exclude, time_nests=self.time_nests,
                               reassociate=self.reassociate, hwy_static=self.hwy_static)

    @property
    def compiler_name(self) -> str:
        """The compiler itself: the first word of ``compiler`` that is not a launcher (ccache ...)."""
        for word in self.compiler:
            if not is_launcher(word):
                return word
        return self.compiler[-1]


def _words(setting: tuple[str | None, str], warnings: list[str]) -> tuple[str, ...]:
    """A command setting split as a shell would (a warning and none where it cannot be)."""
    value, origin = setting
    try:
        return tuple(shlex.split(value or ""))
    except ValueError:
        warnings.append(f"{origin}={value!r} cannot be split into words; ignored")
        return ()


def is_launcher(word: str) -> bool:
    """A compiler launcher that takes the compiler as its first argument (ccache gcc ...)."""
    return os.path.basename(word) in LAUNCHERS


def split_flags(argv: Sequence[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Separate ``--s2s-*`` flags from the compiler arguments: ([(name, value)], rest)."""
    flags: list[tuple[str, str | None]] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if not arg.startswith(FLAG_PREFIX):
            rest.append(arg)
            continue
        name, eq, value = arg[len(FLAG_PREFIX):].partition("=")
        if not eq and name in _VALUE_FLAGS and i < len(argv):
            value, eq = argv[i], "="
            i += 1
        flags.append((name, value if eq else None))
    return flags, rest


def newest_flang() -> str:
    """``flang-new``, else the newest ``flang-new-N`` on PATH (Debian names it so), else ``flang-new``."""
    import shutil

    if shutil.which("flang-new"):
        return "flang-new"
    for version in range(30, 14, -1):
        if shutil.which(f"flang-new-{version}"):
            return f"flang-new-{version}"
    return "flang-new"


def resolve(flags: Sequence[tuple[str, str | None]], env: Mapping[str, str],
            launcher: Sequence[str] = (), cxx_driver: bool = False, fortran_driver: bool = False) -> DriverSettings:
    """Combine flags (from ``split_flags``), the environment and the defaults.

    ``launcher``: the compiler named on the command line in launcher form (``s2s-cc gcc -c x.c``);
    it is what the build system asked for, so it wins over ``--s2s-cc`` and ``S2S_CC``.
    ``cxx_driver``: the settings of s2s-c++ (its real compiler is ``--s2s-cxx``, ``S2S_CXX``, ``c++``);
    ``fortran_driver``: those of s2s-fc (``--s2s-fc``, ``S2S_FC``, flang).
    """
    warnings: list[str] = []
    given: dict[str, str | None] = {}
    for name, value in flags:
        if name in _VALUE_FLAGS and value is None:
            warnings.append(f"{FLAG_PREFIX}{name} needs a value ({FLAG_PREFIX}{name}=...)")
        elif name in _VALUE_FLAGS or name in _BOOL_FLAGS:
            given[name] = value
        else:
            warnings.append(f"{FLAG_PREFIX}{name} is not an s2s-cc setting; known: "
                            + ", ".join(FLAG_PREFIX + n for n in _VALUE_FLAGS + _BOOL_FLAGS))

    def raw(name: str) -> tuple[str | None, str]:
        if name in given:
            value = given[name]
            return ("1" if value is None else value), f"{FLAG_PREFIX}{name}"
        var = f"S2S_{name.upper().replace('-', '_')}"
        return env.get(var), var

    def choice(name: str, allowed: tuple[str, ...], default: str) -> str:
        value, origin = raw(name)
        if value is None or value == "":
            return default
        if value in allowed:
            return value
        warnings.append(f"{origin}={value!r} is not one of {', '.join(allowed)}; using {default}")
        return default

    def boolean(name: str) -> bool:
        value, origin = raw(name)
        if value is None or value.lower() in _FALSE:
            return False
        if value.lower() in _TRUE:
            return True
        warnings.append(f"{origin}={value!r} is not a yes/no value; using no")
        return False

    compiler: tuple[str, ...] = tuple(launcher)
    default = "c++" if cxx_driver else newest_flang() if fortran_driver else "cc"
    if not compiler:
        value, origin = raw("cxx" if cxx_driver else "fc" if fortran_driver else "cc")
        try:
            compiler = tuple(shlex.split(value)) if value else ()
        except ValueError:
            warnings.append(f"{origin}={value!r} cannot be split into words; using {default}")
        compiler = compiler or (default,)

    timeout = DEFAULT_TIMEOUT
    value, origin = raw("timeout")
    if value:
        try:
            timeout = float(value)
            if timeout < 0 or timeout != timeout:
                raise ValueError(value)
        except ValueError:
            timeout = DEFAULT_TIMEOUT
            warnings.append(f"{origin}={value!r} is not a number of seconds; using {DEFAULT_TIMEOUT:g}")

    tile_sizes = DEFAULT_TILE
    value, origin = raw("tile")
    if value:
        try:
            tile_sizes = tuple(int(v) for v in value.split(","))
            if not tile_sizes or min(tile_sizes) < 1:
                raise ValueError(value)
        except ValueError:
            tile_sizes = DEFAULT_TILE
            warnings.append(f"{origin}={value!r} is not a list of positive tile sizes; using the cache model")

    align_loops = DEFAULT_ALIGN_LOOPS
    value, origin = raw("align-loops")
    if value:
        try:
            align_loops = int(value)
            if align_loops < 0 or align_loops & (align_loops - 1):
                raise ValueError(value)
        except ValueError:
            align_loops = DEFAULT_ALIGN_LOOPS
            warnings.append(f"{origin}={value!r} is not 0 or a power of two; using {DEFAULT_ALIGN_LOOPS}")

    server_idle = DEFAULT_SERVER_IDLE
    value, origin = raw("server-idle")
    if value:
        try:
            server_idle = float(value)
            if not server_idle > 0:
                raise ValueError(value)
        except ValueError:
            server_idle = DEFAULT_SERVER_IDLE
            warnings.append(f"{origin}={value!r} is not a positive number of seconds; using {DEFAULT_SERVER_IDLE:g}")

    from s2s.driver import compile_cache

    cache_dir: str | None = str(compile_cache.default_directory(env))
    value, _ = raw("cache")
    if value is not None and value.lower() in _FALSE:
        cache_dir = None
    elif value:
        cache_dir = os.path.expanduser(value)
    cache_size = compile_cache.DEFAULT_MAX_BYTES
    value, origin = raw("cache-size")
    if value:
        try:
            cache_size = compile_cache.parse_size(value)
        except ValueError:
            warnings.append(f"{origin}={value!r} is not a size (such as 512M or 2G); "
                            f"using {compile_cache.DEFAULT_MAX_BYTES >> 20}M")

    keep, _ = raw("keep")
    recipes, _ = raw("recipes")
    fault = env.get("S2S_INJECT_FAULT") or None
    if fault is not None and fault not in FAULTS:
        warnings.append(f"S2S_INJECT_FAULT={fault!r} is not one of {', '.join(FAULTS)}; no fault injected")
        fault = None
    return DriverSettings(
        compiler=compiler,
        cxx_driver=cxx_driver,
        fortran_driver=fortran_driver,
        mode=choice("mode", MODES, "pluto"),
        target=choice("target", TARGETS, "c"),
        target_given=bool(raw("target")[0]),
        fuse=choice("fuse", FUSIONS, "smart"),
        tile_sizes=tile_sizes,
        kernels=choice("kernels", ("on", "off"), "on") == "on",
        profitability=choice("profitability", ("on", "off"), "on") == "on",
        recipes=recipes or None,
        tune=choice("tune", ("off", "tuned", "transfer"), "off"),
        tune_exclude=tuple(p for p in (raw("tune-exclude")[0] or "").split(",") if p),
        report=boolean("report"),
        report_file=raw("report-file")[0] or None,
        time_nests=boolean("time-nests"),
        reassociate=boolean("reassociate"),
        keep_dir=keep or None,
        cache_dir=cache_dir,
        cache_size=cache_size,
        timeout=timeout,
        align_loops=align_loops,
        frontend=choice("frontend", ("c", "llvm"), "c"),
        clang=_words(raw("clang"), warnings),
        nvcc=_words(raw("nvcc"), warnings) or ("nvcc",),
        companion_cxx=_words(raw("cxx"), warnings) or ("c++",),
        hwy_static=boolean("hwy-static"),
        server=choice("server", ("on", "off"), "on") == "on",
        server_idle=server_idle,
        disable=boolean("disable"),
        inject_fault=fault,
        warnings=tuple(warnings),
    )
