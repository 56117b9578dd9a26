"""Wake coroutines waiting for a key to change, from any thread or event loop.

The in-memory adapters use this so a follower (a blocking send, a stream, the dev worker) wakes
the moment something is appended instead of sleeping and polling. Futures are resolved on their
own loop, so one store can serve uvicorn's loop, Mangum's per-call loops and test threads.
"""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict
from collections.abc import Callable


class Wakeups:
    """Coroutines waiting on a key (`wait`), woken when it changes (`wake`): an in-process
    signal, not a push notification (`a2a_core.push`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[str, set[asyncio.Future[None]]] = defaultdict(set)

    async def wait(self, key: str, timeout: float, ready: Callable[[], bool] | None = None) -> bool:
        """Wait up to ``timeout`` seconds for `wake(key)`; True if it came.

        ``ready`` is checked after the waiter is registered, so a change that lands between the
        caller's last look and this call is never missed.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._waiters[key].add(future)
        try:
            if ready is not None and ready():
                return True
            await asyncio.wait_for(future, timeout)
            _deliver_a_dropped_cancel()
            return True
        except TimeoutError:
            return False
        finally:
            with self._lock:
                waiters = self._waiters.get(key)
                if waiters is not None:
                    waiters.discard(future)
                    if not waiters:
                        del self._waiters[key]

    def wake(self, key: str) -> None:
        """Wake every coroutine waiting on ``key`` now, on its own loop."""
        with self._lock:
            waiters = list(self._waiters.get(key, ()))
        for future in waiters:
            loop = future.get_loop()
            if loop.is_closed():
                continue
            loop.call_soon_threadsafe(_resolve, future)


def _deliver_a_dropped_cancel() -> None:
    """Raise the cancellation Python 3.11's `asyncio.wait_for` drops when it lands as the awaited
    future resolves (fixed in 3.12): the waiter (a worker's cancel watch) would otherwise wait on
    forever, uncancellable, and its process could not stop."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
