"""Object files of LLVM modules, made by the LLVM that llvmlite carries (the rest of a module whose
functions moved to C is in that LLVM's text, which an older clang may not read)."""
from __future__ import annotations

from pathlib import Path

from frontends.llvm.module import without_ignored_features
from s2s.errors import S2SError


def emit_object(ir_text: str, path: str | Path, optimization: int = 2, march: str = "") -> None:
    """Compile ``ir_text`` for this machine (``-O<optimization>``) into the object file ``path``;
    ``march``: the processor the user's ``-march=`` names (``native``: this host's), for the
    functions whose attributes name none (flang's)."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    try:
        module = llvm.parse_assembly(ir_text)
        module.verify()
    except RuntimeError as exc:
        raise S2SError(f"the rest of the module does not verify: {str(exc).strip().splitlines()[0]}") from None
    cpu, features = "", ""
    if march == "native":
        cpu, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    elif march:
        cpu = march
    machine = llvm.Target.from_default_triple().create_target_machine(cpu=cpu, features=features, opt=optimization,
                                                                     reloc="pic", codemodel="default")
    options = llvm.create_pipeline_tuning_options(speed_level=optimization)
    options.slp_vectorization = optimization >= 2   # (as clang's -O2)
    builder = llvm.create_pass_builder(machine, options)
    with without_ignored_features():
        builder.getModulePassManager().run(module, builder)
        Path(path).write_bytes(machine.emit_object(module))
