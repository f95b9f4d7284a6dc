"""The LLVM IR front end: the functions of a ``.ll``/``.bc`` module that have C's shape, as C that
the C front end lifts; the rest of the module as LLVM IR (docs/llvm-frontend.md).

* ``read_module(path)``: the module, prepared and read into a small model (module.py)
* ``lift_module(path) -> LiftedModule``: its C text, the functions lifted, those refused and why,
  and the rest of the module (lift.py)
* ``LLVMReadError``, ``LiftRefused``: a module LLVM cannot read; a function that does not lift
"""
from frontends.llvm.lift import LiftedModule, lift_module
from frontends.llvm.module import LLVMReadError, read_module
from frontends.llvm.to_c import LiftRefused

__all__ = ["LLVMReadError", "LiftRefused", "LiftedModule", "lift_module", "read_module"]
