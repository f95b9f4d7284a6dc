"""Where the autotuner's candidates are built and run: here, or on the workers of a Dask cluster.

``LocalEvaluator`` is the tuner's own way: a round's candidates built side by side in threads,
then run one at a time with nothing building beside them. ``DaskEvaluator`` (``s2s tune
--cluster dask://HOST:PORT``) makes each candidate one task that builds *and* runs it on one
worker: a round is at most one task per worker, each pinned to its worker, and the next round
starts when the whole round is back, so that a worker never times two candidates at once.

Times from different machines do not compare. Each machine (its ``machine_fingerprint``, as a
worker computes it) measures the default recipe once before its first candidate; a candidate's
output is checked against its own machine's default output, and its times are converted to the
units of the reference machine (the first one measured: its default is the session's baseline)
by the ratio of the two defaults' times, the program's and each nest's. The result names that
machine, so that the recipe database files the rows under it, not under the client's.

The workers read the program's sources where the client does (a shared file system, as on most
clusters); that is checked on every worker before anything is built. Dask is imported only here,
and only when a cluster is asked for (``pip install 's2s[cluster]'``).
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Protocol

from s2s.errors import S2SError
from s2s.tuning import tuner
from s2s.tuning.recipe import RecipeBook, machine_fingerprint
from s2s.tuning.tuner import Baseline, Evaluation, Program, Timing, TuneResult

CONNECT_TIMEOUT = 10.0   # seconds to reach the scheduler: a wrong address should fail while the user waits
POLL = 2.0               # seconds between looks for workers that left while a round runs
TICK = 0.05              # seconds between looks at a round's tasks (the client is not Dask's default one)


class ClusterError(S2SError):
    """The cluster cannot be used: no Dask, a wrong or unreachable address, workers that cannot
    read the program or run s2s."""


Outcome = tuple[Evaluation, RecipeBook | None, Timing | None]   # the evaluation, the recipes as taken, the times


class Evaluator(Protocol):
    """Where a session's candidates are built and run; ``slots`` of them per round."""

    slots: int
    machine: str | None                       # the machine the times are of (None: this host)
    machine_features: dict[str, float] | None

    def baseline(self, program: Program, work: Path, repeat: int, timeout_factor: float) -> Baseline: ...

    def evaluated(self, session: "tuner.Session", changes: list[tuple[str, RecipeBook]],
                  first: int) -> Iterator[Outcome]: ...

    def confirmed(self, program: Program, base: Baseline, result: TuneResult, repeat: int, min_gain: float,
                  work: Path, started: float) -> TuneResult: ...

    def close(self) -> None: ...


def evaluator(address: str | None, workers: int = 1,
              timeout: float = CONNECT_TIMEOUT) -> "LocalEvaluator | DaskEvaluator":
    """Here, ``workers`` candidates built at a time (``address`` None), or the Dask cluster at ``address``."""
    return LocalEvaluator(workers) if address is None else DaskEvaluator.connect(address, timeout)


class LocalEvaluator:
    """Candidates built ``slots`` at a time here, then run one at a time, judged in order."""

    machine: str | None = None
    machine_features: dict[str, float] | None = None

    def __init__(self, workers: int = 1):
        self.slots = max(1, workers)
        self.pool = ThreadPoolExecutor(self.slots)

    def __enter__(self) -> "LocalEvaluator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.pool.shutdown()

    def baseline(self, program: Program, work: Path, repeat: int, timeout_factor: float) -> Baseline:
        return tuner.baseline(program, work, repeat, timeout_factor)

    def evaluated(self, session, changes: list[tuple[str, RecipeBook]], first: int) -> Iterator[Outcome]:
        candidates = list(self.pool.map(lambda k: tuner.built(session.program, changes[k][1],
                                                              session.work / f"candidate{first + k}"),
                                        range(len(changes))))
        for n, ((change, _), candidate) in enumerate(zip(changes, candidates), first):
            ev, timing = tuner._evaluate(session.program, candidate, session.base, session.repeat, n, change,
                                         session.best, session.min_gain)
            yield ev, candidate.taken, timing

    def confirmed(self, program: Program, base: Baseline, result: TuneResult, repeat: int, min_gain: float,
                  work: Path, started: float) -> TuneResult:
        return tuner.confirmed(program, base, result, repeat, min_gain, work, started)


def scheduler_address(address: str) -> str:
    """``dask://HOST:PORT`` (or ``tcp://HOST:PORT``) as Dask's client takes it."""
    scheme, sep, rest = address.partition("://")
    if not sep or not rest:
        raise ClusterError(f"{address}: not a cluster address (dask://HOST:PORT or tcp://HOST:PORT)")
    if scheme == "dask":
        return f"tcp://{rest}"
    if scheme == "tcp":
        return address
    if scheme == "ray":
        raise ClusterError(f"{address}: only Dask clusters are supported (dask://HOST:PORT or tcp://HOST:PORT), "
                           "not Ray")
    raise ClusterError(f"{address}: unknown kind of cluster {scheme!r}; only Dask clusters are supported "
                       "(dask://HOST:PORT or tcp://HOST:PORT)")


@dataclass(frozen=True)
class Measured:
    """What a worker made of one candidate: its recipes as taken, and why it did not run, or a
    digest of its output (the output itself can be large: a PolyBench kernel's array dump) and its times."""

    taken: RecipeBook | None
    why: str | None = None
    digest: str = ""
    timing: Timing | None = None


class DaskEvaluator:
    """Each candidate a task that builds and runs it on one worker, a round at most one per
    worker; times converted to the reference machine's units (the module's docstring)."""

    def __init__(self, client, address: str):
        self.client, self.address = client, address
        self.machines: dict[str, str] = {}          # worker address -> its machine's fingerprint
        self.baselines: dict[str, Baseline] = {}    # by machine; the first is the reference's
        self.digests: dict[str, str] = {}           # by machine, of its default's output
        self.machine: str | None = None
        self.machine_features: dict[str, float] | None = None
        self.slots = len(self._workers())
        if not self.slots:
            client.close()
            raise ClusterError(f"{address}: the cluster has no workers")

    @classmethod
    def connect(cls, address: str, timeout: float = CONNECT_TIMEOUT) -> "DaskEvaluator":
        target = scheduler_address(address)
        try:
            import distributed
        except ImportError as exc:
            raise ClusterError(f"tuning on a cluster needs Dask (distributed): pip install 's2s[cluster]' "
                               f"({exc})") from None
        try:
            client = distributed.Client(target, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ClusterError(f"{address}: cannot reach a Dask scheduler there within {timeout:g} s "
                               f"({type(exc).__name__}: {exc})") from None
        return cls(client, address)

    def __enter__(self) -> "DaskEvaluator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()

    def baseline(self, program: Program, work: Path, repeat: int, timeout_factor: float) -> Baseline:
        """The default measured on the first worker, whose machine becomes the reference, after
        every worker has been checked (``_joined``)."""
        program = absolute(program)
        self.program, self.work, self.repeat, self.timeout_factor = program, work, repeat, timeout_factor
        workers = self._workers()
        self._joined(program, workers)
        first = workers[0]
        base = self._one(first, _baseline, program, work, repeat, timeout_factor)
        self.program, self.machine = base.program, self.machines[first]
        self._measured_default(self.machine, base)
        try:
            self.machine_features = self.client.run(_machine_features, workers=[first])[first]
        except Exception as exc:  # (the worker left, or cannot read its topology: the rows then lack the roofs)
            raise ClusterError(f"worker {first}: machine features: {type(exc).__name__}: {exc}") from None
        return base

    def evaluated(self, session, changes: list[tuple[str, RecipeBook]], first: int) -> Iterator[Outcome]:
        """Rounds of one task per worker; a round's candidates judged in order once all are back."""
        pending = list(enumerate(changes, first))
        while pending:
            workers = self._ready()
            round_, pending = pending[:len(workers)], pending[len(workers):]
            futures = {}
            for (n, (_, book)), address in zip(round_, workers):
                timeout = self.baselines[self.machines[address]].timeout
                futures[address] = self._submit(address, _measured, session.program, book,
                                                session.work / f"candidate{n}", session.repeat, timeout)
            outcomes = self._gathered(futures)
            for (n, (change, book)), address in zip(round_, workers):
                yield self._judged(session, n, change, book, address, outcomes[address])

    def confirmed(self, program: Program, base: Baseline, result: TuneResult, repeat: int, min_gain: float,
                  work: Path, started: float) -> TuneResult:
        """``tuner.confirmed`` on a worker of the reference machine: its times are what the rest is in."""
        worker = next((w for w in self._workers() if self.machines.get(w) == self.machine), None)
        if worker is None:
            raise ClusterError(f"{self.address}: no worker of the reference machine ({self.machine}) is left "
                               "to confirm the best recipes on")
        confirmed = self._one(worker, _confirmed, program, base, result, repeat, min_gain, work)
        return dataclasses.replace(confirmed, wall_seconds=time.monotonic() - started)

    def _judged(self, session, n: int, change: str, book: RecipeBook, address: str,
                outcome: "Measured | str") -> Outcome:
        machine = self.machines[address]
        taken, timing = None, None
        if isinstance(outcome, str):
            ev = tuner.failed(n, change, outcome)
        elif outcome.why is not None:
            ev, taken = tuner.failed(n, change, outcome.why), outcome.taken
        elif outcome.digest != self.digests[machine]:
            ev, taken = Evaluation(n, change, "wrong output"), outcome.taken
        else:
            mine = self.baselines[machine].timing
            converted = outcome.timing if machine == self.machine else in_units_of(
                outcome.timing, mine, self.baselines[self.machine].timing)
            (ev, timing), taken = tuner.timed(n, change, book, converted, session.base, session.best,
                                              session.min_gain), outcome.taken
        return dataclasses.replace(ev, worker=address, machine=machine), taken, timing

    def _workers(self) -> list[str]:
        return sorted(self.client.nthreads())

    def _ready(self) -> list[str]:
        """The workers now, each one's machine known and measured: a worker that joined since the
        last round is checked, and its machine's default measured if it is a new machine."""
        while True:
            workers = self._workers()
            new = [w for w in workers if w not in self.machines]
            if new:
                self._joined(self.program, new)
            unmeasured = {}
            for w in workers:
                if self.machines[w] not in self.baselines:
                    unmeasured.setdefault(self.machines[w], w)
            if unmeasured:
                reference = self.baselines[self.machine]
                futures = {w: self._submit(w, _baseline, self.program, self.work, self.repeat,
                                           self.timeout_factor, reference.book, f"default-{k}")
                           for k, w in enumerate(unmeasured.values(), len(self.baselines))}
                for machine, w in unmeasured.items():
                    base = self._result(w, futures[w])
                    self._measured_default(machine, base)
            if workers:
                return workers
            time.sleep(POLL)    # (every worker left: wait for one to come back, as Dask's own tasks would)

    def _joined(self, program: Program, workers: list[str]) -> None:
        """Each worker's machine, after a check that it reads the program's sources and include
        directories at the client's paths: a ``ClusterError`` saying which worker cannot read what."""
        paths = [*program.sources, *(f[2:] for f in program.cflags if f.startswith("-I") and len(f) > 2)]
        try:
            facts = self.client.run(_worker_facts, paths, workers=workers)
        except Exception as exc:  # (s2s not importable there, a worker gone: any failure of the call)
            raise ClusterError(f"{self.address}: the workers cannot run s2s ({type(exc).__name__}: {exc}); they "
                               "need s2s installed in their environment") from None
        unreadable = {w: missing for w, (_, missing) in facts.items() if missing}
        if unreadable:
            said = "; ".join(f"worker {w} cannot read {', '.join(missing)}"
                             for w, missing in sorted(unreadable.items()))
            raise ClusterError(f"{said} (the workers need the program's files at the same paths: a shared file "
                               "system)")
        self.machines.update({w: machine for w, (machine, _) in facts.items()})

    def _measured_default(self, machine: str, base: Baseline) -> None:
        self.baselines[machine] = base
        self.digests[machine] = digest(base.output)

    def _submit(self, address: str, function, *args):
        return self.client.submit(function, *args, workers=[address], allow_other_workers=False, pure=False)

    def _one(self, address: str, function, *args):
        """``function(*args)`` run on the worker ``address``; its failure a ``ClusterError``."""
        return self._result(address, self._submit(address, function, *args))

    def _result(self, address: str, future):
        outcome = self._gathered({address: future})[address]
        if isinstance(outcome, str):
            raise ClusterError(outcome.removeprefix("failed: "))
        return outcome

    def _gathered(self, futures: dict) -> dict:
        """Each worker's result, or why there is none (``failed: ...``). A task pinned to a worker
        that left would wait for it for ever: it is cancelled."""
        pending, out = dict(futures), {}
        looked = time.monotonic()
        while True:
            for address, future in list(pending.items()):
                if future.done():
                    out[address] = _collected(address, future)
                    del pending[address]
            if not pending:
                return out
            if time.monotonic() - looked > POLL:
                alive, looked = set(self.client.nthreads()), time.monotonic()
                for address in [a for a in pending if a not in alive]:
                    pending.pop(address).cancel()
                    out[address] = f"failed: worker {address} left the cluster"
            time.sleep(TICK)


def absolute(program: Program) -> Program:
    """``program`` with its sources and include directories named from the root: a worker's
    working folder is not the client's (links are kept: on a shared file system they may be
    what names the same file everywhere)."""
    def include(flag: str) -> str:
        return f"-I{os.path.abspath(flag[2:])}" if flag.startswith("-I") and len(flag) > 2 else flag

    return dataclasses.replace(program, sources=tuple(os.path.abspath(s) for s in program.sources),
                               cflags=tuple(map(include, program.cflags)))


def _collected(address: str, future):
    try:
        return future.result()
    except Exception as exc:  # (whatever the task raised, or the worker's death: the candidate failed)
        return f"failed: on worker {address}: {type(exc).__name__}: {exc}"


def in_units_of(timing: Timing, mine: Timing, reference: Timing) -> Timing:
    """``timing``, measured on the machine whose default build timed ``mine``, in the units of the
    machine that timed ``reference``: each series scaled by the ratio of the two defaults' medians
    of the same series, the program's times and each nest's (a nest one default did not time by
    the programs' ratio)."""
    whole = _ratio(reference.runs, mine.runs, 1.0)
    return Timing(_scaled(timing.runs, whole), _scaled(timing.walls, _ratio(reference.walls, mine.walls, whole)),
                  {ids: _scaled(t, _ratio(reference.nests.get(ids, ()), mine.nests.get(ids, ()), whole))
                   for ids, t in timing.nests.items()})


def _ratio(reference: tuple[float, ...], mine: tuple[float, ...], otherwise: float) -> float:
    if not reference or not mine or statistics.median(mine) <= 0:
        return otherwise
    return statistics.median(reference) / statistics.median(mine)


def _scaled(series: tuple[float, ...], factor: float) -> tuple[float, ...]:
    return tuple(x * factor for x in series)


def digest(output: tuple[str, str]) -> str:
    """Of a program's stdout and stderr: what a candidate's output is compared with its machine's on."""
    h = hashlib.sha256()
    for part in output:
        h.update(part.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    return h.hexdigest()


# ---- run on the workers -----------------------------------------------------------------------------
def _worker_facts(paths: list[str]) -> tuple[str, list[str]]:
    """This worker's machine, and which of ``paths`` it cannot read."""
    return machine_fingerprint(), [p for p in paths if not os.access(p, os.R_OK)]


def _machine_features() -> dict[str, float]:
    from s2s.tuning.embedding import machine_features

    return machine_features()


def _baseline(program: Program, work: Path, repeat: int, timeout_factor: float, book: RecipeBook | None = None,
              name: str = "default") -> Baseline:
    """``tuner.baseline`` here, on the worker (whose file system may lack the client's work folder)."""
    work.mkdir(parents=True, exist_ok=True)
    return tuner.baseline(program, work, repeat, timeout_factor, book, name)


def _measured(program: Program, book: RecipeBook, stem: Path, repeat: int, timeout: float) -> Measured:
    """One candidate built and run here, on the worker."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    candidate = tuner.built(program, book, stem)
    if not isinstance(candidate.exe, Path):
        return Measured(candidate.taken, candidate.exe)
    output, timing = tuner.run_built(program, candidate.exe, repeat, timeout)
    if isinstance(output, str):
        return Measured(candidate.taken, output)
    return Measured(candidate.taken, digest=digest(output), timing=timing)


def _confirmed(program: Program, base: Baseline, result: TuneResult, repeat: int, min_gain: float,
               work: Path) -> TuneResult:
    # (the client's monotonic clock means nothing here: the client sets the wall time)
    work.mkdir(parents=True, exist_ok=True)
    return tuner.confirmed(program, base, result, repeat, min_gain, work, time.monotonic())
