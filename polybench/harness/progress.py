"""Live progress on stderr: a rich bar on a terminal, short lines otherwise (logs, CI)."""
from __future__ import annotations

import sys
import threading
from typing import TextIO


class ProgressReporter:
    def __init__(self, stream: TextIO | None = None, enabled: bool = True):
        self.stream = stream or sys.stderr
        self.live = enabled and getattr(self.stream, "isatty", lambda: False)()
        self._lock = threading.Lock()
        self._progress = None
        self._tasks: dict[str, int] = {}
        self._totals: dict[str, int] = {}
        self._done: dict[str, int] = {}
        self.console = None

    def __enter__(self) -> "ProgressReporter":
        from rich.console import Console

        self.console = Console(file=self.stream, stderr=self.stream is sys.stderr)
        if self.live:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn)

            self._progress = Progress(TextColumn("[bold]{task.description:<14}"), BarColumn(),
                                      MofNCompleteColumn(), TimeElapsedColumn(),
                                      TextColumn("{task.fields[now]}"), console=self.console,
                                      transient=True)
            self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
            self._progress = None

    def add_phase(self, name: str, total: int) -> None:
        with self._lock:
            self._totals[name] = total
            self._done[name] = 0
            if self._progress is not None:
                self._tasks[name] = self._progress.add_task(name, total=total, now="")

    def extend(self, name: str, more: int) -> None:
        """The phase has ``more`` steps than it was started with."""
        with self._lock:
            self._totals[name] = self._totals.get(name, 0) + more
            total = self._totals[name]
        if self._progress is not None and name in self._tasks:
            self._progress.update(self._tasks[name], total=total)

    def now(self, name: str, what: str) -> None:
        """What the phase is doing at the moment (shown next to the bar)."""
        if self._progress is not None and name in self._tasks:
            self._progress.update(self._tasks[name], now=what)

    def advance(self, name: str, what: str = "", n: int = 1, line: bool = False) -> None:
        """One more step done; ``line``: also say ``what`` when there is no live bar."""
        with self._lock:
            self._done[name] = self._done.get(name, 0) + n
            done, total = self._done[name], self._totals.get(name, 0)
        if self._progress is not None and name in self._tasks:
            self._progress.update(self._tasks[name], advance=n, now=what)
        elif line and what:
            self.message(f"[{done}/{total}] {what}")

    def message(self, text: str, style: str | None = None) -> None:
        """A line that stays (failures, notes)."""
        if self.console is not None:
            self.console.print(text, style=style, highlight=False, markup=False, soft_wrap=True)
        else:
            print(text, file=self.stream, flush=True)
