"""Objects whose generated code needs the OpenMP runtime carry a marker; links of them get it.

Many Makefiles pass ``-fopenmp`` only when compiling (``CFLAGS``) and link without it. The user's own
code then links fine, but once s2s adds parallel regions (``GOMP_parallel``) or calls
``omp_get_num_threads`` the link fails. So ``s2s-cc`` marks each object whose generated code calls the
runtime where the user's did not, and at link time adds ``-fopenmp`` when an input object or static
archive carries the mark and the command does not already link a runtime.

The mark is a weak, read-only one-byte definition of ``s2s_cc_needs_openmp_runtime``, appended to the
generated text. Its name is in the object's symbol table, hence:

* it travels with the object: ``ar`` (it is also in the archive's index), renames and moves, ccache
  (the cached object is the object), parallel make (no state outside the object), ``-r`` links and
  LTO objects (gcc's and clang's LTO symbol tables keep names as plain bytes);
* it is visible to ``nm`` (``V s2s_cc_needs_openmp_runtime``) and found here by scanning bytes,
  without binutils;
* weak, so the copies of all objects merge into one byte in the program; not a reserved name, so
  ``-Wreserved-identifier`` stays quiet; declared before it is defined, so
  ``-Wmissing-variable-declarations`` does too.

A link through plain ``cc`` cannot be helped: it needs ``-fopenmp`` (or ``-lgomp``) from the user.
"""
from __future__ import annotations

import mmap
import os
import re
from dataclasses import dataclass

from s2s.driver.command_line import CommandLine

MARKER_SYMBOL = "s2s_cc_needs_openmp_runtime"
MARKER_TEXT = (
    "\n/* s2s-cc: this object calls the OpenMP runtime; s2s-cc adds it when linking */\n"
    f"extern const char {MARKER_SYMBOL};\n"
    f"__attribute__((__weak__, __used__)) const char {MARKER_SYMBOL} = 1;\n"
)
_MARKER_BYTES = MARKER_SYMBOL.encode()

# What calls the runtime: any OpenMP directive but `simd` (vectorization only, no runtime call), and
# the omp_* library functions.
_RUNTIME_USE = re.compile(r"#\s*pragma\s+omp\s+(?!simd\b)\w|\bomp_\w+\s*\(")

# Libraries that are an OpenMP runtime (gcc's, LLVM's, Intel's).
_RUNTIME_LIBRARIES = ("gomp", "omp", "iomp5")


def added_runtime_calls(original: str, generated: str) -> bool:
    """Whether ``generated`` calls the OpenMP runtime in more places than the user's ``original``
    (the generated text keeps every byte of the user's file outside the loop nests it rewrote)."""
    return len(_RUNTIME_USE.findall(generated)) > len(_RUNTIME_USE.findall(original))


def links_a_runtime(cl: CommandLine) -> bool:
    """Whether a link command already brings an OpenMP runtime (-fopenmp, -lgomp, -Wl,-lomp ...)."""
    libraries = {f"-l{name}" for name in _RUNTIME_LIBRARIES}
    for option in cl.options("-f"):
        if option.tokens[0] in ("-fopenmp", "-fiopenmp") or option.tokens[0].startswith("-fopenmp="):
            return True
    if any(option.value in _RUNTIME_LIBRARIES for option in cl.options("-l")):
        return True
    return any(libraries.intersection((option.value or "").split(",")) for option in cl.options("-Wl,"))


@dataclass(frozen=True)
class LinkInputs:
    """The files a link reads that s2s-cc may have made: objects and static archives, in order."""

    files: tuple[str, ...]
    library_dirs: tuple[str, ...]
    libraries: tuple[str, ...]  # -lNAME (NAME) and -l:FILE (":FILE")

    def archives(self) -> list[str]:
        """Each -l library as the static archive ``ld`` would find in a -L directory, where one is.
        A shared library of the same name may be taken instead: a mark in its archive then adds a
        runtime that the shared library (linked by s2s-cc) already depends on, which costs nothing.
        Archives only in the compiler's own directories are not searched (s2s-cc does not make those)."""
        found = []
        for lib in self.libraries:
            name = lib[1:] if lib.startswith(":") else f"lib{lib}.a"
            for directory in self.library_dirs:
                path = os.path.join(directory, name)
                if os.path.isfile(path):
                    found.append(path)
                    break
        return found

    def marked(self) -> list[str]:
        """The inputs that carry the mark."""
        return [path for path in (*self.files, *self.archives()) if carries_marker(path)]


def carries_marker(path: str) -> bool:
    """Whether an object, archive or LTO object holds the mark. Shared libraries and executables are
    not read (a shared library made by s2s-cc already depends on the runtime), nor linker scripts."""
    try:
        with open(path, "rb") as f:
            if not _is_object_or_archive(f.read(20)):
                return False
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                return False
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return data.find(_MARKER_BYTES) >= 0
    except (OSError, ValueError):
        return False  # unreadable: the link will say so itself


def _is_object_or_archive(head: bytes) -> bool:
    if head.startswith((b"!<arch>\n", b"!<thin>\n")):  # a thin archive's index names its members' symbols
        return True
    if head.startswith(b"\x7fELF") and len(head) >= 18:
        e_type = head[16] | head[17] << 8 if head[5] == 1 else head[17] | head[16] << 8
        return e_type == 1  # ET_REL
    if head.startswith((b"BC\xc0\xde", b"\xde\xc0\x17\x0b")):  # LLVM bitcode (clang -flto)
        return True
    if head[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe") and len(head) >= 16:
        return int.from_bytes(head[12:16], "little") == 1  # Mach-O MH_OBJECT
    return False


def link_inputs(cl: CommandLine) -> LinkInputs:
    """The files of a link command that are not C sources, its -L directories and -l libraries."""
    return LinkInputs(tuple(f.path for f in cl.inputs if f.language == "linker"),
                      tuple(o.value for o in cl.options("-L") if o.value),
                      tuple(o.value for o in cl.options("-l") if o.value))
