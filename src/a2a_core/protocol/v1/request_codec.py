"""1.0 operation params -> `a2a_core.core.requests`, and the neutral pages -> 1.0 list responses.

One table names every 1.0 operation with its request message; both bindings decode through it
(JSON-RPC ``params``; HTTP+JSON path, query and body merged by `rest_routes` into the same
shape). Tenant policy: this server serves no tenant unless one is configured, so a request that
names another tenant is refused with -32602 on the ``tenant`` field (`check_tenant`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from a2a_core.core.errors import InvalidParamsError, MethodNotFoundError
from a2a_core.core.requests import (
    ExtendedCardRequest,
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
from a2a_core.protocol.v1.codec import message_from_v1, state_from_v1, task_to_v1
from a2a_core.protocol.v1.push_codec import push_config_to_v1, push_notification_config_from_v1
from a2a_core.protocol.v1.wire import params as wq
from a2a_core.protocol.v1.wire import push as wp
from a2a_core.protocol.v1.wire.protojson import ProtoModel, invalid_params

NeutralRequest = (
    SendRequest
    | TaskQuery
    | TaskRef
    | ListTasksQuery
    | TaskPushConfig
    | PushConfigRef
    | PushConfigQuery
    | ExtendedCardRequest
)


def _send(request: wq.SendMessageRequest) -> SendRequest:
    config = request.configuration
    returns_now = config.return_immediately if config else None
    push = config.task_push_notification_config if config else None
    modes = config.accepted_output_modes if config else None
    return SendRequest(
        message=message_from_v1(request.message),
        blocking=None if returns_now is None else not returns_now,
        history_length=config.history_length if config else None,
        accepted_output_modes=tuple(modes) if modes else None,
        push_config=push_notification_config_from_v1(push) if push else None,
        metadata=request.metadata,
        tenant=request.tenant,
    )


def _get(request: wq.GetTaskRequest) -> TaskQuery:
    return TaskQuery(task_id=request.id, history_length=request.history_length, tenant=request.tenant)


def _list(request: wq.ListTasksRequest) -> ListTasksQuery:
    return ListTasksQuery(
        context_id=request.context_id,
        state=state_from_v1(request.status) if request.status else None,
        page_size=request.page_size,
        page_token=request.page_token,
        history_length=request.history_length,
        status_timestamp_after=request.status_timestamp_after,
        include_artifacts=request.include_artifacts,
        tenant=request.tenant,
    )


def _cancel(request: wq.CancelTaskRequest) -> TaskRef:
    return TaskRef(task_id=request.id, metadata=request.metadata, tenant=request.tenant)


def _subscribe(request: wq.SubscribeToTaskRequest) -> TaskRef:
    return TaskRef(task_id=request.id, tenant=request.tenant)


def _create_push(request: wp.TaskPushNotificationConfig) -> TaskPushConfig:
    if not request.task_id:
        raise InvalidParamsError(
            "Invalid params: taskId: Field required", data=[{"field": "taskId", "message": "Field required"}]
        )
    return TaskPushConfig(
        task_id=request.task_id, config=push_notification_config_from_v1(request), tenant=request.tenant
    )


def _push_ref(
    request: wp.GetTaskPushNotificationConfigRequest | wp.DeleteTaskPushNotificationConfigRequest,
) -> PushConfigRef:
    return PushConfigRef(task_id=request.task_id, config_id=request.id, tenant=request.tenant)


def _list_push(request: wp.ListTaskPushNotificationConfigsRequest) -> PushConfigQuery:
    return PushConfigQuery(
        task_id=request.task_id,
        page_size=request.page_size or None,
        page_token=request.page_token,
        tenant=request.tenant,
    )


def _card(request: wq.GetExtendedAgentCardRequest) -> ExtendedCardRequest:
    return ExtendedCardRequest(tenant=request.tenant)


Decoder = Callable[[Any], NeutralRequest]

# Operation (the JSON-RPC method name) -> (its request message, the decoder to a neutral request).
OPERATIONS: Mapping[str, tuple[type[ProtoModel], Decoder]] = {
    "SendMessage": (wq.SendMessageRequest, _send),
    "SendStreamingMessage": (wq.SendMessageRequest, _send),
    "GetTask": (wq.GetTaskRequest, _get),
    "ListTasks": (wq.ListTasksRequest, _list),
    "CancelTask": (wq.CancelTaskRequest, _cancel),
    "SubscribeToTask": (wq.SubscribeToTaskRequest, _subscribe),
    "CreateTaskPushNotificationConfig": (wp.TaskPushNotificationConfig, _create_push),
    "GetTaskPushNotificationConfig": (wp.GetTaskPushNotificationConfigRequest, _push_ref),
    "ListTaskPushNotificationConfigs": (wp.ListTaskPushNotificationConfigsRequest, _list_push),
    "DeleteTaskPushNotificationConfig": (wp.DeleteTaskPushNotificationConfigRequest, _push_ref),
    "GetExtendedAgentCard": (wq.GetExtendedAgentCardRequest, _card),
}
STREAMING_OPERATIONS = frozenset({"SendStreamingMessage", "SubscribeToTask"})


def decode_params(operation: str, params: object) -> NeutralRequest:
    """The neutral request for an operation's params (absent params read as ``{}``).

    Raises MethodNotFoundError for an unknown operation and InvalidParamsError (every field
    violation in ``data``) for params the request message refuses.
    """
    entry = OPERATIONS.get(operation)
    if entry is None:
        raise MethodNotFoundError(f"Method {operation!r} not found")
    model, decode = entry
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise InvalidParamsError(f'Field "params" must be an object for {operation}')
    try:
        request = model.model_validate(params)
    except ValidationError as error:
        raise invalid_params(error) from None
    return decode(request)


def check_tenant(requested: str | None, served: str | None = None) -> None:
    """Refuse a request that names a tenant other than the one this server serves.

    ``served`` None (the default: one agent, no tenants) accepts only requests without a tenant.
    """
    if requested is None or requested == served:
        return
    known = f"it serves tenant {served!r}" if served else "it serves no tenants"
    message = f"Tenant {requested!r} is not served by this agent ({known})"
    raise InvalidParamsError(message, data=[{"field": "tenant", "message": message}])


def task_page_to_v1(page: TaskPage, *, include_artifacts: bool = False) -> wq.ListTasksResponse:
    """``include_artifacts`` False (ListTasks' default) leaves artifacts out of every task."""
    return wq.ListTasksResponse.model_construct(
        tasks=[task_to_v1(task, include_artifacts=include_artifacts) for task in page.tasks],
        next_page_token=page.next_page_token,
        page_size=page.page_size,
        total_size=page.total_size,
    )


def push_config_page_to_v1(
    page: PushConfigPage, *, tenant: str | None = None
) -> wp.ListTaskPushNotificationConfigsResponse:
    return wp.ListTaskPushNotificationConfigsResponse.model_construct(
        configs=[push_config_to_v1(config, tenant=tenant) for config in page.configs],
        next_page_token=page.next_page_token or None,
    )
