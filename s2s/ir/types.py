"""Element types of containers: C scalar types as the IR sees them.

The IR keeps the C spelling of every type (``unsigned long``, ``int64_t``, ``struct point``) so that
emitted code declares exactly what the user wrote, and a coarse kind so analyses know what they hold.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class TypeKind(enum.Enum):
    BOOL = "bool"
    SIGNED = "signed"      # signed integer (char counts as signed here; its sign is not relied upon)
    UNSIGNED = "unsigned"
    FLOAT = "float"
    POINTER = "pointer"
    VOID = "void"
    OTHER = "other"        # struct, union, function pointer, ...: opaque to the analyses

    @property
    def is_integer(self) -> bool:
        return self in (TypeKind.BOOL, TypeKind.SIGNED, TypeKind.UNSIGNED)


@dataclass(frozen=True)
class ScalarType:
    """A C scalar type: its spelling (as written) and what it is."""

    spelling: str
    kind: TypeKind
    bits: int = 0  # 0 when unknown (typedefs of the user's)

    @property
    def is_integer(self) -> bool:
        return self.kind.is_integer

    @property
    def is_float(self) -> bool:
        return self.kind is TypeKind.FLOAT

    @property
    def wraps(self) -> bool:
        """Whether C computes with it modulo 2^n: unsigned, and not promoted to int (``size_t``,
        ``unsigned``; of unknown width, a typedef of the user's, too)."""
        return self.kind is TypeKind.UNSIGNED and (self.bits == 0 or self.bits >= 32)

    def __str__(self) -> str:
        return self.spelling


_BUILTIN: dict[str, tuple[TypeKind, int]] = {
    "_Bool": (TypeKind.BOOL, 8), "bool": (TypeKind.BOOL, 8),
    "char": (TypeKind.SIGNED, 8), "signed char": (TypeKind.SIGNED, 8), "unsigned char": (TypeKind.UNSIGNED, 8),
    "short": (TypeKind.SIGNED, 16), "unsigned short": (TypeKind.UNSIGNED, 16),
    "int": (TypeKind.SIGNED, 32), "unsigned int": (TypeKind.UNSIGNED, 32),
    "long": (TypeKind.SIGNED, 64), "unsigned long": (TypeKind.UNSIGNED, 64),
    "long long": (TypeKind.SIGNED, 64), "unsigned long long": (TypeKind.UNSIGNED, 64),
    "float": (TypeKind.FLOAT, 32), "double": (TypeKind.FLOAT, 64), "long double": (TypeKind.FLOAT, 80),
    "void": (TypeKind.VOID, 0),
    "size_t": (TypeKind.UNSIGNED, 64), "ptrdiff_t": (TypeKind.SIGNED, 64), "ssize_t": (TypeKind.SIGNED, 64),
    "int8_t": (TypeKind.SIGNED, 8), "int16_t": (TypeKind.SIGNED, 16), "int32_t": (TypeKind.SIGNED, 32),
    "int64_t": (TypeKind.SIGNED, 64), "uint8_t": (TypeKind.UNSIGNED, 8), "uint16_t": (TypeKind.UNSIGNED, 16),
    "uint32_t": (TypeKind.UNSIGNED, 32), "uint64_t": (TypeKind.UNSIGNED, 64),
    "intptr_t": (TypeKind.SIGNED, 64), "uintptr_t": (TypeKind.UNSIGNED, 64),
}

_CANONICAL = {
    "signed": "int", "signed int": "int", "unsigned": "unsigned int", "short int": "short",
    "signed short": "short", "signed short int": "short", "unsigned short int": "unsigned short",
    "long int": "long", "signed long": "long", "signed long int": "long", "unsigned long int": "unsigned long",
    "long long int": "long long", "signed long long": "long long", "signed long long int": "long long",
    "unsigned long long int": "unsigned long long", "long unsigned int": "unsigned long",
}


def scalar_type(spelling: str) -> ScalarType:
    """The ScalarType for a C type spelling; unknown names (typedefs, structs) are kind OTHER."""
    spelling = " ".join(spelling.split())
    if spelling.endswith("*"):
        return ScalarType(spelling, TypeKind.POINTER, 64)
    core = _CANONICAL.get(spelling, spelling)
    if core in _BUILTIN:
        kind, bits = _BUILTIN[core]
        return ScalarType(spelling, kind, bits)
    return ScalarType(spelling, TypeKind.OTHER, 0)


INT = scalar_type("int")
LONG = scalar_type("long")
DOUBLE = scalar_type("double")
FLOAT = scalar_type("float")
BOOL = scalar_type("_Bool")
VOID = scalar_type("void")
