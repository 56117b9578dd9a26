"""A2A 1.0 (both bindings): each operation's params and result, through the server's own codec.

Requests encode with `a2a_core.protocol.v1.codec` (domain -> wire) and results decode with it
(wire -> domain), so the client reads exactly what the server writes. Answers are read as
ProtoJSON is: fields a proto3 server leaves out because they hold the default (an empty
``nextPageToken``, a zero ``totalSize``) read as that default. A status update's ``final`` is
derived from its state (1.0 has no such flag: the stream ends at a terminal or interrupted state).
"""

from __future__ import annotations

from typing import Any

from a2a_core.client import operations as op
from a2a_core.client.operations import Operation, compact
from a2a_core.core.requests import (
    ListTasksQuery,
    PushConfigPage,
    PushConfigQuery,
    PushConfigRef,
    SendRequest,
    TaskPage,
    TaskPushConfig,
    TaskQuery,
    TaskRef,
)
from a2a_core.domain import Message, Task
from a2a_core.protocol.v1.codec import (
    StreamEvent,
    event_from_v1,
    message_from_v1,
    message_to_v1,
    state_to_v1,
    task_from_v1,
)
from a2a_core.protocol.v1.push_codec import push_config_from_v1, push_config_to_v1
from a2a_core.protocol.v1.wire import params as wq
from a2a_core.protocol.v1.wire import push as wp
from a2a_core.protocol.v1.wire import tasks as wt
from a2a_core.protocol.v1.wire.protojson import dump, format_timestamp


def _send(request: SendRequest) -> dict[str, Any]:
    modes = request.accepted_output_modes
    push = request.push_config
    configuration = wq.SendMessageConfiguration.model_construct(
        accepted_output_modes=list(modes) if modes else None,
        task_push_notification_config=push_config_to_v1(TaskPushConfig("", push)) if push else None,
        history_length=request.history_length,
        return_immediately=None if request.blocking is None else not request.blocking,
    )
    body = wq.SendMessageRequest.model_construct(
        message=message_to_v1(request.message),
        configuration=configuration,
        metadata=request.metadata,
        tenant=request.tenant,
    )
    return dump(body)


def _get(query: TaskQuery) -> dict[str, Any]:
    return compact(id=query.task_id, historyLength=query.history_length)


def _list(query: ListTasksQuery) -> dict[str, Any]:
    after = query.status_timestamp_after
    return compact(
        contextId=query.context_id,
        status=state_to_v1(query.state).value if query.state else None,
        pageSize=query.page_size,
        pageToken=query.page_token,
        historyLength=query.history_length,
        statusTimestampAfter=format_timestamp(after) if after else None,
        includeArtifacts=query.include_artifacts,
    )


def _cancel(ref: TaskRef) -> dict[str, Any]:
    return compact(id=ref.task_id, metadata=ref.metadata)


def _subscribe(ref: TaskRef) -> dict[str, Any]:
    return compact(id=ref.task_id)


def _set_push(config: TaskPushConfig) -> dict[str, Any]:
    return dump(push_config_to_v1(config))


def _push_ref(ref: PushConfigRef) -> dict[str, Any]:
    return compact(taskId=ref.task_id, id=ref.config_id)


def _list_push(query: PushConfigQuery) -> dict[str, Any]:
    return compact(taskId=query.task_id, pageSize=query.page_size, pageToken=query.page_token)


def _sent(value: Any) -> Task | Message:
    response = wt.SendMessageResponse.model_validate(value)
    return task_from_v1(response.task) if response.task else message_from_v1(_present(response.message))


def _task(value: Any) -> Task:
    return task_from_v1(wt.Task.model_validate(value))


def _page(value: Any) -> TaskPage:
    defaults = {"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0}
    page = wq.ListTasksResponse.model_validate({**defaults, **op.json_object(value)})
    return TaskPage(
        tasks=tuple(task_from_v1(task) for task in page.tasks),
        next_page_token=page.next_page_token,
        page_size=page.page_size,
        total_size=page.total_size,
    )


def _event(value: Any) -> StreamEvent:
    return event_from_v1(wt.StreamResponse.model_validate(value))


def _push(value: Any) -> TaskPushConfig:
    return push_config_from_v1(wp.TaskPushNotificationConfig.model_validate(value))


def _push_page(value: Any) -> PushConfigPage:
    page = wp.ListTaskPushNotificationConfigsResponse.model_validate(value)
    return PushConfigPage(tuple(push_config_from_v1(c) for c in page.configs), page.next_page_token or "")


def _empty(value: Any) -> None:
    op.json_object(value if value is not None else {})  # google.protobuf.Empty: {} (or nothing at all)


def _present(message: Any) -> Any:
    assert message is not None  # the oneof validator saw exactly one member
    return message


CODEC = op.table(
    Operation(op.SEND, op.SEND, _send, _sent),
    Operation(op.STREAM, op.STREAM, _send, _event),
    Operation(op.GET_TASK, op.GET_TASK, _get, _task),
    Operation(op.LIST_TASKS, op.LIST_TASKS, _list, _page),
    Operation(op.CANCEL, op.CANCEL, _cancel, _task),
    Operation(op.SUBSCRIBE, op.SUBSCRIBE, _subscribe, _event),
    Operation(op.SET_PUSH, op.SET_PUSH, _set_push, _push),
    Operation(op.GET_PUSH, op.GET_PUSH, _push_ref, _push),
    Operation(op.LIST_PUSH, op.LIST_PUSH, _list_push, _push_page),
    Operation(op.DELETE_PUSH, op.DELETE_PUSH, _push_ref, _empty),
    # The card document as served: `a2a_core.client.cards` reads it, as it reads the public one.
    Operation(op.EXTENDED_CARD, op.EXTENDED_CARD, op.no_params, op.json_object),
)
