"""1.0 push notification configs (flattened: task id, id and url in one message) and their requests."""

from __future__ import annotations

from pydantic import Field

from a2a_core.protocol.v1.wire.protojson import NonNegativeInt32, ProtoModel, RequiredStr, Str


class AuthenticationInfo(ProtoModel):
    """How the agent authenticates to the webhook: one HTTP scheme (``Bearer``, ``Basic``...)."""

    scheme: RequiredStr
    credentials: Str = None


class TaskPushNotificationConfig(ProtoModel):
    """A webhook for a task. In SendMessageConfiguration ``taskId`` is empty (the task is new)."""

    url: RequiredStr
    tenant: Str = None
    id: Str = None
    task_id: Str = None
    token: Str = None
    authentication: AuthenticationInfo | None = None


class GetTaskPushNotificationConfigRequest(ProtoModel):
    task_id: RequiredStr
    id: RequiredStr
    tenant: Str = None


class DeleteTaskPushNotificationConfigRequest(ProtoModel):
    task_id: RequiredStr
    id: RequiredStr
    tenant: Str = None


class ListTaskPushNotificationConfigsRequest(ProtoModel):
    task_id: RequiredStr
    tenant: Str = None
    # A plain int32: 0 is the default and means "server's choice".
    page_size: NonNegativeInt32 | None = None
    page_token: Str = None


class ListTaskPushNotificationConfigsResponse(ProtoModel):
    configs: list[TaskPushNotificationConfig] = Field(default_factory=list)
    next_page_token: Str = None
