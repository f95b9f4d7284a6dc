"""Bounds on work: a call under a hard time limit, a call under a CPU-time budget, isl calls
under an operation budget.

isl's integer programming and Farkas duals cannot be interrupted from Python, and its operation
counter does not cover them all; a forked child that is killed at the limit stops them for sure.
The optimizer's own budgets count CPU time (``run_with_cpu_limit``, ``work_clock``), not wall
time: on a loaded machine (a parallel make, a CI runner) the same file gets the same decisions.
A user's time-out (``--s2s-timeout``) is wall time (``run_with_time_limit``).
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


# Where a CPU budget's computation cannot get the CPU (an overloaded machine), it is stopped after
# this many times its budget of wall time all the same (and a few seconds more).
CPU_LIMIT_WALL_FACTOR = 10
CPU_LIMIT_WALL_SLACK_S = 5.0


def work_clock() -> float:
    """CPU seconds this thread has run: the clock of the optimizer's budgets inside a process."""
    return time.thread_time()


class TimeLimitExceeded(Exception):
    """A call ran past its time limit."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(f"time-out after {seconds:g} s")


def run_with_time_limit(fn: Callable[[], object], seconds: float):
    """Call ``fn()``; raise ``TimeLimitExceeded`` if it runs past ``seconds`` (0: no limit).

    Where the platform can fork, ``fn`` runs in a child process that is killed at the limit: that
    stops even a long computation inside a C extension (isl's integer programming cannot be
    interrupted otherwise). Elsewhere it runs in a daemon thread that is abandoned at the limit.
    """
    if seconds <= 0:
        return fn()
    import threading

    if hasattr(os, "fork") and threading.current_thread() is threading.main_thread():
        return _run_in_child(fn, seconds, seconds)
    return _run_in_thread(fn, seconds)


def run_with_cpu_limit(fn: Callable[[], object], seconds: float):
    """Call ``fn()``; raise ``TimeLimitExceeded`` once it has run ``seconds`` of CPU time (0: no
    limit), or ``CPU_LIMIT_WALL_FACTOR`` times as long in wall time where it cannot get the CPU.

    Where the platform can fork, ``fn`` runs in a child process whose profiling timer ends it at
    the budget; elsewhere in a daemon thread abandoned at the (wall-clock) limit."""
    if seconds <= 0:
        return fn()
    import threading

    wall = seconds * CPU_LIMIT_WALL_FACTOR + CPU_LIMIT_WALL_SLACK_S
    if hasattr(os, "fork") and threading.current_thread() is threading.main_thread():
        return _run_in_child(fn, wall, seconds, cpu_seconds=seconds)
    return _run_in_thread(fn, wall)


def _run_in_thread(fn: Callable[[], object], seconds: float):
    import threading

    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target, name="s2s-time-limit", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise TimeLimitExceeded(seconds)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["result"]  # type: ignore[return-value]


def _run_in_child(fn: Callable[[], object], wall_seconds: float, limit: float, cpu_seconds: float = 0.0):
    """``fn()`` computed in a forked child killed after ``wall_seconds`` (and, with
    ``cpu_seconds``, ended by its profiling timer once it has run that much CPU time); the
    ``TimeLimitExceeded`` raised either way names ``limit``."""
    import select
    import signal

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send back (result or error), leave without cleanup
        os.close(read_end)
        try:
            if cpu_seconds > 0:   # (no handler: the timer's signal ends the child, even inside isl)
                signal.signal(signal.SIGPROF, signal.SIG_DFL)
                signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
            payload = outcome(fn)
            signal.setitimer(signal.ITIMER_PROF, 0)
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + wall_seconds
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                raise TimeLimitExceeded(limit)
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        status = os.waitpid(pid, 0)[1]
    if not chunks:
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGPROF:
            raise TimeLimitExceeded(limit)
        raise RuntimeError("the optimizer process died")
    return unpacked(b"".join(chunks))


def outcome(fn: Callable[[], object]) -> bytes:
    """``fn()``'s result, or the exception it raised, pickled for another process (``unpacked``)."""
    import pickle

    try:
        return pickle.dumps(("result", fn()))
    except BaseException as exc:  # noqa: BLE001 - handed to the other process
        try:
            return pickle.dumps(("error", exc))
        except Exception:
            return pickle.dumps(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))


def unpacked(payload: bytes):
    """The result that ``outcome`` pickled, or its exception raised here."""
    import pickle

    kind, value = pickle.loads(payload)
    if kind == "error":
        raise value
    return value


@contextmanager
def isl_operation_limit(operations: int) -> Iterator[None]:
    """isl calls inside raise ``isl.Error`` once they have done ``operations`` elementary steps
    between them (isl's own counter; the limit is lifted on the way out). Inside another such
    limit, that one stays in force (isl has one counter)."""
    import islpy as isl  # (imported on use: s2s-cc's start-up time matters)

    ctx = isl.DEFAULT_CONTEXT
    if ctx.get_max_operations():
        yield
        return
    ctx.reset_operations()
    ctx.set_max_operations(operations)
    try:
        yield
    finally:
        ctx.set_max_operations(0)
        ctx.reset_operations()


@contextmanager
def isl_operation_limit_lifted() -> Iterator[None]:
    """isl calls inside run free of an enclosing ``isl_operation_limit`` (for work bounded
    otherwise: past the limit isl stops some computations early and returns what it has, a point
    count among them); the enclosing limit counts afresh on the way out."""
    import islpy as isl  # (imported on use: s2s-cc's start-up time matters)

    ctx = isl.DEFAULT_CONTEXT
    limit = ctx.get_max_operations()
    ctx.set_max_operations(0)
    try:
        yield
    finally:
        ctx.reset_operations()
        ctx.set_max_operations(limit)
