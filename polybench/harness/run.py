"""Running a kernel binary with a time-out; the program's own printed time (POLYBENCH_TIME)."""
from __future__ import annotations

import os
import re
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

_TIME_LINE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)\s*$")


@dataclass
class RunResult:
    status: str  # "ok" | "timeout" | "crash" | "no-time"
    seconds: float | None = None  # the program's printed time (timed runs)
    returncode: int | None = None
    message: str = ""


def describe_returncode(rc: int) -> str:
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


def parse_time(stdout: str) -> float | None:
    """The last line that is a bare number (``%0.6f`` in PolyBench 4.2.1, ``%0.9f`` in our suite),
    as printed by polybench_timer_print."""
    for line in reversed(stdout.splitlines()):
        m = _TIME_LINE.match(line)
        if m:
            return float(m.group(1))
    return None


def run_binary(binary: Path, timeout: float, env: Mapping[str, str], *, stderr_to: Path | None = None,
               want_time: bool = False, cwd: Path | None = None, args: Sequence[str] = ()) -> RunResult:
    """Run once with ``args``. ``stderr_to``: a file for stderr (array dumps); ``want_time``: parse stdout."""
    full_env = {**os.environ, **env}
    err = open(stderr_to, "w") if stderr_to else subprocess.DEVNULL
    try:
        p = subprocess.run([str(binary), *args], cwd=cwd or binary.parent, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=err, timeout=timeout, env=full_env)
    except subprocess.TimeoutExpired:
        return RunResult("timeout", message=f"timed out after {timeout:g} s")
    except OSError as e:
        return RunResult("crash", message=f"cannot run {binary}: {e}")
    finally:
        if stderr_to:
            err.close()
    if p.returncode != 0:
        return RunResult("crash", returncode=p.returncode, message=describe_returncode(p.returncode))
    if want_time:
        t = parse_time(p.stdout.decode(errors="replace"))
        if t is None:
            return RunResult("no-time", returncode=0, message="the program printed no time (POLYBENCH_TIME)")
        return RunResult("ok", seconds=t, returncode=0)
    return RunResult("ok", returncode=0)
