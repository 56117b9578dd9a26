"""A2A 0.3 and 0.2.5 (JSON-RPC): each operation's method, params and result.

Their tasks, messages, parts and events are the domain model's own JSON, so results validate
straight into it; ``final`` on a status update is the server's. ListTasks does not exist before
1.0 and is not in the table.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, TypeAdapter

from a2a_core.client import operations as op
from a2a_core.client.events import Event
from a2a_core.client.operations import Operation
from a2a_core.core.requests import (
    PushConfigPage,
    PushConfigQuery,
    PushConfigRef,
    SendRequest,
    TaskPushConfig,
    TaskQuery,
    TaskRef,
)
from a2a_core.domain import Message, Task
from a2a_core.domain._base import DEFER
from a2a_core.protocol.v0 import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    MessageSendConfiguration,
    MessageSendParams,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
)
from a2a_core.protocol.v0.method_names import MethodName
from a2a_core.protocol.v1 import operations as v1

send_result: TypeAdapter[Task | Message] = TypeAdapter(
    Annotated[Task | Message, Field(discriminator="kind")], config=DEFER
)
stream_event: TypeAdapter[Event] = TypeAdapter(Annotated[Event, Field(discriminator="kind")], config=DEFER)
task: TypeAdapter[Task] = TypeAdapter(Task)
push_config: TypeAdapter[TaskPushNotificationConfig] = TypeAdapter(TaskPushNotificationConfig)
push_configs: TypeAdapter[list[TaskPushNotificationConfig]] = TypeAdapter(list[TaskPushNotificationConfig])


def _params(params: BaseModel) -> dict[str, Any]:
    return params.model_dump(mode="json", by_alias=True, exclude_none=True)


def _send(request: SendRequest) -> dict[str, Any]:
    modes = request.accepted_output_modes
    configuration = MessageSendConfiguration(
        blocking=request.blocking,
        history_length=request.history_length,
        push_notification_config=request.push_config,
        accepted_output_modes=list(modes) if modes is not None else None,
    )
    return _params(
        MessageSendParams(message=request.message, configuration=configuration, metadata=request.metadata)
    )


def _get(query: TaskQuery) -> dict[str, Any]:
    return _params(TaskQueryParams(id=query.task_id, history_length=query.history_length))


def _task_id(ref: TaskRef) -> dict[str, Any]:
    return _params(TaskIdParams(id=ref.task_id, metadata=ref.metadata))


def _set_push(config: TaskPushConfig) -> dict[str, Any]:
    return _params(TaskPushNotificationConfig(task_id=config.task_id, push_notification_config=config.config))


def _get_push(ref: PushConfigRef) -> dict[str, Any]:
    return _params(
        GetTaskPushNotificationConfigParams(id=ref.task_id, push_notification_config_id=ref.config_id)
    )


def _list_push(query: PushConfigQuery) -> dict[str, Any]:
    return _params(ListTaskPushNotificationConfigParams(id=query.task_id))


def _delete_push(ref: PushConfigRef) -> dict[str, Any]:
    assert ref.config_id is not None
    return _params(
        DeleteTaskPushNotificationConfigParams(id=ref.task_id, push_notification_config_id=ref.config_id)
    )


def _push(value: Any) -> TaskPushConfig:
    config = push_config.validate_python(value)
    return TaskPushConfig(task_id=config.task_id, config=config.push_notification_config)


def _push_page(value: Any) -> PushConfigPage:
    configs = push_configs.validate_python(value)
    return PushConfigPage(tuple(TaskPushConfig(c.task_id, c.push_notification_config) for c in configs))


def _nothing(value: Any) -> None:
    # a2a-sdk 0.3 leaves out `"result": null` (tasks/pushNotificationConfig/delete).
    if value is not None:
        raise ValueError(f"expected null, got {type(value).__name__}")


_CARD = v1.GET_EXTENDED_CARD

# Keyed by the 1.0 operation each method is; ListTasks has none.
CODEC = op.table(
    Operation(v1.SEND_MESSAGE.name, MethodName.message_send, _send, send_result.validate_python),
    Operation(v1.SEND_STREAMING_MESSAGE.name, MethodName.message_stream, _send, stream_event.validate_python),
    Operation(v1.GET_TASK.name, MethodName.tasks_get, _get, task.validate_python),
    Operation(v1.CANCEL_TASK.name, MethodName.tasks_cancel, _task_id, task.validate_python),
    Operation(
        v1.SUBSCRIBE_TO_TASK.name, MethodName.tasks_resubscribe, _task_id, stream_event.validate_python
    ),
    Operation(v1.CREATE_PUSH_CONFIG.name, MethodName.push_config_set, _set_push, _push),
    Operation(v1.GET_PUSH_CONFIG.name, MethodName.push_config_get, _get_push, _push),
    Operation(v1.LIST_PUSH_CONFIGS.name, MethodName.push_config_list, _list_push, _push_page),
    Operation(v1.DELETE_PUSH_CONFIG.name, MethodName.push_config_delete, _delete_push, _nothing),
    # 0.3 only (0.2.5 has a plain GET instead, `a2a_core.client.extended`): no params, and the
    # card document as served, which `cards` reads as it reads 1.0's.
    Operation(_CARD.name, MethodName.extended_card, _CARD.encode_params, _CARD.decode_result),
)
