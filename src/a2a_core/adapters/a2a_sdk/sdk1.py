"""a2a-sdk 1.x, whose ``a2a.types`` are protobuf messages: the domain model to and from them (by
way of their ProtoJSON, which the 1.0 codec writes and reads), its `RequestContext`, its
`EventQueue`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from a2a.server.agent_execution import RequestContext
from a2a.server.events.event_queue import EventQueue
from a2a.types import a2a_pb2
from google.protobuf import json_format
from google.protobuf.message import Message as Proto
from pydantic import ValidationError

from a2a_core.adapters.a2a_sdk.calls import call_context
from a2a_core.core.errors import InvalidAgentResponseError
from a2a_core.core.turn.context import TaskContext
from a2a_core.domain import Task
from a2a_core.protocol.v1.codec import StreamEvent, event_from_v1, message_to_v1, task_to_v1
from a2a_core.protocol.v1.wire import tasks as wt
from a2a_core.protocol.v1.wire.protojson import dump

NAME = "a2a-sdk 1.x"
# A continuing turn's `RequestContext.current_task` is the task as stored before its message:
# the message is `context.message` only, and the question asked stays the status message.
MESSAGE_IN_HISTORY = False

_KEYS: dict[type[Proto], str] = {
    a2a_pb2.Task: "task",
    a2a_pb2.Message: "message",
    a2a_pb2.TaskStatusUpdateEvent: "statusUpdate",
    a2a_pb2.TaskArtifactUpdateEvent: "artifactUpdate",
}


class Queue(EventQueue):
    """The executor's event queue: each event goes to ``sink`` (the turn's writes) at once."""

    def __init__(self, sink: Callable[[Any], Awaitable[None]]) -> None:
        self._sink = sink

    async def enqueue_event(self, event: Any) -> None:
        await self._sink(event)

    async def close(self, immediate: bool = False) -> None:
        """Nothing to close (executors written for older queues may call it)."""


def task(value: Task) -> a2a_pb2.Task:
    converted: a2a_pb2.Task = json_format.ParseDict(dump(task_to_v1(value)), a2a_pb2.Task())
    return converted


def request_context(ctx: TaskContext, current: Task | None, related: list[Task]) -> RequestContext:
    body: dict[str, Any] = {"message": dump(message_to_v1(ctx.message))}
    if ctx.accepted_output_modes:
        body["configuration"] = {"acceptedOutputModes": list(ctx.accepted_output_modes)}
    if ctx.metadata:
        body["metadata"] = ctx.metadata
    request = json_format.ParseDict(body, a2a_pb2.SendMessageRequest(), ignore_unknown_fields=True)
    return RequestContext(
        call_context(ctx),
        request,
        task_id=ctx.task_id,
        context_id=ctx.context_id,
        task=None if current is None else task(current),
        related_tasks=[task(related_task) for related_task in related],
    )


def cancel_context(ctx: TaskContext, current: Task) -> RequestContext:
    return RequestContext(
        call_context(ctx), None, task_id=ctx.task_id, context_id=ctx.context_id, task=task(current)
    )


def event(raw: object) -> StreamEvent:
    """The domain event of what the executor enqueued; `InvalidAgentResponseError` for anything
    that is not a 1.x Task, Message or update event, or not a valid one."""
    key = _KEYS.get(type(raw))
    if key is None or not isinstance(raw, Proto):
        raise InvalidAgentResponseError(
            f"the executor enqueued a {type(raw).__name__}; {NAME} executors enqueue a Task, a Message "
            "or a status or artifact update event of a2a.types"
        )
    try:
        return event_from_v1(wt.StreamResponse.model_validate({key: json_format.MessageToDict(raw)}))
    except ValidationError as error:
        raise InvalidAgentResponseError(
            f"the executor enqueued an invalid {type(raw).__name__}: {error}"
        ) from None
