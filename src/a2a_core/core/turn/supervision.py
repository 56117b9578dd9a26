"""One agent run, in an asyncio task of its own, watched by the worker.

The agent's task is separate from the worker's, so what the agent raises is an outcome, not an
exception in the worker: an `asyncio.CancelledError` the agent raises (a `BaseException`) fails its
own task only, and the other records of a Lambda batch (each its own worker call) run on. Only
``KeyboardInterrupt`` and ``SystemExit`` are the process's: asyncio lets them through the loop.

The worker stops the agent when the turn's time is up, and when its `TaskContext` is interrupted
(the turn was taken over or canceled, or the store became unavailable), whatever the agent did
with the error its emit got: it may have caught it and gone on. A cancel is noticed while the
agent emits nothing too: the task is watched meanwhile (`Attempt.watch_cancel`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from a2a_core.core.turn.context import TaskContext
from a2a_core.core.turn.executor import Agent, Content

logger = logging.getLogger(__name__)

# How long an interrupted agent may take to notice (its emit raised) and return on its own.
GRACE_SECONDS = 2.0
# The longest a canceled task's agent runs on before the worker notices (polling the task where
# its store cannot wake us on writes: one head read per poll, a few while the agent is busy).
CANCEL_POLL_SECONDS = 2.0


@dataclass(frozen=True)
class AgentOutcome:
    """How the agent's run ended: it returned ``result``, raised ``error`` (its own failure), ran
    out of time (``timed_out``), or was stopped because its context was interrupted."""

    result: Content | None = None
    error: BaseException | None = None
    timed_out: bool = False
    stopped: bool = False


async def run_agent(
    executor: Agent,
    ctx: TaskContext,
    *,
    budget: float | None,
    grace: float = GRACE_SECONDS,
    cancel_poll: float = CANCEL_POLL_SECONDS,
) -> AgentOutcome:
    """Run ``executor`` for ``ctx``'s turn for at most ``budget`` seconds (None: no limit),
    looking for a cancel of the task at least every ``cancel_poll`` seconds meanwhile.

    If the worker's own task is cancelled (its process is stopping), the agent is cancelled too
    and the cancellation propagates.
    """
    agent = asyncio.create_task(executor.run(ctx), name=f"agent {ctx.task_id}")
    interrupted = asyncio.create_task(ctx.attempt.wait_interrupted())
    watcher = asyncio.create_task(ctx.attempt.watch_cancel(poll_max=cancel_poll))
    try:
        done, _ = await asyncio.wait(
            {agent, interrupted}, timeout=budget, return_when=asyncio.FIRST_COMPLETED
        )
        if agent not in done and interrupted in done:
            done, _ = await asyncio.wait({agent}, timeout=grace)  # let it see its error and return
        if agent not in done:
            await _stop(agent, grace)
            return AgentOutcome(timed_out=not interrupted.done(), stopped=interrupted.done())
    except BaseException:
        agent.cancel()
        raise
    finally:
        interrupted.cancel()
        watcher.cancel()
    if agent.cancelled():  # the agent raised CancelledError itself: nobody cancelled it
        return AgentOutcome(
            error=asyncio.CancelledError(f"agent of task {ctx.task_id} raised CancelledError")
        )
    error = agent.exception()
    if error is not None:
        return AgentOutcome(error=error)
    return AgentOutcome(result=agent.result())


async def _stop(agent: asyncio.Task[Content | None], grace: float) -> None:
    agent.cancel()
    done, _ = await asyncio.wait({agent}, timeout=grace)
    if not done:
        logger.warning("%s ignored its cancellation; leaving it behind", agent.get_name())
        return
    with contextlib.suppress(BaseException):
        agent.result()  # retrieved, so asyncio does not log it as never retrieved
