"""A fuzzing run: programs ``seed .. seed + count - 1`` checked in parallel, failures shrunk and saved.

Program ``k`` of a run has seed ``seed + k``, so ``s2s fuzz --count 1 --seed S`` rebuilds any one of
them. Each failure is shrunk (``s2s.fuzz.shrink``) against the same kind of failure on the same
thread count, then written to the keep directory twice: as generated and shrunk, each with the
header that ``s2s.fuzz.regressions`` reads back. Mismatches on programs with pointer views of one
buffer are counted apart: they are the known aliasing bug until the run-time overlap check covers
views (issue 21, part 1).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from s2s.fuzz.generator import generate
from s2s.fuzz.model import Program
from s2s.fuzz.printer import header_comment, to_c
from s2s.fuzz.runner import (
    BUILD_FAILED, CC_MISMATCH, CC_ON_OUTPUT, CRASH, INVALID, MISMATCH, TIMEOUT, Outcome, RunOptions, check_source,
)
from s2s.fuzz.shrink import shrink, size


@dataclass
class Failure:
    seed: int
    outcome: Outcome
    views: bool  # the program has pointer views of one buffer
    saved: Path | None = None
    shrunk_size: tuple[int, int] = (0, 0)  # kernel nodes before and after shrinking

    def status_is(self, status: str) -> bool:
        return self.outcome.status == status


@dataclass
class Summary:
    programs: int = 0
    counts: dict[str, int] = field(default_factory=dict)  # status -> programs
    fallbacks: int = 0
    fallback_reasons: dict[str, int] = field(default_factory=dict)
    optimized: int = 0  # programs where s2s optimized at least one SCoP
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def bad(self) -> int:
        return sum(self.counts.get(s, 0) for s in (MISMATCH, CRASH, TIMEOUT, BUILD_FAILED))

    def line(self, target: str) -> str:
        views = sum(1 for f in self.failures if f.status_is(MISMATCH) and f.views)
        c = self.counts
        return (f"{self.programs} programs ({target}): {c.get(MISMATCH, 0)} mismatches "
                f"({views} with pointer views), {self.fallbacks} fallbacks, {c.get(CRASH, 0)} crashes, "
                f"{c.get(CC_MISMATCH, 0)} wrong without s2s (cc -O2 itself), "
                f"{c.get(CC_ON_OUTPUT, 0)} where cc -O2 miscompiles s2s's right output, "
                f"{c.get(TIMEOUT, 0)} timeouts, {c.get(BUILD_FAILED, 0)} build failures, "
                f"{c.get(INVALID, 0)} invalid; {self.optimized} optimized by s2s; {self.seconds:.0f} s")


def run_fuzz(count: int, seed: int, options: RunOptions, jobs: int = 2, keep: Path | None = None,
             do_shrink: bool = True, progress: Callable[[str], None] | None = None) -> Summary:
    say = progress or (lambda _msg: None)
    summary = Summary()
    lock = threading.Lock()
    start = time.monotonic()

    def one(k: int) -> None:
        program = generate(seed + k)
        outcome = check_source(to_c(program), program.args(), program.config.env(), options)
        failure = None
        if outcome.status == CC_ON_OUTPUT and keep is not None:
            # (kept as generated, not shrunk: a compiler bug to report, not one of s2s's)
            save_failure(program, program, outcome, options.target, keep)
        if outcome.failed:
            failure = Failure(program.seed, outcome, program.has_views())
            if do_shrink:
                program = _shrink(program, outcome, options)
            original = generate(seed + k)
            failure.shrunk_size = (size(original), size(program))
            if keep is not None:
                failure.saved = save_failure(program, original, outcome, options.target, keep)
        with lock:
            summary.programs += 1
            summary.counts[outcome.status] = summary.counts.get(outcome.status, 0) + 1
            if outcome.fallback:
                summary.fallbacks += 1
                reason = outcome.fallback[:120]
                summary.fallback_reasons[reason] = summary.fallback_reasons.get(reason, 0) + 1
            if outcome.optimized:
                summary.optimized += 1
            if failure is not None:
                summary.failures.append(failure)
                where = f" -> {failure.saved}" if failure.saved else ""
                say(f"seed {program.seed}: {outcome.status}"
                    f"{' (pointer views)' if failure.views else ''}"
                    f"{f' on {outcome.threads} threads' if outcome.threads else ''}: {outcome.detail}"
                    f"{f' ({outcome.culprit})' if outcome.culprit else ''}{where}")
            elif outcome.status == CC_MISMATCH:
                say(f"seed {program.seed}: wrong without s2s: {outcome.culprit}: {outcome.detail}")
            elif outcome.status == CC_ON_OUTPUT:
                say(f"seed {program.seed}: {outcome.culprit}: {outcome.detail}")
            elif outcome.status == INVALID:
                say(f"seed {program.seed}: invalid program (a generator bug): {outcome.detail}")
            elif outcome.fallback:
                say(f"seed {program.seed}: fallback: {outcome.fallback}")
            if summary.programs % 10 == 0 or summary.programs == count:
                say(f"[{summary.programs}/{count}] {summary.bad} failing, {summary.fallbacks} fallbacks, "
                    f"{time.monotonic() - start:.0f} s")

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for future in [pool.submit(one, k) for k in range(count)]:
            future.result()
    summary.failures.sort(key=lambda f: f.seed)
    summary.seconds = time.monotonic() - start
    return summary


def _shrink(program: Program, outcome: Outcome, options: RunOptions) -> Program:
    threads = (outcome.threads,) if outcome.threads else None

    def still_fails(candidate: Program) -> bool:
        got = check_source(to_c(candidate), candidate.args(), candidate.config.env(), options, threads=threads)
        return got.status == outcome.status

    return shrink(program, still_fails, max_checks=100, max_seconds=300)


def save_failure(shrunk: Program, original: Program, outcome: Outcome, target: str, keep: Path) -> Path:
    keep.mkdir(parents=True, exist_ok=True)
    # The outcome is the generated program's; the shrunk one fails the same way, maybe elsewhere.
    note = (f"as generated: {outcome.status}" + (f" on {outcome.threads} threads" if outcome.threads else "")
            + f": {outcome.detail}" + (f"\n{outcome.culprit}" if outcome.culprit else "")).replace("*/", "* /")
    (keep / f"fuzz-{target}-{original.seed}-original.c").write_text(to_c(original, header_comment(original, target, note)))
    path = keep / f"fuzz-{target}-{original.seed}.c"
    path.write_text(to_c(shrunk, header_comment(shrunk, target, note)))
    return path
