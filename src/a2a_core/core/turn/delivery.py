"""The delivery port: the queue message that brought a run operation to a worker.

A queue delivers a message again if the worker does not delete it in time (SQS: when its
visibility timeout runs out). The worker uses that to make a turn whose worker died resume
promptly: when it claims a turn it asks for the message to come back just after its lease ends
(`hold`), and no sooner while it is still running the agent; when it cannot run the turn now (a
live lease elsewhere, the store unavailable) it asks for the message back when trying again can
succeed. Without this the message would come back after the queue's visibility timeout (5,400 s
in the stack), long after the lease that guards the turn has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable


class Delivery(ABC):
    @abstractmethod
    async def redeliver_after(self, seconds: float) -> None:
        """Have the message delivered again ``seconds`` from now (from this call, not from its
        receipt), unless the worker is done with it by then. Best effort: adapters log a failure
        and return; the message then comes back when the queue would have sent it anyway."""

    async def acknowledge(self) -> None:
        """The turn is done with: delete the message. The Lambda worker never calls it (its event
        source deletes what its handler finished); the long-turn worker, which holds the message
        the run queue's consumer left on the queue for it, does. Not best effort: raises when the
        queue cannot be reached (the message then comes back, and finds the turn done)."""
        return None


class NoDelivery(Delivery):
    """An operation that did not come through a queue with visibility timeouts (in-memory)."""

    async def redeliver_after(self, seconds: float) -> None:
        return None


NO_DELIVERY = NoDelivery()


async def hold(
    delivery: Delivery,
    lease_until: float,
    *,
    clock: Callable[[], float],
    margin: float,
    beat: float,
    done: asyncio.Event,
    after: float = 0.0,
) -> None:
    """Keep ``delivery`` away while the agent runs, until ``done`` is set.

    Nothing is changed for the first ``after`` seconds: a turn done by then is deleted from the
    queue when its handler returns, and the change would be a request for nothing (SQS bills
    each). A worker that dies within them has its turn resumed when the queue's own visibility
    timeout brings the message back, later than the lease would have.

    The message is set to come back ``margin`` seconds after the lease ends: if this process dies
    (killed, out of memory), the next delivery takes the turn over then. A run still going near
    that moment (a lease shorter than the run) pushes it back by ``beat`` seconds at a time, so
    no takeover starts while this worker lives, and one starts within ``beat + margin`` of its
    death. A change in flight when ``done`` is set is waited for, never left running: a Lambda
    process is frozen as soon as its handler returns.
    """
    if after > 0:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), timeout=after)
            return
    until = lease_until
    while True:
        await delivery.redeliver_after(max(until - clock(), 0.0) + margin)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), timeout=max(until - clock(), 0.0) + margin / 2)
            return
        until = clock() + beat
