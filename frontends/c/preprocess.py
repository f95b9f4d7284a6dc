"""Preprocessing with the real compiler, so real system headers and the user's flags apply."""
from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Sequence

from s2s.errors import PreprocessError


def preprocess(path: str | Path, cpp_args: Sequence[str] = (), compiler: str = "cc") -> str:
    """``compiler -E cpp_args path``: the preprocessed text with line markers.

    The path is passed exactly as given, so line markers name the main file the same way
    (pycparser's coordinates then tell main-file code from header code). A ``.i`` file is
    preprocessed already (``cc -E`` of one prints nothing): it is read as C. Its code is
    the main file's only where no line marker names another file (``cc -E -P``).
    """
    language = ["-x", "c"] if Path(path).suffix == ".i" else []
    cmd = [*shlex.split(compiler), "-E", *cpp_args, *language, str(path)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="surrogateescape")
    except OSError as exc:
        raise PreprocessError(f"cannot run the preprocessor {cmd[0]!r}: {exc}") from exc
    if proc.returncode != 0:
        first = next((ln for ln in proc.stderr.splitlines() if re.search(r": (fatal )?error: ", ln)),
                     proc.stderr.strip()[:300])
        raise PreprocessError(f"preprocessor failed: {first}")
    return proc.stdout
