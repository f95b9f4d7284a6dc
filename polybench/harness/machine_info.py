"""Where and with what the numbers were taken: CPU, caches, memory, compilers, s2s version, git."""
from __future__ import annotations

import datetime as _dt
import os
import platform
import shutil
import subprocess
from pathlib import Path
from typing import Iterable

_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def cpu_model() -> str:
    for line in _read(Path("/proc/cpuinfo")).splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "cpu model", "Processor"):
            return value.strip()
    return platform.processor() or platform.machine()


def physical_cores() -> int | None:
    pairs = set()
    phys = core = None
    for line in _read(Path("/proc/cpuinfo")).splitlines() + [""]:
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "physical id":
            phys = value.strip()
        elif key == "core id":
            core = value.strip()
        elif not key:
            if core is not None:
                pairs.add((phys, core))
            phys = core = None
    return len(pairs) or None


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def caches() -> list[dict]:
    out = []
    for d in sorted(_CACHE.glob("index*")):
        out.append({"level": _read(d / "level"), "type": _read(d / "type"), "size": _read(d / "size"),
                    "line_size": _read(d / "coherency_line_size"),
                    "shared_cpu_list": _read(d / "shared_cpu_list")})
    return out


def memory_bytes() -> int | None:
    for line in _read(Path("/proc/meminfo")).splitlines():
        if line.startswith("MemTotal:"):
            parts = line.split()
            return int(parts[1]) * 1024
    return None


def machine() -> dict:
    mem = memory_bytes()
    return {
        "hostname": platform.node(),
        "os": f"{platform.system()} {platform.release()}",
        "arch": platform.machine(),
        "cpu_model": cpu_model(),
        "cores": physical_cores(),
        "threads": os.cpu_count(),
        "usable_cpus": usable_cpus(),
        "caches": caches(),
        "memory_bytes": mem,
        "memory": f"{mem / 2**30:.1f} GiB" if mem else None,
    }


def caches_summary(cs: Iterable[dict]) -> str:
    parts = []
    for c in cs:
        kind = {"Data": "d", "Instruction": "i", "Unified": ""}.get(c.get("type", ""), "")
        parts.append(f"L{c.get('level')}{kind} {c.get('size')}")
    return ", ".join(parts)


def version_line(argv0: str, timeout: float = 20) -> str | None:
    """The first line of ``argv0 --version``, None when it is not there."""
    if shutil.which(argv0) is None:
        return None
    try:
        p = subprocess.run([argv0, "--version"], capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    lines = (p.stdout or p.stderr).strip().splitlines()
    return lines[0].strip() if lines else None


def config_compiler_version(argv0: str, s2s_version: str | None, cc_version: str | None) -> str | None:
    """What compiles a configuration: ``s2s-cc`` reports the s2s version and its real compiler."""
    if Path(argv0).name.startswith("s2s-cc"):
        return f"s2s {s2s_version} (s2s-cc; real compiler: {cc_version})"
    return version_line(argv0)


def compilers(extra: Iterable[str] = ()) -> dict[str, str | None]:
    names = ["cc", "clang-14", *extra]
    return {n: version_line(n) for n in dict.fromkeys(names)}


def s2s_info() -> dict:
    try:
        import s2s
        version = getattr(s2s, "__version__", None)
    except ImportError:
        version = None
    if version is None:
        try:
            from importlib.metadata import version as _v
            version = _v("s2s")
        except Exception:
            version = None
    root = Path(__file__).resolve().parents[2]
    commit = dirty = None
    if (root / ".git").exists():
        try:
            p = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=20)
            if p.returncode == 0:
                commit = p.stdout.strip()
                q = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=20)
                dirty = bool(q.stdout.strip()) if q.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired):
            pass
    return {"version": version, "git_commit": commit, "git_dirty": dirty, "checkout": str(root)}


def now() -> _dt.datetime:
    return _dt.datetime.now().astimezone()
