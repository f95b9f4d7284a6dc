"""The driver: ``s2s-cc`` (``s2s.driver.cc``) and the optimization pipeline behind it and ``s2s opt``.

Public names, imported on first use so that ``s2s-cc`` stays cheap to start:

* ``optimize_c_file``, ``PipelineOptions``, ``PipelineResult`` (``s2s.driver.pipeline``)
* ``parse_command_line``, ``CommandLine`` (``s2s.driver.command_line``)
* ``DriverSettings``, ``resolve_settings`` (``s2s.driver.settings``)
* ``cc_main``: the ``s2s-cc`` entry point, ``cc_main(argv) -> exit status``
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "optimize_c_file": ("s2s.driver.pipeline", "optimize_c_file"),
    "PipelineOptions": ("s2s.driver.pipeline", "PipelineOptions"),
    "PipelineResult": ("s2s.driver.pipeline", "PipelineResult"),
    "parse_command_line": ("s2s.driver.command_line", "parse"),
    "CommandLine": ("s2s.driver.command_line", "CommandLine"),
    "DriverSettings": ("s2s.driver.settings", "DriverSettings"),
    "resolve_settings": ("s2s.driver.settings", "resolve"),
    "cc_main": ("s2s.driver.cc", "main"),
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 's2s.driver' has no attribute {name!r}") from None
    return getattr(importlib.import_module(module), attr)
