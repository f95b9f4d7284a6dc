"""Bounds on work: a call under a hard time limit, isl calls under an operation budget.

isl's integer programming and Farkas duals cannot be interrupted from Python, and its operation
counter does not cover them all; a forked child that is killed at the limit stops them for sure.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager


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
        return _run_in_child(fn, seconds)

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


def _run_in_child(fn: Callable[[], object], seconds: float):
    import select
    import signal
    import time

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send back (result or error), leave without cleanup
        os.close(read_end)
        try:
            payload = outcome(fn)
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + seconds
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                raise TimeLimitExceeded(seconds)
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    if not chunks:
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
