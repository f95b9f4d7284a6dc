"""``s2s-cc``: a drop-in C compiler that optimizes each C file with s2s, then compiles it for real.

Use it as ``make CC=s2s-cc``, as ``CC=s2s-cc cmake ..``, or as a launcher like ccache
(``s2s-cc gcc -O2 -c x.c``, ``-DCMAKE_C_COMPILER_LAUNCHER=s2s-cc``). Settings: see
``s2s.driver.settings`` (``--s2s-*`` flags, ``S2S_*`` variables).

What happens to a command:

* Queries and anything not fully understood (``-E``, ``-M``, ``-dM``, ``--version``, ``-print-*``,
  no C or LLVM IR input, stdin, an unknown option ...) go to the real compiler unchanged (``exec``).
* An LLVM module input (``.ll``, ``.bc``), and with ``--s2s-frontend=llvm`` a C file by way of the
  module clang makes of it: its functions that lift are optimized as C and compiled by the real
  compiler, the rest by llvmlite's LLVM, joined into one object (``s2s.driver.llvm_modules``).
* Each C input is optimized in-process (``optimize_c_file``, under a time limit); the text returned is
  written to a temporary file named after the input and compiled with the user's flags plus
  ``-iquote <directory of the input>`` (so ``#include "x.h"`` resolves as before) and, with ``-g``, a
  ``-fdebug-prefix-map`` that gives the debug info the user's path. Explicit ``-o`` names the
  output the compiler would have chosen; dependency files (``-MD``/``-MMD``) are rewritten to name the
  user's source instead of the temporary file. In a compile-and-link command each C input becomes an
  object in a temporary directory and the user's command links them, in the original order.
* OpenMP runtime: an object whose generated code calls the OpenMP runtime where the user's did not
  carries a mark (``s2s.driver.openmp_runtime``); a link through ``s2s-cc`` of such objects, or of
  static archives holding them, adds ``-fopenmp`` unless the command links a runtime already (many
  Makefiles pass ``-fopenmp`` only when compiling).
* Companion units (the highway and cuda targets: ``s2s.driver.companion_units``): the generated
  code of another language is compiled beside the C text and joined into the same object
  (``cc -r``); the object's marks make a link through ``s2s-cc`` add the libraries it needs.
* Fallback: whatever goes wrong inside s2s (an ``S2SError``, any other exception, the time limit, the
  generated text failing to compile) the user's original file is compiled unchanged with the user's
  flags, and one line says so::

      s2s-cc: note: x.c: optimization skipped (<reason>); compiled unchanged

  If the original file does not compile either (a genuine error in the user's code), the user's
  command is run unchanged, so the user sees exactly the compiler's own diagnostics and exit
  status, and no s2s line. Output of the jobs is held back until they all succeed, so nothing is
  printed twice.

Testing hooks: ``S2S_INJECT_FAULT=pipeline`` makes the optimize step raise ``RuntimeError``,
``S2S_INJECT_FAULT=timeout`` makes it hang until the time limit (``S2S_TIMEOUT``) stops it, and
``S2S_INJECT_FAULT=compile`` appends an ``#error`` to the generated text.

Recursion guard: children get ``S2S_CC_DEPTH``; a nested ``s2s-cc`` (the real compiler resolving to
``s2s-cc`` itself) passes straight through, and a chain four deep is an error.
"""
from __future__ import annotations

import dataclasses

import os
import re
import sys
from collections.abc import Sequence

from s2s.driver import command_line as cmdline
from s2s.driver import openmp_runtime
from s2s.driver import settings as settings_mod
from s2s.driver.command_line import CommandLine, InputFile, Passthrough, Stage
from s2s.driver.settings import DriverSettings
from s2s.driver.target_vectors import target_flags
from s2s.time_limit import TimeLimitExceeded as OptimizeTimeout  # the optimize step ran past --s2s-timeout
from s2s.time_limit import run_with_time_limit

TYPE_CHECKING = False   # (typing.TYPE_CHECKING without importing typing: s2s-cc's start-up time matters)
if TYPE_CHECKING:
    from s2s.driver.pipeline import PipelineResult

PROG = "s2s-cc"
DEPTH_VAR = "S2S_CC_DEPTH"
MAX_DEPTH = 4
RESPONSE_FILE_THRESHOLD = 100_000  # characters of arguments above which jobs get a response file
_SCRATCH_IN_KEYS = "<tmp>"   # the scratch directory as cache keys name it
_NOT_A_COMPILER_EXTENSIONS = (".o", ".a", ".so", ".obj", ".lib", ".dylib", ".dll", ".lo", ".la")


def cxx_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``s2s-c++``: ``s2s-cc`` for C++ (``make CXX=s2s-c++``); C++ files reach the
    optimizer by way of the module clang makes of them (``s2s.driver.llvm_modules``)."""
    return main(argv, cxx=True)


def fortran_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``s2s-fc``: ``s2s-cc`` for Fortran (``make FC=s2s-fc``), by way of the module
    flang makes of each file (``s2s.driver.llvm_modules``)."""
    return main(argv, fortran=True)


def main(argv: Sequence[str] | None = None, cxx: bool = False, fortran: bool = False) -> int:
    """Entry point of ``s2s-cc``. With ``argv=None`` (the console script) a pass-through replaces this
    process by the real compiler; with an explicit ``argv`` it runs as a child and its status is returned."""
    global PROG
    PROG = "s2s-c++" if cxx else "s2s-fc" if fortran else "s2s-cc"   # (one driver per process: its lines' name)
    may_exec = argv is None
    args = list(sys.argv[1:] if argv is None else argv)
    flags, rest = settings_mod.split_flags(args)
    launcher, rest = split_launcher(rest)
    cfg = settings_mod.resolve(flags, os.environ, launcher, cxx_driver=cxx, fortran_driver=fortran)
    for warning in cfg.warnings:
        _say(f"{PROG}: warning: {warning}")
    depth = _depth()
    command = [*cfg.compiler, *rest]
    if depth >= MAX_DEPTH:
        _say(f"{PROG}: error: the real compiler {' '.join(cfg.compiler)!r} runs {PROG} again "
             f"({depth} levels deep); point S2S_CC or --s2s-cc at the real compiler")
        return 1
    if cfg.disable or depth > 0:
        return _run_unchanged(command, may_exec)

    try:
        parsed = cmdline.parse(cmdline.expand_response_files(rest), cxx=_is_cxx_driver(cfg.compiler_name),
                               languages=("c", "c++", "ir") if cxx else (*cmdline.FORTRAN, "ir") if fortran
                               else ("c", "ir"))
    except Exception as exc:  # a bug in the parser must not break the build
        _say(f"{PROG}: note: optimization skipped ({_describe(exc)}); compiled unchanged")
        return _run_unchanged(command, may_exec)
    if not cfg.target_given and _has_openmp(parsed):
        cfg = dataclasses.replace(cfg, target="openmp")  # -fopenmp: the user wants OpenMP code
    elif cfg.target == "highway" and _has_openmp(parsed):
        cfg = dataclasses.replace(cfg, target="highway+openmp")  # (Highway's vectors, OpenMP's threads)
    if parsed.passthrough is not None:
        if (parsed.passthrough is Passthrough.NO_C_INPUT and parsed.stage == Stage.LINK
                and (parsed.inputs or parsed.options("-l"))):
            why = _why_link_openmp(cfg, parsed)
            libraries = _companion_libraries(cfg, parsed)
            if why or libraries:
                return _Build(cfg, parsed, command).link_objects_with_openmp(why, libraries)
        if cfg.report:
            _say(f"{PROG}: report: compiler called unchanged ({parsed.reason()})")
        return _run_unchanged(command, may_exec)
    # (a caller that runs s2s-cc in its own process keeps the optimize step there too)
    return _Build(cfg if may_exec else dataclasses.replace(cfg, server=False), parsed, command).run()


def split_launcher(args: Sequence[str]) -> tuple[tuple[str, ...], list[str]]:
    """Launcher form: leading arguments that name a compiler (``gcc``, ``/usr/bin/cc``, ``ccache gcc``)
    rather than a flag or an input file. Returns (compiler words, remaining arguments)."""
    words: list[str] = []
    i = 0
    while i < len(args) and looks_like_compiler(args[i]):
        words.append(args[i])
        i += 1
        if not settings_mod.is_launcher(words[-1]):
            break
    return tuple(words), list(args[i:])


def looks_like_compiler(arg: str) -> bool:
    """An executable that is not an input: a path to an executable file, or a bare name found on PATH
    that is not a file in the current directory. Names with a source or object extension never are."""
    if not arg or arg.startswith(("-", "@")):
        return False
    ext = os.path.splitext(os.path.basename(arg))[1]
    if ext in _NOT_A_COMPILER_EXTENSIONS or cmdline.language_of(arg) != "linker":
        return False
    if "/" in arg:
        return os.path.isfile(arg) and os.access(arg, os.X_OK)
    return not os.path.exists(arg) and _on_path(arg) is not None


def _on_path(name: str) -> str | None:
    """The executable file ``name`` (a bare name) names on PATH, as ``shutil.which`` finds it."""
    for directory in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(directory or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _resolved(word: str) -> str:
    """A command word as the file it runs, where PATH finds it (a path stays as written)."""
    return word if "/" in word else _on_path(word) or word


# ---- the build ----------------------------------------------------------------------------------
class _Build:
    """The jobs for one command with C inputs: optimize + compile each, then link or compile the rest."""

    def __init__(self, cfg: DriverSettings, parsed: CommandLine, command: list[str]):
        self.cfg = cfg
        self.cl = parsed
        self.command = command  # the user's command, unchanged, for the fallback
        self.env = dict(os.environ, **{DEPTH_VAR: str(_depth() + 1)})
        self.out = bytearray()  # the jobs' stdout and stderr, replayed once they all succeed
        self.err = bytearray()
        self._tmp: str | None = None   # run()'s scratch directory, made on first use
        self._scratch = False
        self.failure = ""  # why the last failed attempt failed (for the fallback note)
        self.report_lines: list[str] = []   # for the report file (--s2s-report-file)
        self.warned: set[str] = set()       # the optimize step's warnings said already
        self.color = _wants_color(cfg, parsed)

    # -- entry points -----------------------------------------------------------------------------
    @property
    def tmp(self) -> str:
        """The scratch directory of ``run`` ("" outside it), made where a job needs it: a rebuild
        that the cache serves needs none."""
        if self._tmp is None:
            if not self._scratch:
                return ""
            import tempfile

            self._tmp = tempfile.mkdtemp(prefix="s2s-cc-")
        return self._tmp

    def run(self) -> int:
        self._scratch = True
        try:
            ok = self._jobs()
        except Exception as exc:  # a bug in the driver itself must not break the build
            ok, self.failure = False, f"internal error in {PROG}: {_describe(exc)}"
        finally:
            self._scratch = False
            if self._tmp is not None:
                import shutil

                shutil.rmtree(self._tmp, ignore_errors=True)
        if ok:
            self._flush()
            self._write_report_file()
            return 0
        rc = self._rerun_original()
        self._write_report_file()
        return rc

    def link_objects_with_openmp(self, why: str, libraries: Sequence[str] = ()) -> int:
        """A link of objects that need the OpenMP runtime (``_why_link_openmp``) gets -fopenmp, and
        one of objects with companion units the libraries these need; if that link fails, the
        user's command runs unchanged."""
        if self.cfg.report and why:
            self._say_later(f"{PROG}: report: linking with -fopenmp: {why}")
        if self.cfg.report and libraries:
            self._say_later(f"{PROG}: report: linking with {' '.join(libraries)}: companion units need them")
        rc = self._capture([*self.cfg.compiler, *self.cl.args, *(["-fopenmp"] if why else []), *libraries])
        if rc == 0:
            self._flush()
            return 0
        return _run_unchanged(self.command, may_exec=False, env=self.env)

    # -- jobs ---------------------------------------------------------------------------------------
    def _jobs(self) -> bool:
        cl = self.cl
        objects: dict[int, str] = {}
        for n, source in enumerate(cl.optimized_inputs):
            if cl.stage == Stage.LINK:
                stem = os.path.splitext(os.path.basename(source.path))[0]
                output = os.path.join(self.tmp, f"{n}-{_safe_name(stem)}.o")
            else:
                output = cl.output or cl.default_output(source)
            if not self._compile_one(n, source, output):
                return False
            objects[cl.index_of(source)] = output
        if cl.stage == Stage.LINK:
            why = _why_link_openmp(self.cfg, cl)
            if why and self.cfg.report:
                self._say_later(f"{PROG}: report: linking with -fopenmp: {why}")
            extra = ["-fopenmp"] if why else []
            extra += _companion_libraries(self.cfg, cl, list(objects.values()))
            extra += self._color_flag()
            if self._capture([*self.cfg.compiler, *cl.link_args(objects), *extra]) != 0:
                self.failure = "linking the optimized objects failed"
                return False
            return True
        others = {i for i, item in enumerate(cl.items) if isinstance(item, InputFile)} - set(objects)
        if others and self._capture([*self.cfg.compiler, *cl.rest_args(set(objects))]) != 0:
            self.failure = "compiling the other inputs failed"
            return False
        return True

    def _compile_one(self, n: int, source: InputFile, output: str) -> bool:
        """Optimize and compile one C input to ``output``; on any s2s failure compile the original."""
        if source.language == "ir":
            return self._compile_module(n, source, output)
        through_llvm = source.language == "c++" or source.language in cmdline.FORTRAN
        if self.cfg.mode != "off" and not through_llvm and not _has_loop_keyword(source.path):
            # (nothing to gain: the compiler reads the user's file, the optimizer never starts;
            # not for C++, whose loops are in its headers' templates as often as in the file)
            self._report(f"{source.path}: no loop; compiled as it is")
            return self._compile_original(source, output)
        if through_llvm and self.cfg.mode == "off":
            return self._compile_original(source, output)
        try:
            if (self.cfg.frontend == "llvm" or through_llvm) and self.cfg.mode != "off":
                reason = self._compile_through_clang(n, source, output)
            else:
                reason = self._compile_generated(n, source, output, *self._optimize(source))
        except Exception as exc:
            reason = _describe(exc)
        if not reason:
            return True
        if not self._compile_original(source, output):
            return False
        self._note(f"{source.path}: optimization skipped ({reason}); compiled unchanged")
        self.report_lines.append(f"{source.path}: optimization skipped ({reason}); compiled unchanged")
        return True

    def _compile_module(self, n: int, source: InputFile, output: str) -> bool:
        """An LLVM module input: its functions that lift optimized as C, the rest compiled by
        llvmlite's LLVM (llvm_modules.py); where s2s fails, the module compiled as it is."""
        jobs = self._module_jobs(n, source, output)
        try:
            reason = jobs.run(source.path)
        except Exception as exc:
            reason = _describe(exc)
        if not reason:
            return True
        if not jobs.unchanged(source.path):
            self.failure = f"{source.path}: LLVM cannot compile it ({reason})"
            return False
        self._note(f"{source.path}: optimization skipped ({reason}); compiled unchanged")
        self.report_lines.append(f"{source.path}: optimization skipped ({reason}); compiled unchanged")
        return True

    def _compile_through_clang(self, n: int, source: InputFile, output: str) -> str:
        """A C file by way of the module clang makes of it (``--s2s-frontend=llvm``); "" or why
        it failed (the caller then compiles the file as it is)."""
        jobs = self._module_jobs(n, source, output)
        module, reason = jobs.clang_module()
        return reason or jobs.run(module)

    def _module_jobs(self, n: int, source: InputFile, output: str):
        from s2s.driver.llvm_modules import ModuleJobs

        directory = os.path.join(self.tmp, str(n))
        os.mkdir(directory)
        return ModuleJobs(self, source, output, directory)

    def pipeline_options(self):
        """The optimize step's options: the settings', with what the compile flags say about
        C's aliasing rule and floating-point reassociation."""
        compile_args = self.cl.compile_args()
        return dataclasses.replace(self.cfg.pipeline_options(), strict_aliasing=strict_aliasing(compile_args),
                                   reassociate=self.cfg.reassociate or reassociation(compile_args),
                                   target_flags=target_flags(compile_args))

    def _compile_original(self, source: InputFile, output: str) -> bool:
        if self._capture(self._compile_command(source, source.path, output)) != 0:
            self.failure = f"{source.path} does not compile"
            return False
        return True

    def _optimize(self, source: InputFile) -> tuple[PipelineResult, tuple | None]:
        """What the optimize step makes of ``source`` (from the cache where it is there), and the
        cache and key it is kept under (None: no cache)."""
        cfg = self.cfg
        cpp_args = self.cl.cpp_args(source)
        options = self.pipeline_options()
        cache, key, preprocessed = self._cache_entry(source, cpp_args, options)
        if cache is not None:
            result = cache.load(key)
            if result is not None:
                if cfg.report or cfg.report_file:
                    result.full_report = [*result.full_report,
                                          f"{source.path}: what the optimize step made of it before (cache {cfg.cache_dir})"]
                return result, (cache, key)

        def work() -> PipelineResult:
            from s2s.driver.pipeline import optimize_c_file

            if cfg.inject_fault == "pipeline":
                raise RuntimeError("injected fault (S2S_INJECT_FAULT=pipeline)")
            if cfg.inject_fault == "timeout":
                import time

                if cfg.timeout <= 0:
                    raise OptimizeTimeout(0)
                deadline = time.monotonic() + cfg.timeout + 30
                while time.monotonic() < deadline:
                    time.sleep(0.05)
            return optimize_c_file(str(source.path), cpp_args, options, preprocessed=preprocessed)

        result = self._optimize_in_server(source, cpp_args, options, preprocessed)
        if result is None:
            result = run_with_time_limit(work, cfg.timeout)
        if cache is not None:
            cache.store(key, result)
        return result, (cache, key) if cache is not None else None

    def _optimize_in_server(self, source: InputFile, cpp_args: list[str], options, preprocessed: str | None):
        """What the warm server makes of ``source``, or None where none answers (optimize_server.py)."""
        cfg = self.cfg
        if not cfg.server or cfg.inject_fault:
            return None
        from s2s.driver import optimize_server

        request = optimize_server.OptimizeRequest.here(str(source.path), cpp_args, options, preprocessed)
        return optimize_server.optimize(request, cfg.timeout, cfg.server_idle)

    def _cache_entry(self, source: InputFile, cpp_args: list[str], options):
        """(cache, key, preprocessed text) for this file, or Nones where no cache applies: none
        asked for, recipes from a database that changes, a fault injected, a file that does not
        preprocess (the optimize step says why)."""
        cfg = self.cfg
        if cfg.cache_dir is None or cfg.tune != "off" or cfg.inject_fault or cfg.mode == "off":
            return None, None, None
        import shlex
        import time

        from s2s.driver import compile_cache, include_manifest

        cache = compile_cache.CompileCache(cfg.cache_dir, cfg.cache_size)
        extra = [cfg.recipes] if cfg.recipes else []
        preprocessor = shlex.split(options.compiler)
        try:
            text = _read_text(source.path)
        except OSError:
            return None, None, None
        # (the key without the preprocessor, where the files it read are as they were)
        direct = include_manifest.direct_key(
            text=text, path=str(source.path), cpp_args=cpp_args, options=options, env=self.env, extra_files=extra,
            compilers=[_resolved(word) for word in preprocessor])
        key = include_manifest.find(cache, direct)
        if key is not None:
            return cache, key, None
        from frontends.c.preprocess import preprocess   # (not for a file its manifest finds)
        from s2s.errors import S2SError

        started = time.time_ns()
        try:
            preprocessed = preprocess(source.path, cpp_args, options.compiler)
        except (OSError, S2SError):
            return None, None, None
        key = compile_cache.cache_key(text=text, preprocessed=preprocessed, path=str(source.path),
                                      cpp_args=cpp_args, options=options, env=self.env, extra_files=extra)
        include_manifest.record(cache, direct, key, preprocessed, str(source.path),
                                [_resolved(word) for word in preprocessor], cpp_args, started)
        return cache, key, preprocessed

    def _compile_generated(self, n: int, source: InputFile, output: str, result: PipelineResult,
                           cached: tuple | None) -> str:
        """Compile the pipeline's text (or take what its compile left from the cache, where
        ``cached``, the optimize step's cache and key, says where to look); returns "" on
        success, else why it failed."""
        name = _safe_name(os.path.basename(source.path))
        text = result.source
        if self.cfg.inject_fault == "compile":
            text += "\n#error s2s-cc: injected fault (S2S_INJECT_FAULT=compile)\n"
        self._keep(source, text, result.companions)
        if self.cfg.target in _OPENMP_TARGETS and result.changed and openmp_runtime.added_runtime_calls(
                _read_text(source.path), text):
            text += openmp_runtime.MARKER_TEXT  # the link adds the runtime (openmp_runtime)
        key_text = text
        if result.companions:
            from s2s.driver import companion_units

            if self.cl.stage == Stage.ASSEMBLY:
                return "its companion unit cannot join an assembly file"
            text += companion_units.marker_text([lib for u in result.companions for lib in u.libraries])
            if any(u.openmp and openmp_runtime.added_runtime_calls("", u.text) for u in result.companions) and (
                    openmp_runtime.MARKER_TEXT not in text):
                text += openmp_runtime.MARKER_TEXT
            key_text = text + "".join(f"\n{u.text}\n{self._companion_compilers()}" for u in result.companions)
        depfile = self.cl.depfile(output)
        # (the key names the scratch directory as <tmp>: each run has its own)
        key_command = self._compile_command(source, os.path.join(_SCRATCH_IN_KEYS, str(n), name), output, result=result)
        stored = self._object_entry(cached, key_text, key_command, output, depfile)
        found = stored[0].load_object(stored[1]) if stored is not None else None
        if found is not None:
            _restore(found, output, depfile)
            self.out += found.stdout
            self.err += found.stderr
        else:
            directory = os.path.join(self.tmp, str(n))
            os.mkdir(directory)
            generated = os.path.join(directory, name)
            command = self._compile_command(source, generated, output, result=result)
            with open(generated, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            proc = self._run(command, capture=True)
            if proc.returncode != 0:
                return "the optimized code did not compile: " + _first_error(proc.stderr)
            if result.companions:
                reason = self._join_companions(output, result.companions, directory)
                if reason:
                    return reason
            _fix_depfile(depfile, generated, source.path)
            found = _left_by(proc, output, depfile)
            if stored is not None and found is not None:
                stored[0].store_object(stored[1], found)
            self.out += proc.stdout
            self.err += proc.stderr
        for line in result.full_report or [f"{source.path}: {'optimized' if result.changed else 'unchanged'}"]:
            self._report(line)
        for warning in result.warnings:
            if warning not in self.warned:
                self.warned.add(warning)
                self._say_later(f"{PROG}: {warning}")
        return ""

    def _companion_compilers(self) -> dict[str, tuple[str, ...]]:
        return {"c++": self.cfg.companion_cxx, "cuda": self.cfg.nvcc}

    def _join_companions(self, output: str, units: list, directory: str) -> str:
        """Compile the companion units of a file and join them into its object ``output``
        (companion_units.py); "" or why it failed."""
        from s2s.driver import companion_units

        build = companion_units.CompanionBuild(
            os.path.join(directory, "companions"), self._companion_compilers(), tuple(self.cfg.compiler),
            tuple(companion_units.carried_flags(self.cl.compile_args(False))), self.env)
        if any(u.contract_as_c for u in units):
            build.fp_contract = companion_units.fp_contract_flag(self.cfg.compiler, self.cl.compile_args(False), self.env)
        try:
            build.join(output, units)
        except companion_units.CompanionError as exc:
            return str(exc)
        return ""

    def _object_entry(self, cached: tuple | None, text: str, command: list[str], output: str,
                      depfile: str | None) -> tuple | None:
        """(cache, key) of the compile ``command`` of the optimize step's ``text`` (``cached``: that
        step's cache and key), or None where the compile is not kept: no cache, an output to
        standard output, or an option that makes the compiler write files besides the object and
        the dependency file (as ccache refuses them)."""
        if cached is None or output == "-" or depfile == "-" or any(
                arg.startswith(_SIDE_OUTPUT_OPTIONS) for arg in command):
            return None
        from s2s.driver.compile_cache import object_key

        cache, optimize_key = cached
        if self._tmp is not None:   # (an output in the scratch directory: a compile-and-link command)
            command = [arg.replace(self._tmp, _SCRATCH_IN_KEYS) for arg in command]
        return cache, object_key(optimize_key=optimize_key, text=text, command=command, cwd=os.getcwd(),
                                 compilers=[_resolved(word) for word in self.cfg.compiler])

    def _compile_command(self, source: InputFile, path: str, output: str,
                         result: PipelineResult | None = None, dependencies: bool = True) -> list[str]:
        """A compile job of ``path`` (the original, or the generated text when ``result`` is given;
        without ``dependencies``, writing no dependency file)."""
        cl, cfg = self.cl, self.cfg
        command = [*cfg.compiler]
        if result is not None:
            original_dir = os.path.dirname(source.path)
            command += ["-iquote", original_dir or "."]
        command += cl.compile_args(dependencies)
        if result is not None:
            if cl.debug_info():
                new = os.path.dirname(source.path)
                command.append(f"-fdebug-prefix-map={os.path.dirname(path)}/={new + '/' if new else ''}")
            if cfg.target in _OPENMP_TARGETS and result.changed and not _has_openmp(cl):
                command.append("-fopenmp")
            if result.changed and cfg.align_loops and _aligns_loops(cfg) and not any(
                    tok.startswith("-falign-loops") or tok == "-fno-align-loops"
                    for option in cl.options("-f") for tok in option.tokens):
                # where a hot loop starts decides how fast it runs, and a rewritten function
                # moves every loop after it, the user's untouched ones too
                command.append(f"-falign-loops={cfg.align_loops}")
        command += self._color_flag()
        command += ["-S" if cl.stage == Stage.ASSEMBLY else "-c", "-o", output]
        if source.explicit:
            command += ["-x", source.language]
        command.append(path)
        return command

    # -- running ------------------------------------------------------------------------------------
    def _run(self, command: list[str], capture: bool):
        import subprocess

        n_compiler = len(self.cfg.compiler)
        if sum(len(a) + 1 for a in command) > RESPONSE_FILE_THRESHOLD and self.tmp:
            import tempfile

            fd, path = tempfile.mkstemp(suffix=".rsp", dir=self.tmp)
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(cmdline.quote_response(command[n_compiler:]))
            command = [*command[:n_compiler], "@" + path]
        try:
            return subprocess.run(command, env=self.env, stdin=subprocess.DEVNULL,
                                  capture_output=capture)
        except OSError as exc:
            return subprocess.CompletedProcess(command, 127, b"", f"{PROG}: error: {exc}\n".encode())

    def _capture(self, command: list[str]) -> int:
        """Run a job, holding its output back; returns its exit status."""
        proc = self._run(command, capture=True)
        if proc.returncode == 0:
            self.out += proc.stdout
            self.err += proc.stderr
        return proc.returncode

    def _rerun_original(self) -> int:
        rc = _run_unchanged(self.command, may_exec=False, env=self.env)
        if rc == 0:
            what = ", ".join(s.path for s in self.cl.c_inputs)
            _say(f"{PROG}: note: {what}: optimization skipped ({self.failure or 'build step failed'}); "
                 "compiled unchanged")
            self.report_lines = [f"{s.path}: optimization skipped ({self.failure or 'build step failed'}); "
                                 "compiled unchanged" for s in self.cl.c_inputs]
        return rc

    # -- output -------------------------------------------------------------------------------------
    def _report(self, line: str) -> None:
        """A report line: on stderr with --s2s-report, in the report file with --s2s-report-file."""
        if self.cfg.report:
            self._say_later(f"{PROG}: report: {line}")
        if self.cfg.report_file:
            self.report_lines.append(line)

    def _write_report_file(self) -> None:
        if self.cfg.report_file and self.report_lines:
            from s2s.driver.why_report import append_report

            append_report(self.cfg.report_file, self.report_lines)

    def _note(self, text: str) -> None:
        self._say_later(f"{PROG}: note: {text}")

    def _say_later(self, line: str) -> None:
        self.err += (line + "\n").encode("utf-8", "replace")

    def _flush(self) -> None:
        _write(sys.stdout, bytes(self.out))
        _write(sys.stderr, bytes(self.err))

    def _keep(self, source: InputFile, text: str, companions: Sequence = ()) -> None:
        """The generated source in ``--s2s-keep``'s directory, and beside it its companion units
        (``k.s2s-hwy.cc``, ``k.s2s.cu``) under their own names."""
        keep = self.cfg.keep_dir
        if not keep:
            return
        stem, ext = os.path.splitext(os.path.basename(source.path))
        files = [(f"{stem}.s2s{ext or '.c'}", text), *((u.file_name, u.text) for u in companions)]
        try:
            os.makedirs(keep, exist_ok=True)
            for name, contents in files:
                with open(os.path.join(keep, name), "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(contents)
        except OSError as exc:
            self._say_later(f"{PROG}: warning: cannot keep the generated source in {keep}: {exc}")

    def _color_flag(self) -> list[str]:
        return ["-fdiagnostics-color=always"] if self.color else []


# ---- helpers --------------------------------------------------------------------------------------
def _describe(exc: BaseException) -> str:
    """One short line saying why an attempt failed."""
    from s2s.errors import S2SError

    if isinstance(exc, OptimizeTimeout):
        text = str(exc)
    elif isinstance(exc, S2SError):
        text = f"{type(exc).__name__}: {exc}"
    else:
        text = f"internal error: {type(exc).__name__}: {exc}"
    return _one_line(text)


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.strip().splitlines()[0].split()) if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _first_error(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").splitlines()
    for line in lines:
        if "error" in line:
            return _one_line(_strip_ansi(line), 160)
    return _one_line(_strip_ansi(lines[0]), 160) if lines else "no diagnostic"


def _strip_ansi(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*[mK]", "", text)


# Options that make the compiler write files besides its output and dependency file, or that
# name the file they write after the source: their compiles are not kept in the cache.
_SIDE_OUTPUT_OPTIONS = ("-fdump-", "-save-temps", "--coverage", "-ftest-coverage", "-gsplit-dwarf", "-fstack-usage",
                        "-fcallgraph-info", "-Wa,", "-fopt-info", "-frecord-gcc-switches", "-ftime-report",
                        "-fprofile-", "-Xassembler")


def _left_by(proc, output: str, depfile: str | None):
    """What a compile job that succeeded left (a ``compile_cache.CompiledObject``), or None where
    its files cannot be read."""
    from s2s.driver.compile_cache import CompiledObject

    try:
        with open(output, "rb") as f:
            data = f.read()
        text = None
        if depfile:
            with open(depfile, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
    except OSError:
        return None
    return CompiledObject(data, text, proc.stdout, proc.stderr)


def _restore(found, output: str, depfile: str | None) -> None:
    """Write what a kept compile job left where this one would have (OSError where it cannot)."""
    with open(output, "wb") as f:
        f.write(found.output)
    if depfile and found.depfile is not None:
        with open(depfile, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(found.depfile)


def _fix_depfile(depfile: str | None, generated: str, original: str) -> None:
    """Make a dependency file written for the generated text name the user's source instead."""
    if not depfile or depfile == "-" or not os.path.isfile(depfile):
        return
    with open(depfile, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    fixed = text.replace(_make_escape(generated), _make_escape(original))
    if fixed != text:
        with open(depfile, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(fixed)


def _make_escape(path: str) -> str:
    """A path as gcc and clang write it in a dependency file."""
    return path.replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ")


def _safe_name(name: str) -> str:
    """The user's file name (it reaches debug info and ``.file``), minus control characters."""
    safe = "".join(ch if ch.isprintable() else "_" for ch in name)
    return safe or "s2s_input"


def _why_link_openmp(cfg: DriverSettings, cl: CommandLine) -> str:
    """Why a link must add -fopenmp ("" when it need not): the OpenMP target was asked for, or an
    object or archive it reads was made by s2s-cc with OpenMP code of its own. Not when the command
    links a runtime already, nor in a relocatable link (-r: the mark travels in its output)."""
    if openmp_runtime.links_a_runtime(cl) or cl.has("-r"):
        return ""
    if cfg.target in _OPENMP_TARGETS:
        return f"--s2s-target={cfg.target}"
    marked = openmp_runtime.link_inputs(cl).marked()
    if marked:
        more = f" and {len(marked) - 1} more" if len(marked) > 1 else ""
        return f"{marked[0]}{more} holds OpenMP code made by {PROG}, and the command links no OpenMP runtime"
    return ""


_OPENMP_TARGETS = ("openmp", "highway+openmp")


def _companion_libraries(cfg: DriverSettings, cl: CommandLine, objects: Sequence[str] = ()) -> list[str]:
    """What a link must add for the companion units of the objects it reads (companion_units.py):
    none in a relocatable link, whose output carries the marks on."""
    if cl.has("-r"):
        return []
    from s2s.driver import companion_units

    inputs = openmp_runtime.link_inputs(cl)
    return companion_units.link_additions([*objects, *inputs.files, *inputs.archives()], inputs.libraries, cfg)


LOOP_KEYWORD = re.compile(r"\b(for|while)\b")


def _has_loop_keyword(path: str) -> bool:
    """Whether the file's own text has a loop (a loop that a header's macro expands to in it
    stays as the user wrote it)."""
    try:
        return bool(LOOP_KEYWORD.search(_read_text(path)))
    except OSError:
        return True   # (the optimizer's own path reports it)


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def _has_openmp(cl: CommandLine) -> bool:
    return any(tok == "-fopenmp" or tok.startswith("-fopenmp=")
               for option in cl.options("-f") for tok in option.tokens)


def _is_cxx_driver(compiler: str) -> bool:
    name = os.path.basename(compiler)
    return "++" in name or name in ("c++", "CC") or name.startswith(("g++", "clang++"))


def _aligns_loops(cfg: DriverSettings) -> bool:
    """Whether the compiler takes gcc's ``-falign-loops=N`` (gcc, and clang from version 13)."""
    name = os.path.basename(cfg.compiler_name)
    return name in ("cc", "c99") or any(family in name for family in ("gcc", "clang"))


def _wants_color(cfg: DriverSettings, cl: CommandLine) -> bool:
    """Keep colored diagnostics on a terminal although the jobs' output goes through a pipe."""
    try:
        if not sys.stderr.isatty():
            return False
    except (AttributeError, ValueError):
        return False
    name = os.path.basename(cfg.compiler_name)
    if not any(family in name for family in ("gcc", "clang", "cc")):
        return False
    return not any("color" in tok for option in cl.options("-f") for tok in option.tokens)


def _depth() -> int:
    try:
        return int(os.environ.get(DEPTH_VAR, "0"))
    except ValueError:
        return 0


def _run_unchanged(command: list[str], may_exec: bool, env: dict[str, str] | None = None) -> int:
    """Run the real compiler on ``command`` with this process's stdin/stdout/stderr."""
    if env is None:
        env = dict(os.environ, **{DEPTH_VAR: str(_depth() + 1)})
    if may_exec:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            os.execvpe(command[0], command, env)
        except OSError as exc:
            _say(f"{PROG}: error: cannot run the real compiler {command[0]!r}: {exc.strerror or exc}")
            return 127
    import subprocess

    try:
        rc = subprocess.run(command, env=env).returncode
    except OSError as exc:
        _say(f"{PROG}: error: cannot run the real compiler {command[0]!r}: {exc.strerror or exc}")
        return 127
    return 128 - rc if rc < 0 else rc


def _write(stream, data: bytes) -> None:
    if not data:
        return
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        stream.write(data.decode("utf-8", "replace"))
        stream.flush()


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def strict_aliasing(compile_args: list[str]) -> bool:
    """Whether the compiler holds the program to C's effective-type rule, as gcc and clang do:
    the last ``-f[no-]strict-aliasing``, else on at ``-O2``, ``-O3``, ``-Os``, ``-Oz``, ``-Ofast``."""
    explicit = [a for a in compile_args if a in ("-fstrict-aliasing", "-fno-strict-aliasing")]
    if explicit:
        return explicit[-1] == "-fstrict-aliasing"
    levels = [a[2:] for a in compile_args if a.startswith("-O")]
    level = levels[-1] if levels else "0"
    return level in ("s", "z", "fast") or level.isdigit() and int(level) >= 2


def reassociation(compile_args: list[str]) -> bool:
    """Whether the compiler may reorder floating-point sums, as gcc and clang take the flags:
    ``-ffast-math``, ``-Ofast`` and ``-fassociative-math``, unless a later ``-fno-fast-math`` or
    ``-fno-associative-math`` takes it back."""
    allowed = False
    for a in compile_args:
        if a in ("-ffast-math", "-fassociative-math", "-Ofast"):
            allowed = True
        elif a in ("-fno-fast-math", "-fno-associative-math"):
            allowed = False
    return allowed


if __name__ == "__main__":
    sys.exit(main())

