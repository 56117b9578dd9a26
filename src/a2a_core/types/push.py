"""Push notification configuration: where to POST task updates, how to authenticate."""

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
