"""Which kernels exist, where their sources are, and their problem sizes and flop counts.

Two kinds of suite:

* ours (``polybench/suite``), described by ``polybench.registry`` (params, dataset sizes, flops);
* an external PolyBench/C 4.2.1 checkout (``--suite-dir``), used unmodified: kernels are found by
  walking ``<category>/<name>/<name>.c``; registry metadata is used by name when known, and the
  dataset sizes are read from the kernel's own header (``#ifdef LARGE_DATASET ... #define N 2000``)
  so that what we report is what the binary really runs.
"""
from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")


class SuiteError(Exception):
    """The suite cannot be used at all (missing registry, missing utilities/ ...)."""


def load_registry() -> Any | None:
    """``polybench.registry`` if it is there (it is optional for an external suite)."""
    try:
        from polybench import registry  # type: ignore[attr-defined]
    except ImportError:
        return None
    return registry


@dataclass(frozen=True)
class Kernel:
    name: str
    category: str  # "linear-algebra/blas"
    directory: Path  # the folder holding <name>.c and <name>.h
    source: Path
    header: Path | None
    info: Any | None  # registry KernelInfo when known
    params: tuple[str, ...]
    datasets: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    integer: bool = False  # DATA_TYPE is int: outputs compare exactly
    # a whole program of its own (the realistic group): no polybench.c, sized by its command line
    # (its params in order), printing its dump on stderr and its time on stdout itself
    standalone: bool = False

    @property
    def relpath(self) -> str:
        return f"{self.category}/{self.name}/{self.name}.c"

    def sizes(self, dataset: str, overrides: Mapping[str, int] | None = None) -> dict[str, int]:
        """The parameter values of ``dataset`` with ``overrides`` applied ({} when unknown)."""
        base = dict(self.datasets.get(dataset, {}))
        if not base and self.info is not None:
            base = dict(self.info.datasets.get(dataset, {}))
        base.update(overrides or {})
        return base

    def flops(self, sizes: Mapping[str, int]) -> int | None:
        """Floating-point operations of one run (from the registry), None when unknown."""
        return self._count(sizes, blas=False)

    def blas_flops(self, sizes: Mapping[str, int]) -> int | None:
        """The count %peak is taken on (``KernelInfo.blas_flop_count``), None when unknown."""
        return self._count(sizes, blas=True)

    def _count(self, sizes: Mapping[str, int], blas: bool) -> int | None:
        if self.info is None or not sizes:
            return None
        try:
            return int((self.info.blas_flop_count if blas else self.info.flop_count)(dict(sizes)))
        except Exception:  # a formula over a param the external header lacks, ...
            return None


_IFDEF_DATASET = re.compile(
    r"^\s*#\s*(?:ifdef\s+(\w+)_DATASET|(?:el)?if\s+defined\s*\(?\s*(\w+)_DATASET\s*\)?)\s*(?:/\*.*)?$")
_DEFINE_INT = re.compile(r"^\s*#\s*define\s+(\w+)\s+\(?\s*(\d+)\s*\)?\s*(?:/\*.*)?$")
_ENDIF_OR_ELSE = re.compile(r"^\s*#\s*(endif|else|elif|ifdef|ifndef|if)\b")
_PARAMS_GUARD = re.compile(r"^\s*#\s*if\s+(!\s*defined\s*\(\s*\w+\s*\)(\s*&&\s*!\s*defined\s*\(\s*\w+\s*\))*)\s*$")
_INT_TYPE = re.compile(r"^\s*#\s*define\s+DATA_TYPE_IS_INT\b", re.M)


def parse_header(text: str) -> tuple[tuple[str, ...], dict[str, dict[str, int]], bool]:
    """(params, {dataset: {param: value}}, integer) read from a PolyBench kernel header."""
    datasets: dict[str, dict[str, int]] = {}
    guard_params: list[str] = []
    current: str | None = None
    for line in text.splitlines():
        m = _IFDEF_DATASET.match(line)
        if m and (m.group(1) or m.group(2)) in DATASETS:
            current = m.group(1) or m.group(2)
            datasets.setdefault(current, {})
            continue
        if current is not None:
            d = _DEFINE_INT.match(line)
            if d:
                datasets[current][d.group(1)] = int(d.group(2))
                continue
            if _ENDIF_OR_ELSE.match(line):
                current = None
            continue
        g = _PARAMS_GUARD.match(line)
        if g and not guard_params:
            names = re.findall(r"defined\s*\(\s*(\w+)\s*\)", g.group(1))
            if not any(n.endswith("_DATASET") or n.startswith("DATA_TYPE") for n in names):
                guard_params = names
    params: tuple[str, ...] = tuple(guard_params)
    if not params:
        for sizes in datasets.values():
            if sizes:
                params = tuple(sizes)
                break
    return params, datasets, bool(_INT_TYPE.search(text))


def _kernel_from_dir(directory: Path, category: str, info: Any | None, prefer_registry: bool) -> Kernel:
    name = directory.name
    header = directory / f"{name}.h"
    params: tuple[str, ...] = ()
    datasets: dict[str, dict[str, int]] = {}
    integer = False
    if header.is_file():
        params, datasets, integer = parse_header(header.read_text(errors="replace"))
    if info is not None:
        # Our suite: the registry is authoritative. External: prefer what the header says (the
        # binary runs that) and fill gaps from the registry.
        if prefer_registry or not params:
            params = tuple(info.params)
        for ds, sizes in info.datasets.items():
            if prefer_registry or not datasets.get(ds):
                datasets[ds] = dict(sizes)
    return Kernel(name=name, category=category, directory=directory, source=directory / f"{name}.c",
                  header=header if header.is_file() else None, info=info, params=params,
                  datasets=datasets, integer=integer)


@dataclass(frozen=True)
class Suite:
    root: Path
    kernels: tuple[Kernel, ...]
    external: bool  # an external checkout: its dumps may have only 2 decimals
    group: str = "polybench"  # or "realistic" (polybench/harness/realistic.py)

    @property
    def utilities(self) -> Path:
        return self.root / "utilities"

    def names(self) -> list[str]:
        return [k.name for k in self.kernels]


def load_suite(suite_dir: Path | None = None) -> Suite:
    """Our suite (through the registry) when ``suite_dir`` is None, else the external checkout."""
    registry = load_registry()
    if suite_dir is None:
        if registry is None:
            raise SuiteError("polybench/registry.py is not there (our suite is not installed); "
                             "use --suite-dir to point at a PolyBench/C 4.2.1 checkout")
        root = Path(registry.SUITE_ROOT)
        kernels = []
        for info in registry.KERNELS.values():
            src = Path(registry.kernel_source(info, root))
            kernels.append(_kernel_from_dir(src.parent, info.category, info, prefer_registry=True))
        suite = Suite(root=root, kernels=tuple(kernels), external=False)
    else:
        root = Path(suite_dir).resolve()
        known = dict(getattr(registry, "KERNELS", {}) or {}) if registry is not None else {}
        kernels = [_kernel_from_dir(d, d.parent.relative_to(root).as_posix(), known.get(d.name), False)
                   for d in discover_kernel_dirs(root)]
        order = {name: i for i, name in enumerate(known)}  # suite order for known kernels
        kernels.sort(key=lambda k: (order.get(k.name, len(order)), k.category, k.name))
        suite = Suite(root=root, kernels=tuple(kernels), external=True)
    if not (suite.utilities / "polybench.c").is_file():
        raise SuiteError(f"{suite.utilities}/polybench.c not found: not a PolyBench/C suite")
    if not suite.kernels:
        raise SuiteError(f"no kernels (<category>/<name>/<name>.c) under {suite.root}")
    return suite


def discover_kernel_dirs(root: Path) -> list[Path]:
    """Folders ``D`` under ``root`` (not utilities/) holding ``D/<basename D>.c``, in path order."""
    found = []
    for c_file in sorted(root.rglob("*.c")):
        d = c_file.parent
        rel = d.relative_to(root)
        if not rel.parts or rel.parts[0] in {"utilities", ".git"}:
            continue
        if c_file.name == f"{d.name}.c":
            found.append(d)
    return found


def select_kernels(suite: Suite, spec: str | None) -> tuple[list[Kernel], list[str]]:
    """Kernels chosen by a comma list of names or regexes (full match on the name or on
    ``category/name``), in suite order, and the items that matched nothing."""
    if not spec:
        return list(suite.kernels), []
    chosen: set[str] = set()
    unknown: list[str] = []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        hits = [k.name for k in suite.kernels if k.name == item]
        if not hits:
            try:
                rx = re.compile(item)
            except re.error:
                rx = None
            if rx is not None:
                hits = [k.name for k in suite.kernels
                        if rx.fullmatch(k.name) or rx.fullmatch(f"{k.category}/{k.name}")]
        if hits:
            chosen.update(hits)
        else:
            unknown.append(item)
    return [k for k in suite.kernels if k.name in chosen], unknown


def suggest(name: str, names: Iterable[str]) -> list[str]:
    return difflib.get_close_matches(name, list(names), n=3, cutoff=0.5)


# --- --size sweeps -------------------------------------------------------------------------------

class SizeSpecError(ValueError):
    pass


def parse_size_spec(spec: str) -> tuple[str, list[int]]:
    """``NAME=v``, ``NAME=a:b:step`` (b included when reached), ``NAME=a:b`` (step 1) or
    ``NAME=v1,v2,...`` -> (NAME, values)."""
    name, sep, rhs = spec.partition("=")
    name = name.strip()
    if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name) or not rhs.strip():
        raise SizeSpecError(f"--size {spec!r}: expected NAME=v, NAME=a:b:step or NAME=v1,v2,...")
    try:
        if ":" in rhs:
            parts = [int(p) for p in rhs.split(":")]
            if len(parts) == 2:
                parts.append(1)
            if len(parts) != 3 or parts[2] <= 0 or parts[1] < parts[0]:
                raise ValueError
            values = list(range(parts[0], parts[1] + 1, parts[2]))
        else:
            values = [int(p) for p in rhs.split(",")]
    except ValueError:
        raise SizeSpecError(f"--size {spec!r}: bad range (a:b:step with a <= b, step > 0; integers)") from None
    if any(v <= 0 for v in values):
        raise SizeSpecError(f"--size {spec!r}: sizes must be positive")
    return name, values


def sweep_points(kernel: Kernel, sweeps: Sequence[tuple[str, list[int]]]) -> list[dict[str, int]]:
    """The override dicts to run ``kernel`` at: the product of the swept params it has; [{}]
    (dataset sizes) when it has none of them."""
    mine = [(n, vals) for n, vals in sweeps if n in kernel.params]
    if not mine:
        return [{}]
    names = [n for n, _ in mine]
    return [dict(zip(names, combo)) for combo in itertools.product(*(v for _, v in mine))]
