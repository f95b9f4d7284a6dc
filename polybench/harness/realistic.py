"""The ``realistic`` group of ``s2s bench`` (``--group realistic``): whole programs in the style
of scientific and image-processing code, ``polybench/realistic/<name>.c``, with malloc'd arrays,
pointer views, row pointers, structs and helper functions instead of PolyBench's static arrays.

Each program is one C99 file (libm only) with its own ``main``: ``<name> [N]`` runs it at size N
(its default when absent, read from ``default N = <v>`` in its first comment), prints the dump of
its results on stderr (``==BEGIN DUMP_ARRAYS==`` ... as PolyBench's ``-DPOLYBENCH_DUMP_ARRAYS``,
full precision) and the seconds of its hot work as the last line of stdout. One binary per
configuration is both verified and timed; ``--size N=v`` runs the programs at v.

Every build gets ``S2S_REPORT=1``: the lines s2s-cc writes into the build log say what it did to
each hot loop nest (``hotnests``), and the report shows, per program and configuration, the hot
nests optimized of those found, with the reasons for the others.
"""
from __future__ import annotations

import dataclasses
import os
import re
import shutil
import threading
from pathlib import Path

from . import build as _build
from . import hotnests
from .bench import Bench, Cell
from .configs import BuildRequest
from .suite import DATASETS, Kernel, Suite, SuiteError

ROOT = Path(__file__).resolve().parents[1] / "realistic"
GROUP = "realistic"
_DEFAULT_SIZE = re.compile(r"default N = (\d+)")


def load_programs(root: Path = ROOT) -> Suite:
    """The programs of the realistic group (every ``root/*.c``), by name."""
    kernels = []
    for src in sorted(Path(root).glob("*.c")):
        m = _DEFAULT_SIZE.search(src.read_text(errors="replace"))
        sizes = {"N": int(m.group(1))} if m else {}
        kernels.append(Kernel(name=src.stem, category=GROUP, directory=src.parent, source=src, header=None,
                              info=None, params=("N",), datasets={ds: dict(sizes) for ds in DATASETS},
                              standalone=True))
    if not kernels:
        raise SuiteError(f"no programs (*.c) under {root}")
    return Suite(root=Path(root), kernels=tuple(kernels), external=False, group=GROUP)


def description(kernel: Kernel) -> str:
    """The first sentence of the program's leading comment, without its name."""
    m = re.match(r"\s*/\*(.*?)(?:\n\s*\*\s*\n|\*/)", kernel.source.read_text(errors="replace"), re.S)
    text = " ".join(line.strip().lstrip("*").strip() for line in (m.group(1) if m else "").splitlines())
    text = " ".join(text.split()).removeprefix(f"{kernel.name}:").strip()
    first = text.split(". ")[0].rstrip(".")
    return first if len(first) <= 90 else first[:first.rfind(" ", 0, 88)] + " ..."


class ProgramBench(Bench):
    """``Bench`` for standalone programs: one build per cell, with ``S2S_REPORT=1``, whose
    log tells what s2s did to the program's hot nests."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._models: dict[str, list[hotnests.NestModel] | str] = {}
        self._models_lock = threading.Lock()

    def models(self, kernel: Kernel) -> list[hotnests.NestModel] | str:
        """The hot nests of ``kernel`` as s2s's front end sees them, or why they are unknown."""
        with self._models_lock:
            if kernel.name not in self._models:
                try:
                    nests = hotnests.hot_nests(kernel.source.read_text(errors="replace"))
                    self._models[kernel.name] = hotnests.nest_models(kernel.source, nests)
                except Exception as e:  # a marker without loop, a file s2s cannot parse: reported
                    self._models[kernel.name] = f"hot nests unknown: {e}"
            return self._models[kernel.name]

    def _build_cell(self, cell: Cell) -> None:
        cell.workdir = self.opt.output_dir / "build" / cell.point.dirname / cell.config.name
        if cell.workdir.exists():
            shutil.rmtree(cell.workdir)
        cell.workdir.mkdir(parents=True)
        self.progress.now("build+verify", f"{cell.point.key} {cell.config.name}: build")
        k = cell.point.kernel
        request = BuildRequest(kernel_name=k.name, kernel_source=k.source, kernel_dir=k.directory, utilities=None,
                               defines=(), output=cell.workdir / "prog", workdir=cell.workdir)
        config = dataclasses.replace(cell.config, env={**cell.config.env, "S2S_REPORT": "1"})
        result = _build.build(config, request, self.opt.timeout, cell.workdir / "build.log")
        cell.build_dump = result
        if not result.ok:
            cell.status, cell.message = "build-failed", result.message
            return
        for name in ("dump", "timed"):
            os.link(request.output, cell.workdir / name)
        if not cell.config.verify_only:
            cell.build_timed = result
        models = self.models(k)
        if isinstance(models, str):
            return
        log = Path(result.log).read_text(errors="replace") if result.log else ""
        cell.hot = hotnests.outcomes(models, k.source, log)


def summary(cells: list[Cell]) -> dict[str, int]:
    """Hot nests found and optimized over ``cells`` (those with a report), all and those marked
    affine once pointers are resolved."""
    out = {"found": 0, "optimized": 0, "affine": 0, "affine_optimized": 0}
    for c in cells:
        for o in c.hot or ():
            out["found"] += 1
            out["optimized"] += o.optimized
            out["affine"] += o.nest.affine
            out["affine_optimized"] += o.nest.affine and o.optimized
    return out
