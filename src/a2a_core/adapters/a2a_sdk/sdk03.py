"""a2a-sdk 0.3, whose ``a2a.types`` are pydantic models of A2A 0.3, the shape of the domain model
itself: converted through their JSON. Its `RequestContext`, its `EventQueue`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from a2a import types as sdk
from a2a.server.agent_execution import RequestContext
from a2a.server.events.event_queue import EventQueue
from pydantic import BaseModel, ValidationError

from a2a_core.adapters.a2a_sdk.calls import call_context
from a2a_core.core.errors import InvalidAgentResponseError
from a2a_core.core.turn.context import TaskContext
from a2a_core.domain import Task, stream_event_adapter
from a2a_core.domain._base import to_wire
from a2a_core.protocol.v1.codec import StreamEvent

NAME = "a2a-sdk 0.3"
# A continuing turn's `RequestContext.current_task` has the message in its history (0.3's server
# adds it, with the question asked, before the executor runs).
MESSAGE_IN_HISTORY = True

_EVENTS = (sdk.Task, sdk.Message, sdk.TaskStatusUpdateEvent, sdk.TaskArtifactUpdateEvent)
M = TypeVar("M", bound=BaseModel)


class Queue(EventQueue):
    """The executor's event queue: each event goes to ``sink`` (the turn's writes) at once."""

    def __init__(self, sink: Callable[[Any], Awaitable[None]]) -> None:
        super().__init__()
        self._sink = sink

    async def enqueue_event(self, event: Any) -> None:
        await self._sink(event)


def _to(model: type[M], value: BaseModel) -> M:
    return model.model_validate(to_wire(value))


def request_context(ctx: TaskContext, current: Task | None, related: list[Task]) -> RequestContext:
    modes = ctx.accepted_output_modes
    params = sdk.MessageSendParams(
        message=_to(sdk.Message, ctx.message),
        configuration=sdk.MessageSendConfiguration(accepted_output_modes=list(modes)) if modes else None,
        metadata=ctx.metadata,
    )
    return RequestContext(
        request=params,
        task_id=ctx.task_id,
        context_id=ctx.context_id,
        task=None if current is None else _to(sdk.Task, current),
        related_tasks=[_to(sdk.Task, related_task) for related_task in related],
        call_context=call_context(ctx),
    )


def cancel_context(ctx: TaskContext, current: Task) -> RequestContext:
    return RequestContext(
        task_id=ctx.task_id,
        context_id=ctx.context_id,
        task=_to(sdk.Task, current),
        call_context=call_context(ctx),
    )


def event(raw: object) -> StreamEvent:
    """The domain event of what the executor enqueued; `InvalidAgentResponseError` for anything
    that is not a 0.3 Task, Message or update event."""
    if not isinstance(raw, _EVENTS):
        raise InvalidAgentResponseError(
            f"the executor enqueued a {type(raw).__name__}; {NAME} executors enqueue a Task, a Message "
            "or a status or artifact update event of a2a.types"
        )
    try:
        return stream_event_adapter.validate_python(to_wire(raw))
    except ValidationError as error:
        raise InvalidAgentResponseError(
            f"the executor enqueued an invalid {type(raw).__name__}: {error}"
        ) from None
