"""What the optimize step made of a file, kept on disk so that a rebuild does not redo it (as ccache
does for the compiler).

The key is a SHA-256 of everything the optimize step reads: the file's text and its preprocessed
text (every header it includes, every macro), the path it is compiled as (it appears in ``#line``
directives), the pipeline options, a replayed recipe file's text, the ``S2S_*`` environment, the
s2s code itself and the libraries it runs on (their files' sizes and modification times), and this
machine (its CPU and caches decide tile sizes and kernels). Any change gives a new key; nothing is
ever invalidated in place. An entry holds the generated text and the report lines (a ``PipelineResult`` without IR or recipes).

The compile of that text is kept too, as ccache keeps a compile (``object_key``): its object file,
its dependency file and what the compiler printed. A rebuild without changes so reads both
entries and runs no compiler for a file it optimized.

Many ``s2s-cc`` processes of one ``make -j`` share a cache: an entry is written to a temporary file
in its directory and renamed over its name, so a reader sees a whole entry or none; an entry that
cannot be read is a miss. When an entry is written the cache is trimmed, now and then, to its size
limit, the least recently used entries first (a hit touches its entry).
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from s2s.driver.pipeline import PipelineResult
from s2s.user_cache import cache_dir

FORMAT = 1
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
OBJECT_SUFFIX = ".compile"       # an entry of a compile job (an optimize step's: .json)
TRIM_CHANCE = 1 / 64             # a store trims the cache this often
TRIM_TO = 0.8                    # a trim keeps this share of the limit
STALE_WRITE_S = 3600             # a temporary file this old was left by a process that died
# the code whose change changes what the optimize step makes
CODE_PACKAGES = ("s2s", "frontends", "backends")
LIBRARIES = ("islpy", "pycparser", "pycparserext", "networkx", "numpy")
# S2S_* variables that do not change the generated text
NEUTRAL_VARIABLES = ("S2S_CACHE", "S2S_CACHE_SIZE", "S2S_CACHE_DIR", "S2S_KEEP", "S2S_NEST_TIMES", "S2S_CC_DEPTH",
                     "S2S_TIMEOUT", "S2S_ALIGN_LOOPS", "S2S_SERVER", "S2S_SERVER_IDLE", "S2S_SERVER_DIR")


def default_directory(env: Mapping[str, str]) -> Path:
    return cache_dir(env) / "cc"


def parse_size(text: str) -> int:
    """``500M``, ``2G``, ``64k`` or a number of bytes; ValueError otherwise."""
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    number = float(text[:-1] if scale > 1 else text)
    if number < 0:
        raise ValueError(text)
    return int(number * scale)


def cache_key(*, text: str, preprocessed: str, path: str, cpp_args: Sequence[str], options: object,
              env: Mapping[str, str], extra_files: Iterable[str] = ()) -> str:
    """The key of one optimize step (see the module docstring)."""
    parts: list[tuple[str, str | bytes]] = [
        ("format", str(FORMAT)), ("code", code_stamp()), ("machine", machine_stamp()), ("options", repr(options)),
        ("path", path), ("cpp", "\0".join(cpp_args)), ("env", settings_variables(env))]
    for name in extra_files:
        try:
            parts.append(("file", Path(name).read_bytes()))
        except OSError:
            parts.append(("file", "missing:" + name))
    parts += [("text", text), ("preprocessed", preprocessed)]
    return labelled_digest(parts)


def labelled_digest(parts: Iterable[tuple[str, str | bytes]]) -> str:
    """A SHA-256 of ``(label, value)`` pairs, each value's length written before it (no two
    lists of pairs run together into the same bytes)."""
    h = hashlib.sha256()
    for label, value in parts:
        data = value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")
        h.update(f"{label}:{len(data)}:".encode())
        h.update(data)
    return h.hexdigest()


def settings_variables(env: Mapping[str, str]) -> str:
    """The ``S2S_*`` variables of ``env`` that may change what the optimize step makes."""
    return "\0".join(f"{k}={v}" for k, v in sorted(env.items()) if k.startswith("S2S_") and k not in NEUTRAL_VARIABLES)


_code_stamp: str | None = None


def code_stamp() -> str:
    """Sizes and modification times of the s2s sources and of the libraries they run on."""
    global _code_stamp
    if _code_stamp is None:
        import importlib.util

        lines: list[str] = []
        root = Path(__file__).resolve().parents[2]
        for package in CODE_PACKAGES:
            for directory, subdirs, files in os.walk(root / package):
                subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith((".py", ".c", ".h")):
                        lines.append(stat_line(os.path.join(directory, name)))
        for library in LIBRARIES:
            spec = importlib.util.find_spec(library)
            lines.append(stat_line(spec.origin) if spec is not None and spec.origin else f"{library}: none")
        _code_stamp = "\n".join(lines)
    return _code_stamp


def stat_line(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}: missing"
    return f"{path}: {st.st_size} {st.st_mtime_ns}"


def machine_stamp() -> str:
    """The CPU model and flags, the number of CPUs, and the caches' sizes and sharing (sysfs)."""
    parts = [str(os.cpu_count())]
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            first_cpu = f.read(1 << 16).split("\n\n", 1)[0]
        parts += [line for line in first_cpu.splitlines()
                  if line.startswith(("model name", "flags", "Features", "CPU part"))]
    except OSError:
        pass
    caches = Path("/sys/devices/system/cpu/cpu0/cache")
    try:
        for index in sorted(caches.glob("index*")):
            for name in ("level", "type", "size", "shared_cpu_list"):
                try:
                    parts.append(f"{index.name}/{name}={(index / name).read_text().strip()}")
                except OSError:
                    pass
    except OSError:
        pass
    return "\n".join(parts)


def object_key(*, optimize_key: str, text: str, command: Sequence[str], cwd: str, compilers: Sequence[str]) -> str:
    """The key of one compile of the optimize step's text: that step's key (whatever the text
    includes is in its preprocessed text), the text itself, the compile command (temporary paths
    already replaced by a placeholder), the directory it runs in, and the compiler, by the size
    and modification time of its executable, as ccache's ``compiler_check=mtime``."""
    return labelled_digest([("format", str(FORMAT)), ("optimize", optimize_key), ("text", text),
                            ("command", "\0".join(command)), ("cwd", cwd),
                            ("compiler", "\n".join(stat_line(c) for c in compilers))])


@dataclass(frozen=True)
class CompiledObject:
    """What a compile job left: its output file, its dependency file (None: none asked for) and
    what it printed."""
    output: bytes
    depfile: str | None
    stdout: bytes
    stderr: bytes


class CompileCache:
    def __init__(self, directory: str | Path, max_bytes: int = DEFAULT_MAX_BYTES):
        self.directory = Path(directory)
        self.max_bytes = max_bytes

    def _path(self, key: str, suffix: str = ".json") -> Path:
        return self.directory / key[:2] / f"{key[2:]}{suffix}"

    def load(self, key: str) -> PipelineResult | None:
        data = self.load_entry(key, ".json")
        try:
            return None if data is None else PipelineResult(
                source=data["source"], changed=bool(data["changed"]), report=list(data["report"]),
                full_report=list(data["full_report"]), companions=_companions(data.get("companions", [])))
        except (KeyError, TypeError):
            return None

    def load_entry(self, key: str, suffix: str) -> dict | None:
        """The entry ``key`` of the kind ``suffix`` names, or None (missing, damaged, of another
        format); a hit marks it used (the trim removes the least recently used first)."""
        path = self._path(key, suffix)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        try:
            os.utime(path)
        except OSError:
            pass
        return data

    def store(self, key: str, result: PipelineResult) -> None:
        """Write an entry (never raises: a cache that cannot be written is no cache)."""
        self.store_entry(key, ".json", {"source": result.source, "changed": result.changed,
                                        "report": list(result.report), "full_report": list(result.full_report),
                                        "companions": [u.to_json() for u in result.companions]})

    def load_object(self, key: str) -> CompiledObject | None:
        """The compile job's results under ``object_key`` ``key``, or None."""
        data = self.load_entry(key, OBJECT_SUFFIX)
        try:
            return None if data is None else CompiledObject(
                base64.b64decode(data["output"]), data["depfile"], base64.b64decode(data["stdout"]),
                base64.b64decode(data["stderr"]))
        except (KeyError, TypeError, ValueError):
            return None

    def store_object(self, key: str, found: CompiledObject) -> None:
        """Write a compile job's results (never raises)."""
        self.store_entry(key, OBJECT_SUFFIX, {
            "output": base64.b64encode(found.output).decode(), "depfile": found.depfile,
            "stdout": base64.b64encode(found.stdout).decode(), "stderr": base64.b64encode(found.stderr).decode()})

    def store_entry(self, key: str, suffix: str, data: dict) -> None:
        """Write the entry ``key`` of the kind ``suffix`` names (never raises: a cache that cannot
        be written is no cache)."""
        data = {"format": FORMAT, **data}
        path = self._path(key, suffix)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            import tempfile   # (imported where an entry is written: s2s-cc's start-up time matters)

            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(data, f)
                os.replace(tmp, path)
            except BaseException:
                _unlink(tmp)
                raise
        except OSError:
            return
        import random

        if random.random() < TRIM_CHANCE:
            self.trim()

    def trim(self) -> None:
        """Remove the least recently used entries until the cache holds TRIM_TO of its limit."""
        entries: list[tuple[float, int, str]] = []
        total = 0
        for directory, _subdirs, files in os.walk(self.directory):
            for name in files:
                path = os.path.join(directory, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                if name.startswith(".tmp-") and time.time() - st.st_mtime < STALE_WRITE_S:
                    continue   # another process is writing it
                entries.append((st.st_mtime, st.st_size, path))
                total += st.st_size
        if total <= self.max_bytes:
            return
        for _mtime, size, path in sorted(entries):
            if total <= self.max_bytes * TRIM_TO:
                break
            _unlink(path)
            total -= size


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _companions(data: list) -> list:
    """The companion units of an entry (s2s.driver.companion_units), read back."""
    if not data:
        return []
    from s2s.driver.companion_units import CompanionUnit

    return [CompanionUnit.from_json(d) for d in data]
