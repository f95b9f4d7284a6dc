"""A busy machine on request: processes that spin at normal priority while the benchmark runs,
as another build or job would (``s2s bench --busy N``). Baseline and optimized builds run under
the same load, so their ratio says how a program copes with cores it does not have to itself."""
from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager
from typing import Iterator, List

_SPIN = "while True:\n    pass\n"


@contextmanager
def competing_load(processes: int) -> Iterator[List[int]]:
    """Spin ``processes`` interpreters for the body's duration; yields their process ids."""
    spinners = [subprocess.Popen([sys.executable, "-c", _SPIN], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for _ in range(processes)]
    try:
        yield [p.pid for p in spinners]
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait()
