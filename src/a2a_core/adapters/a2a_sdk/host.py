"""`ExecutorAgent`: one turn of a task is one ``execute`` of the a2a-sdk executor (see the package
docstring for what it gets and how its events are written)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from types import ModuleType
from typing import Any

from a2a_core.adapters.a2a_sdk import memory_sessions
from a2a_core.adapters.a2a_sdk.events import TurnEvents
from a2a_core.adapters.a2a_sdk.turn import entered_turn
from a2a_core.core.errors import InvalidAgentResponseError, TaskCanceledError, TurnLostError
from a2a_core.core.turn.context import TaskContext
from a2a_core.core.turn.executor import Agent, Content
from a2a_core.domain import Message, Role, Task, TaskState, TaskStatus

logger = logging.getLogger(__name__)

# How long a canceled task's executor gets for its cancel(), and then to stop once cancelled.
CANCEL_SECONDS = 1.0
STOP_SECONDS = 0.5


def installed_generation() -> ModuleType:
    """The module speaking the installed a2a-sdk's types: `sdk1` (1.x) or `sdk03` (0.3)."""
    try:
        importlib.import_module("a2a.types.a2a_pb2")
    except ImportError:
        return importlib.import_module("a2a_core.adapters.a2a_sdk.sdk03")
    return importlib.import_module("a2a_core.adapters.a2a_sdk.sdk1")


class ExecutorAgent(Agent):
    def __init__(self, executor: Any) -> None:
        """Host ``executor``, an a2a-sdk ``AgentExecutor`` of the installed a2a-sdk."""
        self.executor = executor
        self.sdk = installed_generation()
        self._sessions_checked = memory_sessions.check(executor)  # warns at startup, where it can

    async def run(self, ctx: TaskContext) -> Content | None:
        history = await ctx.load_history() if ctx.turn > 1 else ctx.history
        current = current_task(ctx, history, message_in_history=self.sdk.MESSAGE_IN_HISTORY)
        context = self.sdk.request_context(ctx, current, await ctx.referenced_tasks())
        events = TurnEvents(ctx, known_messages={message.message_id for message in history})

        async def write(raw: object) -> None:
            try:
                event = self.sdk.event(raw)
            except InvalidAgentResponseError as error:
                events.refuse(error)
                return
            await events.handle(event)

        with entered_turn(ctx):  # the framework's adapters (a history provider) find the turn
            execute = asyncio.create_task(self.executor.execute(context, self.sdk.Queue(write)))
        stopped = asyncio.create_task(_first(ctx.attempt.wait_interrupted(), events.refusal.wait()))
        try:
            await asyncio.wait({execute, stopped}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            execute.cancel()
            raise
        finally:
            stopped.cancel()
        if _canceled(ctx):  # told even when execute returned meanwhile (its writes were refused)
            await self._cancel(ctx, current)
        if not execute.done():
            await _stop(execute, ctx)
        elif ctx.interruption is None and events.refused is None:
            execute.result()  # what the executor raised fails the task
        if not self._sessions_checked:  # what holds its sessions was built by this turn
            self._sessions_checked = memory_sessions.check(self.executor)
        if events.refused is not None:
            raise events.refused
        return None

    async def _cancel(self, ctx: TaskContext, current: Task | None) -> None:
        """Tell the executor its task was canceled (what it enqueues then is dropped)."""
        canceled = (current or ctx.task).model_copy(update={"status": TaskStatus(state=TaskState.canceled)})
        try:
            async with asyncio.timeout(CANCEL_SECONDS):
                await self.executor.cancel(self.sdk.cancel_context(ctx, canceled), self.sdk.Queue(_dropped))
        # Many executors raise "cancel not supported" (or anything): the task is canceled anyway.
        except Exception as error:  # noqa: BLE001
            logger.info("task %s: the executor's cancel() raised %r", ctx.task_id, error)


def _canceled(ctx: TaskContext) -> bool:
    interruption = ctx.interruption
    return isinstance(interruption, TaskCanceledError) and not isinstance(interruption, TurnLostError)


async def _stop(execute: asyncio.Task[None], ctx: TaskContext) -> None:
    """Cancel ``execute`` (its task canceled, its turn lost, or what it enqueued refused)."""
    execute.cancel()
    done, _ = await asyncio.wait({execute}, timeout=STOP_SECONDS)
    if not done:
        logger.warning("task %s: the executor ignored its cancellation", ctx.task_id)
    else:
        with contextlib.suppress(BaseException):
            execute.result()


def current_task(ctx: TaskContext, history: list[Message], *, message_in_history: bool) -> Task | None:
    """The task as a2a-sdk's server hands it to ``execute``: None on a task's first turn; on a
    later one, in the state it waited in, with its history before this turn's message (1.x,
    the question asked as the status message) or through it (0.3)."""
    if ctx.turn == 1:
        return None
    started = next(
        (i for i in range(len(history) - 1, -1, -1) if history[i].message_id == ctx.message.message_id),
        len(history),
    )
    before = history[:started]
    state = ctx.resumed_from or TaskState.input_required
    if message_in_history:
        status, kept = TaskStatus(state=state), [*before, ctx.message]
    else:
        asked = before[-1] if before and before[-1].role == Role.agent else None
        status, kept = TaskStatus(state=state, message=asked), before[:-1] if asked else before
    return Task(
        id=ctx.task_id,
        context_id=ctx.context_id,
        status=status,
        history=kept,
        artifacts=ctx.task.artifacts,
        metadata=ctx.task.metadata,
    )


async def _first(*waits: Any) -> None:
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


async def _dropped(event: object) -> None:
    """What a canceled task's executor enqueues (its own ``canceled`` status among it)."""
