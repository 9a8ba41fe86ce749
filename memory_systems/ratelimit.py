"""Per-endpoint limits on concurrent requests, requests per second and tokens per minute.

One :class:`RateLimiter` belongs to one LLM client (one endpoint) and is shared by all its views and
the runner's worker threads. Requests are spaced at least ``1 / requests_per_s`` apart; tokens come
from a bucket refilled at ``tokens_per_min / 60`` per second that a request draws its estimate from
before it is sent (waiting while the bucket is in debt) and corrects with the real count after.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class Slot:
    """A granted request: report its real token count with :meth:`settle`."""

    limiter: RateLimiter
    estimate: int

    def settle(self, tokens: int) -> None:
        """Correct the token bucket by the difference between the real count and the estimate."""
        self.limiter._adjust(tokens - self.estimate)


class RateLimiter:
    """Limits for one endpoint; every argument None means unlimited.

    Args:
        requests_per_s: Most requests started per second.
        tokens_per_min: Most prompt + completion tokens per minute.
        max_concurrency: Most requests in flight at once.
        clock: Monotonic clock (injectable for tests).
        sleep: Sleep function (injectable for tests).
    """

    def __init__(
        self,
        *,
        requests_per_s: float | None = None,
        tokens_per_min: float | None = None,
        max_concurrency: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        for name, value in (("requests_per_s", requests_per_s), ("tokens_per_min", tokens_per_min)):
            if value is not None and value <= 0:
                raise ValueError(f"'{name}' must be positive, got {value!r}")
        if max_concurrency is not None and max_concurrency < 1:
            raise ValueError(f"'max_concurrency' must be at least 1, got {max_concurrency!r}")
        self.requests_per_s, self.tokens_per_min = requests_per_s, tokens_per_min
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max_concurrency) if max_concurrency else None
        self._next_start = 0.0
        self._tokens = float(tokens_per_min or 0)
        self._refilled_at = clock()

    @property
    def unlimited(self) -> bool:
        return self.requests_per_s is None and self.tokens_per_min is None and self._slots is None

    @contextmanager
    def slot(self, tokens_estimate: int) -> Iterator[Slot]:
        """Wait until a request of about ``tokens_estimate`` tokens may start; hold a concurrency slot."""
        if self._slots is not None:
            self._slots.acquire()
        try:
            wait = self._reserve(tokens_estimate)
            if wait > 0:
                self._sleep(wait)
            yield Slot(self, tokens_estimate)
        finally:
            if self._slots is not None:
                self._slots.release()

    def _refill(self, now: float) -> None:
        assert self.tokens_per_min is not None
        rate = self.tokens_per_min / 60.0
        self._tokens = min(self.tokens_per_min, self._tokens + (now - self._refilled_at) * rate)
        self._refilled_at = now

    def _reserve(self, tokens: int) -> float:
        """Book the next start time; returns how long the caller must wait."""
        with self._lock:
            now = self._clock()
            start = now
            if self.requests_per_s is not None:
                start = max(start, self._next_start)
                self._next_start = start + 1.0 / self.requests_per_s
            if self.tokens_per_min is not None:
                self._refill(now)
                self._tokens -= min(tokens, self.tokens_per_min)  # one request never waits forever
                if self._tokens < 0:
                    start = max(start, now + -self._tokens / (self.tokens_per_min / 60.0))
            return start - now

    def _adjust(self, tokens: int) -> None:
        if self.tokens_per_min is None or tokens == 0:
            return
        with self._lock:
            self._refill(self._clock())
            self._tokens -= tokens
