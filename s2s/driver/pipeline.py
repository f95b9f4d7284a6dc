"""The optimization pipeline behind ``s2s opt`` and ``s2s-cc``: C file in, C text out.

PLACEHOLDER BODY: the contract (names, types) is fixed; the body is being written.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence


@dataclass(frozen=True)
class PipelineOptions:
    """What the user asked for (flags first, then S2S_* environment variables, then defaults)."""

    # "identity": lift every function to the IR and regenerate every liftable loop nest from it
    # (no transformation); "off": return the file unchanged without parsing it.
    mode: str = "identity"
    target: str = "c"
    report: bool = False
    compiler: str = "cc"  # the real compiler, used for preprocessing


@dataclass
class PipelineResult:
    source: str  # C text to compile in place of the user's file (starts with a #line directive)
    changed: bool  # whether any region differs from the user's file
    report: list[str] = field(default_factory=list)  # one line per loop nest, for --s2s-report
    ir_json: str | None = None


def optimize_c_file(path: Path, cpp_args: Sequence[str], options: PipelineOptions) -> PipelineResult:
    """Optimize one C file. ``cpp_args`` are the user's preprocessor flags (-D -U -I -include -std ...).

    Raises ``s2s.errors.S2SError`` (or anything else on an internal bug): callers fall back.
    """
    text = Path(path).read_text()
    return PipelineResult(source=f'#line 1 "{path}"\n' + text, changed=False)
