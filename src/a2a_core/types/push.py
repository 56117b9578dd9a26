"""Push notification configuration (where to POST task updates, how to authenticate) and its params."""

from typing import Any

from a2a_core.types._base import A2ABaseModel


class PushNotificationAuthenticationInfo(A2ABaseModel):
    """Defines authentication details for push notifications."""

    schemes: list[str]
    credentials: str | None = None


class PushNotificationConfig(A2ABaseModel):
    """Configuration for setting up push notifications for task updates."""

    url: str
    id: str | None = None
    token: str | None = None
    authentication: PushNotificationAuthenticationInfo | None = None


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
