"""Companion units: code the optimizer prints in another language than the user's file (C++ for
Highway, CUDA for the GPU), compiled beside it and joined into the object the user asked for.

A back end hands the pipeline ``CompanionUnit``s (``PipelineResult.companions``); s2s-cc then

1. compiles the generated C text as always, with ``marker_text(unit.libraries)`` appended, so
   that the object says which libraries its link needs;
2. compiles each unit with its own compiler (``unit.compiler``: a setting, such as ``--s2s-cxx``,
   resolved by the driver) and the user's code-generation flags that carry over
   (``carried_flags``), from a directory of its own that is on the include path (a unit may
   include itself, as Highway's ``foreach_target.h`` does);
3. joins the objects with ``cc -r`` (a relocatable link), so ``-c x.c -o x.o`` still yields one
   ``x.o`` (``join_objects``);
4. at a link through s2s-cc, adds ``-l<name>`` for each library a marked input needs
   (``libraries_needed``), after the inputs, unless the command names it already.

Any failure of steps 2-3 is the caller's to fall back from (the user's file compiled unchanged).
The marks are weak one-byte symbols ``s2s_cc_needs_lib_<name>`` (``openmp_runtime.py`` says why
a symbol: it travels through ``ar``, ``-r`` links and caches); a library name's characters
other than letters and digits are written ``_xx`` (hex), ``stdc++`` as ``stdc_2b_2b``.
"""
from __future__ import annotations

import mmap
import os
import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from s2s.driver.target_vectors import predefined_macros, target_flags

MARKER_PREFIX = "s2s_cc_needs_lib_"
_MARKER = re.compile(rb"s2s_cc_needs_lib_((?:[A-Za-z0-9]|_[0-9a-f]{2})+)")


@dataclass(frozen=True)
class CompanionUnit:
    """One unit of generated code in another language, to be compiled into the user's object."""

    file_name: str                   # what to name the source (its suffix tells the compiler the language)
    text: str
    language: str = "c++"            # "c++" or "cuda": which compiler setting the driver uses
    flags: tuple[str, ...] = ()      # flags of its own (``-std=c++17``, ``-ffp-contract=off``)
    include_dirs: tuple[str, ...] = ()   # searched after the compiler's own (``-idirafter``)
    libraries: tuple[str, ...] = ()      # what its link needs: ``("hwy", "stdc++")``
    openmp: bool = False             # compiled with -fopenmp (and its link needs the runtime)
    # a*b+c contracted into FMA where the C build contracts (``fp_contract_flag``), else never: the
    # unit's sums then round as the C code they replace does
    contract_as_c: bool = False

    def to_json(self) -> dict:
        return {"file_name": self.file_name, "text": self.text, "language": self.language,
                "flags": list(self.flags), "include_dirs": list(self.include_dirs),
                "libraries": list(self.libraries), "openmp": self.openmp,
                "contract_as_c": self.contract_as_c}

    @staticmethod
    def from_json(data: dict) -> "CompanionUnit":
        return CompanionUnit(data["file_name"], data["text"], data["language"], tuple(data["flags"]),
                             tuple(data["include_dirs"]), tuple(data["libraries"]), bool(data["openmp"]),
                             bool(data.get("contract_as_c", False)))


def _encode(library: str) -> str:
    return "".join(ch if ch.isascii() and ch.isalnum() else f"_{ord(ch):02x}" for ch in library)


def _decode(encoded: str) -> str:
    return re.sub(r"_([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), encoded)


def marker_text(libraries: Sequence[str]) -> str:
    """C text to append to the generated C file: a weak mark per library its object's link needs."""
    out = ["\n/* s2s-cc: code of this object needs these libraries; s2s-cc adds them when linking */"]
    for lib in dict.fromkeys(libraries):
        symbol = MARKER_PREFIX + _encode(lib)
        out += [f"extern const char {symbol};", f"__attribute__((__weak__, __used__)) const char {symbol} = 1;"]
    return "\n".join(out) + "\n"


def libraries_of(path: str) -> list[str]:
    """The libraries the marks in an object or archive name (none for anything else)."""
    from s2s.driver.openmp_runtime import _is_object_or_archive

    try:
        with open(path, "rb") as f:
            if not _is_object_or_archive(f.read(20)) or os.fstat(f.fileno()).st_size == 0:
                return []
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return list(dict.fromkeys(_decode(m.group(1).decode()) for m in _MARKER.finditer(data)))
    except (OSError, ValueError):
        return []


# Link flags a library needs besides ``-l<name>`` (a directory to find it in), by library: a
# function of the driver's settings (``s2s.driver.settings.DriverSettings``).
LIBRARY_LINK_FLAGS: dict[str, Callable[[object], list[str]]] = {}


def link_additions(inputs: Sequence[str], linked: Sequence[str], settings: object = None) -> list[str]:
    """What a link of ``inputs`` must add after them: each needed library's flags and ``-l``."""
    out: list[str] = []
    for flag in libraries_needed(inputs, linked):
        hook = LIBRARY_LINK_FLAGS.get(flag[2:])
        out += [f for f in (hook(settings) if hook is not None else []) if f not in out] + [flag]
    return out


def libraries_needed(inputs: Sequence[str], linked: Sequence[str]) -> list[str]:
    """``-l`` flags for the libraries the marked ``inputs`` need that ``linked`` (the command's own
    ``-l`` values) does not name."""
    out: list[str] = []
    for path in inputs:
        for lib in libraries_of(path):
            if lib not in linked and f"-l{lib}" not in out:
                out.append(f"-l{lib}")
    return out


# The user's flags that decide how the unit's code is generated: optimization, processor,
# position independence, debug information.
_CARRIED = re.compile(r"-O\w*$|-m(arch|tune|cpu|fpu|float-abi|abi|sve-vector-bits)=|-m(64|32|avx\w*|sse\w*|fma\w*|f16c|bmi\w*)$"
                      r"|-f(no-)?(pic|PIC|pie|PIE)$|-g\w*$|-f(no-)?omit-frame-pointer$")


def carried_flags(compile_args: Sequence[str]) -> list[str]:
    """Those of the user's compile flags that the companion unit is compiled with too."""
    return [a for a in compile_args if _CARRIED.match(a)]


def fp_contract_flag(c_compiler: Sequence[str], compile_args: Sequence[str], env: dict | None = None) -> str:
    """The ``-ffp-contract=`` that makes a unit contract as the C build does: the user's own
    setting where given; else ``fast`` (gcc's default in GNU C) where the C build has FMA (the
    compiler predefines ``__FMA__`` or ``__ARM_FEATURE_FMA`` with the user's flags) and is not in
    ISO mode (``-std=c99``: no contraction across expressions); else ``off``."""
    given = [a for a in compile_args if a.startswith("-ffp-contract=")]
    if given:
        return given[-1]
    macros = predefined_macros(c_compiler, target_flags(compile_args), env)
    has_fma = "__FMA__" in macros or "__ARM_FEATURE_FMA" in macros
    return "-ffp-contract=fast" if has_fma and "__STRICT_ANSI__" not in macros else "-ffp-contract=off"


# nvcc knows the optimization levels -O0 to -O3 only: the others as the nearest of those
_NVCC_LEVELS = {"-O": "-O1", "-Og": "-O1", "-Os": "-O2", "-Oz": "-O2", "-Ofast": "-O3"}


@dataclass
class CompanionBuild:
    """Compiles units into ``directory`` and joins them with an object (see the module docstring)."""

    directory: str
    compilers: dict[str, tuple[str, ...]]      # language -> compiler command (``{"c++": ("g++",)}``)
    linker: tuple[str, ...]                   # the C compiler, for ``-r`` (``("cc",)``)
    user_flags: tuple[str, ...] = ()           # ``carried_flags`` of the user's command
    env: dict[str, str] | None = None
    fp_contract: str = "-ffp-contract=off"     # for units that contract as C does (``fp_contract_flag``)
    log: list[str] = field(default_factory=list)   # the commands run (for reports and tests)

    def compile(self, unit: CompanionUnit, n: int = 0) -> str:
        """The object of ``unit``; raises ``CompanionError`` where it does not compile."""
        own = os.path.join(self.directory, f"companion{n}")
        os.makedirs(own, exist_ok=True)
        source = os.path.join(own, unit.file_name)
        with open(source, "w", encoding="utf-8") as f:
            f.write(unit.text)
        output = source + ".o"
        compiler = self.compilers.get(unit.language)
        if not compiler:
            raise CompanionError(f"no compiler for a {unit.language} unit")
        user = list(self.user_flags)
        if unit.language == "cuda":   # (nvcc takes the host compiler's flags through -Xcompiler)
            user = [_NVCC_LEVELS.get(f, f) if f.startswith("-O") else f if f.startswith("-g") else f"-Xcompiler={f}"
                    for f in user]
        contract = [self.fp_contract] if unit.contract_as_c else []
        command = [*compiler, *user, *unit.flags, *contract, "-I", own,
                   *(a for d in unit.include_dirs for a in ("-idirafter", d)),
                   *(["-fopenmp"] if unit.openmp else []), "-c", "-o", output, source]
        self._run(command, f"the {unit.language} unit {unit.file_name} did not compile")
        return output

    def join(self, main_object: str, units: Sequence[CompanionUnit]) -> None:
        """Compile ``units`` and join them into ``main_object`` in place."""
        objects = [self.compile(u, n) for n, u in enumerate(units)]
        joined = os.path.join(self.directory, "joined.o")
        self._run([*self.linker, "-r", "-nostdlib", "-o", joined, main_object, *objects],
                  "joining the companion objects failed")
        import shutil

        shutil.move(joined, main_object)   # (the user's directory may be on another file system)

    def _run(self, command: list[str], why: str) -> None:
        self.log.append(" ".join(command))
        try:
            proc = subprocess.run(command, env=self.env, stdin=subprocess.DEVNULL, capture_output=True)
        except OSError as exc:
            raise CompanionError(f"{why}: {exc}") from None
        if proc.returncode != 0:
            first = next((ln for ln in proc.stderr.decode("utf-8", "replace").splitlines() if "error" in ln),
                         proc.stderr.decode("utf-8", "replace").strip().split("\n")[0])
            raise CompanionError(f"{why}: {first.strip()[:160]}")


class CompanionError(Exception):
    """A companion unit did not compile or join (the caller falls back)."""


def _cudart_link_flags(settings: object) -> list[str]:
    """``-L`` and a run path for the CUDA runtime of the settings' nvcc (cuda_toolkit.py)."""
    from s2s.driver.cuda_toolkit import link_flags

    return link_flags(tuple(getattr(settings, "nvcc", None) or ("nvcc",)))


LIBRARY_LINK_FLAGS["cudart"] = _cudart_link_flags
