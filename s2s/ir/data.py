"""Data containers of an SDFG: scalars, arrays and symbols, and where they live."""
from __future__ import annotations

import enum
from dataclasses import dataclass

from s2s.ir.expr import Expr
from s2s.ir.types import ScalarType


class Storage(enum.Enum):
    GLOBAL = "global"          # file-scope object (extern or static)
    STACK = "stack"            # automatic local variable (VLAs included)
    STATIC_LOCAL = "static"    # function-scope `static`
    HEAP = "heap"              # memory reached through a pointer that the function allocates
    ARGUMENT = "argument"      # a parameter (arrays: passed as a pointer)
    DEVICE = "device"          # an accelerator's global memory (a GPU's): only kernels touch it,
                               # and data reach it by DeviceCopy nodes (s2s.ir.device)


@dataclass(frozen=True)
class Scalar:
    name: str
    dtype: ScalarType
    storage: Storage
    declaration: str | None = None  # C declaration text when the type is more than a name
    address_taken: bool = False  # ``&name`` appears in the function: a pointer may reach it


@dataclass(frozen=True)
class Array:
    """A multi-dimensional array. ``shape`` entries are symbolic extents; None is an unknown extent
    (``double *A`` or the first dimension of ``double A[][N]``)."""

    name: str
    dtype: ScalarType
    shape: tuple[Expr | None, ...]
    storage: Storage
    declaration: str | None = None
    # An array object of its own (``double A[N]`` declared at file scope or in the function), not
    # a parameter or a pointer: no other declared array overlaps it.
    is_object: bool = False
    # How many leading subscripts select a pointer loaded from memory (``float **rows``: 1). Rows
    # reached so may overlap one another, which the model cannot see.
    row_pointers: int = 0
    # a pointer parameter the function assigns (``if (!work) work = buf;``): it may point
    # anywhere, a local array of the function's included, as a local pointer may
    reassigned: bool = False

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class Symbol:
    """An integer parameter (``int n``) never written in the function: loop bounds and subscripts
    may be affine in it."""

    name: str
    dtype: ScalarType
    storage: Storage = Storage.ARGUMENT
    declaration: str | None = None


Data = Scalar | Array | Symbol
