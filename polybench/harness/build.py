"""One compiler invocation per binary, with a log file and a time-out."""
from __future__ import annotations

import os
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from .configs import BuildRequest, Config


@dataclass
class BuildResult:
    ok: bool
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # what the configuration added
    seconds: float = 0.0
    returncode: int | None = None
    message: str = ""  # one line, for the report, when not ok
    log: str | None = None  # path of the compiler's output

    @property
    def command(self) -> str:
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        return (env + " " if env else "") + shlex.join(self.argv)

    def to_json(self) -> dict:
        return {"ok": self.ok, "command": self.command, "argv": self.argv, "env": self.env,
                "seconds": round(self.seconds, 3), "returncode": self.returncode,
                "message": self.message, "log": self.log}


def _first_error_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        low = ln.lower()
        if "error" in low or "fatal" in low or "traceback" in low or "undefined reference" in low:
            # A Python traceback: its last line says what happened.
            if low.startswith("traceback"):
                return lines[-1]
            return ln
    return lines[-1] if lines else ""


def build(config: Config, request: BuildRequest, timeout: float, log: Path) -> BuildResult:
    request.workdir.mkdir(parents=True, exist_ok=True)
    res = BuildResult(ok=False, env=dict(config.env), log=str(log))
    t0 = time.monotonic()
    try:
        res.argv = config.build_argv(request)
    except Exception as e:  # a source-to-source step (prepare_sources) failed
        res.message = f"source preparation failed: {e}"
        log.write_text(res.message + "\n")
        return res
    try:
        with open(log, "w") as f:
            f.write(f"$ {res.command}\n")
            f.flush()
            p = subprocess.run(res.argv, cwd=request.workdir, stdin=subprocess.DEVNULL, stdout=f,
                               stderr=subprocess.STDOUT, timeout=timeout, env={**os.environ, **config.env})
        res.returncode = p.returncode
    except FileNotFoundError:
        res.message = f"compiler not found: {res.argv[0]}"
    except PermissionError:
        res.message = f"compiler not executable: {res.argv[0]}"
    except subprocess.TimeoutExpired:
        res.message = f"build timed out after {timeout:g} s"
    except OSError as e:
        res.message = f"cannot run {res.argv[0]}: {e}"
    res.seconds = time.monotonic() - t0
    if res.message:
        return res
    if res.returncode != 0:
        detail = _first_error_line(log.read_text(errors="replace").split("\n", 1)[-1])
        res.message = f"exit status {res.returncode}" + (f": {detail[:300]}" if detail else "")
        return res
    if not request.output.is_file():
        res.message = "the compiler succeeded but wrote no binary"
        return res
    res.ok = True
    return res
