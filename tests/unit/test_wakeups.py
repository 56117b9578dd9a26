"""`Wakeups.wait` keeps a cancellation that lands just as its wake comes (Python 3.11's
`asyncio.wait_for` drops it): a worker's cancel watch, cancelled when its turn ends while a
write wakes it, must stop rather than wait on forever (found as a test run that never ended)."""

from __future__ import annotations

import asyncio

import pytest

from a2a_core.core.wakeups import Wakeups

pytestmark = pytest.mark.anyio


async def test_a_cancel_landing_with_the_wake_stops_the_waiter() -> None:
    wakeups = Wakeups()

    async def watch() -> None:  # as `Attempt.watch_cancel` waits: again and again
        while True:
            await wakeups.wait("task", timeout=10)

    waiter = asyncio.create_task(watch())
    await asyncio.sleep(0.01)  # waiting
    wakeups.wake("task")
    await asyncio.sleep(0)  # the wake is on its way
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(asyncio.shield(waiter), timeout=2)
    assert waiter.cancelled()


async def test_a_wake_alone_still_returns_true() -> None:
    wakeups = Wakeups()
    waiting = asyncio.create_task(wakeups.wait("task", timeout=10))
    await asyncio.sleep(0.01)
    wakeups.wake("task")
    assert await waiting is True
