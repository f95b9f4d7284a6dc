"""s2s-cc's jobs for LLVM modules: a ``.ll``/``.bc`` input, the module clang makes of a C++ file
(s2s-c++), or with ``--s2s-frontend=llvm`` that of a C file.

The functions that the LLVM front end lifts are optimized as C (``optimize_llvm_file``) and
compiled by the real compiler with the user's flags; the rest of the module is compiled by the
LLVM that llvmlite carries, at the user's ``-O`` level; a relocatable link (``cc -r``) joins the
two objects into the one the command asked for, so ``-c x.ll -o x.o`` still yields one ``x.o``.
A module where s2s fails is compiled unchanged by llvmlite's LLVM (gcc cannot read it); a C file
where the LLVM way fails is compiled as it is, as any C file where s2s fails.
"""
from __future__ import annotations

import dataclasses
import os
import shutil

from s2s.driver.command_line import FORTRAN, InputFile, Stage

# what clang's code should look like to the LLVM front end: loops rotated and counted, not
# vectorized or unrolled, each function its own (the user's functions are inlined by the C
# compiler later, in the lifted C); array elements kept in memory as the source keeps them, not
# promoted to registers across iterations (LICM) nor loops versioned on address compares to
# forward stored values (loop-load-elim): the C compiler does both later, on the lifted C
AS_WRITTEN = ("-mllvm", "-disable-licm-promotion", "-mllvm", "-runtime-check-per-loop-load-elim=0")
CLANG_FLAGS = ("-O1", "-fno-vectorize", "-fno-unroll-loops", "-fno-inline", *AS_WRITTEN)
# C++ reaches its data through small inline members (``std::vector::operator[]``, ``size()``):
# those are inlined, the functions that are not marked inline stay functions of their own
CLANGXX_FLAGS = ("-O1", "-fno-vectorize", "-fno-unroll-loops", "-finline-hint-functions", *AS_WRITTEN)
# what flang's code should look like to the LLVM front end: not vectorized, not unrolled, each
# procedure its own (flang inlines a module's procedures at -O1; the C compiler may inline later)
FLANG_FLAGS = ("-O1", "-mllvm", "-vectorize-loops=false", "-mllvm", "-unroll-runtime=false", "-mllvm",
               "-inline-threshold=-10000")
# the options of a C++ command that a C compile warns about (an error under -Werror)
_CXX_ONLY_OPTIONS = ("-fno-rtti", "-frtti", "-fno-threadsafe-statics", "-fvisibility-inlines-hidden",
                     "-fno-enforce-eh-specs", "-fcoroutines", "-fconcepts", "-fmodules-ts", "-nostdinc++",
                     "-fno-implicit-templates", "-fpermissive", "-fno-operator-names")
_CXX_ONLY_WARNINGS = ("c++", "old-style-cast", "effc++", "non-virtual-dtor", "overloaded-virtual",
                      "reorder", "ctor-dtor-privacy", "deprecated-copy", "sign-promo", "noexcept",
                      "useless-cast", "zero-as-null-pointer-constant", "suggest-override", "class-memaccess",
                      "pessimizing-move", "redundant-move", "catch-value", "extra-semi", "register",
                      "mismatched-tags", "redundant-tags", "virtual-move-assign", "comma-subscript",
                      "conversion-null", "delete-non-virtual-dtor", "terminate", "template-id-cdtor")


class ModuleJobs:
    def __init__(self, build, source: InputFile, output: str, directory: str):
        self.build = build
        self.source = source
        self.output = output
        self.directory = directory
        self.stem = os.path.splitext(os.path.basename(source.path))[0]

    def clang_module(self) -> tuple[str, str]:
        """(the module clang makes of the C file, "") or ("", why not). The dependency file the
        user asked for is clang's, written for the user's output."""
        clang = find_clang(self.build.cfg.clang)
        if clang is None:
            return "", "no clang on PATH for --s2s-frontend=llvm (--s2s-clang)"
        cl = self.build.cl
        module = os.path.join(self.directory, self.stem + ".ll")
        dependencies = cl.dependency_args()
        depfile = cl.depfile(self.output)
        if dependencies and depfile:
            dependencies = [*dependencies, "-MF", depfile]
            if not any(tok in ("-MT", "-MQ") or tok.startswith(("-MT", "-MQ")) for tok in dependencies):
                dependencies += ["-MT", self.output]
        cxx = self.source.language == "c++"
        # (the processor asked for: the module's functions name it, and LLVM compiles the rest for it)
        machine = [word for word in cl.compile_args() if word.startswith(("-march=", "-mtune=", "-mcpu="))]
        if self.source.language in FORTRAN:   # (flang: the real compiler itself makes the module)
            command = [*self.build.cfg.compiler, *cl.cpp_args(self.source), *FLANG_FLAGS, *machine, "-S",
                       "-emit-llvm", self.source.path, "-o", module]
        else:
            language = ["-x", "c++"] if cxx else []   # (a .c file that the C++ driver compiles as C++)
            command = [*clang, *cl.cpp_args(self.source), *(CLANGXX_FLAGS if cxx else CLANG_FLAGS), *machine,
                       *dependencies, "-S", "-emit-llvm", *language, self.source.path, "-o", module]
        proc = self.build._run(command, capture=True)
        if proc.returncode != 0:
            return "", f"{command[0]} cannot compile it: " + _first_line(proc.stderr)
        return module, ""

    def run(self, module: str) -> str:
        """Optimize and compile ``module`` into the output; "" or why it failed."""
        from s2s.driver.llvm_objects import emit_object
        from s2s.driver.pipeline import optimize_llvm_file
        from s2s.time_limit import run_with_time_limit

        build = self.build
        if build.cl.stage != Stage.OBJECT and build.cl.stage != Stage.LINK:
            return "an LLVM module is compiled to an object here, not to assembly"
        options = build.pipeline_options()
        cxx = self.source.language == "c++"
        fortran = self.source.language in FORTRAN
        c_compiler = c_compiler_for(build.cfg.compiler) if cxx or fortran else build.cfg.compiler
        if cxx or fortran:   # (the lifted C is read and compiled by the C compiler beside the real one)
            options = dataclasses.replace(options, compiler=c_compiler[-1])
        found = self._in_server(module, options)
        if found is None:
            found = run_with_time_limit(lambda: optimize_llvm_file(module, options), build.cfg.timeout)
        if not found.lifted:   # (nothing moved to C: the module compiled by LLVM, as it is)
            emit_object(found.residual, self.output, optimization_level(build.cl.compile_args()),
                        march_of(build.cl.compile_args()))
            self._report_lines(found, module)
            return ""
        c_path = os.path.join(self.directory, self.stem + ".lifted.c")
        with open(c_path, "w", encoding="utf-8") as f:
            f.write(found.c.source)
        c_object = os.path.join(self.directory, self.stem + ".lifted.o")
        command = build._compile_command(self.source, c_path, c_object, result=found.c, dependencies=False)
        if cxx or fortran:
            words = command[len(build.cfg.compiler):-1]
            rest = [word for word in words if not cxx_only(word)] if cxx else for_c_too(words)
            command = [*c_compiler, *rest, "-x", "c", command[-1]]
        proc = build._run(command, capture=True)
        if proc.returncode != 0:
            return "the optimized code did not compile: " + _first_line(proc.stderr)
        build.err += proc.stderr
        if found.residual is None:
            shutil.copyfile(c_object, self.output)
        else:
            rest = os.path.join(self.directory, self.stem + ".rest.o")
            emit_object(found.residual, rest, optimization_level(build.cl.compile_args()),
                        march_of(build.cl.compile_args()))
            joined = build._run([*c_compiler, "-r", "-nostdlib", c_object, rest, "-o", self.output], capture=True)
            if joined.returncode != 0:
                return "joining the lifted C and the rest of the module failed: " + _first_line(joined.stderr)
        self._report_lines(found, module)
        return ""

    def _report_lines(self, found, module: str) -> None:
        shown = f"{module}.c"   # (what the report lines call the lifted C: the source's name then)
        for line in found.c.full_report or [f"{shown}: {'optimized' if found.c.changed else 'unchanged'}"]:
            line = line.replace(shown, self.source.path + (".ll.c" if module != self.source.path else ".c"))
            self.build._report(line.replace(f"{module}: ", f"{self.source.path}: "))

    def _in_server(self, module: str, options):
        """What the warm server makes of ``module``, or None where none answers (optimize_server.py)."""
        cfg = self.build.cfg
        if not cfg.server or cfg.inject_fault:
            return None
        from s2s.driver import optimize_server

        request = optimize_server.OptimizeRequest.here(module, [], options, None, module=True)
        return optimize_server.optimize(request, cfg.timeout, cfg.server_idle)

    def unchanged(self, module: str) -> bool:
        """``module`` compiled as it is (by llvmlite's LLVM); whether it could be."""
        from s2s.driver.llvm_objects import emit_object
        from s2s.errors import S2SError

        try:
            with open(module, "rb") as f:
                data = f.read()
            emit_object(_module_text(module, data), self.output, optimization_level(self.build.cl.compile_args()),
                        march_of(self.build.cl.compile_args()))
        except (OSError, S2SError):
            return False
        return True


def for_c_too(words: list[str]) -> list[str]:
    """The words of a Fortran command that mean the same to the C compile of the lifted C (how
    to optimize and for which machine, where to put code and debug information, the
    preprocessor's); the others (``-ffree-form``, ``-fdefault-real-8``, ``-J dir``) are Fortran's."""
    out, skip = [], False
    for k, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word in ("-J", "-module"):
            skip = True   # (and the directory after it)
        elif word.startswith(("-O", "-m", "-g", "-iquote", "-fdebug-prefix-map", "-I", "-D", "-U", "-falign-loops")) \
                or word in ("-fPIC", "-fpic", "-fPIE", "-fpie", "-fopenmp", "-ffast-math", "-c", "-o", "-S") \
                or not word.startswith("-") and k > 0 and words[k - 1] in ("-iquote", "-o", "-I", "-D", "-U"):
            out.append(word)
    return out


def c_compiler_for(command: tuple[str, ...]) -> tuple[str, ...]:
    """The C compiler beside the C++ compiler of ``command`` (``g++-12``: ``gcc-12``, ``clang++``:
    ``clang``, ``c++``: ``cc``; a launcher before it stays), else ``cc``."""
    *launchers, compiler = command
    directory, name = os.path.split(compiler)
    for cxx, c in (("clang++", "clang"), ("g++", "gcc"), ("c++", "cc")):
        if cxx in name:
            candidate = os.path.join(directory, name.replace(cxx, c))
            if shutil.which(candidate):
                return (*launchers, candidate)
    return (*launchers, "cc")


def cxx_only(option: str) -> bool:
    """Whether ``option`` means something to a C++ compile only (``-std=c++17``, ``-fno-rtti``)."""
    if option.startswith("-std="):
        return "++" in option
    if option.startswith("-W"):
        name = option[2:]
        for prefix in ("no-", "error="):
            name = name[len(prefix):] if name.startswith(prefix) else name
        return name.split("=", 1)[0] in _CXX_ONLY_WARNINGS
    return option in _CXX_ONLY_OPTIONS or option.startswith("-stdlib=")


def march_of(args: list[str]) -> str:
    """The processor the user's last ``-march=`` names ("" where none)."""
    return next((arg[len("-march="):] for arg in reversed(args) if arg.startswith("-march=")), "")


def optimization_level(args: list[str]) -> int:
    """The ``-O`` level the user's flags ask for (the last one; ``-Os``, ``-Oz``: 2; ``-Ofast``: 3)."""
    level = 0
    for arg in args:
        if arg.startswith("-O"):
            value = arg[2:]
            level = {"": 1, "s": 2, "z": 2, "g": 1, "fast": 3}.get(value, int(value) if value.isdigit() else level)
    return min(level, 3)


def find_clang(configured: tuple[str, ...]) -> tuple[str, ...] | None:
    """The clang to use: ``--s2s-clang``, else ``clang``, else the newest ``clang-N`` on PATH."""
    if configured:
        return configured
    if shutil.which("clang"):
        return ("clang",)
    for version in range(30, 10, -1):
        if shutil.which(f"clang-{version}"):
            return (f"clang-{version}",)
    return None


def _module_text(path: str, data: bytes) -> str:
    if path.endswith(".bc"):
        import llvmlite.binding as llvm

        return str(llvm.parse_bitcode(data))
    return data.decode("utf-8", "surrogateescape")


def _first_line(stderr: bytes) -> str:
    lines = [line for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line]
    return (errors or lines or ["no message"])[0][:200]
