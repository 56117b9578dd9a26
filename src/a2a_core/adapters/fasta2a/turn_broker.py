"""`TurnBroker`: fasta2a's `Broker` of a hosted worker, and `TurnEventBus`, the bus it publishes on.

The kit schedules the turns (its queue, its worker), so the broker only speaks for the turn the
worker runs: ``run_task`` of that task has already happened, ``cancel_task`` of it cancels it the
kit's way (a durable write that ends the turn, seen by every instance), and
``receive_task_operations`` yields the turn's one run operation (for a worker's own ``run()``
loop). What the worker publishes on the bus is the stream clients see only where the task log
does not already say it: an artifact (or chunk) it streams is written to the task at once; a
status it publishes is dropped, since its ``update_task`` wrote it (fasta2a's worker publishes
what it stored).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Self, cast

import anyio
import anyio.abc
from fasta2a.broker import Broker, TaskOperation
from fasta2a.event_bus import EventBus
from fasta2a.schema import Message, StreamResponse, TaskIdParams, TaskSendParams
from opentelemetry.trace import get_current_span

from a2a_core.adapters.fasta2a.convert import from_fasta2a_artifact, to_fasta2a_message
from a2a_core.adapters.fasta2a.turn import current
from a2a_core.core.tasklog.changes import status
from a2a_core.domain import TaskState

logger = logging.getLogger(__name__)


class TurnEventBus(EventBus):
    """What a hosted worker publishes, made durable where the task log would not otherwise say it."""

    @contextlib.asynccontextmanager
    async def subscribe(self, task_id: str) -> AsyncIterator[anyio.abc.ObjectReceiveStream[StreamResponse]]:
        """Nothing to relay: clients follow the task through the kit's API (its stream reads the log)."""
        send, receive = anyio.create_memory_object_stream[StreamResponse]()
        await send.aclose()
        try:
            yield receive
        finally:
            await receive.aclose()

    async def emit(self, task_id: str, event: StreamResponse) -> None:
        turn = current()
        update = event.get("artifact_update")
        if update is None or task_id != turn.ctx.task_id or turn.ctx.ended:
            return  # a status (the storage wrote it), or after the turn ended: nothing to write
        artifact = from_fasta2a_artifact(dict(update["artifact"]))
        append = bool(update.get("append"))
        await turn.ctx.emit_artifact(artifact, append=append, last_chunk=update.get("last_chunk"))
        turn.streamed.add(artifact.artifact_id)

    async def close(self, task_id: str) -> None:
        """The turn's end closes the task's streams (the kit's API sees it in the log)."""


@dataclass
class TurnBroker(Broker):
    event_bus: EventBus = field(default_factory=TurnEventBus)

    async def run_task(self, params: TaskSendParams) -> None:
        if params["id"] != current().ctx.task_id:
            raise RuntimeError(
                "a hosted fasta2a worker runs the turn it is given; send a new task as a message to "
                "the agent's A2A API"
            )

    async def cancel_task(self, params: TaskIdParams) -> None:
        turn = current()
        ctx = turn.ctx
        if params["id"] != ctx.task_id:
            raise RuntimeError(
                f"this turn runs task {ctx.task_id}; cancel task {params['id']} through the A2A API"
            )
        if not ctx.ended:
            await ctx.attempt.write([status(TaskState.canceled)], ends=True)
            turn.record(TaskState.canceled, [], [])  # what the worker's storage reads back

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        return None

    async def receive_task_operations(self) -> AsyncIterator[TaskOperation]:
        """The turn's run operation, once."""
        ctx = current().ctx
        message = cast("Message", to_fasta2a_message(ctx.message))
        params = TaskSendParams(id=ctx.task_id, context_id=ctx.context_id, message=message)
        yield cast(
            "TaskOperation", {"operation": "run", "params": params, "_current_span": get_current_span()}
        )
