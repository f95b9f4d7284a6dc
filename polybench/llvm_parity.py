"""Whether the LLVM front end leads the optimizer to the C front end's decisions on PolyBench.

    python -m polybench.llvm_parity [--dataset LARGE] [--kernels gemm,lu] [--clang clang-14] [--way constants]

Each kernel is optimized twice with ``s2s opt --report``: from its C source, and from the module
clang makes of it with the flags of s2s-cc's LLVM way (``s2s.driver.llvm_modules.CLANG_FLAGS``);
with ``--way constants``, from the C source with constant loop bounds instead (what clang makes
of the static kernels). The kernel function's report lines are compared on what they decide:
optimized or kept, the bands, the tile sizes, the matrix-multiply statements, the unroll-and-jam
factor (not the seconds, the statement counts or the run-time tests, which the two ways word
differently).
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from polybench.registry import KERNELS, SUITE_ROOT, kernel_source
from s2s.driver.llvm_modules import CLANG_FLAGS

S2S = str(Path(sys.executable).with_name("s2s"))


def decisions(stderr: str, kernel: str) -> list[str]:
    """What the report lines of ``kernel``'s function decide, one string per SCoP, sorted."""
    function = "kernel_" + kernel.replace("-", "_")
    out = []
    for line in stderr.splitlines():
        if " recipe " in line or function not in line:
            continue
        m = re.search(r"SCoP at \S+ (.*)$", line)
        if m is None:
            continue
        text = m.group(1)
        bands = re.search(r"bands of (?:none|[0-9]+(?:, [0-9]+)*)", text)
        tiles = re.findall(r"tiles \d+(?:x\d+)*", text)
        kernels = re.search(r"\d+ matrix-multiply", text)
        jam = re.search(r"unroll-and-jam \d+", text)
        out.append(" ".join(filter(None, ["optimized" if text.startswith("optimized") else "kept",
                                           bands and bands.group(0), ",".join(tiles),
                                           kernels and kernels.group(0), jam and jam.group(0)])))
    return sorted(out)


def _from_c(kernel: str, flags: list[str], out: Path) -> list[str]:
    source = kernel_source(KERNELS[kernel])
    made = subprocess.run([S2S, "opt", str(source), "-o", str(out), "--report", "--cc", "cc " + " ".join(flags)],
                          capture_output=True, text=True)
    return decisions(made.stderr, kernel)


def compare(kernel: str, dataset: str, clang: str, tmp: Path, way: str = "llvm") -> tuple[list[str], list[str]]:
    """The decisions from the C source, and those the other way: through LLVM IR, or (``way``
    ``constants``) from the C source with its sizes as constants in the loop bounds
    (``POLYBENCH_USE_SCALAR_LB``, what clang propagates into the static kernels)."""
    source = kernel_source(KERNELS[kernel])
    flags = [f"-D{dataset}_DATASET", f"-I{SUITE_ROOT / 'utilities'}", f"-I{source.parent}"]
    from_c = _from_c(kernel, flags, tmp / f"{kernel}.c")
    if way == "constants":
        return from_c, _from_c(kernel, [*flags, "-DPOLYBENCH_USE_SCALAR_LB"], tmp / f"{kernel}.lb.c")
    module = tmp / f"{kernel}.ll"
    subprocess.run([clang, *CLANG_FLAGS, *flags, "-S", "-emit-llvm", str(source), "-o", str(module)], check=True)
    from_llvm = subprocess.run([S2S, "opt", str(module), "-o", str(tmp / f"{kernel}.ll.c"), "--report"],
                               capture_output=True, text=True)
    return from_c, decisions(from_llvm.stderr, kernel)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m polybench.llvm_parity", description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="LARGE")
    parser.add_argument("--kernels", default="", help="comma-separated (default: all 30)")
    parser.add_argument("--clang", default=shutil.which("clang") or shutil.which("clang-14") or "clang")
    parser.add_argument("--way", choices=("llvm", "constants"), default="llvm",
                        help="what to compare the C source's decisions with (default: through LLVM IR)")
    args = parser.parse_args(argv)
    kernels = [k for k in args.kernels.split(",") if k] or list(KERNELS)
    same = 0
    with tempfile.TemporaryDirectory(prefix="s2s-parity-") as tmp:
        for kernel in kernels:
            c, llvm = compare(kernel, args.dataset, args.clang, Path(tmp), args.way)
            alike = c == llvm and bool(c)
            same += alike
            print(f"{kernel:16s} {'same' if alike else 'differs'}", flush=True)
            if not alike:
                print(f"    C:    {c}\n    {'LLVM' if args.way == 'llvm' else 'sizes'}: {llvm}")
    print(f"same decisions: {same}/{len(kernels)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
