"""The OpenMP back end: the C back end plus ``#pragma omp parallel for`` / ``simd`` on Maps."""
from backends.openmp.printer import OpenMPPrinter

__all__ = ["OpenMPPrinter"]
