"""Per-key rate limits shared by every instance, at one storage write per batch of requests.

The shared state is a token bucket per caller in GCRA form (the "generic cell rate algorithm"):
one number, the theoretical arrival time ``tat``. A bucket of ``burst`` tokens refilling at
``rate`` per second holds ``(now + burst/rate - tat) * rate`` tokens, so taking ``k`` tokens is
``tat = max(tat, now) + k/rate`` under the condition that ``k`` are there; a store does that with
one conditional write, no read (`RateBuckets`).

Each instance leases a batch of tokens at once (`LeasedRateLimiter`) and spends them locally for
at most ``lease_seconds``, so storage sees one write per batch, not per request. The cost is
accuracy, bounded both ways: leased tokens an instance does not spend in time are lost (callers
may be refused somewhat early when many instances each hold a partial batch), and tokens are
spent up to ``lease_seconds`` after they were taken, so over any window a caller gets at most
``rate * lease_seconds`` more than an exact bucket would allow.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    rate: float  # tokens (requests) per second
    burst: int  # bucket size: what a caller idle for a while may send at once

    @property
    def interval(self) -> float:
        return 1.0 / self.rate


@dataclass(frozen=True)
class Grant:
    tokens: int  # 0: refused
    retry_after: float = 0.0  # when refused: seconds until one token is there
    tat: float | None = None  # the bucket's state after the take


def take(tat: float | None, now: float, wanted: int, limit: Limit) -> Grant:
    """Take up to ``wanted`` tokens (at least one, or none) from a bucket in state ``tat``."""
    base = now if tat is None or tat < now else tat
    tolerance = limit.burst * limit.interval
    # The slack absorbs float rounding of epoch seconds (~1e-7 s): a token a thousandth of an
    # interval early, never a token lost to rounding.
    available = math.floor((now + tolerance - base) / limit.interval + 1e-3)
    granted = min(wanted, available)
    if granted < 1:
        return Grant(0, retry_after=base - tolerance + limit.interval - now, tat=tat)
    return Grant(granted, tat=base + granted * limit.interval)


class RateBuckets(ABC):
    """One token bucket per name, shared by every instance of the service."""

    @abstractmethod
    async def take(self, name: str, wanted: int, limit: Limit) -> Grant:
        """Take up to ``wanted`` tokens from ``name``'s bucket: all of them when there are, as
        many as there are when fewer, none when it is empty (with the wait until one refills).
        A new name starts full. Two callers never get the same token."""


class InMemoryRateBuckets(RateBuckets):
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._tats: dict[str, float] = {}

    async def take(self, name: str, wanted: int, limit: Limit) -> Grant:
        with self._lock:
            grant = take(self._tats.get(name), self._clock(), wanted, limit)
            if grant.tokens and grant.tat is not None:
                self._tats[name] = grant.tat
            return grant


@dataclass
class _Lease:
    tokens: int = 0
    until: float = 0.0


class LeasedRateLimiter:
    """This instance's view of the shared buckets: tokens leased in batches, spent locally."""

    def __init__(
        self,
        buckets: RateBuckets,
        *,
        lease_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._buckets = buckets
        self._lease_seconds = lease_seconds
        self._clock = clock
        self._leases: dict[str, _Lease] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def batch(self, limit: Limit) -> int:
        """Tokens leased at once: about one lease period's worth, at most a quarter of the
        bucket (so one instance never holds most of a burst), at least one."""
        return max(1, min(limit.burst // 4, math.ceil(limit.rate * self._lease_seconds)))

    async def acquire(self, name: str, limit: Limit) -> float | None:
        """None when ``name`` may send this request; otherwise the seconds to wait."""
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:  # one lease at a time per name: concurrent requests share the batch
            lease = self._leases.setdefault(name, _Lease())
            if lease.tokens > 0 and self._clock() < lease.until:
                lease.tokens -= 1
                return None
            grant = await self._buckets.take(name, self.batch(limit), limit)
            if grant.tokens < 1:
                lease.tokens = 0
                return max(grant.retry_after, 0.0)
            lease.tokens = grant.tokens - 1
            lease.until = self._clock() + self._lease_seconds
            return None
