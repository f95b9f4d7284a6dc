"""The CUDA back end: a region's kernels and their launches as a companion .cu unit."""
from backends.cuda.printer import PRELUDE, CudaRegion, Launch, Parameter, print_region, unit_text

__all__ = ["PRELUDE", "CudaRegion", "Launch", "Parameter", "print_region", "unit_text"]
