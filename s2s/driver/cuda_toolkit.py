"""Where the CUDA toolkit of an ``nvcc`` keeps its runtime library, for the link of a program
whose objects carry a CUDA unit (its ``cudart`` mark, companion_units.py)."""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Sequence


@functools.lru_cache(maxsize=8)
def library_dir(nvcc: Sequence[str] = ("nvcc",)) -> str | None:
    """The directory of ``libcudart`` for ``nvcc``: the one nvcc itself links from (its dry run
    says: ``nvcc`` is often a wrapper script, whose own directory says nothing), else
    ``$CUDA_HOME/lib64``, else ``/usr/local/cuda/lib64``; None where none holds it."""
    candidates: list[str] = []
    if shutil.which(nvcc[0]):
        try:
            proc = subprocess.run([*nvcc, "--dryrun", "-c", "s2s.cu"], capture_output=True, text=True, timeout=20,
                                  stdin=subprocess.DEVNULL)
            for match in re.finditer(r'-L"?([^"\s]+)', proc.stdout + proc.stderr):
                if not match.group(1).rstrip("/").endswith("stubs"):
                    candidates.append(match.group(1))
        except (OSError, subprocess.SubprocessError):
            pass
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            candidates += [os.path.join(home, "lib64"), os.path.join(home, "lib")]
    for d in candidates:
        if any(os.path.exists(os.path.join(d, name)) for name in ("libcudart.so", "libcudart.a", "libcudart.dylib")):
            return os.path.normpath(d)
    return None


def link_flags(nvcc: Sequence[str] = ("nvcc",)) -> list[str]:
    """``-L`` and a run path for ``-lcudart`` (none where the library is not found: the link says)."""
    d = library_dir(tuple(nvcc))
    return [f"-L{d}", f"-Wl,-rpath,{d}"] if d else []
