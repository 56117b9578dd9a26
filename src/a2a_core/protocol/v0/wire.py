"""The A2A 0.2.5 / 0.3 wire models that only 0.x has: the params of its JSON-RPC methods, and
``TaskPushNotificationConfig`` (a task id and one of its configs: the params and result of
``tasks/pushNotificationConfig/*``, and what `a2a_core.client` returns for a config whatever the
generation). What 0.x tasks, messages, parts and configs look like is the domain model's own JSON.

1.0's wire models are `a2a_core.protocol.v1.wire`; the core's neutral requests (the ``TaskPushConfig``
both codecs decode into) are `a2a_core.core.requests`.
"""

from typing import Any

from pydantic import Field, StrictBool, StrictInt

from a2a_core.domain._base import A2ABaseModel
from a2a_core.domain.push import PushNotificationConfig
from a2a_core.domain.tasks import Message


class TaskIdParams(A2ABaseModel):
    """Parameters containing only a task ID, used for simple task operations."""

    id: str
    metadata: dict[str, Any] | None = None


class TaskQueryParams(A2ABaseModel):
    """Parameters for querying a task, including optional history length."""

    id: str
    history_length: StrictInt | None = Field(default=None, ge=0)
    metadata: dict[str, Any] | None = None


class MessageSendConfiguration(A2ABaseModel):
    """Configuration for the send message request."""

    # The schema requires acceptedOutputModes, but real clients omit it.
    accepted_output_modes: list[str] | None = None
    blocking: StrictBool | None = None
    history_length: StrictInt | None = Field(default=None, ge=0)
    push_notification_config: PushNotificationConfig | None = None


class MessageSendParams(A2ABaseModel):
    """Sent by the client to the agent as a request. May create, continue or restart a task."""

    message: Message
    configuration: MessageSendConfiguration | None = None
    metadata: dict[str, Any] | None = None


class TaskPushNotificationConfig(A2ABaseModel):
    """Parameters for setting or getting push notification configuration for a task."""

    task_id: str
    push_notification_config: PushNotificationConfig


class GetTaskPushNotificationConfigParams(A2ABaseModel):
    """Parameters for fetching a pushNotificationConfiguration associated with a Task."""

    id: str
    push_notification_config_id: str | None = None
    metadata: dict[str, Any] | None = None


class ListTaskPushNotificationConfigParams(A2ABaseModel):
    """Parameters for getting list of pushNotificationConfigurations associated with a Task."""

    id: str
    metadata: dict[str, Any] | None = None


class DeleteTaskPushNotificationConfigParams(A2ABaseModel):
    """Parameters for removing pushNotificationConfiguration associated with a Task."""

    id: str
    push_notification_config_id: str
    metadata: dict[str, Any] | None = None
