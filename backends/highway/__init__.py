"""The Highway back end (docs/highway.md): the optimized regions as C++ functions of a companion
unit, their independent innermost loops as Highway vector code, called from the C file."""
from backends.highway.printer import HighwayOpenMPPrinter, HighwayPrinter
from backends.highway.unit import CXX_FLAGS, LIBRARIES_DYNAMIC, LIBRARIES_STATIC, KernelFunction, unit_text

__all__ = ["CXX_FLAGS", "HighwayOpenMPPrinter", "HighwayPrinter", "KernelFunction", "LIBRARIES_DYNAMIC",
           "LIBRARIES_STATIC", "unit_text"]
