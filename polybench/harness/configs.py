"""The configuration registry: a configuration is a name and a way to build a kernel.

A ``Config`` is a compiler invocation prefix (``argv``) plus environment; the harness appends the
defines, include paths, sources, ``-lm`` and ``-o``. ``Config.prepare_sources`` is the hook for
source-to-source tools that must run before the compiler (Pluto's ``polycc``): override it in a
subclass to write transformed sources into ``request.workdir`` and return them.

Adding a configuration is one
``register(ConfigSpec(...))`` call whose ``make`` builds the ``Config`` from a ``ConfigContext``
(or returns one with ``unavailable`` set, which is reported, not an error). Tool paths given on the
command line (``--pluto=/path/to/polycc``) reach ``make`` through ``ConfigContext.tools``, as
``PlutoConfig`` at the end of this file shows.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

OPT_FLAGS = ("-O3", "-march=native")
POLLY_FLAGS = ("-O3", "-march=native", "-mllvm", "-polly", "-mllvm", "-polly-parallel",
               "-mllvm", "-polly-vectorizer=stripmine", "-fopenmp")
# (Polly's sequential build: what s2s-seq is compared with on one thread)
POLLY_SEQ_FLAGS = ("-O3", "-march=native", "-mllvm", "-polly", "-mllvm", "-polly-vectorizer=stripmine")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


@dataclass(frozen=True)
class BuildRequest:
    """What one compiler invocation needs (one binary of one cell)."""

    kernel_name: str
    kernel_source: Path
    kernel_dir: Path
    utilities: Path | None  # None: a standalone program (the realistic group), no polybench.c
    defines: tuple[str, ...]  # ("-DLARGE_DATASET", "-DPOLYBENCH_TIME", ...)
    output: Path
    workdir: Path  # scratch folder of this cell, for transformed sources and logs
    # flags put before the include paths, for every configuration: the dump shim of an external
    # suite's verification build (``-include <dir>/s2s_dump_shim.h``, see ``dump_shim``)
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    name: str
    argv: tuple[str, ...]  # compiler invocation prefix
    env: Mapping[str, str] = field(default_factory=dict)  # added to the environment of the build
    description: str = ""
    # "timed": built, verified, timed; "reference": also verified against, never timed
    # (reference-O0); "noise": measures rounding noise only (fp-noise), never fails the run.
    role: str = "timed"
    unavailable: str | None = None  # why it cannot be used here (reported, not an error)
    user: bool = False  # given with --config

    @property
    def available(self) -> bool:
        return self.unavailable is None

    @property
    def verify_only(self) -> bool:
        return self.role != "timed"

    def prepare_sources(self, request: BuildRequest) -> list[Path]:
        """The sources to compile. Extension point: source-to-source tools transform here."""
        return _with_utilities(request, request.kernel_source)

    def build_argv(self, request: BuildRequest) -> list[str]:
        sources = self.prepare_sources(request)
        includes = ["-I", str(request.utilities)] if request.utilities is not None else []
        return [*self.argv, *request.defines, *request.flags, *includes, "-I", str(request.kernel_dir),
                *map(str, sources), "-lm", "-o", str(request.output)]

    def command_template(self) -> str:
        """The command as recorded in reports: the prefix and what the harness appends."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        cmd = shlex.join(self.argv) + " -D<DATASET>_DATASET [-D<PARAM>=<v>...] [-DPOLYBENCH_TIME | " \
            "-DPOLYBENCH_DUMP_ARRAYS -DPOLYBENCH_DUMP_FULL_PRECISION [-include s2s_dump_shim.h (external suite)]] " \
            "-I <utilities> -I <kerneldir> " \
            "<utilities>/polybench.c <kerneldir>/<name>.c -lm -o <bin>"
        return f"{env} {cmd}" if env else cmd


def _with_utilities(request: BuildRequest, source: Path) -> list[Path]:
    """``source`` and, for a PolyBench kernel, the suite's polybench.c before it (a program of
    the realistic group has none: ``request.utilities`` is None)."""
    return [source] if request.utilities is None else [request.utilities / "polybench.c", source]


class ConfigContext:
    """What ``ConfigSpec.make`` may use: the C compiler, the python of this venv, tool paths,
    and a cached probe (compile a tiny file with given flags)."""

    def __init__(self, cc: str = "cc", python: str | Path | None = None,
                 tools: Mapping[str, str] | None = None):
        self.cc = cc
        self.python = Path(python or sys.executable)
        self.tools = dict(tools or {})
        self._probes: dict[tuple, str | None] = {}
        self._lock = threading.Lock()

    def venv_tool(self, name: str) -> Path:
        """A console script installed next to this python (``s2s-cc``)."""
        return self.python.parent / name

    def probe(self, argv: Sequence[str], env: Mapping[str, str] | None = None, timeout: float = 60) -> str | None:
        """None when ``argv`` compiles and links a tiny OpenMP-free loop, else the reason."""
        key = (tuple(argv), tuple(sorted((env or {}).items())))
        with self._lock:
            if key in self._probes:
                return self._probes[key]
        reason = _probe(argv, env, timeout)
        with self._lock:
            self._probes[key] = reason
        return reason


def _probe(argv: Sequence[str], env: Mapping[str, str] | None, timeout: float) -> str | None:
    if not argv or shutil.which(argv[0]) is None:
        return f"{argv[0] if argv else '(empty command)'} not found"
    src = "double a[64][64];\nint main(void) {\n  for (int i = 0; i < 64; i++)\n" \
          "    for (int j = 0; j < 64; j++) a[i][j] = i * j;\n  return (int) a[3][5] - 15;\n}\n"
    with tempfile.TemporaryDirectory(prefix="s2s-bench-probe-") as tmp:
        c = Path(tmp) / "probe.c"
        c.write_text(src)
        try:
            p = subprocess.run([*argv, str(c), "-o", str(Path(tmp) / "probe")], cwd=tmp, capture_output=True,
                               text=True, timeout=timeout, env={**os.environ, **(env or {})})
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"{argv[0]}: {e}"
        if p.returncode != 0:
            lines = [ln.strip() for ln in (p.stderr + p.stdout).splitlines() if ln.strip()]
            first = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
            return f"test compile failed: {first[:200]}"
    return None


@dataclass(frozen=True)
class ConfigSpec:
    name: str
    make: Callable[[ConfigContext], Config]
    default: bool = True  # part of the default selection ("all available")
    help: str = ""


CONFIGS: dict[str, ConfigSpec] = {}


def register(spec: ConfigSpec) -> ConfigSpec:
    CONFIGS[spec.name] = spec
    return spec


# --- the built-in configurations -----------------------------------------------------------------

def _baseline(ctx: ConfigContext) -> Config:
    return Config("baseline", (ctx.cc, *OPT_FLAGS), description="the C compiler at -O3 -march=native")


def s2s_cc_config(ctx: ConfigContext, name: str, mode: str, description: str,
                  extra_env: Mapping[str, str] | None = None) -> Config:
    """A configuration that compiles through ``s2s-cc`` with ``S2S_MODE=mode`` (its real compiler
    is cc). Later modes (isl, seq, omp) register with this helper."""
    tool = ctx.venv_tool("s2s-cc")
    cfg = Config(name, (str(tool), *OPT_FLAGS), env={"S2S_MODE": mode, **(extra_env or {})},
                 description=description)
    if not tool.exists():
        cfg = replace(cfg, unavailable=f"{tool} not found (is s2s installed in this venv?)")
    return cfg


def _identity(ctx: ConfigContext) -> Config:
    return s2s_cc_config(ctx, "identity", "identity", "s2s-cc, S2S_MODE=identity (lift + regenerate, no transformation)")


def _isl(ctx: ConfigContext) -> Config:
    return s2s_cc_config(ctx, "s2s-isl", "isl",
                         "s2s-cc, S2S_MODE=isl (every SCoP rebuilt through the isl model with its original schedule)")


def _seq(ctx: ConfigContext) -> Config:
    return s2s_cc_config(ctx, "s2s-seq", "pluto",
                         "s2s-cc, S2S_MODE=pluto S2S_TARGET=c (Pluto-style schedule, tiled, one thread, no OpenMP)",
                         extra_env={"S2S_TARGET": "c"})


def _llvm(ctx: ConfigContext) -> Config:
    from s2s.driver.llvm_modules import find_clang

    cfg = s2s_cc_config(ctx, "s2s-llvm", "pluto",
                        "s2s-seq by way of LLVM IR: clang -O1 makes the module, the LLVM front end lifts it "
                        "(S2S_FRONTEND=llvm S2S_TARGET=c)", extra_env={"S2S_TARGET": "c", "S2S_FRONTEND": "llvm"})
    return cfg if cfg.unavailable or find_clang(()) else replace(cfg, unavailable="no clang on PATH")


def _omp(ctx: ConfigContext) -> Config:
    cfg = s2s_cc_config(ctx, "s2s-omp", "pluto",
                        "s2s-cc -fopenmp, S2S_MODE=pluto S2S_TARGET=openmp (Pluto-style schedule, tiled, parallel)",
                        extra_env={"S2S_TARGET": "openmp"})
    return replace(cfg, argv=(*cfg.argv, "-fopenmp"))


def _cuda(ctx: ConfigContext) -> Config:
    import shutil

    # (PolyBench's timer is around the kernel's call, which allocates, copies and launches: the
    # time includes the transfers)
    cfg = s2s_cc_config(ctx, "s2s-cuda", "pluto",
                        "s2s-cc, S2S_MODE=pluto S2S_TARGET=cuda (parallel nests as CUDA kernels, transfers timed)",
                        extra_env={"S2S_TARGET": "cuda"})
    return cfg if cfg.unavailable or shutil.which("nvcc") else replace(cfg, unavailable="no nvcc on PATH")


def _hwy(ctx: ConfigContext) -> Config:
    from pathlib import Path as _Path

    cfg = s2s_cc_config(ctx, "s2s-hwy", "pluto",
                        "s2s-cc, S2S_MODE=pluto S2S_TARGET=highway (s2s-seq with its independent innermost loops "
                        "as Highway vector code in a C++ unit, dynamic dispatch)", extra_env={"S2S_TARGET": "highway"})
    return cfg if cfg.unavailable or _Path("/usr/include/hwy/highway.h").is_file() else replace(
        cfg, unavailable="no Highway headers (libhwy-dev)")


def _recipe_db(ctx: ConfigContext) -> tuple[Path, str | None]:
    """The recipe database the tuned configurations read (``--recipe-db``, else s2s's default),
    and why it cannot be used (None: it can)."""
    from s2s.tuning.database import default_path

    path = Path(ctx.tools.get("recipe-db") or default_path())
    return path, None if path.is_file() else f"no recipe database at {path} (s2s tune fills it; or --recipe-db)"


def _tuned(ctx: ConfigContext) -> Config:
    db, missing = _recipe_db(ctx)
    cfg = s2s_cc_config(ctx, "s2s-tuned", "pluto",
                        "s2s-omp with each SCoP's tuned recipe from the recipe database (S2S_TUNE=tuned)",
                        extra_env={"S2S_TARGET": "openmp", "S2S_TUNE": "tuned", "S2S_RECIPE_DB": str(db)})
    cfg = replace(cfg, argv=(*cfg.argv, "-fopenmp"))
    return cfg if cfg.unavailable or not missing else replace(cfg, unavailable=missing)


@dataclass(frozen=True)
class LeaveOneOutConfig(Config):
    """A build that may not take recipes from the kernel's own rows of the recipe database."""

    def build_argv(self, request: BuildRequest) -> list[str]:
        return [*super().build_argv(request), f"--s2s-tune-exclude=polybench/{request.kernel_name}"]

    def command_template(self) -> str:
        return super().command_template() + " --s2s-tune-exclude=polybench/<name>"


def _transfer(ctx: ConfigContext) -> Config:
    db, missing = _recipe_db(ctx)
    cfg = s2s_cc_config(ctx, "s2s-transfer", "pluto",
                        "s2s-omp with each SCoP given the recipe of its nearest tuned nest of the other kernels "
                        "(S2S_TUNE=transfer, leave-one-out)",
                        extra_env={"S2S_TARGET": "openmp", "S2S_TUNE": "transfer", "S2S_RECIPE_DB": str(db)})
    cfg = LeaveOneOutConfig(cfg.name, (*cfg.argv, "-fopenmp"), cfg.env, cfg.description, unavailable=cfg.unavailable)
    return cfg if cfg.unavailable or not missing else replace(cfg, unavailable=missing)


def _polly(ctx: ConfigContext) -> Config:
    cfg = Config("polly", ("clang-14", *POLLY_FLAGS), description="clang-14 with Polly (parallel, stripmine)")
    reason = ctx.probe(cfg.argv)
    return replace(cfg, unavailable=f"clang-14 with Polly and OpenMP is not usable here ({reason})") if reason else cfg


def _polly_seq(ctx: ConfigContext) -> Config:
    cfg = Config("polly-seq", ("clang-14", *POLLY_SEQ_FLAGS), description="clang-14 with Polly, one thread (stripmine)")
    reason = ctx.probe(cfg.argv)
    return replace(cfg, unavailable=f"clang-14 with Polly is not usable here ({reason})") if reason else cfg


def _reference_o0(ctx: ConfigContext) -> Config:
    return Config("reference-O0", (ctx.cc, "-O0"), role="reference",
                  description="the C compiler at -O0: a second reference, verified against, not timed")


def _fp_noise(ctx: ConfigContext) -> Config:
    return Config("fp-noise", (ctx.cc, *OPT_FLAGS, "-ffp-contract=off"), role="noise",
                  description="baseline without FMA contraction: the same code with other rounding; how far "
                              "its output drifts from baseline is the rounding noise a correct build may show")


register(ConfigSpec("baseline", _baseline, help="cc -O3 -march=native (the reference)"))
register(ConfigSpec("identity", _identity, help="s2s-cc -O3 -march=native with S2S_MODE=identity"))
register(ConfigSpec("s2s-isl", _isl, help="s2s-cc -O3 -march=native with S2S_MODE=isl"))
register(ConfigSpec("s2s-seq", _seq, help="s2s-cc -O3 -march=native with S2S_MODE=pluto, 1 thread"))
register(ConfigSpec("s2s-llvm", _llvm, default=False,
                    help="s2s-seq with C files by way of clang's LLVM IR and the LLVM front end"))
register(ConfigSpec("s2s-omp", _omp, help="s2s-cc -O3 -march=native -fopenmp with S2S_MODE=pluto S2S_TARGET=openmp"))
register(ConfigSpec("s2s-cuda", _cuda, default=False,
                    help="s2s-cc -O3 -march=native with S2S_TARGET=cuda (runs on a GPU; its CPU code without one)"))
register(ConfigSpec("s2s-hwy", _hwy, default=False,
                    help="s2s-seq with S2S_TARGET=highway (Highway vector loops in a C++ unit; docs/highway.md)"))
register(ConfigSpec("s2s-tuned", _tuned, default=False,
                    help="s2s-omp with the tuned recipes of the recipe database (--recipe-db)"))
register(ConfigSpec("s2s-transfer", _transfer, default=False,
                    help="s2s-omp with recipes lent by the other kernels' tuned nests (--recipe-db, leave-one-out)"))
register(ConfigSpec("polly", _polly, help="clang-14 -O3 -march=native with Polly, -fopenmp"))
register(ConfigSpec("polly-seq", _polly_seq, default=False,
                    help="clang-14 -O3 -march=native with Polly, without its parallel code (s2s-seq's anchor)"))
register(ConfigSpec("reference-O0", _reference_o0, default=False, help="cc -O0, only with --verify-O0"))
register(ConfigSpec("fp-noise", _fp_noise, default=False,
                    help="cc -O3 -march=native -ffp-contract=off, a rounding-noise probe (on unless --no-noise-check)"))


def user_config(spec: str) -> Config:
    """``NAME=command prefix`` from ``--config``."""
    name, sep, cmd = spec.partition("=")
    name = name.strip()
    if not sep or not NAME_RE.fullmatch(name):
        raise ValueError(f"--config {spec!r}: expected NAME='compiler and flags' (NAME: letters, digits, _.+-)")
    if name in CONFIGS:
        raise ValueError(f"--config {name}: the name of a built-in configuration")
    try:
        argv = tuple(shlex.split(cmd))
    except ValueError as e:
        raise ValueError(f"--config {name}: {e}") from None
    if not argv:
        raise ValueError(f"--config {name}: empty command")
    return Config(name, argv, description="user command", user=True)


def resolve_configs(names: Sequence[str] | None, ctx: ConfigContext, user: Sequence[Config] = (),
                    verify_o0: bool = False, noise_check: bool = True) -> list[Config]:
    """The configurations to run, baseline first (always: it is what everything is verified
    against), then the named (or default) ones, then reference-O0 (with ``verify_o0``), then the
    user's, then fp-noise (with ``noise_check``). Unknown names raise ``KeyError``."""
    if names is None:
        wanted = [n for n, s in CONFIGS.items() if s.default]
    else:
        wanted = [n for n in names if n not in {u.name for u in user}]
        bad = [n for n in wanted if n not in CONFIGS]
        if bad:
            raise KeyError(", ".join(bad))
    if verify_o0:
        wanted.append("reference-O0")
    ordered = ["baseline"] + [n for n in dict.fromkeys(wanted) if n not in ("baseline", "fp-noise")]
    tail = ["fp-noise"] if noise_check or "fp-noise" in wanted else []
    return [CONFIGS[n].make(ctx) for n in ordered] + list(user) + [CONFIGS[n].make(ctx) for n in tail]


# --- Pluto: polycc as a source-to-source step ------------------------------------------------------

PLUTO_OPTIONS = ("--tile", "--parallel")


@dataclass(frozen=True)
class PlutoConfig(Config):
    """``polycc <kernel>.c --tile --parallel -o <workdir>/<kernel>.pluto.c``, then the C compiler
    at -O3 -march=native -fopenmp on what polycc wrote (its ``#pragma scop`` region transformed)."""

    polycc: str = "polycc"

    def prepare_sources(self, request: BuildRequest) -> list[Path]:
        out = request.workdir / f"{request.kernel_name}.pluto.c"
        argv = [self.polycc, str(request.kernel_source), *PLUTO_OPTIONS, "-o", str(out)]
        p = subprocess.run(argv, cwd=request.workdir, capture_output=True, text=True, timeout=600,
                           stdin=subprocess.DEVNULL)
        (request.workdir / "polycc.log").write_text(f"$ {shlex.join(argv)}\n{p.stdout}{p.stderr}")
        if p.returncode != 0 or not out.exists():
            lines = [ln for ln in (p.stderr + p.stdout).splitlines() if ln.strip()]
            raise RuntimeError(f"polycc failed (status {p.returncode}): {lines[-1] if lines else 'no output'}")
        return _with_utilities(request, out)

    def command_template(self) -> str:
        return f"{self.polycc} <kerneldir>/<name>.c {' '.join(PLUTO_OPTIONS)} -o <name>.pluto.c; " + \
            super().command_template().replace("<kerneldir>/<name>.c", "<name>.pluto.c")


def _pluto(ctx: ConfigContext) -> Config:
    description = "Pluto: polycc --tile --parallel, then cc -O3 -march=native -fopenmp"
    polycc = ctx.tools.get("pluto")
    if not polycc:
        return Config("pluto", (), description=description, unavailable="no --pluto=/path/to/polycc given")
    found = shutil.which(polycc)
    if found is None:
        return Config("pluto", (), description=description, unavailable=f"{polycc} not found")
    # polycc runs in the cell's folder: a relative --pluto=./polycc must still name it there
    return PlutoConfig("pluto", (ctx.cc, *OPT_FLAGS, "-fopenmp"), description=description,
                       polycc=os.path.abspath(found) if os.sep in polycc else polycc)


register(ConfigSpec("pluto", _pluto, help="Pluto (polycc --tile --parallel, with --pluto=/path/to/polycc), "
                                          "then cc -O3 -march=native -fopenmp"))
