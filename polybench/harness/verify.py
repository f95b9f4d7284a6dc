"""Parsing ``-DPOLYBENCH_DUMP_ARRAYS`` output and comparing two dumps.

The dump (on stderr) is::

    ==BEGIN DUMP_ARRAYS==
    begin dump: C
    0.5 1.25 ...
    end   dump: C
    ==END   DUMP_ARRAYS==

Values are ``%.17g`` with our ``-DPOLYBENCH_DUMP_FULL_PRECISION``. The real suite ignores that
define and prints ``%0.2lf`` (2 decimals): an external tree's verification build is compiled with
the ``fprintf`` shim of ``dump_shim`` instead, which re-prints its values with ``%.17g`` and writes
``dump_shim.MARKER`` before the dump. A dump without that marker from an external suite is checked
for 2-decimal values (``detect_decimals``).

Layouts: the values of an array are the whitespace-separated tokens between ``begin dump: NAME``
and ``end   dump: NAME``, on any number of lines. The real suite's ``POLYBENCH_DUMP_BEGIN`` writes
no newline, so a ``print_array`` that prints a value before its first line break (4.2.1's trisolv)
puts it right after the name (``begin dump: x0.5 ...``): the name is the one ``end dump`` gives.

Comparison: per value, relative error ``|a-b| / max(|a|, |b|, tiny)`` with ``tiny`` = ``FLOOR``
(1e-3) times the largest magnitude in the reference array (values that are rounding noise around
zero are judged against the array's scale); the cell matches when every value is within
``tolerance``, or within the array's noise-widened tolerance (``noise_tolerances``: how far a
``-ffp-contract=off`` build of the same code drifts from baseline, times ``NOISE_FACTOR``). Integer kernels (``DATA_TYPE_IS_INT``) compare exactly. Values
printed with ``d`` decimals only match when ``|a-b| <= 10**-d + tolerance * max(|a|,|b|)``: each
side is rounded by up to half a unit of the last place, so equal values can print one unit apart.
A NaN where the reference has none (or the reverse), different array names, or different counts
are mismatches.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .dump_shim import MARKER

TINY = 1e-300  # the floor of the denominator: exact zeros on both sides compare equal
FLOOR = 1e-3  # values below FLOOR x the array's largest magnitude are judged against that
NOISE_FACTOR = 100.0  # tolerance for an array = max(--tolerance, NOISE_FACTOR x its rounding noise)
_BEGIN = re.compile(r"==BEGIN\s+DUMP_ARRAYS==")
_END = re.compile(r"==END\s+DUMP_ARRAYS==")
_ARRAY_BEGIN = re.compile(r"begin\s+dump:[ \t]*")
_ARRAY_END = re.compile(r"end\s+dump:[ \t]*(\S+)")
_NUMBER_START = re.compile(r"[-+.0-9]|nan|inf", re.I)
_FIXED = re.compile(r"^-?\d+\.(\d+)$")


class DumpError(Exception):
    pass


@dataclass
class Dump:
    arrays: dict[str, np.ndarray]  # name -> values in print order (int64 or float64)
    decimals: int | None = None  # d when every value was printed "%0.<d>f" (d <= 6), else None
    full_precision: bool = False  # the dump shim re-printed the values (dump_shim.MARKER)

    @property
    def count(self) -> int:
        return sum(v.size for v in self.arrays.values())


def _fixed_decimals(tokens: list[str]) -> int | None | bool:
    """d when every finite token is fixed notation with d decimals, None when not, True when
    there are no finite tokens (no evidence)."""
    d: int | None = None
    for t in tokens:
        m = _FIXED.match(t)
        if m is None:
            low = t.lower()
            if "nan" in low or "inf" in low:
                continue
            return None
        n = len(m.group(1))
        if d is None:
            d = n
        elif n != d:
            return None
    return True if d is None else d


def _as_numbers(tokens: list[str], integer: bool) -> np.ndarray:
    if integer:
        try:
            return np.array([int(t) for t in tokens], dtype=np.int64)
        except (ValueError, OverflowError):
            pass
    try:
        return np.array([float(t) for t in tokens], dtype=np.float64)
    except ValueError as e:
        raise DumpError(f"not a number in the dump: {e}") from None


def parse_dump(text: str, integer: bool = False, detect_decimals: bool = False) -> Dump:
    """The arrays of a dump. ``detect_decimals``: find out whether values have only ``%0.2lf``
    precision (external suites)."""
    b = _BEGIN.search(text)
    if not b:
        raise DumpError("no '==BEGIN DUMP_ARRAYS==' in the output")
    e = _END.search(text, b.end())
    if not e:
        raise DumpError("the dump is cut short (no '==END   DUMP_ARRAYS==')")
    body = text[b.end():e.start()]
    arrays: dict[str, np.ndarray] = {}
    decimals: int | None | bool = True
    shim = MARKER in text[:b.start()]
    if shim:
        detect_decimals = False  # the shim printed every floating-point value with %.17g
    for name, values in _arrays(body):
        if name in arrays:
            raise DumpError(f"array {name} dumped twice")
        tokens = values.split()
        if detect_decimals and decimals is not None:
            d = _fixed_decimals(tokens)
            if d is None or (d is not True and decimals is not True and d != decimals):
                decimals = None
            elif d is not True:
                decimals = d
        try:
            arrays[name] = _as_numbers(tokens, integer)
        except DumpError as err:
            raise DumpError(f"array {name}: {err}") from None
    if not arrays:
        raise DumpError("the dump holds no arrays")
    if decimals is True or (isinstance(decimals, int) and decimals > 6):
        decimals = None
    return Dump(arrays, decimals if detect_decimals else None, full_precision=shim)


def _arrays(body: str):
    """(name, text of its values) for each ``begin dump: ... end   dump: NAME`` of ``body``."""
    pos = 0
    while True:
        m = _ARRAY_BEGIN.search(body, pos)
        stray = _ARRAY_END.search(body, pos, m.start() if m else len(body))
        if stray:
            raise DumpError(f"'end dump: {stray.group(1)}' with no 'begin dump' before it")
        if m is None:
            return
        e = _ARRAY_END.search(body, m.end())
        if e is None:
            raise DumpError("'begin dump' with no 'end dump'")
        inner = body[m.end():e.start()]
        if _ARRAY_BEGIN.search(inner):
            raise DumpError(f"'begin dump' inside the dump of {e.group(1)}")
        name = e.group(1)
        rest = inner[len(name):]
        if not inner.startswith(name) or (rest and not rest[0].isspace() and not _NUMBER_START.match(rest)):
            begin = inner.split()[0] if inner.split() else ""
            raise DumpError(f"'begin dump: {begin}' closed by 'end dump: {name}'")
        yield name, rest
        pos = e.end()


def read_dump(path: Path, integer: bool = False, detect_decimals: bool = False) -> Dump:
    return parse_dump(Path(path).read_text(errors="replace"), integer, detect_decimals)


def quantum_of(*dumps: Dump) -> float | None:
    """The unit of the last printed decimal of the coarsest dump, None when all are full precision."""
    ds = [d.decimals for d in dumps if d.decimals is not None]
    return 10.0 ** -min(ds) if ds else None


@dataclass
class Comparison:
    ok: bool
    mode: str  # "exact" | "rel" | "abs+rel"
    reference: str = "baseline"
    max_rel_err: float = 0.0
    max_abs_err: float = 0.0
    message: str = ""
    worst: dict = field(default_factory=dict)  # {"array", "index", "reference", "value"}
    quantum: float | None = None
    per_array: dict[str, float] = field(default_factory=dict)  # array -> max relative error
    tolerances: dict[str, float] = field(default_factory=dict)  # array -> tolerance applied
    widened: bool = False  # passed only thanks to a noise-widened tolerance

    def to_json(self) -> dict:
        def num(x: float):
            return float(x) if np.isfinite(x) else str(x)
        return {"reference": self.reference, "ok": self.ok, "mode": self.mode,
                "max_rel_err": num(self.max_rel_err), "max_abs_err": num(self.max_abs_err),
                "abs_tolerance": self.quantum, "message": self.message, "worst": self.worst,
                "per_array_max_rel_err": {k: num(v) for k, v in self.per_array.items()},
                "tolerances": {k: num(v) for k, v in self.tolerances.items()},
                "noise_widened": self.widened}


def _fmt(x) -> str:
    return repr(x.item()) if hasattr(x, "item") else repr(x)


def compare(ref: Dump, got: Dump, tolerance: float, integer: bool = False,
            quantum: float | None = None, reference: str = "baseline",
            tolerances: dict[str, float] | None = None) -> Comparison:
    """Compare ``got`` with ``ref``. ``quantum``: the unit of the last printed decimal (2-decimal
    dumps), None for full precision. ``tolerances``: per-array tolerances that replace
    ``tolerance`` where larger (noise-widened, see ``noise_tolerances``)."""
    mode = "exact" if integer else ("abs+rel" if quantum else "rel")
    res = Comparison(ok=True, mode=mode, reference=reference, quantum=quantum if mode == "abs+rel" else None)
    if list(ref.arrays) != list(got.arrays):
        res.ok = False
        res.message = f"arrays differ: {reference} dumps {', '.join(ref.arrays)}; this dumps {', '.join(got.arrays)}"
        return res
    first_bad: str | None = None
    for name, a in ref.arrays.items():
        b = got.arrays[name]
        if b.size != a.size:
            res.ok = False
            res.message = f"array {name}: {b.size} values, {reference} has {a.size}"
            return res
        if not a.size:
            continue
        tol = max(tolerance, (tolerances or {}).get(name, 0.0))
        res.tolerances[name] = tol
        if a.dtype.kind == "i" and b.dtype.kind == "i":
            diff = np.abs(a - b).astype(np.float64)
            mag = np.maximum(np.abs(a), np.abs(b)).astype(np.float64)
            rel = diff / np.maximum(mag, 1.0)
            bad = a != b
            strict_bad = bad
        else:
            a = a.astype(np.float64)
            b = b.astype(np.float64)
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            with np.errstate(invalid="ignore", over="ignore"):
                diff = np.abs(a - b)
                mag = np.maximum(np.abs(a), np.abs(b))
                rel = diff / np.maximum(mag, array_floor(a))
            same = (a == b) | (nan_a & nan_b)  # also equal infinities
            diff[same] = 0.0
            rel[same] = 0.0
            diff[~same & (nan_a | nan_b)] = np.inf
            rel[~same & (nan_a | nan_b)] = np.inf
            if integer:
                bad = strict_bad = ~same
            elif quantum:
                with np.errstate(invalid="ignore"):
                    bad = ~same & ~(diff <= quantum * (1 + 1e-9) + tol * mag)
                    strict_bad = ~same & ~(diff <= quantum * (1 + 1e-9) + tolerance * mag)
            else:
                bad = ~same & ~(rel <= tol)
                strict_bad = ~same & ~(rel <= tolerance)
            if first_bad is None:
                nb = np.flatnonzero(nan_b & ~nan_a)
                na = np.flatnonzero(nan_a & ~nan_b)
                if nb.size:
                    first_bad = (f"array {name}[{nb[0]}]: NaN where {reference} has {_fmt(a[nb[0]])}"
                                 f" ({nb.size} NaN{'s' if nb.size > 1 else ''})")
                elif na.size:
                    first_bad = f"array {name}[{na[0]}]: {_fmt(b[na[0]])} where {reference} has NaN"
        i = int(np.argmax(rel))
        res.per_array[name] = float(rel[i])
        if rel[i] > res.max_rel_err or not res.worst:
            res.max_rel_err = float(rel[i])
            res.worst = {"array": name, "index": i, "reference": _fmt(a[i]), "value": _fmt(b[i])}
        res.max_abs_err = max(res.max_abs_err, float(diff.max()))
        if bad.any():
            res.ok = False
            if first_bad is None:
                j = int(np.flatnonzero(bad)[0])
                first_bad = (f"array {name}[{j}]: {_fmt(b[j])} vs {reference} {_fmt(a[j])}"
                             f" ({int(bad.sum())} of {b.size} values beyond tolerance {tol:g})")
        elif strict_bad.any():
            res.widened = True
    if not res.ok:
        res.message = first_bad or "values differ"
    return res


def array_floor(a: np.ndarray) -> float:
    """The smallest denominator of the relative error for values of array ``a`` (the reference):
    ``FLOOR`` times its largest finite magnitude, so that values that are rounding noise around
    zero (cancellation) are judged against the array's scale, not their own."""
    finite = np.abs(a[np.isfinite(a)])
    return max(TINY, FLOOR * float(finite.max())) if finite.size else TINY


def noise_tolerances(baseline: Dump, perturbed: Dump, tolerance: float) -> dict[str, float]:
    """Per-array tolerances calibrated on rounding noise: ``perturbed`` is the same program with
    different rounding only (``-ffp-contract=off``). Where baseline and it already differ by more
    than ``tolerance / NOISE_FACTOR``, the output carries that much rounding noise (ill-conditioned
    kernel, float data), and any other correct build may differ about as much: the array's
    tolerance becomes ``NOISE_FACTOR`` times that noise."""
    if list(baseline.arrays) != list(perturbed.arrays):
        return {}
    c = compare(baseline, perturbed, tolerance=np.inf)
    return {name: NOISE_FACTOR * err for name, err in c.per_array.items()
            if np.isfinite(err) and NOISE_FACTOR * err > tolerance}
