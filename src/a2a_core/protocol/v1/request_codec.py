"""Each 1.0 operation's params, both ways: the server reads a request message into the core's
neutral request (``*_from_v1``), the client writes a neutral request as params (``*_to_v1``).

Which operation uses which is `operations.OPERATIONS`. Tenant policy: this server serves no
tenant unless one is configured, so a request that names another tenant is refused with -32602
on the ``tenant`` field (`check_tenant`).
"""

from __future__ import annotations

from typing import Any

from a2a_core.core.errors import InvalidParamsError
from a2a_core.core.requests import (
    ExtendedCardRequest,
    ListTasksQuery,
    PushConfigQuery,
    PushConfigRef,
    SendRequest,
    TaskPushConfig,
    TaskQuery,
    TaskRef,
)
from a2a_core.protocol.v1.codec import message_from_v1, message_to_v1, state_from_v1, state_to_v1
from a2a_core.protocol.v1.drafts import speaks_1_1
from a2a_core.protocol.v1.push_codec import push_config_to_v1, push_notification_config_from_v1
from a2a_core.protocol.v1.wire import params as wq
from a2a_core.protocol.v1.wire import push as wp
from a2a_core.protocol.v1.wire.protojson import dump, format_timestamp

# --- the server reads ------------------------------------------------------------------------


def send_from_v1(request: wq.SendMessageRequest) -> SendRequest:
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
        if_generation_match=config.if_generation_match if config and speaks_1_1() else None,
    )


def task_query_from_v1(request: wq.GetTaskRequest) -> TaskQuery:
    return TaskQuery(
        task_id=request.id,
        history_length=request.history_length,
        tenant=request.tenant,
        current_generation=request.current_generation if speaks_1_1() else None,
    )


def list_query_from_v1(request: wq.ListTasksRequest) -> ListTasksQuery:
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


def cancel_from_v1(request: wq.CancelTaskRequest) -> TaskRef:
    return TaskRef(task_id=request.id, metadata=request.metadata, tenant=request.tenant)


def subscribe_from_v1(request: wq.SubscribeToTaskRequest) -> TaskRef:
    return TaskRef(
        task_id=request.id,
        tenant=request.tenant,
        after_generation=request.current_generation if speaks_1_1() else None,
    )


def create_push_from_v1(request: wp.TaskPushNotificationConfig) -> TaskPushConfig:
    if not request.task_id:
        raise InvalidParamsError(
            "Invalid params: taskId: Field required", data=[{"field": "taskId", "message": "Field required"}]
        )
    return TaskPushConfig(
        task_id=request.task_id, config=push_notification_config_from_v1(request), tenant=request.tenant
    )


def push_ref_from_v1(
    request: wp.GetTaskPushNotificationConfigRequest | wp.DeleteTaskPushNotificationConfigRequest,
) -> PushConfigRef:
    return PushConfigRef(task_id=request.task_id, config_id=request.id, tenant=request.tenant)


def push_query_from_v1(request: wp.ListTaskPushNotificationConfigsRequest) -> PushConfigQuery:
    return PushConfigQuery(
        task_id=request.task_id,
        page_size=request.page_size or None,
        page_token=request.page_token,
        tenant=request.tenant,
    )


def card_request_from_v1(request: wq.GetExtendedAgentCardRequest) -> ExtendedCardRequest:
    return ExtendedCardRequest(tenant=request.tenant)


def check_tenant(requested: str | None, served: str | None = None) -> None:
    """Refuse a request that names a tenant other than the one this server serves.

    ``served`` None (the default: one agent, no tenants) accepts only requests without a tenant.
    """
    if requested is None or requested == served:
        return
    known = f"it serves tenant {served!r}" if served else "it serves no tenants"
    message = f"Tenant {requested!r} is not served by this agent ({known})"
    raise InvalidParamsError(message, data=[{"field": "tenant", "message": message}])


# --- the client writes (the tenant is the transport's: path or params) ----------------------


def compact(**fields: Any) -> dict[str, Any]:
    """Params from camelCase keyword arguments, the unset (None) ones left out."""
    return {name: value for name, value in fields.items() if value is not None}


def send_to_v1(request: SendRequest) -> dict[str, Any]:
    modes = request.accepted_output_modes
    push = request.push_config
    configuration = wq.SendMessageConfiguration.model_construct(
        accepted_output_modes=list(modes) if modes else None,
        task_push_notification_config=push_config_to_v1(TaskPushConfig("", push)) if push else None,
        history_length=request.history_length,
        return_immediately=None if request.blocking is None else not request.blocking,
        if_generation_match=request.if_generation_match,
    )
    body = wq.SendMessageRequest.model_construct(
        message=message_to_v1(request.message),
        configuration=configuration,
        metadata=request.metadata,
        tenant=request.tenant,
    )
    return dump(body)


def task_query_to_v1(query: TaskQuery) -> dict[str, Any]:
    generation = query.current_generation
    return compact(
        id=query.task_id,
        historyLength=query.history_length,
        currentGeneration=None if generation is None else str(generation),
    )


def list_query_to_v1(query: ListTasksQuery) -> dict[str, Any]:
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


def cancel_to_v1(ref: TaskRef) -> dict[str, Any]:
    return compact(id=ref.task_id, metadata=ref.metadata)


def subscribe_to_v1(ref: TaskRef) -> dict[str, Any]:
    return compact(id=ref.task_id)


def create_push_to_v1(config: TaskPushConfig) -> dict[str, Any]:
    return dump(push_config_to_v1(config))


def push_ref_to_v1(ref: PushConfigRef) -> dict[str, Any]:
    return compact(taskId=ref.task_id, id=ref.config_id)


def push_query_to_v1(query: PushConfigQuery) -> dict[str, Any]:
    return compact(taskId=query.task_id, pageSize=query.page_size, pageToken=query.page_token)


def no_params(request: object) -> dict[str, Any]:
    return {}
