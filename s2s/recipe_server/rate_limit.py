"""Requests per minute per client (a token, or the address of a client without one): a token
bucket each, refilled continuously, as deep as a minute's allowance so that a build's burst of
questions passes while a flood does not."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class RateLimiter:
    per_minute: float                       # 0: no limit
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)   # key -> (tokens, when)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def admit(self, key: str) -> float:
        """0 when a request of ``key`` may go now, else the seconds until it may."""
        if self.per_minute <= 0:
            return 0.0
        rate, depth = self.per_minute / 60.0, max(1.0, self.per_minute)
        with self._lock:
            t = self.clock()
            tokens, then = self._buckets.get(key, (depth, t))
            tokens = min(depth, tokens + (t - then) * rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, t)
                return 0.0
            self._buckets[key] = (tokens, t)
            if len(self._buckets) > 100_000:      # forget the idle ones: an address flood cannot grow it
                self._buckets = {k: v for k, v in self._buckets.items() if t - v[1] < 60.0}
            return (1.0 - tokens) / rate
