"""Each 1.0 operation's result, both ways: the server writes the domain's answer as 1.0 JSON
(``*_json``), the client reads 1.0 JSON back into the domain model (``read_*``).

Which operation uses which is `operations.OPERATIONS`. The client reads answers as ProtoJSON is
read: fields a proto3 server leaves out because they hold the default (an empty
``nextPageToken``, a zero ``totalSize``) read as that default. A status update's ``final`` is
derived from its state (1.0 has no such flag: the stream ends at a terminal or interrupted state).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import BaseModel

from a2a_core.core.requests import PushConfigPage, TaskPage, TaskPushConfig
from a2a_core.domain import Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from a2a_core.protocol.v1.codec import (
    StreamEvent,
    event_from_v1,
    event_to_v1,
    message_from_v1,
    send_response_to_v1,
    task_from_v1,
    task_to_v1,
)
from a2a_core.protocol.v1.push_codec import push_config_from_v1, push_config_to_v1, redacted
from a2a_core.protocol.v1.wire import params as wq
from a2a_core.protocol.v1.wire import push as wp
from a2a_core.protocol.v1.wire import tasks as wt
from a2a_core.protocol.v1.wire.protojson import dump_json

# --- the server writes -----------------------------------------------------------------------


def sent_json(result: Task | Message) -> bytes:
    return dump_json(send_response_to_v1(result))


def task_json(task: Task) -> bytes:
    return dump_json(task_to_v1(task))


def task_page_to_v1(page: TaskPage, *, include_artifacts: bool = False) -> wq.ListTasksResponse:
    """``include_artifacts`` False (ListTasks' default) leaves artifacts out of every task."""
    return wq.ListTasksResponse.model_construct(
        tasks=[task_to_v1(task, include_artifacts=include_artifacts) for task in page.tasks],
        next_page_token=page.next_page_token,
        page_size=page.page_size,
        total_size=page.total_size,
    )


def task_page_json(page: TaskPage) -> bytes:
    # The engine already left artifacts out unless the query asked for them.
    return dump_json(task_page_to_v1(page, include_artifacts=True))


def push_config_json(config: TaskPushConfig) -> bytes:
    return dump_json(push_config_to_v1(config))


def push_config_page_to_v1(
    page: PushConfigPage, *, tenant: str | None = None
) -> wp.ListTaskPushNotificationConfigsResponse:
    return wp.ListTaskPushNotificationConfigsResponse.model_construct(
        configs=[push_config_to_v1(config, tenant=tenant) for config in page.configs],
        next_page_token=page.next_page_token or None,
    )


def push_config_page_json(page: PushConfigPage) -> bytes:
    return dump_json(push_config_page_to_v1(page))


def redacted_push_config_json(config: TaskPushConfig) -> bytes:
    """A push config as the 1.1 draft's Get answers it: without its credentials."""
    return push_config_json(redacted(config))


def redacted_push_config_page_json(page: PushConfigPage) -> bytes:
    """A page of push configs as the 1.1 draft's List answers it: without credentials."""
    return push_config_page_json(replace(page, configs=tuple(map(redacted, page.configs))))


def empty_json(result: None) -> bytes:
    return b"{}"  # google.protobuf.Empty


def document_json(document: bytes) -> bytes:
    """A result that is a JSON document already (the extended card as served); streams' too."""
    return document


def event_json(event: BaseModel) -> bytes:
    """A stream item (the Task, or a status or artifact update) as a 1.0 StreamResponse."""
    if not isinstance(event, Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent):
        raise TypeError(f"not a stream event: {type(event).__name__}")
    return dump_json(event_to_v1(event))


# --- the client reads (pydantic's ValidationError, a ValueError, for a wrong answer) --------


def read_sent(value: Any) -> Task | Message:
    response = wt.SendMessageResponse.model_validate(value)
    if response.task:
        return task_from_v1(response.task)
    assert response.message is not None  # the oneof validator saw exactly one member
    return message_from_v1(response.message)


def read_task(value: Any) -> Task:
    return task_from_v1(wt.Task.model_validate(value))


def read_task_page(value: Any) -> TaskPage:
    defaults = {"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0}
    page = wq.ListTasksResponse.model_validate({**defaults, **read_object(value)})
    return TaskPage(
        tasks=tuple(task_from_v1(task) for task in page.tasks),
        next_page_token=page.next_page_token,
        page_size=page.page_size,
        total_size=page.total_size,
    )


def read_event(value: Any) -> StreamEvent:
    return event_from_v1(wt.StreamResponse.model_validate(value))


def read_push_config(value: Any) -> TaskPushConfig:
    return push_config_from_v1(wp.TaskPushNotificationConfig.model_validate(value))


def read_push_config_page(value: Any) -> PushConfigPage:
    page = wp.ListTaskPushNotificationConfigsResponse.model_validate(value)
    return PushConfigPage(tuple(push_config_from_v1(c) for c in page.configs), page.next_page_token or "")


def read_empty(value: Any) -> None:
    read_object(value if value is not None else {})  # google.protobuf.Empty: {} (or nothing at all)


def read_object(value: Any) -> dict[str, Any]:
    """A JSON object as it came (the extended card document: `a2a_core.client.cards` reads it)."""
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value
