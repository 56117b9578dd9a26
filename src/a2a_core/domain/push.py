"""Push notification configuration: where to POST task updates, how to authenticate."""

from typing import Any, Self

from pydantic import PrivateAttr

from a2a_core import generations
from a2a_core.domain._base import A2ABaseModel

# The protocol generations a config can be created through (`PushNotificationConfig.protocol_version`):
# its webhook gets the payload that generation's receivers parse.
PUSH_V0 = generations.V0_3.codec  # 0.2.5 and 0.3 clients (one codec), and every config stored before 1.0
PUSH_V1 = generations.V1_0.codec


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
    # A private attribute, not a field: no request of any generation can set it and no response
    # (nor the stored config JSON) carries it. Copies keep it; config stores keep it beside the JSON.
    _protocol_version: str = PrivateAttr(default=PUSH_V0)

    @property
    def protocol_version(self) -> str:
        """The protocol generation that created the config (`PUSH_V0`, `PUSH_V1`)."""
        return self._protocol_version

    def __repr_args__(self) -> Any:
        yield from super().__repr_args__()
        if self._protocol_version != PUSH_V0:  # else two configs that differ only here look equal
            yield "protocol_version", self._protocol_version

    def created_through(self, protocol_version: str) -> Self:
        """A copy recorded as created through ``protocol_version``."""
        config = self.model_copy()
        config._protocol_version = protocol_version
        return config
