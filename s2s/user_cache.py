"""Where s2s keeps what it measured or made for this user: the machine profile, the recipe
database, ``s2s-cc``'s optimized files."""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def cache_dir(env: Mapping[str, str] = os.environ) -> Path:
    """``$S2S_CACHE_DIR``, else ``$XDG_CACHE_HOME/s2s``, else ``~/.cache/s2s``."""
    if env.get("S2S_CACHE_DIR"):
        return Path(env["S2S_CACHE_DIR"]).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "s2s"
