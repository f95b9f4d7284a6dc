"""s2s.perf: machine benchmarks and roofline profiling.

    from s2s import perf
    m = perf.get_machine()                      # this host's profile (cached; measured once)
    m.peak("fp64"), m.bandwidth("DRAM")         # ceilings, 1 thread
    r = perf.run_profile(perf.ProfileOptions(source=Path("prog.c"), optimized=True), m)
    perf.features("prog.c", profile=r)          # one stable vector per loop nest

Modules (one idea each): ``topology`` (sysfs and /proc), ``microbench`` (our C kernels, built and
run), ``bounds`` (what the hardware can deliver), ``machine`` (measure, check, cache, the
``s2s machine`` table), ``opcount`` (FLOPs and bytes of a statement from its expression tree),
``footprint`` (the isl view of a loop nest), ``instrument`` (timing and counting builds),
``profile`` (the ``s2s profile`` run), ``roofline`` (ceilings and bounds), ``report`` (table, JSON,
CSV), ``plot`` (roofline plots), ``features`` (feature vectors). The C sources are in ``kernels/``.

Heavy dependencies (islpy, matplotlib) load with the modules that need them.
"""
from __future__ import annotations

__all__ = [
    "get_machine", "measure", "MachineProfile", "run_profile", "ProfileOptions", "ProfileResult", "features",
    "FEATURE_FIELDS", "FEATURE_NAMES", "FEATURES_VERSION", "Ceilings", "classify", "write_roofline",
]

# The function, not the submodule of the same name, is ``s2s.perf.features`` (bound here, after the
# submodule's import has set the attribute to the module).
from s2s.perf.features import FEATURE_FIELDS, FEATURE_NAMES, FEATURES_VERSION, features  # noqa: E402

_LAZY = {
    "get_machine": "s2s.perf.machine", "measure": "s2s.perf.machine", "MachineProfile": "s2s.perf.machine",
    "run_profile": "s2s.perf.profile", "ProfileOptions": "s2s.perf.profile", "ProfileResult": "s2s.perf.profile",
    "Ceilings": "s2s.perf.roofline", "classify": "s2s.perf.roofline",
    "write_roofline": "s2s.perf.plot",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 's2s.perf' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
