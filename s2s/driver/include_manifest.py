"""Finding a file's cache entry without preprocessing it (ccache's "direct mode").

The cache key of the optimize step covers the preprocessed text, and preprocessing costs a
compiler process per file (15 ms here, a third of what gcc takes to compile a small file). So the
first build also writes a *manifest*, under a key of the file's own text, the preprocessor flags,
the settings, the compiler, the directory and the variables that move the include search list
(``CPATH`` ...). It holds the optimize step's key, a SHA-256 of every file the preprocessor read
(from its line markers), and of every directory of the include search list (``cc -E -v``, run
once for a compiler, its flags and directory and kept in the cache too) and
every directory a header came from, the names of the headers in it (files with a header's
suffix). A rebuild finds the manifest, hashes those files and lists those directories again and,
where nothing changed, takes the key without running the preprocessor (a few milliseconds). A
header added where it would be found first is a new name in such a directory, so a miss too,
and so is one added in a subdirectory that a header came from in another such directory
(``a/sub/x.h`` where ``b/sub/x.h`` was read: ``a/sub`` is listed, missing or not; ccache's
direct mode checks no directory at all); objects, dependency files and build directories made
beside the sources are not headers. Not for files that use
``__DATE__``, ``__TIME__`` or ``__TIMESTAMP__`` (their preprocessed text changes by itself), nor
where the search list cannot be read, nor where a file it lists is newer than the start of the
preprocessing (it may have changed after the preprocessor read it; ccache refuses those too).
"""
from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from s2s.driver.compile_cache import (
    CompileCache, code_stamp, labelled_digest, machine_stamp, settings_variables, stat_line,
)

SUFFIX = ".manifest"
SEARCH_SUFFIX = ".search"   # a preprocessor's include search list
_LINE_MARKER = re.compile(r'^# \d+ "((?:[^"\\]|\\.)*)"', re.MULTILINE)
_MISSING_DIRECTORY = re.compile(r'^ignoring nonexistent directory "(.*)"$')   # (gcc's and clang's words)
_CLOCK_MACROS = re.compile(rb"__(?:DATE|TIME|TIMESTAMP)__")
_HEADER_SUFFIXES = frozenset({".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".def", ".tcc", ".ipp"})
# what else decides which headers gcc and clang read
_PREPROCESSOR_VARIABLES = ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "GCC_EXEC_PREFIX",
                           "COMPILER_PATH", "SOURCE_DATE_EPOCH", "SDKROOT")


@dataclass(frozen=True)
class Manifest:
    key: str                                   # the optimize step's key
    files: tuple[tuple[str, str], ...]         # (path, SHA-256 of its content) of every file read
    directories: tuple[tuple[str, str], ...]   # (path, SHA-256 of its header names) of every directory searched


def direct_key(*, text: str, path: str, cpp_args: Sequence[str], options: object, env: Mapping[str, str],
               extra_files: Iterable[str], compilers: Sequence[str]) -> str:
    """The key of a file's manifest: what the optimize step's key covers but the preprocessed
    text, and the compiler and directory, which decide what the preprocessor would read."""
    moving = "\0".join(f"{k}={env[k]}" for k in _PREPROCESSOR_VARIABLES if k in env)
    return labelled_digest([
        ("code", code_stamp()), ("machine", machine_stamp()), ("options", repr(options)), ("path", path),
        ("cpp", "\0".join(cpp_args)), ("cwd", os.getcwd()), ("compiler", "\n".join(stat_line(c) for c in compilers)),
        ("env", settings_variables(env)), ("preprocessor env", moving),
        ("extra", "\n".join(stat_line(f) for f in extra_files)), ("text", text)])


def find(cache: CompileCache, key: str) -> str | None:
    """The optimize step's key that the manifest ``key`` names, where every file and directory
    it lists is as it was; None otherwise."""
    data = cache.load_entry(key, SUFFIX)
    try:
        if data is None:
            return None
        manifest = Manifest(data["key"], tuple(tuple(f) for f in data["files"]),
                            tuple(tuple(d) for d in data["directories"]))
    except (KeyError, TypeError, ValueError):
        return None
    for path, digest in manifest.files:
        if _digest(path) != digest:
            return None
    for path, names in manifest.directories:
        if _names_digest(path) != names:
            return None
    return manifest.key


def record(cache: CompileCache, key: str, optimize_key: str, preprocessed: str, source: str,
           compiler: Sequence[str], cpp_args: Sequence[str], started_ns: int) -> None:
    """Write the manifest ``key`` of a file whose optimize step has the key ``optimize_key``
    (``preprocessed``: its text, made from ``started_ns`` on; ``source``: its path); nothing
    where one cannot be made, or where a file changed since the preprocessor began (its text
    may be older than what the manifest would say)."""
    search = _kept_search_directories(cache, compiler, cpp_args)
    if search is None:
        return
    named = (f.replace("\\\\", "\\") for f in _LINE_MARKER.findall(preprocessed))   # (as cpp escapes them)
    files = [source] + [f for f in dict.fromkeys(named) if not f.startswith("<") and f != source]
    found: list[tuple[str, str]] = []
    for f in files:
        try:
            with open(f, "rb") as handle:
                content = handle.read()
        except OSError:
            return
        if _CLOCK_MACROS.search(content) or _mtime_ns(f) >= started_ns:
            return
        found.append((f, hashlib.sha256(content).hexdigest()))
    listed = [(d, _names_digest(d)) for d in _watched_directories(search, source, files)]
    cache.store_entry(key, SUFFIX, {"key": optimize_key, "files": found, "directories": listed})


def _watched_directories(search: Sequence[str], source: str, files: Sequence[str]) -> list[str]:
    """Every directory whose header names decide what the preprocessor reads: each it searches,
    each a file it read came from, and where a header came from a subdirectory of one of those
    (``b/sys/x.h`` for ``#include <sys/x.h>`` under ``-Ia -Ib``), that subdirectory of every
    other (``a/sys``, missing or not: a header added there would be read first)."""
    roots = list(dict.fromkeys([*search, os.path.dirname(source) or ".", *(os.path.dirname(f) or "." for f in files)]))
    absolute = [os.path.abspath(r) for r in roots]
    subdirectories: dict[str, None] = {}
    for f in files:
        path = os.path.abspath(f)
        for root in absolute:
            if path.startswith(root.rstrip(os.sep) + os.sep):
                sub = os.path.dirname(path[len(root.rstrip(os.sep)) + 1:])
                if sub:
                    subdirectories[sub] = None
    return list(dict.fromkeys([*roots, *(os.path.join(r, sub) for sub in subdirectories for r in roots)]))


def _kept_search_directories(cache: CompileCache, compiler: Sequence[str], cpp_args: Sequence[str]) -> list[str] | None:
    """``search_directories``, kept in ``cache`` under the compiler (its executables as PATH
    resolves them), the flags, the directory and the variables that move the list: the files of
    a build share one listing, one ``cc -E -v`` a build rather than one a file."""
    key = labelled_digest([
        ("search list", "1"), ("compiler", "\n".join(stat_line(c) for c in compiler)),
        ("cpp", "\0".join(cpp_args)), ("cwd", os.getcwd()),
        ("preprocessor env", "\0".join(f"{k}={os.environ[k]}" for k in _PREPROCESSOR_VARIABLES if k in os.environ))])
    kept = cache.load_entry(key, SEARCH_SUFFIX)
    if kept is not None and isinstance(kept.get("directories"), list):
        return [str(d) for d in kept["directories"]]
    search = search_directories(compiler, cpp_args)
    if search is not None:
        cache.store_entry(key, SEARCH_SUFFIX, {"directories": search})
    return search


def search_directories(compiler: Sequence[str], cpp_args: Sequence[str]) -> list[str] | None:
    """The directories the preprocessor searches for headers with these flags (``cc -E -v``),
    those it would search but that do not exist first, or None where its listing cannot be read."""
    try:
        import subprocess   # (not on a rebuild: s2s-cc's start-up time matters)

        proc = subprocess.run([*compiler, "-E", "-v", *cpp_args, "-x", "c", os.devnull], capture_output=True,
                              text=True, errors="surrogateescape", stdin=subprocess.DEVNULL)
    except OSError:
        return None
    lines = proc.stderr.splitlines()
    try:
        start = next(k for k, line in enumerate(lines) if line.startswith('#include "..." search starts here'))
        end = next(k for k, line in enumerate(lines) if line.startswith("End of search list"))
    except StopIteration:
        return None
    # (a directory the flags name that does not exist yet is searched once it does)
    missing = [m.group(1) for m in map(_MISSING_DIRECTORY.match, lines[:start]) if m]
    return missing + [line.strip().removesuffix(" (framework directory)") for line in lines[start + 1:end]
                      if line.startswith(" ")]


def _mtime_ns(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1

def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _names_digest(directory: str) -> str | None:
    """A SHA-256 of the names in ``directory`` that a header could have (module docstring)."""
    try:
        with os.scandir(directory) as entries:
            names = sorted(e.name for e in entries if os.path.splitext(e.name)[1] in _HEADER_SUFFIXES)
    except OSError:
        return None
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()
