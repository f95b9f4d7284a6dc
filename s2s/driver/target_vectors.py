"""What the user's compile flags say of the target's vector registers.

The matrix-multiply kernels are blocked for a register file (s2s/schedule/matmul.py): their GNU
vector types are as wide as the target's vectors, and their blocks fill its registers. This
machine's (sysfs) are the default; but a build for another target (``-march=x86-64-v3`` on an
AVX-512 machine, a baseline ``-O2`` that is SSE2, a cross compiler) must get that target's
blocking, or each vector operation is split in two or four and the block spills. The real
compiler predefines the ISA's macros for the user's flags (``cc -dM -E``).
"""
from __future__ import annotations

import functools
import os
import subprocess
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class VectorRegisters:
    bytes: int       # one vector register's width
    count: int       # how many the compiler may allocate


# The widest vector ISA each macro stands for, widest first: (macro, width in bytes, registers)
_ISAS = (("__AVX512F__", 64, 32), ("__AVX__", 32, 16), ("__SSE2__", 16, 16),
         ("__ARM_NEON", 16, 32), ("__ALTIVEC__", 16, 32), ("__riscv_vector", 16, 32))


def target_flags(compile_args: Sequence[str]) -> tuple[str, ...]:
    """Those of the user's flags that choose the target's instruction set (and the language mode,
    which some macros depend on)."""
    return tuple(a for a in compile_args if a.startswith(("-m", "-std=", "-ansi", "-f", "--target=")))


def predefined_macros(compiler: Sequence[str], flags: Sequence[str], env: dict | None = None) -> str:
    """The compiler's predefined macros for ``flags`` (``#define`` lines; empty where it cannot tell)."""
    return _macros(tuple(compiler), tuple(flags), tuple(sorted(env.items())) if env is not None else None)


@functools.lru_cache(maxsize=32)
def _macros(compiler: tuple[str, ...], flags: tuple[str, ...], env: tuple | None) -> str:
    try:
        proc = subprocess.run([*compiler, *flags, "-dM", "-E", "-x", "c", os.devnull],
                              env=dict(env) if env is not None else None, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout if proc.returncode == 0 else ""


def vector_registers(compiler: Sequence[str], flags: Sequence[str], env: dict | None = None) -> VectorRegisters | None:
    """The vector registers of the target ``flags`` compile for; None where the macros do not
    say (another compiler, an ISA not listed): this machine's then."""
    defined = {line.split()[1] for line in predefined_macros(compiler, flags, env).splitlines()
               if line.startswith("#define ") and len(line.split()) > 1}
    for macro, width, count in _ISAS:
        if macro in defined:
            return VectorRegisters(width, count)
    return None
