"""The companion C++ unit of a C file: its regions' functions with Highway, each behind an
``extern "C"`` entry point that the C file calls.

Dynamic dispatch (the default): ``hwy/foreach_target.h`` includes the unit once per target that
Highway compiles for (the unit names itself in ``HWY_TARGET_INCLUDE`` and is compiled from a
directory on the include path), ``HWY_EXPORT`` makes a table of each function's versions and the
entry point calls the best one for the machine it runs on (``HWY_DYNAMIC_DISPATCH``; libhwy
says which). Static dispatch: one version, for the target the compiler flags allow (no libhwy).
"""
from __future__ import annotations

from dataclasses import dataclass

# the libraries a program with such a unit links: Highway's for dynamic dispatch, and C++'s
# and <math.h>'s (the scalar code calls it; libstdc++ needs it too, which a link does not follow)
LIBRARIES_DYNAMIC = ("hwy", "stdc++", "m")
LIBRARIES_STATIC = ("stdc++", "m")
# no exceptions or RTTI (nothing in the unit throws, and the link need not find C++'s personality
# routine); contraction into FMA as the C build's (CompanionUnit.contract_as_c): Highway's Mul and
# Add are the compiler's vector operations, which it contracts as it contracts the scalar ones
CXX_FLAGS = ("-std=c++17", "-fno-exceptions", "-fno-rtti")


@dataclass(frozen=True)
class KernelFunction:
    name: str            # the extern "C" entry point (unique in the program)
    parameters: str      # its parameter list, C++
    arguments: str       # the parameters' names, for the call of the per-target version
    body: list[str]      # the statements of the function, indented one level


def unit_text(file_name: str, namespace: str, kernels: list[KernelFunction], helpers: str,
              static: bool = False) -> str:
    """The C++ text of the unit named ``file_name``."""
    out = [f"// s2s: the Highway kernels of {file_name} (generated)",
           # (Highway 1.0 makes AVX3_DL a target only on request, yet takes it as the static
           # target where the flags allow it, as -march=native does on Sapphire Rapids; its own
           # check then fails: "best baseline should be included in dynamic targets")
           "#if defined(__AVX512VBMI2__) && defined(__AVXVNNI__) && !defined(HWY_WANT_AVX3_DL)",
           "#define HWY_WANT_AVX3_DL", "#endif"]
    if not static:
        out += ["#undef HWY_TARGET_INCLUDE", f'#define HWY_TARGET_INCLUDE "{file_name}"',
                '#include "hwy/foreach_target.h"  // IWYU pragma: keep']
    else:
        # (the one target is the one the flags allow; Highway counts AES and CLMUL, which these
        # kernels never use, as part of SSE4 and AVX2: -march=x86-64-v3 would otherwise be SSSE3)
        out += ["#ifndef HWY_DISABLE_PCLMUL_AES", "#define HWY_DISABLE_PCLMUL_AES", "#endif"]
    out += ['#include "hwy/highway.h"', "#include <math.h>", "#include <stddef.h>", "#include <stdint.h>"]
    if helpers:
        guard = f"S2S_HWY_HELPERS_{namespace.upper()}"
        # (C's helpers: what they declare inside, such as omp_get_wtime, is C's)
        out += [f"#ifndef {guard}", f"#define {guard}", 'extern "C" {', helpers.strip("\n"), "}", "#endif"]
    out += ["HWY_BEFORE_NAMESPACE();", f"namespace {namespace} {{", "namespace HWY_NAMESPACE {",
            "namespace hn = hwy::HWY_NAMESPACE;", ""]
    for k in kernels:
        out += [f"static void {k.name}_impl({k.parameters})", "{", *k.body, "}", ""]
    out += ["}  // namespace HWY_NAMESPACE", f"}}  // namespace {namespace}", "HWY_AFTER_NAMESPACE();", ""]
    if not static:
        out += ["#if HWY_ONCE", f"namespace {namespace} {{"]
        for k in kernels:
            out += [f"HWY_EXPORT({k.name}_impl);",
                    f'extern "C" __attribute__((visibility("hidden"))) void {k.name}({k.parameters})',
                    "{", f"  HWY_DYNAMIC_DISPATCH({k.name}_impl)({k.arguments});", "}"]
        out += [f"}}  // namespace {namespace}", "#endif  // HWY_ONCE"]
    else:
        for k in kernels:
            out += [f'extern "C" __attribute__((visibility("hidden"))) void {k.name}({k.parameters})',
                    "{", f"  {namespace}::HWY_NAMESPACE::{k.name}_impl({k.arguments});", "}"]
    return "\n".join(out) + "\n"
