"""s2s's PolyBench/C 4.2.1-compatible kernel suite: the C sources under
``polybench/suite`` and their registry (sizes, flop counts, dumped arrays)."""
from .registry import (
    DATASETS,
    KERNELS,
    SUITE_ROOT,
    KernelInfo,
    kernel_source,
    sizes_for,
)

__all__ = [
    "DATASETS",
    "SUITE_ROOT",
    "KernelInfo",
    "KERNELS",
    "kernel_source",
    "sizes_for",
]
