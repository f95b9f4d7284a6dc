"""Registry of the s2s PolyBench/C 4.2.1-compatible kernel suite.

The C sources live under ``polybench/suite`` (``SUITE_ROOT``) in the same tree
layout as the real PolyBench/C 4.2.1 distribution::

    utilities/polybench.h, utilities/polybench.c
    <category>/<name>/<name>.c, <category>/<name>/<name>.h

so a harness can point ``root`` at either this suite or a user's checkout of
the real one.  A kernel is built with::

    cc -O3 -I utilities -I <category>/<name> utilities/polybench.c \\
       <category>/<name>/<name>.c -D<DATASET>_DATASET -DPOLYBENCH_TIME -o x -lm

and its problem sizes can be overridden by defining *all* of its parameters on
the command line (``-DNI=512 -DNJ=512 -DNK=512``).  With
``-DPOLYBENCH_DUMP_ARRAYS`` the arrays named in ``KernelInfo.arrays`` are
dumped on stderr; ``-DPOLYBENCH_DUMP_FULL_PRECISION`` (an s2s extension)
prints them with ``%.17g`` instead of two decimals.

Floating-point operation counts (``KernelInfo.flops``)
------------------------------------------------------
``flops`` is a Python arithmetic expression over the kernel's parameters that
gives the exact number of operations executed between ``#pragma scop`` and
``#pragma endscop`` of our source, counted as follows:

* every binary ``+ - * /`` on data values counts 1, including the arithmetic
  of compound assignments (``x += a*b`` is 2); every ``sqrt``, ``exp`` and
  ``pow`` call counts 1;
* each operation is counted every time it is executed as written: no common
  subexpressions are merged and nothing is hoisted out of loops (adi's
  ``1.0 + 2.0*d`` costs 2 in every iteration), the scalar set-up code before
  the loops (deriche's and adi's coefficients) is included;
* a comparison of data values counts 1: the ``<``/``?:`` of floyd-warshall
  (whose ``path[i][k] + path[k][j]`` is counted once, as in ``min(a, b + c)``),
  each ``max_score`` of nussinov, correlation's ``stddev <= eps`` test;
  nussinov's ``match(b1, b2)`` is an add and a comparison (2);
* not counted: unary minus, casts, copies and plain stores, integer index and
  loop arithmetic, and the guards on indices (nussinov's ``j-1 >= 0``).

floyd-warshall and nussinov work on ``int`` data by default, so their count is
of integer operations; the rule is the same.

The counts are derived from the loop nests by hand (see the per-kernel
comments below) and are checked against a literal walk of the loops in
``tests/test_polybench_suite.py``.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = [
    "DATASETS",
    "SUITE_ROOT",
    "KernelInfo",
    "KERNELS",
    "kernel_source",
    "sizes_for",
]

DATASETS: tuple[str, ...] = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")

SUITE_ROOT: Path = Path(__file__).resolve().parent / "suite"


class _FrozenMap(Mapping):
    """A small read-only, hashable, picklable mapping."""

    __slots__ = ("_d",)

    def __init__(self, data: Mapping | None = None) -> None:
        self._d = dict(data or {})

    def __getitem__(self, key):
        return self._d[key]

    def __iter__(self) -> Iterator:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        return hash(tuple(self._d.items()))

    def __repr__(self) -> str:
        return repr(self._d)

    def __reduce__(self):
        return (_FrozenMap, (self._d,))


@lru_cache(maxsize=None)
def _compile_flops(expr: str):
    return compile(expr, f"<flops {expr}>", "eval")


@dataclass(frozen=True)
class KernelInfo:
    """Static description of one kernel of the suite."""

    name: str                                   # "gemm"
    category: str                               # "linear-algebra/blas"
    params: tuple[str, ...]                     # ("NI", "NJ", "NK")
    datasets: Mapping[str, Mapping[str, int]]   # "MINI" -> {"NI": 20, ...}
    flops: str                                  # expression over params
    arrays: tuple[str, ...]                     # arrays dumped by print_array
    # The matrix products' count by the BLAS convention (2 per multiply-add of a product,
    # alpha and beta once per element), which %peak uses; None: the same as ``flops``.
    blas_flops: str | None = None

    def __hash__(self) -> int:
        return hash((self.name, self.category))

    def flop_count(self, sizes: Mapping[str, int]) -> int:
        """Operation count of the kernel region for the given sizes
        (``sizes`` must give every parameter; extra keys are ignored)."""
        return self._count(self.flops, sizes)

    def blas_flop_count(self, sizes: Mapping[str, int]) -> int:
        """The operation count %peak is taken on: ``flop_count`` but for the matrix
        products, counted as BLAS counts them."""
        return self._count(self.blas_flops or self.flops, sizes)

    def _count(self, formula: str, sizes: Mapping[str, int]) -> int:
        missing = [p for p in self.params if p not in sizes]
        if missing:
            raise KeyError(f"{self.name}: missing size parameter(s) {missing}")
        env = {p: int(sizes[p]) for p in self.params}
        value = eval(_compile_flops(formula), {"__builtins__": {}}, env)
        if isinstance(value, float):
            if not value.is_integer():
                raise ValueError(f"{self.name}: flop formula gave a non-integer {value}")
            value = int(value)
        return int(value)

    @property
    def relpath(self) -> str:
        """Path of the kernel's C file relative to the suite root."""
        return f"{self.category}/{self.name}/{self.name}.c"


def _kernel(name: str, category: str, params: tuple[str, ...],
            sizes: tuple[tuple[int, ...], ...], flops: str,
            arrays: tuple[str, ...], blas_flops: str | None = None) -> KernelInfo:
    assert len(sizes) == len(DATASETS)
    datasets = {}
    for ds, values in zip(DATASETS, sizes):
        assert len(values) == len(params), (name, ds)
        datasets[ds] = _FrozenMap(dict(zip(params, values)))
    return KernelInfo(name=name, category=category, params=params,
                      datasets=_FrozenMap(datasets), flops=flops, arrays=arrays,
                      blas_flops=blas_flops)


_MN_SQUARE = ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))
_N_SOLVER = ((40,), (120,), (400,), (2000,), (4000,))

_KERNEL_LIST = (
    # ---------------------------------------------------------------- datamining
    # mean M(N+1); stddev M(4N+3) (incl. sqrt and the eps comparison);
    # normalisation 4NM (-=, sqrt, *, /=); corr: M(M-1)/2 pairs x 2N.
    _kernel("correlation", "datamining", ("M", "N"),
            ((28, 32), (80, 100), (240, 260), (1200, 1400), (2600, 3000)),
            "M*(N+1) + M*(4*N+3) + 4*N*M + M*(M-1)*N",
            ("corr",)),
    # mean M(N+1); centring NM; cov: M(M+1)/2 pairs x (2N + 2).
    _kernel("covariance", "datamining", ("M", "N"),
            ((28, 32), (80, 100), (240, 260), (1200, 1400), (2600, 3000)),
            "M*(N+1) + N*M + M*(M+1)*(N+1)",
            ("cov",)),
    # ------------------------------------------------------- linear-algebra/blas
    # beta scaling NI*NJ; C += alpha*A*B: 3 per (i,k,j).
    _kernel("gemm", "linear-algebra/blas", ("NI", "NJ", "NK"),
            ((20, 25, 30), (60, 70, 80), (200, 220, 240), (1000, 1100, 1200),
             (2000, 2300, 2600)),
            "NI*NJ + 3*NI*NJ*NK",
            ("C",),
            blas_flops="2*NI*NJ + 2*NI*NJ*NK"),
    # rank-2 update 4N^2, x += beta*A^T*y 3N^2, x += z N, w += alpha*A*x 3N^2.
    _kernel("gemver", "linear-algebra/blas", ("N",),
            ((40,), (120,), (400,), (2000,), (4000,)),
            "10*N*N + N",
            ("w",)),
    # 4 per (i,j); alpha*tmp + beta*y 3 per i.
    _kernel("gesummv", "linear-algebra/blas", ("N",),
            ((30,), (90,), (250,), (1300,), (2800,)),
            "4*N*N + 3*N",
            ("y",)),
    # per (i,j): 5 per k < i, then 6.
    _kernel("symm", "linear-algebra/blas", ("M", "N"), _MN_SQUARE,
            "N*(5*M*(M-1)//2 + 6*M)",
            ("C",),
            blas_flops="2*M*N + 2*M*M*N"),
    # per (i, j<=i): 1 scaling + 6 per k.
    _kernel("syr2k", "linear-algebra/blas", ("M", "N"), _MN_SQUARE,
            "N*(N+1)//2*(6*M+1)",
            ("C",),
            blas_flops="N*(N+1)*(2*M+1)"),
    # per (i, j<=i): 1 scaling + 3 per k.
    _kernel("syrk", "linear-algebra/blas", ("M", "N"), _MN_SQUARE,
            "N*(N+1)//2*(3*M+1)",
            ("C",),
            blas_flops="N*(N+1)//2*(2*M+2)"),
    # per (i,j): 2 per k > i, then 1.
    _kernel("trmm", "linear-algebra/blas", ("M", "N"), _MN_SQUARE,
            "M*M*N",
            ("B",)),
    # ---------------------------------------------------- linear-algebra/kernels
    # tmp += alpha*A*B: 3 per (i,j,k); D *= beta, D += tmp*C: 1 + 2NJ per (i,j).
    _kernel("2mm", "linear-algebra/kernels", ("NI", "NJ", "NK", "NL"),
            ((16, 18, 22, 24), (40, 50, 70, 80), (180, 190, 210, 220),
             (800, 900, 1100, 1200), (1600, 1800, 2200, 2400)),
            "3*NI*NJ*NK + NI*NL*(2*NJ+1)",
            ("D",),
            blas_flops="NI*NJ*(2*NK+1) + NI*NL*(2*NJ+1)"),
    _kernel("3mm", "linear-algebra/kernels", ("NI", "NJ", "NK", "NL", "NM"),
            ((16, 18, 20, 22, 24), (40, 50, 60, 70, 80), (180, 190, 200, 210, 220),
             (800, 900, 1000, 1100, 1200), (1600, 1800, 2000, 2200, 2400)),
            "2*NI*NJ*NK + 2*NJ*NL*NM + 2*NI*NL*NJ",
            ("G",)),
    _kernel("atax", "linear-algebra/kernels", ("M", "N"),
            ((38, 42), (116, 124), (390, 410), (1900, 2100), (1800, 2200)),
            "4*M*N",
            ("y",)),
    _kernel("bicg", "linear-algebra/kernels", ("M", "N"),
            ((38, 42), (116, 124), (390, 410), (1900, 2100), (1800, 2200)),
            "4*M*N",
            ("s", "q")),
    _kernel("doitgen", "linear-algebra/kernels", ("NQ", "NR", "NP"),
            ((8, 10, 12), (20, 25, 30), (40, 50, 60), (140, 150, 160), (220, 250, 270)),
            "2*NR*NQ*NP*NP",
            ("A",)),
    _kernel("mvt", "linear-algebra/kernels", ("N",),
            ((40,), (120,), (400,), (2000,), (4000,)),
            "4*N*N",
            ("x1", "x2")),
    # ---------------------------------------------------- linear-algebra/solvers
    # row i: sum_{j<i} (2j+1) = i^2, diagonal 2i + sqrt -> (i+1)^2.
    _kernel("cholesky", "linear-algebra/solvers", ("N",), _N_SOLVER,
            "N*(N+1)*(2*N+1)//6",
            ("A",)),
    # step k: beta 3, dot product 2k, alpha 2, update 2k.
    _kernel("durbin", "linear-algebra/solvers", ("N",), _N_SOLVER,
            "(N-1)*(2*N+5)",
            ("y",)),
    # column k: norm 2M, sqrt 1, scaling M, then 4M per later column.
    _kernel("gramschmidt", "linear-algebra/solvers", ("M", "N"), _MN_SQUARE,
            "N*(3*M+1) + 2*M*N*(N-1)",
            ("R", "Q")),
    # row i: L part i^2, U part 2i(N-i).
    _kernel("lu", "linear-algebra/solvers", ("N",), _N_SOLVER,
            "N*N*(N-1) - N*(N-1)*(2*N-1)//6",
            ("A",)),
    # lu, then forward N(N-1) and back substitution N(N-1) + N.
    _kernel("ludcmp", "linear-algebra/solvers", ("N",), _N_SOLVER,
            "N*N*(N-1) - N*(N-1)*(2*N-1)//6 + 2*N*(N-1) + N",
            ("x",)),
    # row i: 2i + 1.
    _kernel("trisolv", "linear-algebra/solvers", ("N",), _N_SOLVER,
            "N*N",
            ("x",)),
    # ------------------------------------------------------------------- medley
    # coefficients 27; four recursive passes 7WH each; two sums 2WH each.
    _kernel("deriche", "medley", ("W", "H"),
            ((64, 64), (192, 128), (720, 480), (4096, 2160), (7680, 4320)),
            "32*W*H + 27",
            ("imgOut",)),
    # one add and one comparison per (k,i,j).
    _kernel("floyd-warshall", "medley", ("N",),
            ((60,), (180,), (500,), (2800,), (5600,)),
            "2*N*N*N",
            ("path",)),
    # per pair i<j: 2 max; then 4 (j >= i+2: match 2, add, max) or 1 (j = i+1);
    # then 2 (add, max) per k in (i, j).
    _kernel("nussinov", "medley", ("N",),
            ((60,), (180,), (500,), (2500,), (5500,)),
            "N*(N-1) + 2*(N-1)*(N-2) + (N-1) + N*(N-1)*(N-2)//3",
            ("table",)),
    # ----------------------------------------------------------------- stencils
    # set-up 13; per step two sweeps of (N-2) lines x (N-2) x (15 + 2).
    _kernel("adi", "stencils", ("TSTEPS", "N"),
            ((20, 20), (40, 60), (100, 200), (500, 1000), (1000, 2000)),
            "TSTEPS*34*(N-2)*(N-2) + 13",
            ("u",)),
    _kernel("fdtd-2d", "stencils", ("TMAX", "NX", "NY"),
            ((20, 20, 30), (40, 60, 80), (100, 200, 240), (500, 1000, 1200),
             (1000, 2000, 2600)),
            "TMAX*(3*(NX-1)*NY + 3*NX*(NY-1) + 5*(NX-1)*(NY-1))",
            ("ex", "ey", "hz")),
    # 15 per interior point and half step.
    _kernel("heat-3d", "stencils", ("TSTEPS", "N"),
            ((20, 10), (40, 20), (100, 40), (500, 120), (1000, 200)),
            "TSTEPS*30*(N-2)*(N-2)*(N-2)",
            ("A",)),
    _kernel("jacobi-1d", "stencils", ("TSTEPS", "N"),
            ((20, 30), (40, 120), (100, 400), (500, 2000), (1000, 4000)),
            "TSTEPS*6*(N-2)",
            ("A",)),
    _kernel("jacobi-2d", "stencils", ("TSTEPS", "N"),
            ((20, 30), (40, 90), (100, 250), (500, 1300), (1000, 2800)),
            "TSTEPS*10*(N-2)*(N-2)",
            ("A",)),
    _kernel("seidel-2d", "stencils", ("TSTEPS", "N"),
            ((20, 40), (40, 120), (100, 400), (500, 2000), (1000, 4000)),
            "TSTEPS*9*(N-2)*(N-2)",
            ("A",)),
)

KERNELS: dict[str, KernelInfo] = {k.name: k for k in _KERNEL_LIST}


def kernel_source(info: KernelInfo, root: Path = SUITE_ROOT) -> Path:
    """Path of ``info``'s C file under ``root`` (this suite by default, or the
    top directory of a PolyBench/C 4.2.1 checkout)."""
    return Path(root) / info.relpath


def _dataset_name(dataset: str) -> str:
    name = dataset.strip().upper()
    if name.endswith("_DATASET"):
        name = name[: -len("_DATASET")]
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; expected one of {DATASETS}")
    return name


def sizes_for(info: KernelInfo, dataset: str,
              overrides: Mapping[str, int] | None = None) -> dict[str, int]:
    """Parameter values of ``info`` for ``dataset`` ("MINI" ... "EXTRALARGE",
    case-insensitive), with ``overrides`` (a subset of the parameters)
    replacing the suite's values."""
    sizes = dict(info.datasets[_dataset_name(dataset)])
    for key, value in (overrides or {}).items():
        if key not in info.params:
            raise KeyError(f"{info.name} has no parameter {key!r}; "
                           f"parameters are {info.params}")
        value = int(value)
        if value <= 0:
            raise ValueError(f"{info.name}: {key} must be positive, got {value}")
        sizes[key] = value
    return sizes
